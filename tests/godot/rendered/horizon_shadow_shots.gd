## Rendered check of the sun's shadows at every distance (run under Xvfb, not headless). From
## high above the land in the evening, looking north with the sun low in the west, renders the
## same frame with the sun's shadows on, off (shadow opacity 0: the same shadow maps and
## shaders, only their darkening gone; StrataChunkWorld.horizon_shadows off) and without the sun.
## For a grid of pixels it finds the ground each one shows (marching the camera ray over the world's
## height field) and whether the height field puts that ground in a mountain's shadow (marching
## toward the sun); ground the sun does not light anyway (a face turned from it) is left out.
## In each of three distance bands (near chunks < 300 m, the middle distance 300–1,000 m, the far
## view 1,000–2,000 m) most of the ground in a mountain's shadow must be darker in the frame with
## shadows. A wide view, then a telephoto view of the far ground most in shadow. Saves the
## frames and a map of the samples in the height field's shadow, tinted by band (near red,
## middle yellow, far cyan) where the frame shows the shadow and white where it does not.
## `--shadow-distance=250` shortens the shadow maps, so that beyond 250 m the horizon shadows
## alone shade (its files are named `horizon_maps250_*`); `--shadow-distance=2048,250` checks
## both, one after the other, in the world streamed once.
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/horizon_shadow_shots.tscn -- --out-dir=/abs/dir [--shadow-distance=2048,250]
extends Node3D

## Sample spacing in pixels.
const STEP := 8
## Distance bands, metres: [from, to).
const BANDS: Array[Vector2] = [Vector2(0, 300), Vector2(300, 1000), Vector2(1000, 2000)]
const BAND_NAMES: Array[String] = ["near", "middle", "far"]
const BAND_TINTS: Array[Color] = [Color(1, 0.2, 0.2), Color(1, 0.9, 0.2), Color(0.2, 1, 1)]
## A sample counts only where the sun lights it: without shadows it is this much brighter than
## with the sun off (luma ratio).
const SUNLIT_RATIO := 1.1
## A sample shows a shadow when the shadows make it this much darker (luma ratio).
const SHADOWED_RATIO := 0.9
## The share of a band's samples in a mountain's shadow that the frame must show darker.
const MIN_DARKER := 0.6
## The fewest samples in a mountain's shadow a band must have for its check to mean anything.
const MIN_SAMPLES := 30
## Ground this far under the line to the sun, metres, counts as in a mountain's shadow (the far
## view draws the height field with coarser cells than the voxels).
const SHADOW_CLEARANCE := 12.0
## The evening sun, low in the west (-x), to the left of a camera looking north (-z), so
## shadows run across the frame instead of hiding behind what casts them.
const EVENING := 0.72
## How far north of the camera the mountain stands, metres (in the far band).
const MOUNTAIN_DISTANCE := 1300.0

var out_dir := "user://horizon_shadow_shots"
## `--horizon=0`: the shadow maps alone (StrataChunkWorld.horizon_shadows off), to measure them.
var horizon := true
## `--shadow-distance=M[,M2…]`: the sun's shadow maps reach M metres (default 2,048: the far
## view); each distance is checked in turn.
var shadow_distances: Array[float] = [2048.0]

@onready var world: StrataChunkWorld = $StrataChunkWorld
@onready var camera: Camera3D = $Camera3D
@onready var day_night: DayNight = $DayNight


func _ready() -> void:
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--out-dir="):
			out_dir = arg.substr(10)
		elif arg == "--horizon=0":
			horizon = false
		elif arg.begins_with("--shadow-distance="):
			shadow_distances.clear()
			for part in arg.substr(18).split(","):
				shadow_distances.append(part.to_float())
	world.preset = GameState.make_preset(GameState.DEFAULT_PRESET, -1)
	world.view_distance = 4
	world.vertical_view_distance = 3
	# The far view reaches view_distance · 32 · 2^levels = 2,048 voxels, as the demo's does.
	world.far_view_levels = 4
	# Fixed levels: under llvmpipe frames are slow, and the adaptive far view would drop levels.
	world.adaptive_far_view = false
	day_night.frozen = true
	day_night.clear_fog_density = 0.0003
	_run.call_deferred()


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var checks := RenderedChecks.new()
	# 160 m above the ground south of the highest mountain near the origin, looking north.
	var peak := RenderedChecks.find_mountain(world)
	var cam_x := peak.x + 0.5
	var cam_z := peak.y + MOUNTAIN_DISTANCE
	camera.position = Vector3(cam_x, maxf(world.get_height(cam_x, cam_z), 0.0) + 160.0, cam_z)
	print("HORIZON_VIEW from %s, peak %s" % [camera.position, peak])
	await RenderedChecks.wait_ready(world, true)
	var start_time := day_night.get_time_of_day()
	for shadow_distance in shadow_distances:
		day_night.set_time_of_day(start_time)
		if not await _check_shadows(checks, shadow_distance):
			checks.check("frames were rendered", false)
			break
	checks.finish(get_tree())


