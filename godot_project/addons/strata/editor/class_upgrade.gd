## Upgrades scenes and resources saved with Strata 0.2, whose classes had no prefix
## (`type="WorldPreset"`, `Array[Structure]`), to the current names (`StrataWorldPreset`,
## `Array[StrataStructure]`). Godot cannot load a resource whose class no longer exists, so a
## project that used Strata 0.2 runs this once (Project → Tools → "Upgrade Strata 0.2 scenes and
## resources…"; the editor plugin also warns when it finds such files). Only the class names in
## section headers (`[gd_resource]`, `[sub_resource]`, `[ext_resource]`, `[node]`) and in typed
## arrays change; every other byte is kept.
class_name StrataClassUpgrade
extends RefCounted

## Strata 0.2's class names and the names that replaced them.
const RENAMED: Dictionary[String, String] = {
	"Biome": "StrataBiome",
	"BiomeTable": "StrataBiomeTable",
	"BlockLibrary": "StrataBlockLibrary",
	"BlockType": "StrataBlockType",
	"CellularAutomaton2D": "StrataCellularAutomaton2D",
	"ChunkWorld": "StrataChunkWorld",
	"ChunkWorld2D": "StrataChunkWorld2D",
	"SpawnRule": "StrataSpawnRule",
	"Structure": "StrataStructure",
	"StructureRule": "StrataStructureRule",
	"UserProfiles": "StrataUserProfiles",
	"WorldPreset": "StrataWorldPreset",
	"WorldPreview": "StrataWorldPreview",
	"WorldSync": "StrataWorldSync",
}
## Text files Godot saves scenes and resources in.
const EXTENSIONS: PackedStringArray = ["tres", "tscn"]


## `text` with every Strata 0.2 class name in a section header's `type="…"` and in a typed
## array's `Array[…]` replaced by its new name; the same text when there is none.
static func upgrade_text(text: String) -> String:
	var out := PackedStringArray()
	for line in text.split("\n"):
		out.append(_upgrade_line(line))
	return "\n".join(out)


## True when `text` names a Strata 0.2 class where `upgrade_text` would change it.
static func needs_upgrade(text: String) -> bool:
	return upgrade_text(text) != text


## Upgrades one file in place (written only when something changes). Returns OK, or the error
## of reading or writing it (pushed with the path).
static func upgrade_file(path: String) -> Error:
	var text := FileAccess.get_file_as_string(path)
	var read_error := FileAccess.get_open_error()
	if read_error != OK:
		push_error(
			(
				"StrataClassUpgrade.upgrade_file: cannot read %s (%s)"
				% [path, error_string(read_error)]
			)
		)
		return read_error
	var upgraded := upgrade_text(text)
	if upgraded == text:
		return OK
	var file := FileAccess.open(path, FileAccess.WRITE)
	if file == null:
		var write_error := FileAccess.get_open_error()
		push_error(
			(
				"StrataClassUpgrade.upgrade_file: cannot write %s (%s)"
				% [path, error_string(write_error)]
			)
		)
		return write_error
	file.store_string(upgraded)
	file.close()
	return OK


## The `.tres` and `.tscn` files under `root` (hidden folders and `.godot` skipped) that name a
## Strata 0.2 class.
static func files_to_upgrade(root: String = "res://") -> PackedStringArray:
	var out := PackedStringArray()
	_collect(root, out)
	return out


## Upgrades every file `files_to_upgrade(root)` lists; returns those it upgraded (a file that
## failed is left out, its error pushed).
static func upgrade_tree(root: String = "res://") -> PackedStringArray:
	var done := PackedStringArray()
	for path in files_to_upgrade(root):
		if upgrade_file(path) == OK:
			done.append(path)
	return done


static func _upgrade_line(line: String) -> String:
	var result := line
	if line.begins_with("[") and line.contains('type="'):
		for old: String in RENAMED:
			result = result.replace('type="%s"' % old, 'type="%s"' % RENAMED[old])
	if line.contains("Array["):
		for old: String in RENAMED:
			result = result.replace("Array[%s]" % old, "Array[%s]" % RENAMED[old])
	return result


static func _collect(dir_path: String, out: PackedStringArray) -> void:
	var dir := DirAccess.open(dir_path)
	if dir == null:
		return
	for sub in dir.get_directories():
		if not sub.begins_with("."):
			_collect(dir_path.path_join(sub), out)
	for file in dir.get_files():
		if file.get_extension() in EXTENSIONS:
			var path := dir_path.path_join(file)
			if needs_upgrade(FileAccess.get_file_as_string(path)):
				out.append(path)
