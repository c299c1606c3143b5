## Files inside a resource pack, as in an exported game: presets (`.ron` and `.tres`), world
## saves and profile folders that only Godot's file access reaches (a `PCKPacker` pack loaded
## with `ProjectSettings.load_resource_pack`) load like files on disk; errors name the file in
## the pack; writing into a pack is refused with a message (laws: Clear errors, Nothing is lost).
extends StrataTestCase

## Where each test's files lie in the pack (`res://`, never on disk).
const PACKED_ROOT := "res://strata_packed_files"


## Packs `files` (pack path → disk path) into a new pack in the scratch folder and loads it.
func _pack(files: Dictionary) -> void:
	var packer := PCKPacker.new()
	var pck := ProjectSettings.globalize_path(scratch_dir().path_join("files_%d.pck" % randi()))
	assert_eq(packer.pck_start(pck), OK, "pack started")
	for packed in files:
		assert_eq(
			packer.add_file(packed, ProjectSettings.globalize_path(files[packed])), OK, packed
		)
	assert_eq(packer.flush(), OK, "pack written")
	assert_true(ProjectSettings.load_resource_pack(pck), "pack loaded")
	for packed in files:
		assert_true(FileAccess.file_exists(packed), "Godot reaches " + packed)
		assert_false(
			FileAccess.file_exists(ProjectSettings.globalize_path(packed)),
			packed + " is not on disk"
		)


## A folder in the pack no other test uses.
func _packed_dir(what: String) -> String:
	return PACKED_ROOT.path_join("%s_%d" % [what, randi()])


func _preset() -> StrataWorldPreset:
	var p := StrataWorldPreset.new()
	p.seed = 77
	p.height_octaves = 3
	p.height_amplitude = 41.5
	return p


func test_packed_presets_load_through_godot_file_access() -> void:
	var p := _preset()
	var dir := _packed_dir("presets")
	var files := {}
	for ext in ["ron", "tres"]:
		var disk := scratch_dir().path_join("mine." + ext)
		assert_eq(p.save_to_file(disk), OK, p.last_error())
		files[dir.path_join("mine." + ext)] = disk
	_pack(files)
	for ext in ["ron", "tres"]:
		var packed := dir.path_join("mine." + ext)
		var q: StrataWorldPreset = StrataWorldPreset.load_from_file(packed)
		if assert_true(q != null, packed):
			assert_eq(q.fingerprint(), p.fingerprint(), packed)
			assert_eq(q.height_amplitude, 41.5, packed)
		var r := StrataWorldPreset.new()
		assert_eq(r.load_file(packed), OK, r.last_error())
		assert_eq(r.fingerprint(), p.fingerprint(), packed + " via load_file")


func test_a_broken_packed_preset_names_the_file_in_the_pack() -> void:
	var disk := scratch_dir().path_join("bad.ron")
	var text := _preset().to_ron()
	var broken := text.replace("octaves: 3,", "octaves: 999,")
	assert_ne(broken, text, "the RON names the octaves: " + text)
	var f := FileAccess.open(disk, FileAccess.WRITE)
	f.store_string(broken)
	f.close()
	var packed := _packed_dir("bad").path_join("bad.ron")
	_pack({packed: disk})
	var q := StrataWorldPreset.new()
	var before := q.fingerprint()
	assert_eq(q.load_file(packed), ERR_INVALID_DATA, q.last_error())
	assert_true(q.last_error().contains(packed), "names the packed path: " + q.last_error())
	assert_true(q.last_error().contains("octaves"), "names the field: " + q.last_error())
	assert_true(q.last_error().contains("999"), "names the value: " + q.last_error())
	assert_eq(q.fingerprint(), before, "a failed load changes nothing")
	assert_eq(StrataWorldPreset.load_from_file(packed), null)


func test_writing_over_a_packed_file_is_refused() -> void:
	var p := _preset()
	var disk := scratch_dir().path_join("mine.ron")
	assert_eq(p.save_to_file(disk), OK, p.last_error())
	var packed := _packed_dir("readonly").path_join("mine.ron")
	_pack({packed: disk})
	assert_eq(p.save_to_file(packed), ERR_FILE_CANT_WRITE)
	assert_true(p.last_error().contains("read-only"), p.last_error())
	assert_true(p.last_error().contains(packed), p.last_error())
	assert_false(FileAccess.file_exists(ProjectSettings.globalize_path(packed)), "nothing on disk")


