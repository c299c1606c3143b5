## Several viewers and preloaded areas on StrataChunkWorld and StrataChunkWorld2D, in real headless
## Godot.
extends StrataTestCase

## Columns within radius 2 (dx² + dz² ≤ 4): 13; times 3 vertical layers.
const VIEW_VD2 := 13 * 3
## A second viewer far enough that its area shares no chunk with the first's.
const FAR_X := 20 * 32 + 5
const FAR_Z := 3

var _nodes: Array[Node] = []


func after_each() -> void:
	for n in _nodes:
		if is_instance_valid(n):
			n.free()
	_nodes.clear()


func _make_world() -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = 4242
	var viewer := Node3D.new()
	add_child(viewer)
	_nodes.append(viewer)
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 2
	w.vertical_view_distance = 1
	w.frame_budget_ms = 8.0
	w.collision_distance = 1
	w.far_view_levels = 0
	w.adaptive_far_view = false
	add_child(w)
	_nodes.append(w)
	w.viewer = w.get_path_to(viewer)
	return w


## A Node3D standing on the ground at world (x, z).
func _make_viewer_on_ground(w: StrataChunkWorld, x: float, z: float) -> Node3D:
	var n := Node3D.new()
	add_child(n)
	_nodes.append(n)
	n.position = Vector3(x, w.get_height(x, z) + 1.0, z)
	return n


func _loaded_count(w: StrataChunkWorld) -> int:
	return int(w.get_stats()["loaded_chunks"])


func test_a_second_viewer_loads_its_own_area_with_collision_and_unloads_it_when_removed() -> void:
	var w := _make_world()
	assert_true(await wait_until(w.is_area_ready, 60.0), "first viewer's area never ready")
	assert_eq(_loaded_count(w), VIEW_VD2)
	var loaded: Array[Vector3i] = []
	var unloaded: Array[Vector3i] = []
	w.chunk_loaded.connect(func(c: Vector3i): loaded.append(c))
	w.chunk_unloaded.connect(func(c: Vector3i): unloaded.append(c))
	var second := _make_viewer_on_ground(w, FAR_X, FAR_Z)
	w.add_viewer(second, 2)
	assert_eq(w.get_viewer_count(), 2)
	await wait_frames(2)
	assert_true(await wait_until(w.is_area_ready, 60.0), "both areas never ready")
	assert_eq(_loaded_count(w), 2 * VIEW_VD2, "the union of two separate areas")
	var home := StrataChunkWorld.chunk_of(second.position)
	assert_true(loaded.has(home), "the second viewer's chunk loaded")
	assert_eq(loaded.size(), VIEW_VD2, "only the second area was new")
	# The ground under the second viewer has collision: a body stops a ray cast down onto it.
	var ground := StrataChunkWorld.chunk_of(second.position - Vector3(0, 2, 0))
	var body_name := "collision_%d_%d_%d" % [ground.x, ground.y, ground.z]
	assert_true(
		await wait_until(func() -> bool: return w.get_node_or_null(body_name) != null, 30.0),
		"collision under the second viewer (%s)" % body_name
	)
	# Moving the second viewer moves its area; removing it unloads exactly what only it needed.
	assert_true(w.remove_viewer(second))
	assert_false(w.remove_viewer(second), "removing twice")
	assert_eq(w.get_viewer_count(), 1)
	assert_true(
		await wait_until(func() -> bool: return _loaded_count(w) == VIEW_VD2, 30.0),
		"second area unloaded"
	)
	assert_eq(unloaded.size(), VIEW_VD2)
	assert_true(unloaded.has(home))
	assert_false(unloaded.has(Vector3i(0, 0, 0)), "the first viewer's chunks stay")


func test_a_freed_viewer_stops_being_one() -> void:
	var w := _make_world()
	var second := _make_viewer_on_ground(w, -FAR_X, 40.0)
	w.add_viewer(second, 1)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var both := _loaded_count(w)
	assert_gt(both, VIEW_VD2)
	second.free()
	assert_true(
		await wait_until(func() -> bool: return _loaded_count(w) == VIEW_VD2, 30.0),
		"the freed viewer's area unloaded (%d loaded)" % _loaded_count(w)
	)
	assert_eq(w.get_viewer_count(), 1)


