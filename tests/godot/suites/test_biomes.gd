## Biome tables as designer data: a StrataBiomeTable made in GDScript shapes the world through
## StrataWorldPreset.biome_table (its blocks at the surface, its names in get_biome), edits to its
## rows take effect, bad rows are named without a crash, and preset files keep the table
## (laws: Clear errors, Nothing is lost).
extends StrataTestCase

var _dir := ""


func before_each() -> void:
	_dir = "user://test_biomes_%d" % randi()
	DirAccess.make_dir_recursive_absolute(_dir)


func after_each() -> void:
	remove_tree(_dir)


func _row(biome_name: String, surface: String, temperature: float) -> StrataBiome:
	var b := StrataBiome.new()
	b.biome_name = biome_name
	b.surface_block = surface
	b.subsurface_block = "dirt"
	b.temperature = temperature
	return b


## Two biomes, cold clay and hot gravel, over small climate cells; no water, no cliffs.
func _two_biome_table() -> StrataBiomeTable:
	var t := StrataBiomeTable.new()
	t.biomes = [_row("clay_flats", "clay", 0.0), _row("gravel_plain", "gravel", 1.0)]
	return t


func _preset(table: StrataBiomeTable) -> StrataWorldPreset:
	var p := StrataWorldPreset.new()
	p.seed = 777
	p.water_enabled = false
	p.biomes_rock_slope = 16.0
	p.biomes_cell_size = 32.0
	p.biomes_climate_scale = 64.0
	p.biome_table = table
	return p


func _world(preset: StrataWorldPreset) -> StrataChunkWorld:
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.worker_threads = 1
	keep(w)
	add_child(w)
	return w


## The block name of the top voxel of column (x, z).
func _surface_block(w: StrataChunkWorld, x: int, z: int) -> String:
	var top := int(w.get_height(x + 0.5, z + 0.5))
	return w.get_block_name(w.get_voxel(Vector3i(x, top - 1, z)))


func test_the_default_table_lists_the_shipped_biomes() -> void:
	var t := StrataBiomeTable.create_default()
	assert_eq(t.validate(), "")
	assert_eq(t.get_biome_count(), 7)
	assert_eq(t.get_biome_name(4), "tundra")
	assert_eq(t.find_biome("desert"), 2)
	assert_eq(t.find_biome("atlantis"), -1)
	assert_eq(t.get_biome_name(99), "")
	assert_eq(t.get_biome_name(-1), "")
	var p := StrataWorldPreset.new()
	var f := p.fingerprint()
	p.biome_table = t
	assert_eq(p.fingerprint(), f, "the default table as a resource is the same world")
	assert_eq(StrataBiome.scatter_kinds(), PackedStringArray(["tree", "bush", "flower", "rock"]))


func test_a_table_made_in_gdscript_gives_its_surface_blocks() -> void:
	var table := _two_biome_table()
	assert_eq(table.validate(), "")
	var preset := _preset(table)
	assert_eq(preset.validate(), "")
	assert_ne(preset.fingerprint(), StrataWorldPreset.new().with_new_seed(777).fingerprint())
	var w := _world(preset)
	var seen := {}
	for i in 40:
		var x := i * 37 - 700
		var z := i * 53 - 900
		var biome := w.get_biome(x + 0.5, z + 0.5)
		var expected := "clay" if biome == "clay_flats" else "gravel"
		assert_true(biome in ["clay_flats", "gravel_plain"], "biome of the table: " + biome)
		assert_eq(_surface_block(w, x, z), expected, "surface of %s at (%d, %d)" % [biome, x, z])
		seen[biome] = true
	assert_eq(seen.size(), 2, "both biomes appear")


func test_editing_a_row_changes_the_world() -> void:
	var table := _two_biome_table()
	var preset := _preset(table)
	var w := _world(preset)
	var x := 0
	var z := 0
	for i in 200:
		if w.get_biome(i * 11 + 0.5, 0.5) == "clay_flats":
			x = i * 11
			break
	assert_eq(_surface_block(w, x, z), "clay")
	var row: StrataBiome = table.biomes[0]
	row.surface_block = "sandstone"
	assert_eq(_surface_block(w, x, z), "sandstone", "the edit reaches the world")
	row.scatter_custom = true
	row.scatter = [{"kind": "flower", "density": 0.5, "placement": "Clearings"}]
	assert_eq(table.validate(), "")
	var scatter: Array = row.scatter
	assert_eq(scatter.size(), 1)
	assert_eq(scatter[0]["kind"], "flower")
	assert_eq(scatter[0]["placement"], "Clearings")
	assert_true(preset.to_ron().contains("scatter: ["), "the set is in the preset")


