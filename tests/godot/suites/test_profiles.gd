## StrataUserProfiles: users, bindings as overrides of the project InputMap, settings, presets,
## errors.
extends StrataTestCase

const JUMP := &"strata_test_jump"
const FIRE := &"strata_test_fire"

var _dir := ""
var _profiles: StrataUserProfiles


func _key(physical: Key) -> InputEventKey:
	var e := InputEventKey.new()
	e.physical_keycode = physical
	return e


func before_each() -> void:
	_dir = "user://test_profiles_%d" % randi()
	# Two project actions, as a game would define them in its InputMap.
	InputMap.add_action(JUMP)
	InputMap.action_add_event(JUMP, _key(KEY_SPACE))
	InputMap.add_action(FIRE)
	var click := InputEventMouseButton.new()
	click.button_index = MOUSE_BUTTON_LEFT
	InputMap.action_add_event(FIRE, click)
	_profiles = StrataUserProfiles.new()
	_profiles.profiles_dir = _dir
	add_child(_profiles)  # _ready captures the defaults


func after_each() -> void:
	if is_instance_valid(_profiles):
		_profiles.free()
	for a in [JUMP, FIRE]:
		if InputMap.has_action(a):
			InputMap.erase_action(a)
	remove_tree(_dir)


func _keys(action: StringName) -> Array:
	var out := []
	for e in InputMap.action_get_events(action):
		if e is InputEventKey:
			out.append(e.physical_keycode)
		elif e is InputEventMouseButton:
			out.append("mouse%d" % e.button_index)
	return out


func test_two_users_switch_bindings_at_once() -> void:
	var switched: Array[String] = []
	_profiles.active_user_changed.connect(func(n): switched.append(n))
	assert_eq(_profiles.create_user("alice"), OK, _profiles.last_error())
	assert_eq(_profiles.create_user("bob"), OK, _profiles.last_error())
	assert_eq(_profiles.list_users(), PackedStringArray(["alice", "bob"]))
	assert_eq(_profiles.set_active_user("alice"), OK)
	assert_eq(_profiles.rebind(JUMP, _key(KEY_F)), OK, _profiles.last_error())
	assert_eq(_keys(JUMP), [KEY_F], "alice after rebind")
	assert_eq(_profiles.set_active_user("bob"), OK)
	assert_eq(_keys(JUMP), [KEY_SPACE], "bob starts from the defaults")
	assert_eq(_profiles.rebind(JUMP, _key(KEY_G)), OK)
	var click := InputEventMouseButton.new()
	click.button_index = MOUSE_BUTTON_RIGHT
	assert_eq(_profiles.rebind(FIRE, click), OK)
	for i in 2:
		assert_eq(_profiles.set_active_user("alice"), OK)
		assert_eq(_profiles.get_active_user(), "alice")
		assert_eq(_keys(JUMP), [KEY_F], "alice, round %d" % i)
		assert_eq(_keys(FIRE), ["mouse1"], "alice keeps the default fire, round %d" % i)
		assert_eq(_profiles.set_active_user("bob"), OK)
		assert_eq(_keys(JUMP), [KEY_G], "bob, round %d" % i)
		assert_eq(_keys(FIRE), ["mouse2"], "bob, round %d" % i)
	assert_eq(_profiles.set_active_user(""), OK)
	assert_eq(_keys(JUMP), [KEY_SPACE], "signed out: defaults")
	assert_eq(switched.size(), 7)
	# A fresh node (a restarted game) reads the same bindings back from disk.
	var again := StrataUserProfiles.new()
	again.profiles_dir = _dir
	add_child(again)
	assert_eq(again.set_active_user("bob"), OK)
	assert_eq(_keys(JUMP), [KEY_G], "bob after restart")
	again.free()


func test_profile_files_hold_only_overrides() -> void:
	_profiles.create_user("carol")
	_profiles.set_active_user("carol")
	assert_eq(_profiles.rebind(JUMP, _key(KEY_F)), OK)
	var path := _dir.path_join("carol.toml")
	var text := FileAccess.get_file_as_string(path)
	assert_true(text.contains("strata_test_jump") and text.contains("physical = %d" % KEY_F), text)
	assert_false(text.contains("strata_test_fire"), "unchanged actions are not stored: " + text)
	# Binding back to the default removes the override from the file.
	assert_eq(_profiles.rebind(JUMP, _key(KEY_SPACE)), OK)
	assert_false(FileAccess.get_file_as_string(path).contains("strata_test_jump"))
	_profiles.rebind(JUMP, _key(KEY_H))
	assert_eq(_profiles.reset_action(JUMP), OK)
	assert_eq(_keys(JUMP), [KEY_SPACE])
	_profiles.rebind(JUMP, _key(KEY_H))
	assert_eq(_profiles.reset_all(), OK)
	assert_false(FileAccess.get_file_as_string(path).contains("strata_test_jump"))


