## The demo game in a shared world, in one process: one game hosts over ENet on 127.0.0.1, a
## second game instance joins it. The host draws the guest with its name tag where the guest
## stands, chat lines reach both logs, digging on either side changes both worlds through the
## server, a refused edit shows in the HUD, the guest's sky shows the host's time of day, and a
## join with nobody listening says why.
extends StrataTestCase

const GAME_SCENE := preload("res://game/world.tscn")
const MULTIPLAYER_MENU := preload("res://game/multiplayer_menu.tscn")
const HOST := "127.0.0.1"
## A world of this suite's own, so its shared save is this suite's too.
const WORLD_SEED := 424_242
## Generous: two worlds stream on a shared machine.
const LOAD_TIMEOUT_S := 90.0

var _port := 0
var _games: Array[Game] = []
var _saved_pending: Dictionary = {}
var _saved_player_name: Variant


func before_each() -> void:
	# A port of this run's own, so parallel runs on one machine do not meet.
	_port = 20000 + randi() % 20000
	_saved_pending = GameState.pending.duplicate(true)
	_saved_player_name = GameState.profiles.get_setting(GameState.PLAYER_NAME_SETTING)
	_remove_shared_save()


func after_each() -> void:
	# Guests first: a guest that outlives its host would go back to the main menu.
	_games.reverse()
	for game in _games:
		if is_instance_valid(game):
			game.free()
	_games.clear()
	GameState.pending = _saved_pending
	GameState.profiles.set_setting(
		GameState.PLAYER_NAME_SETTING, "" if _saved_player_name == null else str(_saved_player_name)
	)
	get_tree().paused = false
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE
	_remove_shared_save()


func _remove_shared_save() -> void:
	var path := NetSession.save_path_for(
		GameState.make_preset(GameState.DEFAULT_PRESET, WORLD_SEED)
	)
	for f in [path, path + ".journal", path + ".shared"]:
		if FileAccess.file_exists(f):
			DirAccess.remove_absolute(ProjectSettings.globalize_path(f))


## A game scene started with `shared` as `GameState.pending["multiplayer"]`.
func _game(shared: Dictionary) -> Game:
	GameState.pending = {
		"preset_path": GameState.DEFAULT_PRESET,
		"seed": WORLD_SEED,
		"day_length_s": 600.0,
		"continue": false,
		"world_code": "",
		"multiplayer": shared,
	}
	var game: Game = GAME_SCENE.instantiate()
	add_child(game)
	_games.append(game)
	# Two worlds on a small machine: no far view.
	game.world.far_view_levels = 0
	return game


## Waits until `game` has loaded, then keeps its view small.
func _loaded(game: Game, who: String) -> bool:
	var ok := await wait_until(func() -> bool: return game.loaded, LOAD_TIMEOUT_S)
	assert_true(ok, "%s loaded" % who)
	if ok:
		game.world.view_distance = 2
	return ok


func _hosted_and_joined() -> Array[Game]:
	var host := _game({"mode": "host", "port": _port, "name": "hostess"})
	if not await _loaded(host, "the host"):
		return []
	var guest := _game({"mode": "join", "address": HOST, "port": _port, "name": "guest"})
	if not await _loaded(guest, "the guest"):
		return []
	return [host, guest]


func test_the_host_sees_the_guest_with_its_name_where_it_stands() -> void:
	var games := await _hosted_and_joined()
	if games.is_empty():
		return
	var host := games[0]
	var guest := games[1]
	assert_true(host.session.sync.is_server(), "the host serves")
	assert_eq(guest.world.preset.fingerprint(), host.world.preset.fingerprint(), "the host's world")
	var guest_id := guest.session.sync.get_local_player_id()
	assert_gt(guest_id, 0, "the guest has a player id")
	# The guest may still be landing after its placement: compare with where its eye is now,
	# once it stands on the ground.
	assert_true(
		await wait_until(
			func() -> bool:
				var a := host.remote_players.get_avatar(guest_id)
				var eye := guest.player.camera.global_position
				return (
					guest.player.is_on_floor()
					and a != null
					and a.visible
					and a.global_position.distance_to(eye) < 0.5
				),
			20.0
		),
		"the host draws the guest at its eye %s" % guest.player.camera.global_position
	)
	var avatar := host.remote_players.get_avatar(guest_id)
	assert_eq(avatar.name_tag.text, "guest", "the name tag reads the guest's name")
	assert_eq(
		avatar.name_tag.billboard, BaseMaterial3D.BILLBOARD_ENABLED, "the tag faces the camera"
	)
	assert_gt(
		avatar.name_tag.global_position.y, avatar.global_position.y, "the tag floats above the head"
	)
	# And the guest draws the host under the host's name.
	var host_id := host.session.sync.get_local_player_id()
	assert_true(
		await wait_until(
			func() -> bool:
				var a := guest.remote_players.get_avatar(host_id)
				return a != null and a.visible,
			20.0
		),
		"the guest draws the host"
	)
	assert_eq(guest.remote_players.get_avatar(host_id).name_tag.text, "hostess")
	# Leaving removes the avatar.
	guest.free()
	assert_true(
		await wait_until(
			func() -> bool: return host.remote_players.get_avatar(guest_id) == null, 20.0
		),
		"the guest's avatar goes when the guest leaves"
	)


