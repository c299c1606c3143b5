## The 2D demo's creatures on the world's walker navigation, in real headless Godot: a critter
## (`critter_2d.tscn`) walks to a goal over a step; a wall built in its way stops it short, and it
## goes on to the goal once a tunnel is dug through the wall (its path is asked for again on the
## new navigation); a curious critter comes near a player and stops short of it; a cave crawler
## hunts a player in a cave, not one on the surface; without navigation a creature still walks.
extends StrataTestCase

## Pixels a tile (the demo's TileSet).
const PX := 16.0
const CRITTER := preload("res://demo2d/life/critter_2d.tscn")
const CRAWLER := preload("res://demo2d/life/cave_crawler_2d.tscn")

var _worlds: Array[StrataChunkWorld2D] = []


func after_each() -> void:
	for w in _worlds:
		if is_instance_valid(w):
			w.free()
	_worlds.clear()


## Flat ground: no hills, caves or water; the surface row is the same in every column.
func _flat_preset() -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = 7272
	preset.side_view_amplitude = 0.0
	preset.side_view_cave_mode = StrataWorldPreset.SIDE_VIEW_CAVE_MODE_NONE
	preset.side_view_water_enabled = false
	return preset


## A flat world with the demo's walker navigation (one tile high walkers), streaming around a
## viewer at tile column `x` on the ground.
func _world(x := 0, navigation := true) -> StrataChunkWorld2D:
	var viewer := Node2D.new()
	viewer.name = "LifeViewer%d" % _worlds.size()
	add_child(viewer)
	keep(viewer)
	var w := StrataChunkWorld2D.new()
	w.preset = _flat_preset()
	w.view_distance = 1
	w.frame_budget_ms = 8.0
	w.light_enabled = false
	w.navigation_enabled = navigation
	w.navigation_agent_height = 1
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	viewer.position = _feet(w, x)
	_worlds.append(w)
	return w


## Every wanted chunk is in and every baked navigation mesh is registered and synchronised.
func _settle(w: StrataChunkWorld2D) -> bool:
	var ready := await wait_until(
		func() -> bool: return w.is_area_ready() and int(w.get_stats()["nav_queue"]) == 0, 90.0
	)
	await wait_frames(4)
	return ready


## The world row of the flat ground's top tile.
func _ground(w: StrataChunkWorld2D) -> int:
	return w.get_generated_surface_rows(0, 1)[0]


## Where a creature's feet are when it stands on the ground of column `x` (its origin: the
## bottom of its body, the top of the ground tile).
func _feet(w: StrataChunkWorld2D, x: int, row_above_ground := 0) -> Vector2:
	var g := _ground(w) - row_above_ground
	return w.tile_to_local(Vector2i(x, g)) - Vector2(0.0, PX * 0.5)


func _spawn(w: StrataChunkWorld2D, scene: PackedScene, at: Vector2) -> Walker2D:
	var walker: Walker2D = scene.instantiate()
	walker.position = at
	w.add_child(walker)
	return walker


func test_a_critter_walks_over_a_step_and_through_a_tunnel_dug_in_a_wall_in_its_way() -> void:
	var w := _world()
	assert_true(await _settle(w), "world and navigation never settled")
	var g := _ground(w)
	var stone := w.get_block_id("stone")
	# A one-tile step up on the way at x 6..9, and further on at x 26..27 a wall six tiles high,
	# more than it climbs.
	w.set_tiles_rect(Vector2i(6, g - 1), Vector2i(9, g - 1), stone)
	w.set_tiles_rect(Vector2i(26, g - 6), Vector2i(27, g - 1), stone)
	assert_true(await _settle(w), "rebake after the step and the wall")
	var critter := _spawn(w, CRITTER, _feet(w, 0))
	await wait_frames(2)
	var goal := _feet(w, 18)
	critter.go_to(goal)
	var highest := [INF]
	var reached := func() -> bool:
		if critter.is_on_floor():
			highest[0] = minf(highest[0], critter.position.y)
		return critter.position.distance_to(goal) < PX
	assert_true(
		await wait_until(reached, 60.0),
		"reached its goal: at %s, goal %s" % [critter.position, goal]
	)
	assert_lt(highest[0], _feet(w, 0).y - PX + 0.5, "it stood on the step on the way")
	# Beyond the wall: it goes as far as the wall.
	var beyond := _feet(w, 34)
	critter.go_to(beyond)
	var wall_x := w.tile_to_local(Vector2i(26, 0)).x - PX * 0.5
	assert_true(
		await wait_until(func() -> bool: return critter.position.x > wall_x - PX * 1.5, 60.0),
		"it walks up to the wall: at %s" % critter.position
	)
	assert_true(
		await wait_until(func() -> bool: return not critter.is_navigating(), 10.0),
		"and stops there"
	)
	await wait_frames(30)
	assert_lt(critter.position.x, wall_x, "stopped short of the wall: %s" % critter.position)
	# A tunnel one tile high dug through the wall's foot: a new path, through it to the goal.
	w.set_tiles_rect(Vector2i(26, g - 1), Vector2i(27, g - 1), 0)
	assert_true(
		await wait_until(func() -> bool: return critter.position.distance_to(beyond) < PX, 60.0),
		"through the tunnel to its goal: at %s, goal %s" % [critter.position, beyond]
	)
	assert_eq(w.get_tile(Vector2i(26, g - 2)), stone, "the wall stands over the tunnel")


