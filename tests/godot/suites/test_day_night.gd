## Day and night: the clock advances with the configured period, the sun follows it, days roll
## over at midnight; the sky shader gets the sun, the moon and the weather's clouds; the fog ends
## at the view's reach; world events (and their wind) are a deterministic function of seed, day
## and environment.
extends StrataTestCase

var dn: DayNight


func before_each() -> void:
	dn = DayNight.new()
	add_child(dn)
	await get_tree().process_frame


func after_each() -> void:
	if is_instance_valid(dn):
		dn.queue_free()
	await get_tree().process_frame


func test_time_advances_with_the_configured_period() -> void:
	dn.period_s = 2.0
	dn.set_time_of_day(0.25)
	await wait_frames(1)
	var start := dn.get_time_of_day()
	var start_us := Time.get_ticks_usec()
	await wait_until(func(): return Time.get_ticks_usec() - start_us > 500_000, 5.0)
	var elapsed := (Time.get_ticks_usec() - start_us) / 1_000_000.0
	var advanced := dn.get_time_of_day() - start
	assert_near(
		advanced,
		elapsed / dn.period_s,
		0.06,
		"advance = elapsed / period (%.3f s elapsed)" % elapsed
	)
	assert_gt(advanced, 0.15, "the clock moves")
	# A longer period turns more slowly.
	dn.period_s = 20.0
	var s2 := dn.get_time_of_day()
	var s2_us := Time.get_ticks_usec()
	await wait_until(func(): return Time.get_ticks_usec() - s2_us > 300_000, 5.0)
	var e2 := (Time.get_ticks_usec() - s2_us) / 1_000_000.0
	assert_near(dn.get_time_of_day() - s2, e2 / 20.0, 0.01, "advance with a 20 s day")
	# Frozen: the clock stops.
	dn.frozen = true
	var s3 := dn.get_time_of_day()
	await wait_frames(5)
	assert_eq(dn.get_time_of_day(), s3, "frozen clock")


func test_sun_angle_follows_the_time_of_day() -> void:
	dn.frozen = true
	var tilt := deg_to_rad(dn.path_tilt_deg)
	for t in [0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9]:
		dn.set_time_of_day(t)
		await wait_frames(1)
		var expected := rad_to_deg(asin(sin((t - 0.25) * TAU) * cos(tilt)))
		assert_near(dn.get_sun_elevation_deg(), expected, 0.01, "elevation at t=%.2f" % t)
		# The light shines from the sun's direction towards the ground.
		var forward := -dn.sun.global_transform.basis.z
		assert_near(
			forward.dot(-dn.get_sun_direction()),
			1.0,
			1e-4,
			"sun node points along the light at t=%.2f" % t
		)
	dn.set_time_of_day(0.5)
	await wait_frames(1)
	assert_near(dn.get_sun_elevation_deg(), 90.0 - dn.path_tilt_deg, 0.01, "noon elevation")
	assert_true(dn.sun.visible and dn.sun.light_energy > 0.6, "bright sun at noon")
	assert_false(dn.is_night(), "noon is day")
	assert_eq(dn.get_clock_text(), "12:00", "noon clock")
	dn.set_time_of_day(0.0)
	await wait_frames(1)
	assert_near(dn.get_sun_elevation_deg(), -(90.0 - dn.path_tilt_deg), 0.01, "midnight elevation")
	assert_false(dn.sun.visible, "no sun at midnight")
	assert_true(dn.moon.visible and dn.moon.light_energy > 0.0, "moonlight at midnight")
	assert_true(dn.is_night(), "midnight is night")
	assert_lt(dn.horizon_color().v, 0.1, "dark sky at midnight")
	assert_eq(dn.sky_material.get_shader_parameter("daylight"), 0.0, "the sky shader's night")
	# Sunrise in the east (+X), sunset in the west.
	dn.set_time_of_day(0.25)
	assert_near(dn.get_sun_elevation_deg(), 0.0, 0.01, "sunrise on the horizon")
	assert_gt(dn.get_sun_direction().x, 0.99, "sun rises in the east")
	dn.set_time_of_day(0.75)
	assert_lt(dn.get_sun_direction().x, -0.99, "sun sets in the west")


