## Rendered day/night check (run under Xvfb, not headless): renders the same view at noon and at
## midnight, saves both screenshots and prints their mean brightness. Exits 1 when noon is not
## clearly brighter than midnight.
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path godot_project \
##       res://game/tools/day_night_shots.tscn -- --out-dir=/abs/dir
extends Node3D

var out_dir := "user://day_night_shots"

@onready var world: ChunkWorld = $ChunkWorld
@onready var camera: Camera3D = $Camera3D
@onready var day_night: DayNight = $DayNight

func _ready() -> void:
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--out-dir="):
			out_dir = arg.substr(10)
	world.preset = GameState.make_preset(GameState.DEFAULT_PRESET, -1)
	world.view_distance = 3
	world.vertical_view_distance = 2
	day_night.frozen = true
	var h := world.get_height(0.5, 0.5)
	camera.position = Vector3(0.5, maxf(h, 0.0) + 12.0, 0.5)
	camera.look_at(camera.position + Vector3(1, -0.25, 0.3), Vector3.UP)
	_run.call_deferred()

func _run() -> void:
	var deadline := Time.get_ticks_msec() + 240_000
	while not world.is_area_ready() and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	DirAccess.make_dir_recursive_absolute(out_dir)
	var noon := await _shot(0.5, "noon")
	var midnight := await _shot(0.0, "midnight")
	print("NOON_BRIGHTNESS=%.4f" % noon)
	print("MIDNIGHT_BRIGHTNESS=%.4f" % midnight)
	var ok := noon > 0.2 and midnight < noon * 0.5
	print("day/night brightness check: %s" % ("ok" if ok else "FAILED"))
	get_tree().quit(0 if ok else 1)

func _shot(t: float, tag: String) -> float:
	day_night.set_time_of_day(t)
	for i in 4:
		await RenderingServer.frame_post_draw
	var img := get_viewport().get_texture().get_image()
	if img == null or img.is_empty():
		print("no rendered frame (headless?)")
		return -1.0
	var path := out_dir.path_join("%s.png" % tag)
	img.save_png(path)
	print("screenshot: " + ProjectSettings.globalize_path(path))
	# Mean luma over a grid of samples.
	var sum := 0.0
	var n := 0
	for y in range(0, img.get_height(), 8):
		for x in range(0, img.get_width(), 8):
			var c := img.get_pixel(x, y)
			sum += 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b
			n += 1
	return sum / maxf(1.0, n)
