## Rendered check of colour at distance (run under Xvfb, not headless): where a near chunk gives
## way to a far column, the ground must not change colour ("colour pop"). The same ground, seen
## from the same camera, is drawn twice: once as near chunks (a large view distance) and once as
## far columns (a small one, the far view behind it). The far columns sample the same texture
## array as the chunks, one texel a voxel, so at that distance both show the textures' mipmapped
## mean colours; the check measures the CIE76 colour difference (ΔE, CIELAB from sRGB, D65) of
## the mean colour of a window of ground about 100 m out. The largest ΔE of a 16 × 16-pixel block
## of it is printed too, not checked: a far column is a coarser mesh (a cell of 2 voxels), so its
## terrace edges and their shadows stand a voxel or two from the chunks', which moves colour
## between neighbouring blocks of pixels without changing the ground's colour.
##
## A control proves the measure sees a pop of a block's colour: the same ground turned to stone
## (near chunks again) must differ by far more.
##
## The frames and the figures are saved and printed (`FAR_COLOUR_DELTA_E`).
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/far_colour_shots.tscn -- --out-dir=/abs/dir
extends RenderedWorldCheck

## Where the camera stands (30 voxels over the ground of this column) and the column of the middle
## of the measured ground: 100 m ahead of the camera, past a view distance of 2 chunks (far
## columns) and within one of 6 (near chunks).
const EYE_COLUMN := Vector2(16.0, 16.0)
const TARGET_COLUMN := Vector2(16.0, -84.0)
const EYE_OVER_GROUND := 30.0
## The measured window's half size in pixels, around the target's place in the frame: about 82
## to 126 m ahead, all past view distance 2 (64 m) and within 6.
const WINDOW_HALF := Vector2i(288, 16)
const BLOCK := 16
## The frames' size: small, as software rendering is slow (the window is made this size).
const FRAME_SIZE := Vector2i(640, 360)
## A colour difference most viewers do not notice side by side is ΔE ≈ 2.3 (CIE76): the mean
## may differ by less than 3.
const MAX_MEAN_DELTA_E := 3.0

## The camera and the middle of the measured ground (world voxels), from the terrain's heights.
var _eye := Vector3.ZERO
var _target := Vector3.ZERO


func _ready() -> void:
	open_frames("user://far_colour_shots", FRAME_SIZE)
	# The default world (hills, biomes, their textures), bare: see `RenderedChecks.bare_preset`.
	world.preset = RenderedChecks.bare_preset(5151)
	world.far_view_levels = 2
	world.adaptive_far_view = false
	world.viewer = world.get_path_to(camera)
	_eye = _on_ground(EYE_COLUMN) + Vector3(0.0, EYE_OVER_GROUND, 0.0)
	_target = _on_ground(TARGET_COLUMN)
	camera.position = _eye
	camera.look_at(_target, Vector3.UP)
	day_night.frozen = true
	day_night.weather_cloud_cover = 0.0
	day_night.set_time_of_day(0.5)
	_run.call_deferred()


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var checks := RenderedChecks.new()
	var near := await _frame(6, "far_colour_near")
	var window := _window()
	print("window %s" % window)
	var far := await _frame(2, "far_colour_far")
	var near_chunks := _is_near(_target, 6)
	var far_columns := not _is_near(_target, 2)
	# The control: a block of stone over the measured ground, its top 6 voxels over the target.
	var t := Vector3i(_target.floor())
	world.set_voxels_box(
		t - Vector3i(128, 10, 40), t + Vector3i(128, 6, 40), world.get_block_id("stone")
	)
	var control := await _frame(6, "far_colour_control_stone")
	var d := _delta_e(near, far, window)
	var c := _delta_e(near, control, window)
	print("FAR_COLOUR_DELTA_E mean=%.2f block_max=%.2f (control: mean=%.2f)" % [d[0], d[1], c[0]])
	checks.check("every frame was drawn", near != null and far != null and control != null)
	checks.check(
		"the measured ground is near chunks at view distance 6 and far columns at 2",
		near_chunks and far_columns
	)
	var within := "within ΔE %.1f" % MAX_MEAN_DELTA_E
	checks.check(
		"no colour pop: the ground's mean colour as far columns is %s of the chunks'" % within,
		d[0] < MAX_MEAN_DELTA_E
	)
	checks.check(
		"the check sees a pop: a block of stone over that ground differs by more than 3× the limit",
		c[0] > MAX_MEAN_DELTA_E * 3.0
	)
	checks.finish(get_tree())


## The top of the ground at column `c` (x, z).
func _on_ground(c: Vector2) -> Vector3:
	return Vector3(c.x, world.get_height(c.x, c.y), c.y)


## Whether world position `p` lies within `view` chunks of the camera's chunk (horizontally).
func _is_near(p: Vector3, view: int) -> bool:
	var size := StrataChunkWorld.chunk_size()
	var a := Vector2i(floori(_eye.x / size), floori(_eye.z / size))
	var b := Vector2i(floori(p.x / size), floori(p.z / size))
	return maxi(absi(a.x - b.x), absi(a.y - b.y)) <= view


## The measured window: the target's place in the frame, `WINDOW_HALF` either side.
func _window() -> Rect2i:
	var centre := Vector2i(camera.unproject_position(_target))
	return Rect2i(centre - WINDOW_HALF, WINDOW_HALF * 2).intersection(
		Rect2i(Vector2i.ZERO, FRAME_SIZE)
	)


## The world at view distance `view` once it (and the far view) is ready, drawn; null without
## rendering.
func _frame(view: int, tag: String) -> Image:
	world.view_distance = view
	for i in 3:
		await get_tree().process_frame
	await RenderedChecks.wait_ready(world, true)
	for i in 2:
		await RenderingServer.frame_post_draw
	return RenderedChecks.screenshot(get_viewport(), out_dir, tag)


## [ΔE of the window's mean colours, the largest ΔE of a `BLOCK`² block's mean colours] of `a`
## against `b`; [INF, INF] when a frame is missing.
static func _delta_e(a: Image, b: Image, window: Rect2i) -> Array[float]:
	if a == null or b == null or a.get_size() != b.get_size() or window.has_area() == false:
		return [INF, INF]
	var block_max := 0.0
	for y in range(window.position.y, window.end.y - BLOCK + 1, BLOCK):
		for x in range(window.position.x, window.end.x - BLOCK + 1, BLOCK):
			var r := Rect2i(x, y, BLOCK, BLOCK)
			block_max = maxf(block_max, _mean_delta_e(a, b, r))
	return [_mean_delta_e(a, b, window), block_max]


## ΔE between the mean colours of `r` in `a` and in `b`.
static func _mean_delta_e(a: Image, b: Image, r: Rect2i) -> float:
	var mean_a := RenderedChecks.mean_linear(a, r)
	return RenderedChecks.lab_distance(mean_a, RenderedChecks.mean_linear(b, r))
