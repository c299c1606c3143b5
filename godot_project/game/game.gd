## The game scene: a StrataChunkWorld streaming around the player, day and night, world events, the
## HUD, the pause menu and the loading screen. This script wires them together: `WorldSetup`
## starts the world, and once it is ready the player gets control and the HUD shows; the user's
## settings apply live (texture detail 32 swaps in the 32×32 texture set); pausing, saving and
## leaving go through here.
##
## A shared world (`GameState.pending["multiplayer"]`) adds a `NetSession`: the host starts its
## chosen world and serves it; a client first joins (the loading screen says so, or why it
## failed) and then streams the host's world. Other players show as `RemotePlayers`, the
## `ChatBox` carries the chat, and a `SharedClock` gives everyone the host's time of day.
##
## The world has a floating origin (`StrataChunkWorld.floating_origin`): the player is in its shift
## group, and everything that turns positions into world voxels or columns goes through
## `WorldCoords`. "Go to…" in the pause menu sends the player anywhere (`Travel`).
##
## Scripted runs take the user arguments described in `RunArgs`.
class_name Game
extends Node3D

const MAIN_MENU := "res://game/main_menu.tscn"
## Mouse look at sensitivity 1.0 (the setting multiplies it), degrees per pixel.
const MOUSE_DEG_PER_PIXEL := 0.12
## How long a scripted screenshot waits for the view to be ready, and then to settle.
const SHOT_TIMEOUT_MS := 30_000
const SHOT_SETTLE_FRAMES := 30
## Where a joining player's spawn search starts: a few steps from the host's.
const JOINER_SPAWN := Vector2i(4, 3)

## True once the start area is loaded and the player has control.
var loaded := false
var args: RunArgs
## The shared world's session; null in a game of one.
var session: NetSession
## The host's time of day for everyone in a shared world; null in a game of one.
var shared_clock: SharedClock

@onready var world: StrataChunkWorld = $StrataChunkWorld
@onready var player: StrataPlayer = $Player
@onready var day_night: DayNight = $DayNight
@onready var events: WorldEvents = $WorldEvents
@onready var setup: WorldSetup = $WorldSetup
@onready var travel: Travel = $Travel
@onready var lantern: Lantern = $Player/Head/Lantern
@onready var hud: Hud = $HUD
@onready var pause_menu: PauseMenu = $PauseMenu
@onready var loading_screen: LoadingScreen = $LoadingScreen
@onready var remote_players: RemotePlayers = $RemotePlayers
@onready var chat: ChatBox = $ChatBox


func _ready() -> void:
	args = RunArgs.from_command_line()
	# Before any preset or save names them, and on a joining client before the host's preset.
	DemoLife.add_structures(world)
	_apply_texture_detail()
	var shared: Dictionary = GameState.pending.get("multiplayer", {})
	if shared.is_empty():
		setup.begin(GameState.pending, args)
		_world_started()
	else:
		_start_shared(shared)
	if args.shot_path != "":
		setup.progressed.connect(_print_loading)
		# Nothing 3D is drawn until the shot's view is ready (loading, a journey): under software
		# rendering every drawn frame costs hundreds of milliseconds.
		get_viewport().disable_3d = true
	GameState.settings_changed.connect(_on_setting_changed)
	_apply_settings()


## The world is chosen and streaming: the parts that show it follow.
func _world_started() -> void:
	events.world_seed = setup.world_seed
	events.sea_level = setup.sea_level
	pause_menu.set_world(setup.world_seed, GameState.world_code_of(world.preset, setup.preset_path))


## Hosts or joins a shared world (`shared` is `GameState.pending["multiplayer"]`).
func _start_shared(shared: Dictionary) -> void:
	session = NetSession.new()
	session.name = "NetSession"
	add_child(session)
	session.setup(world, player, str(shared.get("name", GameState.get_player_name())))
	session.join_failed.connect(_on_join_failed)
	session.chat_line.connect(chat.add_line)
	session.edit_refused.connect(
		func(reason: String) -> void: hud.show_notice("Edit refused: %s" % reason)
	)
	remote_players.follow(session.sync)
	shared_clock = SharedClock.new()
	shared_clock.name = "SharedClock"
	shared_clock.process_mode = Node.PROCESS_MODE_ALWAYS
	add_child(shared_clock)
	shared_clock.follow(session.sync, day_night)
	var port := int(shared.get("port", NetSession.DEFAULT_PORT))
	if str(shared.get("mode", "")) == "host":
		var saved := setup.pick_world(GameState.pending, args)
		var error := session.host(port)
		if error != "":
			printerr("Strata: cannot host: ", error)
			loading_screen.show_error("Cannot host this world", error)
			return
		print("Strata: hosting on UDP port %d as %s" % [port, session.player_name])
		setup.start(saved, _day_length_s())
		shared_clock.host_started()
		_world_started()
		return
	# Nothing to stand on until the host's world streams in.
	player.process_mode = Node.PROCESS_MODE_DISABLED
	player.input_enabled = false
	var address := str(shared.get("address", "127.0.0.1"))
	loading_screen.show_status("Joining %s:%d…" % [address, port], "as %s" % session.player_name)
	session.joined.connect(_on_joined, CONNECT_ONE_SHOT)
	var failed := session.join(address, port)
	if failed != "":
		_on_join_failed(failed)


