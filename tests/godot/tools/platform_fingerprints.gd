## Fingerprints of what this machine's Strata makes, for `cargo xtask platforms`
## (rust/xtask/src/platforms.rs): the same scene runs in the x86_64 Godot and in the Godot of the
## platform under test, and the lines must be equal (law: Deterministic, on every machine).
##
## One world (default preset, seed 20261129, view distance 2, no far view) streams around the
## origin; then it prints, each as a SHA-256:
## * `voxels`: get_voxel over a 24 × 96 × 24 box across chunk borders, as generated (inside the
##   loaded chunks: elsewhere get_voxel generates a chunk per call);
## * `meshes`: every chunk MeshInstance3D's surface arrays (var_to_bytes), sorted by position;
## * `save`: the bytes of save_world after 40 seeded edits and a state value;
## * `edited`: get_voxel over the same box after the edits.
## With `--load=PATH` (a save another machine wrote) it loads that file into a new world and
## prints `loaded` (the box's voxels after the load) and `loaded_edits`, the edit count.
## The last line is `strata-platform-fingerprints: arch=… key=value…`; exit 0, or 1 on a failure.
extends Node

const PREFIX := "strata-platform-fingerprints:"
const SEED := 20261129
const LIMIT_S := 600.0
const BOX_FROM := Vector3i(-12, -32, -12)
const BOX_SIZE := Vector3i(24, 96, 24)

var _out := {}


func _ready() -> void:
	if not ClassDB.class_exists("StrataChunkWorld"):
		_fail("the StrataChunkWorld class is not registered: the extension did not load")
		return
	var load_path := ""
	var save_path := "user://platform_fingerprints.strata"
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--load="):
			load_path = arg.substr(7)
		elif arg.begins_with("--save="):
			save_path = arg.substr(7)
	var w := _make_world(SEED)
	if not await _wait_ready(w):
		return
	_out["voxels"] = _voxel_hash(w)
	_out["meshes"] = _mesh_hash(w)
	_out["mesh_count"] = _meshes(w).size()
	_edit(w)
	_out["edited"] = _voxel_hash(w)
	if w.save_world(save_path) != OK:
		_fail("save_world(%s) failed: %s" % [save_path, w.last_error()])
		return
	_out["save"] = _sha(FileAccess.get_file_as_bytes(save_path))
	if load_path != "":
		var other := _make_world(SEED + 1)
		if other.load_world(load_path) != OK:
			_fail("load_world(%s) failed: %s" % [load_path, other.last_error()])
			return
		if not await _wait_ready(other):
			return
		_out["loaded"] = _voxel_hash(other)
		_out["loaded_edits"] = other.get_edit_count()
	var pairs := PackedStringArray(["arch=" + Engine.get_architecture_name()])
	for key: String in _out:
		pairs.append("%s=%s" % [key, _out[key]])
	print(PREFIX + " " + " ".join(pairs))
	get_tree().quit(0)


func _make_world(world_seed: int) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = world_seed
	var viewer := Node3D.new()
	add_child(viewer)
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 2
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.adaptive_far_view = false
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	return w


func _wait_ready(w: StrataChunkWorld) -> bool:
	var started := Time.get_ticks_msec()
	while not w.is_area_ready():
		if Time.get_ticks_msec() - started > LIMIT_S * 1000.0:
			_fail("the area was not ready after %.0f s (progress %s)" % [LIMIT_S, w.get_progress()])
			return false
		await get_tree().process_frame
	# Edits re-mesh on workers: let the results land.
	for i in 5:
		await get_tree().process_frame
	return true


func _voxel_hash(w: StrataChunkWorld) -> String:
	var ids := PackedInt32Array()
	for x in BOX_SIZE.x:
		for z in BOX_SIZE.z:
			for y in BOX_SIZE.y:
				ids.append(w.get_voxel(BOX_FROM + Vector3i(x, y, z)))
	return _sha(ids.to_byte_array())


func _meshes(w: StrataChunkWorld) -> Array[MeshInstance3D]:
	var out: Array[MeshInstance3D] = []
	for child in w.get_children(true):
		if child is MeshInstance3D and (child as MeshInstance3D).mesh != null:
			out.append(child)
	out.sort_custom(
		func(a: MeshInstance3D, b: MeshInstance3D) -> bool: return str(a.position) < str(b.position)
	)
	return out


func _mesh_hash(w: StrataChunkWorld) -> String:
	var ctx := HashingContext.new()
	ctx.start(HashingContext.HASH_SHA256)
	for mi in _meshes(w):
		ctx.update(str(mi.position).to_utf8_buffer())
		for s in mi.mesh.get_surface_count():
			ctx.update(var_to_bytes(mi.mesh.surface_get_arrays(s)))
	return ctx.finish().hex_encode()


func _edit(w: StrataChunkWorld) -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = SEED
	for i in 40:
		var x := rng.randi_range(-10, 10)
		var z := rng.randi_range(-10, 10)
		var p := Vector3i(x, int(w.get_height(x, z)) + rng.randi_range(-3, 2), z)
		w.set_voxel(p, [0, 1, 3, 6][i % 4])
	w.set_state("platform", "fingerprints")


func _sha(bytes: PackedByteArray) -> String:
	var ctx := HashingContext.new()
	ctx.start(HashingContext.HASH_SHA256)
	ctx.update(bytes)
	return ctx.finish().hex_encode()


func _fail(message: String) -> void:
	push_error("strata-platform-fingerprints: " + message)
	get_tree().quit(1)
