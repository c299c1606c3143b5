## The game scene: a ChunkWorld streaming around the player, day and night, world events, the
## HUD, the pause menu and the loading screen.
##
## Starts what `GameState.pending` asks for (a new world from a preset and seed, or the last
## save). The loading screen shows `ChunkWorld.get_progress()` while the area around the spawn
## point streams in (at a reduced view distance, raised to the user's setting afterwards); then
## the player is put on the surface (never in rock or water) and gets control.
##
## User arguments for scripted runs (after `--`): `--auto-time=T` sets the time of day after
## loading, `--shot=ABS.png` saves a screenshot after loading and quits, `--look-down=DEG`
## pitches the camera, `--preset=res://…tres` and `--seed=N` pick the world, `--cave` spawns in a cave nearby, `--day=N` sets the day number (weather), `--view-distance=N` overrides the user's view distance,
## `--no-save-load` ignores the save.
extends Node3D

const MAIN_MENU := "res://game/main_menu.tscn"
## View distance used while loading, so the player can start early.
const LOADING_VIEW_DISTANCE := 3
## Mouse look at sensitivity 1.0 (the setting is a multiplier).
const MOUSE_DEG_PER_PIXEL := 0.12
## Game-state values kept with a save (in the world file through ChunkWorld.set_state, and in
## the state file).
const SAVE_KEYS: Array[String] = ["preset_path", "seed", "day_length_s", "time_of_day", "day", "player_position", "yaw", "pitch"]

@onready var world: ChunkWorld = $ChunkWorld
@onready var player: StrataPlayer = $Player

var day_night: DayNight
var events: WorldEvents
var hud: CanvasLayer
var pause_menu: CanvasLayer
var loading: CanvasLayer
var _progress_bar: ProgressBar
var _progress_label: Label
var loaded := false
var preset_path := ""
var world_seed := 0
var sea_level := 0
var _fps_samples: Array[float] = []
var _args := {}
var _lantern: OmniLight3D

func _ready() -> void:
	for arg in OS.get_cmdline_user_args():
		var kv := arg.split("=", true, 1)
		_args[kv[0]] = kv[1] if kv.size() > 1 else ""
	var p: Dictionary = GameState.pending.duplicate()
	if _args.has("--preset"):
		p["preset_path"] = _args["--preset"]
	if _args.has("--seed"):
		p["seed"] = int(_args["--seed"])
	# Continue: the world file (preset, edits, game state) when the extension can read it, else
	# the state file alone (same preset and seed, no edits).
	var saved := {}
	var world_loaded := false
	if p.get("continue", false):
		if world.has_method("load_world") and FileAccess.file_exists(GameState.SAVE_WORLD) and not _args.has("--no-save-load"):
			if int(world.call("load_world", GameState.SAVE_WORLD)) == OK:
				world_loaded = true
				for k in SAVE_KEYS:
					var v := str(world.call("get_state", k, ""))
					if v != "":
						saved[k] = str_to_var(v)
		if saved.is_empty():
			var cfg := GameState.read_save_state()
			if cfg and cfg.has_section("game"):
				for k in cfg.get_section_keys("game"):
					saved[k] = cfg.get_value("game", k)
	preset_path = str(saved.get("preset_path", p["preset_path"]))
	if not world_loaded:
		world.preset = GameState.make_preset(preset_path, int(saved.get("seed", p.get("seed", -1))))
	var preset: Resource = world.preset
	world_seed = int(preset.get("seed")) if preset else 0
	sea_level = int(preset.get("water_sea_level")) if preset and preset.get("water_enabled") else -100000
	world.view_distance = LOADING_VIEW_DISTANCE
	world.vertical_view_distance = 2
	world.viewer = world.get_path_to(player)
	player.set_world(world)
	player.input_enabled = false
	player.process_mode = Node.PROCESS_MODE_DISABLED

	day_night = DayNight.new()
	day_night.name = "DayNight"
	day_night.period_s = float(saved.get("day_length_s", p.get("day_length_s", 600.0)))
	add_child(day_night)
	events = WorldEvents.new()
	events.name = "WorldEvents"
	events.world_seed = world_seed
	events.world = world
	events.day_night = day_night
	events.follow = player
	events.sea_level = sea_level
	add_child(events)
	hud = load("res://game/hud.gd").new()
	hud.name = "HUD"
	hud.game = self
	hud.visible = false
	add_child(hud)
	pause_menu = load("res://game/pause_menu.gd").new()
	pause_menu.name = "PauseMenu"
	pause_menu.visible = false
	add_child(pause_menu)
	pause_menu.resume_requested.connect(resume)
	pause_menu.save_requested.connect(func(): pause_menu.set_status(save_game()))
	pause_menu.main_menu_requested.connect(to_main_menu)
	_build_loading_screen()
	GameState.settings_changed.connect(_on_setting)
	_apply_settings()

	var spawn: Vector3
	if saved.get("player_position") is Vector3:
		spawn = saved["player_position"]
		player.rotation.y = float(saved.get("yaw", 0.0))
		player.head.rotation.x = float(saved.get("pitch", 0.0))
		day_night.set_day(int(saved.get("day", 0)))
		day_night.set_time_of_day(float(saved.get("time_of_day", 0.3)))
	else:
		spawn = find_spawn(Vector2i(0, 0))
		player.rotation.y = open_view_yaw(spawn)
		day_night.set_time_of_day(0.3)
	player.global_position = spawn
	day_night.frozen = true
	_lantern = OmniLight3D.new()
	_lantern.name = "Lantern"
	_lantern.light_color = Color(1.0, 0.8, 0.55)
	_lantern.omni_range = 14.0
	_lantern.light_energy = 1.4
	_lantern.shadow_enabled = false
	_lantern.visible = false
	player.head.add_child(_lantern)

