## StrataChunkWorld2D's edit tools in real headless Godot: rectangle and circle edits change
## exactly the tiles predicted, undo and redo are exact (the water that flowed included), groups
## make one step, a step's changes round-trip through `apply_edit_changes`, bad arguments name
## the method, the value and what is allowed, edits survive a save and a load, a 64 × 64
## edit and its undo reach the `TileMapLayer`, a burst of such edits reaches it exactly over
## several frames; `edits_data` carries the edits through a scene.
extends StrataTestCase

## Pixels per tile (the created TileSet's).
const PX := 16

var _nodes: Array[Node] = []
var _signals: Array[Rect2i] = []


func after_each() -> void:
	for n in _nodes:
		if is_instance_valid(n):
			n.free()
	_nodes.clear()
	_signals.clear()


func _make_world(seed: int = 7, at: Vector2i = Vector2i.ZERO) -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	preset.side_view_water_enabled = true
	var viewer := Node2D.new()
	viewer.name = "EditsViewer%d" % _nodes.size()
	add_child(viewer)
	_nodes.append(viewer)
	var w := StrataChunkWorld2D.new()
	w.preset = preset
	w.view_distance = 1
	w.frame_budget_ms = 8.0
	w.worker_threads = 2
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	viewer.position = w.tile_to_local(at)
	w.voxels_changed.connect(func(r: Rect2i) -> void: _signals.append(r))
	_nodes.append(w)
	return w


## Every tile of the rectangle `a..=b` (inclusive), tile → block id.
func _tiles(w: StrataChunkWorld2D, a: Vector2i, b: Vector2i) -> Dictionary[Vector2i, int]:
	var out: Dictionary[Vector2i, int] = {}
	for y in range(a.y, b.y + 1):
		for x in range(a.x, b.x + 1):
			out[Vector2i(x, y)] = w.get_tile(Vector2i(x, y))
	return out


## The tiles whose block differs between two `_tiles` snapshots, as text (empty: equal).
func _diff(got: Dictionary[Vector2i, int], want: Dictionary[Vector2i, int]) -> String:
	var out: PackedStringArray = []
	for t in want:
		if got.get(t, -2) != want[t]:
			out.append("%s: %d, not %d" % [t, got.get(t, -2), want[t]])
			if out.size() >= 5:
				break
	return ", ".join(out)


func _settle(w: StrataChunkWorld2D) -> bool:
	return await wait_until(w.is_water_settled, 60.0)


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


func test_a_rect_and_a_circle_change_exactly_the_predicted_tiles() -> void:
	var w := _make_world()
	var stone := default_block_id("stone")
	var top := w.local_to_tile(Vector2(8, w.get_surface_height(8) + 1))
	# Across the surface: air above, ground and caves below.
	var a := top + Vector2i(-6, -5)
	var b := top + Vector2i(7, 9)
	var area_a := a - Vector2i(3, 3)
	var area_b := b + Vector2i(3, 3)
	var before := _tiles(w, area_a, area_b)
	var expected := 0
	var changed := Rect2i()
	for y in range(a.y, b.y + 1):
		for x in range(a.x, b.x + 1):
			if before[Vector2i(x, y)] != stone:
				expected += 1
				var one := Rect2i(Vector2i(x, y), Vector2i.ONE)
				changed = one if changed.size == Vector2i.ZERO else changed.merge(one)
	assert_gt(expected, 0, "the rectangle holds tiles that are not stone")
	# Corners in any order.
	assert_eq(w.set_tiles_rect(b, a, stone), expected, w.last_error())
	assert_eq(_signals, [changed] as Array[Rect2i], "one voxels_changed: the tiles that changed")
	var after := _tiles(w, area_a, area_b)
	for t in after:
		var inside := t.x >= a.x and t.x <= b.x and t.y >= a.y and t.y <= b.y
		var want: int = stone if inside else before[t]
		if after[t] != want:
			fail("rect: tile %s is %d, not %d" % [t, after[t], want])
			break
	assert_eq(w.set_tiles_rect(a, b, stone), 0, "filling it again changes nothing")
	# A circle of air, radius 4.5 around a tile inside the stone.
	var c := a + Vector2i(6, 7)
	var before_circle := _tiles(w, c - Vector2i(7, 7), c + Vector2i(7, 7))
	assert_eq(w.set_tiles_circle(c, 4.5, 0), 69, "69 tiles within 4.5: all stone now")
	for t in before_circle:
		var d := t - c
		var inside := d.x * d.x + d.y * d.y <= 4.5 * 4.5
		var want: int = 0 if inside else before_circle[t]
		if w.get_tile(t) != want:
			fail("circle: tile %s is %d, not %d" % [t, w.get_tile(t), want])
			break
	assert_eq(w.set_tiles_circle(c, 0.0, stone), 1, "radius 0 is the one tile")
	assert_eq(w.get_tile(c), stone)