func test_the_sky_shader_follows_the_sun_and_the_weather() -> void:
	dn.frozen = true
	dn.set_time_of_day(0.4)
	var sun: Vector3 = dn.sky_material.get_shader_parameter("sun_direction")
	var moon: Vector3 = dn.sky_material.get_shader_parameter("moon_direction")
	assert_near(sun.distance_to(dn.get_sun_direction()), 0.0, 1e-6, "the sun disc is the sun's")
	assert_near(moon.distance_to(-dn.get_sun_direction()), 0.0, 1e-6, "the moon faces the sun")
	assert_eq(dn.sky_material.get_shader_parameter("day_horizon"), dn.day_horizon, "palette")
	assert_eq(dn.sky_material.get_shader_parameter("dusk"), 0.0, "no dusk glow by day")
	dn.set_time_of_day(0.74)
	assert_gt(dn.get_dusk(), 0.3, "the horizon glows at sunset")
	assert_eq(dn.sky_material.get_shader_parameter("dusk"), dn.get_dusk(), "the shader's dusk")
	WorldEvents.apply_weather(dn, "rain", 3, 5)
	dn.set_time_of_day(0.5)
	var cover: float = dn.sky_material.get_shader_parameter("cloud_cover")
	assert_gt(cover, 0.85, "rain thickens the clouds")
	assert_gt(dn.sky_material.get_shader_parameter("overcast"), 0.3, "rain greys the sky")
	WorldEvents.apply_weather(dn, "none", 3, 5)
	dn.set_time_of_day(0.5)
	assert_lt(dn.sky_material.get_shader_parameter("cloud_cover"), cover, "clear: fewer clouds")
	assert_eq(dn.sky_material.get_shader_parameter("overcast"), 0.0, "clear: a blue sky")


func test_clouds_drift_with_the_wind_and_the_origin() -> void:
	dn.period_s = 1e6
	dn.weather_wind = Vector2(5.0, -2.0)
	# Away from the wrap at 0 and CLOUD_REPEAT_M.
	dn.cloud_drift = Vector2(1000.0, 1000.0)
	var before := dn.cloud_drift
	var ok := await wait_until(func() -> bool: return dn.cloud_drift != before, 2.0)
	assert_true(ok, "the clouds drift")
	var moved := dn.cloud_drift - before
	assert_gt(moved.x, 0.0, "along the wind's x")
	assert_lt(moved.y, 0.0, "along the wind's z")
	# Vector2 is single precision: a frame's step at 1,000 m keeps three digits or so.
	assert_near(moved.x / -moved.y, 2.5, 0.02, "in the wind's direction")
	dn.frozen = true
	var still := dn.cloud_drift
	await wait_frames(3)
	assert_eq(dn.cloud_drift, still, "a stopped clock stops the clouds")
	dn.cloud_drift = Vector2(10.0, 20.0)
	dn.on_origin_shifted(Vector3i(64, 0, -32))
	assert_eq(dn.cloud_drift, Vector2(74.0, DayNight.CLOUD_REPEAT_M - 12.0), "shifted, wrapped")
	dn.drift_clouds(Vector2(DayNight.CLOUD_REPEAT_M * 3.0, 0.0))
	assert_near(dn.cloud_drift.x, 74.0, 1e-2, "whole periods of the noise change nothing")


func test_the_fog_ends_at_the_view_reach() -> void:
	dn.frozen = true
	dn.set_time_of_day(0.5)
	assert_eq(dn.environment.fog_mode, Environment.FOG_MODE_EXPONENTIAL, "no reach: exponential")
	assert_near(dn.environment.fog_density, dn.clear_fog_density, 1e-6, "the clear density")
	dn.weather_fog_density = 0.0
	dn.clear_fog_density = 0.0
	dn.view_reach_m = 400.0
	dn.set_time_of_day(0.5)
	assert_eq(dn.environment.fog_mode, Environment.FOG_MODE_DEPTH, "depth fog")
	assert_near(dn.environment.fog_depth_end, 400.0 * DayNight.FOG_END, 1e-3, "ends at the reach")
	assert_near(
		dn.environment.fog_depth_begin, 400.0 * DayNight.FOG_BEGIN, 1e-3, "begins before it"
	)
	dn.view_reach_m = 2048.0
	dn.set_time_of_day(0.5)
	assert_near(dn.environment.fog_depth_end, 2048.0 * DayNight.FOG_END, 1e-3, "far view: far")
	WorldEvents.apply_weather(dn, "sandstorm", 1, 1)
	dn.set_time_of_day(0.5)
	assert_near(dn.environment.fog_depth_end, 3.0 / 0.045, 1e-3, "a sandstorm hides the distance")
	var sky: Color = dn.horizon_color() * dn.sky_energy()
	assert_true(dn.environment.fog_light_color.is_equal_approx(sky), "fog in the sky's colour")


