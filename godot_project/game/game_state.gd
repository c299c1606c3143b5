## Autoload `GameState`: what the next game scene should start, the active user's settings and
## key bindings, and the presets to choose from.
##
## Users, settings, key bindings and each user's own presets live in the extension's
## `StrataUserProfiles` (a child of this node), which stores only the bindings that differ from the
## project's input map, so a new default reaches every player. This script adds the demo's
## defaults, the game's actions and their bindings (`KeyBindings`: keyboard, mouse and gamepad), and
## signals for the game to follow.
extends Node

signal settings_changed(key: String, value: Variant)
signal bindings_changed

## Every action the game reads, in the order the settings menu lists them.
const ACTIONS := KeyBindings.ACTIONS
const ACTION_LABELS := KeyBindings.ACTION_LABELS
## Settings a profile may leave unset, with the value used then (its type is the setting's).
const DEFAULT_SETTINGS: Dictionary[String, Variant] = {
	"view_distance": 8,
	"far_view": 3,
	"mouse_sensitivity": 1.0,
	"invert_y": false,
	"fov": 75.0,
	"fullscreen": false,
	"smooth_lighting": true,
	"texture_detail": 16,
}
const DEFAULT_PRESET := "res://addons/strata/presets/default_hills.tres"
const PRESET_DIR := "res://addons/strata/presets"
## Prefix of a preset path that names one of the active user's own presets.
const PROFILE_PRESET_PREFIX := "profile:"
## The user created on first start, when there is none.
const FIRST_USER := "Player"
## The profile setting holding the name other players see (default: the profile's name).
const PLAYER_NAME_SETTING := "player_name"
## The most bytes a player name may have (the shared world's limit).
const MAX_PLAYER_NAME_BYTES := 32

## What the game scene should start: filled by the main menu, read by `WorldSetup`.
## `seed` -1 keeps the preset's own seed; `continue` loads the last save instead; a
## `world_code` (from the "customize world" screen or a friend) names the whole world instead
## of the preset and seed. `multiplayer`, when not empty, shares the world: `{"mode": "host",
## "port", "name"}` hosts the chosen world, `{"mode": "join", "address", "port", "name"}` plays
## in another player's world instead.
var pending: Dictionary = {
	"preset_path": DEFAULT_PRESET,
	"seed": -1,
	"day_length_s": 600.0,
	"continue": false,
	"world_code": "",
	"multiplayer": {},
}
## A line for the main menu to show when it opens (why a shared game ended), then cleared.
var menu_message := ""
## Whether the main menu already followed the run's `--host`/`--join` arguments.
var run_args_used := false

## The extension's profile store.
var profiles: StrataUserProfiles
## The game's actions and their keyboard, mouse and gamepad bindings on the active profile.
var bindings: KeyBindings


func _ready() -> void:
	profiles = StrataUserProfiles.new()
	profiles.name = "StrataUserProfiles"
	# Entering the tree captures the project's input map as the defaults.
	add_child(profiles)
	bindings = KeyBindings.new(profiles)
	bindings.changed.connect(func() -> void: bindings_changed.emit())
	if get_active_user() != "":
		apply_all()
		return
	if list_users().is_empty():
		create_user(FIRST_USER)
	var users := list_users()
	if not users.is_empty():
		set_active_user(users[0])


# --- users ---------------------------------------------------------------------------------


func list_users() -> PackedStringArray:
	return profiles.list_users()


## Creates a profile; false (see `last_error()`) for an empty or taken name or a write error.
func create_user(user_name: String) -> bool:
	user_name = user_name.strip_edges()
	if user_name == "" or list_users().has(user_name):
		return false
	return profiles.create_user(user_name) == OK


## Loads the user's profile and applies their bindings and settings.
func set_active_user(user_name: String) -> void:
	if profiles.set_active_user(user_name) != OK:
		push_warning("GameState: " + profiles.last_error())
		return
	_apply_setting("fullscreen", get_setting("fullscreen"))


func get_active_user() -> String:
	return profiles.get_active_user()


func last_error() -> String:
	return profiles.last_error()


## The name other players see: the profile's `player_name`, else the profile's own name.
func get_player_name() -> String:
	var stored: Variant = profiles.get_setting(PLAYER_NAME_SETTING)
	if stored is String and str(stored).strip_edges() != "":
		return str(stored).strip_edges()
	var user := get_active_user()
	return user if user != "" else FIRST_USER


## Checks and stores the player name on the active profile; "" or the reason it is refused.
func set_player_name(player_name: String) -> String:
	var problem := player_name_problem(player_name)
	if problem != "":
		return problem
	if profiles.set_setting(PLAYER_NAME_SETTING, player_name.strip_edges()) != OK:
		return profiles.last_error()
	return ""


## Why `player_name` cannot be used ("" when it can).
static func player_name_problem(player_name: String) -> String:
	var trimmed := player_name.strip_edges()
	if trimmed == "":
		return "Type a player name."
	if trimmed.to_utf8_buffer().size() > MAX_PLAYER_NAME_BYTES:
		return "The player name is too long (at most %d bytes)." % MAX_PLAYER_NAME_BYTES
	return ""


# --- settings ------------------------------------------------------------------------------


