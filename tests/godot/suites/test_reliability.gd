## Nothing a user does loses their world: property ranges, the memory budget, a viewer beyond the
## world's bounds, tree operations, invalid presets, a replaced TileMapLayer, and the documented
## `area_ready` pattern, for StrataChunkWorld and StrataChunkWorld2D in real headless Godot.
extends StrataTestCase

var _nodes: Array[Node] = []


func after_each() -> void:
	for n in _nodes:
		if is_instance_valid(n):
			n.free()
	_nodes.clear()


func _make_world(seed: int, vd: int = 1) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var viewer := Node3D.new()
	add_child(viewer)
	_nodes.append(viewer)
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = vd
	w.vertical_view_distance = 1
	w.frame_budget_ms = 8.0
	w.far_view_levels = 0
	w.adaptive_far_view = false
	add_child(w)
	_nodes.append(w)
	w.viewer = w.get_path_to(viewer)
	return w


func _make_world_2d(seed: int, vd: int = 1) -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var viewer := Node2D.new()
	add_child(viewer)
	_nodes.append(viewer)
	var w := StrataChunkWorld2D.new()
	w.preset = preset
	w.view_distance = vd
	w.frame_budget_ms = 8.0
	w.worker_threads = 2
	add_child(w)
	_nodes.append(w)
	w.viewer = w.get_path_to(viewer)
	viewer.position = Vector2(8, w.get_surface_height(8.0))
	return w


func test_out_of_range_properties_are_clamped_and_the_world_still_streams() -> void:
	var w := _make_world(5)
	w.view_distance = 100000
	assert_eq(w.view_distance, 32, "view_distance 100,000")
	w.view_distance = 64
	assert_eq(w.view_distance, 32, "view_distance 64")
	w.view_distance = 0
	assert_eq(w.view_distance, 1, "view_distance 0")
	w.view_distance = -7
	assert_eq(w.view_distance, 1, "negative view_distance")
	w.vertical_view_distance = 1000
	assert_eq(w.vertical_view_distance, 16, "vertical_view_distance 1,000")
	w.vertical_view_distance = -1
	assert_eq(w.vertical_view_distance, 1, "negative vertical_view_distance")
	w.worker_threads = 256
	assert_true(w.worker_threads >= 2 and w.worker_threads <= 32, "worker_threads 256")
	w.worker_threads = -3
	assert_eq(w.worker_threads, 0, "negative worker_threads")
	w.frame_budget_ms = 8.0
	w.frame_budget_ms = NAN
	assert_eq(w.frame_budget_ms, 8.0, "NaN keeps the previous budget")
	w.frame_budget_ms = INF
	assert_eq(w.frame_budget_ms, 100.0, "+inf")
	w.frame_budget_ms = -INF
	assert_eq(w.frame_budget_ms, 0.05, "-inf")
	w.collision_distance = 99
	assert_eq(w.collision_distance, 8, "collision_distance")
	w.far_view_levels = 40
	assert_eq(w.far_view_levels, 6, "far_view_levels")
	w.far_view_levels = 0
	w.memory_budget_mb = 1
	assert_eq(w.memory_budget_mb, 64, "memory_budget_mb")
	# Through Object.set as the inspector and scene files do.
	w.set("view_distance", 5000)
	assert_eq(w.view_distance, 32, "set(view_distance)")
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.memory_budget_mb = 1024
	w.frame_budget_ms = NAN
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams after every bad value")
	assert_gt(w.get_stats()["loaded_chunks"], 0, "chunks loaded")


func test_out_of_range_2d_properties_are_clamped_and_the_world_still_streams() -> void:
	var w := _make_world_2d(6)
	w.view_distance = 100
	assert_eq(w.view_distance, 16, "view_distance 100")
	w.view_distance = -4
	assert_eq(w.view_distance, 0, "negative view_distance")
	w.worker_threads = 256
	assert_true(w.worker_threads <= 32, "worker_threads 256")
	w.frame_budget_ms = 6.0
	w.frame_budget_ms = NAN
	assert_eq(w.frame_budget_ms, 6.0, "NaN keeps the previous budget")
	w.frame_budget_ms = INF
	assert_eq(w.frame_budget_ms, 100.0, "+inf")
	w.tile_size = Vector2i(0, 100000)
	assert_eq(w.tile_size, Vector2i(4, 256), "tile_size")
	w.tile_source_id = -1
	assert_eq(w.tile_source_id, 0, "tile_source_id")
	w.view_distance = 1
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams after every bad value")
	assert_eq(w.get_stats()["loaded_chunks"], 9, "3×3 chunks")


