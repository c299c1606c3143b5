## Rendered check of the floating origin (run under Xvfb, not headless): the same scene drawn
## at the world's start and a billion voxels away, and across an origin shift, must give the
## same frame. A flat world (textured ground, the far view behind it) with a few columns of
## blocks and a torch in front of the camera, in the afternoon sun (shadows), is drawn:
##
## - with its corner at world (0, 0, 0), the origin there, and again at (1e9, 0, 1e9), the
##   origin there: every node of the world stands at the same place in the node space, so the
##   frames may differ only by the renderer's noise (textures, light, shadows and the far view
##   are all computed from exact world coordinates);
## - just before and just after an origin shift (`floating_origin` on, the camera past
##   `origin_shift_distance`, in `origin_shift_group`): the camera and the world move back
##   together, so the frames may again differ only by the renderer's noise.
##
## The frames and the measured differences are saved and printed (`ORIGIN_DIFF`, `SHIFT_DIFF`).
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/origin_shots.tscn -- --out-dir=/abs/dir
extends RenderedWorldCheck

## The flat ground: voxels up to y = 19 are solid, the surface is at y = 20.
const GROUND_TOP := 19
## The far corner: x = z = 1e9 (a chunk corner: 1e9 = 32 · 31,250,000).
const FAR := 1_000_000_000
## Where the camera stands and looks, relative to the scene's corner (world voxels).
const EYE := Vector3(8.5, GROUND_TOP + 7.0, 30.5)
const LOOK_AT := Vector3(12.0, GROUND_TOP + 2.0, 8.0)
## The frames' size: small, as software rendering is slow (the window is made this size).
const FRAME_SIZE := Vector2i(640, 360)
## A pixel differs when a channel differs by more than this (of 1).
const PIXEL_TOLERANCE := 8.0 / 255.0
## Frames are compared after averaging blocks of 4 × 4 pixels: a texel that one frame samples
## and the other just misses (the renderer's noise when the numbers in the node's space change,
## as they do at a shift) averages out, a misplaced block or shadow does not.
const BLOCK_SHRINKS := 2
## What the renderer's noise may change: the share of (averaged) pixels differing by more than
## `PIXEL_TOLERANCE`. Measured on llvmpipe (Mesa 26.2, 640 × 360): 0 at 1e9 against the origin
## (single pixels too, or in some runs one of 230,400: sky through a far-view seam's crack in
## one frame, the far columns having come in another order), 0 across the shift (0.21 % of
## single pixels differ, by 0.16 at most: texels sampled at their edge), 3.2 % for the camera
## one voxel off (the control).
const MAX_DIFFERING_SHARE := 0.002
## The origin shift check's distance: small, so that a shift comes within the loaded area.
const SHIFT_DISTANCE := 64.0

## Whether each view's area was ready when it was drawn.
var _ready_views: Array[bool] = []


func _ready() -> void:
	open_frames("user://origin_shots", FRAME_SIZE)
	world.preset = _flat_preset()
	world.view_distance = 2
	world.vertical_view_distance = 1
	world.far_view_levels = 1
	# Fixed levels: under llvmpipe frames are slow, and the adaptive far view would drop levels.
	world.adaptive_far_view = false
	world.viewer = world.get_path_to(camera)
	day_night.frozen = true
	day_night.shadow_distance = 200.0
	# A clear sky: clouds hang over the world's ground (they follow its origin), so a billion
	# voxels away they differ, and this check is about the world's blocks, light and shadows.
	day_night.weather_cloud_cover = 0.0
	# No climate tint for the same reason: grass a billion voxels away lies in another climate.
	# The tint's own precision far out is climate_tint_shots' check.
	world.climate_tint = false
	_run.call_deferred()


## Flat ground at y = 20 (no biomes' heights, ravines, caves, sea, structures or spawns); grass
## on dirt and stone, with the default library's textures.
func _flat_preset() -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = 9191
	preset.height_base_height = 20.0
	preset.height_amplitude = 0.0
	preset.height_ravine_depth = 0.0
	preset.biomes_enabled = false
	preset.scatter_enabled = false
	preset.water_sea_level = -64
	preset.caves_mode = StrataWorldPreset.CAVES_MODE_NONE
	preset.caves_tunnel_strength = 0.0
	var no_structures: Array[StrataStructureRule] = []
	preset.structure_rules = no_structures
	return preset


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var checks := RenderedChecks.new()
	var started_ms := Time.get_ticks_msec()
	var near := await _scene_at(Vector3i.ZERO, "origin_near")
	var far := await _scene_at(Vector3i(FAR, 0, FAR), "origin_far")
	var origin_diff := frame_difference(near, far)
	_print_difference("ORIGIN_DIFF", origin_diff, "the scene at 0 against 1e9")
	# Just before and just after a shift: the camera past the shift distance with the floating
	# origin off, a frame; then on, and the world shifts in its next frame, before drawing it.
	world.set_origin(Vector3i.ZERO)
	world.origin_shift_distance = SHIFT_DISTANCE
	var corner := Vector3i(96, 0, 0)
	_build(corner)
	camera.position = world.voxel_to_local(corner) + EYE
	camera.look_at(world.voxel_to_local(corner) + LOOK_AT, Vector3.UP)
	camera.add_to_group(world.origin_shift_group)
	await _wait_ready("shift")
	var before := await _shot("shift_before")
	var shifts: Array[Vector3i] = []
	world.origin_shifted.connect(func(s: Vector3i) -> void: shifts.append(s))
	world.floating_origin = true
	var after := await _shot("shift_after")
	var shift_diff := frame_difference(before, after)
	_print_difference("SHIFT_DIFF", shift_diff, "shift %s" % [shifts])
	# The control: the camera one voxel off, as after a shift that lost a voxel. The check must
	# see it.
	camera.position.x += 1.0
	var control := await _shot("shift_control_one_voxel")
	var control_diff := frame_difference(before, control)
	_print_difference("CONTROL_DIFF", control_diff, "the camera one voxel off")
	print("ORIGIN_SHOTS_MS %d" % (Time.get_ticks_msec() - started_ms))
	checks.check("every view was ready", not _ready_views.has(false))
	checks.check("every view was drawn", near != null and far != null and after != null)
	var allowed := "< %.1f %% of 4 × 4 blocks differ" % (MAX_DIFFERING_SHARE * 100.0)
	checks.check(
		"the scene at x = z = 1e9 draws as at the origin (%s)" % allowed,
		origin_diff[3] < MAX_DIFFERING_SHARE
	)
	# The camera stood at world (104.5, 26, 30.5): the origin goes to the nearest chunk corner.
	checks.check(
		"the origin shifted once, to the chunk corner nearest the camera",
		shifts == ([Vector3i(96, 32, 32)] as Array[Vector3i])
	)
	checks.check(
		"the frames just before and after the shift match (%s)" % allowed,
		shift_diff[3] < MAX_DIFFERING_SHARE
	)
	checks.check(
		"the check sees a camera one voxel off (5× more blocks differ than it allows)",
		control_diff[3] > MAX_DIFFERING_SHARE * 5.0
	)
	checks.finish(get_tree())


