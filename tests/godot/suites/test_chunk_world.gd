## StrataChunkWorld streaming, queries, edits and teardown in real headless Godot.
extends StrataTestCase

## Columns within radius 2 (dx² + dz² ≤ 4): 13; times 3 vertical layers.
const EXPECTED_VD2 := 13 * 3
## The surfaces a chunk mesh may have, in order; empty ones are left out.
const SURFACE_NAMES := ["opaque", "cutout", "transparent", "liquid"]

var _worlds: Array[StrataChunkWorld] = []


## Worlds here have no far view unless a test asks (the near field's own layout is a disc).
func _make_world(seed: int, vd: int = 2, far_levels: int = 0) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var viewer := Node3D.new()
	viewer.name = "Viewer%d" % _worlds.size()
	add_child(viewer)
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = vd
	w.vertical_view_distance = 1
	w.frame_budget_ms = 8.0
	w.collision_distance = 2
	w.far_view_levels = far_levels
	w.adaptive_far_view = false
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	_worlds.append(w)
	return w


func _viewer(w: StrataChunkWorld) -> Node3D:
	return w.get_node(w.viewer) as Node3D


func after_each() -> void:
	for w in _worlds:
		if is_instance_valid(w):
			w.free()
	_worlds.clear()


func test_view_fills_around_viewer() -> void:
	var w := _make_world(42)
	var ready_count := [0]
	w.area_ready.connect(func(): ready_count[0] += 1)
	var loaded: Array[Vector3i] = []
	w.chunk_loaded.connect(func(c: Vector3i): loaded.append(c))
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	await wait_frames(2)
	var stats := w.get_stats()
	assert_eq(stats["loaded_chunks"], EXPECTED_VD2, "loaded chunks")
	assert_eq(stats["pending_chunks"], 0, "pending chunks")
	assert_eq(loaded.size(), EXPECTED_VD2, "chunk_loaded signals")
	assert_eq(ready_count[0], 1, "area_ready emitted once")
	assert_true(
		(
			loaded.has(Vector3i(0, 0, 0))
			and loaded.has(Vector3i(2, 1, 0))
			and loaded.has(Vector3i(0, -1, -2))
		)
	)
	assert_false(loaded.has(Vector3i(2, 0, 1)), "outside the radius")
	var meshes := 0
	for child in w.get_children(true):
		if child is MeshInstance3D:
			meshes += 1
	assert_gt(meshes, 0, "some chunks have meshes")
	assert_eq(stats["nodes"], meshes)
	for key in ["generated_total", "gen_ms_median", "mesh_ms_median", "apply_ms_last_frame"]:
		assert_true(stats.has(key), key)


func test_moving_viewer_loads_ahead_and_unloads_behind() -> void:
	var w := _make_world(7)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var loaded: Array[Vector3i] = []
	var unloaded: Array[Vector3i] = []
	w.chunk_loaded.connect(func(c: Vector3i): loaded.append(c))
	w.chunk_unloaded.connect(func(c: Vector3i): unloaded.append(c))
	_viewer(w).position = Vector3(10 * 32 + 16, 0, 16)
	assert_false(w.is_area_ready(), "not ready in the frame of a 10-chunk move")
	await wait_frames(1)  # the world sees the move in its next process()
	assert_false(w.is_area_ready(), "not ready right after a 10-chunk move")
	assert_true(await wait_until(w.is_area_ready, 60.0), "area at the new place never became ready")
	assert_true(loaded.has(Vector3i(12, 0, 0)), "chunk ahead loaded")
	assert_true(loaded.has(Vector3i(10, -1, 2)), "chunk ahead loaded (corner)")
	assert_true(unloaded.has(Vector3i(0, 0, 0)), "chunk behind unloaded")
	assert_eq(w.get_stats()["loaded_chunks"], EXPECTED_VD2)
	# Unloaded chunks leave the view at once; their nodes are freed over the next frames.
	for child in w.get_children(true):
		if child is MeshInstance3D and child.visible:
			assert_gt(
				child.position.x, 3 * 32.0 - 1.0, "no mesh shown behind at " + str(child.position)
			)
	var meshes := await _mesh_children_once_freed(w)
	var st := w.get_stats()
	for child in meshes:
		assert_gt(child.position.x, 3 * 32.0 - 1.0, "no mesh left behind at " + str(child.position))
	assert_eq(
		meshes.size(),
		st["nodes"] + st["far_nodes"],
		"every mesh node belongs to a loaded chunk or far column"
	)


