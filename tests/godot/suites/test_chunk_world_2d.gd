## StrataChunkWorld2D streaming into a TileMapLayer, queries, edits and teardown in real headless
## Godot.
extends StrataTestCase

## Tiles per chunk edge (the preset default) and pixels per tile (the created TileSet's).
const N := 64
const PX := 16


func _make_world(seed: int, vd: int = 1) -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var w := _side_view_world(preset, Vector2i.ZERO, vd)
	# Put the viewer at the surface of column 0 so the view holds sky, ground and caves.
	_viewer(w).position = Vector2(8, w.get_surface_height(8.0))
	return w


func _viewer(w: StrataChunkWorld2D) -> Node2D:
	return w.get_node(w.viewer) as Node2D


func test_streams_around_the_viewer_into_the_tile_map_layer() -> void:
	var w := _make_world(42)
	var loaded: Array[Vector2i] = []
	w.chunk_loaded.connect(func(c: Vector2i): loaded.append(c))
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var stats := w.get_stats()
	assert_eq(stats["loaded_chunks"], 9, "3×3 chunks")
	assert_eq(stats["pending_chunks"], 0)
	assert_eq(loaded.size(), 9, "chunk_loaded signals")
	for key in ["generated_total", "gen_ms_median", "apply_ms_last_frame", "tile_ms_median"]:
		assert_true(stats.has(key), key)
	var layer := w.get_tile_map_layer()
	assert_true(layer != null and layer.get_parent() == w, "a child TileMapLayer was created")
	assert_true(layer.tile_set != null, "with a generated TileSet")
	var used := layer.get_used_cells()
	assert_gt(used.size(), 3000, "the layer has cells")
	# Every cell agrees with get_tile: atlas row = block id, and air cells are empty.
	var vc: Vector2i = w.chunk_of_tile(w.local_to_tile(_viewer(w).position))
	var rng := RandomNumberGenerator.new()
	rng.seed = 5
	for i in 300:
		var t := Vector2i(
			vc.x * N - N + rng.randi_range(0, 3 * N - 1),
			vc.y * N - N + rng.randi_range(0, 3 * N - 1)
		)
		var id := w.get_tile(t)
		if id == 0:
			assert_eq(layer.get_cell_source_id(t), -1, "air at %s is empty" % t)
		else:
			assert_eq(layer.get_cell_atlas_coords(t).y, id, "atlas row of %s" % t)
	# The surface query matches the tiles: solid at the surface, not above it.
	for x in [-100.0, 8.0, 333.0]:
		var y := w.get_surface_height(x)
		var t := w.local_to_tile(Vector2(x, y + 1))
		assert_true(
			w.get_tile(t) != 0 and w.get_tile(t) != 5, "solid under the surface at x=%s" % x
		)
		assert_eq(
			w.get_tile(t + Vector2i(0, -1)) in [0, 5],
			true,
			"air or water above the surface at x=%s" % x
		)


func test_each_chunk_is_announced_once_when_edits_replace_its_first_write() -> void:
	var w := _make_world(11)
	# One layer block a frame: a chunk's first write takes many frames, and the edits below
	# bring newer results of the chunks that replace their pending writes.
	w.frame_budget_ms = 0.05
	var loaded: Array[Vector2i] = []
	var unloaded: Array[Vector2i] = []
	w.chunk_loaded.connect(func(c: Vector2i) -> void: loaded.append(c))
	w.chunk_unloaded.connect(func(c: Vector2i) -> void: unloaded.append(c))
	var vc: Vector2i = w.chunk_of_tile(w.local_to_tile(_viewer(w).position))
	# Once every chunk's first result came (while the layer still writes them), an edit in each
	# chunk every frame for ten frames.
	assert_true(
		await wait_until(func() -> bool: return w.get_stats()["loaded_chunks"] == 9, 60.0),
		"the first results never came"
	)
	assert_gt(w.get_stats()["queued_writes"], 0, "writes were still queued when the edits began")
	for frame in 10:
		for dx in range(-1, 2):
			for dy in range(-1, 2):
				var t := (vc + Vector2i(dx, dy)) * N + Vector2i(5 + frame % 7, 5)
				w.set_tile(t, 1 + frame % 2)
		await wait_frames(1)
	w.frame_budget_ms = 8.0
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	assert_eq(w.get_stats()["loaded_chunks"], 9, "3×3 chunks")
	assert_eq(loaded.size(), 9, "one chunk_loaded a chunk: %s" % [loaded])
	for dx in range(-1, 2):
		for dy in range(-1, 2):
			assert_true(
				loaded.has(vc + Vector2i(dx, dy)), "chunk %s announced" % (vc + Vector2i(dx, dy))
			)
	assert_eq(unloaded, [] as Array[Vector2i], "nothing unloaded")


