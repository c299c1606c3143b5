## Autoload `GameState`: the demo game's state between scenes, the active user's settings and
## key bindings, and the last save.
##
## Settings and bindings live on the active user's profile through the extension's
## `UserProfiles` class when it exists; otherwise in a local `ConfigFile` (`user://profiles.cfg`).
## Only bindings that differ from the project's defaults are stored, so a new default reaches
## every player. Movement is bound by physical keycode.
extends Node

signal settings_changed(key: String, value: Variant)
signal bindings_changed

## Every action the game reads, in the order the settings menu lists them.
const ACTIONS: Array[String] = ["move_forward", "move_back", "move_left", "move_right", "jump", "sprint",
	"crouch", "prone", "dig", "place", "pause", "toggle_hud"]
const ACTION_LABELS := {
	"move_forward": "Forward", "move_back": "Back", "move_left": "Left", "move_right": "Right",
	"jump": "Jump", "sprint": "Sprint", "crouch": "Crouch", "prone": "Prone", "dig": "Dig",
	"place": "Place", "pause": "Pause", "toggle_hud": "Toggle HUD",
}
const DEFAULT_SETTINGS := {
	"view_distance": 8, "far_view": 3, "mouse_sensitivity": 1.0, "invert_y": false, "fov": 75.0, "fullscreen": false,
	"smooth_lighting": true,
}
const LOCAL_PROFILES_PATH := "user://profiles.cfg"
const SAVE_DIR := "user://saves"
const SAVE_WORLD := "user://saves/last.strata"
const SAVE_STATE := "user://saves/last.cfg"
const DEFAULT_PRESET := "res://presets/default_hills.tres"

## What the world scene should start: filled by the main menu, read by `world.gd`.
var pending := {
	"preset_path": DEFAULT_PRESET,
	"seed": -1, # -1 = the preset's own seed
	"day_length_s": 600.0,
	"continue": false,
}

var _profiles: Node = null # the extension's UserProfiles, when present
var _local := ConfigFile.new()
var _default_events := {} # action -> Array[InputEvent] from project.godot

func _ready() -> void:
	for action in ACTIONS:
		var evs: Array = []
		if InputMap.has_action(action):
			for e in InputMap.action_get_events(action):
				evs.append(e.duplicate())
		_default_events[action] = evs
	if ClassDB.class_exists("UserProfiles"):
		_profiles = ClassDB.instantiate("UserProfiles")
		if _profiles != null:
			_profiles.name = "UserProfiles"
			add_child(_profiles)
	_local.load(LOCAL_PROFILES_PATH)
	if get_active_user() == "":
		if list_users().is_empty():
			create_user("Player")
		set_active_user(list_users()[0])
	else:
		apply_all()

## True when settings go through the extension's UserProfiles.
func uses_profiles() -> bool:
	return _profiles != null

# --- users ---------------------------------------------------------------------------------

func list_users() -> PackedStringArray:
	if _profiles:
		return PackedStringArray(_profiles.call("list_users"))
	return PackedStringArray(_local.get_value("meta", "users", PackedStringArray()))

func create_user(user_name: String) -> bool:
	user_name = user_name.strip_edges()
	if user_name == "" or list_users().has(user_name):
		return false
	if _profiles:
		return int(_profiles.call("create_user", user_name)) == OK
	var users := list_users()
	users.append(user_name)
	_local.set_value("meta", "users", users)
	_save_local()
	return true

func set_active_user(user_name: String) -> void:
	if _profiles:
		# Loads the profile and applies its bindings to the InputMap.
		_profiles.call("set_active_user", user_name)
		_apply_setting("fullscreen", get_setting("fullscreen"))
		bindings_changed.emit()
		return
	_local.set_value("meta", "active", user_name)
	_save_local()
	apply_all()

func get_active_user() -> String:
	if _profiles:
		var u = _profiles.call("get_active_user")
		return "" if u == null else str(u)
	return str(_local.get_value("meta", "active", ""))

func last_error() -> String:
	if _profiles and _profiles.has_method("last_error"):
		return str(_profiles.call("last_error"))
	return ""

# --- settings ------------------------------------------------------------------------------