## Waits for the area around the camera (and the far view) after the world's viewer moved: a
## few frames first, so the world has taken the camera's new place.
func _wait_ready(tag: String) -> void:
	var t := Time.get_ticks_msec()
	for i in 3:
		await get_tree().process_frame
	await RenderedChecks.wait_ready(world, true)
	_ready_views.append(world.is_area_ready())
	print("%s ready in %d ms" % [tag, Time.get_ticks_msec() - t])


static func _print_difference(label: String, d: Array[float], what: String) -> void:
	print(
		(
			"%s pixels: share=%.5f mean=%.5f max=%.4f; 4 × 4 blocks: share=%.5f (%s)"
			% [label, d[0], d[1], d[2], d[3], what]
		)
	)


## The scene with its corner at world voxel `corner`, the origin moved there first; its frame.
func _scene_at(corner: Vector3i, tag: String) -> Image:
	world.set_origin(corner)
	_build(corner)
	camera.position = world.voxel_to_local(corner) + EYE
	camera.look_at(world.voxel_to_local(corner) + LOOK_AT, Vector3.UP)
	await _wait_ready(tag)
	print("%s: origin %s, camera at %s" % [tag, world.get_origin(), camera.position])
	return await _shot(tag)


## Columns of stone, planks, glass and logs, and a torch, on the ground near `corner`.
func _build(corner: Vector3i) -> void:
	var blocks: Array[String] = ["stone", "planks", "glass", "log"]
	for i in blocks.size():
		var at := corner + Vector3i(6 + 3 * i, GROUND_TOP + 1, 6 + (i % 2) * 3)
		world.set_voxels_box(at, at + Vector3i(0, 2 + i, 0), world.get_block_id(blocks[i]))
	world.set_voxel(corner + Vector3i(10, GROUND_TOP + 1, 14), world.get_block_id("torch"))


## A frame at 3 pm, the second drawn from now (the first may still show the last change); null
## without rendering.
func _shot(tag: String) -> Image:
	day_night.set_time_of_day(0.62)
	world.daylight = day_night.get_daylight()
	var t := Time.get_ticks_msec()
	for i in 2:
		await RenderingServer.frame_post_draw
	var img := RenderedChecks.screenshot(get_viewport(), out_dir, tag)
	print("%s drawn in %d ms" % [tag, Time.get_ticks_msec() - t])
	return img


## How `b` differs from `a`: [the share of pixels with a channel off by more than
## `PIXEL_TOLERANCE`, the mean absolute channel difference, the largest, and the share of
## differing pixels after averaging 4 × 4 blocks]; all 1 when either is missing or their sizes
## differ.
static func frame_difference(a: Image, b: Image) -> Array[float]:
	if a == null or b == null or a.get_size() != b.get_size():
		return [1.0, 1.0, 1.0, 1.0]
	var full := _pixel_difference(a, b)
	var small_a := a.duplicate() as Image
	var small_b := b.duplicate() as Image
	for i in BLOCK_SHRINKS:
		small_a.shrink_x2()
		small_b.shrink_x2()
	return [full[0], full[1], full[2], _pixel_difference(small_a, small_b)[0]]


## [share of pixels off by more than `PIXEL_TOLERANCE`, mean absolute difference, largest].
static func _pixel_difference(a: Image, b: Image) -> Array[float]:
	var differing := 0
	var sum := 0.0
	var largest := 0.0
	for y in a.get_height():
		for x in a.get_width():
			var p := a.get_pixel(x, y)
			var q := b.get_pixel(x, y)
			var d := maxf(absf(p.r - q.r), maxf(absf(p.g - q.g), absf(p.b - q.b)))
			sum += (absf(p.r - q.r) + absf(p.g - q.g) + absf(p.b - q.b)) / 3.0
			largest = maxf(largest, d)
			if d > PIXEL_TOLERANCE:
				differing += 1
	var n := float(a.get_width() * a.get_height())
	return [differing / n, sum / n, largest]
