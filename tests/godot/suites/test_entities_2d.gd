## Side-view entities in real headless Godot: spawn rules start the same objects on the ground,
## in caves and buried, whatever order the chunks came in; moved, changed, removed and added
## entities come back as they were after a save and a load, the world leaving and re-entering the
## tree, `regenerate` and a preset change; `add_entity`, `remove_entity` and `get_entities_in`
## give exact values; an origin shift keeps every entity's world position (one tile is one metre:
## within 1 cm); bad input is refused with a clear error. The demo's creatures spawn by habitat
## and depth, walk, and persist with its chests across a save and a load.
extends StrataTestCase

## Pixels a tile (the generated TileSet's) and tiles a chunk (the preset's default).
const PX := 16.0
const N := 64
## The marker's script: a Node2D with a `health` kept through `strata_get_state`.
const MARKER_SCRIPT := """extends Node2D

var health: int = 10
var restored := false


func strata_get_state() -> Dictionary:
	return {"health": health}


func strata_set_state(state: Dictionary) -> void:
	health = int(state.get("health", 10))
	restored = true
"""

var _worlds: Array[StrataChunkWorld2D] = []
var _marker: PackedScene
var _dir := ""


func before_each() -> void:
	_dir = scratch_dir()
	_marker = _scene_of(MARKER_SCRIPT, "marker")


func after_each() -> void:
	for w in _worlds:
		if is_instance_valid(w):
			w.free()
	_worlds.clear()


## A saved scene whose root is a Node2D with `source` as its script.
func _scene_of(source: String, scene_name: String) -> PackedScene:
	var script := GDScript.new()
	script.source_code = source
	assert_eq(script.reload(), OK, "the %s script compiles" % scene_name)
	assert_eq(ResourceSaver.save(script, _dir.path_join(scene_name + ".gd")), OK)
	var root := Node2D.new()
	root.name = scene_name.capitalize()
	root.set_script(load(_dir.path_join(scene_name + ".gd")))
	var packed := PackedScene.new()
	assert_eq(packed.pack(root), OK)
	root.free()
	assert_eq(ResourceSaver.save(packed, _dir.path_join(scene_name + ".tscn")), OK)
	return load(_dir.path_join(scene_name + ".tscn"))


## Markers on the surface, on cave floors and buried.
func _preset(seed_value := 5151) -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = seed_value
	var path := _dir.path_join("marker.tscn")
	var surface := StrataSpawnRule.create(path, 3.0)
	surface.cluster_size = 3
	surface.cluster_spread = 10.0
	surface.min_spacing = 2.0
	var cave := StrataSpawnRule.create(path, 4.0)
	cave.habitat = StrataSpawnRule.HABITAT_CAVE
	cave.depth_min = 12
	cave.depth_max = 200
	cave.cluster_size = 2
	var buried := StrataSpawnRule.create(path, 1.0)
	buried.habitat = StrataSpawnRule.HABITAT_UNDERGROUND
	buried.depth_min = 4
	buried.depth_max = 40
	preset.set_spawn_rules([surface, cave, buried] as Array[StrataSpawnRule])
	return preset


## A world streaming around a viewer at tile column `x`, on the surface.
func _world(preset: StrataWorldPreset, x := 0, origin_on := false) -> StrataChunkWorld2D:
	var w := StrataChunkWorld2D.new()
	w.preset = preset
	w.view_distance = 1
	w.frame_budget_ms = 20.0
	w.floating_origin = origin_on
	# Each world's own group: a shift of one must not move another's viewer.
	w.origin_shift_group = "entity_suite_shift_%d" % _worlds.size()
	var viewer := Node2D.new()
	viewer.name = "EntityViewer%d" % _worlds.size()
	add_child(viewer)
	keep(viewer)
	add_child(w)
	viewer.add_to_group(w.origin_shift_group)
	viewer.position = Vector2(x * PX, w.get_surface_height(x * PX))
	w.viewer = w.get_path_to(viewer)
	_worlds.append(w)
	return w


func _viewer(w: StrataChunkWorld2D) -> Node2D:
	return w.get_node(w.viewer) as Node2D