func _build_loading_screen() -> void:
	loading = CanvasLayer.new()
	loading.name = "Loading"
	loading.layer = 30
	add_child(loading)
	var bg := ColorRect.new()
	bg.color = Color(0.06, 0.07, 0.09)
	bg.set_anchors_preset(Control.PRESET_FULL_RECT)
	loading.add_child(bg)
	var center := CenterContainer.new()
	center.set_anchors_preset(Control.PRESET_FULL_RECT)
	loading.add_child(center)
	var box := VBoxContainer.new()
	box.custom_minimum_size = Vector2(480, 0)
	center.add_child(box)
	var title := Label.new()
	title.text = "Generating world…"
	title.horizontal_alignment = HORIZONTAL_ALIGNMENT_CENTER
	title.add_theme_font_size_override("font_size", 28)
	box.add_child(title)
	_progress_bar = ProgressBar.new()
	_progress_bar.name = "Progress"
	_progress_bar.custom_minimum_size = Vector2(480, 28)
	box.add_child(_progress_bar)
	_progress_label = Label.new()
	_progress_label.horizontal_alignment = HORIZONTAL_ALIGNMENT_CENTER
	box.add_child(_progress_label)

## A standing spot near column `around`: on the surface, above the sea, with air (not water or
## leaves) for the body. Searches outwards in rings.
func find_spawn(around: Vector2i) -> Vector3:
	var water := ChunkWorld.block_id("water")
	for r in range(0, 200, 3):
		var n := maxi(1, r * 2)
		for i in n * 4 if r > 0 else 1:
			var x := around.x
			var z := around.y
			if r > 0:
				var side := i / n
				var k := i % n - r
				match side:
					0: x += k; z -= r
					1: x += r; z += k
					2: x -= k; z += r
					_: x -= r; z -= k
			var h := int(world.get_height(x + 0.5, z + 0.5))
			if h < sea_level + 1:
				continue
			var below := world.get_voxel(Vector3i(x, h - 1, z))
			if below == 0 or below == water:
				continue
			var clear := true
			for dy in 3:
				if world.get_voxel(Vector3i(x, h + dy, z)) != 0:
					clear = false
					break
			if clear:
				return Vector3(x + 0.5, h + 0.05, z + 0.5)
	var h0 := world.get_height(around.x + 0.5, around.y + 0.5)
	return Vector3(around.x + 0.5, maxf(h0, sea_level + 1) + 0.05, around.y + 0.5)

## An underground air pocket (a cave) near column `around`, at least 6 voxels below the
## surface, with room to stand; Vector3.INF when none is found.
func find_cave(around: Vector2i) -> Vector3:
	for r in range(0, 96, 4):
		for dx in range(-r, r + 1, 4):
			for dz: int in [-r, r]:
				var x := around.x + dx
				var z := around.y + dz
				var top := int(world.get_height(x + 0.5, z + 0.5))
				var air := 0
				for y in range(top - 6, top - 80, -1):
					var id := world.get_voxel(Vector3i(x, y, z))
					if id == 0:
						air += 1
					else:
						if air >= 3 and ChunkWorld.block_name(id) != "water":
							return Vector3(x + 0.5, y + 1.05, z + 0.5)
						air = 0
	return Vector3.INF

