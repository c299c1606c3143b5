## The player's lantern, and how dark it is around them: underground the sun and the ambient
## light fade (`DayNight.shade`), so caves are dark even where the shadow map does not reach;
## the lantern lights up underground and at night.
class_name Lantern
extends OmniLight3D

## Depth below the surface (voxels) from which the player counts as underground.
const UNDERGROUND_DEPTH := 3.0
## Daylight below which the lantern is lit in the open.
const NIGHT_DAYLIGHT := 0.15
## Updates every this many frames.
const EVERY_FRAMES := 10

@export var world: ChunkWorld
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
	var depth := world.get_height(p.x, p.z) - p.y
	visible = depth > UNDERGROUND_DEPTH or day_night.get_daylight() < NIGHT_DAYLIGHT
	day_night.shade = 1.0 - clampf((depth - 2.0) / 10.0, 0.0, 0.9)
