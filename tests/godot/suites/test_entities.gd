## Entities in real headless Godot: spawn rules start the same objects on the ground in every
## world of a preset; moved, changed, removed, freed and added entities come back as they were
## after a save and a load, after leaving `entity_distance` and after the world leaves the tree;
## 1,000 kept entities stay under 64 KB; harvested decorations stay gone; bad input is refused
## with a clear error.
extends StrataTestCase

const DIR := "user://entity_suite"

var _worlds: Array[StrataChunkWorld] = []
var _critter: PackedScene


func before_each() -> void:
	DirAccess.make_dir_recursive_absolute(DIR)
	if _critter == null:
		_critter = critter_scene(DIR)


func after_each() -> void:
	for w in _worlds:
		if is_instance_valid(w):
			w.free()
	_worlds.clear()


func _preset() -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = 7373
	var rule := StrataSpawnRule.create(DIR + "/critter.tscn", 3.0)
	rule.cluster_size = 4
	rule.cluster_spread = 8.0
	rule.min_spacing = 2.0
	preset.set_spawn_rules([rule] as Array[StrataSpawnRule])
	return preset


func _world(preset: StrataWorldPreset, at := Vector3(8, 0, 8)) -> StrataChunkWorld:
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 3
	w.vertical_view_distance = 1
	w.entity_distance = 1
	w.frame_budget_ms = 8.0
	w.far_view_levels = 0
	w.adaptive_far_view = false
	var viewer := Node3D.new()
	viewer.name = "EntityViewer%d" % _worlds.size()
	add_child(viewer)
	keep(viewer)
	viewer.position = Vector3(at.x, w.get_height(at.x, at.z) + 2.0, at.z)
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	_worlds.append(w)
	return w


func _viewer(w: StrataChunkWorld) -> Node3D:
	return w.get_node(w.viewer) as Node3D


## Waits until the world is loaded and every queued entity stands in it.
func _settle(w: StrataChunkWorld) -> bool:
	var done := func() -> bool:
		var s := w.get_stats()
		return w.is_area_ready() and int(s["entities_queued"]) == 0 and int(s["entities"]) > 0
	var ok: bool = await wait_until(done, 90.0)
	await wait_frames(3)
	return ok


func _entities(w: StrataChunkWorld) -> Array[Node3D]:
	return w.get_entities_in(AABB(Vector3(-1e6, -1e6, -1e6), Vector3(2e6, 2e6, 2e6)))


func _positions(w: StrataChunkWorld) -> Array[Vector3]:
	var out: Array[Vector3] = []
	for e in _entities(w):
		out.append(e.position)
	out.sort()
	return out


func _entity_near(w: StrataChunkWorld, p: Vector3) -> Node3D:
	for e in _entities(w):
		if e.position.distance_to(p) < 0.01:
			return e
	return null


func test_spawn_rules_start_the_same_objects_on_the_ground() -> void:
	var w := _world(_preset())
	var spawned: Array[Node3D] = []
	w.entity_spawned.connect(func(n: Node3D) -> void: spawned.append(n))
	assert_true(await _settle(w), "entities stand in the world: %s" % w.get_stats())
	var here := _positions(w)
	assert_gt(here.size(), 5, "critters around the viewer")
	assert_eq(spawned.size(), here.size(), "one entity_spawned per entity")
	for p in here:
		var v := Vector3i(floori(p.x), floori(p.y), floori(p.z))
		assert_eq(w.get_voxel(v), 0, "open air at %s" % p)
		assert_ne(w.get_voxel(v - Vector3i(0, 1, 0)), 0, "ground under %s" % p)
		assert_true(_entity_near(w, p).get_parent() == w, "a child of the world")
	var again := _world(_preset())
	assert_true(await _settle(again), "second world")
	assert_eq(_positions(again), here, "the same objects in another world of the preset")


