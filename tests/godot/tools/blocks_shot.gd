## Renders the README's picture of the default library's building blocks: on a patch of podzol
## levelled beside the spawn of the default world, a column each of glass, leaves, log and planks
## placed as edits, and a torch, at noon. Run under Xvfb (by `cargo xtask screenshots`):
## `cargo xtask godot --xvfb -- --path tests/godot res://tools/blocks_shot.tscn -- --out=ABS.png`
extends Node3D

## The blocks shown, left to right, each a column three high.
const BLOCKS: Array[String] = ["glass", "leaves", "log", "planks"]
const TIMEOUT_MS := 240_000

var out := "user://blocks_new.png"

@onready var world: StrataChunkWorld = $StrataChunkWorld
@onready var camera: Camera3D = $Camera3D
@onready var day_night: DayNight = $DayNight


func _ready() -> void:
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--out="):
			out = arg.substr(6)
	world.preset = GameState.make_preset(GameState.DEFAULT_PRESET, -1)
	world.view_distance = 3
	world.vertical_view_distance = 2
	world.far_view_levels = 1
	day_night.frozen = true
	_run.call_deferred()


func _run() -> void:
	# A dry spot near the origin: the first column (every 8 m east) above the water.
	var x := 0
	while world.get_height(x, 0) < 2.0 and x < 512:
		x += 8
	var z := 0
	var ground := int(world.get_height(x, z))
	# Level a 13 × 9 patch of podzol, clear the air above it, then place the columns on it.
	world.set_voxels_box(
		Vector3i(x - 6, ground - 3, z - 4),
		Vector3i(x + 6, ground, z + 4),
		world.get_block_id("dirt")
	)
	world.set_voxels_box(
		Vector3i(x - 6, ground, z - 4), Vector3i(x + 6, ground, z + 4), world.get_block_id("podzol")
	)
	world.set_voxels_box(Vector3i(x - 6, ground + 1, z - 4), Vector3i(x + 6, ground + 12, z + 4), 0)
	for i in BLOCKS.size():
		var bx := x - 4 + i * 3
		var id := world.get_block_id(BLOCKS[i])
		world.set_voxels_box(Vector3i(bx, ground + 1, z), Vector3i(bx, ground + 3, z), id)
	world.set_voxel(Vector3i(x + 5, ground + 1, z + 2), world.get_block_id("torch"))
	camera.position = Vector3(x + 0.5, ground + 4.5, z + 10.5)
	camera.look_at(Vector3(x + 0.5, ground + 2.0, z + 0.5), Vector3.UP)
	day_night.set_time_of_day(0.45)
	world.daylight = day_night.get_daylight()
	await RenderedChecks.wait_ready(world)
	for i in 8:
		await RenderingServer.frame_post_draw
	var img := get_viewport().get_texture().get_image()
	if img == null or img.is_empty():
		push_error("blocks_shot: no frame to save (run under Xvfb, not headless)")
		get_tree().quit(1)
		return
	var placed := world.get_block_name(world.get_voxel(Vector3i(x - 4, ground + 2, z)))
	var err := img.save_png(out)
	print("blocks shot: %s (%s; glass placed: %s)" % [out, error_string(err), placed == "glass"])
	get_tree().quit(0 if err == OK and placed == "glass" else 1)
