## Starts a world: the one `GameState.pending` asks for (a preset and seed, or the last save),
## streamed at a short view distance until the area around the spawn point is ready, so the
## player can start early. The player is put on the surface (never in rock or water) facing the
## most open view, and gets control once the area is ready.
##
## Columns and voxels here are world coordinates; positions handed to the player are global
## (converted by `WorldCoords`: the world has a floating origin).
class_name WorldSetup
extends Node

## While loading, about every frame: the share of the start area ready (0..1) and the counts.
signal progressed(fraction: float, loaded_chunks: int, pending_chunks: int)
## The start area is ready and the player has control.
signal finished

## View distances while loading (raised by the game to the user's setting afterwards).
const LOADING_VIEW_DISTANCE := 3
const LOADING_VERTICAL_VIEW_DISTANCE := 2
const PLAYING_VERTICAL_VIEW_DISTANCE := 3
## The sea level of a preset without water: below everything.
const NO_SEA := -100000
## Height of the feet above the ground when placed.
const STAND_OFFSET := 0.05
const DEFAULT_TIME_OF_DAY := 0.3
const DEFAULT_DAY_LENGTH_S := 600.0
## A y no standing spot has (below the world's bounds): "no spot in this column".
const NO_SPOT := -2147483648

@export var world: StrataChunkWorld
@export var player: StrataPlayer
@export var day_night: DayNight

## The preset the world was made from ("" = built in; "profile:NAME" = the user's own).
var preset_path := ""
var world_seed := 0
var sea_level := 0


func _ready() -> void:
	set_process(false)


## Picks the world (`request` is `GameState.pending`: a preset and seed, a world code, or the
## last save; `args` may override it), places the player
## and starts streaming; `finished` follows once the area is ready.
func begin(request: Dictionary, args: RunArgs) -> void:
	var saved := pick_world(request, args)
	start(saved, float(request.get("day_length_s", DEFAULT_DAY_LENGTH_S)))


## Sets the world's preset from `request` and `args` (see `begin`); returns the saved game
## state when continuing a save, else {}.
func pick_world(request: Dictionary, args: RunArgs) -> Dictionary:
	var saved: Dictionary = {}
	if bool(request.get("continue", false)) and not args.no_save_load:
		saved = WorldSave.load_into(world)
	if saved.is_empty():
		preset_path = str(request.get("preset_path", GameState.DEFAULT_PRESET))
		if args.preset_path != "":
			preset_path = args.preset_path
		var seed_value := int(request.get("seed", -1))
		if args.world_seed >= 0:
			seed_value = args.world_seed
		world.preset = GameState.make_preset(preset_path, seed_value)
		var code := str(request.get("world_code", ""))
		if code != "" and args.world_seed < 0 and args.preset_path == "":
			var from_code := StrataWorldPreset.new()
			if from_code.parse_world_code(code, GameState.base_presets()) == OK:
				world.preset = from_code
			else:
				push_warning("WorldSetup: " + from_code.last_error())
		DemoLife.add_rules(world.preset)
		DemoLife.add_structure_rules(world.preset)
	else:
		preset_path = str(saved.get("preset_path", ""))
	return saved


## Places the player (where `saved` says, else at the spawn point) in the world's current preset
## and starts streaming; `finished` follows once the area is ready. `around` is the column the
## spawn search starts from.
func start(saved: Dictionary, day_length_s: float, around := Vector2i.ZERO) -> void:
	var preset := world.preset
	world_seed = int(preset.seed)
	sea_level = int(preset.water_sea_level) if bool(preset.water_enabled) else NO_SEA
	day_night.period_s = float(saved.get("day_length_s", day_length_s))

	world.view_distance = LOADING_VIEW_DISTANCE
	world.vertical_view_distance = LOADING_VERTICAL_VIEW_DISTANCE
	world.viewer = world.get_path_to(player)
	player.set_world(world)
	player.input_enabled = false
	player.process_mode = Node.PROCESS_MODE_DISABLED
	var spawn: Vector3
	var saved_at := saved_world_position(saved)
	if not saved_at.is_empty():
		# A save far away: the origin goes there first, so the player stands where f32 is exact.
		WorldCoords.bring_origin_near(world, saved_at)
		spawn = WorldCoords.to_global(world, saved_at)
		player.rotation.y = float(saved.get("yaw", 0.0))
		player.head.rotation.x = float(saved.get("pitch", 0.0))
		day_night.set_day(int(saved.get("day", 0)))
		day_night.set_time_of_day(float(saved.get("time_of_day", DEFAULT_TIME_OF_DAY)))
	else:
		spawn = find_spawn(around)
		player.rotation.y = open_view_yaw(spawn)
		day_night.set_time_of_day(DEFAULT_TIME_OF_DAY)
	player.global_position = spawn
	day_night.frozen = true
	set_process(true)


