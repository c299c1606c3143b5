## A dedicated Strata server: one shared world, no player of its own, no window.
##
## godot --headless --path PROJECT res://addons/strata/server/dedicated_server.tscn -- \
##     --world FILE [--port N] [--preset FILE] [--seed N] [--autosave SECONDS] \
##     [--max-players N] [--max-per-address N] [--status FILE] [--tick-rate HZ] \
##     [--day-length SECONDS] [--side-view]
##
## `--side-view` serves a side view (a `StrataChunkWorld2D` of the same preset) in place of the 3D
## world: clients join it with a `StrataWorldSync` whose `world` is a `StrataChunkWorld2D`.
## FILE is the world save (`.strata`): when it exists the server resumes from it and its journal
## (every edit it acknowledged before a crash comes back); otherwise a new world is made from
## `--preset` (a `.tres` or `.ron` StrataWorldPreset; the built-in default without it) and `--seed`.
## SIGTERM, SIGINT (Ctrl+C) or SIGHUP saves and stops. `--status FILE` writes the server's
## counters as JSON twice a second (replaced atomically), for scripts and load tests.
## The server keeps the world's day clock: `time_of_day` (0 to 1, a fraction of a day), `day`
## and `day_length_s` in the shared state, published once a second, so every guest sees the
## same time of day (a game's `SharedClock` follows these keys); a day lasts `--day-length`
## seconds (default 600, the demo's). The shared state is saved with the world, so a resumed
## server goes on from the time it had.
## `--max-per-address N`: connections one address may hold (0: no limit; default 8, the
## `StrataWorldSync` default): clients on one machine, as in a load test, share 127.0.0.1.
## Exit codes: 0 stopped cleanly, 2 bad arguments, 3 the world could not be served.
extends Node

const DEFAULT_PORT := 24565
const USAGE := (
	"usage: -- --world FILE [--port N] [--preset FILE] [--seed N] [--autosave SECONDS]"
	+ " [--max-players N] [--max-per-address N] [--status FILE] [--tick-rate HZ]"
	+ " [--day-length SECONDS] [--side-view]"
)
## The demo's day, in seconds.
const DEFAULT_DAY_LENGTH_S := 600.0
## Shared state keys of the day clock (the demo's `SharedClock` reads the same).
const TIME_KEY := "time_of_day"
const DAY_KEY := "day"
const DAY_LENGTH_KEY := "day_length_s"
## Seconds between two publications of the clock.
const CLOCK_INTERVAL_S := 1.0
## The time of day a new world starts at (morning, as the demo's).
const START_TIME_OF_DAY := 0.3
const DEFAULT_TICK_RATE := 120
const STATUS_INTERVAL_S := 0.5

var _status_path := ""
var _status_elapsed := 0.0
## Whole frames (every node's work, not only the sync's) longer than 50 ms and 250 ms so far.
var _frames_over_50_ms := 0
var _frames_over_250_ms := 0
var _day_length_s := DEFAULT_DAY_LENGTH_S
var _time_of_day := START_TIME_OF_DAY
var _day := 0
var _clock_elapsed := 0.0
var _peer: ENetMultiplayerPeer
## ENet's own counters (UDP payloads, its headers included), summed since the start.
var _wire := {"wire_bytes_sent": 0, "wire_bytes_received": 0, "datagrams_sent": 0}

## The world served: the scene's StrataChunkWorld, or a StrataChunkWorld2D made for `--side-view`.
@onready var _world: Node = $World
@onready var _sync: StrataWorldSync = $Sync


func _ready() -> void:
	var options := parse_options(OS.get_cmdline_user_args())
	if options.has("error"):
		printerr("dedicated server: %s\n%s" % [options["error"], USAGE])
		get_tree().quit(2)
		return
	var save_path: String = options["world"]
	if options.get("side_view", false):
		_world = _side_view()
	if not FileAccess.file_exists(save_path):
		var preset := StrataWorldPreset.new()
		if options.has("preset"):
			preset = StrataWorldPreset.load_from_file(options["preset"])
			if preset == null:
				printerr("dedicated server: --preset %s could not be read" % options["preset"])
				get_tree().quit(2)
				return
		if options.has("seed"):
			preset.seed = options["seed"]
		_world.set("preset", preset)
	# Frames (network polls) a second: the server answers within one frame without spinning.
	Engine.max_fps = clampi(options.get("tick_rate", DEFAULT_TICK_RATE), 10, 1000)
	_status_path = options.get("status", "")
	_sync.save_path = save_path
	_sync.autosave_interval_s = options.get("autosave", 60.0)
	_sync.max_players = options.get("max_players", 32)
	_sync.max_connections_per_address = options.get("max_per_address", 8)
	if not _sync.stop_on_signals():
		push_warning(_sync.last_error())
	# The peer is made here, not by `host`, so that its ENet counters can be read.
	_peer = ENetMultiplayerPeer.new()
	var port: int = options.get("port", DEFAULT_PORT)
	var err := _peer.create_server(port, StrataWorldSync.CONNECTION_SLOTS)
	if err != OK:
		printerr("dedicated server: cannot listen on UDP port %d: %s" % [port, error_string(err)])
		get_tree().quit(3)
		return
	if _sync.host_with_peer(_peer) != OK:
		printerr("dedicated server: %s" % _sync.last_error())
		get_tree().quit(3)
		return
	_sync.peer_dropped.connect(_on_peer_dropped)
	# The clock goes on from a resumed world's shared state; the length is the argument's.
	_day_length_s = options.get("day_length", DEFAULT_DAY_LENGTH_S)
	_time_of_day = fposmod(float(_sync.get_shared_state(TIME_KEY, START_TIME_OF_DAY)), 1.0)
	_day = int(_sync.get_shared_state(DAY_KEY, 0))
	_publish_clock()
	_write_status()
	var served: StrataWorldPreset = _world.get("preset")
	printerr(
		(
			"dedicated server: serving %s on UDP port %d (seed %d, preset %s%s)"
			% [
				save_path,
				port,
				served.seed,
				served.fingerprint(),
				", side view" if _world is StrataChunkWorld2D else ""
			]
		)
	)