## The world's MeshInstance3D children once every unloaded node has been freed.
func _mesh_children_once_freed(w: StrataChunkWorld) -> Array[MeshInstance3D]:
	assert_true(
		await wait_until(func(): return w.get_stats()["nodes_to_free"] == 0, 10.0),
		"unloaded nodes never freed"
	)
	var out: Array[MeshInstance3D] = []
	for child in w.get_children(true):
		if child is MeshInstance3D:
			out.append(child)
	return out


## Back and forth faster than unloaded nodes are freed: a chunk that loads again frees its old,
## hidden nodes first, so its new nodes keep their names and nothing is left over.
func test_a_chunk_loading_again_before_its_old_nodes_are_freed() -> void:
	var w := _make_world(7, 3)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	w.frame_budget_ms = 0.05  # the smallest budget: a few nodes freed a frame
	_viewer(w).position = Vector3(10 * 32 + 16, 0, 16)
	await wait_frames(2)
	var waiting: int = w.get_stats()["nodes_to_free"]
	_viewer(w).position = Vector3(16, 0, 16)
	assert_true(await wait_until(w.is_area_ready, 60.0), "never ready back home")
	var meshes := await _mesh_children_once_freed(w)
	var st := w.get_stats()
	for child in meshes:
		assert_true(
			String(child.name).begins_with("chunk_"),
			"chunk node named %s (%d were waiting to be freed)" % [child.name, waiting]
		)
		assert_true(child.visible, "a loaded chunk's mesh is shown")
	assert_eq(meshes.size(), st["nodes"], "one mesh node per loaded chunk with a mesh")


func test_two_worlds_with_one_preset_agree_and_another_seed_differs() -> void:
	var a := _make_world(99, 1)
	var b := _make_world(99, 1)
	var c := _make_world(100, 1)
	var rng := RandomNumberGenerator.new()
	rng.seed = 5
	var height_diffs := 0
	var voxel_diffs := 0
	for i in 1000:
		var x := rng.randi_range(-5000, 5000)
		var z := rng.randi_range(-5000, 5000)
		var h := a.get_height(x, z)
		if b.get_height(x, z) != h:
			fail("height at %d,%d" % [x, z])
		var p := Vector3i(x, int(h) + rng.randi_range(-6, 3), z)
		var v := a.get_voxel(p)
		if b.get_voxel(p) != v:
			fail("voxel at %s" % p)
		if c.get_height(x, z) != h:
			height_diffs += 1
		if c.get_voxel(p) != v:
			voxel_diffs += 1
	assert_gt(height_diffs, 900, "another seed gives other heights")
	assert_gt(voxel_diffs, 100, "another seed gives other voxels")


func test_height_matches_streamed_voxels_and_collision() -> void:
	var w := _make_world(3, 2)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	for i in 4:
		await get_tree().physics_frame
	var space := w.get_world_3d().direct_space_state
	var rng := RandomNumberGenerator.new()
	rng.seed = 11
	var hits := 0
	for i in 200:
		var x := rng.randi_range(-40, 40)
		var z := rng.randi_range(-40, 40)
		var h := int(w.get_height(x + 0.5, z + 0.5))
		var top := w.get_voxel(Vector3i(x, h - 1, z))
		assert_true(
			top != 0 and top != default_block_id("water"),
			"solid below get_height at %d,%d" % [x, z]
		)
		assert_eq(
			(
				w.get_voxel(Vector3i(x, h, z)) == 0
				or w.get_voxel(Vector3i(x, h, z)) == default_block_id("water")
			),
			true,
			"open above get_height"
		)
		# The streamed collision mesh has its top face exactly there (when the column is loaded).
		if h > -31 and h < 63:
			var q := PhysicsRayQueryParameters3D.create(
				Vector3(x + 0.5, 70, z + 0.5), Vector3(x + 0.5, -40, z + 0.5)
			)
			var hit := space.intersect_ray(q)
			if not hit.is_empty():
				hits += 1
				assert_near(hit["position"].y, float(h), 0.001, "collision top at %d,%d" % [x, z])
	assert_gt(hits, 150, "rays hit streamed collision")


func test_set_voxel_edits_are_seen_and_remeshed() -> void:
	var w := _make_world(5, 1)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var h := int(w.get_height(4, 4))
	var p := Vector3i(4, h + 2, 4)
	assert_eq(w.get_voxel(p), 0)
	w.set_voxel(p, default_block_id("stone"))
	assert_eq(w.get_voxel(p), default_block_id("stone"))
	assert_eq(w.get_height(4, 4), float(h + 3), "height sees the placed block")
	assert_false(w.is_area_ready(), "remesh pending")
	assert_true(await wait_until(w.is_area_ready, 30.0))
	w.set_voxel(Vector3i(4, h - 1, 4), 0)
	w.set_voxel(p, 0)
	assert_eq(w.get_height(4, 4), float(h - 1), "height sees the dug block")
	assert_eq(w.get_stats()["edits"], 2)


