## The side view's side of a shared world (`SharedWorldSession`): the character's pose (the top of
## its body and its height) sent every frame, its digging and placing turned into tile requests
## (on the host as on a client: the server decides and tells everyone), and a move the server
## refused undone. The server checks the character's moves with its limits in tiles a second.
##
## May use: `StrataWorldSync`, the side view's `StrataChunkWorld2D` and character (`Player2D`).
class_name NetSession2D
extends SharedWorldSession

## The character's limits for the server, in tiles (16 pixels) a second: it runs at 170 pixels a
## second (10.6 tiles) and jumps 4.6 tiles high.
const MAX_HORIZONTAL_TILES_PER_S := 13.0
const JUMP_HEIGHT_TILES := 5.5
## Milliseconds before the same tile may be asked for again.
const REPEAT_MS := 500

var world: StrataChunkWorld2D
var player: Player2D
## Tile → when it was last asked for (`Time.get_ticks_msec`).
var _asked: Dictionary[Vector2i, int] = {}


## Creates the `StrataWorldSync` child for `world`, played by `player`, whose tile edits then go
## through it.
func setup(game_world: StrataChunkWorld2D, game_player: Player2D, local_name: String) -> void:
	world = game_world
	player = game_player
	_save_prefix = "shared-side"
	_start_sync(world, local_name)
	sync.max_horizontal_speed = MAX_HORIZONTAL_TILES_PER_S
	sync.jump_height = JUMP_HEIGHT_TILES
	sync.pose_corrected_2d.connect(_on_pose_corrected)
	player.edit_tile = request_tile


## Asks the server to set tile `tile` to `block` (the character's dig and place); false when not
## in a session, refused before it was sent, or the same tile was asked for less than
## `REPEAT_MS` ago (the world shows an edit only once the server's answer is back: a held
## button would dig the same tile again meanwhile).
func request_tile(tile: Vector2i, block: int) -> bool:
	var now := Time.get_ticks_msec()
	if not is_joined() or now - int(_asked.get(tile, -REPEAT_MS)) < REPEAT_MS:
		return false
	if sync.request_tile(tile, block) < 0:
		return false
	if _asked.size() > 64:
		_asked.clear()
	_asked[tile] = now
	return true


func _process(_delta: float) -> void:
	if sends_poses and is_joined() and player != null:
		var body := player.body_rect()
		sync.set_local_pose_2d(world.to_local(body.position), body.size.y)


## The server moved the character (a refused move, or the host teleported it): the body's top
## goes where the server has it.
func _on_pose_corrected(top: Vector2) -> void:
	if player == null:
		return
	var body := player.body_rect()
	player.global_position += world.to_global(top) - body.position
	player.velocity = Vector2.ZERO
