extends Node3D
## Strata's example: a StrataChunkWorld streaming the default hills around a camera (its viewer)
## that waits above the ground until the area is loaded, then drifts forward so the world streams
## in.
## Reads no input actions, so it runs in any project.

## Metres a second the camera drifts once the area is ready (0 keeps it still).
@export_range(0.0, 100.0) var drift_speed := 8.0
## Metres above the ground at the origin where the camera starts.
@export_range(2.0, 500.0) var camera_height := 40.0

var _ready_to_drift := false

@onready var _world: StrataChunkWorld = $StrataChunkWorld
@onready var _camera: Camera3D = $Camera3D


func _ready() -> void:
	_camera.position = Vector3(0.0, _world.get_height(0.0, 0.0) + camera_height, 0.0)
	if _world.is_area_ready():
		_ready_to_drift = true
	else:
		_world.area_ready.connect(_on_area_ready, CONNECT_ONE_SHOT)


func _process(delta: float) -> void:
	if _ready_to_drift:
		_camera.position += -_camera.global_basis.z * Vector3(1.0, 0.0, 1.0) * drift_speed * delta


func _on_area_ready() -> void:
	_ready_to_drift = true