func test_freeing_mid_generation_joins_threads_and_leaks_nothing() -> void:
	var before := Performance.get_monitor(Performance.OBJECT_NODE_COUNT)
	var w := _make_world(1, 6)
	await wait_frames(3)
	assert_gt(w.get_stats()["pending_chunks"], 0, "still generating")
	var viewer := _viewer(w)
	w.free()
	viewer.free()
	_worlds.clear()
	await wait_frames(2)
	assert_eq(Performance.get_monitor(Performance.OBJECT_NODE_COUNT), before, "every node freed")


func test_biome_names_come_from_the_preset_table() -> void:
	var w := _make_world(8, 1)
	var names := {}
	for i in 400:
		names[w.get_biome(i * 97.0 - 20000.0, i * 53.0 - 9000.0)] = true
	assert_gt(names.size(), 2, "several biomes over a wide area: " + str(names.keys()))
	for n in names:
		assert_true(
			n in ["plains", "forest", "desert", "mountains", "tundra", "taiga", "badlands"],
			"known biome " + n
		)


func test_game_state_keeps_any_value_through_a_save() -> void:
	var w := _make_world(21, 1)
	var values := {
		"time_of_day": 0.75,
		"day": 12,
		"name": "Ada",
		"alive": true,
		"spawn": Vector3(1.5, 80, -3),
		"inventory": {"stone": 17, "torch": [1, 2, 3]},
		"bytes": PackedByteArray([0, 255, 7]),
	}
	for key: String in values:
		assert_eq(w.set_state(key, values[key]), OK, key + ": " + w.last_error())
		assert_eq(w.get_state(key, null), values[key], key + " before the save")
	assert_eq(w.get_state("absent", 5), 5, "the default when absent")
	assert_eq(w.set_state("strata.structures", "x"), ERR_INVALID_PARAMETER, "the addon's keys")
	assert_true(w.last_error().contains("strata."), w.last_error())
	assert_eq(w.set_state("node", RefCounted.new()), ERR_INVALID_PARAMETER, "an Object")
	assert_true(w.last_error().contains("Object"), w.last_error())
	assert_eq(w.set_state("gone", 1), OK)
	assert_eq(w.set_state("gone", null), OK, "null removes")
	assert_eq(w.get_state("gone", "none"), "none")
	var path := "user://test_state_%d.strata" % Time.get_ticks_usec()
	assert_eq(w.save_world(path), OK, w.last_error())
	var other := _make_world(999, 1)
	assert_eq(other.load_world(path), OK, other.last_error())
	for key: String in values:
		var loaded: Variant = other.get_state(key, null)
		assert_eq(typeof(loaded), typeof(values[key]), key + ": the type after the load")
		assert_eq(loaded, values[key], key + " after the load")
	DirAccess.remove_absolute(path)


func test_save_and_load_restore_the_exact_world() -> void:
	var w := _make_world(21, 1)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var rng := RandomNumberGenerator.new()
	rng.seed = 3
	var edited: Array[Vector3i] = []
	for i in 50:
		var x := rng.randi_range(-30, 30)
		var z := rng.randi_range(-30, 30)
		var p := Vector3i(x, int(w.get_height(x, z)) + rng.randi_range(-3, 2), z)
		w.set_voxel(p, [0, 1, 3, 6][i % 4])
		edited.append(p)
	w.set_state("time_of_day", "0.75")
	var path := "user://test_world_%d.strata" % Time.get_ticks_usec()
	assert_eq(w.save_world(path), OK, w.last_error())
	var size := FileAccess.get_file_as_bytes(path).size()
	assert_gt(size, 0)
	assert_lt(size, 4096, "50 edits save in a few KB")
	var other := _make_world(999, 1)
	assert_eq(other.load_world(path), OK, other.last_error())
	assert_eq(other.preset.seed, 21)
	assert_eq(other.get_state("time_of_day", ""), "0.75")
	assert_eq(other.get_edit_count(), w.get_edit_count())
	for p in edited:
		if other.get_voxel(p) != w.get_voxel(p):
			fail("voxel %s differs after load" % p)
	for i in 200:
		var q := Vector3i(
			rng.randi_range(-300, 300), rng.randi_range(-20, 40), rng.randi_range(-300, 300)
		)
		if other.get_voxel(q) != w.get_voxel(q):
			fail("voxel %s differs after load" % q)
	assert_true(await wait_until(other.is_area_ready, 60.0), "the loaded world streams")
	DirAccess.remove_absolute(ProjectSettings.globalize_path(path))