## The player's world position in a save's game state ([x, y, z]), or [] when it has none. A
## save of version 3 keeps three 64-bit floats; older ones a `Vector3`, which was the world
## position (their worlds had no floating origin).
static func saved_world_position(saved: Dictionary) -> PackedFloat64Array:
	var at: Variant = saved.get("player_position")
	if at is Vector3:
		var v: Vector3 = at
		return PackedFloat64Array([v.x, v.y, v.z])
	if at is PackedFloat64Array and (at as PackedFloat64Array).size() == 3:
		return at
	return PackedFloat64Array()


func _process(_delta: float) -> void:
	var stats := world.get_stats()
	progressed.emit(world.get_progress(), int(stats["loaded_chunks"]), int(stats["pending_chunks"]))
	if world.is_area_ready():
		_finish()


func _finish() -> void:
	set_process(false)
	world.vertical_view_distance = PLAYING_VERTICAL_VIEW_DISTANCE
	# The ground may have changed under the spawn point (edits from a save): stand on it.
	var ground := WorldCoords.ground_y(world, player.global_position)
	if player.global_position.y < ground:
		player.global_position.y = ground + STAND_OFFSET
	player.process_mode = Node.PROCESS_MODE_INHERIT
	player.input_enabled = true
	day_night.frozen = false
	finished.emit()


## A standing spot near world column `around` (global: the feet's place): on the surface,
## above the sea, with air (not water or leaves) for the body. Searches outwards in square rings.
func find_spawn(around: Vector2i) -> Vector3:
	return feet_at(find_spawn_voxel(around))


## The world voxel the feet stand in at the spot `find_spawn` picks near world column `around`
## (the same for a seed and column in every run: it reads only the generated world and edits).
func find_spawn_voxel(around: Vector2i) -> Vector3i:
	for r in range(0, 200, 3):
		var per_side := maxi(1, r * 2)
		for i in per_side * 4 if r > 0 else 1:
			var column := around + _ring_offset(r, per_side, i)
			var spot := _standing_voxel(column)
			if spot.y != NO_SPOT:
				return spot
	var h := int(world.get_height(around.x + 0.5, around.y + 0.5))
	return Vector3i(around.x, maxi(h, sea_level + 1), around.y)


## Where feet standing in world voxel `v` are, as a global point: the middle of its floor, a
## little above it.
func feet_at(v: Vector3i) -> Vector3:
	return WorldCoords.voxel_corner(world, v) + Vector3(0.5, STAND_OFFSET, 0.5)


## The `i`-th column of the square ring of radius `r` (`per_side` columns a side).
static func _ring_offset(r: int, per_side: int, i: int) -> Vector2i:
	if r == 0:
		return Vector2i.ZERO
	@warning_ignore("integer_division")
	var side := i / per_side
	var k := i % per_side - r
	match side:
		0:
			return Vector2i(k, -r)
		1:
			return Vector2i(r, k)
		2:
			return Vector2i(-k, r)
	return Vector2i(-r, -k)


## The voxel the feet stand in where the player can stand in world `column`; y = `NO_SPOT`
## where it cannot.
func _standing_voxel(column: Vector2i) -> Vector3i:
	var none := Vector3i(column.x, NO_SPOT, column.y)
	var h := int(world.get_height(column.x + 0.5, column.y + 0.5))
	if h < sea_level + 1:
		return none
	var below := world.get_voxel(Vector3i(column.x, h - 1, column.y))
	if below == 0 or below == world.get_block_id("water"):
		return none
	for dy in 3:
		if world.get_voxel(Vector3i(column.x, h + dy, column.y)) != 0:
			return none
	return Vector3i(column.x, h, column.y)


## An underground air pocket (a cave) near world column `around`, at least 6 voxels below the
## surface, with room to stand (global: the feet's place); Vector3.INF when none is found. Only
## streamed chunks know their caves: search after loading.
func find_cave(around: Vector2i) -> Vector3:
	for r in range(0, 96, 4):
		for dx in range(-r, r + 1, 4):
			for dz: int in [-r, r]:
				var spot := _cave_floor(around.x + dx, around.y + dz)
				if spot != Vector3.INF:
					return spot
	return Vector3.INF


func _cave_floor(x: int, z: int) -> Vector3:
	var top := int(world.get_height(x + 0.5, z + 0.5))
	var air := 0
	for y in range(top - 6, top - 80, -1):
		var id := world.get_voxel(Vector3i(x, y, z))
		if id == 0:
			air += 1
			continue
		if air >= 3 and world.get_block_name(id) != "water":
			return WorldCoords.voxel_corner(world, Vector3i(x, y + 1, z)) + Vector3(0.5, 0.05, 0.5)
		air = 0
	return Vector3.INF


## The facing (yaw) from global point `p` towards the lowest ground 16 voxels away: the most
## open view.
func open_view_yaw(p: Vector3) -> float:
	var w := WorldCoords.world_position(world, p)
	var best := 0.0
	var best_h := INF
	for i in 8:
		var yaw := i * TAU / 8.0
		var forward := Vector3(-sin(yaw), 0.0, -cos(yaw))
		var h := 0.0
		for k: float in [6.0, 11.0, 16.0]:
			h = maxf(h, world.get_height(w[0] + forward.x * k, w[2] + forward.z * k))
		if h < best_h:
			best_h = h
			best = yaw
	return best