## Checks the sun's shadows with shadow maps to `shadow_distance` metres: the wide view and the
## telephoto view of the far ground, then each band. False when nothing was rendered.
func _check_shadows(checks: RenderedChecks, shadow_distance: float) -> bool:
	day_night.shadow_distance = shadow_distance
	var tag := "horizon" if shadow_distance >= 2048.0 else "horizon_maps%d" % int(shadow_distance)
	var occluded := PackedInt32Array([0, 0, 0])
	var darker := PackedInt32Array([0, 0, 0])
	# A wide view (near and middle distance), then a telephoto view of the far view's land 1.2–2
	# km away, where a wide frame has few pixels.
	camera.fov = 70.0
	camera.look_at(camera.position + Vector3(0.0, -0.14, -1.0), Vector3.UP)
	if not await _compare_view(tag, occluded, darker):
		return false
	camera.fov = 14.0
	day_night.set_time_of_day(EVENING)
	camera.look_at(_far_shadowed_ground(day_night.get_sun_direction()), Vector3.UP)
	await _compare_view(tag + "_far", occluded, darker)
	camera.fov = 70.0
	checks.check("%s: every view was ready, far view included" % tag, world.is_area_ready())
	for band in BANDS.size():
		var share := float(darker[band]) / maxf(1.0, occluded[band])
		print(
			(
				"HORIZON_SHADOWS_%s %s in_mountain_shadow=%d darker=%d share=%.3f"
				% [BAND_NAMES[band].to_upper(), tag, occluded[band], darker[band], share]
			)
		)
		var what := (
			"%s: %s band (%d–%d m): darker where a mountain hides the sun: %d of %d samples (≥ %d %%)"
			% [
				tag,
				BAND_NAMES[band],
				BANDS[band].x,
				BANDS[band].y,
				darker[band],
				occluded[band],
				int(MIN_DARKER * 100.0)
			]
		)
		checks.check(what, occluded[band] >= MIN_SAMPLES and share >= MIN_DARKER)
	return true


## Renders the current view with the sun's shadows and without (`NAME_shadows.png`,
## `NAME_no_shadows.png`), adds its samples in a mountain's shadow to `occluded` and those the
## frame shows darker to `darker` (by band), and saves `NAME_shadow_map.png`. False when nothing
## was rendered.
func _compare_view(tag: String, occluded: PackedInt32Array, darker: PackedInt32Array) -> bool:
	world.horizon_shadows = horizon
	if horizon:
		await _wait_horizon_map()
	var lit := await _shot(tag + "_shadows")
	# Opacity 0 keeps the shadow maps and the shader variant; only the shadows' darkening goes.
	# The horizon shadows go too.
	day_night.sun.shadow_opacity = 0.0
	world.horizon_shadows = false
	var unshadowed := await _shot(tag + "_no_shadows")
	day_night.sun.light_cull_mask = 0
	var sunless := await _shot(tag + "_sunless")
	day_night.sun.light_cull_mask = 0xFFFFF
	day_night.sun.shadow_opacity = 1.0
	world.horizon_shadows = horizon
	if lit == null or unshadowed == null or sunless == null:
		return false
	var sun_dir := day_night.get_sun_direction()
	var map := lit.duplicate() as Image
	for y in range(STEP / 2, lit.get_height(), STEP):
		for x in range(STEP / 2, lit.get_width(), STEP):
			var pixel := Vector2(x, y)
			var distance := _ray_distance(pixel)
			var band := _band_of(distance)
			if band < 0:
				continue
			var ground := (
				camera.project_ray_origin(pixel) + camera.project_ray_normal(pixel) * distance
			)
			if not _in_mountain_shadow(ground, sun_dir):
				continue
			# Ground the sun does not light (a face turned away from it) shows no shadow.
			var sun_share := RenderedChecks.luma(sunless.get_pixel(x, y)) * SUNLIT_RATIO
			if RenderedChecks.luma(unshadowed.get_pixel(x, y)) < sun_share:
				continue
			occluded[band] += 1
			var dark := (
				RenderedChecks.luma(lit.get_pixel(x, y))
				< RenderedChecks.luma(unshadowed.get_pixel(x, y)) * SHADOWED_RATIO
			)
			if dark:
				darker[band] += 1
			map.fill_rect(Rect2i(x - 2, y - 2, 5, 5), BAND_TINTS[band] if dark else Color.WHITE)
	map.save_png(out_dir.path_join(tag + "_shadow_map.png"))
	return true


