## Abuse: every public method and property of StrataChunkWorld, StrataChunkWorld2D,
## StrataWorldPreset, StrataWorldPreview and StrataUserProfiles called with out-of-range, zero,
## negative, NaN/±inf, huge, empty, wrong-type and null/freed arguments, and tree operations (remove
## and re-add, reparent,
## free while loading, free the TileMapLayer of a StrataChunkWorld2D) (law: Nothing is lost).
##
## Each probe checks that the engine keeps running (the test goes on), that edits made before it
## are still there after it, and where the API returns an error that the message says what is
## wrong. A panic anywhere fails the whole suite: xtask scans the output for `[panic`.
## The last test prints `abuse probes: N`, the number of probes run.
extends StrataTestCase

const MARK := Vector3i(3, 70, 5)
const MARK_2D := Vector2i(5, -40)
## Values for int arguments and properties.
const INTS: Array[int] = [0, -1, -7, 1 << 31, -(1 << 31), 9223372036854775807, -9223372036854775807]
const HUGE_I := 2147483647
const HUGE_VEC: Array[Vector3i] = [
	Vector3i(2147483647, 2147483647, 2147483647),
	Vector3i(-2147483648, -2147483648, -2147483648),
	Vector3i(0, -2147483648, 0),
	Vector3i(2147483647, 0, -2147483648),
]

## Probes run so far in this Godot process (the runner makes a fresh node per test).
static var probes := 0


## Floats: zero, negative, huge, NaN and ±inf.
static func _floats() -> Array[float]:
	return [0.0, -1.0, -1e30, 1e30, NAN, INF, -INF, 1e-300]


## Counts one probe; `what` names it in failure messages.
func _probe(what: String) -> String:
	probes += 1
	return what


func _keep(n: Node) -> Node:
	return keep(n)


func _world(with_viewer: bool = true) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = 1919
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.adaptive_far_view = false
	w.collision_distance = 1
	w.worker_threads = 1
	_keep(w)
	add_child(w)
	if with_viewer:
		var v := Node3D.new()
		_keep(v)
		add_child(v)
		v.position = Vector3(MARK)
		w.viewer = w.get_path_to(v)
	w.set_voxel(MARK, 1)
	return w


func _world_2d() -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = 1919
	var w := StrataChunkWorld2D.new()
	w.preset = preset
	w.view_distance = 1
	w.worker_threads = 1
	_keep(w)
	add_child(w)
	var v := Node2D.new()
	_keep(v)
	add_child(v)
	w.viewer = w.get_path_to(v)
	w.set_tile(MARK_2D, 1)
	return w


## The edit made by `_world()` is still there.
func _mark_kept(w: StrataChunkWorld, what: String) -> void:
	if not assert_true(is_instance_valid(w), what + ": world gone"):
		return
	assert_eq(w.get_voxel(MARK), 1, what + ": the edit is still there")
	assert_true(w.get_edit_count() >= 1, what + ": edit count %d" % w.get_edit_count())


func _mark_kept_2d(w: StrataChunkWorld2D, what: String) -> void:
	if not assert_true(is_instance_valid(w), what + ": world gone"):
		return
	assert_eq(w.get_tile(MARK_2D), 1, what + ": the edit is still there")


## `err` is an error and the object's last_error() contains every one of `words`.
func _says(err: int, message: String, words: Array[String], what: String) -> void:
	assert_ne(err, OK, what + ": returns an error")
	for word in words:
		assert_true(message.contains(word), "%s: the error names `%s`: %s" % [what, word, message])