func test_undo_and_redo_are_exact_with_the_water_that_flowed() -> void:
	var w := _make_world()
	var edge := _find_pool_edge(w)
	if not assert_ne(edge.y, -1000000, "a pool in the side view"):
		return
	(w.get_node(w.viewer) as Node2D).position = w.tile_to_local(edge)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var area_a := edge + Vector2i(-30, -8)
	var area_b := edge + Vector2i(30, 12)
	var generated := _tiles(w, area_a, area_b)
	# A hole beside the pool: the water flows into it.
	var hole_a := edge + Vector2i(1, -1)
	var hole_b := edge + Vector2i(4, 3)
	assert_gt(w.set_tiles_rect(hole_a, hole_b, 0), 0, w.last_error())
	assert_true(await _settle(w), "the flow never settled")
	var water := default_block_id("water")
	var wet := Vector2i(0, -1000000)
	for y in range(hole_a.y, hole_b.y + 1):
		for x in range(hole_a.x, hole_b.x + 1):
			if w.get_tile(Vector2i(x, y)) == water:
				wet = Vector2i(x, y)
	if not assert_ne(wet.y, -1000000, "water flowed into the hole"):
		return
	var dug := _tiles(w, area_a, area_b)
	var dug_edits := w.get_edits()
	assert_true(w.can_undo())
	_signals.clear()
	assert_true(w.undo(), w.last_error())
	assert_eq(_signals.size(), 1, "one voxels_changed for the undo")
	assert_true(await _settle(w))
	assert_eq(_diff(_tiles(w, area_a, area_b), generated), "", "undo: as generated, water included")
	assert_eq(w.get_edits().size(), 0, "no edit left")
	assert_false(w.can_undo())
	assert_true(w.can_redo())
	assert_true(w.redo(), w.last_error())
	assert_true(await _settle(w))
	assert_eq(_diff(_tiles(w, area_a, area_b), dug), "", "redo: the hole and its water")
	assert_eq(w.get_edits(), dug_edits, "the same edits as after the flow")
	# Undone before its flow came back: the late water is taken back too, and redo flows again.
	assert_true(w.undo())
	assert_true(await _settle(w))
	assert_gt(w.set_tiles_rect(hole_a, hole_b, 0), 0)
	assert_true(w.undo(), "undo while the flow is pending")
	assert_true(await _settle(w))
	await wait_frames(2)
	assert_eq(_diff(_tiles(w, area_a, area_b), generated), "", "early undo: as generated")
	assert_eq(w.get_edits().size(), 0, "nothing of the late flow stays")
	assert_true(w.redo())
	assert_true(await _settle(w))
	assert_eq(_diff(_tiles(w, area_a, area_b), dug), "", "the redo's flow fills it the same")
	# The layer shows it: the tiles of the hole are water cells once the area is ready.
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var layer := w.get_tile_map_layer()
	assert_eq(layer.get_cell_atlas_coords(wet).y, water, "drawn as water")