func _process(delta: float) -> void:
	if _sync.is_server():
		_advance_clock(delta)
	_status_elapsed += delta
	if delta > 0.05:
		_frames_over_50_ms += 1
	if delta > 0.25:
		_frames_over_250_ms += 1
	if _status_path != "" and _status_elapsed >= STATUS_INTERVAL_S:
		_status_elapsed = 0.0
		_write_status()


## The side view served in place of the scene's 3D world: one chunk around the origin streams
## (the movement checks stream one around each player).
func _side_view() -> StrataChunkWorld2D:
	var world := StrataChunkWorld2D.new()
	world.name = "World2D"
	world.view_distance = 1
	world.worker_threads = 1
	add_child(world)
	_sync.world = _sync.get_path_to(world)
	$World.queue_free()
	return world


## Reads `--key value` pairs (and the `--side-view` flag); the result holds "error" when they are
## not usable.
static func parse_options(args: PackedStringArray) -> Dictionary:
	var options := {}
	var i := 0
	while i < args.size():
		var key := args[i]
		if key == "--side-view":
			options["side_view"] = true
			i += 1
			continue
		if i + 1 >= args.size():
			return {"error": "%s needs a value" % key}
		var value := args[i + 1]
		i += 2
		match key:
			"--world", "--preset", "--status":
				options[key.substr(2)] = value
			"--port", "--seed", "--max-players", "--max-per-address", "--tick-rate":
				if not value.is_valid_int():
					return {"error": "%s %s is not a whole number" % [key, value]}
				options[key.substr(2).replace("-", "_")] = value.to_int()
			"--autosave":
				if not value.is_valid_float():
					return {"error": "--autosave %s is not a number of seconds" % value}
				options["autosave"] = value.to_float()
			"--day-length":
				if (
					not value.is_valid_float()
					or value.to_float() < 1.0
					or value.to_float() > 864000.0
				):
					return {
						"error":
						"--day-length %s is not allowed; allowed: 1 to 864000 seconds" % value
					}
				options["day_length"] = value.to_float()
			_:
				return {"error": "unknown option %s" % key}
	if not options.has("world"):
		return {"error": "--world FILE is required"}
	if options.has("port") and (options["port"] < 1 or options["port"] > 65535):
		return {"error": "--port %d is not allowed; allowed: 1 to 65535" % options["port"]}
	return options


## Moves the day clock on by `delta` seconds and publishes it once a second.
func _advance_clock(delta: float) -> void:
	var t := _time_of_day + delta / _day_length_s
	if t >= 1.0:
		_day += int(t)
		t = fposmod(t, 1.0)
	_time_of_day = t
	_clock_elapsed += delta
	if _clock_elapsed >= CLOCK_INTERVAL_S:
		_publish_clock()


## The clock into the shared state (each change reaches every guest, and the saves keep it).
func _publish_clock() -> void:
	_clock_elapsed = 0.0
	for entry: Array in [
		[DAY_LENGTH_KEY, _day_length_s], [DAY_KEY, _day], [TIME_KEY, _time_of_day]
	]:
		if _sync.set_shared_state(entry[0], entry[1]) != OK:
			push_warning("dedicated server: %s" % _sync.last_error())


func _on_peer_dropped(peer_id: int, reason: String) -> void:
	printerr("dedicated server: dropped peer %d: %s" % [peer_id, reason])


func _write_status() -> void:
	if _status_path == "":
		return
	var status := _sync.get_stats()
	status["serving"] = _sync.is_server()
	status["error"] = _sync.last_error()
	if _peer != null and _peer.host != null:
		var host := _peer.host
		_wire["wire_bytes_sent"] += host.pop_statistic(ENetConnection.HOST_TOTAL_SENT_DATA)
		_wire["wire_bytes_received"] += host.pop_statistic(ENetConnection.HOST_TOTAL_RECEIVED_DATA)
		_wire["datagrams_sent"] += host.pop_statistic(ENetConnection.HOST_TOTAL_SENT_PACKETS)
	status.merge(_wire)
	status["frames_over_50_ms"] = _frames_over_50_ms
	status["frames_over_250_ms"] = _frames_over_250_ms
	var tmp := _status_path + ".tmp"
	var f := FileAccess.open(tmp, FileAccess.WRITE)
	if f == null:
		push_warning("dedicated server: cannot write %s" % tmp)
		return
	f.store_string(JSON.stringify(status))
	f.close()
	DirAccess.rename_absolute(tmp, _status_path)
