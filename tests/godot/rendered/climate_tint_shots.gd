## Rendered check of grass tinted by climate (run under Xvfb, not headless): a flat platform of
## grass in the sky, centred on a chunk corner, is drawn from straight above (orthographic) at
## the hottest and at the coldest of a few hundred corners around the origin, each with
## `climate_tint` on and off. Dividing the frames (linear light, pixel by pixel) leaves the tint
## alone, the texture and the light cancelling:
## - the two places' tinted grass differ in hue (hot and dry yellower, cold bluer), and the tints
##   differ clearly;
## - across the chunk border through the platform's middle the tint has no step (its change over
##   a few pixels is small, against the change between the places);
## - the drawn tint is the core's (`get_tint_at`) at the platform's middle;
## - the climate texture read back from the renderer holds the core's corner climates;
## - a billion voxels out (the world's origin moved there), the drawn tint is still the core's
##   there, with no step across the border.
## The frames are saved (`climate_hot_on.png`, `_off`, `climate_cold_on.png`, `_off`,
## `climate_far_on.png`, `_off`) to be looked at.
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/climate_tint_shots.tscn -- --out-dir=/abs/dir
extends RenderedWorldCheck

const FRAME_SIZE := Vector2i(640, 360)
## The platform: this many voxels either side of the corner on x and z, this high over the
## ground.
const HALF := Vector2i(24, 14)
const ABOVE_GROUND := 40
## The camera this far above the platform (orthographic: the height does not scale the view;
## near, so the platform's chunks are all within the spherical near view).
const EYE_HEIGHT := 12.0
## The pixels either side of the border measured: columns 2..7 away from it, rows within
## `STRIP_HALF_HEIGHT` of the corner.
const STRIP := Vector2i(2, 7)
const STRIP_HALF_HEIGHT := 40
## The most the tint may change across the border (a channel's ratio), and the least the hues
## of the two places' grass and their tints must differ by.
const MAX_BORDER_STEP := 0.03
const MIN_HUE_CHANGE := 0.03
const MIN_TINT_CHANGE := 0.15
## How far the drawn tint may be from the core's, relative: red and green, and blue, which the
## grass texture holds little of (a few 8-bit levels, so the ratio is coarse).
const MAX_TINT_ERROR := Vector3(0.1, 0.1, 0.2)
## The far place: the chunk corner at x = z = 1e9 (= 32 · 31,250,000).
const FAR_CORNER := Vector2i(31_250_000, 31_250_000)

## Whether the climate texture read back held the core's corners (at the first place).
var _texture_ok := false