func test_chunk_world_properties() -> void:
	var w := _world()
	await wait_frames(2)
	# Documented ranges: view_distance 1..32, vertical 1..16, workers 0..32, budget 0.05..100,
	# collision 0..8, far levels 0..6, navigation 1..8. Out-of-range values are clamped (with a
	# warning).
	var ranges := {
		"view_distance": [1, 32],
		"vertical_view_distance": [1, 16],
		"worker_threads": [0, 32],
		"collision_distance": [0, 8],
		"far_view_levels": [0, 6],
		"navigation_distance": [1, 8],
	}
	for prop: String in ranges:
		var lo: int = ranges[prop][0]
		var hi: int = ranges[prop][1]
		for v in INTS:
			var what := _probe("StrataChunkWorld.%s = %d" % [prop, v])
			w.set(prop, v)
			await wait_frames(1)
			var got: int = w.get(prop)
			assert_true(
				got >= lo and got <= hi, "%s: clamped into %d..%d, got %d" % [what, lo, hi, got]
			)
			_mark_kept(w, what)
		w.set(prop, lo)
	for v in _floats():
		var what := _probe("StrataChunkWorld.frame_budget_ms = %s" % v)
		w.frame_budget_ms = v
		await wait_frames(1)
		assert_true(
			w.frame_budget_ms >= 0.05 and w.frame_budget_ms <= 100.0,
			"%s: clamped into 0.05..100, got %s" % [what, w.frame_budget_ms]
		)
		_mark_kept(w, what)
	w.frame_budget_ms = 4.0
	for prop in ["adaptive_far_view", "ambient_occlusion", "editor_preview"]:
		var what := _probe("StrataChunkWorld.%s toggled" % prop)
		w.set(prop, not w.get(prop))
		await wait_frames(1)
		w.set(prop, not w.get(prop))
		await wait_frames(1)
		_mark_kept(w, what)
	# Wrong types through set(): refused, nothing changes.
	var wrong: Array = ["abc", Vector3(1, 2, 3), [1, 2], {"a": 1}, null, Node.new()]
	for prop in ["view_distance", "frame_budget_ms", "preset", "viewer", "ambient_occlusion"]:
		for value: Variant in wrong:
			var what := _probe("StrataChunkWorld.set(%s, %s)" % [prop, type_string(typeof(value))])
			var before: Variant = w.get(prop)
			w.set(prop, value)
			await wait_frames(1)
			if prop != "preset" and prop != "viewer":
				assert_eq(w.get(prop), before, what + ": unchanged")
			w.set(prop, before)
			_mark_kept(w, what)
	for value: Variant in wrong:
		if value is Node:
			value.free()
	# A freed object where a preset, a viewer or a layer is expected.
	var freed := Node3D.new()
	freed.free()
	for prop in ["preset", "viewer", "view_distance"]:
		var what := _probe("StrataChunkWorld.set(%s, a freed object)" % prop)
		var before: Variant = w.get(prop)
		w.set(prop, freed)
		await wait_frames(1)
		w.set(prop, before)
		_mark_kept(w, what)
	# The viewer: empty, missing, not a Node3D, and freed.
	for path in [NodePath(""), NodePath("no/such/node"), NodePath(".."), NodePath("/root")]:
		var what := _probe("StrataChunkWorld.viewer = %s" % path)
		var before := w.viewer
		w.viewer = path
		await wait_frames(2)
		_mark_kept(w, what)
		w.viewer = before
	var what_v := _probe("StrataChunkWorld: viewer freed while streaming")
	var viewer := w.get_node(w.viewer)
	viewer.free()
	await wait_frames(3)
	_mark_kept(w, what_v)
	# No preset, then a preset back: the edits stay.
	var what_p := _probe("StrataChunkWorld.preset = null")
	var preset := w.preset
	w.preset = null
	await wait_frames(2)
	assert_eq(w.get_edit_count(), 1, what_p + ": edits kept without a preset")
	w.preset = preset
	await wait_frames(2)
	_mark_kept(w, what_p)
	# A preset whose fields are set out of range through set().
	var what_r := _probe("StrataChunkWorld with a preset given bad fields")
	for field in StrataWorldPreset.field_names():
		preset.set(field, NAN)
		preset.set(field, -1e30)
	await wait_frames(3)
	_mark_kept(w, what_r)


func test_chunk_world_methods() -> void:
	var w := _world()
	var stone := default_block_id("stone")
	for id in INTS + [256, 65535, 65536]:
		var what := _probe("StrataChunkWorld.set_voxel(id %d)" % id)
		w.set_voxel(Vector3i(0, 80, 0), id)
		if id < 0 or id > 65535:
			assert_ne(w.get_voxel(Vector3i(0, 80, 0)), id, what + ": refused")
		w.get_block_name(id)
		_mark_kept(w, what)
	for name in ["", "no such block", "x".repeat(100000), "stone" + char(1), "🧱"]:
		var what := _probe("StrataChunkWorld.get_block_id(%d chars)" % name.length())
		assert_eq(w.get_block_id(name), -1, what + ": unknown names give -1")
		w.set_state(name, name)
		assert_eq(w.get_state(name, "d"), name, what + ": state round trip")
		_mark_kept(w, what)
	var queries := ["is_area_ready", "get_progress", "get_stats", "get_edit_count", "last_error"]
	for m in queries:
		var what := _probe("StrataChunkWorld.%s()" % m)
		w.call(m)
		StrataChunkWorld.chunk_size()
		_mark_kept(w, what)
	# Viewers and preloads: any distance is clamped, freed and null nodes are refused, any
	# centre streams somewhere inside the world.
	var extra := _keep(Node3D.new()) as Node3D
	add_child(extra)
	for d in INTS:
		var what := _probe("StrataChunkWorld.add_viewer(node, %d)" % d)
		w.add_viewer(extra, d)
		assert_eq(w.get_viewer_count(), 2, what + ": one extra viewer")
		_mark_kept(w, what)
	for f in _floats():
		var what := _probe("StrataChunkWorld.preload_area(%s)" % f)
		w.preload_area(Vector3(f, f, -f), int(clampf(f, -1e9, 1e9)))
		w.get_preload_progress()
		_mark_kept(w, what)
	var what_v := _probe("StrataChunkWorld.add_viewer(null) / remove_viewer(freed)")
	w.add_viewer(null, 3)
	assert_true(w.remove_viewer(extra), what_v)
	extra.free()
	w.cancel_preload()
	w.cancel_preload()
	assert_eq(w.get_viewer_count(), 1, what_v)
	await wait_frames(2)
	_mark_kept(w, what_v)
	var what_g := _probe("StrataChunkWorld.regenerate() twice in a row")
	w.regenerate()
	w.regenerate()
	await wait_frames(2)
	_mark_kept(w, what_g)
	# Saves and loads with bad paths: clear errors, the world untouched.
	var bad_paths := [
		"",
		"/",
		scratch_dir(),
		scratch_dir().path_join("missing/dir/../x.strata"),
		"res://",
		"user://"
	]
	for path in bad_paths:
		var what := _probe("StrataChunkWorld.load_world(%s)" % path)
		var err := w.load_world(path)
		_says(err, w.last_error(), ["load_world"], what)
		_mark_kept(w, what)
	for path in ["", "/", scratch_dir(), "/proc/strata.strata"]:
		var what := _probe("StrataChunkWorld.save_world(%s)" % path)
		_says(w.save_world(path), w.last_error(), ["save_world"], what)
		_mark_kept(w, what)
	var garbage := scratch_dir().path_join("garbage.strata")
	for bytes in [
		PackedByteArray(), "STRATASV".to_utf8_buffer(), "STRATASV\u0001".to_utf8_buffer()
	]:
		var what := _probe("StrataChunkWorld.load_world(%d garbage bytes)" % bytes.size())
		var f := FileAccess.open(garbage, FileAccess.WRITE)
		f.store_buffer(bytes)
		f.close()
		_says(w.load_world(garbage), w.last_error(), ["garbage.strata"], what)
		_mark_kept(w, what)
	# A good save, truncated at every eighth byte: every prefix is refused with the file name.
	var good := scratch_dir().path_join("good.strata")
	assert_eq(w.save_world(good), OK)
	var full := FileAccess.get_file_as_bytes(good)
	for cut in range(0, full.size(), 8):
		var what := _probe(
			"StrataChunkWorld.load_world(save cut at %d of %d bytes)" % [cut, full.size()]
		)
		var f := FileAccess.open(garbage, FileAccess.WRITE)
		f.store_buffer(full.slice(0, cut))
		f.close()
		_says(w.load_world(garbage), w.last_error(), ["garbage.strata"], what)
		_mark_kept(w, what)
	var what_l := _probe("StrataChunkWorld.load_world(its own save)")
	assert_eq(w.load_world(good), OK, what_l)
	_mark_kept(w, what_l)
	# Wrong argument types through callv(): only where GDScript converts them.
	var what_c := _probe("StrataChunkWorld.callv(get_height, [int, bool])")
	w.callv("get_height", [3, true])
	_mark_kept(w, what_c)


