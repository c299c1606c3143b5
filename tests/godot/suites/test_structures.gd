## Structures placed by the preset's StructureRules, in real headless Godot: where they stand,
## what they are made of, the rules in .tres files, live edits and clear errors; a world's own
## `StrataStructure`s (from the demo's .vox file, from a captured region, through .tres/.res files
## and .vox files), the same chunks in any order, and a save made with other structures.
extends StrataTestCase

const WATCHTOWER := "res://game/structures/watchtower.vox"

var _worlds: Array[StrataChunkWorld] = []


func _cottage_preset(spacing: int, chance: float) -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = 4242
	var rule := StrataStructureRule.create("cottage", spacing, chance)
	rule.sink = 3
	preset.set_structure_rules([rule] as Array[StrataStructureRule])
	return preset


func _make_world(preset: StrataWorldPreset) -> StrataChunkWorld:
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.adaptive_far_view = false
	add_child(w)
	_worlds.append(w)
	return w


func after_each() -> void:
	for w in _worlds:
		if is_instance_valid(w):
			w.free()
	_worlds.clear()


func test_cottages_stand_where_the_world_says_with_a_floor_and_a_room() -> void:
	var w := _make_world(_cottage_preset(40, 1.0))
	var found := w.get_structures_in(AABB(Vector3(-100, 0, -100), Vector3(200, 1, 200)))
	assert_gt(found.size(), 8, "one cottage in every 40 × 40 cell that is not under the sea")
	var library := StrataBlockLibrary.create_default()
	var planks := library.get_block_id("planks")
	for s: Dictionary in found.slice(0, 4):
		assert_eq(s["structure"], "cottage")
		assert_eq(s["rule"], 0)
		var pos: Vector3i = s["position"]
		var size: Vector3i = s["size"]
		assert_eq(size.y, 11, "height")
		assert_eq(size.x + size.z, 16, "9 × 7, turned or not")
		var middle := pos + Vector3i(size.x / 2, 0, size.z / 2)
		assert_eq(w.get_voxel(middle + Vector3i(0, 3, 0)), planks, "plank floor at %s" % middle)
		assert_eq(w.get_voxel(middle + Vector3i(0, 4, 0)), 0, "air in the room")
		assert_eq(
			w.get_height(middle.x, middle.z), float(pos.y + 11), "the ridge is the column's top"
		)
	# The same answer from a second world of the same preset, before any chunk loads.
	var again := _make_world(_cottage_preset(40, 1.0))
	assert_eq(again.get_structures_in(AABB(Vector3(-100, 0, -100), Vector3(200, 1, 200))), found)


func test_rules_survive_a_tres_file_and_edits_change_the_world() -> void:
	var preset := _cottage_preset(48, 0.5)
	var path := "user://structure_rules_test.tres"
	assert_eq(preset.save_to_file(path), OK, preset.last_error())
	var back := StrataWorldPreset.load_from_file(path)
	assert_true(back != null, "loads")
	var rules := back.get_structure_rules()
	assert_eq(rules.size(), 1)
	assert_eq(rules[0].structure, "cottage")
	assert_eq(rules[0].spacing, 48)
	assert_eq(rules[0].sink, 3)
	assert_eq(back.to_ron(), preset.to_ron())
	assert_eq(back.fingerprint(), preset.fingerprint())
	DirAccess.remove_absolute(ProjectSettings.globalize_path(path))
	# Editing a rule reaches a world using the preset.
	var w := _make_world(back)
	var area := AABB(Vector3(-300, 0, -300), Vector3(600, 1, 600))
	assert_gt(w.get_structures_in(area).size(), 0, "cottages at chance 0.5")
	rules[0].chance = 0.0
	back.set_structure_rules(rules)
	assert_eq(w.get_structures_in(area).size(), 0, "none at chance 0")


func test_bad_rules_and_areas_get_clear_errors() -> void:
	var preset := _cottage_preset(48, 0.5)
	var rules := preset.get_structure_rules()
	rules[0].spacing = 8
	preset.set_structure_rules(rules)
	var e := preset.validate()
	assert_true(e.contains("structures.rules[0].spacing") and e.contains("16..=4096"), e)
	rules[0].spacing = 64
	rules[0].structure = "castle"
	preset.set_structure_rules(rules)
	e = preset.validate()
	assert_true(e.contains("castle") and e.contains("cottage, ruin, crypt"), e)
	rules[0].structure = "crypt"
	preset.set_structure_rules(rules)
	assert_eq(preset.validate(), "")
	var w := _make_world(preset)
	assert_eq(w.get_structures_in(AABB(Vector3.ZERO, Vector3(1e6, 1, 10))), [])
	assert_true(w.last_error().contains("at most 4096"), w.last_error())


