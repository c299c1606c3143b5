## The player's lantern: it lights up underground and at night. (Caves are dark by the sky light
## baked into the world's meshes; the lantern is a light of its own, so it lights them.)
class_name Lantern
extends OmniLight3D

## Depth below the surface (voxels) from which the player counts as underground.
const UNDERGROUND_DEPTH := 3.0
## Daylight below which the lantern is lit in the open.
const NIGHT_DAYLIGHT := 0.15
## Updates every this many frames.
const EVERY_FRAMES := 10

@export var world: StrataChunkWorld
@export var day_night: DayNight
## Whose depth counts (the player's body; the lantern itself hangs at eye height).
@export var body: Node3D


func _ready() -> void:
	visible = false
	set_process(false)


## Starts following the player (once the world around them is loaded).
func start() -> void:
	update_now()
	set_process(true)


func _process(_delta: float) -> void:
	if Engine.get_process_frames() % EVERY_FRAMES == 0:
		update_now()


func update_now() -> void:
	var p := body.global_position
	var depth := WorldCoords.ground_y(world, p) - p.y
	visible = depth > UNDERGROUND_DEPTH or day_night.get_daylight() < NIGHT_DAYLIGHT
	var eye := WorldCoords.voxel_at(world, global_position)
	day_night.fog_shade = DayNight.sky_share(world.get_sky_light(eye))