func test_a_new_preset_unloads_every_chunk_and_loads_it_again() -> void:
	var w := _make_world(12)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var events: Array[String] = []
	w.chunk_loaded.connect(func(c: Vector2i) -> void: events.append("+%s" % c))
	w.chunk_unloaded.connect(func(c: Vector2i) -> void: events.append("-%s" % c))
	w.preset.seed = 13
	await wait_frames(2)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready again")
	var unloads := events.filter(func(e: String) -> bool: return e.begins_with("-"))
	var loads := events.filter(func(e: String) -> bool: return e.begins_with("+"))
	assert_eq(unloads.size(), 9, "every chunk unloaded: %s" % [events])
	assert_eq(loads.size(), 9, "every chunk loaded again: %s" % [events])
	var unloads_first := events.slice(0, 9).all(func(e: String) -> bool: return e.begins_with("-"))
	assert_true(unloads_first, "unloads first: %s" % [events])


func test_moving_the_viewer_unloads_behind() -> void:
	var w := _make_world(7)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var layer := w.get_tile_map_layer()
	var unloaded: Array[Vector2i] = []
	w.chunk_unloaded.connect(func(c: Vector2i): unloaded.append(c))
	var start: Vector2i = w.chunk_of_tile(w.local_to_tile(_viewer(w).position))
	_viewer(w).position += Vector2(10 * N * PX, 0)
	await wait_frames(1)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area at the new place never became ready")
	assert_true(unloaded.has(start), "the chunk behind was unloaded")
	assert_eq(w.get_stats()["loaded_chunks"], 9)
	var min_x := (start.x + 10 - 1) * N
	for c in layer.get_used_cells():
		if c.x < min_x:
			fail("cell %s left behind" % c)
			break


func test_set_tile_edits_show_in_queries_and_the_layer() -> void:
	var w := _make_world(3)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var layer := w.get_tile_map_layer()
	var top := w.local_to_tile(Vector2(40, w.get_surface_height(40)))
	var below := top + Vector2i(0, 1)
	# Dig the surface tile and place stone in the air above it.
	w.set_tile(top, 0)
	w.set_tile(top + Vector2i(0, -2), 1)
	assert_eq(w.get_tile(top), 0, "dug tile reads as air")
	assert_eq(w.get_tile(top + Vector2i(0, -2)), 1, "placed tile reads as stone")
	await wait_frames(1)
	assert_true(await wait_until(w.is_area_ready, 30.0))
	assert_eq(layer.get_cell_source_id(top), -1, "dug cell erased")
	assert_eq(
		layer.get_cell_atlas_coords(top + Vector2i(0, -2)),
		Vector2i(0, 1),
		"isolated stone: mask 0, row 1"
	)
	assert_eq(
		layer.get_cell_atlas_coords(below).x & 1, 0, "the tile under the hole shows its top edge"
	)
	var edits := w.get_edits()
	assert_eq(edits.size(), 6, "two edits as triples")
	var triples := {}
	for i in range(0, edits.size(), 3):
		triples[Vector2i(edits[i], edits[i + 1])] = edits[i + 2]
	assert_eq(triples, {top: 0, top + Vector2i(0, -2): 1}, "get_edits lists both edits")
	# Edits survive a regenerate and can be replaced.
	w.regenerate()
	assert_eq(w.get_tile(top), 0)
	w.set_edits(PackedInt32Array())
	assert_ne(w.get_tile(top), 0, "clearing the edits restores the generated tile")
	w.set_tile(Vector2i(0, 0), 999)
	assert_eq(w.get_stats()["edits"], 0, "an unknown id is refused")


