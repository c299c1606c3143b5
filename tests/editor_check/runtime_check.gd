## The editor check's second half, in a running game (`godot --headless --script`): instances the
## scene the editor check painted and saved, and checks that its StrataChunkWorld shows every voxel
## the editor check wrote to `editor_check_expected.txt` (the edits came through
## `StrataChunkWorld.edits_data`). It also loads `structure_check.vox`, which the Strata plugin's
## importer (`StrataVoxImport`) turned into a `StrataStructure` when the project was imported, and
## checks it against the same file read by `StrataStructure.from_vox`. Then the same for the side
## view: the painted 2D scene's StrataChunkWorld2D shows every tile of
## `editor_check_expected_2d.txt` (through `StrataChunkWorld2D.edits_data`). Prints one
## `RUNTIME_CHECK` line and quits with 0 or 1.
extends SceneTree

const SCENE := "res://editor_check_scene.tscn"
const EXPECTED_FILE := "res://editor_check_expected.txt"
const VOX_FILE := "res://structure_check.vox"
const SCENE_2D := "res://editor_check_scene_2d.tscn"
const EXPECTED_FILE_2D := "res://editor_check_expected_2d.txt"


func _initialize() -> void:
	var packed := load(SCENE) as PackedScene
	var world := packed.instantiate() as StrataChunkWorld if packed != null else null
	var text := FileAccess.get_file_as_string(EXPECTED_FILE)
	if world == null or text == "":
		_finish(false, "scene %s or %s missing" % [SCENE, EXPECTED_FILE])
		return
	root.add_child(world)
	var checked := 0
	var wrong := PackedStringArray()
	for line in text.split("\n", false):
		var v := line.split(" ")
		var p := Vector3i(int(v[0]), int(v[1]), int(v[2]))
		if world.get_voxel(p) != int(v[3]):
			wrong.append("%s is %d, painted %s" % [p, world.get_voxel(p), v[3]])
		checked += 1
	var detail := "%d voxels, %d edits" % [checked, world.get_edit_count()]
	world.free()
	var vox_problem := _check_imported_vox()
	if vox_problem != "":
		wrong.append(vox_problem)
	else:
		detail += ", imported .vox structure matches"
	var tiles := _check_side_view(wrong)
	detail += ", %d side-view tiles" % tiles
	if wrong.is_empty() and checked > 0 and tiles > 0:
		_finish(true, detail)
	else:
		_finish(false, detail + ": " + ", ".join(wrong.slice(0, 5)))


## Checks the side-view scene's tiles against `EXPECTED_FILE_2D`, appending what is wrong to
## `wrong`; returns the tiles checked.
func _check_side_view(wrong: PackedStringArray) -> int:
	var packed := load(SCENE_2D) as PackedScene
	var world := packed.instantiate() as StrataChunkWorld2D if packed != null else null
	var text := FileAccess.get_file_as_string(EXPECTED_FILE_2D)
	if world == null or text == "":
		wrong.append("scene %s or %s missing" % [SCENE_2D, EXPECTED_FILE_2D])
		return 0
	root.add_child(world)
	var checked := 0
	for line in text.split("\n", false):
		var v := line.split(" ")
		var p := Vector2i(int(v[0]), int(v[1]))
		if world.get_tile(p) != int(v[2]):
			wrong.append("tile %s is %d, painted %s" % [p, world.get_tile(p), v[2]])
		checked += 1
	world.free()
	return checked


## "" when the imported `.vox` is a `StrataStructure` with the file's cells, else what is wrong.
func _check_imported_vox() -> String:
	var imported := load(VOX_FILE) as StrataStructure
	var direct := StrataStructure.from_vox(VOX_FILE, "structure_check")
	if imported == null or direct == null:
		return "%s did not import as a StrataStructure, or from_vox failed" % VOX_FILE
	if imported.structure_name != "structure_check":
		return "the imported structure is named %s" % imported.structure_name
	if imported.size != direct.size or imported.size == Vector3i.ZERO:
		return "the imported structure is %s, the file %s" % [imported.size, direct.size]
	return _compare_cells(imported, direct)


## "" when every cell of `a` names the block of `b`'s and some are blocks, else the first
## difference.
func _compare_cells(a: StrataStructure, b: StrataStructure) -> String:
	var solid := 0
	for y in a.size.y:
		for z in a.size.z:
			for x in a.size.x:
				var name := a.get_block_name(x, y, z)
				if name != b.get_block_name(x, y, z):
					return (
						"cell (%d, %d, %d) is %s, the file %s"
						% [x, y, z, name, b.get_block_name(x, y, z)]
					)
				if name != "" and name != "air":
					solid += 1
	return "" if solid > 0 else "the imported structure has no blocks"


func _finish(passed: bool, detail: String) -> void:
	print("RUNTIME_CHECK %s %s" % ["passed" if passed else "FAILED", detail])
	quit(0 if passed else 1)