## Waits until the world is loaded and every queued entity stands in it.
func _settle(w: StrataChunkWorld2D) -> bool:
	var done := func() -> bool:
		var s := w.get_stats()
		return w.is_area_ready() and int(s["entities_queued"]) == 0 and int(s["entities"]) > 0
	var ok: bool = await wait_until(done, 90.0)
	await wait_frames(3)
	return ok


func _entities(w: StrataChunkWorld2D) -> Array[Node2D]:
	return w.get_entities_in(Rect2(-1e9, -1e9, 2e9, 2e9))


## An entity's position in world tiles near the world's start (a Vector2 is 32-bit: exact to
## 0.001 tile within 8,000 tiles; see `_tiles_from`).
func _world_tiles(w: StrataChunkWorld2D, e: Node2D) -> Vector2:
	return _tiles_from(w, e, Vector2i.ZERO)


## An entity's position in tiles from world tile `base` (exact near `base` anywhere in the
## world: the origin's difference is taken in integers).
func _tiles_from(w: StrataChunkWorld2D, e: Node2D, base: Vector2i) -> Vector2:
	return Vector2(w.get_origin() - base) + e.position / PX


## The world positions (tiles) of the entities in the chunks within `r` of chunk column `cx`,
## rows -1..2, sorted.
func _positions(w: StrataChunkWorld2D, cx := 0, r := 1) -> Array[Vector2]:
	var out: Array[Vector2] = []
	for e in _entities(w):
		var p := _world_tiles(w, e)
		var c := Vector2i(floori(p.x / N), floori(p.y / N))
		if absi(c.x - cx) <= r and c.y >= -1 and c.y <= 2:
			out.append(p)
	out.sort()
	return out


func _entity_near(w: StrataChunkWorld2D, world_tiles: Vector2) -> Node2D:
	for e in _entities(w):
		if _world_tiles(w, e).distance_to(world_tiles) < 0.01:
			return e
	return null


func test_spawns_stand_on_the_ground_in_caves_and_buried_in_any_chunk_order() -> void:
	var w := _world(_preset())
	var spawned: Array[Node2D] = []
	w.entity_spawned.connect(func(n: Node2D) -> void: spawned.append(n))
	assert_true(await _settle(w), "entities stand in the world: %s" % w.get_stats())
	var here := _positions(w)
	assert_gt(here.size(), 10, "markers around the viewer")
	assert_eq(spawned.size(), _entities(w).size(), "one entity_spawned per entity")
	var kinds := {"surface": 0, "cave": 0, "buried": 0}
	for p in here:
		var t := Vector2i(floori(p.x), ceili(p.y) - 1)
		var e := _entity_near(w, p)
		assert_true(e != null and e.get_parent() == w, "a child of the world at %s" % p)
		var top := w.local_to_tile(
			Vector2(w.tile_to_local(t).x, w.get_surface_height(w.tile_to_local(t).x))
		)
		if w.get_tile(t) != 0:
			kinds["buried"] += 1
			assert_gt(t.y - top.y, 3, "buried below the surface at %s" % p)
		else:
			assert_ne(w.get_tile(t + Vector2i(0, 1)), 0, "ground under %s" % p)
			assert_eq(p.y, float(t.y + 1), "standing on the ground's top edge at %s" % p)
			kinds["surface" if t.y < top.y else "cave"] += 1
	for k: String in kinds:
		assert_gt(kinds[k], 0, "%s markers: %s" % [k, kinds])
	# Another world of the preset loads its chunks in another order: it first streams 4 chunks
	# to the right, then comes to the same place.
	var other := _world(_preset(), 4 * N)
	assert_true(await _settle(other), "second world")
	_viewer(other).position = Vector2(0, other.get_surface_height(0))
	assert_true(
		await wait_until(func() -> bool: return _positions(other).size() >= here.size(), 60.0),
		"came"
	)
	await _settle(other)
	assert_eq(_positions(other), here, "the same objects whatever the chunk order")


