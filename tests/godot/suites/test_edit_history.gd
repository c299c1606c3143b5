## StrataChunkWorld's edit tools in real headless Godot: the shape edits under their issue names,
## edit groups, undo and redo (voxels and edit counts restored exactly), the changes of a step as
## data, `edits_data`, `voxels_changed`; and StrataChunkWorld2D's raycast and `voxels_changed`.
extends StrataTestCase

var _nodes: Array[Node] = []


func _make_world(seed: int) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var viewer := Node3D.new()
	viewer.name = "EditViewer%d" % _nodes.size()
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


func after_each() -> void:
	for n in _nodes:
		if is_instance_valid(n):
			n.free()
	_nodes.clear()


## The block of every voxel of the box `a..b` (both included), in a fixed order.
func _voxels(w: StrataChunkWorld, a: Vector3i, b: Vector3i) -> PackedInt32Array:
	var out := PackedInt32Array()
	for x in range(a.x, b.x + 1):
		for y in range(a.y, b.y + 1):
			for z in range(a.z, b.z + 1):
				out.append(w.get_voxel(Vector3i(x, y, z)))
	return out


func test_set_voxels_box_and_sphere_are_the_fill_edits() -> void:
	var w := _make_world(41)
	var stone := default_block_id("stone")
	var h := int(w.get_height(3, 3))
	var a := Vector3i(1, h - 2, 1)
	var b := Vector3i(4, h + 1, 3)
	var other := _make_world(41)
	var expected := other.set_voxels_box(a, b, stone)
	assert_gt(expected, 0, other.last_error())
	assert_eq(w.set_voxels_box(b, a, stone), expected, w.last_error())
	assert_eq(
		_voxels(w, a - Vector3i.ONE, b + Vector3i.ONE),
		_voxels(other, a - Vector3i.ONE, b + Vector3i.ONE)
	)
	var c := Vector3i(10, h, 10)
	assert_eq(w.set_voxels_sphere(c, 2.0, 0), other.set_voxels_sphere(c, 2.0, 0))
	assert_eq(
		_voxels(w, c - Vector3i(3, 3, 3), c + Vector3i(3, 3, 3)),
		_voxels(other, c - Vector3i(3, 3, 3), c + Vector3i(3, 3, 3))
	)
	assert_eq(w.get_edit_count(), other.get_edit_count())
	assert_eq(w.set_voxels_box(Vector3i.ZERO, Vector3i(100, 100, 99), stone), -1)
	assert_true(w.last_error().contains("set_voxels_box"), w.last_error())
	assert_eq(w.set_voxels_sphere(Vector3i.ZERO, 1.0, 70000), -1)
	assert_true(
		w.last_error().contains("set_voxels_sphere") and w.last_error().contains("70000"),
		w.last_error()
	)


func test_undo_restores_the_voxels_and_edits_exactly_and_redo_reapplies() -> void:
	var w := _make_world(42)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var stone := default_block_id("stone")
	var h := int(w.get_height(5, 5))
	var lo := Vector3i(0, h - 6, 0)
	var hi := Vector3i(10, h + 6, 10)
	# An edit that exists before the history starts.
	w.set_voxel(Vector3i(5, h + 4, 5), default_block_id("dirt"))
	var start := _voxels(w, lo, hi)
	var start_edits := w.get_edit_count()
	assert_false(w.can_redo())
	# Over generated terrain (digging and building) and over the earlier edit.
	assert_gt(w.set_voxels_sphere(Vector3i(5, h, 5), 3.0, 0), 0, w.last_error())
	var after_dig := _voxels(w, lo, hi)
	var dig_edits := w.get_edit_count()
	assert_gt(
		w.set_voxels_box(Vector3i(3, h + 2, 3), Vector3i(7, h + 4, 7), stone), 0, w.last_error()
	)
	w.set_voxel(Vector3i(5, h + 5, 5), stone)
	var after_all := _voxels(w, lo, hi)
	var all_edits := w.get_edit_count()
	assert_true(w.can_undo())
	assert_true(w.undo(), "undo set_voxel")
	assert_true(w.undo(), "undo the box")
	assert_eq(_voxels(w, lo, hi), after_dig, "back to after the dig")
	assert_eq(w.get_edit_count(), dig_edits)
	var t0 := Time.get_ticks_usec()
	assert_true(w.undo(), "undo the dig")
	print("  undo of a radius-3 sphere: %d us" % (Time.get_ticks_usec() - t0))
	assert_eq(_voxels(w, lo, hi), start, "every voxel as before the edits")
	assert_eq(w.get_edit_count(), start_edits, "no edit entry left over generated terrain")
	assert_true(w.can_redo())
	assert_true(w.redo() and w.redo() and w.redo(), "redo all three")
	assert_false(w.redo(), "nothing left to redo")
	assert_eq(_voxels(w, lo, hi), after_all)
	assert_eq(w.get_edit_count(), all_edits)
	assert_false(w.is_area_ready(), "undo and redo remesh")
	assert_true(await wait_until(w.is_area_ready, 30.0), "the batches remesh")


