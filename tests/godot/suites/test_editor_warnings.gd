## The editor experience: node configuration warnings of StrataChunkWorld and StrataChunkWorld2D
## (the yellow triangle), the class icons, and StrataWorldPreset's fields as ClassDB properties
## (which is
## what lets the editor show their class-reference descriptions as tooltips and in F1).
extends StrataTestCase

const NO_PRESET := (
	" has no preset: it streams the default StrataWorldPreset."
	+ " Assign a StrataWorldPreset to `preset` to choose the world."
)
const NO_VIEWER := (
	" has no viewer: it streams around the current %s, or around the origin when there is none."
	+ " Set `viewer` to the player or camera node."
)
const NO_PRESET_3D := "StrataChunkWorld" + NO_PRESET
const NO_PRESET_2D := "StrataChunkWorld2D" + NO_PRESET
const NO_LIBRARY_2D := (
	"No block library: the TileSet of `tile_map` must have one atlas row per block of the default"
	+ " library (StrataBlockLibrary.create_default()). Set `block_library` to the blocks your TileSet"
	+ " draws."
)
const CLASSES := [
	"StrataChunkWorld",
	"StrataChunkWorld2D",
	"StrataWorldPreset",
	"StrataBlockType",
	"StrataBlockLibrary",
	"StrataBiome",
	"StrataBiomeTable",
	"StrataUserProfiles",
	"StrataStructure",
	"StrataStructureRule",
	"StrataSpawnRule",
	"StrataWorldPreview",
	"StrataWorldSync",
	"StrataCellularAutomaton2D",
	"StrataNoise"
]

var no_viewer_3d := "StrataChunkWorld" + NO_VIEWER % "Camera3D"
var no_viewer_2d := "StrataChunkWorld2D" + NO_VIEWER % "Camera2D"


## A library whose block 0 is not air: invalid.
func _broken_library() -> StrataBlockLibrary:
	var stone := StrataBlockType.new()
	stone.block_name = "stone"
	var lib := StrataBlockLibrary.new()
	lib.blocks = [stone]
	return lib


## A world of `world_class` in the tree with a child viewer of `viewer_class` named Player.
func _world_in_tree(world_class: String, viewer_class: String) -> Node:
	var w: Node = ClassDB.instantiate(world_class)
	var player: Node = ClassDB.instantiate(viewer_class)
	player.name = "Player"
	w.add_child(player)
	add_child(keep(w))
	return w


func test_chunk_world_without_preset_and_viewer_says_so() -> void:
	var w: StrataChunkWorld = keep(StrataChunkWorld.new())
	assert_eq(w.configuration_warnings(), PackedStringArray([NO_PRESET_3D, no_viewer_3d]))
	w.preset = StrataWorldPreset.new()
	assert_eq(w.configuration_warnings(), PackedStringArray([no_viewer_3d]))
	w.viewer = NodePath("Player")
	assert_eq(
		w.configuration_warnings(), PackedStringArray(), "out of the tree, paths are not checked"
	)


func test_chunk_world_configured_has_no_warning_and_a_wrong_viewer_is_named() -> void:
	var w: StrataChunkWorld = _world_in_tree("StrataChunkWorld", "Node3D")
	w.preset = StrataWorldPreset.new()
	w.viewer = NodePath("Player")
	assert_eq(w.configuration_warnings(), PackedStringArray())
	w.viewer = NodePath("Missing")
	assert_eq(
		w.configuration_warnings(),
		PackedStringArray(
			[
				"`viewer` (Missing) is not a Node3D in the scene: the world streams around the origin."
			]
		)
	)
	# A 2D node is no viewer of a 3D world.
	var flat := Node2D.new()
	flat.name = "Flat"
	w.add_child(flat)
	w.viewer = NodePath("Flat")
	assert_eq(w.configuration_warnings().size(), 1)
	assert_true(w.configuration_warnings()[0].begins_with("`viewer` (Flat) is not a Node3D"))


func test_chunk_world_with_an_invalid_preset_or_library_says_why() -> void:
	var w: StrataChunkWorld = keep(StrataChunkWorld.new())
	w.viewer = NodePath("Player")
	var p := StrataWorldPreset.new()
	p.height_heightmap_weight = 1.0
	p.height_heightmap_path = "res://no_such_heightmap.png"
	var error := p.validate()
	assert_ne(error, "", "a missing heightmap is an invalid preset")
	w.preset = p
	assert_eq(w.configuration_warnings(), PackedStringArray(["The preset is invalid: " + error]))
	w.preset = null
	w.block_library = _broken_library()
	var warnings: PackedStringArray = w.configuration_warnings()
	assert_eq(warnings.size(), 2, str(warnings))
	assert_eq(warnings[0], NO_PRESET_3D)
	assert_true(
		warnings[1].begins_with(
			"The block library is invalid and is not used: block library: block 0"
		),
		warnings[1]
	)


