## Counts the checks of a rendered scene, prints a line for each and the closing
## `N passed, N failed` that `cargo xtask test` reads.
class_name RenderedChecks
extends RefCounted

var passed := 0
var failed := 0


func check(what: String, ok: bool) -> void:
	if ok:
		passed += 1
		print("  ok   rendered: " + what)
	else:
		failed += 1
		print("  FAIL rendered: " + what)


## Prints the closing line and quits (exit code 1 on any failure).
func finish(tree: SceneTree) -> void:
	print("%d passed, %d failed" % [passed, failed])
	tree.quit(0 if failed == 0 else 1)


## The folder the run's frames go to: the `--out-dir=DIR` user argument, else `default`.
static func out_dir_arg(default: String) -> String:
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--out-dir="):
			return arg.substr(10)
	return default


## Saves the last drawn frame as `dir/NAME.png`; returns it (null when nothing is drawn, as
## in a headless run).
static func screenshot(viewport: Viewport, dir: String, shot_name: String) -> Image:
	var img := viewport.get_texture().get_image()
	if img == null or img.is_empty():
		print("no rendered frame (headless?)")
		return null
	var path := dir.path_join("%s.png" % shot_name)
	img.save_png(path)
	print("screenshot: " + ProjectSettings.globalize_path(path))
	return img


## A colour's luma (Rec. 709 weights).
static func luma(c: Color) -> float:
	return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b


## Mean luma over a grid of samples.
static func mean_luma(img: Image) -> float:
	var sum := 0.0
	var n := 0
	for y in range(0, img.get_height(), 8):
		for x in range(0, img.get_width(), 8):
			sum += luma(img.get_pixel(x, y))
			n += 1
	return sum / maxf(1.0, n)


## The share of pixels (every 2nd row and column) that differ from `base`, the same view without
## the debug view, by more than 0.2 in a channel: what the lines added. Not by colour: the
## renderers tone-map the lines differently (Forward+ draws them paler).
static func debug_line_share(img: Image, base: Image) -> float:
	var hits := 0
	var n := 0
	for y in range(0, img.get_height(), 2):
		for x in range(0, img.get_width(), 2):
			var a := img.get_pixel(x, y)
			var b := base.get_pixel(x, y)
			if maxf(absf(a.r - b.r), maxf(absf(a.g - b.g), absf(a.b - b.b))) > 0.2:
				hits += 1
			n += 1
	return float(hits) / maxf(1.0, n)


## The highest ground found on a coarse grid (every 48 m, ±1,024 m) around the origin (x, z).
static func find_mountain(world: StrataChunkWorld) -> Vector2:
	var best := Vector2.ZERO
	var best_h := -INF
	for gx in range(-1024, 1025, 48):
		for gz in range(-1024, 1025, 48):
			var h := world.get_height(gx, gz)
			if h > best_h:
				best_h = h
				best = Vector2(gx, gz)
	return best


## Waits (at most 240 s) for the near chunks around the viewer and, with `far`, the far view,
## drawing nothing meanwhile: under llvmpipe every drawn frame costs hundreds of milliseconds.
static func wait_ready(world: StrataChunkWorld, far: bool = false) -> void:
	var viewport := world.get_viewport()
	viewport.disable_3d = true
	world.frame_budget_ms = 30.0
	var deadline := Time.get_ticks_msec() + 240_000
	await world.get_tree().process_frame
	while Time.get_ticks_msec() < deadline:
		var far_done := not far or int(world.get_stats()["far_pending"]) == 0
		if world.is_area_ready() and far_done:
			break
		await world.get_tree().process_frame
	viewport.disable_3d = false


## The default world of `seed` without scatter meshes and structures: the near view draws those
## and the far view does not, which is no colour of the ground.
static func bare_preset(seed: int) -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	preset.scatter_enabled = false
	var no_structures: Array[StrataStructureRule] = []
	preset.structure_rules = no_structures
	return preset


## The mean colour of `r` in linear light (so that it is the colour the eye averages).
static func mean_linear(img: Image, r: Rect2i) -> Color:
	var sum := Vector3.ZERO
	for y in range(r.position.y, r.end.y):
		for x in range(r.position.x, r.end.x):
			var c := img.get_pixel(x, y).srgb_to_linear()
			sum += Vector3(c.r, c.g, c.b)
	var n := float(maxi(1, r.get_area()))
	return Color(sum.x / n, sum.y / n, sum.z / n)


## CIE76 ΔE between two linear-light colours.
static func lab_distance(a: Color, b: Color) -> float:
	return lab(a).distance_to(lab(b))


## CIELAB (D65) of a linear-light sRGB colour.
static func lab(c: Color) -> Vector3:
	var x := (0.4124 * c.r + 0.3576 * c.g + 0.1805 * c.b) / 0.95047
	var y := 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b
	var z := (0.0193 * c.r + 0.1192 * c.g + 0.9505 * c.b) / 1.08883
	var fx := _lab_f(x)
	var fy := _lab_f(y)
	var fz := _lab_f(z)
	return Vector3(116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz))


static func _lab_f(t: float) -> float:
	return pow(t, 1.0 / 3.0) if t > 0.008856 else 7.787 * t + 16.0 / 116.0
