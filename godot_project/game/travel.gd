## Travel anywhere in the world ("Go to…" in the pause menu): the player is taken to world
## coordinates (x, z, and optionally y) and stands on the ground there once the area is loaded.
##
## A journey: the world's origin moves to the destination (`StrataChunkWorld.set_origin`, so
## positions there stay small and exact), the player is held still over it while the area
## streams in at the short loading view distance, with the destination preloaded, then it is put
## on the ground (`get_height`) and gets control back; `arrived` follows. Without a y the spot is
## the standing spot nearest the column that `WorldSetup.find_spawn_voxel` picks (dry ground: the
## same for a seed and column in every run); with a y, the feet go there unless the body would be
## inside the ground there (then onto the surface). As at a spawn, the player then faces the
## most open view.
class_name Travel
extends Node

## The journey's destination is loaded and the player stands there: its world position (feet).
signal arrived(world_position: PackedFloat64Array)

## Destinations lie within ±LIMIT on every axis (2³⁰ − 1): well inside the world's bounds
## (±2,147,483,616 voxels), so the area streamed and the far view around the player are too.
const LIMIT := 1_073_741_823
## Chunks around the destination preloaded (and kept until arrival).
const PRELOAD_RADIUS := 2

@export var world: StrataChunkWorld
@export var player: StrataPlayer
## Whose standing-spot search picks the place (and whose loading view distances apply).
@export var setup: WorldSetup

## Where the current journey goes: the world voxel the feet will stand in; whether its y was
## given (else: on the ground).
var _feet := Vector3i.ZERO
var _y_given := false
var _travelling := false
## The view distances to go back to on arrival.
var _view_distance := 0
var _vertical_view_distance := 0
## Frames since the journey started (the world must see the player's new place first).
var _frames := 0


func _ready() -> void:
	set_process(false)


func is_travelling() -> bool:
	return _travelling


## Why (x, y, z) is not a destination ("" when it is): each coordinate a finite number within
## ±`LIMIT`; `y` may be NAN (on the ground).
static func check_destination(x: float, y: float, z: float) -> String:
	for axis: Array in [["x", x, false], ["y", y, true], ["z", z, false]]:
		var v: float = axis[1]
		if is_nan(v) and axis[2]:
			continue
		if is_nan(v) or is_inf(v) or absf(v) > LIMIT:
			return (
				"%s = %s is outside the world; allowed: -1,073,741,823 to 1,073,741,823"
				% [axis[0], str(v)]
			)
	return ""


## Starts a journey to world coordinates (x, y, z); `y` NAN puts the player on the ground.
## Returns "" or why not (a destination outside the limits, a journey under way).
func go_to(x: float, y: float, z: float) -> String:
	var error := check_destination(x, y, z)
	if error != "":
		return error
	if _travelling:
		return "Already on the way"
	var column := Vector2i(floori(x), floori(z))
	_y_given = not is_nan(y)
	_feet = Vector3i(column.x, floori(y), column.y) if _y_given else setup.find_spawn_voxel(column)
	_travelling = true
	_frames = 0
	# Held still over the destination until its ground has collision.
	player.input_enabled = false
	player.process_mode = Node.PROCESS_MODE_DISABLED
	player.velocity = Vector3.ZERO
	world.set_origin(_feet)
	player.global_position = setup.feet_at(_feet)
	_view_distance = world.view_distance
	_vertical_view_distance = world.vertical_view_distance
	world.view_distance = mini(_view_distance, WorldSetup.LOADING_VIEW_DISTANCE)
	world.vertical_view_distance = mini(
		_vertical_view_distance, WorldSetup.LOADING_VERTICAL_VIEW_DISTANCE
	)
	world.preload_area(world.to_local(player.global_position), PRELOAD_RADIUS)
	set_process(true)
	return ""


func _process(_delta: float) -> void:
	_frames += 1
	if _frames > 2 and world.get_preload_progress() >= 1.0 and world.is_area_ready():
		_arrive()


func _arrive() -> void:
	set_process(false)
	world.cancel_preload()
	world.view_distance = _view_distance
	world.vertical_view_distance = _vertical_view_distance
	var ground := int(world.get_height(_feet.x + 0.5, _feet.z + 0.5))
	if not _y_given or _inside_ground(_feet):
		# On the ground: the column as it is now (edits included).
		_feet.y = ground
	player.global_position = setup.feet_at(_feet)
	player.rotation.y = setup.open_view_yaw(player.global_position)
	player.velocity = Vector3.ZERO
	player.process_mode = Node.PROCESS_MODE_INHERIT
	player.input_enabled = true
	_travelling = false
	arrived.emit(WorldCoords.world_position(world, player.global_position))


## Whether a standing body with its feet in world voxel `feet` would be inside solid blocks.
func _inside_ground(feet: Vector3i) -> bool:
	for dy in 2:
		var id := world.get_voxel(feet + Vector3i(0, dy, 0))
		if id != 0 and id != world.get_block_id("water"):
			return true
	return false
