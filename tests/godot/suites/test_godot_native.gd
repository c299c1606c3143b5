## The worlds behave as Godot's own nodes do: what they create are internal children (the user's
## `get_children()` stays the user's), their bodies and meshes take the physics and render
## settings a game gives them, the debugger's Monitors tab graphs them, and the 2D world has the
## 3D world's streaming API (`area_ready`, `get_progress`).
extends StrataTestCase

var _nodes: Array[Node] = []


func after_each() -> void:
	for n in _nodes:
		if is_instance_valid(n):
			n.free()
	_nodes.clear()


func _world(seed: int) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 2
	w.vertical_view_distance = 1
	w.frame_budget_ms = 8.0
	w.collision_distance = 2
	w.far_view_levels = 1
	w.adaptive_far_view = false
	add_child(w)
	_nodes.append(w)
	return w


func _world_2d(seed: int) -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var viewer := Node2D.new()
	add_child(viewer)
	_nodes.append(viewer)
	var w := StrataChunkWorld2D.new()
	w.preset = preset
	w.view_distance = 1
	w.frame_budget_ms = 8.0
	add_child(w)
	_nodes.append(w)
	w.viewer = w.get_path_to(viewer)
	viewer.position = Vector2(8, w.get_surface_height(8.0))
	return w


func test_what_the_world_creates_is_internal() -> void:
	var w := _world(7)
	var mine := Node3D.new()
	mine.name = "MyMarker"
	w.add_child(mine)
	var viewer := Node3D.new()
	w.add_child(viewer)
	w.viewer = w.get_path_to(viewer)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	await wait_frames(2)
	assert_eq(w.get_children(), [mine, viewer] as Array[Node], "only the user's nodes")
	assert_eq(w.get_child_count(), 2)
	var internal := w.get_children(true)
	assert_gt(internal.size(), 10, "chunk meshes, bodies and far columns are children all the same")
	var kinds := {}
	for child in internal:
		if child != mine and child != viewer:
			kinds[child.get_class()] = true
			assert_true(
				child.owner == null, "%s has no owner: never saved into a scene" % child.name
			)
	for kind in ["MeshInstance3D", "StaticBody3D"]:
		assert_true(kinds.has(kind), "internal %s nodes" % kind)


func test_terrain_is_on_its_collision_layer_only() -> void:
	var w := _world(3)
	w.collision_layer = 1 << 4
	w.collision_mask = 0
	w.collision_priority = 2.5
	var material := PhysicsMaterial.new()
	material.friction = 0.25
	w.physics_material_override = material
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	for i in 4:
		await get_tree().physics_frame
	var bodies: Array[StaticBody3D] = []
	for child in w.get_children(true):
		if child is StaticBody3D:
			bodies.append(child)
	assert_gt(bodies.size(), 0, "chunks near the viewer have bodies")
	for b in bodies:
		assert_eq(b.collision_layer, 1 << 4)
		assert_eq(b.collision_mask, 0)
		assert_near(b.collision_priority, 2.5, 1e-6)
		assert_eq(b.physics_material_override, material)
	var space := w.get_world_3d().direct_space_state
	var h := w.get_height(0.5, 0.5)
	var ray := PhysicsRayQueryParameters3D.create(
		Vector3(0.5, h + 20, 0.5), Vector3(0.5, h - 20, 0.5)
	)
	ray.collision_mask = 1 << 4
	var hit := space.intersect_ray(ray)
	assert_false(hit.is_empty(), "a ray with the terrain's layer in its mask hits it")
	if not hit.is_empty():
		assert_near(hit["position"].y, h, 0.001)
	ray.collision_mask = 1
	assert_true(space.intersect_ray(ray).is_empty(), "a ray with another mask passes through")
	# Changing the layer moves the bodies already built.
	w.collision_layer = 1
	for i in 2:
		await get_tree().physics_frame
	assert_false(space.intersect_ray(ray).is_empty(), "on layer 1 now")
	for b in bodies:
		if is_instance_valid(b):
			assert_eq(b.collision_layer, 1)


