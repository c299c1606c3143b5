## Water flow across saves and undo, in real headless Godot: a world saved while flows are still
## pending loads and settles to the water of the run that was never saved (3D and side view),
## and undo removes a dig together with the water that flowed into it (redo brings both back).
extends StrataTestCase

## The sea level of the 3D test world.
const SEA := 24
## Pixels per tile in the side view (the created TileSet's).
const PX := 16

var _nodes: Array[Node] = []


func after_each() -> void:
	for n in _nodes:
		if is_instance_valid(n):
			n.free()
	_nodes.clear()


func _make_world(sea_level: int = SEA) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = 1234
	preset.water_sea_level = sea_level
	var viewer := Node3D.new()
	viewer.name = "WaterViewer%d" % _nodes.size()
	add_child(viewer)
	_nodes.append(viewer)
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.frame_budget_ms = 8.0
	w.far_view_levels = 0
	w.adaptive_far_view = false
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	_nodes.append(w)
	return w


func _settle(w: Node) -> bool:
	return await wait_until(func() -> bool: return w.is_water_settled(), 60.0)


func _make_world_2d() -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = 7
	preset.side_view_water_enabled = true
	var viewer := Node2D.new()
	viewer.name = "WaterViewer2D%d" % _nodes.size()
	add_child(viewer)
	_nodes.append(viewer)
	var w := StrataChunkWorld2D.new()
	w.preset = preset
	w.view_distance = 1
	w.frame_budget_ms = 8.0
	w.worker_threads = 2
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	_nodes.append(w)
	return w


## A pool's surface tile (x, row) whose right neighbour is ground at that row and the next;
## (0, -1000000) when none is found.
func _find_pool_edge(w: StrataChunkWorld2D) -> Vector2i:
	var water := default_block_id("water")
	for x in range(-2000, 2000):
		var top := int(w.get_surface_height(x * PX + 1) / PX)
		if w.get_tile(Vector2i(x, top - 1)) != water:
			continue
		var s := top - 1
		while w.get_tile(Vector2i(x, s - 1)) == water:
			s -= 1
		var beside := w.get_tile(Vector2i(x + 1, s))
		var under := w.get_tile(Vector2i(x + 1, s + 1))
		if beside not in [0, water] and under not in [0, water]:
			return Vector2i(x, s)
	return Vector2i(0, -1000000)


## A shore's hole: the box dug beside the sea and the voxels it holds before the dig.
func _hole(w: StrataChunkWorld, shore: Vector3i) -> Dictionary:
	var a := Vector3i(shore.x + 1, SEA - 2, shore.z)
	var b := Vector3i(shore.x + 2, SEA, shore.z + 1)
	var before := {}
	for y in range(a.y, b.y + 1):
		for z in range(a.z, b.z + 1):
			for x in range(a.x, b.x + 1):
				before[Vector3i(x, y, z)] = w.get_voxel(Vector3i(x, y, z))
	return {"a": a, "b": b, "before": before}


func test_a_save_taken_while_water_flows_loads_and_settles_like_the_unsaved_world() -> void:
	var w := _make_world()
	var shore := find_sea_shore(w, SEA)
	if not assert_ne(shore.y, -1, "a shore near the origin"):
		return
	(w.get_node(w.viewer) as Node3D).position = Vector3(shore.x, SEA, shore.z)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var hole := _hole(w, shore)
	assert_gt(w.set_voxels_box(hole.a, hole.b, 0), 0, w.last_error())
	# Saved in the same frame: the dig's flow has not been applied yet.
	assert_false(w.is_water_settled(), "the flow is still pending")
	var path := scratch_dir().path_join("pending_water.strata")
	assert_eq(w.save_world(path), OK, w.last_error())
	assert_true(await _settle(w), "the flow never settled")
	var other := _make_world()
	assert_eq(other.load_world(path), OK, other.last_error())
	assert_false(other.is_water_settled(), "the loaded world runs the saved flow again")
	assert_true(await _settle(other), "the loaded flow never settled")
	var water := default_block_id("water")
	for p in hole.before:
		var want := water if p.y < SEA else 0
		assert_eq(w.get_voxel(p), want, "unsaved world voxel %s" % p)
		assert_eq(other.get_voxel(p), want, "loaded world voxel %s" % p)
	assert_eq(other.get_edit_count(), w.get_edit_count(), "the same edits")
	# Saved again once settled, nothing is pending any more.
	assert_eq(other.save_world(path), OK, other.last_error())
	var third := _make_world()
	assert_eq(third.load_world(path), OK, third.last_error())
	assert_true(third.is_water_settled(), "a settled save has no pending flow")


