## Water flow after edits in StrataChunkWorld and StrataChunkWorld2D, in real headless Godot: a hole
## dug beside the sea fills to sea level and no higher, water falls when the ground under it goes,
## nothing hangs, and the settled water survives a save and a load.
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


## Water voxels in the box [a, b] with air right below them.
func _hanging(w: StrataChunkWorld, a: Vector3i, b: Vector3i) -> Array[Vector3i]:
	var water := default_block_id("water")
	var out: Array[Vector3i] = []
	for y in range(a.y, b.y + 1):
		for z in range(a.z, b.z + 1):
			for x in range(a.x, b.x + 1):
				var p := Vector3i(x, y, z)
				if w.get_voxel(p) == water and w.get_voxel(p + Vector3i.DOWN) == 0:
					out.append(p)
	return out


func _settle(w: Node) -> bool:
	return await wait_until(func() -> bool: return w.is_water_settled(), 60.0)


func test_a_hole_dug_beside_the_sea_fills_to_sea_level_and_keeps_it_after_a_save() -> void:
	var w := _make_world()
	var shore := find_sea_shore(w, SEA)
	if not assert_ne(shore.y, -1, "a shore near the origin"):
		return
	(w.get_node(w.viewer) as Node3D).position = Vector3(shore.x, SEA, shore.z)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var water := default_block_id("water")
	var a := Vector3i(shore.x + 1, SEA - 2, shore.z)
	var b := Vector3i(shore.x + 2, SEA, shore.z + 1)
	assert_gt(w.set_voxels_box(a, b, 0), 0, w.last_error())
	var t0 := Time.get_ticks_msec()
	assert_true(await _settle(w), "the flow never settled")
	print("  dig 2×3×2 beside the sea: settled in %d ms" % (Time.get_ticks_msec() - t0))
	var expected := {}
	for y in range(a.y, b.y + 1):
		for z in range(a.z, b.z + 1):
			for x in range(a.x, b.x + 1):
				var p := Vector3i(x, y, z)
				expected[p] = water if y < SEA else 0
				assert_eq(w.get_voxel(p), expected[p], "hole voxel %s (sea level %d)" % [p, SEA])
	assert_eq(_hanging(w, a - Vector3i(4, 12, 4), b + Vector3i(4, 2, 4)), [] as Array[Vector3i])
	assert_true(w.is_water_settled())
	# Saved and loaded into a fresh world, the settled water is there.
	var path := scratch_dir().path_join("water.strata")
	assert_eq(w.save_world(path), OK, w.last_error())
	var other := _make_world()
	assert_eq(other.load_world(path), OK, other.last_error())
	for p in expected:
		assert_eq(other.get_voxel(p), expected[p], "loaded voxel %s" % p)
	assert_true(await _settle(other), "a loaded world starts settled")


func test_water_falls_when_the_ground_under_the_sea_is_removed() -> void:
	var w := _make_world()
	var shore := find_sea_shore(w, SEA)
	if not assert_ne(shore.y, -1, "a shore near the origin"):
		return
	(w.get_node(w.viewer) as Node3D).position = Vector3(shore.x, SEA, shore.z)
	var water := default_block_id("water")
	var floor_y := int(w.get_height(shore.x, shore.z)) - 1
	assert_lt(floor_y, SEA - 1, "the sea stands over the column")
	# A shaft four voxels deep under the sea.
	w.set_voxels_box(
		Vector3i(shore.x, floor_y - 3, shore.z), Vector3i(shore.x, floor_y, shore.z), 0
	)
	assert_true(await _settle(w), "the flow never settled")
	for y in range(floor_y - 3, SEA):
		assert_eq(
			w.get_voxel(Vector3i(shore.x, y, shore.z)), water, "water at y = %d of the shaft" % y
		)
	# Below the shaft the water rests on something (it may have fallen into a cave).
	var y := floor_y - 3
	while w.get_voxel(Vector3i(shore.x, y - 1, shore.z)) == water:
		y -= 1
	assert_ne(w.get_voxel(Vector3i(shore.x, y - 1, shore.z)), 0, "the fall ends on ground")
	var c := Vector3i(shore.x, 0, shore.z)
	assert_eq(
		_hanging(w, c + Vector3i(-3, y - 1, -3), c + Vector3i(3, SEA, 3)), [] as Array[Vector3i]
	)