func test_a_world_without_meshes_still_collides_and_edits() -> void:
	var w := _world(7)
	w.render_meshes = false
	w.far_view_levels = 0
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	for i in 4:
		await get_tree().physics_frame
	var kinds := {}
	for child in w.get_children(true):
		kinds[child.get_class()] = int(kinds.get(child.get_class(), 0)) + 1
	assert_false(kinds.has("MeshInstance3D"), "no chunk meshes: %s" % kinds)
	assert_false(kinds.has("MultiMeshInstance3D"), "no decorations: %s" % kinds)
	assert_true(kinds.has("StaticBody3D"), "chunks near the viewer have bodies: %s" % kinds)
	var h := w.get_height(0.5, 0.5)
	var space := w.get_world_3d().direct_space_state
	var ray := PhysicsRayQueryParameters3D.create(
		Vector3(0.5, h + 20, 0.5), Vector3(0.5, h - 20, 0.5)
	)
	var hit := space.intersect_ray(ray)
	assert_false(hit.is_empty(), "a ray hits the terrain")
	if not hit.is_empty():
		assert_near(hit["position"].y, h, 0.001)
	w.set_voxel(Vector3i(0, int(h), 0), 1)
	assert_eq(w.get_height(0.5, 0.5), h + 1.0, "an edit is a voxel all the same")


func test_meshes_take_the_render_settings() -> void:
	var w := _world(5)
	w.layers = 1 << 2
	w.cast_shadow = GeometryInstance3D.SHADOW_CASTING_SETTING_OFF
	w.gi_mode = GeometryInstance3D.GI_MODE_DYNAMIC
	w.far_visibility_range_end = 900.0
	w.far_visibility_range_end_margin = 50.0
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	await wait_frames(2)
	var near := 0
	var far := 0
	for child in w.get_children(true):
		if child is GeometryInstance3D:
			var g := child as GeometryInstance3D
			assert_eq(g.layers, 1 << 2, g.name)
			assert_eq(g.cast_shadow, GeometryInstance3D.SHADOW_CASTING_SETTING_OFF, g.name)
			assert_eq(g.gi_mode, GeometryInstance3D.GI_MODE_DYNAMIC, g.name)
			if str(g.name).begins_with("far_"):
				far += 1
				assert_near(g.visibility_range_end, 900.0, 1e-3)
				assert_near(g.visibility_range_end_margin, 50.0, 1e-3)
				assert_eq(
					g.visibility_range_fade_mode, GeometryInstance3D.VISIBILITY_RANGE_FADE_SELF
				)
			else:
				near += 1
				assert_eq(g.visibility_range_end, 0.0, "near chunks are always drawn")
	assert_gt(near, 0, "near chunk meshes")
	assert_gt(far, 0, "far columns")
	w.cast_shadow = GeometryInstance3D.SHADOW_CASTING_SETTING_ON
	for child in w.get_children(true):
		if child is GeometryInstance3D:
			assert_eq(
				(child as GeometryInstance3D).cast_shadow,
				GeometryInstance3D.SHADOW_CASTING_SETTING_ON
			)


func test_monitors_graph_the_world_and_leave_with_it() -> void:
	var w := _world(9)
	var viewer := Node3D.new()
	w.add_child(viewer)
	w.viewer = w.get_path_to(viewer)
	var ids := w.get_monitors()
	for name in [
		"loaded_chunks", "queued_jobs", "apply_ms", "memory_mb", "far_columns", "entities"
	]:
		var found := false
		for id in ids:
			found = found or id.ends_with("/" + name)
		assert_true(found, "a %s monitor in %s" % [name, ids])
	for id in ids:
		assert_true(Performance.has_custom_monitor(id), id)
		assert_true(id.begins_with("Strata"), id)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var loaded_id := ids[0]
	assert_true(loaded_id.ends_with("/loaded_chunks"), loaded_id)
	assert_eq(Performance.get_custom_monitor(loaded_id), float(w.get_stats()["loaded_chunks"]))
	assert_gt(Performance.get_custom_monitor(loaded_id), 0.0)
	# A second world gets its own category.
	var other := _world(10)
	var other_ids := other.get_monitors()
	assert_eq(other_ids.size(), ids.size())
	for id in other_ids:
		assert_false(id in ids, "%s is the second world's own" % id)
	remove_child(w)
	for id in ids:
		assert_false(Performance.has_custom_monitor(id), "%s removed with the world" % id)
	assert_eq(w.get_monitors().size(), 0)
	add_child(w)
	assert_eq(w.get_monitors().size(), ids.size(), "back in the tree, back in the tab")


