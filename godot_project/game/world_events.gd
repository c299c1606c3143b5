## World events picked from the environment around the player, deterministically from the
## world's seed and the day number: rain in forests and plains, snowfall on mountains and tundra,
## sandstorms in deserts, and fireflies on some nights. Each has a CPUParticles3D effect (the
## Compatibility renderer's particles) that follows the player, plus fog and a light tint.
## The biome and height are read at the player's world column (`WorldCoords`); when the world's
## floating origin moves, the particles in flight (kept in global space) start again around the
## player rather than falling on where the player was.
##
## Whether a day has weather is `pick_event(seed, day, kind)`: a pure function of its arguments,
## so the same world on the same day always has the same weather in the same kind of place. The
## weather also sets the wind the clouds drift with (`wind_of`: a breeze from the day's own
## direction, stronger in rain and snow, along the sand in a sandstorm) and how much of the sky
## they cover (`CLOUD_COVER`).
class_name WorldEvents
extends Node3D

signal event_changed(event_name: String)

## Chance that a day has the weather of its environment.
const WEATHER_CHANCE := 0.55
const FIREFLY_CHANCE := 0.7
## The share of the sky the clouds cover in each weather.
const CLOUD_COVER: Dictionary[String, float] = {
	"none": 0.45, "rain": 0.92, "snow": 0.85, "sandstorm": 0.3
}
## Wind speed (metres per second at the clouds) in each weather.
const WIND_SPEED: Dictionary[String, float] = {
	"none": 4.0, "rain": 9.0, "snow": 6.0, "sandstorm": 16.0
}
## Where the sandstorm blows (its particles' direction on x, z).
const SANDSTORM_WIND := Vector2(1.0, 0.25)

@export var world_seed := 0
## Where the biome and height are read (optional: without it, the kind of place is judged
## from a height of 0).
@export var world: StrataChunkWorld
@export var day_night: DayNight
## Whom the effects follow (the player).
@export var follow: Node3D

var sea_level := 0
var current_event := "none"
var fireflies_on := false
var biome := ""

## The effects by event name.
var _effects: Dictionary[String, CPUParticles3D] = {}
var _check_timer := 0.0

@onready var _rain: CPUParticles3D = $Rain
@onready var _snow: CPUParticles3D = $Snow
@onready var _sandstorm: CPUParticles3D = $Sandstorm
@onready var _fireflies: CPUParticles3D = $Fireflies


func _ready() -> void:
	_effects = {"rain": _rain, "snow": _snow, "sandstorm": _sandstorm, "fireflies": _fireflies}
	for effect: CPUParticles3D in _effects.values():
		effect.emitting = false
		effect.visible = false
	if world != null:
		world.origin_shifted.connect(_on_origin_shifted)


## The world's origin moved: the particles in flight stand at the old global positions, a shift
## away from the player; the emitting effects start again where the player is.
func _on_origin_shifted(_shift: Vector3i) -> void:
	_place_effects()
	for effect: CPUParticles3D in _effects.values():
		if effect.emitting:
			effect.restart()


## The kind of environment a biome name (or, without one, a height) stands for:
## "forest", "cold", "desert", "water" or "plains".
static func classify(biome_name: String, height: float = 0.0, sea: int = 0) -> String:
	var b := biome_name.to_lower()
	for w: String in ["desert", "canyon", "badland", "mesa", "dune", "savanna"]:
		if b.contains(w):
			return "desert"
	for w: String in [
		"mountain", "alpine", "tundra", "snow", "ice", "glacier", "frozen", "peak", "taiga"
	]:
		if b.contains(w):
			return "cold"
	for w: String in ["forest", "jungle", "swamp", "wood", "rain"]:
		if b.contains(w):
			return "forest"
	for w: String in ["ocean", "sea", "lake", "beach"]:
		if b.contains(w):
			return "water"
	if b != "":
		return "plains"
	# No biome information: judge by height above the sea.
	if height > sea + 70:
		return "cold"
	if height < sea + 2:
		return "water"
	return "forest" if height > sea + 12 else "plains"


## The weather of `day` in a place of kind `kind` for world `seed_value`: "rain", "snow",
## "sandstorm" or "none". Deterministic: a hash of the seed and the day.
static func pick_event(seed_value: int, day_number: int, kind: String) -> String:
	var rng := _day_rng(seed_value, day_number)
	var roll := rng.randf()
	if roll >= WEATHER_CHANCE:
		return "none"
	match kind:
		"forest", "plains", "water":
			return "rain"
		"cold":
			return "snow"
		"desert":
			return "sandstorm"
	return "none"