func test_changed_removed_and_added_entities_come_back_from_a_save() -> void:
	var w := _world(_preset())
	assert_true(await _settle(w), "loaded")
	var all := _entities(w)
	var before := all.size()
	assert_gt(before, 4, "enough critters")
	var moved: Node3D = all[0]
	var moved_from := moved.position
	moved.position += Vector3(1.5, 0, 0)
	moved.set("health", 3)
	var moved_to := moved.position
	var removed_at: Vector3 = all[1].position
	var despawned: Array[Node3D] = []
	w.entity_despawned.connect(func(n: Node3D) -> void: despawned.append(n))
	assert_true(w.remove_entity(all[1]), "removed")
	assert_eq(despawned.size(), 1, "entity_despawned for a removed entity")
	var freed_at: Vector3 = all[2].position
	all[2].queue_free()
	var untouched_at: Vector3 = all[3].position
	var added := w.add_entity(_critter, Vector3(20.25, 61, 9.5))
	assert_true(added != null, w.last_error())
	added.set("health", 7)
	await wait_frames(2)
	assert_eq(_entities(w).size(), before - 1, "one removed, one freed, one added")
	var path := DIR + "/entities.strata"
	assert_eq(w.save_world(path), OK, w.last_error())
	w.free()
	var back := _world(_preset())
	assert_eq(back.load_world(path), OK, back.last_error())
	assert_true(await _settle(back), "loaded world settles")
	assert_eq(_entities(back).size(), before - 1, "the same entities after the load")
	var m := _entity_near(back, moved_to)
	assert_true(m != null, "the moved critter where it was moved to")
	if m != null:
		assert_eq(m.get("health"), 3, "with its state")
	assert_true(_entity_near(back, moved_from) == null, "not also at its spawn")
	assert_true(_entity_near(back, removed_at) == null, "a removed critter stays removed")
	assert_true(_entity_near(back, freed_at) == null, "a freed critter stays removed")
	assert_true(_entity_near(back, untouched_at) != null, "an untouched critter spawns again")
	var a := _entity_near(back, Vector3(20.25, 61, 9.5))
	assert_true(a != null, "the added critter")
	if a != null:
		assert_eq(a.get("health"), 7, "with its state")


func test_an_entity_outside_entity_distance_is_kept_and_returns() -> void:
	var w := _world(_preset())
	assert_true(await _settle(w), "loaded")
	var e: Node3D = _entities(w)[0]
	var count := _entities(w).size()
	e.set("health", 1)
	# Walk it into a loaded chunk beyond entity_distance (1): it belongs to that chunk now.
	var far := Vector3(8 + 2 * 32 + 5.5, e.position.y, 8.25)
	e.position = far
	await wait_frames(3)
	assert_false(is_instance_valid(e), "taken out of the tree")
	assert_eq(_entities(w).size(), count - 1)
	assert_eq(int(w.get_stats()["entities_kept"]), 1, "kept as a record")
	# The viewer walks there: the critter comes back as it was.
	_viewer(w).position = Vector3(far.x, _viewer(w).position.y, far.z)
	assert_true(await wait_until(func() -> bool: return _entity_near(w, far) != null, 60.0), "back")
	var back := _entity_near(w, far)
	if back != null:
		assert_eq(back.get("health"), 1, "with its state")
	assert_eq(int(w.get_stats()["entities_kept"]), 0)


func test_entities_survive_leaving_the_tree_and_a_preset_change() -> void:
	var w := _world(_preset())
	assert_true(await _settle(w), "loaded")
	var e: Node3D = _entities(w)[0]
	var to := e.position + Vector3(0.75, 0, 0.75)
	e.position = to
	e.set("health", 4)
	var parent := w.get_parent()
	parent.remove_child(w)
	assert_false(is_instance_valid(e), "entities leave with the world's chunks")
	parent.add_child(w)
	assert_true(await _settle(w), "back in the tree")
	var again := _entity_near(w, to)
	assert_true(again != null, "the moved critter is back where it was")
	if again != null:
		assert_eq(again.get("health"), 4)
		again.set("health", 2)
	w.regenerate()
	assert_true(await _settle(w), "regenerated")
	var third := _entity_near(w, to)
	assert_true(third != null and third.get("health") == 2, "and after regenerate()")