func test_the_memory_budget_holds_the_view_distance_back() -> void:
	var w := _make_world(8, 12)
	w.memory_budget_mb = 64
	await wait_frames(2)
	var st := w.get_stats()
	assert_eq(st["memory_budget_mb"], 64)
	assert_lt(st["view_distance_effective"], 12, "64 MiB cannot hold view distance 12")
	assert_gt(st["view_distance_effective"], 0, "the nearest chunks stay")
	assert_true(await wait_until(w.is_area_ready, 60.0), "the budgeted view loads")
	st = w.get_stats()
	assert_true(st["memory_estimate_mb"] > 0.0, "an estimate")
	assert_true(
		st["memory_estimate_mb"] <= 64.0, "within the budget: %s" % st["memory_estimate_mb"]
	)
	assert_eq(w.view_distance, 12, "the view distance asked for is kept")
	w.memory_budget_mb = 4096
	await wait_frames(2)
	assert_eq(w.get_stats()["view_distance_effective"], 12, "a larger budget lets it grow back")


func test_a_viewer_beyond_the_bounds_is_clamped_and_streams() -> void:
	var w := _make_world(9)
	var viewer := w.get_node(w.viewer) as Node3D
	viewer.position = Vector3(1.0e12, 0.0, -1.0e12)
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams at the edge of the world")
	assert_gt(w.get_stats()["loaded_chunks"], 0)
	viewer.position = Vector3(16, 0, 16)
	await wait_frames(1)
	assert_true(await wait_until(w.is_area_ready, 60.0), "and back home")
	var w2 := _make_world_2d(9)
	var v2 := w2.get_node(w2.viewer) as Node2D
	v2.position = Vector2(-1.0e15, 1.0e15)
	assert_true(await wait_until(w2.is_area_ready, 60.0), "2D streams at the edge of the world")


## Checks the edit at `p` and the game state survived `what`.
func _assert_kept(w: Node, p: Vector3i, id: int, what: String) -> void:
	if w is StrataChunkWorld:
		assert_eq(w.get_voxel(p), id, "edit after " + what)
		assert_eq(w.get_edit_count(), 1, "edit count after " + what)
	else:
		assert_eq(w.get_tile(Vector2i(p.x, p.y)), id, "edit after " + what)
		assert_eq(w.get_edits().size(), 3, "edits after " + what)
	assert_eq(w.get_state("gold", ""), "42", "game state after " + what)


## Removing and re-adding, reparenting, regenerate, preset changes and a preset invalid for a
## frame keep the edits and the game state; `last_error()` clears when the preset builds again.
func _tree_operations_keep_everything(w: Node, p: Vector3i, id: int) -> void:
	var parent := w.get_parent()
	remove_child(w)
	await wait_frames(2)
	_assert_kept(w, p, id, "leaving the tree")
	add_child(w)
	assert_true(await wait_until(w.is_area_ready, 60.0), "ready after re-entering")
	_assert_kept(w, p, id, "re-entering the tree")
	var holder := Node.new()
	add_child(holder)
	_nodes.append(holder)
	w.reparent(holder)
	assert_true(await wait_until(w.is_area_ready, 60.0), "ready after reparenting")
	_assert_kept(w, p, id, "reparenting")
	w.reparent(parent)
	w.regenerate()
	assert_true(await wait_until(w.is_area_ready, 60.0), "ready after regenerate")
	_assert_kept(w, p, id, "regenerate")
	w.preset.seed = 77
	await wait_frames(2)
	assert_true(await wait_until(w.is_area_ready, 60.0), "ready after a preset change")
	_assert_kept(w, p, id, "a preset change")
	# A script setting fields one at a time: invalid (all height weights 0) for a frame.
	w.preset.height_perlin_weight = 0.0
	await wait_frames(2)
	assert_ne(w.last_error(), "", "an invalid preset is reported")
	_assert_kept(w, p, id, "an invalid preset")
	w.preset.height_open_simplex_weight = 1.0
	await wait_frames(2)
	assert_eq(w.last_error(), "", "last_error clears when the preset builds again")
	assert_true(await wait_until(w.is_area_ready, 60.0), "ready after the preset is valid again")
	_assert_kept(w, p, id, "the preset valid again")


func test_tree_operations_and_presets_keep_edits_and_state_3d() -> void:
	var w := _make_world(11)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var p := Vector3i(3, int(w.get_height(3.5, 3.5)), 3)
	w.set_voxel(p, default_block_id("stone"))
	w.set_state("gold", "42")
	await _tree_operations_keep_everything(w, p, default_block_id("stone"))


