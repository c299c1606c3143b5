## The export test's game, run from its exported pack (`godot --main-pack`): it loads presets
## from `res://` inside the pack (the RON file and the `.tres` the export turned binary), streams
## a world whose heightmap lies in the pack, loads a save and a user profile from the pack,
## builds the default block library's textures, and checks that writing into the pack is refused
## with a message. It prints the world's heights (`export heights: [...]`) for xtask to compare
## with the core's, and `N passed, N failed`.
extends Node

const PRESET_RON := "res://world/preset.ron"
const PRESET_TRES := "res://world/preset.tres"
const SAVE := "res://world/world.strata"
## The edit and state xtask wrote into the save.
const SAVED_EDIT := Vector3i(3, 90, 4)
const SAVED_BLOCK := 1
const TIMEOUT_S := 120.0

var _passed := 0
var _failed := 0


func _check(cond: bool, what: String) -> void:
	if cond:
		_passed += 1
	else:
		_failed += 1
		print("FAILED: ", what)


## Waits until `done` answers true or the timeout passes; returns the last answer.
func _wait(done: Callable) -> bool:
	var start := Time.get_ticks_msec()
	while not done.call():
		if Time.get_ticks_msec() - start > TIMEOUT_S * 1000.0:
			return false
		await get_tree().process_frame
	return true


func _world(preset: StrataWorldPreset) -> StrataChunkWorld:
	var viewer := Node3D.new()
	add_child(viewer)
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.worker_threads = 1
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	return w


## Heights at a row of columns across the heightmap, west to east (xtask reads the same).
func _heights(w: StrataChunkWorld) -> Array[int]:
	var out: Array[int] = []
	for x in range(-120, 121, 20):
		out.append(int(w.get_height(x, 8)))
	return out


func _ready() -> void:
	await _run()
	print("%d passed, %d failed" % [_passed, _failed])
	get_tree().quit(0 if _failed == 0 else 1)


func _run() -> void:
	_check(ProjectSettings.globalize_path("res://") == "", "the game runs from its pack")
	_check(FileAccess.file_exists("res://world/ramp.png"), "the heightmap is in the pack")
	_check(not FileAccess.file_exists("res://world/preset.tres"), "the export remapped the .tres")

	var preset := StrataWorldPreset.load_from_file(PRESET_RON)
	_check(preset != null, "StrataWorldPreset.load_from_file(%s) reads the pack" % PRESET_RON)
	if preset == null:
		return
	_check(preset.height_heightmap_path == "res://world/ramp.png", "the preset names the map")
	var tres := StrataWorldPreset.load_from_file(PRESET_TRES)
	_check(
		tres != null,
		"StrataWorldPreset.load_from_file(%s) reads the exported resource" % PRESET_TRES
	)
	if tres != null:
		_check(tres.fingerprint() == preset.fingerprint(), "the .tres is the same preset")
	var loaded := load(PRESET_TRES) as StrataWorldPreset
	_check(loaded != null and loaded.fingerprint() == preset.fingerprint(), "load() gives it too")
	_check(preset.validate() == "", "the preset validates: %s" % preset.validate())
	var missing := StrataWorldPreset.new()
	_check(missing.load_file("res://world/none.ron") == ERR_FILE_NOT_FOUND, "a missing file")
	_check(missing.last_error().contains("res://world/none.ron"), "named: " + missing.last_error())

	var w := _world(preset)
	_check(await _wait(w.is_area_ready), "the world streams from the pack's heightmap")
	_check(w.last_error() == "", "no world error: %s" % w.last_error())
	var h := _heights(w)
	print("export heights: ", JSON.stringify(h))
	_check(h[0] + 10 < h[h.size() - 1], "the ramp rises from west to east: %s" % [h])

	# A save inside the pack loads, its world streams (its heightmap in the pack too).
	var saved := _world(StrataWorldPreset.new())
	_check(saved.load_world(SAVE) == OK, "load_world(%s): %s" % [SAVE, saved.last_error()])
	_check(saved.get_state("exported", "") == "yes", "the save's game state")
	_check(saved.get_voxel(SAVED_EDIT) == SAVED_BLOCK, "the save's edit")
	_check(await _wait(saved.is_area_ready), "the saved world streams")
	_check(_heights(saved) == h, "the saved world is the same world")
	# Writing into the pack is refused with a message; user:// is written.
	_check(saved.save_world(SAVE) != OK, "save_world into the pack is refused")
	_check(saved.last_error().contains("read-only"), "it says why: %s" % saved.last_error())
	var user_save := "user://export_test/world.strata"
	DirAccess.make_dir_recursive_absolute("user://export_test")
	_check(saved.save_world(user_save) == OK, "save_world(user://): %s" % saved.last_error())
	_check(saved.load_world(user_save) == OK, "load_world(user://): %s" % saved.last_error())

	# The default block library's textures are imported resources of the addon, in the pack.
	var library := StrataBlockLibrary.create_default()
	var layers := library.get_texture_layers().size()
	_check(layers > 0, "the default library names textures")
	var images := library.build_texture_images()
	_check(images.size() == layers, "every texture loads from the pack")
	_check(images.size() > 0 and images[0].get_width() == 16, "16×16 texture images")

	# Profiles shipped in the pack load and are read-only.
	var profiles := StrataUserProfiles.new()
	profiles.profiles_dir = "res://profiles"
	add_child(profiles)
	_check(profiles.list_users() == PackedStringArray(["alice"]), "%s" % profiles.list_users())
	_check(profiles.set_active_user("alice") == OK, "alice: %s" % profiles.last_error())
	_check(profiles.get_setting("fov") == 90.0, "her fov: %s" % profiles.get_setting("fov"))
	_check(profiles.list_presets() == PackedStringArray(["ramp"]), "%s" % profiles.list_presets())
	var hers := profiles.load_preset("ramp")
	_check(hers != null and hers.fingerprint() == preset.fingerprint(), "her preset")
	_check(profiles.set_setting("fov", 70.0) != OK, "writing a profile into the pack is refused")
	_check(profiles.last_error().contains("read-only"), "it says why: %s" % profiles.last_error())