func test_a_thousand_kept_entities_take_under_64_kb() -> void:
	var w := _world(_preset())
	assert_true(await _settle(w), "loaded")
	var spawned := _entities(w).size()
	# In the viewer's chunk layer, which stands in the world (entity_distance 1 around it).
	var y0 := floorf(_viewer(w).position.y / 32.0) * 32.0 + 10.0
	for i in 1000:
		var p := Vector3(-20.0 + (i % 40) * 1.25, y0 + float(i % 7) * 0.5, -20.0 + (i / 40) * 1.5)
		var n := w.add_entity(_critter, p)
		n.rotation.y = float(i) * 0.01
		n.set("health", i % 10)
	var box := AABB(Vector3(-20.5, y0 - 1.0, -20.5), Vector3(51, 5, 38))
	var in_box := w.get_entities_in(box).size() - 1000
	assert_true(in_box >= 0 and in_box <= spawned, "get_entities_in finds the added ones")
	var path := DIR + "/thousand.strata"
	assert_eq(w.save_world(path), OK, w.last_error())
	var size := FileAccess.get_file_as_bytes(path).size()
	print("1,000 kept entities: save of %d bytes" % size)
	assert_lt(size, 64 * 1024, "1,000 entity deltas under 64 KB")
	var back := _world(_preset())
	assert_eq(back.load_world(path), OK, back.last_error())
	assert_true(await _settle(back), "loaded")
	assert_eq(_entities(back).size(), spawned + 1000, "every entity back")
	assert_eq(back.get_entities_in(box).size(), 1000 + in_box)


func test_harvested_decorations_stay_gone() -> void:
	var w := _world(StrataWorldPreset.new())
	assert_true(await wait_until(w.is_area_ready, 60.0), "loaded")
	var centre := _viewer(w).position
	var taken := w.harvest_scatter(centre, 40.0)
	assert_gt(taken.size(), 0, "decorations within 40 voxels")
	for d: Dictionary in taken:
		assert_true(d["kind"] in ["tree", "bush", "flower", "rock"], str(d))
		assert_lt((d["position"] as Vector3).distance_to(centre), 40.01)
	assert_eq(w.harvest_scatter(centre, 40.0).size(), 0, "gone")
	var path := DIR + "/harvest.strata"
	assert_eq(w.save_world(path), OK, w.last_error())
	var back := _world(StrataWorldPreset.new())
	assert_eq(back.load_world(path), OK, back.last_error())
	assert_true(await wait_until(back.is_area_ready, 60.0), "loaded")
	assert_eq(back.harvest_scatter(centre, 40.0).size(), 0, "still gone after a load")
	assert_gt(back.harvest_scatter(centre, 60.0).size(), 0, "those beyond were not harvested")


func test_bad_entities_and_rules_get_clear_errors() -> void:
	var w := _world(_preset())
	assert_true(await _settle(w), "loaded")
	var unsaved := PackedScene.new()
	var node := Node3D.new()
	unsaved.pack(node)
	node.free()
	assert_true(w.add_entity(unsaved, Vector3.ZERO) == null, "a scene without a file")
	assert_true("resource path" in w.last_error(), w.last_error())
	var plain := Node.new()
	var not_3d := PackedScene.new()
	not_3d.pack(plain)
	plain.free()
	ResourceSaver.save(not_3d, DIR + "/plain.tscn")
	assert_true(
		w.add_entity(load(DIR + "/plain.tscn"), Vector3.ZERO) == null, "a root that is not a Node3D"
	)
	assert_true("Node3D" in w.last_error(), w.last_error())
	assert_true(w.add_entity(_critter, Vector3(INF, 0, 0)) == null, "an infinite position")
	var stranger := keep(Node3D.new()) as Node3D
	assert_false(w.remove_entity(stranger), "not an entity of the world")
	var preset := _preset()
	var rules := preset.get_spawn_rules()
	rules[0].scene = "res://deer.png"
	preset.set_spawn_rules(rules)
	var error := preset.validate()
	assert_true("spawns.rules[0].scene" in error, error)
	assert_true("res://deer.png" in error, error)
	rules[0].scene = DIR + "/critter.tscn"
	rules[0].density = 40.0
	preset.set_spawn_rules(rules)
	assert_true("spawns.rules[0].density" in preset.validate(), preset.validate())
	w.entity_distance = 99
	assert_eq(w.entity_distance, 32, "clamped")