func test_chunk_world_tree_operations() -> void:
	var w := _world()
	await wait_frames(2)
	var what := _probe("StrataChunkWorld removed and re-added")
	remove_child(w)
	await wait_frames(2)
	add_child(w)
	await wait_frames(2)
	_mark_kept(w, what)
	what = _probe("StrataChunkWorld reparented while streaming")
	var holder := Node3D.new()
	_keep(holder)
	add_child(holder)
	w.reparent(holder)
	await wait_frames(3)
	_mark_kept(w, what)
	what = _probe("StrataChunkWorld removed, edited outside the tree, re-added")
	holder.remove_child(w)
	w.set_voxel(MARK + Vector3i(1, 0, 0), 2)
	holder.add_child(w)
	await wait_frames(2)
	_mark_kept(w, what)
	assert_eq(w.get_voxel(MARK + Vector3i(1, 0, 0)), 2, what + ": the edit made outside the tree")
	what = _probe("StrataChunkWorld removed and re-added in one frame, ten times")
	for i in 10:
		holder.remove_child(w)
		holder.add_child(w)
	await wait_frames(2)
	_mark_kept(w, what)
	what = _probe("StrataChunkWorld freed while loading")
	var doomed := _world()
	doomed.view_distance = 6
	await wait_frames(1)
	doomed.free()
	await wait_frames(2)
	what = _probe("StrataChunkWorld queue_free()d while loading and its parent freed")
	var parent := Node3D.new()
	add_child(parent)
	var doomed2 := StrataChunkWorld.new()
	doomed2.preset = StrataWorldPreset.new()
	parent.add_child(doomed2)
	await wait_frames(1)
	doomed2.queue_free()
	parent.free()
	await wait_frames(2)
	what = _probe("StrataChunkWorld never added to the tree, edited, saved, freed")
	var loose := StrataChunkWorld.new()
	loose.preset = StrataWorldPreset.new()
	loose.set_voxel(MARK, 1)
	assert_eq(loose.get_voxel(MARK), 1, what)
	assert_eq(
		loose.save_world(scratch_dir().path_join("loose.strata")),
		OK,
		what + ": " + loose.last_error()
	)
	loose.free()
	await wait_frames(1)
	_mark_kept(w, what)


