## The demo's objects in real headless Godot: its spawn rules are valid and start deer and chests
## in a world; a deer flees from the player; with navigation a deer walks paths found on the
## worker pool; a chest hands over its blocks once and keeps that
## through a save; digging at a tree takes it.
extends StrataTestCase

const DEER := preload("res://game/life/deer.tscn")
const CHEST := preload("res://game/life/chest.tscn")

var _world: StrataChunkWorld


func before_each() -> void:
	var preset := StrataWorldPreset.new()
	preset.seed = 99
	DemoLife.add_rules(preset)
	_world = StrataChunkWorld.new()
	_world.preset = preset
	_world.view_distance = 3
	_world.vertical_view_distance = 2
	_world.entity_distance = 3
	_world.far_view_levels = 0
	_world.adaptive_far_view = false
	_world.frame_budget_ms = 8.0
	add_child(_world)


func after_each() -> void:
	if is_instance_valid(_world):
		_world.free()


func test_the_demo_rules_are_valid_and_start_deer() -> void:
	assert_eq(_world.preset.validate(), "")
	assert_eq(_world.preset.get_spawn_rules().size(), 2, "deer and chests")
	assert_eq(_world.preset.get_structure_rules().size(), 3, "cottages, ruins, crypts")
	assert_eq(
		_world.preset.get_structure_rules()[2].entity, DemoLife.CHEST, "a chest in each crypt"
	)
	var again := _world.preset.get_spawn_rules().size()
	DemoLife.add_rules(_world.preset)
	assert_eq(_world.preset.get_spawn_rules().size(), again, "added once")
	var ready := func() -> bool:
		return _world.is_area_ready() and int(_world.get_stats()["entities_queued"]) == 0
	assert_true(await wait_until(ready, 90.0), "loaded")
	var deer := 0
	for e in _world.get_entities_in(AABB(Vector3(-1e5, -1e5, -1e5), Vector3(2e5, 2e5, 2e5))):
		if e is Deer:
			deer += 1
	assert_gt(deer, 0, "deer around the origin: %s" % _world.get_stats())


func test_a_deer_flees_from_the_player() -> void:
	assert_true(await wait_until(_world.is_area_ready, 60.0), "loaded")
	var deer := _world.add_entity(DEER, Vector3(10, _world.get_height(10, 10), 10)) as Deer
	assert_true(deer != null, _world.last_error())
	var player := keep(Node3D.new()) as Node3D
	player.add_to_group("player")
	add_child(player)
	player.global_position = deer.global_position + Vector3(2, 0, 0)
	var start := deer.global_position.distance_to(player.global_position)
	var away := func() -> bool:
		return deer.global_position.distance_to(player.global_position) > start + 1.0
	assert_true(await wait_until(away, 10.0), "it ran away")
	assert_eq(deer.times_fled, 1)
	assert_eq(deer.strata_get_state(), {"times_fled": 1})
	player.remove_from_group("player")


func test_with_navigation_a_deer_walks_paths_on_the_ground_and_flees() -> void:
	_world.navigation_enabled = true
	var baked := func() -> bool:
		var st := _world.get_stats()
		return _world.is_area_ready() and int(st["nav_queue"]) == 0 and int(st["nav_regions"]) > 0
	assert_true(await wait_until(baked, 90.0), "loaded and baked: %s" % _world.get_stats())
	var deer := _world.add_entity(DEER, Vector3(10, _world.get_height(10, 10), 10)) as Deer
	assert_true(deer != null, _world.last_error())
	var start := deer.position
	# Its queries run on the worker pool: the path comes a frame or more after it is wanted.
	var pathed := func() -> bool: return deer.get_walk_path().size() > 1
	assert_true(await wait_until(pathed, 20.0), "it got a path")
	for p in deer.get_walk_path():
		var ground := _world.get_height(p.x, p.z)
		assert_lt(absf(p.y - ground), 1.01, "path point %s on the ground (%.1f)" % [p, ground])
		assert_lt(Vector2(p.x - start.x, p.z - start.z).length(), 40.0, "a wandering path is short")
	var moved := func() -> bool: return deer.position.distance_to(start) > 1.0
	assert_true(await wait_until(moved, 10.0), "it walks")
	var player := keep(Node3D.new()) as Node3D
	player.add_to_group("player")
	add_child(player)
	player.global_position = deer.global_position + Vector3(2, 0, 0)
	var near := deer.global_position.distance_to(player.global_position)
	var away := func() -> bool:
		return deer.global_position.distance_to(player.global_position) > near + 1.0
	assert_true(await wait_until(away, 10.0), "it ran away")
	assert_eq(deer.times_fled, 1)
	player.remove_from_group("player")


func test_a_chest_hands_over_its_blocks_once_and_remembers() -> void:
	var chest := CHEST.instantiate() as Chest
	chest.position = Vector3(3, 20, 4)
	add_child(chest)
	var first := chest.open()
	assert_gt(first.size(), 0, "something inside")
	for k: String in first:
		assert_true(k in Chest.LOOT, k)
	assert_eq(chest.open(), {} as Dictionary[String, int], "empty the second time")
	var state := chest.strata_get_state()
	var other := CHEST.instantiate() as Chest
	other.position = chest.position
	add_child(other)
	assert_eq(other.open(), first, "a chest at the same place holds the same")
	var restored := CHEST.instantiate() as Chest
	restored.strata_set_state(state)
	add_child(restored)
	assert_true(restored.opened)
	assert_eq(restored.open(), {} as Dictionary[String, int], "still empty after a save")
	chest.free()
	other.free()
	restored.free()