func test_a_group_is_one_step_and_a_new_edit_drops_the_redo_branch() -> void:
	var w := _make_world(43)
	var h := int(w.get_height(0, 0))
	var lo := Vector3i(-4, h - 4, -4)
	var hi := Vector3i(4, h + 4, 4)
	var start := _voxels(w, lo, hi)
	var edits := w.get_edit_count()
	w.begin_edit_group()
	w.set_voxels_sphere(Vector3i(0, h, 0), 2.0, 0)
	w.begin_edit_group()
	w.set_voxel(Vector3i(0, h + 3, 0), default_block_id("stone"))
	assert_false(w.end_edit_group(), "the inner group closes without a step")
	w.set_voxels_box(Vector3i(-3, h + 1, -3), Vector3i(-1, h + 2, -1), default_block_id("dirt"))
	assert_false(w.can_undo(), "nothing to undo inside a group")
	assert_false(w.undo(), "undo refused inside a group")
	assert_true(w.last_error().contains("group"), w.last_error())
	assert_true(w.end_edit_group(), "the outer group becomes a step")
	var grouped := _voxels(w, lo, hi)
	assert_true(w.undo(), "one undo")
	assert_eq(_voxels(w, lo, hi), start, "the whole group undone at once")
	assert_eq(w.get_edit_count(), edits)
	assert_false(w.can_undo())
	assert_false(w.end_edit_group(), "no group open")
	assert_true(w.last_error().contains("begin_edit_group"), w.last_error())
	w.begin_edit_group()
	assert_false(w.end_edit_group(), "an empty group is no step")
	assert_true(w.can_redo(), "an empty group keeps the redo step")
	assert_true(w.redo())
	assert_eq(_voxels(w, lo, hi), grouped)
	assert_true(w.undo())
	# A new edit after undo drops what could be redone.
	w.set_voxel(Vector3i(2, h + 6, 2), default_block_id("stone"))
	assert_false(w.can_redo())
	assert_false(w.redo())
	assert_true(w.undo())
	assert_eq(_voxels(w, lo, hi), start)
	# clear_edits forgets the history.
	w.set_voxel(Vector3i(2, h + 6, 2), default_block_id("stone"))
	w.clear_edits()
	assert_false(w.can_undo() or w.can_redo(), "clear_edits clears the history")


func test_voxels_changed_carries_the_box_of_each_edit_undo_and_redo() -> void:
	var w := _make_world(44)
	var boxes: Array[AABB] = []
	w.voxels_changed.connect(func(box: AABB) -> void: boxes.append(box))
	var h := int(w.get_height(0, 0))
	var p := Vector3i(7, h + 3, -2)
	w.set_voxel(p, default_block_id("stone"))
	assert_eq(boxes, [AABB(Vector3(p), Vector3.ONE)] as Array[AABB], "one voxel: its unit box")
	boxes.clear()
	assert_gt(
		w.set_voxels_box(Vector3i(4, h + 2, 1), Vector3i(1, h + 5, 3), default_block_id("dirt")), 0
	)
	var box := AABB(Vector3(1, h + 2, 1), Vector3(4, 4, 3))
	assert_eq(boxes, [box] as Array[AABB], "one signal with the box's full extent")
	boxes.clear()
	assert_eq(
		w.set_voxels_box(Vector3i(4, h + 2, 1), Vector3i(1, h + 5, 3), default_block_id("dirt")), 0
	)
	assert_eq(boxes.size(), 0, "an edit that changes nothing says nothing")
	w.undo()
	w.redo()
	assert_eq(boxes, [box, box] as Array[AABB], "undo and redo: the same box")
	boxes.clear()
	# A sphere at the origin voxel's centre: radius 2 reaches two voxels each way.
	w.set_voxels_sphere(Vector3i(0, h + 10, 0), 2.0, default_block_id("stone"))
	assert_eq(boxes, [AABB(Vector3(-2, h + 8, -2), Vector3(5, 5, 5))] as Array[AABB])
	boxes.clear()
	w.clear_edits()
	assert_eq(boxes.size(), 1, "clear_edits: one signal")
	if boxes.size() == 1:
		assert_true(
			boxes[0].encloses(box) and boxes[0].has_point(Vector3(p) + Vector3(0.5, 0.5, 0.5)),
			"covering every edit"
		)


