## StrataWorldPreset files from GDScript: RON round trips, garbage, reseeding, shipped presets.
extends StrataTestCase

const SHIPPED := [
	"default_hills",
	"archipelago",
	"alpine_mountains",
	"desert_canyons",
	"deep_caverns",
	"life_caverns",
	"life_side_view",
	"olinda_river_valleys",
]
const SHIPPED_DIR := "res://addons/strata/presets/"

var _dir := ""


func before_each() -> void:
	_dir = "user://test_presets_%d" % randi()
	DirAccess.make_dir_recursive_absolute(_dir)


func after_each() -> void:
	remove_tree(_dir)


func test_ron_round_trip_keeps_fingerprint() -> void:
	var p := StrataWorldPreset.new()
	p.height_octaves = 7
	p.water_sea_level = 11
	var text := p.to_ron()
	assert_true(text.contains("strata-preset"), text)
	var q: StrataWorldPreset = StrataWorldPreset.from_ron(text)
	if not assert_true(q != null, "from_ron"):
		return
	assert_eq(q.fingerprint(), p.fingerprint())
	assert_eq(q.height_octaves, 7)
	var r := StrataWorldPreset.new()
	assert_eq(r.parse_ron(text), OK, r.last_error())
	assert_eq(r.fingerprint(), p.fingerprint())
	assert_eq(r.last_error(), "")


func test_garbage_ron_gives_null_and_a_readable_error() -> void:
	assert_eq(StrataWorldPreset.from_ron("this is ((( not a preset"), null)
	var q := StrataWorldPreset.new()
	q.height_octaves = 6
	assert_eq(q.parse_ron("this is ((( not a preset"), ERR_PARSE_ERROR)
	var e := q.last_error()
	assert_true(e.contains("RON text:1:"), e)
	assert_true(e.contains("allowed"), e)
	assert_eq(q.height_octaves, 6, "a failed parse changes nothing")
	assert_eq(
		q.parse_ron('(format: "strata-preset", version: 1, preset: (height: (octaves: 1000)))'),
		ERR_INVALID_DATA
	)
	e = q.last_error()
	assert_true(e.contains("height_octaves") and e.contains("1..=12"), e)
	assert_eq(q.parse_ron('(format: "strata-preset", version: 5, preset: ())'), ERR_PARSE_ERROR)
	assert_true(q.last_error().contains("newer Strata"), q.last_error())


func test_with_new_seed_keeps_sliders() -> void:
	var p := StrataWorldPreset.new()
	p.height_amplitude = 77.5
	p.caves_cell_size = 4
	var q: StrataWorldPreset = p.with_new_seed(123456)
	assert_eq(q.seed, 123456)
	assert_eq(q.height_amplitude, 77.5)
	assert_eq(q.caves_cell_size, 4)
	assert_ne(q.fingerprint(), p.fingerprint())
	assert_eq(p.with_new_seed(p.seed).fingerprint(), p.fingerprint())
	assert_eq(p.fingerprint().length(), 16)


func test_save_and_load_files() -> void:
	var p := StrataWorldPreset.new()
	p.height_octaves = 3
	for ext in ["ron", "tres"]:
		var path := _dir.path_join("mine." + ext)
		assert_eq(p.save_to_file(path), OK, p.last_error())
		var q: StrataWorldPreset = StrataWorldPreset.load_from_file(path)
		if assert_true(q != null, ext):
			assert_eq(q.fingerprint(), p.fingerprint(), ext)
		var r := StrataWorldPreset.new()
		assert_eq(r.load_file(path), OK, r.last_error())
		assert_eq(r.fingerprint(), p.fingerprint(), ext)
	# Missing file: null, or an error code with the path in the message.
	assert_eq(StrataWorldPreset.load_from_file(_dir.path_join("none.ron")), null)
	var s := StrataWorldPreset.new()
	assert_eq(s.load_file(_dir.path_join("none.ron")), ERR_FILE_NOT_FOUND)
	assert_true(s.last_error().contains("none.ron"), s.last_error())


func test_shipped_presets_load_and_match() -> void:
	var prints := {}
	for name in SHIPPED:
		var tres_path := SHIPPED_DIR + "%s.tres" % name
		var from_tres: StrataWorldPreset = StrataWorldPreset.load_from_file(tres_path)
		var from_ron: StrataWorldPreset = StrataWorldPreset.load_from_file(
			SHIPPED_DIR + "%s.ron" % name
		)
		if not assert_true(from_tres != null and from_ron != null, name):
			continue
		assert_eq(from_tres.fingerprint(), from_ron.fingerprint(), name)
		assert_eq(from_ron.validate(), "", name)
		# Godot's own loader reads the same .tres through the dynamic properties.
		var loaded = load(tres_path)
		if assert_true(loaded is StrataWorldPreset, tres_path):
			assert_eq(loaded.fingerprint(), from_ron.fingerprint(), name + " via ResourceLoader")
		prints[from_ron.fingerprint()] = name
	assert_eq(prints.size(), SHIPPED.size(), "shipped presets differ")