## The lantern lights up underground and at night.
func _update_lantern() -> void:
	var p := player.global_position
	var depth := world.get_height(p.x, p.z) - p.y
	var underground := depth > 3.0
	_lantern.visible = underground or day_night.get_daylight() < 0.15
	var target := 1.0 - clampf((depth - 2.0) / 10.0, 0.0, 0.9)
	day_night.shade = target

## The facing (yaw) from `p` towards the lowest ground 16 voxels away: the most open view.
func open_view_yaw(p: Vector3) -> float:
	var best := 0.0
	var best_h := INF
	for i in 8:
		var yaw := i * TAU / 8.0
		var d := Vector3(-sin(yaw), 0.0, -cos(yaw)) # forward for this yaw
		var h := 0.0
		for k in [6.0, 11.0, 16.0]:
			h = maxf(h, world.get_height(p.x + d.x * k, p.z + d.z * k))
		if h < best_h:
			best_h = h
			best = yaw
	return best

func _process(_delta: float) -> void:
	if loaded and Engine.get_process_frames() % 10 == 0:
		_update_lantern()
	_fps_samples.append(Engine.get_frames_per_second())
	if _fps_samples.size() > 30:
		_fps_samples.pop_front()
	if loaded:
		return
	var prog := world.get_progress()
	_progress_bar.value = prog * 100.0
	var st := world.get_stats()
	_progress_label.text = "%d%%  —  %d chunks loaded, %d pending" % [int(prog * 100.0), st["loaded_chunks"], st["pending_chunks"]]
	if _args.has("--shot") and Engine.get_process_frames() % 30 == 0:
		print("loading %d%% (%d loaded, %d pending)" % [int(prog * 100.0), st["loaded_chunks"], st["pending_chunks"]])
	if world.is_area_ready():
		_finish_loading()

func _finish_loading() -> void:
	loaded = true
	loading.queue_free()
	loading = null
	# Streaming goes on in the background at the user's full view distance.
	world.view_distance = _full_view_distance()
	world.vertical_view_distance = 3
	# The ground may have changed under the spawn point (edits from a save): stand on it.
	var p := player.global_position
	var ground := world.get_height(p.x, p.z)
	if p.y < ground:
		player.global_position.y = ground + 0.05
	player.process_mode = Node.PROCESS_MODE_INHERIT
	player.input_enabled = true
	day_night.frozen = false
	hud.visible = true
	Input.mouse_mode = Input.MOUSE_MODE_CAPTURED
	if _args.has("--day"):
		day_night.set_day(int(_args["--day"]))
		events.refresh()
	if _args.has("--auto-time"):
		day_night.set_time_of_day(float(_args["--auto-time"]))
		day_night.frozen = true
	if _args.has("--cave"):
		# Caves are only known in streamed chunks: search after loading.
		var c := find_cave(Vector2i(floori(p.x), floori(p.z)))
		print("cave: ", c)
		if c != Vector3.INF:
			player.global_position = c
	_update_lantern()
	if _args.has("--look-down"):
		player.head.rotation.x = deg_to_rad(-float(_args["--look-down"]))
	if _args.has("--shot"):
		_scripted_shot.call_deferred(str(_args["--shot"]))

func _scripted_shot(path: String) -> void:
	var deadline := Time.get_ticks_msec() + 30_000
	while not world.is_area_ready() and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	for i in 30:
		await get_tree().process_frame
	await RenderingServer.frame_post_draw
	var img := get_viewport().get_texture().get_image()
	if img != null and not img.is_empty():
		img.save_png(path)
		print("screenshot: ", path)
	get_tree().quit()

func _unhandled_input(event: InputEvent) -> void:
	if event.is_action_pressed("pause") and loaded:
		if get_tree().paused:
			if not pause_menu.has_open_settings():
				resume()
		else:
			pause()
		get_viewport().set_input_as_handled()
	elif event.is_action_pressed("toggle_hud") and loaded:
		hud.visible = not hud.visible
		get_viewport().set_input_as_handled()
	elif event is InputEventMouseButton and event.pressed and loaded and not get_tree().paused \
			and Input.mouse_mode != Input.MOUSE_MODE_CAPTURED:
		Input.mouse_mode = Input.MOUSE_MODE_CAPTURED

