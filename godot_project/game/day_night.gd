## Day and night: a sun (`DirectionalLight3D` with shadows), a dim moon and the sky (the
## `game/sky.gdshader` sky: gradient, sun and moon discs, stars, drifting clouds) that turn with
## the time of day, and the fog that hides the edge of the drawn world.
##
## `time_of_day` is a fraction of a day: 0 = midnight, 0.25 = sunrise (sun on the eastern
## horizon, +X), 0.5 = noon, 0.75 = sunset. It advances by `delta / period_s` each frame; every
## wrap past midnight starts a new day (`day`, signal `day_changed`). Weather can tint and dim
## the light, thicken the fog and the clouds and set the wind through `weather_*`.
##
## The fog is depth fog that follows `view_reach_m` (the game sets it to how far the world is
## drawn: near chunks and far view): it starts at `FOG_BEGIN` of the reach and is whole at
## `FOG_END`, in the colour of the sky's horizon, so the world's edge fades into the sky. Without
## a reach (0) it is exponential fog of `clear_fog_density` (plus the weather's).
class_name DayNight
extends Node3D

signal day_changed(day: int)

const SKY_SHADER := preload("res://game/sky.gdshader")
## Where the fog starts and where it is whole, as shares of `view_reach_m`.
const FOG_BEGIN := 0.55
const FOG_END := 0.95
## The cloud noise repeats every this many metres (the shader's CLOUD_PERIOD × cloud_cell): the
## clouds' drift is kept within it.
const CLOUD_REPEAT_M := 64.0 * 110.0

## The sky's palette (the sky shader's uniforms of the same names).
@export var day_top := Color(0.22, 0.42, 0.78)
@export var day_horizon := Color(0.66, 0.78, 0.90)
@export var night_top := Color(0.005, 0.008, 0.03)
@export var night_horizon := Color(0.03, 0.04, 0.08)
@export var dusk_horizon := Color(0.95, 0.55, 0.30)

## Length of a whole day in seconds (a world setting).
@export var period_s := 600.0
## Fraction of the day, 0..1 (0 = midnight, 0.5 = noon).
@export_range(0.0, 1.0) var time_of_day := 0.3
## Stop the clock (time can still be set) and the clouds.
@export var frozen := false
## Tilt of the sun's path away from the zenith, degrees (noon elevation = 90 − tilt).
@export var path_tilt_deg := 25.0
## The world whose floating origin the clouds follow (optional): when its origin shifts, the
## camera's position jumps, and the clouds move with it so they stay over the same ground.
@export var world: StrataChunkWorld

var day := 0
## Set by WorldEvents: multiplies the sun colour, adds fog.
var weather_tint := Color.WHITE
var weather_fog_density := 0.0
## Fog density in clear weather (per metre).
var clear_fog_density := 0.002
var weather_fog_color := Color(0.7, 0.7, 0.7)
## Set by WorldEvents: the wind (metres per second on x and z) the clouds drift with, and the
## share of the sky the clouds cover.
var weather_wind := Vector2(2.0, 0.8)
var weather_cloud_cover := 0.45
## How far the world is drawn, in metres (near chunks and far view): the fog ends there (0:
## unknown, exponential fog instead).
var view_reach_m := 0.0
## The clouds' drift so far, metres (within CLOUD_REPEAT_M).
var cloud_drift := Vector2.ZERO
## Scales the sun and the ambient light (1 = as the time of day says). Caves need no dimming:
## the block shaders scale the sky's light by each face's baked sky light.
var shade := 1.0
## How much of the sky's light the air around the camera holds (fog colour): 1 in the open,
## falling with the camera's sky light in caves ([method sky_share]), so a cave's air is dark.
var fog_shade := 1.0
## How far the sun's shadows reach, in metres (the game sets it to its view: near chunks and
## far view), spread over four cascades so near shadows stay sharp.
var shadow_distance := 120.0:
	set(value):
		shadow_distance = maxf(value, 20.0)
		if sun != null:
			sun.directional_shadow_max_distance = shadow_distance

var sun: DirectionalLight3D
var moon: DirectionalLight3D
var environment: Environment
var sky_material: ShaderMaterial