func _day_length_s() -> float:
	return float(GameState.pending.get("day_length_s", WorldSetup.DEFAULT_DAY_LENGTH_S))


## Joined: the world now has the host's preset; stream it around a spot near the host's spawn.
func _on_joined() -> void:
	print(
		(
			"Strata: joined as %s (player %d)"
			% [session.player_name, session.sync.get_local_player_id()]
		)
	)
	setup.preset_path = ""
	loading_screen.show_progress_only()
	setup.start({}, _day_length_s(), JOINER_SPAWN)
	# The host's time of day, not the one a new world starts with.
	shared_clock.apply_shared()
	_world_started()


func _on_join_failed(message: String) -> void:
	printerr("Strata: ", message)
	if not loaded:
		loading_screen.show_error("Could not join", message)
		return
	GameState.menu_message = "Left the shared world: %s" % message
	to_main_menu()


func _on_chat_typing_changed(typing: bool) -> void:
	player.input_enabled = loaded and not typing


func _unhandled_input(event: InputEvent) -> void:
	# While paused this node gets no input: the pause menu resumes.
	if not loaded:
		return
	if event.is_action_pressed("pause"):
		pause()
		get_viewport().set_input_as_handled()
	elif event.is_action_pressed("toggle_hud"):
		hud.visible = not hud.visible
		get_viewport().set_input_as_handled()
	elif event.is_action_pressed("debug_view"):
		world.debug_view = not world.debug_view
		get_viewport().set_input_as_handled()
	elif event is InputEventMouseButton and event.is_pressed():
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


## Saves the world, its edits and the game state; returns a status line for the player. A shared
## world never goes into the single-player save (that would replace the player's own world): the
## host's `StrataWorldSync` journals every edit and saves to the shared save as it goes, and a
## guest's world is the host's.
func save_game() -> String:
	if session != null:
		if session.sync.is_server():
			return "The shared world saves itself as it changes"
		return "The host keeps this shared world"
	return (
		WorldSave
		. write(
			world,
			{
				"preset_path": setup.preset_path,
				"seed": setup.world_seed,
				"day_length_s": day_night.period_s,
				"time_of_day": day_night.get_time_of_day(),
				"day": day_night.get_day(),
				# World coordinates (64-bit): exact wherever the player is.
				"player_position": WorldCoords.world_position(world, player.global_position),
				"yaw": player.rotation.y,
				"pitch": player.head.rotation.x,
			}
		)
	)


func _on_world_setup_finished() -> void:
	loaded = true
	loading_screen.queue_free()
	# Streaming goes on in the background at the user's full view distance.
	world.view_distance = _full_view_distance()
	hud.visible = not args.hide_hud
	chat.enabled = session != null
	Input.mouse_mode = Input.MOUSE_MODE_CAPTURED
	if args.day >= 0:
		day_night.set_day(args.day)
		events.refresh()
	if not is_nan(args.auto_time):
		day_night.set_time_of_day(args.auto_time)
		day_night.frozen = true
	if args.go_to.size() == 3:
		var error := travel_to(args.go_to[0], args.go_to[1], args.go_to[2])
		if error != "":
			printerr("Strata: --go-to: ", error)
		else:
			await travel.arrived
	if args.cave:
		var v := WorldCoords.voxel_at(world, player.global_position)
		var cave := setup.find_cave(Vector2i(v.x, v.z))
		print("cave: ", cave)
		if cave != Vector3.INF:
			player.global_position = cave
	# The player is placed: from now on its moves go to the server (which checks them).
	if session != null:
		session.sends_poses = true
	if args.torches:
		_place_torches_around(player.global_position)
	lantern.start()
	if not is_nan(args.look_down_deg):
		player.head.rotation.x = deg_to_rad(-args.look_down_deg)
	if args.shot_path != "":
		_scripted_shot.call_deferred(args.shot_path)


func _process(_delta: float) -> void:
	# Sky light in the block shaders follows the time of day.
	world.daylight = day_night.get_daylight()