func pause() -> void:
	get_tree().paused = true
	pause_menu.visible = true
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE

func resume() -> void:
	pause_menu.visible = false
	get_tree().paused = false
	Input.mouse_mode = Input.MOUSE_MODE_CAPTURED

func to_main_menu() -> void:
	get_tree().paused = false
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE
	get_tree().change_scene_to_file(MAIN_MENU)

## Saves the world's edits (when the extension can) and the game state; returns a status line.
func save_game() -> String:
	DirAccess.make_dir_recursive_absolute(GameState.SAVE_DIR)
	var state := {
		"preset_path": preset_path,
		"seed": world_seed,
		"day_length_s": day_night.period_s,
		"time_of_day": day_night.get_time_of_day(),
		"day": day_night.get_day(),
		"player_position": player.global_position,
		"yaw": player.rotation.y,
		"pitch": player.head.rotation.x,
	}
	var world_error := ""
	var world_saved := false
	if world.has_method("save_world"):
		for k in state:
			world.call("set_state", k, var_to_str(state[k]))
		world_saved = int(world.call("save_world", GameState.SAVE_WORLD)) == OK
		if not world_saved:
			world_error = str(world.call("last_error"))
	var ok := GameState.write_save_state(state)
	if world_error != "":
		return "Could not save the world: " + world_error
	if not ok:
		return "Could not save"
	return "Saved" if world_saved else "Saved (position and time; this build cannot save edits yet)"

func _apply_settings() -> void:
	player.mouse_sensitivity = MOUSE_DEG_PER_PIXEL * float(GameState.get_setting("mouse_sensitivity"))
	player.invert_y = bool(GameState.get_setting("invert_y"))
	player.camera.fov = float(GameState.get_setting("fov"))
	world.far_view_levels = _far_view_levels()
	world.ambient_occlusion = bool(GameState.get_setting("smooth_lighting"))
	if loaded:
		world.view_distance = _full_view_distance()

## The user's far view levels (a scripted run may override it with `--far-view=N`).
func _far_view_levels() -> int:
	if _args.has("--far-view"):
		return int(_args["--far-view"])
	return int(GameState.get_setting("far_view"))

## The user's view distance (a scripted run may override it with `--view-distance=N`).
func _full_view_distance() -> int:
	if _args.has("--view-distance"):
		return int(_args["--view-distance"])
	return int(GameState.get_setting("view_distance"))

func _on_setting(_key: String, _value: Variant) -> void:
	_apply_settings()

func get_biome_name() -> String:
	return events.biome if events.biome != "" else "(%s)" % WorldEvents.classify("", world.get_height(player.global_position.x, player.global_position.z), sea_level)

func stats_text() -> String:
	var st := world.get_stats()
	var p := player.global_position
	var fps := 0.0
	for f in _fps_samples:
		fps += f
	fps /= maxf(1.0, _fps_samples.size())
	var lines := PackedStringArray([
		"FPS %d" % int(fps),
		"Position %.1f, %.1f, %.1f" % [p.x, p.y, p.z],
		"Biome %s" % get_biome_name(),
		"Day %d  %s  (%s)" % [day_night.get_day() + 1, day_night.get_clock_text(), events.describe()],
		"Chunks %d loaded, %d pending" % [st["loaded_chunks"], st["pending_chunks"]],
		"Far view %d levels: %d columns, %d pending" % [st["far_view_levels"], st["far_loaded"], st["far_pending"]],
		"Jobs %d queued, %d on workers, %d retiring, %d collision" % [st["queued"], st["in_flight"], st["retiring"], st["collision_queue"]],
		"Worker ms: gen %.2f  mesh %.2f  far %.2f" % [st["gen_ms_median"], st["mesh_ms_median"], st["far_ms_median"]],
		"Apply %.2f ms / frame; per chunk %d µs, far %d µs, collision %d µs" % [st["apply_ms_last_frame"], int(st["apply_chunk_us_median"]), int(st["apply_far_us_median"]), int(st["collision_us_median"])],
		"Stance %s" % ["standing", "crouching", "prone"][player.stance],
	])
	return "\n".join(lines)

func hotbar_text() -> String:
	var parts: PackedStringArray = []
	for i in StrataPlayer.HOTBAR.size():
		var n: String = StrataPlayer.HOTBAR[i]
		parts.append(("[%d %s]" if i == player.selected_block else " %d %s ") % [i + 1, n])
	return " ".join(parts)