func test_changes_as_data_undo_and_redo_in_another_undo_system() -> void:
	var w := _make_world(45)
	var h := int(w.get_height(2, 2))
	var lo := Vector3i(0, h - 3, 0)
	var hi := Vector3i(4, h + 3, 4)
	var start := _voxels(w, lo, hi)
	var edits := w.get_edit_count()
	assert_eq(w.get_undo_changes(), PackedInt32Array(), "no step yet")
	var n := w.set_voxels_sphere(Vector3i(2, h, 2), 1.5, 0)
	var changes := w.get_undo_changes()
	assert_eq(changes.size(), 5 * n, "five ints per changed voxel")
	var after := _voxels(w, lo, hi)
	# Every voxel was generated terrain: no edit before (-1), air after.
	for i in range(0, changes.size(), 5):
		assert_eq(changes[i + 3], -1)
		assert_eq(changes[i + 4], 0)
	assert_true(w.apply_edit_changes(changes, true), w.last_error())
	assert_eq(_voxels(w, lo, hi), start, "reverse: as before")
	assert_eq(w.get_edit_count(), edits)
	assert_true(w.apply_edit_changes(changes, false), w.last_error())
	assert_eq(_voxels(w, lo, hi), after, "forward: as after")
	# Bad arrays change nothing.
	assert_false(w.apply_edit_changes(PackedInt32Array([1, 2, 3, 4]), false))
	assert_true(w.last_error().contains("apply_edit_changes"), w.last_error())
	assert_false(w.apply_edit_changes(PackedInt32Array([1, 2, 3, -1, 99999]), false))
	assert_true(w.last_error().contains("99999"), w.last_error())
	assert_eq(_voxels(w, lo, hi), after)


func test_edits_data_carries_the_edits_to_another_world() -> void:
	var w := _make_world(46)
	assert_eq(w.edits_data, PackedByteArray(), "no edits: nothing stored")
	var h := int(w.get_height(0, 0))
	w.set_voxels_box(Vector3i(0, h, 0), Vector3i(3, h + 2, 3), default_block_id("stone"))
	w.set_voxels_sphere(Vector3i(8, h - 2, 8), 2.0, 0)
	var data := w.edits_data
	assert_gt(data.size(), 0)
	var other := _make_world(46)
	var boxes: Array[AABB] = []
	other.voxels_changed.connect(func(box: AABB) -> void: boxes.append(box))
	other.set_voxel(Vector3i(-20, h, -20), default_block_id("dirt"))
	other.edits_data = data
	assert_eq(other.get_edit_count(), w.get_edit_count(), "the edits replaced")
	assert_false(other.can_undo(), "edits_data clears the history")
	assert_eq(boxes.size(), 2, "set_voxel, then the replaced edits")
	var lo := Vector3i(-1, h - 5, -1)
	var hi := Vector3i(11, h + 3, 11)
	assert_eq(_voxels(other, lo, hi), _voxels(w, lo, hi))
	assert_eq(
		other.get_voxel(Vector3i(-20, h, -20)), _make_world(46).get_voxel(Vector3i(-20, h, -20))
	)
	# Bytes that do not load are kept as they are, with the reason.
	var broken := PackedByteArray([1, 2, 3])
	other.edits_data = broken
	assert_true(other.last_error().contains("edits_data"), other.last_error())
	other.clear_edits()
	assert_eq(other.edits_data, broken, "kept for the next scene save")


func _make_world_2d(seed: int) -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var w := StrataChunkWorld2D.new()
	w.preset = preset
	w.view_distance = 1
	w.worker_threads = 1
	add_child(w)
	_nodes.append(w)
	return w


## The first solid tile on the ray by small steps (a reference for short rays that pass no
## corner exactly): the tile, or Vector2i(9999, 9999).
func _march(
	w: StrataChunkWorld2D, from: Vector2, dir: Vector2, max_px: float, px: float
) -> Vector2i:
	var d := dir.normalized()
	var s := 0.0
	while s <= max_px:
		var t := w.local_to_tile(from + d * s)
		if _solid_2d(w, w.get_tile(t)):
			return t
		s += px / 64.0
	return Vector2i(9999, 9999)


func _solid_2d(_w: StrataChunkWorld2D, id: int) -> bool:
	var name := default_block_name(id)
	return not name in ["air", "water", "torch", ""]