func test_save_and_load_restore_the_tiles_and_state() -> void:
	var w := _make_world(12)
	var top := w.local_to_tile(Vector2(40, w.get_surface_height(40)))
	w.set_tile(top, 0)
	w.set_tile(top + Vector2i(3, -4), 1)
	w.set_state("coins", "17")
	var path := "user://test_world_2d_%d.strata" % Time.get_ticks_usec()
	assert_eq(w.save_world(path), OK, w.last_error())
	var other := _make_world(999)
	assert_eq(other.load_world(path), OK, other.last_error())
	assert_eq(other.preset.seed, 12)
	assert_eq(other.get_state("coins", ""), "17")
	assert_eq(other.get_edits(), w.get_edits())
	for x in range(-40, 40, 7):
		for y in range(top.y - 20, top.y + 20, 3):
			var t := Vector2i(x, y)
			if other.get_tile(t) != w.get_tile(t):
				fail("tile %s differs after load" % t)
	assert_true(await wait_until(other.is_area_ready, 60.0), "the loaded world streams")
	assert_eq(other.load_world("user://no_such_file.strata"), ERR_FILE_CANT_OPEN)
	assert_true(other.last_error().contains("no_such_file"), other.last_error())
	assert_eq(other.preset.seed, 12, "a failed load changes nothing")
	DirAccess.remove_absolute(ProjectSettings.globalize_path(path))


func test_freeing_mid_generation_leaks_nothing() -> void:
	await wait_frames(2)
	var before := Performance.get_monitor(Performance.OBJECT_NODE_COUNT)
	var orphans_before := Performance.get_monitor(Performance.OBJECT_ORPHAN_NODE_COUNT)
	for i in 3:
		var w := _make_world(100 + i, 4)
		await wait_frames(2)
		assert_false(w.is_area_ready(), "still generating")
		var v := _viewer(w)
		w.free()
		v.free()
	await wait_frames(2)
	assert_eq(
		Performance.get_monitor(Performance.OBJECT_NODE_COUNT),
		before,
		"node count back to where it was"
	)
	assert_eq(
		Performance.get_monitor(Performance.OBJECT_ORPHAN_NODE_COUNT),
		orphans_before,
		"no orphan nodes"
	)


func test_demo_character_lands_runs_and_jumps() -> void:
	var scene: Node2D = load("res://demo2d/side_view.tscn").instantiate()
	add_child(scene)
	var world: StrataChunkWorld2D = scene.get_node("World")
	var player: CharacterBody2D = scene.get_node("Player")
	assert_true(await wait_until(world.is_area_ready, 60.0), "demo world ready")
	assert_true(await wait_until(func(): return player.is_on_floor(), 10.0), "the character lands")
	var ground := world.get_surface_height(player.position.x)
	assert_near(player.position.y + 13.0, ground, 17.0, "standing on the surface")
	var x0 := player.position.x
	Input.action_press("side_move_right")
	await wait_frames(20)
	Input.action_release("side_move_right")
	assert_gt(player.position.x, x0 + 8.0, "runs right")
	await wait_until(func(): return player.is_on_floor(), 5.0)
	var y0 := player.position.y
	Input.action_press("side_jump")
	await wait_frames(8)
	Input.action_release("side_jump")
	assert_lt(player.position.y, y0 - 16.0, "jumps up")
	scene.free()