func test_a_streaming_world_answers_for_its_new_rules_at_once() -> void:
	var preset := StrataWorldPreset.new()
	var w := _make_world(preset)
	var viewer := Node3D.new()
	add_child(viewer)
	keep(viewer)
	w.viewer = w.get_path_to(viewer)
	assert_true(await wait_until(func() -> bool: return w.is_area_ready()), "streams")
	var area := AABB(Vector3(-256, 0, -256), Vector3(512, 1, 512))
	assert_eq(w.get_structures_in(area), [], "none without rules")
	preset.set_structure_rules(
		[StrataStructureRule.create("ruin", 64, 1.0)] as Array[StrataStructureRule]
	)
	var found := w.get_structures_in(area)
	assert_gt(found.size(), 0, "the same frame, the new rules answer")
	var p: Vector3i = found[0]["position"]
	assert_ne(w.get_voxel(p), 0, "and the voxels are the new world's: the ruin's floor")
	assert_true(await wait_until(func() -> bool: return w.is_area_ready()), "streams the new world")


## The template cell behind cell (u, y, v) of a placement's box turned `turns` quarter turns
## (`Placement::template_cell` in the core).
func _template_cell(size: Vector3i, turns: int, u: int, y: int, v: int) -> Vector3i:
	match turns & 3:
		0:
			return Vector3i(u, y, v)
		1:
			return Vector3i(v, y, size.z - 1 - u)
		2:
			return Vector3i(size.x - 1 - u, y, size.z - 1 - v)
	return Vector3i(size.x - 1 - v, y, u)


## How many cells of `s` placed at `placement` (from `get_structures_in`) differ from the
## world's voxels there (kept cells are not looked at), and the first of them.
func _cells_differing(w: StrataChunkWorld, s: StrataStructure, placement: Dictionary) -> Array:
	var pos: Vector3i = placement["position"]
	var box: Vector3i = placement["size"]
	var turns: int = placement["turns"]
	var wrong := 0
	var first := ""
	for y in box.y:
		for v in box.z:
			for u in box.x:
				var c := _template_cell(s.get_size(), turns, u, y, v)
				var block := s.get_block_name(c.x, c.y, c.z)
				if block == "":
					continue
				var got := w.get_voxel(pos + Vector3i(u, y, v))
				if got != w.get_block_id(block):
					wrong += 1
					if first == "":
						first = "%s: %s, not %s" % [pos + Vector3i(u, y, v), got, block]
	return [wrong, first]


func _tower_preset(structure: String, spacing: int) -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = 4242
	var rule := StrataStructureRule.create(structure, spacing, 1.0)
	rule.sink = 3
	preset.set_structure_rules([rule] as Array[StrataStructureRule])
	return preset


func _world_with(structures: Array[StrataStructure], preset: StrataWorldPreset) -> StrataChunkWorld:
	var w := StrataChunkWorld.new()
	w.structures = structures
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.adaptive_far_view = false
	_worlds.append(w)
	return w