func test_preload_area_loads_a_destination_and_announces_it_once() -> void:
	var w := _make_world()
	assert_true(await wait_until(w.is_area_ready, 60.0))
	assert_eq(w.get_preload_progress(), 0.0, "no preload yet")
	var announced: Array[Vector3] = []
	w.area_preloaded.connect(func(c: Vector3): announced.append(c))
	var dest := Vector3(-3000.0, 0.0, 900.0)
	dest.y = w.get_height(dest.x, dest.z) + 1.0
	w.preload_area(dest, 1)
	assert_true(
		await wait_until(func() -> bool: return announced.size() == 1, 60.0), "area_preloaded"
	)
	assert_eq(announced[0], dest)
	assert_eq(w.get_preload_progress(), 1.0)
	var home := StrataChunkWorld.chunk_of(dest)
	var ground := StrataChunkWorld.chunk_of(dest - Vector3(0, 2, 0))
	assert_true(
		await wait_until(
			func() -> bool:
				return (
					w.get_node_or_null("collision_%d_%d_%d" % [ground.x, ground.y, ground.z])
					!= null
				),
			30.0
		),
		"collision at the destination %s" % home
	)
	await wait_frames(3)
	assert_eq(announced.size(), 1, "announced once")
	# Teleport: the viewer moves there; the preload can go without unloading what it now sees.
	_viewer_of(w).position = dest
	await wait_frames(2)
	w.cancel_preload()
	await wait_frames(3)
	assert_eq(w.get_preload_progress(), 0.0)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	assert_eq(_loaded_count(w), VIEW_VD2, "only the viewer's area after the preload went")


func test_bad_viewer_arguments_are_refused_or_clamped() -> void:
	var w := _make_world()
	w.add_viewer(null, 2)
	assert_eq(w.get_viewer_count(), 1, "a null viewer is refused")
	assert_false(w.remove_viewer(null))
	var n := _make_viewer_on_ground(w, 100.0, 100.0)
	w.add_viewer(n, 1000)
	w.add_viewer(n, -7)
	assert_eq(w.get_viewer_count(), 2, "adding again changes the distance")
	w.preload_area(Vector3(NAN, INF, 0.0), -3)
	await wait_frames(3)
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams on after bad input")
	w.cancel_preload()
	w.cancel_preload()


func _viewer_of(w: StrataChunkWorld) -> Node3D:
	return w.get_node(w.viewer) as Node3D


func _make_world_2d() -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = 99
	var viewer := Node2D.new()
	add_child(viewer)
	_nodes.append(viewer)
	var w := StrataChunkWorld2D.new()
	w.preset = preset
	w.view_distance = 1
	w.frame_budget_ms = 8.0
	w.worker_threads = 2
	add_child(w)
	_nodes.append(w)
	w.viewer = w.get_path_to(viewer)
	return w


func test_side_view_worlds_stream_around_several_viewers_and_preload() -> void:
	var w := _make_world_2d()
	assert_true(await wait_until(w.is_area_ready, 60.0))
	assert_eq(int(w.get_stats()["loaded_chunks"]), 9)
	var second := Node2D.new()
	add_child(second)
	_nodes.append(second)
	# 64 tiles a chunk, 16 pixels a tile: 40 chunks east.
	second.position = Vector2(40 * 64 * 16, 0)
	w.add_viewer(second, 1)
	assert_eq(w.get_viewer_count(), 2)
	await wait_frames(2)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	assert_eq(int(w.get_stats()["loaded_chunks"]), 18, "two separate 3×3 squares")
	assert_true(w.remove_viewer(second))
	assert_true(
		await wait_until(func() -> bool: return int(w.get_stats()["loaded_chunks"]) == 9, 30.0)
	)
	var announced: Array[Vector2] = []
	w.area_preloaded.connect(func(c: Vector2): announced.append(c))
	w.preload_area(Vector2(-30 * 64 * 16, 5000), 0)
	assert_true(await wait_until(func() -> bool: return announced.size() == 1, 60.0))
	assert_eq(w.get_preload_progress(), 1.0)
	assert_eq(int(w.get_stats()["loaded_chunks"]), 10, "one preloaded chunk")
	w.cancel_preload()
	assert_true(
		await wait_until(func() -> bool: return int(w.get_stats()["loaded_chunks"]) == 9, 30.0)
	)