func test_chunk_world_2d() -> void:
	var w := _world_2d()
	await wait_frames(2)
	var ranges := {
		"view_distance": [0, 16],
		"worker_threads": [0, 64],
		"tile_source_id": [-1, HUGE_I],
		"memory_budget_mb": [64, 65536],
	}
	for prop: String in ranges:
		for v in INTS:
			var what := _probe("StrataChunkWorld2D.%s = %d" % [prop, v])
			w.set(prop, v)
			await wait_frames(1)
			var got: int = w.get(prop)
			if prop != "tile_source_id":
				assert_true(
					got >= ranges[prop][0] and got <= ranges[prop][1],
					"%s: clamped, got %d" % [what, got]
				)
			_mark_kept_2d(w, what)
		w.set(prop, {"tile_source_id": 0, "memory_budget_mb": 512}.get(prop, 1))
	# The memory budget holds a large view back, and lets it grow again.
	var what_m := _probe("StrataChunkWorld2D.memory_budget_mb = 64 with view_distance 16")
	w.view_distance = 16
	w.memory_budget_mb = 64
	await wait_frames(1)
	var st: Dictionary = w.get_stats()
	assert_eq(st["memory_budget_mb"], 64, what_m)
	assert_eq(st["view_distance_effective"], 6, what_m + ": 15² chunks of 64² tiles fit 64 MiB")
	assert_true(await wait_until(w.is_area_ready, 60.0), what_m + ": the smaller view loads")
	assert_lt(w.get_stats()["memory_estimate_mb"], 64.0, what_m + ": the estimate fits")
	w.memory_budget_mb = 512
	await wait_frames(1)
	assert_eq(w.get_stats()["view_distance_effective"], 16, what_m + ": grows back")
	w.view_distance = 1
	_mark_kept_2d(w, what_m)
	for v in _floats():
		var what := _probe("StrataChunkWorld2D.frame_budget_ms = %s" % v)
		w.frame_budget_ms = v
		await wait_frames(1)
		assert_true(
			w.frame_budget_ms >= 0.05 and w.frame_budget_ms <= 100.0,
			"%s: clamped into 0.05..100, got %s" % [what, w.frame_budget_ms]
		)
		_mark_kept_2d(w, what)
	w.frame_budget_ms = 4.0
	for size in [Vector2i(0, 0), Vector2i(-16, -16), Vector2i(HUGE_I, HUGE_I), Vector2i(1, 0)]:
		var what := _probe("StrataChunkWorld2D.tile_size = %s" % size)
		w.tile_size = size
		w.local_to_tile(Vector2(5, 5))
		w.tile_to_local(Vector2i(5, 5))
		await wait_frames(1)
		_mark_kept_2d(w, what)
	w.tile_size = Vector2i(16, 16)
	for v in [-1, 2, 47, HUGE_I, -HUGE_I]:
		var what := _probe("StrataChunkWorld2D.tile_layout = %d" % v)
		w.tile_layout = StrataChunkWorld2D.TILE_LAYOUT_BLOB47
		w.tile_layout = v
		await wait_frames(1)
		assert_eq(
			w.tile_layout,
			StrataChunkWorld2D.TILE_LAYOUT_BLOB47,
			what + ": refused, the layout stays"
		)
		assert_true(w.last_error().contains("tile_layout"), what + ": says why: " + w.last_error())
		_mark_kept_2d(w, what)
	w.tile_layout = StrataChunkWorld2D.TILE_LAYOUT_EDGES16
	for path in [NodePath("no/such"), NodePath(".."), NodePath("/root")]:
		var what := _probe("StrataChunkWorld2D.tile_map = %s" % path)
		w.tile_map = path
		await wait_frames(2)
		_mark_kept_2d(w, what)
	w.tile_map = NodePath("")
	await wait_frames(1)
	var freed := Node2D.new()
	freed.free()
	for prop in ["preset", "tile_map", "tile_size"]:
		var what := _probe("StrataChunkWorld2D.set(%s, a freed object)" % prop)
		var before: Variant = w.get(prop)
		w.set(prop, freed)
		await wait_frames(1)
		w.set(prop, before)
		_mark_kept_2d(w, what)
	for id in INTS + [256, 65536]:
		var what := _probe("StrataChunkWorld2D.set_tile(id %d)" % id)
		w.set_tile(Vector2i(0, -60), id)
		w.get_block_name(id)
		_mark_kept_2d(w, what)
	for args in [[0, 0], [0, -5], [HUGE_I, 10], [-HUGE_I - 1, 10], [0, 100000000]]:
		var what := _probe("StrataChunkWorld2D.get_generated_surface_rows(%s)" % [args])
		var rows: PackedInt32Array = w.callv("get_generated_surface_rows", args)
		assert_true(rows.size() <= 1 << 20, what + ": bounded, got %d" % rows.size())
		_mark_kept_2d(w, what)
	for edits in [PackedInt32Array([1]), PackedInt32Array([1, 2]), PackedInt32Array([0, 0, -5])]:
		var what := _probe("StrataChunkWorld2D.set_edits(%s)" % edits)
		w.set_edits(edits)
		_mark_kept_2d(w, what)
	var what_e := _probe("StrataChunkWorld2D.get_edits/set_edits round trip")
	w.set_edits(w.get_edits())
	_mark_kept_2d(w, what_e)
	for name in ["", "x".repeat(100000)]:
		var what := _probe("StrataChunkWorld2D.get_block_id/state(%d chars)" % name.length())
		assert_eq(w.get_block_id(name), -1, what)
		w.set_state(name, name)
		assert_eq(w.get_state(name, "d"), name, what)
	for m in ["is_area_ready", "get_stats", "get_tile_map_layer", "chunk_tiles", "last_error"]:
		var what := _probe("StrataChunkWorld2D.%s()" % m)
		w.call(m)
		_mark_kept_2d(w, what)
	for path in ["", "/", scratch_dir()]:
		var what := _probe("StrataChunkWorld2D.load_world/save_world(%s)" % path)
		_says(w.load_world(path), w.last_error(), ["load_world"], what)
		_says(w.save_world(path), w.last_error(), ["save_world"], what)
		_mark_kept_2d(w, what)
	var what_r := _probe("StrataChunkWorld2D.regenerate()")
	w.regenerate()
	await wait_frames(2)
	_mark_kept_2d(w, what_r)
	var what_p := _probe("StrataChunkWorld2D.preset = null and back")
	var preset := w.preset
	w.preset = null
	await wait_frames(2)
	w.preset = preset
	await wait_frames(2)
	_mark_kept_2d(w, what_p)