func test_a_lone_water_voxel_falls_when_its_support_goes_and_flow_can_be_turned_off() -> void:
	var w := _make_world(-1000)
	var water := default_block_id("water")
	var stone := default_block_id("stone")
	# No sea at all: the only water is what the test places.
	var x := 200
	var top := int(w.get_height(x, 200))
	var ledge := Vector3i(x, top + 4, 200)
	w.set_voxel(ledge, stone)
	w.set_voxel(ledge + Vector3i.UP, water)
	assert_true(await _settle(w))
	assert_eq(w.get_voxel(ledge + Vector3i.UP), water, "resting on the stone, it stays")
	w.set_voxel(ledge, 0)
	assert_true(await _settle(w))
	assert_eq(w.get_voxel(ledge + Vector3i.UP), 0, "it left its place")
	assert_eq(w.get_voxel(Vector3i(x, top, 200)), water, "it lies on the ground")
	assert_eq(w.get_voxel(Vector3i(x, top + 1, 200)), 0)
	# With flow off, water stays where the edits put it.
	w.water_flow_enabled = false
	await wait_frames(2)
	var p := Vector3i(x + 3, int(w.get_height(x + 3, 203)) + 6, 203)
	w.set_voxel(p, water)
	await wait_frames(10)
	assert_true(w.is_water_settled(), "no flow pending with flow off")
	assert_eq(w.get_voxel(p), water, "not moved with flow off")


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


func _hanging_2d(w: StrataChunkWorld2D, a: Vector2i, b: Vector2i) -> Array[Vector2i]:
	var water := default_block_id("water")
	var out: Array[Vector2i] = []
	for y in range(a.y, b.y + 1):
		for x in range(a.x, b.x + 1):
			if w.get_tile(Vector2i(x, y)) == water and w.get_tile(Vector2i(x, y + 1)) == 0:
				out.append(Vector2i(x, y))
	return out


func test_side_view_water_fills_a_hole_beside_a_pool_falls_and_survives_a_save() -> void:
	var w := _make_world_2d()
	var edge := _find_pool_edge(w)
	if not assert_ne(edge.y, -1000000, "a pool in the side view"):
		return
	(w.get_node(w.viewer) as Node2D).position = Vector2(edge.x * PX, edge.y * PX)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var water := default_block_id("water")
	# Dig beside the pool: the row above its surface, its surface row and the row below.
	for dy in [-1, 0, 1]:
		w.set_tile(Vector2i(edge.x + 1, edge.y + dy), 0)
	assert_true(await _settle(w), "the flow never settled")
	assert_eq(w.get_tile(Vector2i(edge.x + 1, edge.y - 1)), 0, "never above the pool's surface")
	assert_eq(w.get_tile(Vector2i(edge.x + 1, edge.y)), water, "the pool's level")
	assert_eq(w.get_tile(Vector2i(edge.x + 1, edge.y + 1)), water, "below the pool's level")
	# Remove the ground under the pool: the water falls and rests on something.
	var bottom := edge.y
	while w.get_tile(Vector2i(edge.x, bottom + 1)) == water:
		bottom += 1
	for dy in [1, 2, 3]:
		w.set_tile(Vector2i(edge.x, bottom + dy), 0)
	assert_true(await _settle(w), "the flow never settled")
	for dy in [1, 2, 3]:
		assert_eq(
			w.get_tile(Vector2i(edge.x, bottom + dy)), water, "fell into row %d" % (bottom + dy)
		)
	var a := Vector2i(edge.x - 12, edge.y - 2)
	var b := Vector2i(edge.x + 12, bottom + 40)
	assert_eq(_hanging_2d(w, a, b), [] as Array[Vector2i])
	# Saved and loaded into a fresh world, the water is where it settled.
	var path := scratch_dir().path_join("water2d.strata")
	assert_eq(w.save_world(path), OK, w.last_error())
	var other := _make_world_2d()
	assert_eq(other.load_world(path), OK, other.last_error())
	for y in range(a.y, b.y + 1):
		for x in range(a.x, b.x + 1):
			var t := Vector2i(x, y)
			if other.get_tile(t) != w.get_tile(t):
				fail("tile %s differs after loading" % t)
	assert_true(await _settle(other))