func test_changed_removed_and_added_entities_come_back_from_a_save() -> void:
	var w := _world(_preset())
	assert_true(await _settle(w), "loaded")
	var all := _entities(w)
	assert_gt(all.size(), 5, "enough markers")
	var moved: Node2D = all[0]
	moved.position += Vector2(1.5 * PX, 0)
	moved.rotation = 0.5
	moved.set("health", 3)
	var moved_to := _world_tiles(w, moved)
	var removed_at := _world_tiles(w, all[1])
	assert_true(w.remove_entity(all[1]), "removed")
	var freed_at := _world_tiles(w, all[2])
	all[2].free()
	var added := w.add_entity(_marker, Vector2(5.25 * PX, moved.position.y - 3 * PX))
	assert_true(added != null, "added")
	added.set("health", 7)
	var added_at := _world_tiles(w, added)
	var count := _entities(w).size()
	var path := _dir.path_join("entities.strata")
	assert_eq(w.save_world(path), OK, "saved: %s" % w.last_error())
	var loaded := _world(_preset())
	assert_eq(loaded.load_world(path), OK, "loaded: %s" % loaded.last_error())
	assert_true(await _settle(loaded), "the save's entities stand")
	assert_eq(_entities(loaded).size(), count, "as many entities as when saved")
	var back := _entity_near(loaded, moved_to)
	assert_true(back != null, "the moved one is where it went")
	if back != null:
		assert_eq(back.get("health"), 3, "with its state")
		assert_true(back.get("restored"), "given back through strata_set_state")
		assert_near(back.rotation, 0.5, 1e-5, "and its rotation")
	assert_true(_entity_near(loaded, removed_at) == null, "the removed one stays gone")
	assert_true(_entity_near(loaded, freed_at) == null, "the freed one stays gone")
	var added_back := _entity_near(loaded, added_at)
	assert_true(
		added_back != null and added_back.get("health") == 7, "the added one, with its state"
	)
	# Loading into the same world replaces its entities with the save's.
	added_back.set("health", 1)
	assert_eq(loaded.load_world(path), OK)
	assert_true(await _settle(loaded), "loaded again")
	assert_eq(_entity_near(loaded, added_at).get("health"), 7, "as saved")


func test_entities_survive_tree_exit_regenerate_and_preset_change() -> void:
	var w := _world(_preset())
	assert_true(await _settle(w), "loaded")
	var changed: Node2D = _entities(w)[0]
	changed.set("health", 2)
	changed.position += Vector2(0.5 * PX, 0)
	var at := _world_tiles(w, changed)
	var despawned: Array[Node2D] = []
	w.entity_despawned.connect(func(n: Node2D) -> void: despawned.append(n))
	var parent := w.get_parent()
	parent.remove_child(w)
	assert_eq(_entities(w).size(), 0, "out of the tree, no entity stands")
	assert_gt(despawned.size(), 0, "entity_despawned for each")
	parent.add_child(w)
	assert_true(await _settle(w), "back in the tree")
	var back := _entity_near(w, at)
	assert_true(back != null and back.get("health") == 2, "the changed one is back as it was")
	w.regenerate()
	assert_true(await _settle(w), "regenerated")
	back = _entity_near(w, at)
	assert_true(back != null and back.get("health") == 2, "kept through regenerate")
	var preset := _preset()
	preset.side_view_dirt_depth = 6
	w.preset = preset
	assert_true(await _settle(w), "another preset")
	back = _entity_near(w, at)
	assert_true(back != null and back.get("health") == 2, "kept through a preset change")


func test_add_remove_and_get_entities_in_give_exact_values() -> void:
	var w := _world(_preset())
	assert_true(await _settle(w), "loaded")
	var a := w.add_entity(_marker, Vector2(1000.5, -300.25))
	var b := w.add_entity(_marker, Vector2(1100.0, -300.0))
	assert_eq(a.position, Vector2(1000.5, -300.25), "where it was added")
	assert_true(a.get_parent() == w, "a child of the world")
	var found := w.get_entities_in(Rect2(990, -310, 50, 20))
	assert_eq(found.size(), 1, "one in the rectangle")
	assert_true(found[0] == a, "the first one")
	assert_eq(w.get_entities_in(Rect2(990, -310, 200, 20)).size(), 2, "both in a wider one")
	assert_true(w.remove_entity(a), "removed")
	assert_false(is_instance_valid(a), "and freed")
	assert_eq(
		w.get_entities_in(Rect2(990, -310, 200, 20)), [b] as Array[Node2D], "the other one stays"
	)
	var stranger := keep(Node2D.new()) as Node2D
	assert_false(w.remove_entity(stranger), "a node that is not an entity")
	assert_false(w.remove_entity(null), "null")
	var kept := int(w.get_stats()["entities_kept"])
	b.free()
	await wait_frames(2)
	assert_eq(w.get_entities_in(Rect2(990, -310, 200, 20)).size(), 0, "a freed entity is gone")
	assert_eq(int(w.get_stats()["entities_kept"]), kept, "and not kept")


