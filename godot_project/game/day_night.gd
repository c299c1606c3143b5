## Day and night: a sun (`DirectionalLight3D` with shadows), a dim moon and a procedural sky
## that turn with the time of day.
##
## `time_of_day` is a fraction of a day: 0 = midnight, 0.25 = sunrise (sun on the eastern
## horizon, +X), 0.5 = noon, 0.75 = sunset. It advances by `delta / period_s` each frame; every
## wrap past midnight starts a new day (`day`, signal `day_changed`). Weather can tint and dim
## the light and thicken the fog through `weather_*`.
class_name DayNight
extends Node3D

signal day_changed(day: int)

const DAY_TOP := Color(0.22, 0.42, 0.78)
const DAY_HORIZON := Color(0.66, 0.78, 0.90)
const NIGHT_TOP := Color(0.005, 0.008, 0.03)
const NIGHT_HORIZON := Color(0.03, 0.04, 0.08)
const DUSK_HORIZON := Color(0.95, 0.55, 0.30)

## Length of a whole day in seconds (a world setting).
@export var period_s := 600.0
## Fraction of the day, 0..1 (0 = midnight, 0.5 = noon).
@export_range(0.0, 1.0) var time_of_day := 0.3
## Stop the clock (time can still be set).
@export var frozen := false
## Tilt of the sun's path away from the zenith, degrees (noon elevation = 90 − tilt).
@export var path_tilt_deg := 25.0

var day := 0
## Set by WorldEvents: multiplies the sun colour, adds fog.
var weather_tint := Color.WHITE
var weather_fog_density := 0.0
## Fog density in clear weather (per metre).
var clear_fog_density := 0.002
var weather_fog_color := Color(0.7, 0.7, 0.7)
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
var sky_material: ProceduralSkyMaterial


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
	sky_material = ProceduralSkyMaterial.new()
	sky_material.sun_angle_max = 20.0
	var sky := Sky.new()
	sky.sky_material = sky_material
	environment = Environment.new()
	environment.background_mode = Environment.BG_SKY
	environment.sky = sky
	environment.ambient_light_source = Environment.AMBIENT_SOURCE_COLOR
	environment.tonemap_mode = Environment.TONE_MAPPER_FILMIC
	environment.fog_enabled = true
	environment.fog_density = clear_fog_density
	environment.fog_sky_affect = 0.3
	var we := WorldEnvironment.new()
	we.name = "WorldEnvironment"
	we.environment = environment
	add_child(we)
	_update_visuals()


func _process(delta: float) -> void:
	if not frozen and period_s > 0.0:
		advance(delta)
	_update_visuals()


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
	var low := 1.0 - clampf(absf(d.y) * 4.0, 0.0, 1.0)  # near the horizon
	var warm := Color(1.0, 0.62, 0.38).lerp(Color(1.0, 0.97, 0.92), clampf(d.y * 3.0, 0.0, 1.0))
	sun.light_color = warm * weather_tint
	sun.light_energy = clampf(d.y * 5.0, 0.0, 1.0) * 0.7 * weather_tint.v * shade
	sun.visible = d.y > -0.02
	moon.light_energy = clampf(-d.y * 4.0, 0.0, 1.0) * 0.1
	moon.visible = d.y < 0.05
	var horizon := NIGHT_HORIZON.lerp(DAY_HORIZON, f)
	horizon = horizon.lerp(DUSK_HORIZON, low * f * 0.7)
	# Weather turns the sky overcast.
	var overcast := clampf(weather_fog_density * 40.0, 0.0, 0.85)
	var cloud := weather_fog_color * lerpf(0.08, 0.85, f)
	horizon = horizon.lerp(cloud, overcast)
	sky_material.sky_top_color = NIGHT_TOP.lerp(DAY_TOP, f).lerp(cloud * 0.8, overcast)
	sky_material.sky_horizon_color = horizon
	sky_material.ground_horizon_color = horizon
	sky_material.ground_bottom_color = Color(0.02, 0.02, 0.03).lerp(Color(0.25, 0.22, 0.2), f)
	sky_material.sky_energy_multiplier = lerpf(0.35, 1.0, f)
	environment.ambient_light_color = (
		Color(0.035, 0.045, 0.08).lerp(Color(0.34, 0.37, 0.43), f)
		* weather_tint
		* lerpf(0.25, 1.0, shade)
	)
	environment.ambient_light_energy = 1.0
	var fog_color := horizon
	if weather_fog_density > 0.0:
		fog_color = fog_color.lerp(weather_fog_color * lerpf(0.2, 1.0, f), 0.8)
	environment.fog_light_color = fog_color * fog_shade
	environment.fog_density = clear_fog_density + weather_fog_density


## The share of the sky's light at sky light `level` (0–15), as the block shaders reckon it:
## 80 % per level below 15, none at 0.
static func sky_share(level: int) -> float:
	return 0.0 if level <= 0 else pow(0.8, 15.0 - float(level))


func _point_light(light: DirectionalLight3D, toward: Vector3) -> void:
	var up := Vector3.UP if absf(toward.y) < 0.99 else Vector3.FORWARD
	light.global_transform = Transform3D(Basis.looking_at(toward, up), global_position)