## The far ground (1.3–1.7 km north of the camera, within 30° of north) most in a mountain's
## shadow: the centre of the patch of 3 × 3 columns 24 m apart with the most of them in shadow.
func _far_shadowed_ground(sun_dir: Vector3) -> Vector3:
	var best := Vector3.ZERO
	var best_count := -1
	for distance: float in [1300.0, 1500.0, 1700.0]:
		for degrees in range(-30, 31, 10):
			var angle := deg_to_rad(degrees)
			var x := camera.position.x + sin(angle) * distance
			var z := camera.position.z - cos(angle) * distance
			var count := 0
			for i in range(-1, 2):
				for k in range(-1, 2):
					var px := x + i * 24.0
					var pz := z + k * 24.0
					if _in_mountain_shadow(Vector3(px, world.get_height(px, pz), pz), sun_dir):
						count += 1
			if count > best_count:
				best_count = count
				best = Vector3(x, world.get_height(x, z), z)
	print("HORIZON_FAR_TARGET %s (%d of 9 columns in shadow)" % [best, best_count])
	return best


## Whether the height field hides the sun from `ground`: marching toward the sun, some column
## rises `SHADOW_CLEARANCE` above the line (not counting the first 8 m, the ground's own step).
func _in_mountain_shadow(ground: Vector3, sun_dir: Vector3) -> bool:
	var t := 8.0
	while t < 1500.0:
		var p := ground + sun_dir * t
		if p.y > 400.0:
			return false
		if world.get_height(p.x, p.z) > p.y + SHADOW_CLEARANCE:
			return true
		t += maxf(2.0, t * 0.02)
	return false


## The distance along the camera ray through `pixel` to the height field, or -1 past 2,100 m.
func _ray_distance(pixel: Vector2) -> float:
	var from := camera.project_ray_origin(pixel)
	var dir := camera.project_ray_normal(pixel)
	var t := 1.0
	var prev := 0.0
	while t < 2100.0:
		var p := from + dir * t
		if p.y <= world.get_height(p.x, p.z):
			# Refine between the last point above the ground and this one.
			var lo := prev
			var hi := t
			for i in 6:
				var mid := (lo + hi) * 0.5
				var q := from + dir * mid
				if q.y <= world.get_height(q.x, q.z):
					hi = mid
				else:
					lo = mid
			return hi
		prev = t
		t += maxf(2.0, t * 0.02)
	return -1.0


func _band_of(distance: float) -> int:
	for band in BANDS.size():
		if distance >= BANDS[band].x and distance < BANDS[band].y:
			return band
	return -1


## Waits until the horizon map around the camera is built and in its texture.
func _wait_horizon_map() -> void:
	var deadline := Time.get_ticks_msec() + 60_000
	while Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
		var stats := world.get_stats()
		if int(stats["horizon_tiles_ready"]) > 0 and int(stats["horizon_tiles_pending"]) == 0:
			return


func _shot(tag: String) -> Image:
	day_night.set_time_of_day(EVENING)
	world.daylight = day_night.get_daylight()
	for i in 4:
		await RenderingServer.frame_post_draw
	return RenderedChecks.screenshot(get_viewport(), out_dir, tag)
