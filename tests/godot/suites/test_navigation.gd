## StrataChunkWorld's navigation in real headless Godot: one NavigationServer3D region per chunk,
## joined across chunk borders; paths over four chunks, around a dug hole; a query bounded to the
## regions near its ends (`get_navigation_regions`); a NavigationAgent3D on
## a CharacterBody3D walking three chunks; regions freed when navigation is turned off or the
## world leaves.
extends StrataTestCase

const FROM := Vector3(4.5, 0.0, 4.5)
const TO := Vector3(100.5, 0.0, 4.5)
## The hole dug across the straight line: voxels x 40..56, z -8..24, three deep.
const HOLE_MIN := Vector3i(40, 0, -8)
const HOLE_MAX := Vector3i(56, 0, 24)

var _worlds: Array[StrataChunkWorld] = []


## Gentle ground (steps of one voxel, no caves, no sea, no structures) streamed around x = 52.
func _make_world() -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = 4242
	preset.height_base_height = 20.0
	preset.height_amplitude = 2.0
	preset.water_sea_level = -64
	preset.caves_mode = StrataWorldPreset.CAVES_MODE_NONE
	preset.caves_tunnel_strength = 0.0
	var no_structures: Array[StrataStructureRule] = []
	preset.structure_rules = no_structures
	var viewer := Node3D.new()
	viewer.name = "NavViewer%d" % _worlds.size()
	viewer.position = Vector3(52, 22, 8)
	add_child(viewer)
	keep(viewer)
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 3
	w.vertical_view_distance = 1
	w.frame_budget_ms = 8.0
	w.far_view_levels = 0
	w.adaptive_far_view = false
	w.collision_distance = 3
	w.navigation_enabled = true
	w.navigation_distance = 3
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	_worlds.append(w)
	return w


func after_each() -> void:
	for w in _worlds:
		if is_instance_valid(w):
			w.free()
	_worlds.clear()


func _map(w: StrataChunkWorld) -> RID:
	return w.get_world_3d().get_navigation_map()


## Every wanted chunk is in, every baked mesh registered, and the map has synchronised.
func _settle(w: StrataChunkWorld) -> bool:
	var ready := await wait_until(
		func() -> bool: return w.is_area_ready() and int(w.get_stats()["nav_queue"]) == 0, 90.0
	)
	NavigationServer3D.map_force_update(_map(w))
	for i in 3:
		await get_tree().physics_frame
	return ready


func _on_ground(w: StrataChunkWorld, x: float, z: float) -> Vector3:
	return Vector3(x, w.get_height(x, z), z)


## An agent stands at feet voxel `p`: solid ground below, two open voxels, no water.
func _walkable(w: StrataChunkWorld, p: Vector3i) -> bool:
	var water := default_block_id("water")
	var below := w.get_voxel(p + Vector3i.DOWN)
	return (
		below != 0 and below != water and w.get_voxel(p) == 0 and w.get_voxel(p + Vector3i.UP) == 0
	)


## A path point lies on a polygon's edge or corner: at a whole height, beside a walkable cell.
func _on_walkable_ground(w: StrataChunkWorld, p: Vector3) -> bool:
	if absf(p.y - roundf(p.y)) > 1e-3:
		return false
	for dx: float in [-0.01, 0.01]:
		for dz: float in [-0.01, 0.01]:
			var cell := Vector3i(floori(p.x + dx), roundi(p.y), floori(p.z + dz))
			if _walkable(w, cell):
				return true
	return false


## Whether the path (as straight segments) passes strictly inside the hole's columns.
func _crosses_hole(path: PackedVector3Array) -> bool:
	for i in range(1, path.size()):
		var a := path[i - 1]
		var b := path[i]
		var steps := int(ceil(a.distance_to(b) / 0.25)) + 1
		for k in steps + 1:
			var p := a.lerp(b, float(k) / steps)
			if (
				p.x > HOLE_MIN.x + 0.01
				and p.x < HOLE_MAX.x + 0.99
				and p.z > HOLE_MIN.z + 0.01
				and p.z < HOLE_MAX.z + 0.99
			):
				return true
	return false


