## Every script and scene of the demo and of this project loads: scripts compile (untyped
## declarations are errors, see project.godot) and scenes resolve their resources, including
## those no other test opens (the flythrough, the main menu, the rendered checks).
extends StrataTestCase

const DIRS: Array[String] = [
	"res://game", "res://demo", "res://demo2d", "res://rendered", "res://tools"
]


func _files(dir: String, extension: String) -> Array[String]:
	var out: Array[String] = []
	for f in DirAccess.get_files_at(dir):
		if f.get_extension() == extension:
			out.append(dir.path_join(f))
	return out


func test_every_script_compiles() -> void:
	var count := 0
	for dir in DIRS:
		for path in _files(dir, "gd"):
			var script := load(path) as GDScript
			assert_true(script != null and script.can_instantiate(), "%s compiles" % path)
			count += 1
	assert_gt(count, 25, "scripts found")


func test_every_scene_loads() -> void:
	var count := 0
	for dir in DIRS:
		for path in _files(dir, "tscn"):
			var scene := load(path) as PackedScene
			assert_true(scene != null and scene.can_instantiate(), "%s loads" % path)
			count += 1
	assert_gt(count, 10, "scenes found")