func test_chunk_world_2d_warnings() -> void:
	var w: StrataChunkWorld2D = keep(StrataChunkWorld2D.new())
	assert_eq(w.configuration_warnings(), PackedStringArray([NO_PRESET_2D, no_viewer_2d]))
	w.queue_free()
	var world: StrataChunkWorld2D = _world_in_tree("StrataChunkWorld2D", "Node2D")
	world.preset = StrataWorldPreset.new()
	world.viewer = NodePath("Player")
	assert_eq(world.configuration_warnings(), PackedStringArray())
	world.viewer = NodePath("Nobody")
	world.tile_map = NodePath("MyTiles")
	assert_eq(
		world.configuration_warnings(),
		PackedStringArray(
			[
				"`viewer` (Nobody) is not a Node2D in the scene: the world streams around the origin.",
				(
					"`tile_map` (MyTiles) is not a TileMapLayer in the scene: the world shows nothing"
					+ " until one is there."
				)
			]
		)
	)
	world.viewer = NodePath("Player")
	var layer := TileMapLayer.new()
	layer.name = "MyTiles"
	world.add_child(layer)
	assert_eq(
		world.configuration_warnings(), PackedStringArray(), "a layer without tiles gets some"
	)
	layer.tile_set = TileSet.new()
	assert_eq(world.configuration_warnings(), PackedStringArray([NO_LIBRARY_2D]))
	world.block_library = StrataBlockLibrary.create_default()
	assert_eq(world.configuration_warnings(), PackedStringArray())
	world.block_library = _broken_library()
	var warnings: PackedStringArray = world.configuration_warnings()
	assert_eq(warnings.size(), 1, str(warnings))
	assert_true(
		warnings[0].begins_with("The block library is invalid and is not used"), str(warnings)
	)


func test_every_strata_class_has_an_editor_icon() -> void:
	var config := ConfigFile.new()
	assert_eq(config.load("res://addons/strata/strata.gdextension"), OK)
	var registered: Array[String] = []
	for c in ClassDB.get_class_list():
		if ClassDB.class_get_api_type(c) == ClassDB.API_EXTENSION:
			registered.append(c)
	for c in CLASSES:
		assert_true(registered.has(c), c + " is an extension class")
	for c in registered:
		var path: String = config.get_value("icons", c, "")
		if not assert_ne(path, "", c + " has an icon in strata.gdextension [icons]"):
			continue
		var svg := FileAccess.get_file_as_string(path)
		var img := Image.new()
		assert_eq(img.load_svg_from_string(svg), OK, path)
		assert_eq(img.get_size(), Vector2i(16, 16), path + " is 16×16")
		assert_false(img.is_invisible(), path + " draws something")


func test_world_preset_fields_are_classdb_properties_in_designer_groups() -> void:
	var names := StrataWorldPreset.field_names()
	var props := ClassDB.class_get_property_list("StrataWorldPreset", true)
	var fields: Array[String] = []
	var groups: Array[String] = []
	for p in props:
		if p["usage"] & PROPERTY_USAGE_GROUP:
			groups.append(p["name"])
		elif names.has(p["name"]):
			fields.append(p["name"])
	assert_eq(PackedStringArray(fields), names, "every field, in table order")
	var designer_order: Array[String] = [
		"World", "Height", "Biomes", "Caves", "Ores", "Water", "Scatter", "SideView", "Trees"
	]
	assert_eq(groups, designer_order)
	# Read and written through ClassDB, checked by the core table.
	var p := StrataWorldPreset.new()
	p.set("height_octaves", 9)
	assert_eq(p.get("height_octaves"), 9)
	assert_eq(p.get_field_at(names.find("height_octaves")), 9)
	p.set("height_octaves", 99)
	assert_eq(p.height_octaves, 9, "out of range changes nothing")
	assert_true(p.last_error().contains("height_octaves"), p.last_error())
	assert_eq(ClassDB.class_get_property_default_value("StrataWorldPreset", "height_octaves"), 8)
	assert_eq(p.property_get_revert("water_sea_level"), StrataWorldPreset.new().water_sea_level)
