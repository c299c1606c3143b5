## StrataChunkWorld.generation_hook in real headless Godot: a GDScript Callable amends every
## generated box on the worker threads; what it builds stands in the streamed world (queries, rays,
## meshes,
## sky chunks included), its cost shows in get_stats(), a failing or invalid hook is named and
## leaves the world as generated, and edits survive setting it.
extends StrataTestCase

## The pillars' tops (absolute y): far above the ground of the test seeds.
const PILLAR_TOP := 140
const GLASS := "glass"

var _worlds: Array[StrataChunkWorld] = []


## Glass pillars on a 16-voxel grid (x = 3, z = 5 mod 16) replacing air up to PILLAR_TOP: each
## voxel from its position and the block given, so any box gives the same pillars.
class Pillars:
	extends RefCounted

	var glass: int
	var calls := 0

	func _init(glass_id: int) -> void:
		glass = glass_id

	func amend(origin: Vector3i, size: Vector3i, voxels: PackedInt32Array) -> PackedInt32Array:
		var x0 := origin.x + posmod(3 - origin.x, 16)
		var z0 := origin.z + posmod(5 - origin.z, 16)
		var y_end := mini(origin.y + size.y, PILLAR_TOP)
		for x in range(x0, origin.x + size.x, 16):
			for z in range(z0, origin.z + size.z, 16):
				for y in range(origin.y, y_end):
					var i := ((y - origin.y) * size.z + (z - origin.z)) * size.x + (x - origin.x)
					if voxels[i] == 0:
						voxels[i] = glass
		return voxels


## Hooks that go wrong in each way a hook can.
class Broken:
	extends RefCounted

	func returns_null(_origin: Vector3i, _size: Vector3i, _voxels: PackedInt32Array) -> Variant:
		return null

	func returns_unknown_block(
		_o: Vector3i, _s: Vector3i, voxels: PackedInt32Array
	) -> PackedInt32Array:
		voxels[0] = 60000
		return voxels

	func returns_too_few(_o: Vector3i, _s: Vector3i, voxels: PackedInt32Array) -> PackedInt32Array:
		return voxels.slice(1)


func _make_world(seed: int) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var viewer := Node3D.new()
	viewer.name = "HookViewer%d" % _worlds.size()
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


func test_the_hook_builds_what_it_says_in_the_streamed_world() -> void:
	var plain := _make_world(77)
	var w := _make_world(77)
	var hook := Pillars.new(w.get_block_id(GLASS))
	w.generation_hook = hook.amend
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var ground := int(w.get_height(3, 5))
	assert_lt(ground + 4, PILLAR_TOP, "the pillar rises above the ground")
	for y in [ground + 1, ground + 3, PILLAR_TOP - 1]:
		assert_eq(w.get_voxel(Vector3i(3, y, 5)), hook.glass, "pillar at y=%d" % y)
		assert_eq(plain.get_voxel(Vector3i(3, y, 5)), 0, "no pillar without the hook at y=%d" % y)
	assert_eq(w.get_voxel(Vector3i(3, PILLAR_TOP, 5)), 0, "above the pillar")
	assert_eq(w.get_voxel(Vector3i(4, ground + 3, 5)), 0, "beside the pillar")
	# Every other voxel is as generated: a row of voxels beside the pillars' columns.
	var differ := 0
	for x in range(-40, 40):
		for y in range(ground - 6, ground + 6):
			if w.get_voxel(Vector3i(x, y, 6)) != plain.get_voxel(Vector3i(x, y, 6)):
				differ += 1
	assert_eq(differ, 0, "voxels off the pillars' columns that differ")
	assert_ne(w.debug_chunk_hash(Vector3i(0, 0, 0)), plain.debug_chunk_hash(Vector3i(0, 0, 0)))
	# A ray from above lands on the pillar's top, in a chunk that is sky without the hook.
	var hit := w.raycast(Vector3(3.5, PILLAR_TOP + 20.5, 5.5), Vector3(0, -1, 0), 64.0)
	assert_eq(hit.get("position"), Vector3i(3, PILLAR_TOP - 1, 5), "the pillar's top")
	assert_eq(hit.get("block"), hook.glass)
	var stats := w.get_stats()
	assert_gt(stats.get("generation_hook_calls", 0), 0, "calls counted")
	assert_gt(stats.get("generation_hook_ms", 0.0), 0.0, "time counted")
	assert_gt(stats.get("generation_hook_us_mean", 0.0), 0.0, "mean time")
	assert_eq(stats.get("generation_hook_failures", -1), 0, "no failures")
	assert_false(plain.get_stats().has("generation_hook_calls"), "no hook, no hook stats")
	assert_eq(w.last_error(), "", "no error")