func test_saving_in_a_shared_world_leaves_the_single_player_save_alone() -> void:
	var had_save := FileAccess.file_exists(WorldSave.PATH)
	var before := FileAccess.get_file_as_bytes(WorldSave.PATH) if had_save else PackedByteArray()
	var games := await _hosted_and_joined()
	if games.is_empty():
		return
	for game in games:
		var status := game.save_game()
		assert_true(status.contains("shared world"), "the player is told why: %s" % status)
	assert_eq(FileAccess.file_exists(WorldSave.PATH), had_save, "no single-player save made")
	if had_save:
		assert_eq(FileAccess.get_file_as_bytes(WorldSave.PATH), before, "the save is untouched")


func test_chat_lines_reach_both_players_and_typing_stops_the_player() -> void:
	var games := await _hosted_and_joined()
	if games.is_empty():
		return
	var host := games[0]
	var guest := games[1]
	guest.chat.open()
	assert_true(guest.chat.is_typing(), "the chat line opened")
	assert_false(guest.player.input_enabled, "no walking while typing")
	var field: LineEdit = guest.chat.get_node("%Input")
	field.text = "hello host"
	field.text_submitted.emit(field.text)
	assert_false(guest.chat.is_typing(), "Enter sends and closes")
	assert_true(guest.player.input_enabled, "walking again")
	assert_true(
		await wait_until(
			func() -> bool: return host.chat.get_lines().has("guest: hello host"), 10.0
		),
		"the host reads it: %s" % host.chat.get_lines()
	)
	assert_true(
		await wait_until(
			func() -> bool: return guest.chat.get_lines().has("guest: hello host"), 10.0
		),
		"the guest reads its own line: %s" % guest.chat.get_lines()
	)
	await wait_frames(1)
	var newest: Label = host.chat.get_node("%Log").get_children().back()
	assert_eq(newest.modulate.a, 1.0, "a new line shows fully")
	host.session.send_chat("welcome")
	assert_true(
		await wait_until(
			func() -> bool: return guest.chat.get_lines().has("hostess: welcome"), 10.0
		),
		"the guest reads the host: %s" % guest.chat.get_lines()
	)
	# Escape cancels: nothing is sent.
	guest.chat.open()
	field.text = "never sent"
	var escape := InputEventKey.new()
	escape.keycode = KEY_ESCAPE
	escape.physical_keycode = KEY_ESCAPE
	escape.pressed = true
	Input.parse_input_event(escape)
	await wait_frames(3)
	assert_false(guest.chat.is_typing(), "Escape closed the chat line")
	assert_false(get_tree().paused, "Escape did not pause the game")
	await wait_frames(10)
	assert_false(host.chat.get_lines().has("guest: never sent"))
	# The log keeps the last 8 lines.
	for i in 10:
		host.chat.add_line("bo", "line %d" % i)
	var lines := host.chat.get_lines()
	assert_eq(lines.size(), ChatBox.MAX_LINES)
	assert_eq(lines[0], "bo: line 2", "the oldest went")
	assert_eq(lines[lines.size() - 1], "bo: line 9")


func test_digging_on_either_side_changes_both_worlds() -> void:
	var games := await _hosted_and_joined()
	if games.is_empty():
		return
	var host := games[0]
	var guest := games[1]
	# The guest looks straight down and digs the voxel under its feet.
	var asked: Array[Vector3i] = []
	guest.player.block_changed.connect(func(cell: Vector3i, _o: int, _n: int): asked.append(cell))
	guest.player.head.rotation.x = deg_to_rad(-89.0)
	await wait_frames(8)
	assert_true(guest.player.dig(), "the guest aims at ground")
	var dug := asked[0]
	assert_ne(host.world.get_voxel(dug), 0, "the host still has it until the server applied it")
	assert_true(
		await wait_until(func() -> bool: return host.world.get_voxel(dug) == 0, 10.0),
		"the guest's dig at %s reached the host's world" % dug
	)
	assert_true(
		await wait_until(func() -> bool: return guest.world.get_voxel(dug) == 0, 10.0),
		"and came back to the guest"
	)
	# The host digs through its own server: at once here, and the guest follows.
	asked.clear()
	host.player.block_changed.connect(func(cell: Vector3i, _o: int, _n: int): asked.append(cell))
	host.player.head.rotation.x = deg_to_rad(-89.0)
	await wait_frames(8)
	assert_true(host.player.dig(), "the host aims at ground")
	var host_dug := asked[0]
	assert_eq(host.world.get_voxel(host_dug), 0, "the host's own edit applies at once")
	assert_true(
		await wait_until(func() -> bool: return guest.world.get_voxel(host_dug) == 0, 10.0),
		"the host's dig at %s reached the guest" % host_dug
	)
	assert_eq(
		int(host.session.sync.get_stats()["edits_applied"]), 2, "both went through the server"
	)
	# Too far away: refused, and the HUD says why.
	var far := Vector3i(dug.x + 100, dug.y, dug.z)
	guest.session.request_edit(far, 0)
	assert_true(
		await wait_until(
			func() -> bool: return guest.hud.get_notice().contains("out of reach"), 10.0
		),
		"the refusal shows: %s" % guest.hud.get_notice()
	)