func _ready() -> void:
	open_frames("user://climate_tint_shots", FRAME_SIZE)
	var preset := StrataWorldPreset.new()
	preset.seed = 5151
	preset.scatter_enabled = false
	var no_structures: Array[StrataStructureRule] = []
	preset.structure_rules = no_structures
	world.preset = preset
	# 3: the far view's columns split around the viewer's chunk centre; at 3 the four chunks
	# around the corner the camera stands over are all near chunks.
	world.view_distance = 3
	world.far_view_levels = 1
	world.adaptive_far_view = false
	world.viewer = world.get_path_to(camera)
	camera.rotation_degrees = Vector3(-90.0, 0.0, 0.0)
	day_night.frozen = true
	day_night.weather_cloud_cover = 0.0
	day_night.set_time_of_day(0.32)
	# Linear tone mapping and no fog: a ratio of two frames' pixels is then the ratio of the
	# colours drawn (a filmic curve would bend it).
	day_night.environment.tonemap_mode = Environment.TONE_MAPPER_LINEAR
	day_night.environment.fog_enabled = false
	_run.call_deferred()


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var checks := RenderedChecks.new()
	var places := _hot_and_cold()
	var hot: Vector2i = places[0]
	var cold: Vector2i = places[1]
	print(
		(
			"hot corner %s climate %s, cold corner %s climate %s"
			% [hot, world.get_corner_climate(hot), cold, world.get_corner_climate(cold)]
		)
	)
	var hot_frames := await _frames(hot, "climate_hot")
	checks.check("the climate texture holds the core's corners", _texture_ok)
	var cold_frames := await _frames(cold, "climate_cold")
	var far_frames := await _frames(FAR_CORNER, "climate_far")
	var drawn := hot_frames.size() == 2 and cold_frames.size() == 2 and far_frames.size() == 2
	checks.check("every frame was drawn", drawn)
	if not drawn:
		checks.finish(get_tree())
		return
	var centre := Vector2i(FRAME_SIZE / 2)
	var middle := Rect2i(centre - Vector2i(40, 40), Vector2i(80, 80))
	var clipped := maxf(
		_clipped_share(hot_frames[1], middle), _clipped_share(cold_frames[1], middle)
	)
	checks.check(
		"the untinted grass is mostly unclipped (%.3f of its pixels clipped < 0.2)" % clipped,
		clipped < 0.2
	)
	var hot_tint := _ratio(hot_frames[0], hot_frames[1], middle)
	var cold_tint := _ratio(cold_frames[0], cold_frames[1], middle)
	var hot_hue := RenderedChecks.mean_linear(hot_frames[0], middle).linear_to_srgb().h
	var cold_hue := RenderedChecks.mean_linear(cold_frames[0], middle).linear_to_srgb().h
	print(
		(
			"CLIMATE_TINT hot=%s cold=%s hue hot=%.3f cold=%.3f"
			% [hot_tint, cold_tint, hot_hue, cold_hue]
		)
	)
	checks.check(
		(
			"the hot place's grass is yellower than the cold place's (hue %.3f < %.3f - %.2f)"
			% [hot_hue, cold_hue, MIN_HUE_CHANGE]
		),
		hot_hue < cold_hue - MIN_HUE_CHANGE
	)
	var change := hot_tint.distance_to(cold_tint)
	checks.check(
		"the tints differ clearly (%.3f > %.2f)" % [change, MIN_TINT_CHANGE],
		change > MIN_TINT_CHANGE
	)
	var far_tint := _ratio(far_frames[0], far_frames[1], middle)
	for pair: Array in [
		[hot, hot_frames, hot_tint],
		[cold, cold_frames, cold_tint],
		[FAR_CORNER, far_frames, far_tint]
	]:
		var corner: Vector2i = pair[0]
		var frames: Array[Image] = pair[1]
		var tint: Vector3 = pair[2]
		var step := _border_step(frames)
		print("BORDER_STEP at %s: %.4f" % [corner, step])
		checks.check(
			(
				"no step across the chunk border at corner %s (%.4f < %.2f)"
				% [corner, step, MAX_BORDER_STEP]
			),
			step < MAX_BORDER_STEP
		)
		var c := world.get_tint_at(corner.x * 32.0, corner.y * 32.0, StrataBlockType.TINT_GRASS)
		var core := Vector3(c.r, c.g, c.b)
		var error := (tint / core - Vector3.ONE).abs()
		print("drawn tint %s, core's %s at %s" % [tint, core, corner])
		checks.check(
			(
				"the drawn tint is the core's at corner %s (relative error %s within %s)"
				% [corner, error, MAX_TINT_ERROR]
			),
			(
				error.x <= MAX_TINT_ERROR.x
				and error.y <= MAX_TINT_ERROR.y
				and error.z <= MAX_TINT_ERROR.z
			)
		)
	checks.finish(get_tree())


## The hottest and the coldest corners among a few hundred within 1,600 voxels of the origin.
func _hot_and_cold() -> Array[Vector2i]:
	var hot := Vector2i.ZERO
	var cold := Vector2i.ZERO
	var hot_t := -1.0
	var cold_t := 2.0
	for i in 50:
		for k in 50:
			var corner := Vector2i(i * 2 - 50, k * 2 - 50)
			var t := world.get_corner_climate(corner).x
			if t > hot_t:
				hot_t = t
				hot = corner
			if t < cold_t:
				cold_t = t
				cold = corner
	return [hot, cold]


## [tint on, tint off] of the platform at `corner` seen from above; empty without rendering.
## The platform at `corner` drawn with the tint on and off; the world's origin is moved to the
## corner first (a no-op near the start, the floating origin a billion voxels out).
func _frames(corner: Vector2i, tag: String) -> Array[Image]:
	world.set_origin(Vector3i(corner.x * 32, 0, corner.y * 32))
	var top := int(world.get_height(corner.x * 32.0, corner.y * 32.0)) + ABOVE_GROUND
	var c := Vector3i(corner.x * 32, top, corner.y * 32)
	world.set_voxels_box(
		c - Vector3i(HALF.x, 0, HALF.y),
		c + Vector3i(HALF.x - 1, 0, HALF.y - 1),
		world.get_block_id("grass")
	)
	camera.position = world.voxel_to_local(c) + Vector3(0.0, 1.0 + EYE_HEIGHT, 0.0)
	var frames: Array[Image] = []
	for tint: bool in [true, false]:
		world.climate_tint = tint
		var frame := await _frame("%s_%s" % [tag, "on" if tint else "off"])
		if frame == null:
			return []
		frames.append(frame)
		if tint and tag == "climate_hot":
			_texture_ok = _texture_holds_corners(corner)
	world.climate_tint = true
	return frames