func test_a_structure_from_a_vox_file_stands_where_its_rule_says_alike_in_any_chunk_order() -> void:
	var tower := StrataStructure.from_vox(WATCHTOWER, "watchtower")
	assert_true(tower != null, "the demo's watchtower file loads")
	assert_eq(tower.get_size(), Vector3i(7, 18, 7))
	assert_eq(tower.get_block_name(0, 0, 0), "stone", "the foundation")
	assert_eq(tower.get_block_name(3, 8, 3), "air", "open under the platform")
	assert_eq(tower.get_block_name(0, 14, 0), "torch", "a torch on a corner post")
	var w := _world_with([tower] as Array[StrataStructure], _tower_preset("watchtower", 48))
	add_child(w)
	for warning in w.configuration_warnings():
		assert_false(warning.contains("invalid"), "the preset names the world's own: " + warning)
	assert_ne(w.get_structures_fingerprint(), "", w.last_error())
	var found := w.get_structures_in(AABB(Vector3(-150, 0, -150), Vector3(300, 1, 300)))
	assert_gt(found.size(), 4, "a tower in every 48 × 48 cell not under the sea: " + w.last_error())
	var turns_seen := {}
	for p: Dictionary in found.slice(0, 5):
		assert_eq(p["structure"], "watchtower")
		assert_eq(p["size"].y, 18)
		turns_seen[p["turns"]] = true
		var differing := _cells_differing(w, tower, p)
		assert_eq(differing[0], 0, "every cell of the tower stands: %s" % differing[1])
	# Two worlds of the same preset and structures agree on every chunk a tower spans, asked in
	# opposite orders; a world without the tower differs there.
	var p0: Dictionary = found[0]
	var lo := StrataChunkWorld.chunk_of(Vector3(p0["position"]))
	var hi := StrataChunkWorld.chunk_of(Vector3(p0["position"] + p0["size"] - Vector3i.ONE))
	var chunks: Array[Vector3i] = []
	for y in range(lo.y, hi.y + 1):
		for z in range(lo.z, hi.z + 1):
			for x in range(lo.x, hi.x + 1):
				chunks.append(Vector3i(x, y, z))
	var again := StrataStructure.from_vox(WATCHTOWER, "watchtower")
	var other := _world_with([again] as Array[StrataStructure], _tower_preset("watchtower", 48))
	var plain := _world_with([] as Array[StrataStructure], StrataWorldPreset.new())
	var forward := chunks.map(func(c: Vector3i) -> int: return w.debug_chunk_hash(c))
	var reversed := chunks.duplicate()
	reversed.reverse()
	var backward := reversed.map(func(c: Vector3i) -> int: return other.debug_chunk_hash(c))
	backward.reverse()
	assert_eq(backward, forward, "the same chunks from either order: %s" % [chunks])
	var without := chunks.map(func(c: Vector3i) -> int: return plain.debug_chunk_hash(c))
	assert_ne(without, forward, "the tower is in them")


func test_a_preset_validates_against_a_worlds_own_structures() -> void:
	var tower := StrataStructure.from_vox(WATCHTOWER, "watchtower")
	var preset := _tower_preset("watchtower", 48)
	var w := _world_with([tower] as Array[StrataStructure], preset)
	var plain := _world_with([] as Array[StrataStructure], StrataWorldPreset.new())
	assert_eq(w.validate_preset(preset), "", "the world brings the watchtower")
	var alone := preset.validate()
	assert_true(alone.contains("watchtower"), "without a world only the shipped ones: " + alone)
	var elsewhere := plain.validate_preset(preset)
	assert_true(elsewhere.contains("watchtower") and elsewhere.contains("cottage"), elsewhere)
	assert_eq(
		w.validate_preset(StrataWorldPreset.new()), "", "a preset without rules is valid anywhere"
	)


func test_a_structure_survives_tres_and_res_files() -> void:
	var tower := StrataStructure.from_vox(WATCHTOWER, "watchtower")
	var w := _world_with([tower] as Array[StrataStructure], _tower_preset("watchtower", 48))
	var expected := w.get_structures_fingerprint()
	for path in ["user://structure_test.tres", "user://structure_test.res"]:
		assert_eq(ResourceSaver.save(tower, path), OK, path)
		var back := (
			ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE) as StrataStructure
		)
		assert_true(back != null, path)
		assert_eq(back.structure_name, "watchtower")
		assert_eq(back.get_size(), tower.get_size())
		assert_eq(back.blocks, tower.blocks)
		assert_eq(back.cells, tower.cells)
		var again := _world_with([back] as Array[StrataStructure], _tower_preset("watchtower", 48))
		assert_eq(again.get_structures_fingerprint(), expected, "the same structure from " + path)
		var area := AABB(Vector3(-100, 0, -100), Vector3(200, 1, 200))
		assert_eq(again.get_structures_in(area), w.get_structures_in(area))
		DirAccess.remove_absolute(ProjectSettings.globalize_path(path))