func get_setting(key: String) -> Variant:
	var def: Variant = DEFAULT_SETTINGS.get(key)
	var v: Variant = null
	if _profiles:
		v = _profiles.call("get_setting", key)
	elif _local.has_section_key(_user_section("settings"), key):
		v = _local.get_value(_user_section("settings"), key)
	if v == null:
		return def
	match typeof(def):
		TYPE_INT: return int(v)
		TYPE_FLOAT: return float(v)
		TYPE_BOOL: return bool(v)
	return v

func set_setting(key: String, value: Variant) -> void:
	if _profiles:
		_profiles.call("set_setting", key, value)
	else:
		_local.set_value(_user_section("settings"), key, value)
		_save_local()
	_apply_setting(key, value)
	settings_changed.emit(key, value)

func _apply_setting(key: String, value: Variant) -> void:
	if key == "fullscreen" and DisplayServer.get_name() != "headless":
		DisplayServer.window_set_mode(DisplayServer.WINDOW_MODE_FULLSCREEN if value else DisplayServer.WINDOW_MODE_WINDOWED)

# --- key bindings --------------------------------------------------------------------------

## Binds `action` to `event` alone (replacing its events), on the active profile.
func rebind(action: String, event: InputEvent) -> void:
	var e := normalize_event(event)
	if e == null or not InputMap.has_action(action):
		return
	if _profiles:
		# Stores the override and applies it to the InputMap.
		_profiles.call("rebind", action, e)
	else:
		InputMap.action_erase_events(action)
		InputMap.action_add_event(action, e)
		_local.set_value(_user_section("bindings"), action, event_to_code(e))
		_save_local()
	bindings_changed.emit()

## Restores the project's default binding of `action`.
func reset_action(action: String) -> void:
	if _profiles:
		_profiles.call("reset_action", action)
		bindings_changed.emit()
		return
	_restore_default(action)
	if _local.has_section_key(_user_section("bindings"), action):
		_local.erase_section_key(_user_section("bindings"), action)
		_save_local()
	bindings_changed.emit()

## Restores every default binding.
func reset_all() -> void:
	if _profiles:
		_profiles.call("reset_all")
		bindings_changed.emit()
		return
	for action in ACTIONS:
		_restore_default(action)
	if _local.has_section(_user_section("bindings")):
		_local.erase_section(_user_section("bindings"))
		_save_local()
	bindings_changed.emit()

## Events bound to more than one action: an array of { "event": text, "actions": [names] }.
func conflicts() -> Array:
	var by_code := {}
	for action in ACTIONS:
		for e in InputMap.action_get_events(action):
			var code := event_to_code(e)
			if code == "":
				continue
			if not by_code.has(code):
				by_code[code] = []
			if not by_code[code].has(action):
				by_code[code].append(action)
	var out := []
	for code in by_code:
		if by_code[code].size() > 1:
			out.append({"event": event_text(code_to_event(code)), "actions": by_code[code]})
	return out

## Text for the first event of `action` ("W", "Mouse 1", ...).
func binding_text(action: String) -> String:
	var evs := InputMap.action_get_events(action) if InputMap.has_action(action) else []
	return "—" if evs.is_empty() else event_text(evs[0])

static func event_text(e: InputEvent) -> String:
	if e is InputEventKey:
		var code: int = e.physical_keycode if e.physical_keycode != 0 else e.keycode
		return OS.get_keycode_string(code)
	if e is InputEventMouseButton:
		match e.button_index:
			MOUSE_BUTTON_LEFT: return "Left mouse"
			MOUSE_BUTTON_RIGHT: return "Right mouse"
			MOUSE_BUTTON_MIDDLE: return "Middle mouse"
		return "Mouse %d" % e.button_index
	return "?" if e == null else e.as_text()

## A clean, bindable copy of a key or mouse-button event (keys by physical keycode), or null.
static func normalize_event(event: InputEvent) -> InputEvent:
	if event is InputEventKey:
		var code: int = event.physical_keycode
		if code == 0:
			code = event.keycode
		if code == 0:
			return null
		var k := InputEventKey.new()
		k.physical_keycode = code
		return k
	if event is InputEventMouseButton:
		var m := InputEventMouseButton.new()
		m.button_index = event.button_index
		return m
	return null

static func event_to_code(e: InputEvent) -> String:
	if e is InputEventKey:
		return "key:%d" % (e.physical_keycode if e.physical_keycode != 0 else e.keycode)
	if e is InputEventMouseButton:
		return "mouse:%d" % e.button_index
	return ""

