## Side-view structures in real headless Godot: a structure placed by a rule is streamed into the
## TileMapLayer exactly at the tiles the core predicts, across a chunk corner; own structures
## drawn in an image or a TileMapLayer scene; they survive edits, save and load as the world
## does; bad structures give errors that name them.
extends StrataTestCase

## Pixels per tile (the created TileSet's).
const PX := 16


## An RGBA8 image of `rows` (one character a pixel) with each character's bytes from `bytes`.
func _image(rows: Array, bytes: Dictionary) -> Image:
	var data := PackedByteArray()
	for row: String in rows:
		for ch in row:
			for b: int in bytes[ch]:
				data.append(b)
	return Image.create_from_data(rows[0].length(), rows.size(), false, Image.FORMAT_RGBA8, data)


func _rule(structure: String, placement: int, spacing: int) -> StrataStructureRule:
	var r := StrataStructureRule.create(structure, spacing, 1.0)
	r.placement = placement
	r.sink = 1
	r.depth_min = 12
	r.depth_max = 40
	return r


func _make_world(seed: int, rules: Array[StrataStructureRule]) -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	preset.structure_rules = rules
	return _side_view_world(preset)


## The first structure of `w` named `structure_name` whose box crosses a chunk corner.
func _corner_structure(w: StrataChunkWorld2D, structure_name: String) -> Dictionary:
	var n := w.chunk_tiles()
	for s: Dictionary in w.get_structures_in(Rect2i(0, -4096, 30000, 8192)):
		if s["structure"] != structure_name:
			continue
		var p: Vector2i = s["position"]
		var e: Vector2i = p + (s["size"] as Vector2i) - Vector2i.ONE
		if floori(p.x / float(n)) != floori(e.x / float(n)):
			if floori(p.y / float(n)) != floori(e.y / float(n)):
				return s
	return {}


## Streams the area around `s` and checks every tile it sets, in `get_tile` and in the layer.
func _check_streamed(w: StrataChunkWorld2D, s: Dictionary, what: String) -> int:
	var p: Vector2i = s["position"]
	var size: Vector2i = s["size"]
	(w.get_node(w.viewer) as Node2D).position = w.tile_to_local(p + size / 2)
	# The world reads the viewer's new place in its next frames; the old area is ready until then.
	for i in 3:
		await get_tree().process_frame
	assert_true(await wait_until(w.is_area_ready, 60.0), "%s: area never became ready" % what)
	var layer := w.get_tile_map_layer()
	var checked := 0
	for y in range(p.y, p.y + size.y):
		for x in range(p.x, p.x + size.x):
			var t := Vector2i(x, y)
			var want := w.get_structure_tile(s, t)
			if want < 0:
				continue
			checked += 1
			assert_eq(w.get_tile(t), want, "%s: get_tile %s" % [what, t])
			if want == 0:
				assert_eq(
					layer.get_cell_source_id(t), -1, "%s: air at %s is an empty cell" % [what, t]
				)
			else:
				assert_eq(layer.get_cell_atlas_coords(t).y, want, "%s: layer row at %s" % [what, t])
	return checked


func test_a_rule_places_a_structure_where_the_core_predicts_across_a_chunk_corner() -> void:
	var rules: Array[StrataStructureRule] = [
		_rule("cottage", StrataStructureRule.PLACEMENT_SURFACE, 24),
		_rule("crypt", StrataStructureRule.PLACEMENT_UNDERGROUND, 40),
	]
	var w := _make_world(7, rules)
	for structure_name in ["cottage", "crypt"]:
		var s := _corner_structure(w, structure_name)
		assert_false(s.is_empty(), "a %s crosses a chunk corner" % structure_name)
		if s.is_empty():
			continue
		var checked: int = await _check_streamed(w, s, structure_name)
		assert_gt(checked, 40, "%s: its tiles were checked" % structure_name)
	# Before any chunk loads, every machine gets the same answer.
	var other := _make_world(7, rules)
	var area := Rect2i(-500, -600, 3000, 1200)
	assert_eq(
		other.get_structures_in(area), w.get_structures_in(area), "same seed, same placements"
	)
	var crypt := _corner_structure(w, "crypt")
	assert_eq(w.get_tile(crypt["position"] + Vector2i(6, 5)), w.get_block_id("gold_ore"))


