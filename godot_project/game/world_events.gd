## World events picked from the environment around the player, deterministically from the
## world's seed and the day number: rain in forests and plains, snowfall on mountains and tundra,
## sandstorms in deserts, and fireflies on some nights. Each has a CPUParticles3D effect (the
## Compatibility renderer's particles) that follows the player, plus fog and a light tint.
##
## Whether a day has weather is `pick_event(seed, day, kind)`: a pure function of its arguments,
## so the same world on the same day always has the same weather in the same kind of place.
class_name WorldEvents
extends Node3D

signal event_changed(event_name: String)

## Chance that a day has the weather of its environment.
const WEATHER_CHANCE := 0.55
const FIREFLY_CHANCE := 0.7

@export var world_seed := 0
var world: Node = null       # ChunkWorld (get_biome / get_height)
var day_night: DayNight = null
var follow: Node3D = null     # the player
var sea_level := 0

var current_event := "none"
var fireflies_on := false
var biome := ""

var _effects := {}
var _check_timer := 0.0

func _ready() -> void:
	_effects["rain"] = _make_particles(1600, 1.1, Vector3(22, 0.5, 22), Vector3(0, -1, 0), 20.0, 0.0,
		Vector3(0, -9.8, 0), BoxMesh, Vector3(0.025, 0.5, 0.025), Color(0.65, 0.72, 0.9, 0.55), false)
	_effects["snow"] = _make_particles(1800, 6.0, Vector3(24, 0.5, 24), Vector3(0, -1, 0), 1.6, 25.0,
		Vector3(0, -0.6, 0), BoxMesh, Vector3(0.09, 0.09, 0.09), Color(1, 1, 1, 0.95), false)
	_effects["sandstorm"] = _make_particles(2000, 2.5, Vector3(6, 4, 22), Vector3(1, 0.05, 0.25), 16.0, 10.0,
		Vector3(0, -0.5, 0), BoxMesh, Vector3(0.07, 0.07, 0.07), Color(0.86, 0.66, 0.38, 0.85), false)
	_effects["fireflies"] = _make_particles(90, 5.0, Vector3(14, 1.5, 14), Vector3(0, 1, 0), 0.4, 180.0,
		Vector3.ZERO, SphereMesh, Vector3(0.07, 0.07, 0.07), Color(0.85, 1.0, 0.35), true)
	for k in _effects:
		_effects[k].emitting = false
		_effects[k].visible = false

## The kind of environment a biome name (or, without one, a height) stands for:
## "forest", "cold", "desert", "water" or "plains".
static func classify(biome_name: String, height: float = 0.0, sea: int = 0) -> String:
	var b := biome_name.to_lower()
	for w in ["desert", "canyon", "badland", "mesa", "dune", "savanna"]:
		if b.contains(w):
			return "desert"
	for w in ["mountain", "alpine", "tundra", "snow", "ice", "glacier", "frozen", "peak", "taiga"]:
		if b.contains(w):
			return "cold"
	for w in ["forest", "jungle", "swamp", "wood", "rain"]:
		if b.contains(w):
			return "forest"
	for w in ["ocean", "sea", "lake", "beach"]:
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
		"forest", "plains", "water": return "rain"
		"cold": return "snow"
		"desert": return "sandstorm"
	return "none"

## Whether fireflies come out on the night of `day` in a place of kind `kind`.
static func fireflies_tonight(seed_value: int, day_number: int, kind: String) -> bool:
	if kind == "cold" or kind == "desert" or kind == "water":
		return false
	var rng := _day_rng(seed_value, day_number)
	rng.randf() # the weather's roll
	return rng.randf() < FIREFLY_CHANCE

static func _day_rng(seed_value: int, day_number: int) -> RandomNumberGenerator:
	var rng := RandomNumberGenerator.new()
	rng.seed = hash("strata-events:%d:%d" % [seed_value, day_number])
	return rng

func get_biome_here() -> String:
	if follow == null or world == null:
		return ""
	var p := follow.global_position
	if world.has_method("get_biome"):
		return str(world.call("get_biome", p.x, p.z))
	return ""