func test_chunk_world_2d_tree_operations() -> void:
	var w := _world_2d()
	assert_true(await wait_until(w.is_area_ready, 60.0), "area ready")
	var what := _probe("StrataChunkWorld2D: its TileMapLayer freed")
	var layer := w.get_tile_map_layer()
	layer.free()
	await wait_frames(3)
	_mark_kept_2d(w, what)
	var again := w.get_tile_map_layer()
	assert_true(again != null and is_instance_valid(again), what + ": a new layer is made")
	what = _probe("StrataChunkWorld2D: an external tile_map layer freed")
	var external := TileMapLayer.new()
	_keep(external)
	add_child(external)
	w.tile_map = w.get_path_to(external)
	await wait_frames(2)
	external.free()
	await wait_frames(3)
	_mark_kept_2d(w, what)
	w.tile_map = NodePath("")
	await wait_frames(1)
	what = _probe("StrataChunkWorld2D removed and re-added")
	remove_child(w)
	await wait_frames(2)
	add_child(w)
	await wait_frames(2)
	_mark_kept_2d(w, what)
	what = _probe("StrataChunkWorld2D reparented")
	var holder := Node2D.new()
	_keep(holder)
	add_child(holder)
	w.reparent(holder)
	await wait_frames(3)
	_mark_kept_2d(w, what)
	what = _probe("StrataChunkWorld2D: viewer freed")
	var v := w.get_node_or_null(w.viewer)
	if v != null:
		v.free()
	await wait_frames(2)
	_mark_kept_2d(w, what)
	what = _probe("StrataChunkWorld2D freed while loading")
	var doomed := _world_2d()
	doomed.view_distance = 4
	await wait_frames(1)
	doomed.free()
	await wait_frames(2)


## Coordinates at the ends of the int range and far floats. In their own tests: a panic inside a
## method called from GDScript stops the calling function, and the other tests still run.
func test_chunk_world_huge_coordinates() -> void:
	var w := _world()
	var stone := default_block_id("stone")
	for p in HUGE_VEC:
		var what := _probe("StrataChunkWorld.get_voxel/set_voxel(%s)" % p)
		w.get_voxel(p)
		w.set_voxel(p, stone)
		w.get_voxel(p)
		w.set_voxel(p, 0)
		_mark_kept(w, what)
		what = _probe("StrataChunkWorld.debug_build_chunk_mesh(%s)" % p)
		w.debug_build_chunk_mesh(p, true)
		w.debug_build_chunk_mesh(p, false)
		_mark_kept(w, what)
		what = _probe("StrataChunkWorld.chunk_of(%s)" % p)
		StrataChunkWorld.chunk_of(Vector3(p) * 1e20)


func test_chunk_world_far_floats() -> void:
	var w := _world()
	for f in _floats():
		var what := _probe("StrataChunkWorld.get_height/get_biome(%s)" % f)
		w.get_height(f, f)
		w.get_height(0.0, f)
		w.get_biome(f, -f)
		StrataChunkWorld.chunk_of(Vector3(f, f, f))
		_mark_kept(w, what)


func test_chunk_world_2d_huge_coordinates() -> void:
	var w := _world_2d()
	for p in [
		Vector2i(HUGE_I, HUGE_I), Vector2i(-HUGE_I - 1, -HUGE_I - 1), Vector2i(0, -HUGE_I - 1)
	]:
		var what := _probe("StrataChunkWorld2D.get_tile/set_tile/chunk_of_tile(%s)" % p)
		w.get_tile(p)
		w.set_tile(p, 1)
		w.set_tile(p, 0)
		w.chunk_of_tile(p)
		w.tile_to_local(p)
		_mark_kept_2d(w, what)
	for f in _floats():
		var what := _probe("StrataChunkWorld2D.get_surface_height/local_to_tile(%s)" % f)
		w.get_surface_height(f)
		w.local_to_tile(Vector2(f, -f))
		_mark_kept_2d(w, what)