func test_bad_save_gives_a_clear_error_and_changes_nothing() -> void:
	var w := _make_world(4, 1)
	var path := "user://broken_%d.strata" % Time.get_ticks_usec()
	var f := FileAccess.open(path, FileAccess.WRITE)
	f.store_string("this is not a world save")
	f.close()
	assert_eq(w.load_world(path), ERR_FILE_CORRUPT)
	assert_true(
		w.last_error().contains("broken_") and w.last_error().contains("STRATASV"), w.last_error()
	)
	assert_eq(w.preset.seed, 4, "the world is unchanged")
	assert_eq(w.load_world("user://no_such_file.strata"), ERR_FILE_CANT_OPEN)
	DirAccess.remove_absolute(ProjectSettings.globalize_path(path))


func test_scatter_multimeshes_stand_in_loaded_chunks() -> void:
	var w := _make_world(1337, 2)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var instances := 0
	for child in w.get_children(true):
		if child is MultiMeshInstance3D:
			instances += child.multimesh.instance_count
	assert_gt(instances, 10, "trees, bushes, flowers or rocks near the origin")


func test_changing_a_preset_field_regenerates_the_world_and_keeps_edits() -> void:
	var w := _make_world(12, 1)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var h0 := w.get_height(10.5, 10.5)
	var p := Vector3i(3, int(w.get_height(3, 3)) + 5, 3)
	w.set_voxel(p, default_block_id("stone"))
	var generated_before: int = w.get_stats()["generated_total"]
	# Live tuning: a designer drags the "base height" slider.
	w.preset.height_base_height = w.preset.height_base_height + 20.0
	await wait_frames(1)
	assert_eq(w.get_height(10.5, 10.5), h0 + 20.0, "the new preset is used at once")
	assert_lt(w.get_stats()["generated_total"], generated_before + 1, "streaming restarted")
	assert_true(await wait_until(w.is_area_ready, 10.0), "regenerated")
	assert_eq(w.get_voxel(p), default_block_id("stone"), "edits survive a preset change")
	# A bad value is refused with a clear error and changes nothing.
	w.preset.height_octaves = 0
	assert_true(
		(
			w.preset.last_error().contains("height_octaves")
			and w.preset.last_error().contains("1..=12")
		),
		w.preset.last_error()
	)
	assert_eq(w.get_height(10.5, 10.5), h0 + 20.0)


func _far_children(w: StrataChunkWorld) -> Array[MeshInstance3D]:
	var out: Array[MeshInstance3D] = []
	for child in w.get_children(true):
		if child is MeshInstance3D and String(child.name).begins_with("far_"):
			out.append(child)
	return out


func _far_complete(w: StrataChunkWorld) -> bool:
	var st := w.get_stats()
	return (
		w.is_area_ready()
		and st["far_pending"] == 0
		and st["far_loaded"] > 0
		and st["retiring"] == 0
	)


func test_far_view_reaches_beyond_the_near_field() -> void:
	var w := _make_world(42, 2, 2)
	assert_true(await wait_until(_far_complete.bind(w), 60.0), "far view never complete")
	await wait_frames(2)
	var st := w.get_stats()
	for key in [
		"far_loaded",
		"far_pending",
		"far_view_levels",
		"far_ms_median",
		"queued",
		"retiring",
		"collision_queue",
		"far_nodes"
	]:
		assert_true(st.has(key), key)
	var far := _far_children(w)
	assert_eq(far.size(), st["far_loaded"], "one node per far column")
	assert_eq(st["far_nodes"], far.size())
	assert_eq(st["far_view_levels"], 2)
	# Far columns lie beyond the near field (2 chunks = 64 voxels) and reach 64·4 = 256 voxels.
	var farthest := 0.0
	var with_mesh := 0
	for n in far:
		var centre := n.position + Vector3(0, 0, 0)
		farthest = maxf(farthest, Vector2(centre.x, centre.z).length())
		if n.mesh != null:
			with_mesh += 1
			var aabb := n.get_aabb()
			assert_gt(aabb.size.x, 60.0, "a far column spans 64 or 128 voxels")
	assert_gt(with_mesh, far.size() / 2, "far columns show ground")
	assert_gt(farthest, 150.0, "far columns reach out")
	# Near chunks still stream as before, with collision.
	assert_gt(st["loaded_chunks"], 0)