func test_bad_rows_are_named_and_nothing_crashes() -> void:
	var table := _two_biome_table()
	var row: StrataBiome = table.biomes[1]
	row.surface_block = "lava"
	var said := table.validate()
	assert_true(
		said.contains("biomes.table[1].surface_block") and said.contains("lava"),
		"row, field and value named: " + said
	)
	assert_true(said.contains("grass"), "the allowed names are listed: " + said)
	var preset := _preset(table)
	assert_true(preset.validate().contains("lava"), preset.validate())
	var w := _world(preset)
	assert_eq(w.get_voxel(Vector3i(0, -20, 0)), 0, "no world from a bad table, no crash")
	await wait_frames(2)
	assert_true(w.last_error().contains("lava"), "the world says why: " + w.last_error())
	row.surface_block = "gravel"
	assert_ne(w.get_voxel(Vector3i(0, -20, 0)), 0, "fixing the row brings the world back")
	row.temperature_min = 0.9
	row.temperature_max = 0.2
	assert_true(table.validate().contains("temperature_min"), table.validate())
	row.temperature_min = 0.0
	row.temperature_max = 7.0
	assert_eq(row.temperature_max, 1.0, "clamped to the range")
	row.scatter_custom = true
	row.scatter = [{"kind": "cactus", "density": 0.2}]
	assert_true(table.validate().contains("cactus"), table.validate())
	row.scatter = [{"kind": "tree", "placement": "Everywhere"}]
	assert_eq((row.scatter as Array)[0]["kind"], "cactus", "a bad set is refused whole")
	row.scatter = []
	table.biomes.append(null)
	assert_true(table.validate().contains("biomes[2] is null"), table.validate())


func test_preset_files_keep_the_table() -> void:
	var table := _two_biome_table()
	var row: StrataBiome = table.biomes[0]
	row.moisture_max = 0.6
	row.scatter_custom = true
	row.scatter = [{"kind": "rock", "density": 0.1, "placement": "Anywhere"}]
	var preset := _preset(table)
	var fingerprint := preset.fingerprint()
	for ext in ["tres", "ron"]:
		var path := "%s/two_biomes.%s" % [_dir, ext]
		assert_eq(preset.save_to_file(path), OK, preset.last_error())
		var back: StrataWorldPreset = StrataWorldPreset.load_from_file(path)
		if not assert_true(back != null, "loads " + ext):
			continue
		assert_eq(back.fingerprint(), fingerprint, ext + " keeps the world")
		var loaded: StrataBiomeTable = back.biome_table
		if assert_true(loaded != null, ext + ": the loaded table is editable"):
			assert_eq(loaded.get_biome_count(), 2)
			assert_eq(loaded.find_biome("gravel_plain"), 1)
			assert_near((loaded.biomes[0] as StrataBiome).moisture_max, 0.6, 1e-6)
			assert_eq((loaded.biomes[0] as StrataBiome).scatter_custom, true)
	# Godot's own saver and loader keep it too (the table as text in the .tres).
	var native := "%s/native.tres" % _dir
	assert_eq(ResourceSaver.save(preset, native), OK)
	var again: StrataWorldPreset = ResourceLoader.load(native, "", ResourceLoader.CACHE_MODE_IGNORE)
	if assert_true(again != null, "ResourceLoader reads it"):
		assert_eq(again.fingerprint(), fingerprint)
		assert_eq(again.biome_table.get_biome_name(0), "clay_flats")
	var core_read: StrataWorldPreset = StrataWorldPreset.load_from_file(native)
	if assert_true(core_read != null, "the core reads Godot's file"):
		assert_eq(core_read.fingerprint(), fingerprint)


func test_values_of_the_wrong_type_change_nothing() -> void:
	var b := _row("moor", "podzol", 0.3)
	b.scatter_custom = true
	b.scatter = [{"kind": "bush", "density": 0.25, "placement": "Groves"}]
	var names := PackedStringArray()
	for p: Dictionary in b.get_property_list():
		var own := not str(p["name"]).begins_with("resource_") and str(p["name"]) != "script"
		if int(p["usage"]) & PROPERTY_USAGE_EDITOR and own:
			names.append(str(p["name"]))
	assert_true(names.has("temperature_min") and names.has("scatter"), str(names))
	assert_eq(names.size(), 18, "the StrataBiome properties: " + str(names))
	for property_name in names:
		var before: Variant = b.get(property_name)
		for bad: Variant in [null, Vector3.ONE, RefCounted.new(), Callable()]:
			b.set(property_name, bad)
			assert_eq(b.get(property_name), before, "%s = %s refused" % [property_name, bad])
	var p := StrataWorldPreset.new()
	var f := p.fingerprint()
	p.set("biome_table", RefCounted.new())
	assert_eq(p.biome_table, null, "not a StrataBiomeTable: refused")
	assert_true(p.last_error().contains("biome_table"), p.last_error())
	p.set("biomes_table_ron", "[(name: 3)]")
	assert_true(p.last_error().contains("biomes_table_ron"), p.last_error())
	assert_eq(p.fingerprint(), f, "nothing changed")


