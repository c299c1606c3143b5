## Base class of every Godot test suite (`res://suites/test_*.gd`).
##
## Each method whose name starts with `test_` is one test. It may `await` (frames, signals).
## Assertions record a failure with a message and the test goes on; the runner prints the
## closing line `N passed, N failed`.
class_name StrataTestCase
extends Node

## The script of `critter_scene()`'s root.
const CRITTER_SCRIPT := """extends Node3D

var health: int = 10


func strata_get_state() -> Dictionary:
	return {"health": health}


func strata_set_state(state: Dictionary) -> void:
	health = int(state.get("health", 10))
"""

## Factor on every `wait_until` timeout (the runner's `--wait-scale=N`: emulated CPUs).
static var wait_scale: float = 1.0

var _failures: PackedStringArray = []
## Nodes the running test wants freed after it (see `keep`).
var _kept: Array[Node] = []
## The running test's scratch folder ("" until `scratch_dir` makes it).
var _scratch := ""
## The default block library (`StrataBlockLibrary.create_default()`), made on first use.
var _default_blocks: StrataBlockLibrary


## Called by the runner before each test; override to set up (may await).
func before_each() -> void:
	pass


## Called by the runner after each test; override to tear down (may await).
func after_each() -> void:
	pass


## The id of block `name` in the default library (what a world without `block_library` uses),
## or -1.
func default_block_id(block_name: String) -> int:
	return _default_library().get_block_id(block_name)


## The name of block `id` in the default library, or "".
func default_block_name(id: int) -> String:
	return _default_library().get_block_name(id)


func _default_library() -> StrataBlockLibrary:
	if _default_blocks == null:
		_default_blocks = StrataBlockLibrary.create_default()
	return _default_blocks


## Keeps `n` to be freed after the test (if still valid); returns it.
func keep(n: Node) -> Node:
	_kept.append(n)
	return n


## A side-view world of `preset` (view distance `view`, a frame budget of 8 ms, `workers`
## worker threads) in the tree, following a viewer of its own put at tile `at`; both are freed
## after the test.
func _side_view_world(
	preset: StrataWorldPreset, at := Vector2i.ZERO, view := 1, workers := 2
) -> StrataChunkWorld2D:
	var viewer: Node2D = keep(Node2D.new())
	viewer.name = "SideViewViewer%d" % _kept.size()
	add_child(viewer)
	var w: StrataChunkWorld2D = keep(StrataChunkWorld2D.new())
	w.preset = preset
	w.view_distance = view
	w.frame_budget_ms = 8.0
	w.worker_threads = workers
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	viewer.position = w.tile_to_local(at)
	return w


## A fresh folder under the user data folder for the running test's files (an absolute path),
## made on the first call and removed with everything in it after the test.
func scratch_dir() -> String:
	if _scratch == "":
		_scratch = OS.get_user_data_dir().path_join("%s_%d" % [name, randi()])
		DirAccess.make_dir_recursive_absolute(_scratch)
	return _scratch


## A scene of a Node3D with the test critter's script (a `health` of 10 kept through
## `strata_get_state` / `strata_set_state`), written as `critter.gd` and `critter.tscn` under
## `dir` (made if missing): an entity a world can save, since its scene has a file.
func critter_scene(dir: String) -> PackedScene:
	DirAccess.make_dir_recursive_absolute(dir)
	var script := GDScript.new()
	script.source_code = CRITTER_SCRIPT
	assert_eq(script.reload(), OK, "the critter script compiles")
	assert_eq(ResourceSaver.save(script, dir.path_join("critter.gd")), OK)
	var root := Node3D.new()
	root.name = "Critter"
	root.set_script(load(dir.path_join("critter.gd")))
	var packed := PackedScene.new()
	assert_eq(packed.pack(root), OK)
	root.free()
	assert_eq(ResourceSaver.save(packed, dir.path_join("critter.tscn")), OK)
	return load(dir.path_join("critter.tscn"))