func test_a_captured_region_equals_the_world_and_stands_again_elsewhere() -> void:
	var w := _world_with([] as Array[StrataStructure], StrataWorldPreset.new())
	var ground := int(w.get_height(20, 20))
	var glass := w.get_block_id("glass")
	w.set_voxel(Vector3i(22, ground + 1, 21), glass)
	var from := Vector3i(25, ground - 4, 24)
	var to := Vector3i(18, ground + 5, 19)
	var captured := w.capture_structure(from, to, "hill")
	assert_true(captured != null, w.last_error())
	assert_eq(captured.structure_name, "hill")
	assert_eq(captured.get_size(), Vector3i(8, 10, 6))
	var min := Vector3i(18, ground - 4, 19)
	var wrong := 0
	for y in 10:
		for z in 6:
			for x in 8:
				var id := w.get_voxel(min + Vector3i(x, y, z))
				var block := "air" if id == 0 else w.get_block_name(id)
				if captured.get_block_name(x, y, z) != block:
					wrong += 1
	assert_eq(wrong, 0, "every cell is the world's voxel")
	assert_eq(captured.get_block_name(4, 5, 2), "glass", "the edit is in it")
	var keep_air := w.capture_structure(from, to, "hill", true)
	assert_eq(keep_air.get_block_name(4, 9, 2), "", "air keeps the world")
	assert_eq(keep_air.get_block_name(4, 5, 2), "glass")
	# Placed by a rule in another world, it stands there cell for cell.
	var preset := _tower_preset("hill", 32)
	preset.get_structure_rules()[0].sink = 0
	var other := _world_with([captured] as Array[StrataStructure], preset)
	var found := other.get_structures_in(AABB(Vector3(-100, 0, -100), Vector3(200, 1, 200)))
	assert_gt(found.size(), 0, other.last_error())
	var differing := _cells_differing(other, captured, found[0])
	assert_eq(differing[0], 0, "the captured hill stands again: %s" % differing[1])
	# Through a .vox file: colours back to the same blocks.
	assert_eq(captured.save_vox("user://hill_test.vox"), OK, captured.last_error())
	var from_file := StrataStructure.from_vox("user://hill_test.vox", "hill")
	assert_true(from_file != null)
	wrong = 0
	for y in 10:
		for z in 6:
			for x in 8:
				if from_file.get_block_name(x, y, z) != captured.get_block_name(x, y, z):
					wrong += 1
	assert_eq(wrong, 0, "the .vox file reads back to the same blocks")
	DirAccess.remove_absolute(ProjectSettings.globalize_path("user://hill_test.vox"))


func test_bad_files_blocks_and_sizes_get_errors_naming_them() -> void:
	var s := StrataStructure.new()
	assert_eq(s.load_vox("res://no_such_structure.vox"), ERR_FILE_NOT_FOUND)
	assert_true(
		s.last_error().contains("no_such_structure.vox") and s.last_error().contains(".vox file"),
		s.last_error()
	)
	assert_true(StrataStructure.from_vox("res://no_such_structure.vox", "x") == null)
	assert_eq(s.load_vox("res://project.godot"), ERR_FILE_CORRUPT)
	assert_true(s.last_error().contains("not a MagicaVoxel"), s.last_error())
	var palette := PackedStringArray(["marble"])
	assert_eq(s.load_vox_with(WATCHTOWER, null, palette), ERR_INVALID_DATA)
	assert_true(s.last_error().contains("`marble`"), s.last_error())
	# A block the world's library lacks stops the world, naming the structure and the block.
	var odd := StrataStructure.create("odd", Vector3i(2, 2, 2))
	assert_eq(odd.set_block_name(0, 0, 0, "marble"), OK)
	assert_eq(odd.get_block_name(0, 0, 0), "marble")
	assert_eq(odd.set_block_name(2, 0, 0, "stone"), ERR_PARAMETER_RANGE_ERROR)
	assert_true(odd.last_error().contains("(2, 0, 0)") and odd.last_error().contains("0..2"))
	var w := _world_with([odd] as Array[StrataStructure], _tower_preset("odd", 16))
	assert_eq(w.get_structures_in(AABB(Vector3.ZERO, Vector3(64, 1, 64))), [])
	var e := w.last_error()
	assert_true(e.contains("structures[0]") and e.contains("`marble`") and e.contains("stone"), e)
	assert_eq(w.get_structures_fingerprint(), "")
	# Too large.
	assert_true(StrataStructure.create("flat", Vector3i(0, 1, 1)) == null)
	var plain := _world_with([] as Array[StrataStructure], StrataWorldPreset.new())
	assert_true(plain.capture_structure(Vector3i.ZERO, Vector3i(300, 1, 1), "big") == null)
	assert_true(plain.last_error().contains("301×2×2") and plain.last_error().contains("1..=256"))


