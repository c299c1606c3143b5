## The movement checks' soak (`cargo xtask movement-soak`, rust/xtask/src/movement_soak.rs):
## `godot --headless --path tests/godot res://tools/movement_soak.tscn -- --minutes=N`.
##
## One server (a StrataWorldSync hosting on 127.0.0.1 with its own StrataChunkWorld) and one
## bot per honest behaviour (tools/movement_bot.gd: walk, sprint, jump, crouch, fall, swim, lag),
## each a client of its own over ENet, all at once for N minutes (default 5); the server stalls
## STALL_S every STALL_EVERY_S, so the poses of that time arrive at once. Prints one line per
## behaviour (seconds run, poses, packets, corrections) and then the line
## `movement_soak {JSON}` (`behaviours`: those figures per behaviour, `server`: the server's
## `get_stats()`, `errors`), and exits 1 when any honest move was corrected or refused, or a
## bot could not play; 0 otherwise.
extends Node

const Bot := preload("res://tools/movement_bot.gd")
## The world of suites/test_movement_checks.gd: a sea south-east of the origin, land north.
const WORLD_SEED := 1234
const SEA := 24
## Where each behaviour plays (searched from): land for the most, a drop, the sea.
const PLACES := {
	"walk": Vector2i(16, -36),
	"sprint": Vector2i(-20, -40),
	"jump": Vector2i(8, -8),
	"crouch": Vector2i(-28, -12),
	"fall": Vector2i(28, -24),
	"swim": Vector2i(52, 16),
	"lag": Vector2i(32, -44),
}
const STALL_S := 0.4
const STALL_EVERY_S := 30.0
## Seconds the bots may take to join and stand, all together.
const START_TIMEOUT_S := 240.0

var _minutes := 5.0
var _port := 0
var _server: StrataWorldSync
var _bots: Array[Bot] = []


func _ready() -> void:
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--minutes="):
			_minutes = maxf(arg.substr(10).to_float(), 0.05)
		elif arg.begins_with("--port="):
			_port = arg.substr(7).to_int()
	if _port == 0:
		_port = 20000 + randi() % 20000
	_soak.call_deferred()


func _soak() -> void:
	var server_world := _server_world()
	_server = StrataWorldSync.new()
	_server.name = "Server"
	add_child(_server)
	_server.world = _server.get_path_to(server_world)
	# Every bot connects from 127.0.0.1.
	_server.max_connections_per_address = 64
	if _server.host(_port) != OK:
		_finish(["cannot host on UDP port %d: %s" % [_port, _server.last_error()]])
		return
	var errors: Array[String] = []
	for behaviour: String in Bot.BEHAVIOURS:
		var feet := _spot(server_world, behaviour)
		if is_inf(feet.x):
			errors.append("%s: no place to play near %s" % [behaviour, PLACES[behaviour]])
			continue
		var bot: Bot = Bot.new()
		bot.name = behaviour
		bot.bot_name = behaviour
		bot.host_teleport = func(id: int, eye: Vector3) -> bool:
			return _server.teleport_player(id, eye, 0.0, 0.0)
		add_child(bot)
		_bots.append(bot)
		_start(bot, feet)
	print("movement soak: %d bots, %.1f minutes, port %d" % [_bots.size(), _minutes, _port])
	var started := Time.get_ticks_msec()
	while _bots.any(func(b: Bot) -> bool: return not b.standing and b.error == ""):
		if Time.get_ticks_msec() - started > START_TIMEOUT_S * 1000.0:
			errors.append("the bots did not all stand within %d s" % START_TIMEOUT_S)
			break
		await get_tree().process_frame
	for bot in _bots:
		if bot.error != "":
			errors.append(bot.error)
	if not errors.is_empty():
		_finish(errors)
		return
	print("movement soak: all standing after %.1f s" % ((Time.get_ticks_msec() - started) / 1000.0))
	var seconds := _minutes * 60.0
	for bot in _bots:
		bot.run([[bot.bot_name, seconds]])
	await _play(seconds)
	for bot in _bots:
		if bot.error != "":
			errors.append(bot.error)
		errors.append_array(bot.correction_log)
	_finish(errors)


