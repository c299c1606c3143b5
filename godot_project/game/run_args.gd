## User arguments (after `--`) for scripted runs of the game scene, for screenshots and checks:
##
## - `--preset=res://….tres`, `--seed=N`: the world to start (over the main menu's choice);
## - `--no-save-load`: "continue" ignores the save and starts the chosen world;
## - `--view-distance=N`, `--far-view=N`: override the user's settings;
## - `--day=N`: the day number (weather); `--auto-time=T`: the time of day, clock stopped;
## - `--cave`: spawn in a cave near the spawn point; `--look-down=DEG`: pitch the camera;
## - `--shot=ABS.png`: once loaded, save a screenshot and quit.
##
## Unset values are -1 (numbers), NAN (angles and times), "" or false.
class_name RunArgs
extends RefCounted

var preset_path := ""
var world_seed := -1
var no_save_load := false
var view_distance := -1
var far_view := -1
var day := -1
var auto_time := NAN
var cave := false
var look_down_deg := NAN
var shot_path := ""
var torches := false


## The arguments of this run.
static func from_command_line() -> RunArgs:
	return parse(OS.get_cmdline_user_args())


static func parse(args: PackedStringArray) -> RunArgs:
	var out := RunArgs.new()
	for arg in args:
		var parts := arg.split("=", true, 1)
		var value := parts[1] if parts.size() > 1 else ""
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
			"--shot":
				out.shot_path = value
			"--torches":
				out.torches = true
	return out