func test_tree_operations_and_presets_keep_edits_and_state_2d() -> void:
	var w := _make_world_2d(12)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var p := Vector3i(2, -300, 0)
	w.set_tile(Vector2i(p.x, p.y), default_block_id("stone"))
	w.set_state("gold", "42")
	await _tree_operations_keep_everything(w, p, default_block_id("stone"))


func test_clear_edits_removes_edits_only() -> void:
	var w := _make_world(13)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var p := Vector3i(1, 200, 1)
	w.set_voxel(p, default_block_id("stone"))
	w.set_state("gold", "42")
	w.clear_edits()
	assert_eq(w.get_edit_count(), 0, "3D edits cleared")
	assert_eq(w.get_voxel(p), 0, "the generated block again")
	assert_eq(w.get_state("gold", ""), "42", "game state stays")
	assert_true(await wait_until(w.is_area_ready, 60.0), "remeshed")
	var w2 := _make_world_2d(14)
	w2.set_tile(Vector2i(0, -300), default_block_id("stone"))
	w2.clear_edits()
	assert_eq(w2.get_edits().size(), 0, "2D edits cleared")
	assert_eq(w2.get_tile(Vector2i(0, -300)), 0, "the generated tile again")
	# Out of the tree (no streamer) too.
	remove_child(w2)
	w2.set_tile(Vector2i(0, -300), default_block_id("stone"))
	w2.clear_edits()
	assert_eq(w2.get_edits().size(), 0, "2D edits cleared out of the tree")
	add_child(w2)


func _layer_matches_world(w: StrataChunkWorld2D, layer: TileMapLayer) -> bool:
	if layer.get_used_cells().size() < 1000:
		return false
	for cell in layer.get_used_cells().slice(0, 200):
		if layer.get_cell_atlas_coords(cell).y != w.get_tile(cell):
			return false
	return true


func test_a_replaced_tile_map_layer_is_filled_again() -> void:
	var w := _make_world_2d(15)
	var layer := TileMapLayer.new()
	layer.name = "Ground"
	add_child(layer)
	_nodes.append(layer)
	w.tile_map = w.get_path_to(layer)
	assert_true(
		await wait_until(func(): return w.is_area_ready() and _layer_matches_world(w, layer), 60.0),
		"the set layer is filled"
	)
	var path := w.tile_map
	layer.free()
	await wait_frames(3)
	assert_true(
		w.last_error().contains("no TileMapLayer"), "a freed layer is reported: " + w.last_error()
	)
	var again := TileMapLayer.new()
	again.name = "Ground"
	add_child(again)
	_nodes.append(again)
	w.tile_map = path
	assert_true(
		await wait_until(func(): return w.is_area_ready() and _layer_matches_world(w, again), 60.0),
		"the replacement layer is filled"
	)
	assert_eq(w.last_error(), "", "the report clears once a layer is bound")
	# Its own layer, freed, is made again and filled.
	w.tile_map = NodePath("")
	await wait_frames(2)
	var own := w.get_tile_map_layer()
	assert_true(own != null and own.get_parent() == w, "its own layer")
	own.free()
	await wait_frames(2)
	var remade := w.get_tile_map_layer()
	assert_true(remade != null and is_instance_valid(remade), "made again")
	assert_true(
		await wait_until(
			func(): return w.is_area_ready() and _layer_matches_world(w, remade), 60.0
		),
		"its new layer is filled"
	)


## The README's pattern: `if not world.is_area_ready(): await world.area_ready`.
func _spawn_when_ready(w: StrataChunkWorld, done: Array) -> void:
	if not w.is_area_ready():
		await w.area_ready
	done[0] = true


func test_the_documented_area_ready_pattern_never_hangs() -> void:
	var w := _make_world(16)
	var done := [false]
	_spawn_when_ready(w, done)
	assert_true(
		await wait_until(func(): return done[0], 60.0), "not ready yet: waits, then goes on"
	)
	assert_true(w.is_area_ready())
	var again := [false]
	_spawn_when_ready(w, again)
	assert_true(again[0], "already ready: goes on at once")
	# Not ready again after a larger view: the signal comes again.
	w.view_distance = 2
	await wait_frames(1)
	var third := [false]
	_spawn_when_ready(w, third)
	assert_true(await wait_until(func(): return third[0], 60.0), "after a larger view")