func test_an_origin_shift_keeps_every_entity_where_it_is_in_the_world() -> void:
	var w := _world(_preset(), 0, true)
	assert_true(await _settle(w), "loaded")
	var before: Array[Vector2] = []
	for e in _entities(w):
		before.append(_world_tiles(w, e))
	before.sort()
	w.set_origin(Vector2i(N, 0))
	assert_eq(w.get_origin(), Vector2i(N, 0), "the origin moved")
	var after: Array[Vector2] = []
	for e in _entities(w):
		after.append(_world_tiles(w, e))
	after.sort()
	assert_eq(after.size(), before.size(), "every entity stays")
	for i in mini(before.size(), after.size()):
		assert_lt(
			before[i].distance_to(after[i]), 0.01, "within 1 cm: %s and %s" % [before[i], after[i]]
		)
	# Far out: an entity added at 1e9 tiles keeps its world position exactly through a save.
	var far := Vector2i(1_000_000_000, -200)
	w.set_origin(far)
	var viewer := _viewer(w)
	viewer.position = w.tile_to_local(far)
	var placed := w.add_entity(_marker, w.tile_to_local(far) + Vector2(0.25, 0.5))
	var expected := Vector2(0.5, 0.5) + Vector2(0.25, 0.5) / PX
	assert_lt(
		_tiles_from(w, placed, far).distance_to(expected), 0.001, "added exactly at 1e9 tiles"
	)
	var path := _dir.path_join("far.strata")
	assert_eq(w.save_world(path), OK, w.last_error())
	var loaded := _world(_preset(), 0, true)
	loaded.set_origin(far)
	_viewer(loaded).position = loaded.tile_to_local(far)
	assert_eq(loaded.load_world(path), OK, loaded.last_error())
	var back_far := func() -> bool:
		for e in _entities(loaded):
			if _tiles_from(loaded, e, far).distance_to(expected) < 0.001:
				return true
		return false
	assert_true(await wait_until(back_far, 60.0), "back at 1e9, within a thousandth of a tile")


func test_bad_input_is_refused_with_a_clear_error() -> void:
	var w := _world(_preset())
	assert_true(await _settle(w), "loaded")
	var count := _entities(w).size()
	assert_true(w.add_entity(null, Vector2.ZERO) == null, "a null scene")
	assert_true(w.last_error().contains("scene is null"), w.last_error())
	assert_true(w.add_entity(_marker, Vector2(NAN, 0)) == null, "a position that is not finite")
	assert_true(w.last_error().contains("not finite"), w.last_error())
	assert_true(w.add_entity(_marker, Vector2(0, INF)) == null, "an infinite position")
	var unsaved := PackedScene.new()
	var root := Node2D.new()
	unsaved.pack(root)
	root.free()
	assert_true(w.add_entity(unsaved, Vector2.ZERO) == null, "a scene without a file")
	assert_true(w.last_error().contains("no resource path"), w.last_error())
	var node3d := Node3D.new()
	var wrong := PackedScene.new()
	wrong.pack(node3d)
	node3d.free()
	assert_eq(ResourceSaver.save(wrong, _dir.path_join("wrong.tscn")), OK)
	assert_true(
		w.add_entity(load(_dir.path_join("wrong.tscn")), Vector2.ZERO) == null,
		"a root that is not a Node2D"
	)
	assert_true(w.last_error().contains("not a Node2D"), w.last_error())
	assert_eq(_entities(w).size(), count, "nothing was added")
	# A spawn rule naming biomes: side views have none; the world says which rule.
	var preset := _preset()
	var rules := preset.get_spawn_rules()
	rules[1].biomes = PackedStringArray(["desert"])
	preset.set_spawn_rules(rules)
	w.preset = preset
	await wait_frames(3)
	assert_true(w.last_error().contains("spawns.rules[1].biomes"), w.last_error())


