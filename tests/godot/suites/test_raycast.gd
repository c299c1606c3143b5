## StrataChunkWorld's exact voxel raycast and shape edits (set_voxels_box, set_voxels_sphere) in
## real headless Godot.
extends StrataTestCase

var _worlds: Array[StrataChunkWorld] = []


func _make_world(seed: int) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var viewer := Node3D.new()
	viewer.name = "RayViewer%d" % _worlds.size()
	add_child(viewer)
	keep(viewer)
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.frame_budget_ms = 8.0
	w.far_view_levels = 0
	w.adaptive_far_view = false
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	_worlds.append(w)
	return w


func after_each() -> void:
	for w in _worlds:
		if is_instance_valid(w):
			w.free()
	_worlds.clear()


## How many voxels of `cells` are not `block` now.
func _count_not(w: StrataChunkWorld, cells: Array[Vector3i], block: int) -> int:
	var n := 0
	for p in cells:
		if w.get_voxel(p) != block:
			n += 1
	return n


func test_a_ray_from_above_hits_the_ground_at_its_height() -> void:
	var w := _make_world(31)
	var h := int(w.get_height(4, 4))
	var t0 := Time.get_ticks_usec()
	var hit := w.raycast(Vector3(4.5, h + 20.5, 4.5), Vector3(0, -1, 0), 64.0)
	print("  raycast of 21 voxels down: %d us" % (Time.get_ticks_usec() - t0))
	assert_eq(hit.get("position"), Vector3i(4, h - 1, 4), "hit voxel")
	assert_eq(hit.get("normal"), Vector3i(0, 1, 0), "normal up")
	assert_near(hit.get("distance", -1.0), 20.5, 1e-6, "distance")
	assert_near((hit["point"] as Vector3).y, float(h), 1e-4, "point on the top face")
	assert_eq(hit.get("block"), w.get_voxel(Vector3i(4, h - 1, 4)), "block")
	# Too short to reach the ground.
	assert_eq(w.raycast(Vector3(4.5, h + 20.5, 4.5), Vector3(0, -1, 0), 20.0), {})


func test_a_ray_into_the_sky_hits_nothing_and_a_bad_ray_says_why() -> void:
	var w := _make_world(31)
	var h := int(w.get_height(0, 0))
	assert_eq(w.raycast(Vector3(0.5, h + 50, 0.5), Vector3(0.3, 1, 0.2), 1000.0), {})
	assert_eq(w.raycast(Vector3(0.5, h + 50, 0.5), Vector3.ZERO, 10.0), {})
	assert_true(w.last_error().contains("direction"), w.last_error())


func test_rays_pass_through_dug_tunnels() -> void:
	var w := _make_world(32)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var h := int(w.get_height(0, 0))
	# A vertical shaft: the ray goes down it to whatever is solid below.
	assert_gt(w.set_voxels_box(Vector3i(0, h - 1, 0), Vector3i(0, h - 6, 0), 0), 0, w.last_error())
	var down := w.raycast(Vector3(0.5, h + 10.5, 0.5), Vector3(0, -1, 0), 200.0)
	assert_eq((down["position"] as Vector3i).y, int(w.get_height(0, 0)) - 1, "the shaft's floor")
	assert_lt((down["position"] as Vector3i).y, h - 6, "below the dug shaft")
	# A horizontal tunnel ending at a placed stone.
	var y := h - 20
	w.set_voxels_box(Vector3i(1, y, 0), Vector3i(20, y, 0), 0)
	w.set_voxel(Vector3i(21, y, 0), default_block_id("stone"))
	var from := Vector3(1.5, y + 0.5, 0.5)
	assert_eq(w.raycast(from, Vector3(1, 0, 0), 19.4), {}, "the tunnel is open")
	var hit := w.raycast(from, Vector3(1, 0, 0), 40.0)
	assert_eq(hit.get("position"), Vector3i(21, y, 0))
	assert_eq(hit.get("normal"), Vector3i(-1, 0, 0))
	assert_near(hit.get("distance", -1.0), 19.5, 1e-6)
	# Place against the hit face, as a player would.
	var place: Vector3i = hit["position"] + hit["normal"]
	assert_eq(place, Vector3i(20, y, 0))