func test_own_structures_from_an_image_and_a_tile_map_layer() -> void:
	# A 5 × 4 hut: planks walls, air inside, a glass window, transparent corners keep the world.
	var rows := ["-PPP-", "PAAAG", "PAAAP", "PPPPP"]
	var img := _image(
		rows,
		{
			"-": [0, 0, 0, 0],
			"P": [160, 120, 60, 255],
			"A": [0, 0, 0, 255],
			"G": [200, 230, 240, 255]
		}
	)
	var colors := {"#a0783c": "planks", "#000000": "air", Color8(200, 230, 240): "glass"}
	var hut := StrataStructure2D.from_image(img, colors, "hut")
	assert_true(hut != null, "from_image")
	assert_eq(hut.get_block_name(0, 0), "", "a transparent pixel keeps the world")
	assert_eq(hut.get_block_name(2, 1), "air")
	assert_eq(hut.get_block_name(4, 1), "glass")
	assert_eq(hut.get_block_name(2, 3), "planks")
	# A 3 × 2 mound painted in a TileMapLayer: atlas row = block id.
	var none: Array[StrataStructureRule] = []
	var probe := _make_world(5, none)
	var layer := TileMapLayer.new()
	layer.tile_set = probe.get_tile_map_layer().tile_set if probe.get_tile_map_layer() else null
	var stone := probe.get_block_id("stone")
	var gravel := probe.get_block_id("gravel")
	for x in 3:
		layer.set_cell(Vector2i(10 + x, 21), 0, Vector2i(0, stone))
	layer.set_cell(Vector2i(11, 20), 0, Vector2i(0, gravel))
	var mound := StrataStructure2D.new()
	mound.structure_name = "mound"
	assert_eq(mound.load_tile_map(layer, null), OK, mound.last_error())
	layer.free()
	assert_eq(mound.get_block_name(0, 1), "stone")
	assert_eq(mound.get_block_name(1, 0), "gravel")
	assert_eq(mound.get_block_name(0, 0), "", "unpainted: keep")
	var rules: Array[StrataStructureRule] = [
		_rule("hut", StrataStructureRule.PLACEMENT_SURFACE, 32),
		_rule("mound", StrataStructureRule.PLACEMENT_SURFACE, 48),
	]
	var w := _make_world(9, rules)
	var own: Array[StrataStructure2D] = [hut, mound]
	w.structures = own
	assert_eq(w.get_structures_fingerprint().length(), 16, "own structures have a fingerprint")
	for structure_name in ["hut", "mound"]:
		var found := w.get_structures_in(Rect2i(0, -2000, 400, 4000)).filter(
			func(s: Dictionary) -> bool: return s["structure"] == structure_name
		)
		assert_gt(found.size(), 2, "%s placed" % structure_name)
		var checked: int = await _check_streamed(w, found[0], structure_name)
		assert_gt(checked, 3, "%s: tiles checked" % structure_name)
	# The roof counts as the surface.
	var is_hut := func(s: Dictionary) -> bool: return s["structure"] == "hut"
	var h: Dictionary = w.get_structures_in(Rect2i(0, -2000, 400, 4000)).filter(is_hut)[0]
	var top: Vector2i = h["position"] + Vector2i(2, 0)
	assert_eq(
		w.local_to_tile(Vector2(top.x * PX + 8, w.get_surface_height(top.x * PX + 8))).y, top.y
	)


func test_structures_survive_edits_save_and_load() -> void:
	var rules: Array[StrataStructureRule] = [
		_rule("cottage", StrataStructureRule.PLACEMENT_SURFACE, 24)
	]
	var w := _make_world(21, rules)
	var s: Dictionary = w.get_structures_in(Rect2i(0, -2000, 200, 4000))[0]
	await _check_streamed(w, s, "before")
	var p: Vector2i = s["position"]
	# Dig a hole in its wall and put a torch on its roof.
	var wall := p + Vector2i(0, 3)
	assert_ne(w.get_tile(wall), 0, "the wall stands")
	w.set_tile(wall, 0)
	var roof := p + Vector2i(4, 0)
	w.set_tile(roof, w.get_block_id("torch"))
	var path := scratch_dir().path_join("structures.strata")
	assert_eq(w.save_world(path), OK, w.last_error())
	var none: Array[StrataStructureRule] = []
	var other := _make_world(99, none)
	assert_eq(other.load_world(path), OK, other.last_error())
	(other.get_node(other.viewer) as Node2D).position = w.tile_to_local(p)
	assert_true(await wait_until(other.is_area_ready, 60.0), "loaded area never became ready")
	assert_eq(other.get_tile(wall), 0, "the dug tile stays dug")
	assert_eq(other.get_tile(roof), other.get_block_id("torch"), "the placed torch stays")
	var again: Dictionary = other.get_structures_in(Rect2i(p.x, p.y, 1, 1))[0]
	assert_eq(again, s, "the loaded world places the same structure")
	for y in range(p.y, p.y + 8):
		for x in range(p.x, p.x + 9):
			var t := Vector2i(x, y)
			if t == wall or t == roof:
				continue
			var want := other.get_structure_tile(again, t)
			if want >= 0:
				assert_eq(other.get_tile(t), want, "structure tile %s after load" % t)


func test_bad_structures_give_errors_that_name_them() -> void:
	var img := _image(["RX"], {"R": [255, 0, 0, 255], "X": [25, 51, 76, 255]})
	var s := StrataStructure2D.new()
	s.structure_name = "sign"
	assert_eq(s.load_image(img, {Color.RED: "stone"}), ERR_INVALID_DATA)
	var e := s.last_error()
	assert_true(e.contains("`sign`") and e.contains("(1, 0)") and e.contains("#ff0000 (stone)"), e)
	# A block the world's library lacks stops the world, naming the structure and the block.
	assert_eq(s.load_image(img, {Color.RED: "stone", "#19334c": "marble"}), OK)
	var rules: Array[StrataStructureRule] = [
		_rule("sign", StrataStructureRule.PLACEMENT_SURFACE, 32)
	]
	var w := _make_world(3, rules)
	var own: Array[StrataStructure2D] = [s]
	w.structures = own
	assert_eq(
		w.get_structures_in(Rect2i(0, 0, 100, 100)).size(), 0, "no world while it does not resolve"
	)
	e = w.last_error()
	assert_true(e.contains("structures[0]") and e.contains("`marble`") and e.contains("(1, 0)"), e)
	# A rule naming no structure of the library names the rule and the structures there are.
	var bad: Array[StrataStructureRule] = [
		_rule("castle", StrataStructureRule.PLACEMENT_SURFACE, 32)
	]
	var v := _make_world(3, bad)
	assert_eq(v.get_tile(Vector2i.ZERO), 0)
	e = v.last_error()
	assert_true(
		e.contains("structures.rules[0]") and e.contains("`castle`") and e.contains("crypt"), e
	)
	assert_eq(StrataStructure2D.create("x", Vector2i(0, 3)), null, "a bad size makes none")
