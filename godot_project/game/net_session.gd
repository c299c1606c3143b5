## The 3D game's side of a shared world (`SharedWorldSession`): the local `StrataPlayer`'s pose
## sent every frame, its digging and placing turned into edit requests (on the host as on a
## client: the server decides and tells everyone), and a move the server refused undone.
##
## May use: `StrataWorldSync`, the game's `StrataChunkWorld` and `StrataPlayer`.
class_name NetSession
extends SharedWorldSession

var world: StrataChunkWorld
var player: StrataPlayer


## Creates the `StrataWorldSync` child for `world`, played by `player`.
func setup(game_world: StrataChunkWorld, game_player: StrataPlayer, local_name: String) -> void:
	world = game_world
	player = game_player
	_start_sync(world, local_name)
	sync.pose_corrected.connect(_on_pose_corrected)
	player.edit_voxel = request_edit


## Asks the server to set voxel `cell` to `block` (the player's dig and place).
func request_edit(cell: Vector3i, block: int) -> void:
	if is_joined():
		sync.request_edit(cell, block)


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