## The world once it and its climate map are ready, drawn; null without rendering.
func _frame(tag: String) -> Image:
	for i in 3:
		await get_tree().process_frame
	await RenderedChecks.wait_ready(world, true)
	var deadline := Time.get_ticks_msec() + 60_000
	while world.climate_tint and Time.get_ticks_msec() < deadline:
		var stats := world.get_stats()
		if int(stats["climate_tiles_ready"]) > 0 and int(stats["climate_tiles_pending"]) == 0:
			break
		await get_tree().process_frame
	for i in 2:
		await RenderingServer.frame_post_draw
	return RenderedChecks.screenshot(get_viewport(), out_dir, tag)


## Whether the texture the shaders sample (read back from the renderer) holds the core's
## climate at the corners around `corner`.
func _texture_holds_corners(corner: Vector2i) -> bool:
	var texture := world.get_climate_texture()
	if texture == null:
		return false
	var image := texture.get_image()
	if image == null or image.is_empty():
		return false
	var n := image.get_width()
	var ok := true
	for d: Vector2i in [Vector2i(0, 0), Vector2i(1, 0), Vector2i(-1, 1), Vector2i(5, -7)]:
		var want := world.get_corner_climate(corner + d)
		var got := image.get_pixel(posmod(corner.x + d.x, n), posmod(corner.y + d.y, n))
		var near := (
			absf(got.r - want.x) <= 0.5 / 255.0 + 1e-6
			and absf(got.g - want.y) <= 0.5 / 255.0 + 1e-6
		)
		print("corner %s: texel %s, core %s" % [corner + d, got, want])
		ok = ok and near and got.b == 1.0
	return ok


## The largest change of the tint across the border x = corner's (the frame's middle column):
## the ratio of the strips just left and just right of it.
func _border_step(frames: Array[Image]) -> float:
	var x := FRAME_SIZE.x / 2
	var rows := Vector2i(FRAME_SIZE.y / 2 - STRIP_HALF_HEIGHT, 2 * STRIP_HALF_HEIGHT)
	var left := Rect2i(x - STRIP.y, rows.x, STRIP.y - STRIP.x, rows.y)
	var right := Rect2i(x + STRIP.x, rows.x, STRIP.y - STRIP.x, rows.y)
	return _max_abs(_ratio(frames[0], frames[1], left) - _ratio(frames[0], frames[1], right))


## The mean of `on / off` (per pixel and channel, of the frames' values as read back: with
## linear tone mapping the Compatibility renderer's values are proportional to the colours
## drawn, as the core's tint coming out of this ratio shows) over `r`, leaving out pixels clipped
## in either frame or too dark to divide by.
static func _ratio(on: Image, off: Image, r: Rect2i) -> Vector3:
	var sum := Vector3.ZERO
	var n := 0
	for y in range(r.position.y, r.end.y):
		for x in range(r.position.x, r.end.x):
			if _is_clipped(on.get_pixel(x, y)) or _is_clipped(off.get_pixel(x, y)):
				continue
			var a := on.get_pixel(x, y)
			var b := off.get_pixel(x, y)
			if minf(b.r, minf(b.g, b.b)) < 0.005:
				continue
			sum += Vector3(a.r / b.r, a.g / b.g, a.b / b.b)
			n += 1
	return sum / float(maxi(1, n))


## Whether a pixel is clipped: a channel at the frame's brightest.
static func _is_clipped(c: Color) -> bool:
	return maxf(c.r, maxf(c.g, c.b)) >= 0.99


## The share of the pixels of `r` that are clipped.
static func _clipped_share(img: Image, r: Rect2i) -> float:
	var hits := 0
	for y in range(r.position.y, r.end.y):
		for x in range(r.position.x, r.end.x):
			if _is_clipped(img.get_pixel(x, y)):
				hits += 1
	return float(hits) / float(maxi(1, r.get_area()))


static func _max_abs(v: Vector3) -> float:
	return maxf(absf(v.x), maxf(absf(v.y), absf(v.z)))