func test_far_view_follows_the_viewer_and_can_be_turned_off() -> void:
	var w := _make_world(9, 2, 2)
	assert_true(await wait_until(_far_complete.bind(w), 60.0), "far view never complete")
	var before := {}
	for n in _far_children(w):
		before[String(n.name)] = true
	_viewer(w).position = Vector3(300, 0, 40)
	await wait_frames(2)  # the world sees the move in its next process
	assert_true(
		await wait_until(_far_complete.bind(w), 60.0), "far view never settled after the move"
	)
	await wait_frames(2)
	var after := _far_children(w)
	assert_eq(after.size(), w.get_stats()["far_loaded"], "retired columns were freed")
	var moved := 0
	for n in after:
		if not before.has(String(n.name)):
			moved += 1
	assert_gt(moved, 5, "new far columns around the new position")
	w.far_view_levels = 0
	assert_true(
		await wait_until(func(): return _far_children(w).is_empty(), 30.0),
		"far nodes gone with the far view"
	)
	assert_eq(w.get_stats()["far_loaded"], 0)


## Surface `i` carries a position, a colour and CUSTOM0 (one float: texture layer + 4096 ×
## (light + 256 × face direction)) per vertex and nothing else: no normals, tangents or UVs,
## which the block shaders derive from the direction. Meshed in full light (240: sky 15, no block
## light); each quad's four corners share their direction and lie in its plane.
func _assert_textured(mesh: ArrayMesh, i: int, format: int, c: Vector3i) -> void:
	assert_true(format & Mesh.ARRAY_FORMAT_CUSTOM0 != 0, "CUSTOM0 in the format at %s" % c)
	assert_eq(
		(format >> Mesh.ARRAY_FORMAT_CUSTOM0_SHIFT) & Mesh.ARRAY_FORMAT_CUSTOM_MASK,
		Mesh.ARRAY_CUSTOM_R_FLOAT,
		"CUSTOM0 one float at %s" % c
	)
	for absent in [
		Mesh.ARRAY_FORMAT_NORMAL,
		Mesh.ARRAY_FORMAT_TANGENT,
		Mesh.ARRAY_FORMAT_TEX_UV,
		Mesh.ARRAY_FORMAT_TEX_UV2
	]:
		assert_eq(format & absent, 0, "attribute %d left out at %s" % [absent, c])
	var arrays := mesh.surface_get_arrays(i)
	var custom0: PackedFloat32Array = arrays[Mesh.ARRAY_CUSTOM0]
	var vertices: PackedVector3Array = arrays[Mesh.ARRAY_VERTEX]
	assert_eq(custom0.size(), vertices.size(), "a CUSTOM0 value a vertex at %s" % c)
	for q in range(0, vertices.size(), 4 * 23):
		var packed := int(custom0[q])
		assert_eq(float(packed), custom0[q], "a whole number at %s" % c)
		var face := packed >> 20
		assert_true(face >= 0 and face < 6, "a face direction at %s" % c)
		assert_eq((packed >> 12) & 255, 240, "full light (sky 15 × 16, no block light) at %s" % c)
		var axis := face / 2
		for k in 4:
			assert_eq(int(custom0[q + k]), packed, "a quad's corners share layer, light, face")
			assert_eq(vertices[q + k][axis], vertices[q][axis], "a quad lies across its normal")


## Streamed chunk meshes come from bytes packed on the workers; they must be exactly what Godot's
## own conversion (`add_surface_from_arrays`) stores: same format, streams, counts and box.
func test_worker_packed_meshes_equal_godots_own_conversion() -> void:
	var w := _make_world(5)
	var compared := 0
	var liquid := 0
	# A handful of chunks, then a search along the surface layers until one with water is compared.
	var coords: Array[Vector3i] = [
		Vector3i(0, 0, 0),
		Vector3i(1, 0, -1),
		Vector3i(-2, 0, 3),
		Vector3i(0, -1, 0),
		Vector3i(3, 1, 2)
	]
	for x in range(-12, 13, 3):
		for z in range(-12, 13, 3):
			for y in [-1, 0]:
				coords.append(Vector3i(x, y, z))
	for c in coords:
		if compared >= 5 and liquid > 0:
			break
		var packed := w.debug_build_chunk_mesh(c, false)
		var reference := w.debug_build_chunk_mesh(c, true)
		if reference == null:
			assert_true(packed == null, "no faces either way at %s" % c)
			continue
		assert_eq(packed.get_surface_count(), reference.get_surface_count(), "surfaces at %s" % c)
		for i in reference.get_surface_count():
			var a := RenderingServer.mesh_get_surface(packed.get_rid(), i)
			var b := RenderingServer.mesh_get_surface(reference.get_rid(), i)
			for key in [
				"format",
				"primitive",
				"vertex_count",
				"index_count",
				"aabb",
				"vertex_data",
				"attribute_data",
				"index_data"
			]:
				assert_eq(a.get(key), b.get(key), "%s of surface %d at %s" % [key, i, c])
			assert_eq(
				packed.surface_get_arrays(i),
				reference.surface_get_arrays(i),
				"decoded arrays of surface %d at %s" % [i, c]
			)
			assert_eq(packed.surface_get_name(i), reference.surface_get_name(i))
			assert_eq(packed.surface_get_material(i), reference.surface_get_material(i))
			assert_true(
				a.get("vertex_data", PackedByteArray()).size() > 0,
				"the server holds the vertex stream"
			)
			assert_true(
				SURFACE_NAMES.has(packed.surface_get_name(i)),
				"surface %d at %s is named after its kind" % [i, c]
			)
			_assert_textured(packed, i, a.get("format", 0), c)
			if packed.surface_get_name(i) == "liquid":
				liquid += 1
			compared += 1
		assert_eq(packed.get_aabb(), reference.get_aabb(), "mesh box at %s" % c)
	assert_gt(compared, 4, "chunks with faces were compared")
	assert_gt(liquid, 0, "a water surface was compared")