func test_world_2d_has_the_streaming_api_of_the_3d_world() -> void:
	var w := _world_2d(21)
	var ready_count := [0]
	w.area_ready.connect(func() -> void: ready_count[0] += 1)
	assert_true(w.get_progress() < 1.0, "not ready at once")
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	await wait_frames(2)
	assert_eq(ready_count[0], 1, "area_ready emitted once")
	assert_eq(w.get_progress(), 1.0)
	var stats := w.get_stats()
	for key in [
		"loaded_chunks",
		"pending_chunks",
		"in_flight",
		"generated_total",
		"gen_ms_median",
		"apply_ms_last_frame",
		"workers",
		"edits",
		"memory_budget_mb",
		"memory_estimate_mb",
		"view_distance_effective"
	]:
		assert_true(stats.has(key), key)
	for id in w.get_monitors():
		assert_true(Performance.has_custom_monitor(id), id)
	assert_eq(w.get_children(), [] as Array[Node], "its TileMapLayer is internal")
	assert_true(w.get_tile_map_layer() != null)
	# Moving far away makes it not ready, and ready again with one more signal.
	var viewer := w.get_node(w.viewer) as Node2D
	viewer.position += Vector2(16 * 200, 0)
	assert_true(await wait_until(func() -> bool: return not w.is_area_ready(), 10.0))
	assert_true(await wait_until(w.is_area_ready, 60.0))
	await wait_frames(1)
	assert_eq(ready_count[0], 2, "area_ready again after the move")


func test_debug_view_draws_chunks_far_levels_and_collision() -> void:
	var w := _world(11)
	var viewer := Node3D.new()
	w.add_child(viewer)
	w.viewer = w.get_path_to(viewer)
	w.debug_view = true
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	await wait_frames(20)
	var view: MeshInstance3D = null
	for child in w.get_children(true):
		if child.name == "debug_view":
			view = child
	if not assert_true(view != null, "an internal debug_view node"):
		return
	var mesh := view.mesh as ArrayMesh
	assert_true(mesh != null and mesh.get_surface_count() == 1, "one surface of lines")
	if mesh == null or mesh.get_surface_count() != 1:
		return
	assert_eq(mesh.surface_get_primitive_type(0), Mesh.PRIMITIVE_LINES)
	var arrays := mesh.surface_get_arrays(0)
	var points: PackedVector3Array = arrays[Mesh.ARRAY_VERTEX]
	var colors: PackedColorArray = arrays[Mesh.ARRAY_COLOR]
	assert_eq(points.size(), colors.size())
	var loaded: int = w.get_stats()["loaded_chunks"]
	assert_gt(points.size(), loaded * 24, "12 edges per loaded chunk, plus far columns and faces")
	# Mesh colours are stored as 8-bit channels: compare within a step.
	for expected in [Color(0.2, 0.85, 1.0), Color(1.0, 0.95, 0.2), Color(1.0, 1.0, 1.0, 0.6)]:
		var found := false
		for c in colors:
			found = _near(c, expected)
			if found:
				break
		assert_true(found, "lines coloured %s" % expected)
	w.debug_view = false
	await wait_frames(2)
	assert_false(is_instance_valid(view), "turned off, the lines are freed")


func _near(a: Color, b: Color) -> bool:
	return (
		absf(a.r - b.r) < 0.01
		and absf(a.g - b.g) < 0.01
		and absf(a.b - b.b) < 0.01
		and absf(a.a - b.a) < 0.01
	)