## A world with a small view, in the tree with a viewer at the origin.
func _world(preset: StrataWorldPreset) -> StrataChunkWorld:
	var v := Node3D.new()
	keep(v)
	add_child(v)
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.worker_threads = 1
	keep(w)
	add_child(w)
	w.viewer = w.get_path_to(v)
	return w


func test_a_packed_save_loads_and_stays_read_only() -> void:
	var w := _world(_preset())
	w.set_state("level", "seven")
	var edit := Vector3i(5, 200, -3)
	w.set_voxel(edit, 1)
	var disk := scratch_dir().path_join("world.strata")
	assert_eq(w.save_world(disk), OK, w.last_error())
	var garbage := scratch_dir().path_join("garbage.strata")
	var f := FileAccess.open(garbage, FileAccess.WRITE)
	f.store_string("not a save at all")
	f.close()
	var dir := _packed_dir("saves")
	var packed := dir.path_join("world.strata")
	var packed_garbage := dir.path_join("garbage.strata")
	_pack({packed: disk, packed_garbage: garbage})
	var loaded := _world(StrataWorldPreset.new())
	assert_eq(loaded.load_world(packed), OK, loaded.last_error())
	assert_eq(loaded.get_state("level", ""), "seven", "the saved game state")
	assert_eq(loaded.get_voxel(edit), 1, "the saved edit")
	assert_eq(loaded.preset.fingerprint(), _preset().fingerprint(), "the saved preset")
	# A damaged save in the pack is refused, naming its path; the world keeps what it had.
	assert_eq(loaded.load_world(packed_garbage), ERR_FILE_CORRUPT)
	assert_true(loaded.last_error().contains(packed_garbage), loaded.last_error())
	assert_eq(loaded.get_state("level", ""), "seven", "nothing changed")
	# Saving over the packed file is refused; the world saves to user:// as ever.
	assert_eq(loaded.save_world(packed), ERR_FILE_CANT_WRITE)
	assert_true(loaded.last_error().contains("read-only"), loaded.last_error())
	assert_eq(loaded.save_world(scratch_dir().path_join("again.strata")), OK, loaded.last_error())


func test_a_packed_profiles_folder_loads_and_is_read_only() -> void:
	var disk_dir := scratch_dir().path_join("profiles")
	var writer := StrataUserProfiles.new()
	writer.profiles_dir = disk_dir
	add_child(writer)
	keep(writer)
	assert_eq(writer.create_user("zoe"), OK, writer.last_error())
	assert_eq(writer.set_active_user("zoe"), OK, writer.last_error())
	assert_eq(writer.set_setting("fov", 95.0), OK, writer.last_error())
	assert_eq(writer.save_preset("hills", _preset()), OK, writer.last_error())
	var dir := _packed_dir("profiles")
	_pack(
		{
			dir.path_join("zoe.toml"): disk_dir.path_join("zoe.toml"),
			dir.path_join("zoe/presets/hills.ron"): disk_dir.path_join("zoe/presets/hills.ron"),
		}
	)
	var profiles := StrataUserProfiles.new()
	profiles.profiles_dir = dir
	add_child(profiles)
	keep(profiles)
	assert_eq(profiles.list_users(), PackedStringArray(["zoe"]))
	assert_eq(profiles.set_active_user("zoe"), OK, profiles.last_error())
	assert_eq(profiles.get_setting("fov"), 95.0)
	assert_eq(profiles.list_presets(), PackedStringArray(["hills"]))
	var hills := profiles.load_preset("hills")
	if assert_true(hills != null, profiles.last_error()):
		assert_eq(hills.fingerprint(), _preset().fingerprint())
	assert_eq(profiles.load_preset("none"), null)
	assert_true(profiles.last_error().contains("none"), profiles.last_error())
	assert_eq(profiles.set_active_user("nobody"), ERR_DOES_NOT_EXIST)
	# Writes are refused and leave nothing on disk.
	assert_eq(profiles.set_active_user("zoe"), OK, profiles.last_error())
	assert_eq(profiles.set_setting("fov", 70.0), ERR_FILE_CANT_WRITE)
	assert_true(profiles.last_error().contains("read-only"), profiles.last_error())
	assert_eq(profiles.create_user("yan"), ERR_FILE_CANT_WRITE)
	assert_false(
		DirAccess.dir_exists_absolute(ProjectSettings.globalize_path(dir)), "nothing on disk"
	)