func test_the_wind_is_deterministic_per_seed_and_day() -> void:
	for day in 10:
		assert_eq(
			WorldEvents.wind_of(42, day, "none"), WorldEvents.wind_of(42, day, "none"), "same"
		)
	var directions := {}
	for day in 20:
		var wind := WorldEvents.wind_of(42, day, "none")
		assert_near(wind.length(), WorldEvents.WIND_SPEED["none"], 1e-4, "a breeze")
		directions[snappedf(wind.angle(), 0.5)] = true
	assert_gt(directions.size(), 3, "the days' winds blow from different directions")
	var storm := WorldEvents.wind_of(42, 3, "sandstorm")
	assert_gt(storm.length(), WorldEvents.wind_of(42, 3, "none").length(), "storms blow harder")
	assert_near(
		storm.normalized().dot(WorldEvents.SANDSTORM_WIND.normalized()), 1.0, 1e-5, "with the sand"
	)


func test_a_new_day_starts_at_midnight() -> void:
	dn.period_s = 1.0
	dn.set_time_of_day(0.9)
	var days: Array[int] = []
	dn.day_changed.connect(func(d): days.append(d))
	assert_eq(dn.get_day(), 0, "first day")
	var ok := await wait_until(func(): return dn.get_day() == 1, 3.0)
	assert_true(ok, "day 1 after midnight")
	assert_lt(dn.get_time_of_day(), 0.5, "time wrapped past midnight")
	assert_eq(days, [1] as Array[int], "day_changed emitted once")


func test_world_events_are_deterministic_per_seed_and_day() -> void:
	for kind in ["forest", "cold", "desert", "plains"]:
		for day in 10:
			assert_eq(
				WorldEvents.pick_event(42, day, kind),
				WorldEvents.pick_event(42, day, kind),
				"same seed/day, same event"
			)
			assert_eq(
				WorldEvents.fireflies_tonight(42, day, kind),
				WorldEvents.fireflies_tonight(42, day, kind),
				"same fireflies"
			)
	var seen := {}
	for day in 40:
		seen[WorldEvents.pick_event(7, day, "forest")] = true
		assert_true(
			WorldEvents.pick_event(7, day, "cold") in ["snow", "none"], "cold places get snow"
		)
		assert_true(
			WorldEvents.pick_event(7, day, "desert") in ["sandstorm", "none"],
			"deserts get sandstorms"
		)
		assert_false(WorldEvents.fireflies_tonight(7, day, "desert"), "no fireflies in deserts")
	assert_true(
		seen.has("rain") and seen.has("none"),
		"forests have rainy and dry days: %s" % str(seen.keys())
	)
	# Different seeds give different weather calendars.
	var a := ""
	var b := ""
	for day in 30:
		a += WorldEvents.pick_event(1, day, "forest")[0]
		b += WorldEvents.pick_event(2, day, "forest")[0]
	assert_ne(a, b, "seeds 1 and 2 differ")
	assert_eq(WorldEvents.classify("Snowy tundra"), "cold", "biome name classification")
	assert_eq(WorldEvents.classify("desert"), "desert", "desert")
	assert_eq(WorldEvents.classify("", 200.0, 0), "cold", "high ground without biome data")


func test_world_events_switch_their_effects() -> void:
	var ev: WorldEvents = load("res://game/world_events.tscn").instantiate()
	ev.day_night = dn
	ev.world_seed = 7
	add_child(ev)
	await wait_frames(1)
	# Find a forest day with rain and check the effect runs and the light dims.
	var rainy := -1
	for day in 40:
		if WorldEvents.pick_event(7, day, "plains") == "rain":
			rainy = day
			break
	assert_true(rainy >= 0, "some day has rain")
	dn.set_day(rainy)
	dn.set_time_of_day(0.5)
	dn.frozen = true
	ev.refresh()  # no world: plains by default height... classify("") at height 0 is "water" -> rain
	assert_eq(ev.current_event, "rain", "rain on day %d" % rainy)
	assert_true(ev._effects["rain"].emitting, "rain particles emitting")
	assert_false(ev._effects["snow"].emitting, "no snow")
	assert_gt(dn.weather_fog_density, 0.0, "rain brings fog")
	ev.queue_free()
