## The editor check's second half, in a running game (`godot --headless --script`): instances the
## scene the editor check painted and saved, and checks that its ChunkWorld shows every voxel
## the editor check wrote to `editor_check_expected.txt` (the edits came through
## `ChunkWorld.edits_data`). Prints one `RUNTIME_CHECK` line and quits with 0 or 1.
extends SceneTree

const SCENE := "res://editor_check_scene.tscn"
const EXPECTED_FILE := "res://editor_check_expected.txt"


func _initialize() -> void:
	var packed := load(SCENE) as PackedScene
	var world := packed.instantiate() as ChunkWorld if packed != null else null
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
	if wrong.is_empty() and checked > 0:
		_finish(true, detail)
	else:
		_finish(false, detail + ": " + ", ".join(wrong.slice(0, 5)))


func _finish(passed: bool, detail: String) -> void:
	print("RUNTIME_CHECK %s %s" % ["passed" if passed else "FAILED", detail])
	quit(0 if passed else 1)
