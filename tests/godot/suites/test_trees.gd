## Trees of the world's blocks (the preset's tree settings) in real headless Godot: they stand
## where `get_trees_in` says, made of the library's log and leaves, in streamed chunks as in the
## world's voxel query; they are minable block by block (undo restores them); and the tree
## settings survive .tres and RON files and Godot's own resource saver.
extends StrataTestCase

const SPECIES := ["oak", "birch", "spruce", "acacia"]
## Columns around the origin (a forest in the default world) asked for trees.
const AREA := AABB(Vector3(-96, 0, -96), Vector3(192, 1, 192))

var _nodes: Array[Node] = []


## The default world (a forest at the origin) with trees on.
func _tree_preset() -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.trees_enabled = true
	return preset


func _make_world(preset: StrataWorldPreset, at: Vector3) -> StrataChunkWorld:
	var viewer := Node3D.new()
	viewer.name = "TreeViewer%d" % _nodes.size()
	viewer.position = at
	add_child(viewer)
	_nodes.append(viewer)
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.frame_budget_ms = 8.0
	w.far_view_levels = 0
	w.adaptive_far_view = false
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	_nodes.append(w)
	return w


func after_each() -> void:
	for n in _nodes:
		if is_instance_valid(n):
			n.free()
	_nodes.clear()


## The voxels of `w` in the box `a..b` (both included) that are block `id`.
func _count(w: StrataChunkWorld, a: Vector3i, b: Vector3i, id: int) -> int:
	var n := 0
	for x in range(a.x, b.x + 1):
		for y in range(a.y, b.y + 1):
			for z in range(a.z, b.z + 1):
				if w.get_voxel(Vector3i(x, y, z)) == id:
					n += 1
	return n


## Checks that tree `t` (a dictionary of `get_trees_in`) stands in `w`: a log at its base on
## solid ground, leaves in its box (unless bare), nothing of it above its height.
func _check_tree(w: StrataChunkWorld, t: Dictionary) -> void:
	var log_id := default_block_id("log")
	var leaves := default_block_id("leaves")
	var pos: Vector3i = t["position"]
	var height: int = t["height"]
	var reach: int = int(t["crown_radius"]) + 6
	assert_true(SPECIES.has(t["species"]), "species %s" % t["species"])
	assert_gt(int(t["trunk_height"]), 0, "trunk height")
	assert_true(height >= int(t["trunk_height"]), "height %d" % height)
	assert_eq(w.get_voxel(pos), log_id, "a log at the base %s" % pos)
	var ground := w.get_voxel(pos - Vector3i(0, 1, 0))
	assert_true(ground != 0 and ground != log_id, "ground under %s: %d" % [pos, ground])
	var crown := _count(
		w, pos - Vector3i(reach, 0, reach), pos + Vector3i(reach, height - 1, reach), leaves
	)
	assert_gt(crown, 0, "leaves in the crown of %s" % pos)


func test_trees_stand_where_the_world_says_of_log_and_leaves() -> void:
	var off := StrataWorldPreset.new()
	var plain := _make_world(off, Vector3.ZERO)
	assert_eq(plain.get_trees_in(AREA), [], "no trees while they are off")
	var w := _make_world(_tree_preset(), Vector3.ZERO)
	var trees := w.get_trees_in(AREA)
	# Turning trees on in a world's preset reaches its queries at once.
	off.trees_enabled = true
	assert_eq(plain.get_trees_in(AREA), trees, "the same trees once turned on")
	assert_gt(trees.size(), 20, "a forest around the origin")
	var names := {}
	for t: Dictionary in trees:
		names[t["species"]] = true
	assert_gt(names.size(), 1, "more than one species: %s" % [names.keys()])
	for t: Dictionary in trees.slice(0, 6):
		_check_tree(w, t)
	# The same answer from a second world of the same preset, before any chunk loads.
	var again := _make_world(_tree_preset(), Vector3.ZERO)
	assert_eq(again.get_trees_in(AREA), trees)
	# A larger area than allowed is a clear error.
	assert_eq(w.get_trees_in(AABB(Vector3.ZERO, Vector3(5000, 1, 10))), [])
	assert_true(w.last_error().contains("get_trees_in"), w.last_error())


