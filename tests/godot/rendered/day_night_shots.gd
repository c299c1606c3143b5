## Rendered day/night check (run under Xvfb, not headless): renders the same view at noon and at
## midnight, saves both screenshots and prints their mean brightness. Exits 1 when noon is not
## clearly brighter than midnight. Then the sky and the water (`game/sky.gdshader`, the addon's
## water shader): looking up by day the sky has clouds (and none when the cover is 0), at dusk
## the sky towards the sun glows warm, at night it has stars and the moon, and over a shore the
## water is darker over deep ground than over shallow. The measured values are printed.
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/day_night_shots.tscn -- --out-dir=/abs/dir
extends Node3D

const SkyPixels := preload("res://rendered/sky_pixels.gd")

var out_dir := "user://day_night_shots"

@onready var world: StrataChunkWorld = $StrataChunkWorld
@onready var camera: Camera3D = $Camera3D
@onready var day_night: DayNight = $DayNight


func _ready() -> void:
	out_dir = RenderedChecks.out_dir_arg(out_dir)
	world.preset = GameState.make_preset(GameState.DEFAULT_PRESET, -1)
	world.view_distance = 3
	world.vertical_view_distance = 2
	# Frozen: the clouds stay where they are too, so every run draws the same sky.
	day_night.frozen = true
	day_night.view_reach_m = float(world.view_distance * StrataChunkWorld.chunk_size())
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
	await _check_sky(checks)
	await _check_water(checks)
	checks.finish(get_tree())


## Clouds by day (none without cover, grey in rain), a warm dusk, stars and the moon at night.
func _check_sky(checks: RenderedChecks) -> void:
	var eye := camera.position
	# Mid-morning, looking towards the sun and up.
	day_night.set_time_of_day(0.36)
	var sun := day_night.get_sun_direction()
	var sun_azimuth := Vector3(sun.x, 0.0, sun.z).normalized()
	camera.look_at(eye + sun_azimuth + Vector3(0, 0.3, 0), Vector3.UP)
	var day := await _frame("sky_day")
	var upper := Rect2i(0, 0, 1280, 300)
	var day_colour := SkyPixels.mean_saturation(day, upper)
	var sun_px := Vector2i(camera.unproject_position(eye + sun * 100.0))
	var cloudy := SkyPixels.cloud_fraction(day, upper, sun_px, 90)
	var spread := SkyPixels.luma_spread(day, upper)
	day_night.weather_cloud_cover = 0.0
	var clear := SkyPixels.cloud_fraction(await _frame("sky_clear"), upper, sun_px, 90)
	WorldEvents.apply_weather(day_night, "rain", 0, 0)
	var rain_colour := SkyPixels.mean_saturation(await _frame("sky_rain"), upper)
	WorldEvents.apply_weather(day_night, "none", 0, 0)
	print("SKY_DAY_CLOUD_FRACTION=%.3f SKY_DAY_LUMA_SPREAD=%.3f" % [cloudy, spread])
	print("SKY_CLEAR_CLOUD_FRACTION=%.3f" % clear)
	print("SKY_DAY_SATURATION=%.3f SKY_RAIN_SATURATION=%.3f" % [day_colour, rain_colour])
	checks.check(
		"the day sky has clouds (10–90 % of its upper part)", cloudy > 0.1 and cloudy < 0.9
	)
	checks.check("the day sky is not flat (luma spread > 0.04)", spread > 0.04)
	checks.check("without cloud cover the sky has no clouds (< 2 %)", clear < 0.02)
	checks.check(
		"in rain the sky is grey (less than half the clear day's colour)",
		rain_colour < day_colour * 0.5
	)
	# Dusk, looking at the setting sun.
	day_night.set_time_of_day(0.735)
	sun = day_night.get_sun_direction()
	sun_azimuth = Vector3(sun.x, 0.0, sun.z).normalized()
	camera.look_at(eye + sun_azimuth + Vector3(0, 0.12, 0), Vector3.UP)
	var dusk := await _frame("sky_dusk")
	var glow := SkyPixels.mean_color(
		dusk, Vector2i(camera.unproject_position(eye + sun * 100.0)), 60
	)
	print("SKY_DUSK_GLOW=%s" % glow)
	checks.check("at dusk the sky round the sun is warm (red > blue)", glow.r > glow.b + 0.1)
	# Midnight: the moon is high in the south. The stars under the usual clouds; the moon on a
	# clear night (a cloud may pass in front of it).
	day_night.set_time_of_day(0.0)
	var moon := -day_night.get_sun_direction()
	camera.look_at(eye + moon, Vector3.UP)
	# The deck moved on a little (as the wind would), so that the picture shows the moon clear.
	day_night.drift_clouds(Vector2(700.0, 350.0))
	var night := await _frame("sky_night")
	var moon_px := Vector2i(camera.unproject_position(eye + moon * 100.0))
	var stars := SkyPixels.count_stars(night, Rect2i(0, 0, 1280, 360), moon_px, 60)
	day_night.weather_cloud_cover = 0.0
	var clear_night := await _frame("sky_night_clear")
	day_night.weather_cloud_cover = 0.45
	var moon_luma := RenderedChecks.luma(SkyPixels.mean_color(clear_night, moon_px, 6))
	var beside_moon := RenderedChecks.luma(
		SkyPixels.mean_color(clear_night, moon_px + Vector2i(200, 0), 6)
	)
	print(
		"SKY_NIGHT_STARS=%d MOON_LUMA=%.3f BESIDE_MOON_LUMA=%.3f" % [stars, moon_luma, beside_moon]
	)
	checks.check("the night sky has stars (>= 40 in its upper half)", stars >= 40)
	checks.check("the moon is a bright disc in a dark sky", moon_luma > 0.5 and beside_moon < 0.15)
	camera.position = eye


