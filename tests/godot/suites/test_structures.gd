## Structures placed by the preset's StructureRules, in real headless Godot: where they stand,
## what they are made of, the rules in .tres files, live edits and clear errors.
extends StrataTestCase

var _worlds: Array[ChunkWorld] = []


func _cottage_preset(spacing: int, chance: float) -> WorldPreset:
	var preset := WorldPreset.new()
	preset.seed = 4242
	var rule := StructureRule.create("cottage", spacing, chance)
	rule.sink = 3
	preset.set_structure_rules([rule] as Array[StructureRule])
	return preset


func _make_world(preset: WorldPreset) -> ChunkWorld:
	var w := ChunkWorld.new()
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
	var library := BlockLibrary.create_default()
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
	var back := WorldPreset.load_from_file(path)
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
	var preset := WorldPreset.new()
	var w := _make_world(preset)
	var viewer := Node3D.new()
	add_child(viewer)
	keep(viewer)
	w.viewer = w.get_path_to(viewer)
	assert_true(await wait_until(func() -> bool: return w.is_area_ready()), "streams")
	var area := AABB(Vector3(-256, 0, -256), Vector3(512, 1, 512))
	assert_eq(w.get_structures_in(area), [], "none without rules")
	preset.set_structure_rules([StructureRule.create("ruin", 64, 1.0)] as Array[StructureRule])
	var found := w.get_structures_in(area)
	assert_gt(found.size(), 0, "the same frame, the new rules answer")
	var p: Vector3i = found[0]["position"]
	assert_ne(w.get_voxel(p), 0, "and the voxels are the new world's: the ruin's floor")
	assert_true(await wait_until(func() -> bool: return w.is_area_ready()), "streams the new world")