func test_groups_make_one_step_and_changes_round_trip_through_apply_edit_changes() -> void:
	var w := _make_world()
	var stone := default_block_id("stone")
	var dirt := default_block_id("dirt")
	var at := Vector2i(10, -200)
	var before := _tiles(w, at - Vector2i(5, 5), at + Vector2i(5, 5))
	w.begin_edit_group()
	w.begin_edit_group()
	w.set_tile(at, stone)
	assert_false(w.end_edit_group(), "the inner group makes no step")
	w.set_tiles_rect(at + Vector2i(1, 0), at + Vector2i(3, 0), stone)
	w.set_tiles_circle(at + Vector2i(0, 3), 1.0, dirt)
	w.set_tile(at, dirt)
	assert_false(w.can_undo(), "no undo inside a group")
	assert_false(w.undo())
	assert_true(w.last_error().contains("StrataChunkWorld2D.undo"), w.last_error())
	assert_true(w.end_edit_group(), "the outer group makes one step")
	var changes := w.get_undo_changes()
	# at (once: its first before, its last after), three in the rect, five in the circle.
	assert_eq(changes.size(), 4 * 9, "four ints per tile: %s" % changes)
	assert_eq(
		[changes[0], changes[1], changes[2], changes[3]], [at.x, at.y, -1, dirt], "first change"
	)
	var done := _tiles(w, at - Vector2i(5, 5), at + Vector2i(5, 5))
	assert_true(w.undo())
	assert_eq(_diff(_tiles(w, at - Vector2i(5, 5), at + Vector2i(5, 5)), before), "", "undone")
	assert_false(w.can_undo(), "the whole group was one step")
	# The step's changes through another undo system: forwards, then back.
	assert_true(w.apply_edit_changes(changes, false), w.last_error())
	assert_eq(_diff(_tiles(w, at - Vector2i(5, 5), at + Vector2i(5, 5)), done), "", "applied")
	assert_true(w.apply_edit_changes(changes, true), w.last_error())
	assert_eq(_diff(_tiles(w, at - Vector2i(5, 5), at + Vector2i(5, 5)), before), "", "reversed")
	assert_eq(w.get_edits().size(), 0, "reversed to no edit at all")
	# A new edit drops the redo steps.
	assert_true(w.undo())
	assert_true(w.can_redo())
	w.set_tile(at, stone)
	assert_false(w.can_redo(), "a new edit drops what could be redone")


func test_bad_arguments_name_the_method_the_value_and_what_is_allowed() -> void:
	var w := _make_world()
	var stone := default_block_id("stone")
	var last := w.get_block_name(0)
	var count := 0
	while w.get_block_name(count) != "":
		count += 1
	assert_ne(last, "", "the library has blocks")
	var cases := [
		[
			func() -> int: return w.set_tiles_rect(Vector2i.ZERO, Vector2i.ONE, 9999),
			["StrataChunkWorld2D.set_tiles_rect", "block id 9999", "allowed: 0..=%d" % (count - 1)],
		],
		[
			func() -> int: return w.set_tiles_circle(Vector2i.ZERO, 2.0, -1),
			["StrataChunkWorld2D.set_tiles_circle", "block id -1", "allowed: 0..="],
		],
		[
			func() -> int: return w.set_tiles_circle(Vector2i.ZERO, -2.5, stone),
			["set_tiles_circle", "radius -2.5", "allowed: a finite number in 0..=1024"],
		],
		[
			func() -> int: return w.set_tiles_circle(Vector2i.ZERO, NAN, stone),
			["set_tiles_circle", "radius NaN", "allowed"],
		],
		[
			func() -> int: return w.set_tiles_rect(Vector2i.ZERO, Vector2i(1000, 1000), stone),
			["set_tiles_rect", "rect has 1002001 voxels", "allowed: at most 1000000"],
		],
		[
			func() -> int:
				return w.set_tiles_rect(Vector2i(0, 2147483600), Vector2i(1, 2147483647), stone),
			["set_tiles_rect", "beyond the world's bounds", "allowed:"],
		],
		[
			func() -> int: return int(w.apply_edit_changes(PackedInt32Array([1, 2, 3]), false)),
			["StrataChunkWorld2D.apply_edit_changes", "3 ints", "[x, y, before, after]"],
		],
		[
			func() -> int:
				return int(w.apply_edit_changes(PackedInt32Array([1, 2, -1, 777]), false)),
			["apply_edit_changes", "block id 777 at tile (1, 2)", "allowed: -1 (no edit) or 0..="],
		],
		[
			func() -> int:
				return int(w.apply_edit_changes(PackedInt32Array([2147483647, 0, -1, 1]), true)),
			["apply_edit_changes", "tile (2147483647, 0) is beyond", "allowed: x and y in"],
		],
		[
			func() -> int: return int(w.end_edit_group()),
			["StrataChunkWorld2D.end_edit_group", "no edit group is open"],
		],
	]
	for c: Array in cases:
		var call: Callable = c[0]
		var result: int = call.call()
		assert_true(result <= 0, "refused: %s" % w.last_error())
		var message := w.last_error()
		for part: String in c[1]:
			assert_true(message.contains(part), '%s: `%s` in "%s"' % [c[1][0], part, message])
	assert_eq(w.get_edits().size(), 0, "nothing changed")
	assert_false(w.can_undo(), "nothing recorded")
	assert_eq(_signals.size(), 0, "nothing announced")