func _ready() -> void:
	sun = DirectionalLight3D.new()
	sun.name = "Sun"
	sun.shadow_enabled = true
	sun.directional_shadow_mode = DirectionalLight3D.SHADOW_PARALLEL_4_SPLITS
	# Cascades at 3 %, 10 % and 30 % of the distance: sharp at the feet, mountains to the horizon.
	sun.directional_shadow_split_1 = 0.03
	sun.directional_shadow_split_2 = 0.10
	sun.directional_shadow_split_3 = 0.30
	sun.directional_shadow_blend_splits = true
	sun.directional_shadow_max_distance = shadow_distance
	# Full shadows until 95 % of the reach (fog covers the rest), and a normal bias of one texel:
	# the last cascade's texels are metres wide, and the default two would lift the shadows of
	# far ridges off the ground they fall on.
	sun.directional_shadow_fade_start = 0.95
	sun.shadow_normal_bias = 1.0
	add_child(sun)
	moon = DirectionalLight3D.new()
	moon.name = "Moon"
	moon.light_color = Color(0.55, 0.65, 1.0)
	moon.shadow_enabled = false
	moon.sky_mode = DirectionalLight3D.SKY_MODE_LIGHT_ONLY
	add_child(moon)
	sky_material = ShaderMaterial.new()
	sky_material.shader = SKY_SHADER
	for key: String in ["day_top", "day_horizon", "night_top", "night_horizon", "dusk_horizon"]:
		sky_material.set_shader_parameter(key, get(key))
	var sky := Sky.new()
	sky.sky_material = sky_material
	# The sky changes every frame (clouds, sun): its reflections are rendered in real time, and
	# small (they are blurred anyway, and a software renderer draws them every frame too).
	sky.process_mode = Sky.PROCESS_MODE_REALTIME
	sky.radiance_size = Sky.RADIANCE_SIZE_64
	environment = Environment.new()
	environment.background_mode = Environment.BG_SKY
	environment.sky = sky
	environment.ambient_light_source = Environment.AMBIENT_SOURCE_COLOR
	environment.tonemap_mode = Environment.TONE_MAPPER_FILMIC
	environment.fog_enabled = true
	environment.fog_depth_curve = 1.6
	# The sky draws its own haze at the horizon, in the fog's colour.
	environment.fog_sky_affect = 0.0
	var we := WorldEnvironment.new()
	we.name = "WorldEnvironment"
	we.environment = environment
	add_child(we)
	if world != null:
		world.origin_shifted.connect(on_origin_shifted)
	_update_visuals()


func _process(delta: float) -> void:
	if not frozen:
		if period_s > 0.0:
			advance(delta)
		drift_clouds(weather_wind * delta)
	_update_visuals()


## Moves the clouds by `metres` (x, z), as the wind does each frame.
func drift_clouds(metres: Vector2) -> void:
	cloud_drift = Vector2(
		fposmod(cloud_drift.x + metres.x, CLOUD_REPEAT_M),
		fposmod(cloud_drift.y + metres.y, CLOUD_REPEAT_M)
	)


## The world's floating origin moved by `shift` (voxels): the camera's position lost it, so the
## clouds move with it and stay over the same ground.
func on_origin_shifted(shift: Vector3i) -> void:
	drift_clouds(Vector2(shift.x, shift.z))


## Moves the clock on by `seconds` of game time.
func advance(seconds: float) -> void:
	var t := time_of_day + seconds / period_s
	while t >= 1.0:
		t -= 1.0
		day += 1
		day_changed.emit(day)
	time_of_day = t


func get_time_of_day() -> float:
	return time_of_day


func set_time_of_day(t: float) -> void:
	time_of_day = fposmod(t, 1.0)
	if is_inside_tree():
		_update_visuals()


func get_day() -> int:
	return day


func set_day(d: int) -> void:
	day = d


## "HH:MM" on a 24-hour clock.
func get_clock_text() -> String:
	var minutes := int(time_of_day * 24.0 * 60.0)
	return "%02d:%02d" % [minutes / 60, minutes % 60]


## Unit vector from the ground towards the sun.
func get_sun_direction() -> Vector3:
	var a := (time_of_day - 0.25) * TAU
	var tilt := deg_to_rad(path_tilt_deg)
	return Vector3(cos(a), sin(a) * cos(tilt), sin(a) * sin(tilt))


## Height of the sun above the horizon, degrees (negative at night).
func get_sun_elevation_deg() -> float:
	return rad_to_deg(asin(clampf(get_sun_direction().y, -1.0, 1.0)))


## 0 at night, 1 in full day, smooth through dawn and dusk.
func get_daylight() -> float:
	return smoothstep(-0.12, 0.25, get_sun_direction().y)


func is_night() -> bool:
	return get_sun_direction().y < -0.05