func test_a_path_crosses_four_chunks_on_walkable_ground_and_goes_around_a_dug_hole() -> void:
	var w := _make_world()
	assert_true(await _settle(w), "world and navigation never settled: %s" % w.get_stats())
	var stats := w.get_stats()
	print(
		(
			"  nav: %d regions, bake median %.0f us (max %.0f), register median %.0f us"
			% [
				stats["nav_regions"],
				stats["nav_bake_us_median"],
				stats["nav_bake_us_max"],
				stats["nav_register_us_median"]
			]
		)
	)
	assert_gt(stats["nav_regions"], 8, "a region per chunk with ground")
	var from := _on_ground(w, FROM.x, FROM.z)
	var to := _on_ground(w, TO.x, TO.z)
	var path := NavigationServer3D.map_get_path(_map(w), from, to, true)
	assert_gt(path.size(), 1, "a path")
	if path.size() < 2:
		return
	assert_lt(path[path.size() - 1].distance_to(to), 0.05, "the path ends at the target")
	assert_lt(path[0].distance_to(from), 0.05, "the path starts at the start")
	for p in path:
		assert_true(_on_walkable_ground(w, p), "path point %s on walkable ground" % p)
	assert_lt(
		StrataChunkWorld.chunk_of(from).x,
		StrataChunkWorld.chunk_of(to).x - 2,
		"three chunk borders apart"
	)
	assert_true(_crosses_hole(path), "before digging, the straight way crosses the hole's ground")

	var h := int(w.get_height(48, 4))
	var dug := w.set_voxels_box(
		Vector3i(HOLE_MIN.x, h - 3, HOLE_MIN.z), Vector3i(HOLE_MAX.x, h + 2, HOLE_MAX.z), 0
	)
	assert_gt(dug, 0, w.last_error())
	assert_true(await _settle(w), "the dug chunks were never rebaked")
	# Godot takes new region meshes into the map on its own worker threads: on a loaded machine
	# the map may still be the old one a few frames after the last region was handed over.
	var rerouted := func() -> bool:
		return not _crosses_hole(NavigationServer3D.map_get_path(_map(w), from, to, true))
	await wait_until(rerouted, 10.0)
	var around := NavigationServer3D.map_get_path(_map(w), from, to, true)
	assert_gt(around.size(), 2, "a path that bends")
	if around.size() < 2:
		return
	assert_lt(around[around.size() - 1].distance_to(to), 0.05, "it still ends at the target")
	assert_false(_crosses_hole(around), "the new path goes around the hole: %s" % around)
	for p in around:
		assert_true(_on_walkable_ground(w, p), "path point %s on walkable ground" % p)


func test_a_query_over_the_regions_near_its_ends_finds_a_path_on_the_ground() -> void:
	var w := _make_world()
	assert_true(await _settle(w), "world and navigation never settled")
	var map := _map(w)
	var all := NavigationServer3D.map_get_regions(map)
	# Ground near y = 20: the chunks with ground are the layer y = 0.
	var from := _on_ground(w, 20.5, 4.5)
	var to := _on_ground(w, 40.5, 10.5)
	var near := w.get_navigation_regions(from, to, 0.0)
	assert_eq(near.size(), 2, "the regions of chunks (0, 0, 0) and (1, 0, 0)")
	for r in near:
		assert_true(r in all, "a region of the world's map")
	var wide := w.get_navigation_regions(from, to, 40.0)
	assert_eq(wide.size(), 4 * 4, "chunks x -1..2, z -2..1 of the layer y = 0")
	var q := NavigationPathQueryParameters3D.new()
	q.map = map
	q.start_position = from
	q.target_position = to
	q.included_regions = w.get_navigation_regions(from, to, 8.0)
	q.path_search_max_polygons = 512
	var result := NavigationPathQueryResult3D.new()
	NavigationServer3D.query_path(q, result)
	var path := result.path
	assert_gt(path.size(), 1, "a path")
	if path.size() < 2:
		return
	assert_lt(path[0].distance_to(from), 0.05, "the path starts at the start")
	assert_lt(path[path.size() - 1].distance_to(to), 0.05, "the path ends at the target")
	for p in path:
		assert_true(_on_walkable_ground(w, p), "path point %s on walkable ground" % p)
	w.navigation_enabled = false
	assert_eq(w.get_navigation_regions(from, to, 40.0).size(), 0, "no regions without navigation")