func test_edits_and_their_water_survive_save_and_load() -> void:
	var w := _make_world()
	var edge := _find_pool_edge(w)
	if not assert_ne(edge.y, -1000000, "a pool in the side view"):
		return
	(w.get_node(w.viewer) as Node2D).position = w.tile_to_local(edge)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	assert_gt(w.set_tiles_rect(edge + Vector2i(1, -1), edge + Vector2i(3, 2), 0), 0)
	assert_gt(w.set_tiles_circle(edge + Vector2i(-3, -12), 3.0, default_block_id("torch")), 0)
	assert_true(await _settle(w))
	var area_a := edge + Vector2i(-20, -20)
	var area_b := edge + Vector2i(20, 10)
	var saved := _tiles(w, area_a, area_b)
	var path := scratch_dir().path_join("edits_2d.strata")
	assert_eq(w.save_world(path), OK, w.last_error())
	var other := _make_world()
	assert_eq(other.load_world(path), OK, other.last_error())
	assert_true(await _settle(other))
	assert_eq(_diff(_tiles(other, area_a, area_b), saved), "", "loaded tiles")
	assert_eq(other.get_edits(), w.get_edits(), "the same edits")
	assert_false(other.can_undo(), "a load starts a new history")
	# The world saved keeps its history; undoing both steps leaves the generated tiles.
	assert_true(w.undo())
	assert_true(w.undo())
	assert_true(await _settle(w))
	assert_eq(w.get_edits().size(), 0)


func test_a_64_tile_square_edit_and_its_undo_reach_the_tile_map_layer() -> void:
	var w := _make_world(3)
	var top := w.local_to_tile(Vector2(8, w.get_surface_height(8) + 1))
	(w.get_node(w.viewer) as Node2D).position = w.tile_to_local(top + Vector2i(0, 20))
	w.water_flow_enabled = false
	assert_true(await wait_until(w.is_area_ready, 120.0), "area never became ready")
	# The smallest budget: the rows are spread over many frames, at least one a frame.
	w.frame_budget_ms = 0.05
	var layer := w.get_tile_map_layer()
	var a := top + Vector2i(-32, -10)
	var b := a + Vector2i(63, 63)
	var before := {}
	for y in range(a.y, b.y + 1):
		for x in range(a.x, b.x + 1):
			before[Vector2i(x, y)] = layer.get_cell_atlas_coords(Vector2i(x, y))
	var planks := default_block_id("planks")
	assert_gt(w.set_tiles_rect(a, b, planks), 3000, w.last_error())
	var frames := 0
	while not w.is_area_ready() and frames < 20000:
		await get_tree().process_frame
		frames += 1
	assert_true(w.is_area_ready(), "written within %d frames" % frames)
	for y in range(a.y, b.y + 1):
		for x in range(a.x, b.x + 1):
			if layer.get_cell_atlas_coords(Vector2i(x, y)).y != planks:
				fail("tile %s is not drawn as planks" % Vector2i(x, y))
				return
	assert_true(w.undo())
	frames = 0
	while not w.is_area_ready() and frames < 20000:
		await get_tree().process_frame
		frames += 1
	for t: Vector2i in before:
		if layer.get_cell_atlas_coords(t) != before[t]:
			fail("undone: tile %s is %s, not %s" % [t, layer.get_cell_atlas_coords(t), before[t]])
			return