func test_side_view_save_taken_while_water_flows_loads_and_settles_the_same() -> void:
	var w := _make_world_2d()
	var edge := _find_pool_edge(w)
	if not assert_ne(edge.y, -1000000, "a pool in the side view"):
		return
	(w.get_node(w.viewer) as Node2D).position = Vector2(edge.x * PX, edge.y * PX)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	for dy in [-1, 0, 1]:
		w.set_tile(Vector2i(edge.x + 1, edge.y + dy), 0)
	assert_false(w.is_water_settled(), "the flow is still pending")
	var path := scratch_dir().path_join("pending_water2d.strata")
	assert_eq(w.save_world(path), OK, w.last_error())
	assert_true(await _settle(w), "the flow never settled")
	var other := _make_world_2d()
	assert_eq(other.load_world(path), OK, other.last_error())
	assert_true(await _settle(other), "the loaded flow never settled")
	var water := default_block_id("water")
	assert_eq(other.get_tile(Vector2i(edge.x + 1, edge.y)), water, "the pool's level after loading")
	assert_eq(other.get_tile(Vector2i(edge.x + 1, edge.y + 1)), water, "below it after loading")
	assert_eq(other.get_tile(Vector2i(edge.x + 1, edge.y - 1)), 0, "never above the surface")
	for y in range(edge.y - 3, edge.y + 6):
		for x in range(edge.x - 10, edge.x + 11):
			var t := Vector2i(x, y)
			if other.get_tile(t) != w.get_tile(t):
				fail("tile %s differs from the unsaved world" % t)


func test_undo_removes_a_dig_and_the_water_that_flowed_into_it_and_redo_brings_both_back() -> void:
	var w := _make_world()
	var shore := find_sea_shore(w, SEA)
	if not assert_ne(shore.y, -1, "a shore near the origin"):
		return
	(w.get_node(w.viewer) as Node3D).position = Vector3(shore.x, SEA, shore.z)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var water := default_block_id("water")
	var hole := _hole(w, shore)
	assert_gt(w.set_voxels_box(hole.a, hole.b, 0), 0, w.last_error())
	assert_true(await _settle(w), "the flow never settled")
	var flowed := {}
	for p in hole.before:
		flowed[p] = w.get_voxel(p)
	assert_eq(flowed[Vector3i(shore.x + 1, SEA - 1, shore.z)], water, "water filled the hole")
	var edits_after := w.get_edit_count()
	# Undo: the hole and its water are gone, the shore is as generated.
	assert_true(w.undo(), w.last_error())
	assert_true(await _settle(w))
	for p in hole.before:
		assert_eq(w.get_voxel(p), hole.before[p], "undone voxel %s" % p)
	assert_eq(w.get_edit_count(), 0, "no edit left: the lake as generated")
	# Redo: the hole and its water come back as they were.
	assert_true(w.redo(), w.last_error())
	assert_true(await _settle(w))
	for p in flowed:
		assert_eq(w.get_voxel(p), flowed[p], "redone voxel %s" % p)
	assert_eq(w.get_edit_count(), edits_after)
	# Undone before its flow came back: the late water is taken back too.
	assert_true(w.undo())
	assert_true(await _settle(w))
	assert_gt(w.set_voxels_box(hole.a, hole.b, 0), 0)
	assert_true(w.undo(), "undo while the flow is pending")
	assert_true(await _settle(w))
	await wait_frames(2)
	for p in hole.before:
		assert_eq(w.get_voxel(p), hole.before[p], "voxel %s after an early undo" % p)
	assert_eq(w.get_edit_count(), 0, "nothing of the late flow stays")
	# Its redo runs the flow again and the hole fills.
	assert_true(w.redo())
	assert_true(await _settle(w))
	assert_eq(
		w.get_voxel(Vector3i(shore.x + 1, SEA - 1, shore.z)), water, "the redo's flow fills it"
	)