## The default library, then `extra` blocks: a developer's own blocks after the shipped ones.
func _library_with(extra: Array[String]) -> StrataBlockLibrary:
	var lib := StrataBlockLibrary.create_default()
	var blocks := lib.blocks
	for block_name in extra:
		var b := StrataBlockType.new()
		b.block_name = block_name
		b.color = Color(0.3, 0.5, 0.2)
		blocks.append(b)
	lib.blocks = blocks
	return lib


## x of a column at z = 0 in biome `biome` of `w`, or -1 when none is found.
func _column_in(w: StrataChunkWorld, biome: String) -> int:
	for i in 200:
		if w.get_biome(i * 11 + 0.5, 0.5) == biome:
			return i * 11
	return -1


func test_rows_name_blocks_of_the_worlds_own_library() -> void:
	var table := StrataBiomeTable.new()
	table.biomes = [_row("moss_flats", "moss", 0.0), _row("gravel_plain", "gravel", 1.0)]
	var said := table.validate()
	assert_true(said.contains("moss"), "not a default block: " + said)
	var mossy := _library_with(["moss"])
	assert_eq(table.validate_with_library(mossy), "")
	var preset := _preset(table)
	assert_eq(preset.validate_with_library(mossy), "")
	assert_true(preset.validate_with_library(null).contains("moss"), preset.validate())
	var broken := StrataBlockLibrary.new()
	broken.blocks = [StrataBlockType.new()]
	said = preset.validate_with_library(broken)
	assert_true(said.contains("block library is invalid"), "an invalid library is named: " + said)
	said = table.validate_with_library(broken)
	assert_true(said.contains("block library is invalid"), "an invalid library is named: " + said)
	var w := StrataChunkWorld.new()
	w.block_library = mossy
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.worker_threads = 1
	keep(w)
	add_child(w)
	var x := _column_in(w, "moss_flats")
	assert_true(x >= 0, "a column of the moss biome")
	assert_eq(_surface_block(w, x, 0), "moss", "the row's block of the world's library")
	assert_eq(w.last_error(), "")

	# The same table on a world with the default library: refused by name, no crash.
	var plain := _world(_preset(table))
	assert_eq(plain.get_voxel(Vector3i(0, -20, 0)), 0, "no world from a table it cannot resolve")
	await wait_frames(2)
	said = plain.last_error()
	assert_true(said.contains("moss") and said.contains("surface_block"), "says why: " + said)

	# Streaming, then another library (moss at another id): built again, the edit kept.
	var v := Node3D.new()
	keep(v)
	add_child(v)
	w.viewer = w.get_path_to(v)
	var edit_at := Vector3i(2, 150, 2)
	w.set_voxel(edit_at, w.get_block_id("planks"))
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams")
	var moss_id := w.get_block_id("moss")
	assert_eq(moss_id, 23, "after the 23 shipped blocks")
	var top := int(w.get_height(x + 0.5, 0.5))
	assert_eq(w.get_voxel(Vector3i(x, top - 1, 0)), moss_id)
	w.block_library = _library_with(["marble", "moss"])
	assert_eq(w.get_block_id("moss"), 24)
	assert_eq(w.get_voxel(Vector3i(x, top - 1, 0)), 24, "the generator takes the new library")
	assert_eq(_surface_block(w, x, 0), "moss")
	assert_eq(w.get_block_name(w.get_voxel(edit_at)), "planks", "the edit is kept")
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams again")

	# A library without moss: refused by name; the library back brings the world and the edit.
	w.block_library = StrataBlockLibrary.create_default()
	await wait_frames(2)
	said = w.last_error()
	assert_true(said.contains("moss"), "the running world says why: " + said)
	w.block_library = mossy
	await wait_frames(2)
	assert_eq(w.last_error(), "", "the failure is over")
	assert_eq(_surface_block(w, x, 0), "moss")
	assert_eq(w.get_block_name(w.get_voxel(edit_at)), "planks", "the edit survived the failure")