func test_a_burst_of_64_tile_edits_reaches_the_layer_exactly_over_several_frames() -> void:
	var w := _make_world(5)
	var top := w.local_to_tile(Vector2(8, w.get_surface_height(8) + 1))
	(w.get_node(w.viewer) as Node2D).position = w.tile_to_local(top + Vector2i(0, 20))
	w.water_flow_enabled = false
	w.frame_budget_ms = 4.0
	assert_true(await wait_until(w.is_area_ready, 120.0), "area never became ready")
	var layer := w.get_tile_map_layer()
	var a := top + Vector2i(-40, -12)
	# In one frame: a fill of planks, a bomb of air across it, a fill of stone over both and the
	# undo of that fill: every cell of the union changes at least once, some back and forth.
	assert_gt(
		w.set_tiles_rect(a, a + Vector2i(63, 63), default_block_id("planks")), 3000, w.last_error()
	)
	assert_gt(w.set_tiles_rect(a + Vector2i(24, 16), a + Vector2i(87, 79), 0), 2000, w.last_error())
	assert_gt(
		w.set_tiles_rect(a + Vector2i(-20, 30), a + Vector2i(43, 93), default_block_id("stone")),
		1000
	)
	assert_true(w.undo(), "the stone fill is undone")
	var frames := 0
	var writing_frames := 0
	while not w.is_area_ready() and frames < 20000:
		await get_tree().process_frame
		frames += 1
		if float(w.get_stats()["layer_update_ms_last_frame"]) > 0.0:
			writing_frames += 1
	assert_true(w.is_area_ready(), "written within %d frames" % frames)
	assert_gt(writing_frames, 1, "the cells were written over several frames")
	# A world streamed from scratch with the same edits draws every cell the same.
	var fresh := _make_world(5)
	(fresh.get_node(fresh.viewer) as Node2D).position = w.tile_to_local(top + Vector2i(0, 20))
	fresh.water_flow_enabled = false
	fresh.set_edits(w.get_edits())
	assert_true(await wait_until(fresh.is_area_ready, 120.0), "the fresh world never became ready")
	var fresh_layer := fresh.get_tile_map_layer()
	var lo := a - Vector2i(24, 4)
	var hi := a + Vector2i(92, 98)
	var checked := 0
	for y in range(lo.y, hi.y + 1):
		for x in range(lo.x, hi.x + 1):
			var t := Vector2i(x, y)
			var got := [layer.get_cell_source_id(t), layer.get_cell_atlas_coords(t)]
			var want := [fresh_layer.get_cell_source_id(t), fresh_layer.get_cell_atlas_coords(t)]
			if got != want:
				fail("cell %s is %s, a fresh world draws %s" % [t, got, want])
				return
			checked += 1
			if w.get_tile(t) == 0:
				assert_eq(layer.get_cell_source_id(t), -1, "air at %s has no cell" % t)
			elif layer.get_cell_atlas_coords(t).y != w.get_tile(t):
				fail(
					(
						"cell %s is drawn as block %d, not %d"
						% [t, layer.get_cell_atlas_coords(t).y, w.get_tile(t)]
					)
				)
				return
	assert_eq(checked, (hi.x - lo.x + 1) * (hi.y - lo.y + 1))


func test_edits_data_carries_the_edits_through_a_packed_scene_and_refuses_bad_bytes() -> void:
	var w := _make_world(11)
	var planks := w.get_block_id("planks")
	assert_eq(w.set_tiles_rect(Vector2i(-3, -40), Vector2i(2, -38), planks), 18)
	w.set_tile(Vector2i(5, -41), 0)
	var want := _tiles(w, Vector2i(-4, -42), Vector2i(6, -37))
	var data := w.edits_data
	assert_gt(data.size(), 0, "edits_data holds the edits")
	# A scene saved with the world carries them (the storage property); its world has them
	# before it enters the tree and once it streams.
	var scene := PackedScene.new()
	var root := Node2D.new()
	var copy := StrataChunkWorld2D.new()
	copy.preset = w.preset
	root.add_child(copy)
	copy.owner = root
	copy.edits_data = data
	assert_eq(scene.pack(root), OK)
	root.free()
	var loaded := scene.instantiate() as Node2D
	var loaded_world := loaded.get_child(0) as StrataChunkWorld2D
	assert_eq(_diff(_tiles(loaded_world, Vector2i(-4, -42), Vector2i(6, -37)), want), "")
	add_child(loaded)
	_nodes.append(loaded)
	assert_eq(_diff(_tiles(loaded_world, Vector2i(-4, -42), Vector2i(6, -37)), want), "")
	assert_false(loaded_world.can_undo(), "loading edits_data starts a new history")
	# Bytes that are not a save change nothing, are kept as they are, and say why.
	var junk := PackedByteArray([1, 2, 3, 4, 5])
	loaded_world.edits_data = junk
	var error := loaded_world.last_error()
	assert_true(error.contains("StrataChunkWorld2D.edits_data"), error)
	assert_eq(_diff(_tiles(loaded_world, Vector2i(-4, -42), Vector2i(6, -37)), want), "")
	# Empty bytes clear the edits.
	loaded_world.edits_data = PackedByteArray()
	assert_eq(loaded_world.get_edits().size(), 0, "empty edits_data: no edits")