func _process(delta: float) -> void:
	_check_timer -= delta
	if _check_timer <= 0.0:
		_check_timer = 1.0
		refresh()
	if follow != null:
		var p := follow.global_position
		_effects["rain"].global_position = p + Vector3(0, 12, 0)
		_effects["snow"].global_position = p + Vector3(0, 14, 0)
		_effects["sandstorm"].global_position = p + Vector3(-14, 2, 0)
		_effects["fireflies"].global_position = p + Vector3(0, 1.5, 0)

## Re-reads the environment and the clock and switches effects.
func refresh() -> void:
	var day := day_night.get_day() if day_night != null else 0
	var h := 0.0
	if follow != null and world != null:
		h = world.get_height(follow.global_position.x, follow.global_position.z)
	biome = get_biome_here()
	var kind := classify(biome, h, sea_level)
	var ev := pick_event(world_seed, day, kind)
	var ff := fireflies_tonight(world_seed, day, kind) and day_night != null and day_night.is_night()
	if ev != current_event:
		current_event = ev
		event_changed.emit(ev)
	fireflies_on = ff
	for k in ["rain", "snow", "sandstorm"]:
		_set_effect(k, k == ev)
	_set_effect("fireflies", ff)
	if day_night != null:
		match ev:
			"rain":
				day_night.weather_tint = Color(0.6, 0.63, 0.7)
				day_night.weather_fog_density = 0.012
				day_night.weather_fog_color = Color(0.55, 0.58, 0.62)
			"snow":
				day_night.weather_tint = Color(0.8, 0.85, 0.95)
				day_night.weather_fog_density = 0.018
				day_night.weather_fog_color = Color(0.85, 0.88, 0.95)
			"sandstorm":
				day_night.weather_tint = Color(0.95, 0.72, 0.45)
				day_night.weather_fog_density = 0.045
				day_night.weather_fog_color = Color(0.8, 0.6, 0.35)
			_:
				day_night.weather_tint = Color.WHITE
				day_night.weather_fog_density = 0.0

## Name shown in the HUD.
func describe() -> String:
	var parts: PackedStringArray = []
	if current_event != "none":
		parts.append(current_event)
	if fireflies_on:
		parts.append("fireflies")
	return "clear" if parts.is_empty() else ", ".join(parts)

func _set_effect(k: String, on: bool) -> void:
	var p: CPUParticles3D = _effects[k]
	if p.emitting != on:
		p.emitting = on
	if on:
		p.visible = true

func _make_particles(amount: int, lifetime: float, extents: Vector3, direction: Vector3, velocity: float,
		spread: float, grav: Vector3, mesh_class, mesh_size: Vector3, color: Color, glow: bool) -> CPUParticles3D:
	var p := CPUParticles3D.new()
	p.amount = amount
	p.lifetime = lifetime
	p.local_coords = false
	p.emission_shape = CPUParticles3D.EMISSION_SHAPE_BOX
	p.emission_box_extents = extents
	p.direction = direction
	p.spread = spread
	p.initial_velocity_min = velocity * 0.8
	p.initial_velocity_max = velocity * 1.2
	p.gravity = grav
	p.preprocess = lifetime if not glow else 0.0
	var mesh: PrimitiveMesh = mesh_class.new()
	if mesh is BoxMesh:
		mesh.size = mesh_size
	elif mesh is SphereMesh:
		mesh.radius = mesh_size.x
		mesh.height = mesh_size.x * 2.0
		mesh.radial_segments = 6
		mesh.rings = 3
	var mat := StandardMaterial3D.new()
	mat.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
	mat.albedo_color = color
	if color.a < 1.0:
		mat.transparency = BaseMaterial3D.TRANSPARENCY_ALPHA
	if glow:
		mat.emission_enabled = true
		mat.emission = color
		p.scale_amount_min = 0.5
		p.scale_amount_max = 1.2
		p.damping_min = 0.2
		p.damping_max = 0.5
	mesh.material = mat
	p.mesh = mesh
	p.cast_shadow = GeometryInstance3D.SHADOW_CASTING_SETTING_OFF
	add_child(p)
	return p