func _update_visuals() -> void:
	if sun == null:
		return
	var d := get_sun_direction()
	_point_light(sun, -d)
	_point_light(moon, d)
	var f := get_daylight()
	var warm := Color(1.0, 0.62, 0.38).lerp(Color(1.0, 0.97, 0.92), clampf(d.y * 3.0, 0.0, 1.0))
	sun.light_color = warm * weather_tint
	sun.light_energy = clampf(d.y * 5.0, 0.0, 1.0) * 0.7 * weather_tint.v * shade
	sun.visible = d.y > -0.02
	moon.light_energy = clampf(-d.y * 4.0, 0.0, 1.0) * 0.1
	moon.visible = d.y < 0.05
	var overcast := _overcast()
	_update_sky(d, f, overcast, warm)
	environment.ambient_light_color = (
		Color(0.035, 0.045, 0.08).lerp(Color(0.34, 0.37, 0.43), f)
		* weather_tint
		* lerpf(0.25, 1.0, shade)
	)
	environment.ambient_light_energy = 1.0
	environment.fog_light_color = horizon_color() * sky_energy() * fog_shade
	if view_reach_m <= 0.0:
		environment.fog_mode = Environment.FOG_MODE_EXPONENTIAL
		environment.fog_density = clear_fog_density + weather_fog_density
		return
	environment.fog_mode = Environment.FOG_MODE_DEPTH
	environment.fog_density = 1.0
	var fog_end := get_fog_end()
	environment.fog_depth_end = fog_end
	environment.fog_depth_begin = fog_end * FOG_BEGIN / FOG_END


## Where the fog is whole, in metres: near the end of the view, nearer in thick weather (and
## `clear_fog_density`, metres⁻¹, as a limit too: 3 / density, where exponential fog is 95 %).
func get_fog_end() -> float:
	var end := maxf(view_reach_m, 32.0) * FOG_END
	var density := clear_fog_density + weather_fog_density
	if density > 0.0:
		end = minf(end, 3.0 / density)
	return end


## The sky's colour at the horizon (the fog's colour in clear weather): night to day, warm at
## dawn and dusk, grey under weather.
func horizon_color() -> Color:
	var f := get_daylight()
	# The sky warms most towards the sun; the fog takes the mean of all round.
	var horizon := night_horizon.lerp(day_horizon, f).lerp(dusk_horizon, get_dusk() * 0.7 * 0.6)
	return horizon.lerp(weather_fog_color * lerpf(0.08, 0.85, f), _overcast())


## The sky's brightness (the sky shader's `sky_energy`): dimmer at night.
func sky_energy() -> float:
	return lerpf(0.35, 1.0, get_daylight())


## How much the horizon glows at sunrise and sunset (0 by day and by night, most with the sun
## just above the horizon, fading as it sinks below).
func get_dusk() -> float:
	var y := get_sun_direction().y
	return (1.0 - clampf(absf(y) * 4.0, 0.0, 1.0)) * smoothstep(-0.15, 0.05, y)


## How grey the sky is under weather (0 clear).
func _overcast() -> float:
	return clampf(weather_fog_density * 40.0, 0.0, 0.85)


func _update_sky(d: Vector3, f: float, overcast: float, warm: Color) -> void:
	sky_material.set_shader_parameter("sun_direction", d)
	sky_material.set_shader_parameter("moon_direction", -d)
	sky_material.set_shader_parameter("daylight", f)
	sky_material.set_shader_parameter("dusk", get_dusk())
	sky_material.set_shader_parameter("overcast", overcast)
	sky_material.set_shader_parameter("overcast_color", weather_fog_color)
	sky_material.set_shader_parameter("sun_color", warm * weather_tint)
	sky_material.set_shader_parameter("sky_energy", sky_energy())
	sky_material.set_shader_parameter(
		"cloud_cover", clampf(maxf(weather_cloud_cover, overcast), 0.0, 1.0)
	)
	sky_material.set_shader_parameter("cloud_offset", cloud_drift)


## The share of the sky's light at sky light `level` (0–15), as the block shaders reckon it:
## 80 % per level below 15, none at 0.
static func sky_share(level: int) -> float:
	return 0.0 if level <= 0 else pow(0.8, 15.0 - float(level))


func _point_light(light: DirectionalLight3D, toward: Vector3) -> void:
	var up := Vector3.UP if absf(toward.y) < 0.99 else Vector3.FORWARD
	light.global_transform = Transform3D(Basis.looking_at(toward, up), global_position)
