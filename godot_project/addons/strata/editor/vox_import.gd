## Imports MagicaVoxel `.vox` files as `StrataStructure` resources, so that a `.vox` dropped into a
## project is a structure to put in `StrataChunkWorld.structures` (or load with
## `load("res://x.vox")`). Registered by the Strata editor plugin. Options: the structure's name
## (empty: the file's
## name), the `StrataBlockLibrary` whose colours map the file's palette (empty: the default library)
## and, per palette index, a block name that overrides the nearest colour
## (`StrataStructure.load_vox_with`). A file that does not load fails its import with the message of
## `StrataStructure.last_error()`.
@tool
class_name StrataVoxImport
extends EditorImportPlugin


func _get_importer_name() -> String:
	return "strata.vox_structure"


func _get_visible_name() -> String:
	return "Strata StrataStructure"


func _get_recognized_extensions() -> PackedStringArray:
	return PackedStringArray(["vox"])


func _get_save_extension() -> String:
	return "res"


func _get_resource_type() -> String:
	return "Resource"


func _get_preset_count() -> int:
	return 1


func _get_preset_name(_preset_index: int) -> String:
	return "Default"


func _get_priority() -> float:
	return 1.0


func _get_import_order() -> int:
	return 0


func _get_import_options(_path: String, _preset_index: int) -> Array[Dictionary]:
	return [
		{"name": "structure_name", "default_value": ""},
		{
			"name": "block_library",
			"default_value": "",
			"property_hint": PROPERTY_HINT_FILE,
			"hint_string": "*.tres,*.res",
		},
		{"name": "palette", "default_value": PackedStringArray()},
	]


func _get_option_visibility(_path: String, _option_name: StringName, _options: Dictionary) -> bool:
	return true


func _import(
	source_file: String,
	save_path: String,
	options: Dictionary,
	_platform_variants: Array[String],
	_gen_files: Array[String]
) -> Error:
	var structure := StrataStructure.new()
	var name := String(options.get("structure_name", ""))
	structure.structure_name = name if name != "" else source_file.get_file().get_basename()
	var library: StrataBlockLibrary = null
	var library_path := String(options.get("block_library", ""))
	if library_path != "":
		library = load(library_path) as StrataBlockLibrary
		if library == null:
			push_error(
				(
					"Strata .vox import of %s: block_library %s is not a StrataBlockLibrary resource"
					% [source_file, library_path]
				)
			)
			return ERR_INVALID_PARAMETER
	var palette: PackedStringArray = options.get("palette", PackedStringArray())
	var err := structure.load_vox_with(source_file, library, palette)
	if err != OK:
		push_error("Strata .vox import: %s" % structure.last_error())
		return err
	return ResourceSaver.save(structure, "%s.%s" % [save_path, _get_save_extension()])