func test_world_preset() -> void:
	var names := StrataWorldPreset.field_names()
	assert_gt(names.size(), 10, "field names")
	var values: Array = [0, -1, 1 << 40, -(1 << 40), "abc", "", true, Vector3(1, 2, 3), null, [1]]
	values.append_array(_floats())
	for field in names:
		var preset := StrataWorldPreset.new()
		var ron := preset.to_ron()
		for value: Variant in values:
			var what := _probe("StrataWorldPreset.%s = %s" % [field, var_to_str(value)])
			preset.clear_error()
			var before: Variant = preset.get(field)
			preset.set(field, value)
			var after: Variant = preset.get(field)
			if after != before:
				# An accepted value is in its field's range; together with the other fields it
				# may still break a rule across fields (all height weights 0): a preset may be
				# invalid for a while as a script sets fields one at a time, and then says why.
				var invalid := preset.validate()
				if invalid != "":
					assert_true(
						invalid.contains("allowed"),
						"%s: says what is allowed: %s" % [what, invalid]
					)
			else:
				var e := preset.last_error()
				if e != "":
					assert_true(e.contains(field), "%s: the error names the field: %s" % [what, e])
		var what_f := _probe("StrataWorldPreset.%s abused: saves only what loads" % field)
		if preset.validate() == "":
			var back := StrataWorldPreset.from_ron(preset.to_ron())
			assert_true(back != null, what_f + ": " + preset.to_ron().substr(0, 200))
		else:
			var path := "user://abuse_invalid_preset.ron"
			DirAccess.remove_absolute(ProjectSettings.globalize_path(path))
			assert_ne(preset.save_to_file(path), OK, what_f + ": an invalid preset is not saved")
			assert_false(FileAccess.file_exists(path), what_f + ": no file written")
		preset.parse_ron(ron)
	var p := StrataWorldPreset.new()
	for text in ["", "(", "x".repeat(1000000), "(seed: NaN)", "(seed: -1)", char(1), "(((((((((("]:
		var what := _probe("StrataWorldPreset.parse_ron/from_ron(%d chars)" % text.length())
		var ron := p.to_ron()
		var err := p.parse_ron(text)
		if err != OK:
			assert_ne(p.last_error(), "", what + ": says why")
			assert_eq(p.to_ron(), ron, what + ": a failed parse changes nothing")
		StrataWorldPreset.from_ron(text)
	for path in ["", "/", scratch_dir(), "res://no_such.tres", "user://no_such.ron", "/proc/x.ron"]:
		var what := _probe("StrataWorldPreset.load_file/save_to_file/load_from_file(%s)" % path)
		var err := p.load_file(path)
		assert_ne(err, OK, what)
		assert_ne(p.last_error(), "", what + ": says why")
		assert_eq(StrataWorldPreset.load_from_file(path), null, what)
		if not path.begins_with("res://") and not path.begins_with("user://"):
			_says(p.save_to_file(path), p.last_error(), [], what)
	for seed in INTS:
		var what := _probe("StrataWorldPreset.with_new_seed(%d)" % seed)
		var q := p.with_new_seed(seed)
		assert_true(q != null and q.fingerprint() != "", what)
		p.validate()
		p.fingerprint()