func test_a_navigation_agent_walks_three_chunks_to_its_target() -> void:
	var w := _make_world()
	assert_true(await _settle(w), "world and navigation never settled")
	var body := CharacterBody3D.new()
	var shape := CollisionShape3D.new()
	var capsule := CapsuleShape3D.new()
	capsule.radius = 0.3
	capsule.height = 1.6
	shape.shape = capsule
	# The body's origin is at its feet, where the agent's path points lie.
	shape.position = Vector3(0, 0.8, 0)
	body.add_child(shape)
	var agent := NavigationAgent3D.new()
	# A step's top and bottom are path points one above the other: a waypoint counts as reached
	# within more than one voxel.
	agent.path_desired_distance = 1.2
	agent.target_desired_distance = 1.0
	body.add_child(agent)
	add_child(body)
	keep(body)
	body.global_position = _on_ground(w, FROM.x, FROM.z) + Vector3(0, 0.05, 0)
	var target := _on_ground(w, TO.x, TO.z)
	agent.target_position = target
	await get_tree().physics_frame
	var frames := 0
	var falling := 0.0
	while frames < 1800 and not agent.is_navigation_finished():
		var next := agent.get_next_path_position()
		var flat := Vector3(next.x - body.global_position.x, 0, next.z - body.global_position.z)
		var v := flat.normalized() * 8.0 if flat.length() > 0.05 else Vector3.ZERO
		falling = 0.0 if body.is_on_floor() else falling - 30.0 / 60.0
		# A step of one voxel: jump onto it.
		if body.is_on_floor() and body.is_on_wall():
			falling = 8.5
		body.velocity = Vector3(v.x, falling, v.z)
		body.move_and_slide()
		await get_tree().physics_frame
		frames += 1
	print(
		(
			"  agent: %d physics frames, %.2f from the target"
			% [frames, body.global_position.distance_to(target)]
		)
	)
	assert_true(agent.is_navigation_finished(), "the agent finished its path")
	assert_lt(body.global_position.distance_to(target), 1.5, "the agent is at its target")


func test_regions_are_freed_when_navigation_is_turned_off_or_the_world_leaves() -> void:
	var w := _make_world()
	assert_true(await _settle(w), "world and navigation never settled")
	var map := _map(w)
	assert_gt(NavigationServer3D.map_get_regions(map).size(), 8, "regions on the world's map")
	w.navigation_enabled = false
	NavigationServer3D.map_force_update(map)
	await get_tree().physics_frame
	assert_eq(int(w.get_stats()["nav_regions"]), 0)
	assert_eq(
		NavigationServer3D.map_get_regions(map).size(), 0, "navigation off frees every region"
	)
	w.navigation_enabled = true
	assert_true(
		await wait_until(func() -> bool: return int(w.get_stats()["nav_regions"]) > 8, 60.0),
		"turned on again, the loaded chunks are baked again"
	)
	w.navigation_distance = 99
	assert_eq(w.navigation_distance, 8, "clamped with a warning")
	w.free()
	NavigationServer3D.map_force_update(map)
	await get_tree().physics_frame
	assert_eq(NavigationServer3D.map_get_regions(map).size(), 0, "a freed world leaves no region")
