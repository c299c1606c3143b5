## The game's save: one world file written by `StrataChunkWorld.save_world`, holding the preset, the
## player's edits and the game state (`StrataChunkWorld.set_state`, values of any type).
class_name WorldSave
extends RefCounted

const DIR := "user://saves"
const PATH := "user://saves/last.strata"
## Version 1 kept each value as `var_to_str` text. Version 3 keeps "player_position" as the
## world position, three 64-bit floats (`PackedFloat64Array`); before it was a `Vector3` of the
## world node's space, which is the world position for a save of then (no floating origin).
const VERSION_KEY := "save_version"
const VERSION := 3
## The game-state values kept with a save.
const KEYS: Array[String] = [
	"preset_path",
	"seed",
	"day_length_s",
	"time_of_day",
	"day",
	"player_position",
	"yaw",
	"pitch",
]


static func exists() -> bool:
	return FileAccess.file_exists(PATH)


## Loads the save into `world` (preset and edits) and returns its game state; {} (with a
## warning when the file is unreadable) when there is nothing to continue.
static func load_into(world: StrataChunkWorld) -> Dictionary:
	if not exists():
		return {}
	if world.load_world(PATH) != OK:
		push_warning("WorldSave: cannot continue: " + world.last_error())
		return {}
	var state: Dictionary = {}
	var as_text: bool = world.get_state(VERSION_KEY, 1) == 1
	for key in KEYS:
		var value: Variant = world.get_state(key, null)
		if as_text and value is String:
			value = str_to_var(value)
		if value != null:
			state[key] = value
	return state


## Writes `state` (keys from `KEYS`) and the world into the save; returns a line for the player.
static func write(world: StrataChunkWorld, state: Dictionary) -> String:
	DirAccess.make_dir_recursive_absolute(DIR)
	world.set_state(VERSION_KEY, VERSION)
	for key: String in state:
		world.set_state(key, state[key])
	if world.save_world(PATH) != OK:
		return "Could not save the world: " + world.last_error()
	return "Saved"