func test_user_profiles() -> void:
	var up := StrataUserProfiles.new()
	up.profiles_dir = scratch_dir().path_join("profiles")
	_keep(up)
	add_child(up)
	InputMap.add_action(&"abuse_jump")
	var key := InputEventKey.new()
	key.physical_keycode = KEY_J
	InputMap.action_add_event(&"abuse_jump", key)
	up.capture_defaults()
	# Before anyone signs in.
	for m in [
		"reset_all", "list_presets", "conflicts", "get_active_user", "list_users", "last_error"
	]:
		var what := _probe("StrataUserProfiles.%s() signed out" % m)
		up.call(m)
	var what_n := _probe("StrataUserProfiles.rebind() signed out")
	_says(up.rebind(&"abuse_jump", key), up.last_error(), ["set_active_user"], what_n)
	var what_s := _probe("StrataUserProfiles.set_setting() signed out")
	_says(up.set_setting("fov", 90), up.last_error(), ["set_active_user"], what_s)
	for name in ["", " ", ".", "..", "../x", "a/b", "x".repeat(10000), char(1), "ok\n"]:
		var what := _probe("StrataUserProfiles user name %s" % var_to_str(name.substr(0, 20)))
		_says(up.create_user(name), up.last_error(), ["allowed"], what)
		if name != "":
			_says(up.set_active_user(name), up.last_error(), [], what)
		_says(up.delete_user(name), up.last_error(), [], what)
	assert_eq(up.create_user("abuser"), OK)
	assert_eq(up.set_active_user("abuser"), OK)
	assert_eq(up.rebind(&"abuse_jump", key), OK)
	var jb := InputEventJoypadButton.new()
	jb.button_index = JOY_BUTTON_A
	var what_jb := _probe("StrataUserProfiles.rebind(joypad button)")
	assert_eq(up.rebind(&"abuse_jump", jb), OK, what_jb + ": " + up.last_error())
	up.conflicts()
	var jm := InputEventJoypadMotion.new()
	jm.axis = JOY_AXIS_LEFT_Y
	jm.axis_value = -1.0
	var what_jm := _probe("StrataUserProfiles.rebind(joypad motion)")
	assert_eq(up.rebind(&"abuse_jump", jm), OK, what_jm + ": " + up.last_error())
	up.conflicts()
	# Events with engine enum values gdext does not know, and classes rebinding cannot store.
	var odd: Array[InputEvent] = []
	var jb_odd := InputEventJoypadButton.new()
	jb_odd.set("button_index", 77)
	odd.append(jb_odd)
	var jm_odd := InputEventJoypadMotion.new()
	jm_odd.set("axis", 12)
	odd.append(jm_odd)
	var mb_odd := InputEventMouseButton.new()
	mb_odd.set("button_index", 55)
	odd.append(mb_odd)
	var key_odd := InputEventKey.new()
	key_odd.set("physical_keycode", 0x1234)
	odd.append(key_odd)
	odd.append(InputEventKey.new())
	odd.append(InputEventMouseMotion.new())
	odd.append(InputEventScreenTouch.new())
	odd.append(InputEventAction.new())
	odd.append(InputEventMIDI.new())
	odd.append(InputEventMagnifyGesture.new())
	for e in odd:
		var what := _probe("StrataUserProfiles.rebind(%s)" % e.get_class())
		var err := up.rebind(&"abuse_jump", e)
		if err != OK:
			_says(err, up.last_error(), ["rebind", "allowed"], what)
		# The same event bound to two actions: conflicts() must not panic on it.
		InputMap.action_add_event(&"abuse_jump", e)
		InputMap.action_add_event(&"ui_accept", e)
		up.conflicts()
		InputMap.action_erase_event(&"ui_accept", e)
		assert_eq(up.get_active_user(), "abuser", what)
	var freed := Node.new()
	freed.free()
	var what_freed := _probe("StrataUserProfiles.set(profiles_dir, a freed object)")
	up.set("profiles_dir", freed)
	assert_eq(up.profiles_dir, scratch_dir().path_join("profiles"), what_freed + ": unchanged")
	var what_null := _probe("StrataUserProfiles.rebind(null)")
	_says(up.rebind(&"abuse_jump", null), up.last_error(), ["null", "allowed"], what_null)
	for action in [&"", &"no_such_action", StringName("x".repeat(10000))]:
		var what := _probe(
			"StrataUserProfiles.rebind/reset_action(%d chars)" % String(action).length()
		)
		_says(up.rebind(action, key), up.last_error(), ["action"], what)
		up.reset_action(action)
	var settings: Array = [
		["view_distance", -1],
		["view_distance", 1 << 40],
		["fov", NAN],
		["fov", INF],
		["mouse_sensitivity", -INF],
		["invert_y", 3],
		["fullscreen", "yes"],
		["", 1],
		["x".repeat(10000), 1],
		["extra", Vector3.ONE],
		["extra", null],
		["extra", Node],
	]
	for s: Array in settings:
		var what := _probe("StrataUserProfiles.set_setting(%s)" % var_to_str(s).substr(0, 60))
		var err := up.set_setting(s[0], s[1])
		if err != OK:
			assert_ne(up.last_error(), "", what + ": says why")
		up.get_setting(s[0])
		assert_eq(up.get_active_user(), "abuser", what)
	for name in ["", "../x", "x".repeat(1000)]:
		var what := _probe("StrataUserProfiles presets named %d chars" % name.length())
		_says(up.save_preset(name, StrataWorldPreset.new()), up.last_error(), [], what)
		assert_eq(up.load_preset(name), null, what)
		_says(up.delete_preset(name), up.last_error(), [], what)
	var what_np := _probe("StrataUserProfiles.save_preset(null)")
	_says(up.save_preset("p", null), up.last_error(), ["null"], what_np)
	# Folders that cannot hold profiles (never `/` or `res://`: the suite runs as any user).
	for dir in ["", "   ", "/proc/strata"]:
		var what := _probe("StrataUserProfiles.profiles_dir = %s" % var_to_str(dir))
		up.profiles_dir = dir
		up.list_users()
		up.create_user("someone")
		if dir == "":
			assert_true(up.last_error().contains("profiles_dir"), what + ": " + up.last_error())
		up.set_active_user("abuser")
	up.profiles_dir = scratch_dir().path_join("profiles")
	assert_eq(up.set_active_user("abuser"), OK, "the user survives the abuse")
	var what_tree := _probe("StrataUserProfiles removed, re-added, reparented")
	remove_child(up)
	add_child(up)
	var holder := Node.new()
	_keep(holder)
	add_child(holder)
	up.reparent(holder)
	assert_eq(up.get_active_user(), "abuser", what_tree)
	up.set_active_user("")
	InputMap.erase_action(&"abuse_jump")


## A value of each Variant type that a method may take, for the arguments not under test.
static func _valid_arg(type: int) -> Variant:
	match type:
		TYPE_BOOL:
			return false
		TYPE_INT:
			return 0
		TYPE_FLOAT:
			return 0.0
		TYPE_STRING:
			return ""
		TYPE_STRING_NAME:
			return &""
		TYPE_NODE_PATH:
			return NodePath()
		TYPE_VECTOR2:
			return Vector2.ZERO
		TYPE_VECTOR2I:
			return Vector2i.ZERO
		TYPE_VECTOR3:
			return Vector3.ZERO
		TYPE_VECTOR3I:
			return Vector3i.ZERO
		TYPE_DICTIONARY:
			return {}
		TYPE_ARRAY:
			return []
	return null