## Over a shore at noon: the water over deep ground is darker than over shallow ground. Each
## water column in view whose four neighbours are as deep is sampled at its centre; the mean
## luma over columns one deep is compared with that over columns two or more deep.
func _check_water(checks: RenderedChecks) -> void:
	var shore := _find_shore()
	print("SHORE=%s" % [shore])
	checks.check(
		"a shore (water 1 deep near water >= 3 deep) is in the loaded area", shore.size() == 2
	)
	if shore.size() != 2:
		return
	var sea := float(world.preset.water_sea_level)
	var middle := Vector3(shore[0].x + shore[1].x + 1, 2.0 * sea, shore[0].y + shore[1].y + 1) * 0.5
	# Looking north (−z), away from the noon sun: its glint would outshine the water's colour.
	camera.position = middle + Vector3(0, 14, 10)
	camera.look_at(middle, Vector3.UP)
	day_night.set_time_of_day(0.5)
	await _wait_ready()
	var img := await _frame("water_shore")
	var depths := _water_depths(Vector2i(int(middle.x), int(middle.z)), 24)
	var sums := {"shallow": 0.0, "deep": 0.0}
	var counts := {"shallow": 0, "deep": 0}
	for column: Vector2i in depths:
		var depth: int = depths[column]
		var kind := "shallow" if depth == 1 else "deep"
		if not _same_depth_around(depths, column, depth >= 2):
			continue
		var at := Vector3(column.x + 0.5, sea, column.y + 0.5)
		if not camera.is_position_in_frustum(at):
			continue
		var px := Vector2i(camera.unproject_position(at))
		if px.x < 4 or px.y < 4 or px.x >= img.get_width() - 4 or px.y >= img.get_height() - 4:
			continue
		sums[kind] += RenderedChecks.luma(SkyPixels.mean_color(img, px, 2))
		counts[kind] += 1
	var shallow_luma: float = sums["shallow"] / maxf(1.0, counts["shallow"])
	var deep_luma: float = sums["deep"] / maxf(1.0, counts["deep"])
	print(
		(
			"WATER_SHALLOW_LUMA=%.3f (%d columns) WATER_DEEP_LUMA=%.3f (%d columns)"
			% [shallow_luma, counts["shallow"], deep_luma, counts["deep"]]
		)
	)
	checks.check(
		"columns of shallow and of deep water are in view (>= 3 each)",
		counts["shallow"] >= 3 and counts["deep"] >= 3
	)
	checks.check(
		"the water is darker over deep ground than over shallow (luma < 88 %)",
		deep_luma < shallow_luma * 0.88
	)


## The depth of each water column within `radius` of `around`: column → voxels of water.
func _water_depths(around: Vector2i, radius: int) -> Dictionary:
	var water := world.get_block_id("water")
	var sea := int(world.preset.water_sea_level)
	var depths := {}
	for x in range(around.x - radius, around.x + radius + 1):
		for z in range(around.y - radius, around.y + radius + 1):
			if world.get_voxel(Vector3i(x, sea - 1, z)) == water:
				depths[Vector2i(x, z)] = sea - int(world.get_height(x + 0.5, z + 0.5))
	return depths


## Whether the four neighbours of `column` are water of the same depth class as it (deep: at
## least 2, else exactly its depth).
func _same_depth_around(depths: Dictionary, column: Vector2i, deep: bool) -> bool:
	var depth: int = depths[column]
	for d: Vector2i in [Vector2i(1, 0), Vector2i(-1, 0), Vector2i(0, 1), Vector2i(0, -1)]:
		var other: int = depths.get(column + d, -1)
		if (deep and other < 2) or (not deep and other != depth):
			return false
	return true


## A water column one voxel deep and one at least three deep, the nearest pair (3 to 12 m
## apart) within 90 m of the origin; [] when there is none.
func _find_shore() -> Array[Vector2i]:
	var depths := _water_depths(Vector2i.ZERO, 90)
	var shallow: Array[Vector2i] = []
	var deep: Array[Vector2i] = []
	for column: Vector2i in depths:
		var depth: int = depths[column]
		if depth == 1:
			shallow.append(column)
		elif depth >= 3:
			deep.append(column)
	var best: Array[Vector2i] = []
	var best_d := 12.5
	for s: Vector2i in shallow:
		for d: Vector2i in deep:
			var gap := Vector2(s).distance_to(Vector2(d))
			if gap < best_d and gap >= 3.0:
				best_d = gap
				best = [s, d]
	return best


func _wait_ready() -> void:
	get_viewport().disable_3d = true
	var deadline := Time.get_ticks_msec() + 120_000
	await get_tree().process_frame
	while not world.is_area_ready() and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	get_viewport().disable_3d = false


## Draws a few frames and saves the last as NAME.png.
func _frame(tag: String) -> Image:
	for i in 4:
		await RenderingServer.frame_post_draw
	return RenderedChecks.screenshot(get_viewport(), out_dir, tag)


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