## The active user's setting `key`, or its default, as the default's type.
func get_setting(key: String) -> Variant:
	var fallback: Variant = DEFAULT_SETTINGS.get(key)
	var value: Variant = profiles.get_setting(key)
	if value == null:
		return fallback
	match typeof(fallback):
		TYPE_INT:
			return int(value)
		TYPE_FLOAT:
			return float(value)
		TYPE_BOOL:
			return bool(value)
	return value


## Stores a setting on the active profile (refused values keep the old one) and applies it.
func set_setting(key: String, value: Variant) -> void:
	if profiles.set_setting(key, value) != OK:
		push_warning("GameState: " + profiles.last_error())
		return
	_apply_setting(key, value)
	settings_changed.emit(key, value)


func _apply_setting(key: String, value: Variant) -> void:
	if key == "fullscreen" and DisplayServer.get_name() != "headless":
		DisplayServer.window_set_mode(
			DisplayServer.WINDOW_MODE_FULLSCREEN if value else DisplayServer.WINDOW_MODE_WINDOWED
		)


# --- key bindings --------------------------------------------------------------------------


## Binds `action` to `event` alone among its inputs of the same kind (keyboard and mouse, or
## gamepad), on the active profile; see `KeyBindings.rebind`.
func rebind(action: String, event: InputEvent) -> void:
	bindings.rebind(action, event)


## Restores the project's bindings (keyboard, mouse and gamepad) of `action`.
func reset_action(action: String) -> void:
	bindings.reset_action(action)


## Restores every default binding.
func reset_all() -> void:
	bindings.reset_all()


## Inputs bound to more than one of the game's actions:
## `[{ "event": text, "actions": Array[String] }]`.
func conflicts() -> Array[Dictionary]:
	return bindings.conflicts()


## Text for the first keyboard or mouse input of `action` ("W", "Left mouse", ...).
func binding_text(action: String) -> String:
	return bindings.binding_text(action)


static func event_text(event: InputEvent) -> String:
	return KeyBindings.event_text(event)


## Re-applies the active user's bindings and settings (at start, or after the input map was
## changed behind the profile's back).
func apply_all() -> void:
	var user := get_active_user()
	if user != "":
		profiles.set_active_user(user)
	_apply_setting("fullscreen", get_setting("fullscreen"))


# --- presets -------------------------------------------------------------------------------


## Shipped presets, then the active user's own: `[{ "name", "path", "preview" }]` (preview: a
## shipped Texture2D or null).
func list_presets() -> Array[Dictionary]:
	var out: Array[Dictionary] = []
	var seen: Dictionary[String, bool] = {}
	if DirAccess.dir_exists_absolute(PRESET_DIR):
		for listed in DirAccess.get_files_at(PRESET_DIR):
			# Exported builds list `x.tres.remap`.
			var file := listed.trim_suffix(".remap")
			if not file.ends_with(".tres") or seen.has(file):
				continue
			seen[file] = true
			var base := file.get_basename()
			var png := "%s/%s.png" % [PRESET_DIR, base]
			var preview: Texture2D = load(png) if ResourceLoader.exists(png) else null
			out.append(
				{"name": base.capitalize(), "path": PRESET_DIR.path_join(file), "preview": preview}
			)
	out.sort_custom(func(a: Dictionary, b: Dictionary) -> bool: return a["path"] < b["path"])
	if get_active_user() != "":
		for preset_name in profiles.list_presets():
			(
				out
				. append(
					{
						"name": "%s (mine)" % preset_name,
						"path": PROFILE_PRESET_PREFIX + preset_name,
						"preview": null,
					}
				)
			)
	if out.is_empty():
		out.append({"name": "Default (built-in)", "path": "", "preview": null})
	return out


## A fresh copy of the preset at `path` ("" or missing: the built-in default), reseeded with
## `seed_value` unless it is -1.
func make_preset(path: String, seed_value: int) -> StrataWorldPreset:
	var preset: StrataWorldPreset = null
	if path.begins_with(PROFILE_PRESET_PREFIX):
		preset = profiles.load_preset(path.trim_prefix(PROFILE_PRESET_PREFIX))
	elif path != "" and ResourceLoader.exists(path):
		var shipped := load(path) as StrataWorldPreset
		if shipped != null:
			preset = shipped.duplicate() as StrataWorldPreset
	if preset == null:
		preset = StrataWorldPreset.new()
	if seed_value >= 0:
		preset = preset.with_new_seed(seed_value)
	return preset


# --- world codes ---------------------------------------------------------------------------


## The presets a world code may name as its base: each shipped preset by its file name without
## extension ("archipelago"), and "" for the built-in default.
func base_presets() -> Dictionary:
	var out: Dictionary = {"": StrataWorldPreset.new()}
	for entry in list_presets():
		var path := str(entry["path"])
		if path.begins_with(PRESET_DIR):
			out[base_name_of(path)] = make_preset(path, -1)
	return out


## The base name a world code uses for the preset at `path`: a shipped preset's file name, or
## "" (the built-in default) for anything else (a user's own preset travels as its changes).
static func base_name_of(path: String) -> String:
	if path.begins_with(PRESET_DIR):
		return path.get_file().get_basename()
	return ""


## The world code of `preset`, made from the preset at `base_path` (see `base_name_of`).
func world_code_of(preset: StrataWorldPreset, base_path: String) -> String:
	var base_name := base_name_of(base_path)
	var base := make_preset(base_path, -1) if base_name != "" else StrataWorldPreset.new()
	return preset.to_world_code(base_name, base)
