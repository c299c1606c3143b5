## What a rendered check that draws a `StrataChunkWorld` starts from: its scene's world, camera
## and `DayNight` (nodes `StrataChunkWorld`, `Camera3D`, `DayNight`), the folder its frames go to
## (`--out-dir=`, see `RenderedChecks.out_dir_arg`) and the window at its frame size.
class_name RenderedWorldCheck
extends Node3D

## Where the frames are saved.
var out_dir := ""

@onready var world: StrataChunkWorld = $StrataChunkWorld
@onready var camera: Camera3D = $Camera3D
@onready var day_night: DayNight = $DayNight


## Takes the frames' folder from `--out-dir=` (else `default_dir`) and sizes the window to
## `frame_size`; called first in `_ready`.
func open_frames(default_dir: String, frame_size: Vector2i) -> void:
	out_dir = RenderedChecks.out_dir_arg(default_dir)
	get_window().size = frame_size