func test_bad_profile_file_errors_without_touching_it() -> void:
	DirAccess.make_dir_recursive_absolute(_dir)
	var path := _dir.path_join("dave.toml")
	var bad := "version = 1\n\n[settings]\nview_distance = -3\n"
	var f := FileAccess.open(path, FileAccess.WRITE)
	f.store_string(bad)
	f.close()
	_profiles.create_user("erin")
	_profiles.set_active_user("erin")
	_profiles.rebind(JUMP, _key(KEY_F))
	assert_ne(_profiles.set_active_user("dave"), OK)
	var e := _profiles.last_error()
	assert_true(e.contains("dave.toml") and e.contains("view_distance") and e.contains("2..=32"), e)
	assert_eq(_profiles.get_active_user(), "erin", "a failed switch keeps the user")
	assert_eq(_keys(JUMP), [KEY_F], "and the bindings")
	assert_eq(FileAccess.get_file_as_string(path), bad, "the file is untouched")
	f = FileAccess.open(path, FileAccess.WRITE)
	f.store_buffer(PackedByteArray([0, 255, 19, 55]))
	f.close()
	assert_ne(_profiles.set_active_user("dave"), OK)
	assert_true(_profiles.last_error().contains("dave.toml"), _profiles.last_error())
	assert_ne(_profiles.create_user("../escape"), OK)
	assert_true(_profiles.last_error().contains("allowed"), _profiles.last_error())


func test_settings_are_checked() -> void:
	_profiles.create_user("fay")
	assert_eq(_profiles.set_setting("fov", 90.0), ERR_UNCONFIGURED, "no active user yet")
	_profiles.set_active_user("fay")
	assert_eq(_profiles.set_setting("view_distance", 12), OK)
	assert_eq(_profiles.get_setting("view_distance"), 12)
	assert_ne(_profiles.set_setting("view_distance", -1), OK)
	assert_true(_profiles.last_error().contains("2..=32"), _profiles.last_error())
	assert_eq(_profiles.get_setting("view_distance"), 12)
	assert_ne(_profiles.set_setting("fov", 500.0), OK)
	assert_eq(_profiles.set_setting("hud_scale", 1.5), OK)
	assert_eq(_profiles.get_setting("hud_scale"), 1.5)
	assert_eq(_profiles.set_setting("invert_y", true), OK)
	_profiles.set_active_user("")
	_profiles.set_active_user("fay")
	assert_eq(_profiles.get_setting("invert_y"), true, "settings persist")


## Conflicts on one physical key (the project's own actions may conflict elsewhere).
func _conflicts_on(physical: Key) -> Array:
	var out := []
	for c in _profiles.conflicts():
		var e = c["event"]
		if e is InputEventKey and e.physical_keycode == physical:
			out.append(c)
	return out


func test_conflicts_are_listed() -> void:
	_profiles.create_user("gus")
	_profiles.set_active_user("gus")
	assert_eq(_conflicts_on(KEY_F14).size(), 0)
	assert_eq(_profiles.rebind(JUMP, _key(KEY_F14)), OK)
	assert_eq(_conflicts_on(KEY_F14).size(), 0, "one action on F14 is no conflict")
	assert_eq(_profiles.rebind(FIRE, _key(KEY_F14)), OK)
	var c := _conflicts_on(KEY_F14)
	assert_eq(c.size(), 1)
	if c.size() == 1:
		var actions: PackedStringArray = c[0]["actions"]
		assert_eq(
			actions,
			(
				PackedStringArray(["strata_test_fire", "strata_test_jump"])
				if actions[0] == "strata_test_fire"
				else PackedStringArray(["strata_test_jump", "strata_test_fire"])
			)
		)


func test_preset_library() -> void:
	_profiles.create_user("hal")
	_profiles.set_active_user("hal")
	var p := StrataWorldPreset.new()
	p.water_sea_level = 9
	assert_eq(_profiles.save_preset("island", p), OK, _profiles.last_error())
	assert_eq(_profiles.list_presets(), PackedStringArray(["island"]))
	var q: StrataWorldPreset = _profiles.load_preset("island")
	if assert_true(q != null, _profiles.last_error()):
		assert_eq(q.fingerprint(), p.fingerprint())
	assert_eq(_profiles.delete_preset("island"), OK)
	assert_eq(_profiles.list_presets().size(), 0)
	assert_eq(_profiles.load_preset("island"), null)
	assert_ne(_profiles.save_preset("../x", p), OK)