func test_the_guest_shows_the_hosts_time_of_day() -> void:
	var games := await _hosted_and_joined()
	if games.is_empty():
		return
	var host := games[0]
	var guest := games[1]
	var close := func(a: float, b: float) -> bool:
		# On the day's circle: 0.999 and 0.001 are close.
		var d := absf(a - b)
		return minf(d, 1.0 - d) < 0.01
	assert_true(
		await wait_until(
			func() -> bool:
				return close.call(
					guest.day_night.get_time_of_day(), host.day_night.get_time_of_day()
				),
			10.0
		),
		(
			"the guest's clock follows the host's: %.3f, host %.3f"
			% [guest.day_night.get_time_of_day(), host.day_night.get_time_of_day()]
		)
	)
	# The host turns its clock to dusk: the guest's sky follows within a publication or two.
	host.day_night.set_time_of_day(0.74)
	host.shared_clock.publish()
	assert_true(
		await wait_until(
			func() -> bool: return close.call(guest.day_night.get_time_of_day(), 0.74), 10.0
		),
		"the guest shows dusk: %.3f" % guest.day_night.get_time_of_day()
	)
	assert_eq(guest.day_night.period_s, host.day_night.period_s, "the host's day length")
	# A guest cannot turn the shared clock.
	assert_eq(guest.session.sync.set_shared_state("time_of_day", 0.1), ERR_UNAUTHORIZED)


func test_a_join_with_nobody_listening_says_why() -> void:
	var guest := _game({"mode": "join", "address": HOST, "port": _port, "name": "lonely"})
	await wait_frames(2)
	assert_false(guest.loaded)
	var back: Button = guest.loading_screen.get_node("%Back")
	assert_true(back.visible and back.text == "Cancel", "joining can be cancelled")
	assert_true(
		await wait_until(func() -> bool: return guest.loading_screen.get_error() != "", 60.0),
		"the loading screen shows an error"
	)
	assert_true(
		guest.loading_screen.get_error().contains("could not reach the server"),
		guest.loading_screen.get_error()
	)
	assert_true(
		guest.loading_screen.get_error().contains("%s:%d" % [HOST, _port]),
		"the error names the address: %s" % guest.loading_screen.get_error()
	)
	assert_true(back.visible and back.text.contains("main menu"), "a way back to the menu")


func test_the_multiplayer_menu_checks_and_keeps_the_name() -> void:
	var menu: MultiplayerMenu = MULTIPLAYER_MENU.instantiate()
	add_child(menu)
	var hosted: Array = []
	menu.host_requested.connect(
		func(port: int, player_name: String): hosted.append([port, player_name])
	)
	var field: LineEdit = menu.get_node("%PlayerName")
	field.text = "   "
	menu.host()
	assert_true(hosted.is_empty(), "no name: nothing starts")
	assert_true(menu.get_status().contains("player name"), menu.get_status())
	field.text = "Ada of the hills"
	menu.host()
	assert_eq(hosted, [[NetSession.DEFAULT_PORT, "Ada of the hills"]], "hosts on the default port")
	assert_eq(GameState.get_player_name(), "Ada of the hills", "kept on the profile")
	menu.free()


func test_run_args_for_scripted_shots() -> void:
	var shot := RunArgs.parse(
		PackedStringArray(["--shot=/tmp/a.png", "--hide-hud", "--auto-time=0.42", "--cave"])
	)
	assert_eq(shot.shot_path, "/tmp/a.png")
	assert_true(shot.hide_hud, "--hide-hud")
	assert_near(shot.auto_time, 0.42, 1e-6)
	assert_true(shot.cave and not shot.torches)
	assert_false(RunArgs.parse(PackedStringArray(["--shot=/tmp/a.png"])).hide_hud, "HUD by default")
	assert_false(shot.wants_multiplayer())


func test_run_args_host_join_and_name() -> void:
	var host := RunArgs.parse(PackedStringArray(["--host", "24600", "--name", "ada"]))
	assert_eq(host.multiplayer_request("x"), {"mode": "host", "port": 24600, "name": "ada"})
	var join := RunArgs.parse(PackedStringArray(["--join=10.0.0.7:24601"]))
	assert_eq(
		join.multiplayer_request("bo"),
		{"mode": "join", "address": "10.0.0.7", "port": 24601, "name": "bo"}
	)
	var bad := RunArgs.parse(PackedStringArray(["--join", "10.0.0.7"]))
	assert_false(bad.wants_multiplayer())
	assert_true(bad.error.contains("ADDRESS:PORT"), bad.error)
	var bad_port := RunArgs.parse(PackedStringArray(["--host", "70000"]))
	assert_true(bad_port.error.contains("1 to 65535"), bad_port.error)