func test_the_demo_creatures_spawn_walk_and_persist_with_the_chests() -> void:
	var scene: Node2D = load("res://demo2d/side_view.tscn").instantiate()
	add_child(scene)
	keep(scene)
	var world: StrataChunkWorld2D = scene.get_node("World")
	var kinds := func() -> Dictionary:
		var out := {}
		for e in world.get_entities_in(Rect2(-1e9, -1e9, 2e9, 2e9)):
			out[e.scene_file_path.get_file()] = out.get(e.scene_file_path.get_file(), []) + [e]
		return out
	var ready := func() -> bool:
		var k: Dictionary = kinds.call()
		return k.has("critter_2d.tscn") and k.has("cave_crawler_2d.tscn") and k.has("chest_2d.tscn")
	assert_true(
		await wait_until(ready, 90.0), "critters, cave crawlers and chests: %s" % world.get_stats()
	)
	var found: Dictionary = kinds.call()
	var origin_row := world.get_origin().y
	for c: Node2D in found["critter_2d.tscn"]:
		var x := c.position.x
		assert_lt(
			absf(c.position.y - world.get_surface_height(x)), 3.0 * PX, "a critter near the surface"
		)
	for c: Node2D in found["cave_crawler_2d.tscn"]:
		assert_gt(
			c.position.y - world.get_surface_height(c.position.x), 8.0 * PX, "a crawler deep down"
		)
	assert_eq(origin_row, world.get_origin().y)
	# They walk: a critter that stands on ground moves along it.
	var walker: Walker2D = found["critter_2d.tscn"][0]
	var from := walker.position
	await wait_until(func() -> bool: return absf(walker.position.x - from.x) > 4.0, 10.0)
	assert_gt(absf(walker.position.x - from.x), 4.0, "a critter walks")
	var chest: Chest2D = found["chest_2d.tscn"][0]
	var inside := chest.contents.duplicate()
	assert_gt(inside.size(), 0, "a chest holds blocks")
	# The character touches it: it opens into the inventory.
	var player: CharacterBody2D = scene.get_node("Player")
	player.position = chest.position + Vector2(0, -13)
	player.velocity = Vector2.ZERO
	assert_true(
		await wait_until(func() -> bool: return chest.opened, 5.0), "touched, the chest opens"
	)
	var inventory: Inventory2D = player.get("inventory")
	for block_name: String in inside:
		assert_eq(
			inventory.counts.get(block_name, 0),
			inside[block_name],
			"%s in the inventory" % block_name
		)
	assert_true(chest.contents.is_empty(), "and is empty")
	assert_eq(chest.open(), {} as Dictionary[String, int], "opening again hands over nothing")
	var chest_at := Vector2(world.get_origin()) + chest.position / PX
	walker.turns = 41
	var walker_at := Vector2(world.get_origin()) + walker.position / PX
	var path := scratch_dir().path_join("demo_life.strata")
	assert_eq(world.save_world(path), OK, world.last_error())
	assert_eq(world.load_world(path), OK, world.last_error())
	var near := func(p: Vector2, file: String) -> Node2D:
		for e in world.get_entities_in(Rect2(-1e9, -1e9, 2e9, 2e9)):
			var q := Vector2(world.get_origin()) + e.position / PX
			if e.scene_file_path.get_file() == file and q.distance_to(p) < 0.01:
				return e
		return null
	assert_true(
		await wait_until(func() -> bool: return near.call(chest_at, "chest_2d.tscn") != null, 60.0),
		"the chest is back"
	)
	var back: Chest2D = near.call(chest_at, "chest_2d.tscn")
	assert_true(back.opened and back.contents.is_empty(), "opened and empty after the load")
	# A critter walks on from where it was saved: found by its state, near that place.
	var turned := func() -> Walker2D:
		for e in world.get_entities_in(Rect2(-1e9, -1e9, 2e9, 2e9)):
			if e is Walker2D and (e as Walker2D).turns >= 41:
				return e
		return null
	assert_true(
		await wait_until(func() -> bool: return turned.call() != null, 10.0), "the critter is back"
	)
	var critter: Walker2D = turned.call()
	if critter != null:
		var at := Vector2(world.get_origin()) + critter.position / PX
		assert_lt(at.distance_to(walker_at), 1.0, "where it was saved, give or take a step")