func test_fill_box_and_fill_sphere_change_exactly_their_voxels_and_survive_a_save() -> void:
	var w := _make_world(33)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var stone := default_block_id("stone")
	var h := int(w.get_height(8, 8))
	var a := Vector3i(6, h - 2, 9)
	var b := Vector3i(9, h + 1, 7)
	var inside: Array[Vector3i] = []
	var around: Dictionary = {}
	for x in range(5, 11):
		for y in range(h - 3, h + 3):
			for z in range(6, 11):
				var p := Vector3i(x, y, z)
				if x >= 6 and x <= 9 and y >= h - 2 and y <= h + 1 and z >= 7 and z <= 9:
					inside.append(p)
				else:
					around[p] = w.get_voxel(p)
	assert_eq(inside.size(), 4 * 4 * 3)
	var expected := _count_not(w, inside, stone)
	var edits_before := w.get_edit_count()
	var t0 := Time.get_ticks_usec()
	assert_eq(w.set_voxels_box(a, b, stone), expected, w.last_error())
	print("  set_voxels_box of 48 voxels: %d us" % (Time.get_ticks_usec() - t0))
	assert_eq(_count_not(w, inside, stone), 0, "every voxel of the box is stone")
	for p in around:
		if w.get_voxel(p) != around[p]:
			fail("voxel %s outside the box changed" % p)
	assert_eq(w.get_edit_count(), edits_before + expected)
	assert_eq(w.set_voxels_box(a, b, stone), 0, "a second fill changes nothing")
	assert_false(w.is_area_ready(), "remesh pending")
	assert_true(await wait_until(w.is_area_ready, 30.0), "the batch remeshes")

	var c := Vector3i(-10, h + 4, -10)
	var ball: Array[Vector3i] = []
	var shell: Dictionary = {}
	for x in range(-4, 5):
		for y in range(-4, 5):
			for z in range(-4, 5):
				var p := c + Vector3i(x, y, z)
				if Vector3(x, y, z).length() <= 2.5:
					ball.append(p)
				else:
					shell[p] = w.get_voxel(p)
	var glass := default_block_id("glass")
	if glass < 0:
		glass = default_block_id("dirt")
	assert_eq(ball.size(), 81, "offsets within 2.5 of the centre")
	var to_change := _count_not(w, ball, glass)
	assert_eq(w.set_voxels_sphere(c, 2.5, glass), to_change, w.last_error())
	assert_eq(_count_not(w, ball, glass), 0, "every voxel of the sphere is filled")
	for p in shell:
		if w.get_voxel(p) != shell[p]:
			fail("voxel %s outside the sphere changed" % p)

	var path := scratch_dir().path_join("shapes.strata")
	assert_eq(w.save_world(path), OK, w.last_error())
	var other := _make_world(1)
	assert_eq(other.load_world(path), OK, other.last_error())
	assert_eq(_count_not(other, inside, stone), 0, "the box survives save and load")
	assert_eq(_count_not(other, ball, glass), 0, "the sphere survives save and load")


func test_too_large_shapes_and_bad_blocks_are_refused_and_change_nothing() -> void:
	var w := _make_world(34)
	var edits := w.get_edit_count()
	assert_eq(w.set_voxels_box(Vector3i(0, 0, 0), Vector3i(100, 100, 99), 1), -1)
	assert_true(w.last_error().contains("1020100"), w.last_error())
	assert_true(w.last_error().contains("1000000"), w.last_error())
	assert_eq(w.set_voxels_sphere(Vector3i(0, 0, 0), 80.0, 1), -1)
	assert_true(w.last_error().contains("sphere"), w.last_error())
	assert_eq(w.set_voxels_box(Vector3i(0, 0, 0), Vector3i(1, 1, 1), 9999), -1)
	assert_true(w.last_error().contains("9999"), w.last_error())
	assert_eq(w.set_voxels_sphere(Vector3i(0, 0, 0), -1.0, 1), -1)
	assert_true(w.last_error().contains("radius"), w.last_error())
	assert_eq(w.get_edit_count(), edits, "nothing changed")
