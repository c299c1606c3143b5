## The game's side of a shared world, 3D or side view: a `StrataWorldSync` child that hosts the
## game's world or joins another player's, and the names of the players for the chat. The 3D
## game's `NetSession` and the side view's `NetSession2D` add the local player: its pose sent
## every frame and its edits turned into requests (the server decides and tells everyone).
##
## May use: `StrataWorldSync`, the game's world node (`StrataChunkWorld` or `StrataChunkWorld2D`).
class_name SharedWorldSession
extends Node

## Joined the host's world (on a client; the host is joined once `host` returns OK).
signal joined
## Could not join, or the connection was lost later, with the reason.
signal join_failed(message: String)
signal chat_line(player_name: String, text: String)
## The server refused one of this player's edits.
signal edit_refused(reason: String)

## The UDP port hosting uses unless told otherwise.
const DEFAULT_PORT := 24565
## Where a host keeps each shared world (with its journal beside it): one file per world, named
## after the world's fingerprint, so hosting the same world again resumes it.
const SAVE_DIR := "user://saves"

## The name this player goes by.
var player_name := ""
var sync: StrataWorldSync
## Whether the player's pose goes to the server: set by the game once it placed the player (spawn,
## cave). The server checks every move against the player's body, so a placement after the first
## pose would be refused as a teleport.
var sends_poses := false
## The world shared: a `StrataChunkWorld` or a `StrataChunkWorld2D`.
var _world_node: Node
## What the shared save's name starts with (a side view's and a 3D world's saves differ).
var _save_prefix := "shared"


## Creates the `StrataWorldSync` child for `world_node`, played by `local_name`.
func _start_sync(world_node: Node, local_name: String) -> void:
	_world_node = world_node
	player_name = local_name
	sync = StrataWorldSync.new()
	sync.name = "StrataWorldSync"
	# Polling goes on while the game is paused, or the connection would time out.
	sync.process_mode = Node.PROCESS_MODE_ALWAYS
	add_child(sync)
	sync.world = sync.get_path_to(world_node)
	sync.player_name = local_name
	sync.joined.connect(func(_id: int) -> void: joined.emit())
	sync.join_failed.connect(func(message: String) -> void: join_failed.emit(message))
	sync.chat_received.connect(_on_chat_received)
	sync.edit_rejected.connect(
		func(_request: int, reason: String) -> void: edit_refused.emit(reason)
	)


## Serves the world (its preset already chosen) on `port`, resuming its shared save; "" or the
## error.
func host(port: int) -> String:
	DirAccess.make_dir_recursive_absolute(SAVE_DIR)
	var preset: StrataWorldPreset = _world_node.get("preset")
	sync.save_path = save_path_for(preset, _save_prefix)
	if sync.host(port) != OK:
		return sync.last_error()
	return ""


## Starts joining `address`:`port`; `joined` or `join_failed` follows. "" or the error.
func join(address: String, port: int) -> String:
	if sync.join(address, port, player_name) != OK:
		return sync.last_error()
	return ""


## The shared save of the world made from `preset`, its name starting with `prefix`.
static func save_path_for(preset: StrataWorldPreset, prefix := "shared") -> String:
	var key := preset.fingerprint().sha256_text().left(16)
	return SAVE_DIR.path_join("%s-%s.strata" % [prefix, key])


func is_joined() -> bool:
	return sync != null and sync.is_joined()


func send_chat(text: String) -> void:
	if is_joined() and text.strip_edges() != "":
		sync.send_chat(text.strip_edges())


## The name of player `id` (this player's own included).
func name_of(id: int) -> String:
	if id == sync.get_local_player_id():
		return player_name
	return str(sync.get_players().get(id, "player %d" % id))


func leave() -> void:
	if sync != null:
		sync.leave()


func _on_chat_received(id: int, text: String) -> void:
	chat_line.emit(name_of(id), text)