func test_a_save_made_with_other_structures_warns_when_it_loads() -> void:
	var tower := StrataStructure.from_vox(WATCHTOWER, "watchtower")
	var w := _world_with([tower] as Array[StrataStructure], _tower_preset("watchtower", 48))
	var path := "user://structures_save_test.strata"
	assert_eq(w.save_world(path), OK, w.last_error())
	assert_eq(w.load_world(path), OK, w.last_error())
	assert_eq(w.last_error(), "", "the same structures: no warning")
	var other := StrataStructure.from_vox(WATCHTOWER, "watchtower")
	other.set_block_name(3, 8, 3, "glass")
	var changed := _world_with([other] as Array[StrataStructure], StrataWorldPreset.new())
	var warnings: Array[String] = []
	changed.load_warning.connect(func(m: String) -> void: warnings.append(m))
	assert_eq(changed.load_world(path), OK)
	assert_eq(changed.last_error(), "", "a load that succeeded records no error")
	assert_eq(warnings.size(), 1, "one load_warning")
	var e := warnings[0] if not warnings.is_empty() else ""
	assert_true(e.contains("other structures") and e.contains(w.get_structures_fingerprint()), e)
	var none := _world_with([] as Array[StrataStructure], StrataWorldPreset.new())
	var none_warnings: Array[String] = []
	none.load_warning.connect(func(m: String) -> void: none_warnings.append(m))
	assert_eq(none.load_world(path), OK)
	assert_eq(none.last_error(), "")
	assert_true(
		none_warnings.size() == 1 and none_warnings[0].contains("other structures"),
		str(none_warnings)
	)
	DirAccess.remove_absolute(ProjectSettings.globalize_path(path))


func test_the_demo_places_its_watchtower_from_the_vox_file() -> void:
	var preset := StrataWorldPreset.new()
	preset.seed = 99
	DemoLife.add_rules(preset)
	DemoLife.add_structure_rules(preset)
	DemoLife.add_structure_rules(preset)
	var names := preset.get_structure_rules().map(
		func(r: StrataStructureRule) -> String: return r.structure
	)
	assert_eq(names, ["cottage", "ruin", "crypt", "watchtower"], "added once")
	var w := _world_with([] as Array[StrataStructure], preset)
	DemoLife.add_structures(w)
	DemoLife.add_structures(w)
	assert_eq(w.structures.size(), 1, "added once")
	var found := w.get_structures_in(AABB(Vector3(-800, 0, -800), Vector3(1600, 1, 1600)))
	var towers := found.filter(func(s: Dictionary) -> bool: return s["structure"] == "watchtower")
	assert_gt(
		towers.size(), 0, "watchtowers among %d structures: %s" % [found.size(), w.last_error()]
	)
	var differing := _cells_differing(w, w.structures[0], towers[0])
	assert_eq(differing[0], 0, "the tower stands: %s" % differing[1])


func test_the_preview_shows_a_worlds_own_structures() -> void:
	var preset := _tower_preset("watchtower", 48)
	var preview := StrataWorldPreview.new()
	var failed := preview.render_now(preset, Vector2i.ZERO, 64, 4.0, 0)
	assert_eq(failed, {}, "the watchtower is none of the shipped structures")
	assert_true(preview.last_error().contains("`watchtower`"), preview.last_error())
	preview.own_structures = (
		[StrataStructure.from_vox(WATCHTOWER, "watchtower")] as Array[StrataStructure]
	)
	var images := preview.render_now(preset, Vector2i.ZERO, 64, 4.0, 0)
	assert_eq(images.size(), 4, preview.last_error())
	var odd := StrataStructure.create("odd", Vector3i(1, 1, 1))
	odd.set_block_name(0, 0, 0, "marble")
	preview.own_structures = [odd] as Array[StrataStructure]
	assert_eq(preview.request(preset, Vector2i.ZERO, 64, 4.0, 0), -1)
	assert_true(
		preview.last_error().contains("structures[0]") and preview.last_error().contains("marble"),
		preview.last_error()
	)