func test_a_sky_chunk_with_only_pillars_gets_a_mesh() -> void:
	var w := _make_world(78)
	w.vertical_view_distance = 2
	var hook := Pillars.new(w.get_block_id(GLASS))
	w.generation_hook = hook.amend
	var ground := int(w.get_height(3, 5))
	# The chunk above the ground's and the sea's chunk, below the pillars' tops.
	var c := Vector3i(0, floori((maxi(ground, 64) + 40) / 32.0), 0)
	assert_lt(c.y * 32 + 32, PILLAR_TOP + 1, "the chunk lies under the pillars' tops")
	var viewer := w.get_node(w.viewer) as Node3D
	viewer.position = Vector3(16, c.y * 32 + 16, 16)
	var has_mesh := func() -> bool:
		var n := w.get_node_or_null("chunk_%d_%d_%d" % [c.x, c.y, c.z]) as MeshInstance3D
		return n != null and n.mesh != null
	assert_true(await wait_until(has_mesh, 60.0), "chunk %s never got a mesh" % c)
	assert_ne(w.debug_build_chunk_mesh(c, false), null, "debug_build_chunk_mesh agrees")


func test_a_failing_hook_is_named_and_leaves_the_world_as_generated() -> void:
	var plain := _make_world(79)
	var broken := Broken.new()
	var cases := {
		"returns_null": "PackedInt32Array",
		"returns_unknown_block": "60000",
		"returns_too_few": "voxels, not the",
	}
	for method: String in cases:
		var w := _make_world(79)
		w.generation_hook = Callable(broken, method)
		assert_true(await wait_until(w.is_area_ready, 60.0), "%s: area never became ready" % method)
		var reported := func() -> bool: return w.last_error().contains("generation_hook")
		assert_true(
			await wait_until(reported, 10.0), "%s: not reported: %s" % [method, w.last_error()]
		)
		assert_true(w.last_error().contains(cases[method]), "%s: %s" % [method, w.last_error()])
		assert_gt(w.get_stats().get("generation_hook_failures", 0), 0, method)
		assert_eq(
			w.debug_chunk_hash(Vector3i(0, 0, 0)), plain.debug_chunk_hash(Vector3i(0, 0, 0)), method
		)
		w.free()


func test_an_invalid_callable_is_refused_and_the_hook_stays_as_it_was() -> void:
	var w := _make_world(80)
	var gone := Pillars.new(w.get_block_id(GLASS))
	w.generation_hook = Callable(gone, "no_such_method")
	assert_true(w.last_error().contains("cannot be called"), w.last_error())
	assert_true(w.generation_hook.is_null(), "the hook stays off")
	assert_false(w.get_stats().has("generation_hook_calls"))


func test_edits_survive_setting_and_clearing_the_hook() -> void:
	var w := _make_world(81)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var ground := int(w.get_height(3, 5))
	var placed := Vector3i(3, ground + 2, 5)
	w.set_voxel(placed, w.get_block_id("planks"))
	var dug := Vector3i(8, ground - 1, 8)
	w.set_voxel(dug, 0)
	var hook := Pillars.new(w.get_block_id(GLASS))
	w.generation_hook = hook.amend
	assert_eq(w.get_voxel(placed), w.get_block_id("planks"), "the edit wins over the hook")
	assert_eq(w.get_voxel(placed + Vector3i.UP), hook.glass, "the pillar goes on above it")
	assert_eq(w.get_voxel(dug), 0, "the dug voxel stays dug")
	w.generation_hook = Callable()
	assert_eq(w.get_voxel(placed + Vector3i.UP), 0, "no pillar once the hook is off")
	assert_eq(w.get_voxel(placed), w.get_block_id("planks"), "the edit is kept")
	assert_eq(w.get_edit_count(), 2)