func test_streamed_chunks_hold_the_trees_and_a_log_is_minable() -> void:
	var probe := _make_world(_tree_preset(), Vector3.ZERO)
	var trees := probe.get_trees_in(AREA)
	if not assert_gt(trees.size(), 0, "trees to stream"):
		return
	var t: Dictionary = trees[0]
	var pos: Vector3i = t["position"]
	var w := _make_world(_tree_preset(), Vector3(pos) + Vector3(0.5, 2.0, 0.5))
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	assert_gt(w.get_stats()["loaded_chunks"], 0, "chunks streamed")
	_check_tree(w, t)
	var log_id := default_block_id("log")
	# Mined block by block: the base log goes, the log above stays; undo brings it back.
	w.set_voxel(pos, 0)
	assert_eq(w.get_voxel(pos), 0, "the mined log is air")
	assert_eq(w.get_voxel(pos + Vector3i(0, 1, 0)), log_id, "the trunk above stays")
	assert_true(w.undo(), "undo the dig")
	assert_eq(w.get_voxel(pos), log_id, "undo restores the log")
	assert_eq(w.get_edit_count(), 0, "no edit left")


func test_tree_settings_survive_tres_and_ron_files() -> void:
	var preset := _tree_preset()
	preset.tree_settings_ron = (
		'(enabled: true, spacing: 7, density: 2.0, species: [(name: "pine", crown: Conical,'
		+ ' biomes: [(biome: "forest", weight: 1.0), (biome: "taiga", weight: 1.0)])])'
	)
	assert_eq(preset.last_error(), "", "the tree settings parse")
	assert_true(preset.trees_enabled)
	assert_true(preset.tree_settings_ron.contains("pine"), preset.tree_settings_ron)
	assert_eq(preset.validate(), "", "valid")
	var w := _make_world(preset, Vector3.ZERO)
	var trees := w.get_trees_in(AREA)
	assert_gt(trees.size(), 0, "pines grow")
	for t: Dictionary in trees:
		assert_eq(t["species"], "pine")
	var dir := scratch_dir()
	# Strata's own writer and reader (.tres and .ron).
	for file_name in ["trees.tres", "trees.ron"]:
		var path := dir.path_join(file_name)
		assert_eq(preset.save_to_file(path), OK, preset.last_error())
		var back := StrataWorldPreset.load_from_file(path)
		if not assert_true(back != null, "%s loads" % file_name):
			continue
		assert_eq(back.tree_settings_ron, preset.tree_settings_ron, file_name)
		assert_eq(back.to_ron(), preset.to_ron(), file_name)
		assert_eq(back.fingerprint(), preset.fingerprint(), file_name)
	# Godot's own saver and loader (the storage property).
	var res_path := dir.path_join("trees_godot.tres")
	assert_eq(ResourceSaver.save(preset, res_path), OK)
	var loaded := ResourceLoader.load(res_path, "", ResourceLoader.CACHE_MODE_IGNORE)
	var godot_back := loaded as StrataWorldPreset
	if assert_true(godot_back != null, "Godot loads it"):
		assert_eq(godot_back.tree_settings_ron, preset.tree_settings_ron)
		assert_eq(godot_back.fingerprint(), preset.fingerprint())
	# RON text and a changed fingerprint.
	var from_ron := StrataWorldPreset.from_ron(preset.to_ron())
	if assert_true(from_ron != null, "from_ron"):
		assert_eq(from_ron.tree_settings_ron, preset.tree_settings_ron)
	var without := _tree_preset()
	without.trees_enabled = false
	assert_ne(without.fingerprint(), preset.fingerprint(), "trees change the world")
	assert_eq(without.tree_settings_ron, "", "the default section is empty text")
	# Text that does not parse changes nothing and says why.
	preset.tree_settings_ron = "(((("
	assert_true(preset.last_error().contains("tree_settings_ron"), preset.last_error())
	assert_true(preset.tree_settings_ron.contains("pine"), "unchanged")
	# A species naming a block the library lacks: validation names it.
	preset.tree_settings_ron = '(enabled: true, species: [(name: "x", log_block: "no_such_log")])'
	assert_true(preset.validate().contains("no_such_log"), preset.validate())