func _near_vertex_count(w: StrataChunkWorld) -> int:
	var total := 0
	for child in w.get_children(true):
		if (
			child is MeshInstance3D
			and String(child.name).begins_with("chunk_")
			and child.mesh != null
		):
			for i in child.mesh.get_surface_count():
				total += child.mesh.surface_get_array_len(i)
	return total


func _chunk_nodes(w: StrataChunkWorld) -> Array[MeshInstance3D]:
	var out: Array[MeshInstance3D] = []
	for child in w.get_children(true):
		if (
			child is MeshInstance3D
			and String(child.name).begins_with("chunk_")
			and child.mesh != null
			and child.visible
		):
			out.append(child)
	return out


## Far columns compute their AO per fragment too, over their coarse cells: each takes layers of
## a shared page for its bits (34 cells wide, as tall as the column) and its material copy names
## them, with its stride as the cell size; with AO off they have the same vertices and no layers.
func test_far_columns_carry_their_occluders_and_stride() -> void:
	var w := _make_world(42, 2, 2)
	# Mountains: columns taller than one layer of a page.
	w.preset.height_amplitude = 150.0
	assert_true(await wait_until(_far_complete.bind(w), 60.0), "far view never complete")
	await wait_frames(2)
	var with_bits := 0
	var vertices := 0
	var tall := 0
	for n in _far_children(w):
		if n.mesh == null:
			continue
		vertices += n.mesh.surface_get_array_len(0)
		var material := n.mesh.surface_get_material(0) as ShaderMaterial
		assert_true(material.get_shader_parameter("strata_occlusion"), "%s: occlusion on" % n.name)
		var pages := material.get_shader_parameter("strata_occluder_pages") as Texture2DArray
		assert_true(pages != null, "%s: a page of occluder bits" % n.name)
		var slot := _occluder_slot(n)
		assert_eq(slot.y, 0, "%s: a column keeps all its rows" % n.name)
		assert_gt(slot.z, 8 + 2, "%s: skirt cells and the ground" % n.name)
		assert_true(
			slot.x >= 0 and slot.x + ceili(slot.z / 34.0) <= pages.get_layers(),
			"%s: its layers %s in the page's %d" % [n.name, slot, pages.get_layers()]
		)
		if slot.z > 34:
			tall += 1
		var level := int(String(n.name).split("_")[1])
		assert_eq(slot.w, 1 << level, "%s: its stride is the cell size" % n.name)
		with_bits += 1
	assert_gt(with_bits, 10, "far columns with a mesh")
	assert_gt(tall, 0, "columns taller than one layer")
	assert_eq(w.get_stats()["occluder_far_columns"], with_bits)
	assert_eq(w.get_stats()["occluder_layers"], _occluder_layers_shown(w), "layers in use")
	w.daylight = 0.5
	var first := _far_children(w)[0].mesh.surface_get_material(0) as ShaderMaterial
	assert_near(first.get_shader_parameter("daylight"), 0.5, 1e-6, "daylight follows")

	w.ambient_occlusion = false
	await wait_frames(2)
	# The loaded columns are meshed again in place (`far_pending` counts new columns alone).
	assert_true(
		await wait_until(_far_complete_without_bits.bind(w), 60.0),
		"never complete after the change"
	)
	await wait_frames(2)
	var open := 0
	for n in _far_children(w):
		if n.mesh != null:
			open += n.mesh.surface_get_array_len(0)
	assert_eq(open, vertices, "per-fragment AO costs the far columns no vertices")
	assert_eq(w.get_stats()["occluder_layers"], 0, "every layer given back")


