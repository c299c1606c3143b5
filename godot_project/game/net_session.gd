## The game's side of a shared world: a `StrataWorldSync` child that hosts the game's world or joins
## another player's, the local player's pose sent every frame, digging and placing turned into
## edit requests (on the host as on a client: the server decides and tells everyone), and the
## names of the players for the chat.
##
## May use: `StrataWorldSync`, the game's `StrataChunkWorld` and `StrataPlayer`.
class_name NetSession
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

var world: StrataChunkWorld
var player: StrataPlayer
## The name this player goes by.
var player_name := ""
var sync: StrataWorldSync
## Whether the player's pose goes to the server: set by the game once it placed the player (spawn,
## cave). The server checks every move against the player's body, so a placement after the first
## pose would be refused as a teleport.
var sends_poses := false


## Creates the `StrataWorldSync` child for `world`, played by `player`.
func setup(game_world: StrataChunkWorld, game_player: StrataPlayer, local_name: String) -> void:
	world = game_world
	player = game_player
	player_name = local_name
	sync = StrataWorldSync.new()
	sync.name = "StrataWorldSync"
	# Polling goes on while the game is paused, or the connection would time out.
	sync.process_mode = Node.PROCESS_MODE_ALWAYS
	add_child(sync)
	sync.world = sync.get_path_to(world)
	sync.player_name = local_name
	sync.joined.connect(func(_id: int) -> void: joined.emit())
	sync.join_failed.connect(func(message: String) -> void: join_failed.emit(message))
	sync.chat_received.connect(_on_chat_received)
	sync.pose_corrected.connect(_on_pose_corrected)
	sync.edit_rejected.connect(
		func(_request: int, reason: String) -> void: edit_refused.emit(reason)
	)
	player.edit_voxel = request_edit


## Serves the world (its preset already chosen) on `port`, resuming its shared save; "" or the
## error.
func host(port: int) -> String:
	DirAccess.make_dir_recursive_absolute(SAVE_DIR)
	sync.save_path = save_path_for(world.preset)
	if sync.host(port) != OK:
		return sync.last_error()
	return ""


## Starts joining `address`:`port`; `joined` or `join_failed` follows. "" or the error.
func join(address: String, port: int) -> String:
	if sync.join(address, port, player_name) != OK:
		return sync.last_error()
	return ""


## The shared save of the world made from `preset`.
static func save_path_for(preset: StrataWorldPreset) -> String:
	return SAVE_DIR.path_join("shared-%s.strata" % preset.fingerprint().sha256_text().left(16))


func is_joined() -> bool:
	return sync != null and sync.is_joined()


## Asks the server to set voxel `cell` to `block` (the player's dig and place).
func request_edit(cell: Vector3i, block: int) -> void:
	if is_joined():
		sync.request_edit(cell, block)


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


func _process(_delta: float) -> void:
	if sends_poses and is_joined() and player != null:
		# The eye: the server measures edit reach from it, and sweeps the body down to the feet
		# (the eye height changes with the stance); others draw the body below it.
		var eye := player.camera.global_position
		sync.set_local_pose(
			eye, player.rotation.y, player.head.rotation.x, eye.y - player.global_position.y
		)


## The server moved this player (a refused move, or the host teleported it): the body goes where
## the server has its eye.
func _on_pose_corrected(eye: Vector3, yaw: float, pitch: float) -> void:
	if player == null:
		return
	var eye_offset := player.camera.global_position - player.global_position
	player.global_position = eye - eye_offset
	player.velocity = Vector3.ZERO
	player.rotation.y = yaw
	player.head.rotation.x = pitch


func _on_chat_received(id: int, text: String) -> void:
	chat_line.emit(name_of(id), text)