## Whether fireflies come out on the night of `day` in a place of kind `kind`.
static func fireflies_tonight(seed_value: int, day_number: int, kind: String) -> bool:
	if kind == "cold" or kind == "desert" or kind == "water":
		return false
	var rng := _day_rng(seed_value, day_number)
	rng.randf()  # the weather's roll
	return rng.randf() < FIREFLY_CHANCE


## The wind of `day` in weather `event` for world `seed_value` (metres per second on x and z):
## the day's own direction (deterministic, like the weather), along the sand in a sandstorm.
static func wind_of(seed_value: int, day_number: int, event: String) -> Vector2:
	var speed: float = WIND_SPEED.get(event, WIND_SPEED["none"])
	if event == "sandstorm":
		return SANDSTORM_WIND.normalized() * speed
	var rng := _day_rng(seed_value, day_number)
	rng.randf()  # the weather's roll
	rng.randf()  # the fireflies' roll
	return Vector2.from_angle(rng.randf() * TAU) * speed


static func _day_rng(seed_value: int, day_number: int) -> RandomNumberGenerator:
	var rng := RandomNumberGenerator.new()
	rng.seed = hash("strata-events:%d:%d" % [seed_value, day_number])
	return rng


func get_biome_here() -> String:
	if follow == null or world == null:
		return ""
	return WorldCoords.biome_at(world, follow.global_position)


func _process(delta: float) -> void:
	_check_timer -= delta
	if _check_timer <= 0.0:
		_check_timer = 1.0
		refresh()
	_place_effects()


## Puts the effects' emitters around the player.
func _place_effects() -> void:
	if follow != null:
		var p := follow.global_position
		_rain.global_position = p + Vector3(0, 12, 0)
		_snow.global_position = p + Vector3(0, 14, 0)
		_sandstorm.global_position = p + Vector3(-14, 2, 0)
		_fireflies.global_position = p + Vector3(0, 1.5, 0)


## Re-reads the environment and the clock and switches effects.
func refresh() -> void:
	var day := day_night.get_day() if day_night != null else 0
	var h := 0.0
	if follow != null and world != null:
		h = WorldCoords.height_at(world, follow.global_position)
	biome = get_biome_here()
	var kind := classify(biome, h, sea_level)
	var ev := pick_event(world_seed, day, kind)
	var ff := (
		fireflies_tonight(world_seed, day, kind) and day_night != null and day_night.is_night()
	)
	if ev != current_event:
		current_event = ev
		event_changed.emit(ev)
	fireflies_on = ff
	for k: String in ["rain", "snow", "sandstorm"]:
		_set_effect(k, k == ev)
	_set_effect("fireflies", ff)
	if day_night != null:
		apply_weather(day_night, ev, world_seed, day)


## Sets `sky`'s weather (light tint, fog, clouds, wind) for `event` on `day_number` of world
## `seed_value`.
static func apply_weather(sky: DayNight, event: String, seed_value: int, day_number: int) -> void:
	sky.weather_wind = wind_of(seed_value, day_number, event)
	sky.weather_cloud_cover = CLOUD_COVER.get(event, CLOUD_COVER["none"])
	match event:
		"rain":
			sky.weather_tint = Color(0.6, 0.63, 0.7)
			sky.weather_fog_density = 0.012
			sky.weather_fog_color = Color(0.55, 0.58, 0.62)
		"snow":
			sky.weather_tint = Color(0.8, 0.85, 0.95)
			sky.weather_fog_density = 0.018
			sky.weather_fog_color = Color(0.85, 0.88, 0.95)
		"sandstorm":
			sky.weather_tint = Color(0.95, 0.72, 0.45)
			sky.weather_fog_density = 0.045
			sky.weather_fog_color = Color(0.8, 0.6, 0.35)
		_:
			sky.weather_tint = Color.WHITE
			sky.weather_fog_density = 0.0


## Name shown in the HUD.
func describe() -> String:
	var parts: PackedStringArray = []
	if current_event != "none":
		parts.append(current_event)
	if fireflies_on:
		parts.append("fireflies")
	return "clear" if parts.is_empty() else ", ".join(parts)


func _set_effect(k: String, on: bool) -> void:
	var effect := _effects[k]
	if effect.emitting != on:
		effect.emitting = on
	if on:
		effect.visible = true