func _far_complete_without_bits(w: StrataChunkWorld) -> bool:
	return _far_complete(w) and w.get_stats()["occluder_far_columns"] == 0


## Where a mesh's occluder bits are, as its first surface's material names them: (first layer,
## padded row of the first row kept, rows kept, cell size); rows 0 when it has none.
func _occluder_slot(n: MeshInstance3D) -> Vector4i:
	var material := n.mesh.surface_get_material(0) as ShaderMaterial
	var slot: Variant = (
		material.get_shader_parameter("strata_occluder_slot") if material != null else null
	)
	return slot if slot is Vector4i else Vector4i(0, 0, 0, 1)


## The page layers the shown chunks and far columns hold (34 rows a layer).
func _occluder_layers_shown(w: StrataChunkWorld) -> int:
	var layers := 0
	for child in w.get_children(true):
		var n := child as MeshInstance3D
		if n != null and n.visible and n.mesh != null:
			layers += ceili(_occluder_slot(n).z / 34.0)
	return layers


## Chunks that unload give their page layers back and those that load take free ones, so the
## layers in use are always those of the shown chunks and one page serves a moving view. Their
## material copies are kept as spares and taken by the chunks that load next: no two shown
## meshes share a copy, each copy names its own mesh's layers, and spares follow the daylight.
func test_chunks_give_their_occluder_layers_back_when_they_unload() -> void:
	var w := _make_world(7)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never ready")
	var made := w.get_stats()["occluder_materials"] as int
	for step in 4:
		_viewer(w).position = Vector3((step + 1) * 3 * 32 + 16, 0, 16 - step * 40)
		await wait_frames(2)
		assert_true(await wait_until(w.is_area_ready, 60.0), "never ready at step %d" % step)
		await wait_frames(2)
		var st := w.get_stats()
		assert_gt(st["occluder_layers"], 20, "step %d: chunks with bits" % step)
		assert_eq(st["occluder_layers"], _occluder_layers_shown(w), "step %d: layers" % step)
		assert_eq(st["occluder_pages"], 1, "step %d: freed layers taken again" % step)
		_assert_one_copy_a_mesh(w, "step %d" % step)
		w.daylight = 0.25 * step
		await wait_frames(1)
		_assert_daylight_on_copies(w, 0.25 * step, "step %d" % step)
	var st := w.get_stats()
	assert_gt(st["occluder_spare_materials"], 0, "copies of unloaded chunks kept")
	# Copies are made only when no spare is left, so all of them together stay near what one
	# view holds at once, however far the view moved.
	assert_lt(
		st["occluder_materials"] + st["occluder_spare_materials"],
		made * 2,
		"copies reused, not made anew for every chunk"
	)


## No material copy is on two shown meshes, and each names its mesh's own layers.
func _assert_one_copy_a_mesh(w: StrataChunkWorld, context: String) -> void:
	var owner_of := {}
	for child in w.get_children(true):
		var n := child as MeshInstance3D
		if n == null or not n.visible or n.mesh == null:
			continue
		for i in n.mesh.get_surface_count():
			var material := n.mesh.surface_get_material(i) as ShaderMaterial
			if material == null or material.get_shader_parameter("strata_occluder_slot") == null:
				continue
			var id := material.get_instance_id()
			assert_false(
				owner_of.has(id),
				"%s: %s shares a copy with %s" % [context, n.name, owner_of.get(id)]
			)
			owner_of[id] = n.name
	assert_gt(owner_of.size(), 20, "%s: shown meshes with copies" % context)


## Every shown mesh's block materials (copies or shared) have `daylight`.
func _assert_daylight_on_copies(w: StrataChunkWorld, daylight: float, context: String) -> void:
	for child in w.get_children(true):
		var n := child as MeshInstance3D
		if n == null or not n.visible or n.mesh == null or n.mesh.get_surface_count() == 0:
			continue
		var material := n.mesh.surface_get_material(0) as ShaderMaterial
		if material != null and material.get_shader_parameter("strata_occluder_slot") != null:
			assert_near(
				material.get_shader_parameter("daylight"),
				daylight,
				1e-3,
				"%s: %s follows the daylight" % [context, n.name]
			)


