## The side view's shared world: the "Multiplayer" menu (`game/multiplayer_menu.tscn`, opened with
## `open_menu`), hosting the world the side view plays on a port or joining another player's
## (`NetSession2D`), the other players drawn by `RemotePlayers2D`, and what is going on for the
## HUD (`status`). A join that fails says why in the menu and leaves the side view as it was;
## a joined world is the host's: the side view places its character again (`joined_world`).
##
## May use: `NetSession2D`, `MultiplayerMenu`, `RemotePlayers2D`, the side view's world and
## character.
class_name SideViewMultiplayer
extends Node

## Joined the host's world: its tiles stream now; place the character again.
signal joined_world
## A join failed or a joined session was lost, with the reason.
signal session_failed(message: String)

const MULTIPLAYER_MENU := preload("res://game/multiplayer_menu.tscn")

@export var world: StrataChunkWorld2D
@export var player: Player2D
@export var remote_players: RemotePlayers2D
## Where the menu is shown (over the world).
@export var menu_layer: CanvasLayer

## The session, or null when playing alone.
var session: NetSession2D
## One line for the HUD: hosting, joining, joined, or what went wrong.
var status := ""
var _menu: MultiplayerMenu


## Opens the multiplayer menu (or returns the open one).
func open_menu() -> MultiplayerMenu:
	if is_instance_valid(_menu):
		return _menu
	_menu = MULTIPLAYER_MENU.instantiate()
	_menu.host_title = "Host this side view (you play too)"
	_menu.host_requested.connect(_on_host_requested)
	_menu.join_requested.connect(_on_join_requested)
	menu_layer.add_child(_menu)
	# The keys are the menu's while it is open (typing a name must not run or dig).
	player.input_enabled = false
	_menu.tree_exited.connect(func() -> void: player.input_enabled = true)
	if session != null:
		_menu.show_status(status)
	return _menu


## Whether a session is on (hosting, joining or joined).
func is_shared() -> bool:
	return session != null


## Whether this side view is another player's guest (its world is the host's to keep).
func is_guest() -> bool:
	return session != null and not session.sync.is_server()


## Serves the side view's world on `port` as `player_name`; "" or the error (also in `status`).
func host(port: int, player_name: String) -> String:
	if session != null:
		return _fail("Already in a shared world: %s" % status)
	_start_session(player_name)
	var error := session.host(port)
	if error != "":
		_end_session()
		return _fail("Cannot host: %s" % error)
	# The character stands where it is: its poses go out from now on.
	session.sends_poses = true
	status = "Hosting on UDP port %d as %s" % [port, player_name]
	return ""


## Starts joining `address`:`port` as `player_name`; "" or the error (also in `status`). The
## character waits, frozen, until `joined_world` (or `session_failed`).
func join(address: String, port: int, player_name: String) -> String:
	if session != null:
		return _fail("Already in a shared world: %s" % status)
	_start_session(player_name)
	session.joined.connect(_on_joined, CONNECT_ONE_SHOT)
	var error := session.join(address, port)
	if error != "":
		_end_session()
		return _fail("Could not join %s:%d: %s" % [address, port, error])
	player.set_physics_process(false)
	status = "Joining %s:%d as %s…" % [address, port, player_name]
	return ""


## The character was placed in the shared world: its poses go out from now on.
func placed() -> void:
	if session != null and session.is_joined():
		session.sends_poses = true


## The other player's name of `id` (the local one included).
func name_of(id: int) -> String:
	return session.name_of(id) if session != null else ""


func _start_session(player_name: String) -> void:
	session = NetSession2D.new()
	session.name = "NetSession2D"
	add_child(session)
	session.setup(world, player, player_name)
	session.join_failed.connect(_on_join_failed)
	session.edit_refused.connect(func(reason: String) -> void: status = "Edit refused: " + reason)
	remote_players.follow(session.sync)


func _end_session() -> void:
	if session == null:
		return
	session.leave()
	session.queue_free()
	session = null
	player.edit_tile = Callable()
	player.set_physics_process(true)


func _fail(message: String) -> String:
	status = message
	if is_instance_valid(_menu):
		_menu.show_status(message)
	printerr("Strata: ", message)
	return message


func _on_joined() -> void:
	status = "Joined as %s (player %d)" % [session.player_name, session.sync.get_local_player_id()]
	print("Strata: ", status)
	if is_instance_valid(_menu):
		_menu.close()
	joined_world.emit()


func _on_join_failed(message: String) -> void:
	var was_joined := status.begins_with("Joined")
	_end_session()
	_fail(("Left the shared world: %s" if was_joined else "Could not join: %s") % message)
	session_failed.emit(message)


func _on_host_requested(port: int, player_name: String) -> void:
	if host(port, player_name) == "" and is_instance_valid(_menu):
		_menu.close()


func _on_join_requested(address: String, port: int, player_name: String) -> void:
	if join(address, port, player_name) == "" and is_instance_valid(_menu):
		_menu.show_status(status)