func test_a_curious_critter_comes_near_a_player_and_a_crawler_hunts_one_in_a_cave() -> void:
	var w := _world()
	assert_true(await _settle(w), "world and navigation never settled")
	var player := Node2D.new()
	player.name = "LifePlayer"
	player.add_to_group("player")
	w.add_child(player)
	# The demo's player: its origin at the middle of a body 26 pixels tall.
	player.position = _feet(w, 8) - Vector2(0.0, 13.0)
	var critter := _spawn(w, CRITTER, _feet(w, 0))
	assert_eq(critter.interest, Walker2D.Interest.CURIOUS, "the critter is curious")
	var near := func() -> bool:
		return absf(critter.position.x - player.position.x) < (critter.keep_tiles + 1.0) * PX
	assert_true(await wait_until(near, 40.0), "it came near the player: at %s" % critter.position)
	await wait_frames(60)
	var gap := absf(critter.position.x - player.position.x)
	assert_gt(gap, PX, "it keeps its distance: %s pixels" % gap)
	assert_lt(gap, (critter.keep_tiles + 1.0) * PX, "and stays near: %s pixels" % gap)
	player.free()
	critter.free()
	# A cave room 12 tiles under the ground, 30 wide; a crawler at its west end.
	var g := _ground(w)
	var floor_row := g + 12
	w.set_tiles_rect(Vector2i(-4, floor_row - 3), Vector2i(26, floor_row - 1), 0)
	assert_true(await _settle(w), "rebake after the cave")
	var cave_feet := func(x: int) -> Vector2: return _feet(w, x, -12)
	var crawler := _spawn(w, CRAWLER, cave_feet.call(-2))
	var hunted := Node2D.new()
	hunted.name = "HuntedPlayer"
	hunted.add_to_group("player")
	w.add_child(hunted)
	# On the surface right above it, within its notice: not in the caves, not hunted.
	hunted.position = _feet(w, 0) - Vector2(0.0, 13.0)
	await wait_frames(90)
	var to_player := crawler.agent.target_position.distance_to(hunted.global_position) < 4.0 * PX
	assert_false(
		crawler.is_navigating() and to_player,
		"a player on the surface is not hunted: it heads for %s" % crawler.agent.target_position
	)
	# In the cave, 10 tiles east: it comes to the player.
	hunted.position = (cave_feet.call(10) as Vector2) - Vector2(0.0, 13.0)
	var caught := func() -> bool:
		return absf(crawler.position.x - hunted.position.x) < (crawler.keep_tiles + 1.0) * PX
	assert_true(
		await wait_until(caught, 60.0), "the crawler hunted the player: at %s" % crawler.position
	)


func test_without_navigation_a_critter_walks_and_turns_at_walls() -> void:
	var w := _world(0, false)
	assert_true(await _settle(w), "world never settled")
	var g := _ground(w)
	var stone := w.get_block_id("stone")
	# A pen: walls at x -4 and x 4.
	w.set_tiles_rect(Vector2i(-4, g - 3), Vector2i(-4, g - 1), stone)
	w.set_tiles_rect(Vector2i(4, g - 3), Vector2i(4, g - 1), stone)
	await wait_frames(6)
	var critter := _spawn(w, CRITTER, _feet(w, 0))
	assert_true(
		await wait_until(func() -> bool: return critter.turns >= 2, 60.0),
		"it walks and turns at the walls: %d turns" % critter.turns
	)
	assert_false(critter.is_navigating(), "no navigation: no path")
	var inside := absf(critter.position.x - _feet(w, 0).x) < 4.0 * PX
	assert_true(inside, "it stays in the pen: %s" % critter.position)
