## Rendered day/night check (run under Xvfb, not headless): renders the same view at noon and at
## midnight, saves both screenshots and prints their mean brightness. Exits 1 when noon is not
## clearly brighter than midnight.
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/day_night_shots.tscn -- --out-dir=/abs/dir
extends Node3D

var out_dir := "user://day_night_shots"

@onready var world: StrataChunkWorld = $StrataChunkWorld
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
	# Don't draw while loading: under llvmpipe every drawn frame costs hundreds of milliseconds.
	get_viewport().disable_3d = true
	world.frame_budget_ms = 30.0
	var deadline := Time.get_ticks_msec() + 240_000
	while not world.is_area_ready() and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	get_viewport().disable_3d = false
	DirAccess.make_dir_recursive_absolute(out_dir)
	var noon := await _shot(0.5, "noon")
	var ground := _lower_half_ground_fraction(get_viewport().get_texture().get_image())
	var midnight := await _shot(0.0, "midnight")
	print("NOON_BRIGHTNESS=%.4f" % noon)
	print("MIDNIGHT_BRIGHTNESS=%.4f" % midnight)
	print("NOON_LOWER_HALF_GROUND=%.3f" % ground)
	var checks := RenderedChecks.new()
	checks.check("the view was ready", world.is_area_ready())
	checks.check("noon is bright (mean luma > 0.2)", noon > 0.2)
	checks.check(
		"midnight is less than half as bright as noon", midnight >= 0.0 and midnight < noon * 0.5
	)
	checks.check("the lower half of the noon frame is world, not sky (> 60 %)", ground > 0.6)
	checks.finish(get_tree())


## Fraction of sampled pixels in the lower half that are not sky-coloured (sky: blue clearly
## above red and green, and bright).
func _lower_half_ground_fraction(img: Image) -> float:
	if img == null or img.is_empty():
		return 0.0
	var ground := 0
	var n := 0
	@warning_ignore("integer_division")
	var half := img.get_height() / 2
	for y in range(half, img.get_height(), 6):
		for x in range(0, img.get_width(), 6):
			var c := img.get_pixel(x, y)
			var sky := c.b > c.r + 0.08 and c.b > c.g + 0.02 and c.get_luminance() > 0.45
			ground += 0 if sky else 1
			n += 1
	return float(ground) / maxf(1.0, n)


func _shot(t: float, tag: String) -> float:
	day_night.set_time_of_day(t)
	for i in 4:
		await RenderingServer.frame_post_draw
	var img := RenderedChecks.screenshot(get_viewport(), out_dir, tag)
	return -1.0 if img == null else RenderedChecks.mean_luma(img)