## Values of other types than `type` (and an object of an unrelated class where an object is
## expected), for the argument under test. An int is no wrong value for a float or bool
## argument: Godot converts between bool, int and float in every call
## (`Variant::can_convert_strict`), as GDScript does for `var f: float = 7`.
static func _wrong_args(type: int, stranger: Object) -> Array:
	var out: Array = []
	for v: Variant in ["text", 7, Vector3(1, 2, 3), [1, 2], {"k": 1}, stranger]:
		var converted := typeof(v) == TYPE_INT and (type == TYPE_FLOAT or type == TYPE_BOOL)
		if typeof(v) != type and not converted:
			out.append(v)
	if type == TYPE_OBJECT:
		out.append(stranger)
	return out.slice(0, 4)


## Calls every method a Strata class registers (its own, not inherited ones) through callv()
## with one argument of a wrong type at a time, too few and too many arguments: each call is
## refused before the method runs, nothing panics, and the edits are still there.
func _call_with_wrong_types(obj: Object, check: Callable) -> void:
	var cls := obj.get_class()
	var stranger := RefCounted.new()
	for m: Dictionary in ClassDB.class_get_method_list(cls, true):
		var name: String = m["name"]
		if name.begins_with("_"):
			continue
		var args: Array = m["args"]
		var valid: Array = args.map(func(a: Dictionary) -> Variant: return _valid_arg(a["type"]))
		for i in args.size():
			for wrong: Variant in _wrong_args(args[i]["type"], stranger):
				if typeof(wrong) == args[i]["type"] and args[i]["type"] != TYPE_OBJECT:
					continue
				var call_args := valid.duplicate()
				call_args[i] = wrong
				var what := _probe(
					"%s.callv(%s, arg %d = %s)" % [cls, name, i, type_string(typeof(wrong))]
				)
				obj.callv(name, call_args)
				check.call(what)
		if args.size() > 0:
			var what_few := _probe("%s.callv(%s, too few arguments)" % [cls, name])
			obj.callv(name, valid.slice(0, args.size() - 1))
			check.call(what_few)
		var what_many := _probe("%s.callv(%s, too many arguments)" % [cls, name])
		obj.callv(name, valid + [stranger, 1])
		check.call(what_many)


func test_every_method_with_wrong_argument_types() -> void:
	var w := _world()
	_call_with_wrong_types(w, func(what: String) -> void: _mark_kept(w, what))
	var w2 := _world_2d()
	_call_with_wrong_types(w2, func(what: String) -> void: _mark_kept_2d(w2, what))
	var preset := StrataWorldPreset.new()
	preset.seed = 77
	var fingerprint := preset.fingerprint()
	_call_with_wrong_types(
		preset,
		func(what: String) -> void:
			assert_eq(preset.fingerprint(), fingerprint, what + ": preset unchanged")
	)
	var up := StrataUserProfiles.new()
	up.profiles_dir = scratch_dir().path_join("profiles_wrong_types")
	_keep(up)
	add_child(up)
	up.create_user("keeper")
	up.set_active_user("keeper")
	_call_with_wrong_types(
		up,
		func(what: String) -> void:
			assert_eq(up.get_active_user(), "keeper", what + ": still signed in")
	)
	var library := StrataBlockLibrary.create_default()
	_call_with_wrong_types(
		library,
		func(what: String) -> void:
			assert_eq(library.get_block_count(), 23, what + ": library unchanged")
	)
	var block := StrataBlockType.new()
	block.block_name = "lamp"
	_call_with_wrong_types(
		block, func(what: String) -> void: assert_eq(block.block_name, "lamp", what + ": unchanged")
	)
	var rule := StrataStructureRule.create("ruin", 64, 0.5)
	_call_with_wrong_types(
		rule, func(what: String) -> void: assert_eq(rule.structure, "ruin", what + ": unchanged")
	)
	var ca := StrataCellularAutomaton2D.new()
	ca.rule = "B36/S23"
	_call_with_wrong_types(
		ca, func(what: String) -> void: assert_eq(ca.rule, "B36/S23", what + ": rule unchanged")
	)
	await wait_frames(2)
	_mark_kept(w, "after the wrong-type calls, a frame later")
	_mark_kept_2d(w2, "after the wrong-type calls, a frame later")


func test_world_preview_and_strata_noise_types_and_the_editor_viewer() -> void:
	_call_with_wrong_types(
		StrataWorldPreview.new(), func(what: String) -> void: assert_true(true, what)
	)
	var w := _world()
	for v: Vector3 in [Vector3(NAN, 0, 0), Vector3(INF, 1, 1), Vector3(1e30, -1e30, 0)]:
		var what := _probe("StrataChunkWorld.set_editor_viewer(%s)" % v)
		w.set_editor_viewer(v)
		_mark_kept(w, what)
	await wait_frames(2)
	var keep_noise := StrataNoise.new()
	keep_noise.seed = 99
	_call_with_wrong_types(
		keep_noise,
		func(what: String) -> void:
			assert_eq(keep_noise.seed, 99, what + ": seed unchanged")
			assert_true(is_finite(keep_noise.get_noise_2d(4.0, 5.0)), what + ": still a noise")
	)


## Runs last (tests run in source order): prints how many probes ran.
func test_zz_probe_count() -> void:
	print("abuse probes: %d" % probes)
	assert_gt(probes, 300, "probes run")