## Ambient occlusion is computed per fragment by the block shaders: every shown chunk's opaque
## surface has its own copy of the block material, naming the chunk's occluder bits in a layer
## of a shared page that no other chunk holds, so the quads merge by block and light alone: as
## few vertices as with AO off. A material of the user's gets AO baked into the vertices instead.
func test_ambient_occlusion_comes_from_each_chunks_occluders_at_no_vertex_cost() -> void:
	var w := _make_world(7)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never ready")
	await wait_frames(2)
	var with_ao := _near_vertex_count(w)
	assert_gt(with_ao, 1000, "terrain around the viewer")
	var nodes := _chunk_nodes(w)
	var layers_taken := {}
	var cropped := 0
	for node in nodes:
		var material := node.mesh.surface_get_material(0) as ShaderMaterial
		assert_true(material != null, "%s: a block material" % node.name)
		assert_true(
			material.get_shader_parameter("strata_occlusion"), "%s: occlusion on" % node.name
		)
		var pages: Variant = material.get_shader_parameter("strata_occluder_pages")
		assert_true(pages is Texture2DArray, "%s: a page of occluder bits: %s" % [node.name, pages])
		# The padded rows its faces reach: from row0 up, within the 34 of the box, in one layer.
		var slot := _occluder_slot(node)
		assert_true(
			slot.y >= 0 and slot.z > 0 and slot.y + slot.z <= 34,
			"%s: rows %d + %d" % [node.name, slot.y, slot.z]
		)
		assert_eq(slot.w, 1, "%s: a chunk's cells are voxels" % node.name)
		if slot.z < 34:
			cropped += 1
		var layer := "%s/%d" % [pages, slot.x]
		assert_false(layers_taken.has(layer), "%s shares layer %s" % [node.name, layer])
		layers_taken[layer] = true
		assert_false(layers_taken.has(material), "%s shares a material" % node.name)
		layers_taken[material] = true
		if node.mesh.surface_get_name(0) == "opaque":
			assert_eq(
				node.mesh.surface_get_format(0) & Mesh.ARRAY_FORMAT_COLOR,
				0,
				"%s: textured ground needs no colours, the shader shades it" % node.name
			)
	assert_gt(cropped, 0, "chunks keep the rows their faces reach alone")
	var stats := w.get_stats()
	assert_eq(stats["occluder_chunks"], nodes.size(), "every shown chunk")
	assert_eq(stats["occluder_layers"], nodes.size(), "one layer a chunk")
	assert_eq(stats["occluder_pages"], 1, "%d chunks fit one page" % nodes.size())
	# The copies follow the shared uniforms.
	w.daylight = 0.25
	for node in nodes:
		var material := node.mesh.surface_get_material(0) as ShaderMaterial
		assert_near(material.get_shader_parameter("daylight"), 0.25, 1e-6, "daylight follows")

	# Off: the same quads, no occluders.
	w.ambient_occlusion = false
	await wait_frames(2)  # the world sees the change in its next process
	assert_true(await wait_until(w.is_area_ready, 60.0), "never ready after the change")
	await wait_frames(2)
	assert_eq(_near_vertex_count(w), with_ao, "per-fragment AO costs no vertices")
	assert_eq(w.get_stats()["occluder_chunks"], 0)
	assert_eq(w.get_stats()["occluder_layers"], 0)
	for node in _chunk_nodes(w):
		assert_ne(
			node.mesh.surface_get_format(0) & Mesh.ARRAY_FORMAT_COLOR,
			0,
			"%s: the face shade back in the vertex colours" % node.name
		)
	w.ambient_occlusion = true
	await wait_frames(2)
	assert_true(await wait_until(w.is_area_ready, 60.0), "never ready after turning it back on")
	await wait_frames(2)
	assert_eq(_near_vertex_count(w), with_ao, "the same meshes as before")
	assert_eq(w.get_stats()["occluder_chunks"], _chunk_nodes(w).size())

	# A user's material: AO in the vertex colours, quads split where it changes.
	var own := _make_world(7)
	own.material_override = StandardMaterial3D.new()
	assert_true(await wait_until(own.is_area_ready, 60.0), "the second world never ready")
	await wait_frames(2)
	assert_gt(_near_vertex_count(own), with_ao * 2, "vertex AO splits the quads")
	assert_eq(own.get_stats()["occluder_chunks"], 0)
	var node := _chunk_nodes(own)[0]
	var parts := String(node.name).split("_")
	var coord := Vector3i(int(parts[1]), int(parts[2]), int(parts[3]))
	var packed := own.debug_build_chunk_mesh(coord, false)
	var reference := own.debug_build_chunk_mesh(coord, true)
	assert_eq(
		packed.surface_get_arrays(0),
		reference.surface_get_arrays(0),
		"packed bytes equal Godot's conversion"
	)
