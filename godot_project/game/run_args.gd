## User arguments (after `--`) for scripted runs of the game scene, for screenshots and checks:
##
## - `--preset=res://….tres`, `--seed=N`: the world to start (over the main menu's choice);
## - `--no-save-load`: "continue" ignores the save and starts the chosen world;
## - `--view-distance=N`, `--far-view=N`: override the user's settings;
## - `--day=N`: the day number (weather); `--auto-time=T`: the time of day, clock stopped;
## - `--cave`: spawn in a cave near the spawn point; `--look-down=DEG`: pitch the camera;
## - `--go-to=X,Z` or `--go-to=X,Y,Z`: once loaded, travel there (world coordinates; without Y
##   onto the ground), as the pause menu's "Go to…" does;
## - `--shot=ABS.png`: once loaded, save a screenshot and quit; `--hide-hud`: start with the HUD
##   hidden (as F3 hides it);
## - `--host PORT`: host the chosen world for other players on UDP `PORT`;
## - `--join ADDRESS:PORT`: join the world hosted there; `--name NAME`: the player's name.
##   These three also take the `--key=value` form; the main menu starts the game with them.
##
## Unset values are -1 (numbers), NAN (angles and times), "" or false.
class_name RunArgs
extends RefCounted

## Keys whose value may follow as the next argument.
const SPACED_KEYS: Array[String] = ["--host", "--join", "--name"]

var preset_path := ""
var world_seed := -1
var no_save_load := false
var view_distance := -1
var far_view := -1
var day := -1
var auto_time := NAN
var cave := false
var look_down_deg := NAN
## [x, y, z] of `--go-to` (y NAN: on the ground); empty when not asked for.
var go_to := PackedFloat64Array()
var shot_path := ""
var hide_hud := false
var torches := false
var host_port := -1
var join_address := ""
var join_port := -1
var player_name := ""
## What was wrong with the arguments ("" when nothing).
var error := ""


## The arguments of this run.
static func from_command_line() -> RunArgs:
	return parse(OS.get_cmdline_user_args())


static func parse(args: PackedStringArray) -> RunArgs:
	var out := RunArgs.new()
	var i := 0
	while i < args.size():
		var parts := args[i].split("=", true, 1)
		var value := parts[1] if parts.size() > 1 else ""
		# `--host 24565` as well as `--host=24565`.
		if parts.size() == 1 and parts[0] in SPACED_KEYS and i + 1 < args.size():
			i += 1
			value = args[i]
		match parts[0]:
			"--preset":
				out.preset_path = value
			"--seed":
				out.world_seed = int(value)
			"--no-save-load":
				out.no_save_load = true
			"--view-distance":
				out.view_distance = int(value)
			"--far-view":
				out.far_view = int(value)
			"--day":
				out.day = int(value)
			"--auto-time":
				out.auto_time = float(value)
			"--cave":
				out.cave = true
			"--look-down":
				out.look_down_deg = float(value)
			"--go-to":
				out.go_to = _coordinates(value, out)
			"--shot":
				out.shot_path = value
			"--hide-hud":
				out.hide_hud = true
			"--torches":
				out.torches = true
			"--host":
				out.host_port = _port(value, "--host", out)
			"--join":
				var at := value.rfind(":")
				out.join_address = value.left(at) if at > 0 else ""
				out.join_port = _port(value.substr(at + 1) if at > 0 else "", "--join", out)
				if out.join_address == "":
					out.error = "--join %s: expected ADDRESS:PORT, e.g. 127.0.0.1:24565" % value
			"--name":
				out.player_name = value
		i += 1
	return out


## Whether the run asks to host or join a shared world.
func wants_multiplayer() -> bool:
	return error == "" and (host_port > 0 or join_address != "")


## The shared-world request for `GameState.pending["multiplayer"]` ({} when none).
func multiplayer_request(fallback_name: String) -> Dictionary:
	if not wants_multiplayer():
		return {}
	var who := player_name if player_name != "" else fallback_name
	if host_port > 0:
		return {"mode": "host", "port": host_port, "name": who}
	return {"mode": "join", "address": join_address, "port": join_port, "name": who}


## `X,Z` or `X,Y,Z` as [x, y, z] (y NAN when left out); empty (and `out.error`) when malformed.
static func _coordinates(text: String, out: RunArgs) -> PackedFloat64Array:
	var parts := text.split(",")
	var numbers := PackedFloat64Array()
	for p in parts:
		if not p.strip_edges().is_valid_float():
			numbers.clear()
			break
		numbers.append(p.strip_edges().to_float())
	if numbers.size() == 2:
		return PackedFloat64Array([numbers[0], NAN, numbers[1]])
	if numbers.size() == 3:
		return numbers
	out.error = "--go-to=%s: expected X,Z or X,Y,Z, e.g. 1000000,1000000" % text
	return PackedFloat64Array()


static func _port(text: String, key: String, out: RunArgs) -> int:
	if text.is_valid_int() and int(text) >= 1 and int(text) <= 65535:
		return int(text)
	out.error = "%s: port %s is not allowed; allowed: 1 to 65535" % [key, text]
	return -1