func _server_world() -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = WORLD_SEED
	preset.water_sea_level = SEA
	var w := StrataChunkWorld.new()
	w.name = "ServerWorld"
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.frame_budget_ms = 4.0
	add_child(w)
	var viewer := Node3D.new()
	add_child(viewer)
	w.viewer = w.get_path_to(viewer)
	return w


## Where `behaviour`'s bot starts with its feet: on land, FALL_HEIGHT above it, or in the sea
## (x INF: no such place near).
func _spot(w: StrataChunkWorld, behaviour: String) -> Vector3:
	var around: Vector2i = PLACES[behaviour]
	if behaviour == "swim":
		var sea := Bot.find_water(w, around, SEA)
		if sea.y == -99999:
			return Vector3.INF
		return Vector3(sea.x + 0.5, SEA - 2.0, sea.y + 0.5)
	var land := Bot.find_land(w, around, SEA)
	if land.y == -99999:
		return Vector3.INF
	var above := Bot.FALL_HEIGHT if behaviour == "fall" else 0.0
	return Vector3(land.x + 0.5, w.get_height(land.x, land.y) + above, land.y + 0.5)


## Joins and stands `bot` (its `error` says why not).
func _start(bot: Bot, feet: Vector3) -> void:
	if not await bot.start(_port, feet):
		print("movement soak: %s could not start: %s" % [bot.bot_name, bot.error])


## Lets the bots play `seconds`, stalling the server now and then and printing progress.
func _play(seconds: float) -> void:
	var started := Time.get_ticks_msec()
	var next_stall := STALL_EVERY_S
	var next_report := 60.0
	while not _bots.all(func(b: Bot) -> bool: return b.is_done()):
		var t := (Time.get_ticks_msec() - started) / 1000.0
		if t >= next_stall and t < seconds - STALL_EVERY_S * 0.5:
			next_stall += STALL_EVERY_S
			_server.process_mode = Node.PROCESS_MODE_DISABLED
			await get_tree().create_timer(STALL_S).timeout
			_server.process_mode = Node.PROCESS_MODE_INHERIT
		if t >= next_report:
			next_report += 60.0
			var corrections := 0
			for bot in _bots:
				corrections += bot.corrections()
			print("movement soak: %.0f s of %.0f, %d corrections" % [t, seconds, corrections])
		if t > seconds + 120.0:
			break
		await get_tree().process_frame


## Prints the figures and quits: 1 on any correction, refusal or error.
func _finish(errors: Array[String]) -> void:
	var behaviours := {}
	var corrections := 0
	for bot in _bots:
		for r in bot.results:
			behaviours[r["behaviour"]] = r
			corrections += int(r["corrections"])
	var stats := _server.get_stats() if _server != null else {}
	print("")
	print(
		(
			"%-8s %8s %8s %8s %12s %10s"
			% ["behaviour", "seconds", "poses", "packets", "corrections", "distance"]
		)
	)
	for b: String in behaviours:
		var r: Dictionary = behaviours[b]
		print(
			(
				"%-8s %8.1f %8d %8d %12d %10.1f"
				% [b, r["seconds"], r["poses"], r["packets"], r["corrections"], r["distance"]]
			)
		)
	print(
		(
			"server: pose_corrections %d, poses_refused %d"
			% [int(stats.get("pose_corrections", 0)), int(stats.get("poses_refused", 0))]
		)
	)
	for e in errors:
		print("movement soak: " + e)
	var report := {"behaviours": behaviours, "server": stats, "errors": errors}
	print("movement_soak " + JSON.stringify(report))
	var failed := (
		not errors.is_empty()
		or corrections > 0
		or int(stats.get("pose_corrections", 0)) > 0
		or int(stats.get("poses_refused", 0)) > 0
		or behaviours.size() < Bot.BEHAVIOURS.size()
	)
	for a in Bot.ACTIONS:
		Input.action_release(a)
	for bot in _bots:
		if bot.session != null:
			bot.session.leave()
	if _server != null:
		_server.leave()
	get_tree().quit(1 if failed else 0)