func test_2d_raycast_hits_the_surface_and_agrees_with_a_fine_march() -> void:
	var w := _make_world_2d(47)
	var px := w.tile_to_local(Vector2i(1, 0)).x - w.tile_to_local(Vector2i(0, 0)).x
	var x := 3.5 * px
	var top := w.get_surface_height(x)
	var from := Vector2(x, top - 10.25 * px)
	var hit := w.raycast(from, Vector2(0, 1), 50.0 * px)
	assert_eq(hit.get("hit"), true)
	assert_eq(hit.get("position"), w.local_to_tile(Vector2(x, top + 0.5)), "the top solid tile")
	assert_eq(hit.get("normal"), Vector2i(0, -1), "entered through its top edge")
	assert_near(hit.get("distance", -1.0), 10.25 * px, 1e-3, "distance in pixels")
	assert_near((hit["point"] as Vector2).y, top, 1e-3)
	assert_eq(hit.get("block"), w.get_tile(hit["position"]))
	assert_eq(w.raycast(from, Vector2(0, 1), 10.0 * px), {}, "too short")
	assert_eq(w.raycast(from, Vector2.ZERO, 10.0), {})
	assert_true(w.last_error().contains("direction"), w.last_error())
	# Slanted rays against a fine march through get_tile.
	var rng := RandomNumberGenerator.new()
	rng.seed = 7
	var checked := 0
	for i in 24:
		var o := Vector2(rng.randf_range(-20, 20) * px, top + rng.randf_range(-12, 4) * px)
		var d := Vector2(rng.randf_range(-1, 1), rng.randf_range(-0.2, 1))
		var r := w.raycast(o, d, 30.0 * px)
		var expected := _march(w, o, d, 30.0 * px, px)
		var got: Vector2i = r.get("position", Vector2i(9999, 9999))
		# The march may skip a corner the exact walk clips; it never sees a different first tile
		# further than a step away.
		if got == expected:
			checked += 1
		else:
			assert_lt(
				Vector2(got - expected).length(),
				1.5,
				"ray %d from %s along %s: %s vs %s" % [i, o, d, got, expected]
			)
	assert_gt(checked, 18, "most rays agree exactly with the march")


func test_2d_voxels_changed_names_the_tiles() -> void:
	var w := _make_world_2d(48)
	var rects: Array[Rect2i] = []
	w.voxels_changed.connect(func(r: Rect2i) -> void: rects.append(r))
	w.set_tile(Vector2i(3, -7), 1)
	assert_eq(rects, [Rect2i(3, -7, 1, 1)] as Array[Rect2i])
	w.set_tile(Vector2i(-2, 5), 1)
	rects.clear()
	w.clear_edits()
	assert_eq(rects, [Rect2i(-2, -7, 6, 13)] as Array[Rect2i], "clear_edits: the box of the edits")


func test_bad_values_for_the_edit_tools_are_refused_and_change_nothing() -> void:
	var w := _make_world(49)
	var edits := w.get_edit_count()
	var boxes: Array[AABB] = []
	w.voxels_changed.connect(func(box: AABB) -> void: boxes.append(box))
	for id in [-1, 65536, 9223372036854775807, -9223372036854775808]:
		assert_eq(w.set_voxels_box(Vector3i.ZERO, Vector3i.ONE, id), -1, "id %d" % id)
		assert_eq(w.set_voxels_sphere(Vector3i.ZERO, 1.0, id), -1, "id %d" % id)
	for r in [NAN, INF, -INF, -0.5, 1e30]:
		assert_eq(w.set_voxels_sphere(Vector3i.ZERO, r, 1), -1, "radius %s" % r)
	var far := Vector3i(2147483647, 0, 0)
	assert_eq(w.set_voxels_box(far, far - Vector3i(1, 0, 0), 1), -1, "beyond the world")
	assert_eq(w.set_voxels_sphere(Vector3i(-2147483648, 0, 0), 1.0, 1), -1, "beyond the world")
	for bad in [
		PackedInt32Array([0]),
		PackedInt32Array([0, 0, 0, -2, 1]),
		PackedInt32Array([2147483647, 0, 0, -1, 1]),
		PackedInt32Array([0, 0, 0, -1, 70000]),
	]:
		assert_false(w.apply_edit_changes(bad, false), "%s" % bad)
		assert_false(w.apply_edit_changes(bad, true), "%s reversed" % bad)
	assert_true(w.apply_edit_changes(PackedInt32Array(), false), "no changes is a valid list")
	for junk in [PackedByteArray([0]), PackedByteArray(), "STRATASV".to_utf8_buffer()]:
		w.edits_data = junk
	w.edits_data = PackedByteArray()
	for i in 5:
		assert_false(w.undo())
		assert_false(w.redo())
		assert_false(w.end_edit_group())
	assert_eq(w.get_edit_count(), edits, "nothing changed")
	assert_eq(boxes.size(), 0, "no voxels_changed for refused calls")
	# A group left open is harmless: edits still apply; it ends later.
	w.begin_edit_group()
	w.set_voxel(Vector3i(0, 300, 0), 1)
	assert_eq(w.get_voxel(Vector3i(0, 300, 0)), 1)
	assert_true(w.end_edit_group())
	assert_true(w.undo())
	assert_eq(w.get_edit_count(), edits)