## Torches on the ground a few steps around global point `p` (for the scripted cave and night
## shots).
func _place_torches_around(p: Vector3) -> void:
	var torch := world.get_block_id("torch")
	var v := WorldCoords.voxel_at(world, p)
	for offset: Vector2i in [Vector2i(4, 0), Vector2i(-4, 2), Vector2i(1, -5)]:
		var x := v.x + offset.x
		var z := v.z + offset.y
		# The first open voxel above solid ground, searching from the player's height.
		for dy in range(6, -10, -1):
			var at := Vector3i(x, v.y + dy, z)
			var below := world.get_voxel(at + Vector3i.DOWN)
			if world.get_voxel(at) == 0 and below != 0 and world.get_block_name(below) != "water":
				world.set_voxel(at, torch)
				break


func _on_pause_menu_save_requested() -> void:
	pause_menu.set_status(save_game())


## Sends the player to world coordinates (x, y, z) (`y` NAN: on the ground); "" or why not.
func travel_to(x: float, y: float, z: float) -> String:
	if session != null:
		return "Travel is off in a shared world: the server checks every move"
	if not loaded:
		return "The world is still loading"
	return travel.go_to(x, y, z)


func _on_pause_menu_travel_requested(x: float, y: float, z: float) -> void:
	var error := travel_to(x, y, z)
	if error != "":
		pause_menu.show_travel_message(error)
		return
	resume()
	var y_text := "ground" if is_nan(y) else "%.1f" % y
	hud.show_notice("Travelling to %.1f, %s, %.1f…" % [x, y_text, z])


func _on_travel_arrived(at: PackedFloat64Array) -> void:
	print("Strata: arrived at %s" % WorldCoords.describe(at))
	hud.show_notice("Arrived at %s" % WorldCoords.describe(at))


func _print_loading(fraction: float, loaded_chunks: int, pending_chunks: int) -> void:
	if Engine.get_process_frames() % 30 == 0:
		print(
			(
				"loading %d%% (%d loaded, %d pending)"
				% [int(fraction * 100.0), loaded_chunks, pending_chunks]
			)
		)


func _scripted_shot(path: String) -> void:
	var deadline := Time.get_ticks_msec() + SHOT_TIMEOUT_MS
	while not world.is_area_ready() and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	get_viewport().disable_3d = false
	for i in SHOT_SETTLE_FRAMES:
		await get_tree().process_frame
	await RenderingServer.frame_post_draw
	var img := get_viewport().get_texture().get_image()
	if img != null and not img.is_empty():
		img.save_png(path)
		print("screenshot: ", path)
	get_tree().quit()


func _apply_settings() -> void:
	player.mouse_sensitivity = (
		MOUSE_DEG_PER_PIXEL * float(GameState.get_setting("mouse_sensitivity"))
	)
	player.invert_y = bool(GameState.get_setting("invert_y"))
	player.camera.fov = float(GameState.get_setting("fov"))
	world.far_view_levels = (
		args.far_view if args.far_view >= 0 else int(GameState.get_setting("far_view"))
	)
	world.ambient_occlusion = bool(GameState.get_setting("smooth_lighting"))
	_apply_texture_detail()
	if loaded:
		world.view_distance = _full_view_distance()
	_update_view_reach()


## The user's texture detail (16 or 32 pixels a block side): the default blocks with that
## texture set (`StrataBlockLibrary.create_default`), set only when it changes, as the world
## then redraws around the player (edits kept). 16 keeps the world's own default library.
func _apply_texture_detail() -> void:
	var size := int(GameState.get_setting("texture_detail"))
	var current := world.block_library.texture_size if world.block_library != null else 16
	if size != current:
		world.block_library = StrataBlockLibrary.create_default(size)


## Sun shadows reach as far as the world is drawn (near chunks and far view), up to 2 km, so
## mountains shade valleys at sunset at every distance; the fog ends there, so the world's edge
## fades into the sky.
func _update_view_reach() -> void:
	var reach := (
		float(_full_view_distance() * StrataChunkWorld.chunk_size())
		* pow(2.0, world.far_view_levels)
	)
	day_night.shadow_distance = minf(reach, 2048.0)
	# Nothing is drawn past the camera's far plane: the fog must end before it.
	day_night.view_reach_m = minf(reach, player.camera.far)


## The user's view distance, unless the run overrides it.
func _full_view_distance() -> int:
	if args.view_distance >= 0:
		return args.view_distance
	return int(GameState.get_setting("view_distance"))


func _on_setting_changed(_key: String, _value: Variant) -> void:
	_apply_settings()


func _on_chat_message_submitted(text: String) -> void:
	if session != null:
		session.send_chat(text)