func test_tres_saved_by_godot_reads_in_rust() -> void:
	var p := StrataWorldPreset.new()
	p.seed = -42
	p.height_octaves = 9
	p.caves_mode = StrataWorldPreset.CAVES_MODE_GAME_OF_LIFE
	p.name = 'Quote " and tab\t'
	var path := _dir.path_join("godot_saved.tres")
	assert_eq(ResourceSaver.save(p, path), OK)
	var q := StrataWorldPreset.new()
	if assert_eq(q.load_file(path), OK, q.last_error()):
		assert_eq(q.fingerprint(), p.fingerprint())
		assert_eq(q.name, p.name)


func test_godot_saved_tres_carries_the_preset_format() -> void:
	# Godot's saver leaves out every property at its class default; the format marker is written
	# anyway, so Strata's reader takes the left-out settings for today's defaults, not format 1's.
	var p := StrataWorldPreset.new()
	p.seed = 7
	var path := _dir.path_join("defaults.tres")
	assert_eq(ResourceSaver.save(p, path), OK)
	var text := FileAccess.get_file_as_string(path)
	assert_true(text.contains("preset_format = null"), text)
	assert_false(text.contains("caves_life_rule"), "a default is left out: " + text)
	var q := StrataWorldPreset.new()
	if assert_eq(q.load_file(path), OK, q.last_error()):
		assert_eq(q.fingerprint(), p.fingerprint(), "Strata's reader")
		assert_eq(q.caves_life_rule, "B3/S23")
	var loaded = load(path)
	if assert_true(loaded is StrataWorldPreset, path):
		assert_eq(loaded.fingerprint(), p.fingerprint(), "Godot's loader")


func test_format_2_tres_keeps_its_straight_biome_borders_through_both_readers() -> void:
	# Format 3 made biome borders meander (warp) and mix (transition); a format-2 file holds
	# neither setting, so both readers give it format 2's values: its world is unchanged.
	var saved_by := {
		"godot": "preset_format = null\n",
		"strata": "preset_format = 2\n",
	}
	for who: String in saved_by:
		var path := _dir.path_join("format2_%s.tres" % who)
		var f := FileAccess.open(path, FileAccess.WRITE)
		f.store_string(
			(
				'[gd_resource type="StrataWorldPreset" format=3]\n\n[resource]\nseed = 2024\n'
				+ saved_by[who]
			)
		)
		f.close()
		var old := StrataWorldPreset.load_from_file(path)
		if assert_true(old != null, path):
			assert_eq(old.biomes_warp_strength, 0.0, who + ": Strata's reader")
			assert_eq(old.biomes_transition_width, 0.0, who)
		var via_godot = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
		if assert_true(via_godot is StrataWorldPreset, path):
			assert_eq(via_godot.biomes_warp_strength, 0.0, who + ": Godot's loader")
			assert_eq(via_godot.biomes_transition_width, 0.0, who)
			assert_eq(via_godot.seed, 2024)
	# Saved by Godot now: the mark says format 3, and the defaults stay.
	var p := StrataWorldPreset.new()
	var meanders := p.biomes_warp_strength > 0.0 and p.biomes_transition_width > 0.0
	assert_true(meanders, "a new preset meanders")
	var path := _dir.path_join("format3.tres")
	assert_eq(ResourceSaver.save(p, path), OK)
	var text := FileAccess.get_file_as_string(path)
	assert_true(text.contains("preset_format_3 = null"), text)
	assert_false(text.contains("biomes_warp_strength"), "a default is left out: " + text)
	var via_godot = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
	if assert_true(via_godot is StrataWorldPreset, path):
		assert_eq(via_godot.biomes_warp_strength, p.biomes_warp_strength, "Godot's loader")
		assert_eq(via_godot.fingerprint(), p.fingerprint())
	var q := StrataWorldPreset.load_from_file(path)
	if assert_true(q != null, path):
		assert_eq(q.fingerprint(), p.fingerprint(), "Strata's reader")
	# A duplicate keeps the settings too (the mark travels before the format).
	var moved := StrataWorldPreset.new()
	moved.biomes_warp_strength = 40.0
	assert_eq((moved.duplicate() as StrataWorldPreset).biomes_warp_strength, 40.0)


func test_format_1_tres_keeps_its_life_rules_through_strata_reader() -> void:
	# A .tres as Godot's inspector saved it before preset format 2: no marker, rules left out.
	var path := _dir.path_join("format1.tres")
	var f := FileAccess.open(path, FileAccess.WRITE)
	(
		f
		. store_string(
			'[gd_resource type="StrataWorldPreset" format=3]\n\n[resource]\nseed = 2024\ncaves_mode = 2\n'
		)
	)
	f.close()
	var old := StrataWorldPreset.load_from_file(path)
	if assert_true(old != null, path):
		assert_eq(old.caves_life_rule, "B14-19/S13-26")
		assert_eq(old.side_view_cave_life_rule, "B678/S345678")
		assert_eq(old.height_octaves, 5, "the terrain of format 1")
	assert_eq(StrataWorldPreset.new().caves_life_rule, "B3/S23", "a new preset: B3/S23")
	assert_eq(StrataWorldPreset.new().side_view_cave_life_rule, "B3/S23")
	# Godot's own loader has no step after loading to migrate it: documented in docs/formats.md.
	var via_godot = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
	if assert_true(via_godot is StrataWorldPreset):
		assert_eq(via_godot.caves_life_rule, "B3/S23", "Godot's loader takes today's default")