## Frees the kept nodes and removes the scratch folder; the runner calls it after `after_each`.
func clean_up() -> void:
	for n in _kept:
		if is_instance_valid(n):
			n.free()
	_kept.clear()
	if _scratch != "":
		remove_tree(_scratch)
		_scratch = ""


func fail(message: String) -> void:
	_failures.append(message)


func assert_true(cond: bool, message: String = "") -> bool:
	if not cond:
		fail("expected true: " + message)
	return cond


func assert_false(cond: bool, message: String = "") -> bool:
	if cond:
		fail("expected false: " + message)
	return not cond


## True for null and for a null (or freed) object reference.
static func _is_null(v: Variant) -> bool:
	return v == null or (typeof(v) == TYPE_OBJECT and not is_instance_valid(v))


func assert_eq(actual: Variant, expected: Variant, message: String = "") -> bool:
	if _is_null(actual) and _is_null(expected):
		return true
	if typeof(actual) != typeof(expected) or actual != expected:
		fail("expected %s, got %s %s" % [var_to_str(expected), var_to_str(actual), message])
		return false
	return true


func assert_ne(actual: Variant, unexpected: Variant, message: String = "") -> bool:
	if typeof(actual) == typeof(unexpected) and actual == unexpected:
		fail("expected anything but %s %s" % [var_to_str(unexpected), message])
		return false
	return true


func assert_near(actual: float, expected: float, tolerance: float, message: String = "") -> bool:
	if absf(actual - expected) > tolerance:
		fail("expected %f ± %f, got %f %s" % [expected, tolerance, actual, message])
		return false
	return true


func assert_gt(actual: float, bound: float, message: String = "") -> bool:
	if not (actual > bound):
		fail("expected > %s, got %s %s" % [bound, actual, message])
		return false
	return true


func assert_lt(actual: float, bound: float, message: String = "") -> bool:
	if not (actual < bound):
		fail("expected < %s, got %s %s" % [bound, actual, message])
		return false
	return true


## Waits until `predicate.call()` is true or `timeout_s` passes; returns whether it became true.
func wait_until(predicate: Callable, timeout_s: float = 30.0) -> bool:
	var deadline := Time.get_ticks_msec() + int(timeout_s * wait_scale * 1000.0)
	while not predicate.call():
		if Time.get_ticks_msec() > deadline:
			return false
		await get_tree().process_frame
	return true


## Deletes directory `path` and everything in it (test scratch folders).
func remove_tree(path: String) -> void:
	var d := DirAccess.open(path)
	if d == null:
		return
	for sub in d.get_directories():
		remove_tree(path.path_join(sub))
	for f in d.get_files():
		d.remove(f)
	DirAccess.remove_absolute(path)


func wait_frames(n: int) -> void:
	for i in n:
		await get_tree().process_frame


## A shore near the origin: (x, 0, z) with sea water at `sea` − 1 whose +x neighbour is ground at
## `sea` − 1 and `sea` − 2, the water part of a sea (the 9 voxels west of it at `sea` − 1 are
## water: a body larger than the flow's loose water, not a pond); y = -1 when there is none.
func find_sea_shore(w: StrataChunkWorld, sea: int) -> Vector3i:
	var water := default_block_id("water")
	for z in range(-64, 64, 3):
		for x in range(-64, 64):
			if (
				w.get_voxel(Vector3i(x, sea - 1, z)) == water
				and w.get_voxel(Vector3i(x + 1, sea - 1, z)) != water
				and w.get_voxel(Vector3i(x + 1, sea - 1, z)) != 0
				and w.get_voxel(Vector3i(x + 1, sea - 2, z)) != 0
				and range(1, 10).all(
					func(k: int) -> bool: return w.get_voxel(Vector3i(x - k, sea - 1, z)) == water
				)
			):
				return Vector3i(x, 0, z)
	return Vector3i(0, -1, 0)
