extends SceneTree
## Writes the addon's default block library resource, `addons/strata/blocks/default_blocks.tres`,
## from `StrataBlockLibrary.create_default()`. Run it after changing the default library:
## `cargo xtask godot -- --headless --path tests/godot --script res://tools/save_default_blocks.gd`
## (test_blocks.gd checks that the file and the library agree).

const OUT_DIR := "res://addons/strata/blocks"
const OUT := OUT_DIR + "/default_blocks.tres"


func _initialize() -> void:
	DirAccess.make_dir_recursive_absolute(ProjectSettings.globalize_path(OUT_DIR))
	var library := StrataBlockLibrary.create_default()
	var err := ResourceSaver.save(library, OUT)
	if err != OK:
		push_error("could not save %s: %s" % [OUT, error_string(err)])
		quit(1)
		return
	print("saved %s (%d blocks)" % [OUT, library.get_block_count()])
	quit(0)