static func code_to_event(code: String) -> InputEvent:
	var parts := code.split(":")
	if parts.size() != 2 or not parts[1].is_valid_int():
		return null
	if parts[0] == "key":
		var k := InputEventKey.new()
		k.physical_keycode = int(parts[1])
		return k
	if parts[0] == "mouse":
		var m := InputEventMouseButton.new()
		m.button_index = int(parts[1])
		return m
	return null

func _restore_default(action: String) -> void:
	if not InputMap.has_action(action):
		return
	InputMap.action_erase_events(action)
	for e in _default_events.get(action, []):
		InputMap.action_add_event(action, e.duplicate())

## Applies the active user's settings and bindings (after a user switch or at start).
func apply_all() -> void:
	if _profiles:
		# Re-loading the active profile re-applies its bindings over the project defaults.
		var u := get_active_user()
		if u != "":
			_profiles.call("set_active_user", u)
	else:
		for action in ACTIONS:
			_restore_default(action)
		var sec := _user_section("bindings")
		if _local.has_section(sec):
			for action in _local.get_section_keys(sec):
				var e := code_to_event(str(_local.get_value(sec, action)))
				if e != null and InputMap.has_action(action):
					InputMap.action_erase_events(action)
					InputMap.action_add_event(action, e)
	_apply_setting("fullscreen", get_setting("fullscreen"))
	bindings_changed.emit()

func _user_section(kind: String) -> String:
	return "user:%s:%s" % [str(_local.get_value("meta", "active", "")), kind]

func _save_local() -> void:
	var err := _local.save(LOCAL_PROFILES_PATH)
	if err != OK:
		push_error("GameState: cannot write %s (%s)" % [LOCAL_PROFILES_PATH, error_string(err)])

# --- presets and saves ---------------------------------------------------------------------

## Shipped presets: [{ "name", "path", "preview" (Texture2D or null) }].
func list_presets() -> Array:
	var out := []
	var seen := {}
	if DirAccess.dir_exists_absolute("res://presets"):
		for f in DirAccess.get_files_at("res://presets"):
			var file := f.trim_suffix(".remap")
			if not file.ends_with(".tres") or seen.has(file):
				continue
			seen[file] = true
			var base := file.get_basename()
			var png := "res://presets/%s.png" % base
			var tex: Texture2D = load(png) if ResourceLoader.exists(png) else null
			out.append({"name": base.capitalize(), "path": "res://presets/" + file, "preview": tex})
	out.sort_custom(func(a, b): return a["path"] < b["path"])
	# The active user's own presets (UserProfiles' preset library).
	if _profiles and get_active_user() != "":
		for n in PackedStringArray(_profiles.call("list_presets")):
			out.append({"name": "%s (mine)" % n, "path": "profile:" + n, "preview": null})
	if out.is_empty():
		out.append({"name": "Default (built-in)", "path": "", "preview": null})
	return out

## The preset resource for `path` ("" or missing = the built-in default), with `seed` applied.
func make_preset(path: String, seed_value: int) -> Resource:
	var p: Resource = null
	if path.begins_with("profile:") and _profiles:
		p = _profiles.call("load_preset", path.trim_prefix("profile:"))
	elif path != "" and ResourceLoader.exists(path):
		p = load(path)
		if p != null:
			p = p.duplicate()
	if p == null:
		p = ClassDB.instantiate("WorldPreset") if ClassDB.class_exists("WorldPreset") else null
	if p != null and seed_value >= 0:
		if p.has_method("with_new_seed"):
			p = p.with_new_seed(seed_value)
		else:
			p.set("seed", seed_value)
	return p

func has_save() -> bool:
	return FileAccess.file_exists(SAVE_STATE) or FileAccess.file_exists(SAVE_WORLD)

func read_save_state() -> ConfigFile:
	var c := ConfigFile.new()
	if c.load(SAVE_STATE) != OK:
		return null
	return c

func write_save_state(values: Dictionary) -> bool:
	DirAccess.make_dir_recursive_absolute(SAVE_DIR)
	var c := ConfigFile.new()
	for k in values:
		c.set_value("game", k, values[k])
	return c.save(SAVE_STATE) == OK
