## Scenes and resources saved by Strata 0.2 (classes without the `Strata` prefix) load after
## `StrataClassUpgrade` rewrites them, with every value kept; nothing but class names changes,
## and the upgrade finds exactly the files that need it (law: Nothing is lost).
extends StrataTestCase

const FIXTURES := "res://fixtures_0_2"

var _dir := ""


func before_each() -> void:
	_dir = "user://test_class_upgrade_%d" % randi()
	DirAccess.make_dir_recursive_absolute(_dir)


func after_each() -> void:
	remove_tree(_dir)


## Copies a fixture (`NAME.txt`, a file as Strata 0.2 saved it) into the scratch folder as NAME.
func _copy_fixture(file_name: String) -> String:
	var path := _dir.path_join(file_name)
	var file := FileAccess.open(path, FileAccess.WRITE)
	file.store_string(FileAccess.get_file_as_string(FIXTURES.path_join(file_name + ".txt")))
	file.close()
	return path


func test_upgrade_renames_only_class_names() -> void:
	var old := FileAccess.get_file_as_string(FIXTURES.path_join("biome_table.tres.txt"))
	var new := StrataClassUpgrade.upgrade_text(old)
	assert_true(new.begins_with('[gd_resource type="StrataBiomeTable" load_steps=3 format=3]'), new)
	assert_eq(new.count('[sub_resource type="StrataBiome" id='), 2, new)
	assert_true(new.contains("biomes = Array[StrataBiome]([SubResource("), new)
	assert_true(new.contains('surface_block = "clay"'), "values are kept")
	assert_eq(new.length() - old.length(), "Strata".length() * 4, "only four names gain the prefix")
	assert_eq(StrataClassUpgrade.upgrade_text(new), new, "upgrading twice changes nothing")
	assert_false(StrataClassUpgrade.needs_upgrade(new))
	# A property value that happens to read like a header is not a header: kept.
	var value_line := 'name = "[x type=\\"Biome\\"]"'
	assert_eq(StrataClassUpgrade.upgrade_text(value_line), value_line)
	# Every class the extension registers is the new name of exactly one old one.
	for old_name: String in StrataClassUpgrade.RENAMED:
		var renamed: String = StrataClassUpgrade.RENAMED[old_name]
		assert_true(ClassDB.class_exists(renamed), renamed + " is registered")
		assert_false(ClassDB.class_exists(old_name), old_name + " is no longer registered")


func test_upgraded_resources_load_with_their_values() -> void:
	var table_path := _copy_fixture("biome_table.tres")
	var blocks_path := _copy_fixture("default_blocks.tres")
	assert_eq(StrataClassUpgrade.files_to_upgrade(_dir).size(), 2)
	var done := StrataClassUpgrade.upgrade_tree(_dir)
	assert_eq(done.size(), 2, str(done))
	assert_eq(StrataClassUpgrade.files_to_upgrade(_dir).size(), 0, "nothing left to upgrade")
	var table := (
		ResourceLoader.load(table_path, "", ResourceLoader.CACHE_MODE_IGNORE) as StrataBiomeTable
	)
	if not assert_true(table != null, "the upgraded biome table loads"):
		return
	assert_eq(table.biomes.size(), 2)
	assert_eq((table.biomes[1] as StrataBiome).biome_name, "gravel_plain")
	assert_eq((table.biomes[0] as StrataBiome).surface_block, "clay")
	var blocks := (
		ResourceLoader.load(blocks_path, "", ResourceLoader.CACHE_MODE_IGNORE) as StrataBlockLibrary
	)
	if not assert_true(blocks != null, "the upgraded block library loads"):
		return
	var shipped := load("res://addons/strata/blocks/default_blocks.tres") as StrataBlockLibrary
	assert_eq(
		blocks.get_block_count(), shipped.get_block_count(), "as many blocks as the shipped library"
	)
	for id in shipped.get_block_count():
		assert_eq(blocks.get_block_name(id), shipped.get_block_name(id))
	assert_eq(blocks.get_texture_layers(), shipped.get_texture_layers(), "the same textures")


func test_upgraded_scene_instances_a_world() -> void:
	var scene_path := _copy_fixture("example_world.tscn")
	assert_eq(StrataClassUpgrade.upgrade_file(scene_path), OK)
	var scene := (
		ResourceLoader.load(scene_path, "", ResourceLoader.CACHE_MODE_IGNORE) as PackedScene
	)
	if not assert_true(scene != null, "the upgraded scene loads"):
		return
	var root := scene.instantiate()
	var world := root.get_node_or_null("ChunkWorld") as StrataChunkWorld
	assert_true(world != null, "the node keeps its name and is a StrataChunkWorld")
	if world != null:
		assert_eq(world.view_distance, 4, "its properties are kept")
		assert_true(world.preset is StrataWorldPreset)
	root.free()


func test_unreadable_file_is_an_error_with_its_path() -> void:
	assert_ne(StrataClassUpgrade.upgrade_file(_dir.path_join("missing.tres")), OK)
