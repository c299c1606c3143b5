## Multiplayer worker for `cargo xtask test`'s multi-process check and `cargo xtask loadtest`
## (rust/xtask/src/net_test.rs):
## `godot --headless --path tests/godot -s res://tools/net_client.gd -- --port=N --commands=PATH`.
##
## Runs the commands the harness appends to PATH, one a line, in order, and answers each with a
## line `net_client TAG JSON` on stderr (unbuffered):
##   join NAME [VIEW]          join 127.0.0.1:N as NAME, view distance VIEW (default 2)
##                                                                  -> joined / join_failed
##   host SEED                 serve a world of seed SEED on port N (this process is the host)
##                                                                  -> hosting / host_failed
##   entity add X Z | entity move X Z | entity remove
##                             host: add an object (res://tools/net_crate.tscn) on the ground
##                             at (X, Z), move it there, or remove it   -> entity {position}
##   entity_seen X Y Z PRESENT SECONDS
##                             until an object stands within 0.05 of (X, Y, Z) (PRESENT 1) or
##                             none is left within 4 voxels of it (PRESENT 0), at most SECONDS
##                                                                  -> entity_seen {ok, near}
##   stand X Z                 stand on the ground at (X, Z)        -> stood {height}
##   edits COUNT RATE SEED     COUNT edits within reach, RATE a second, until each is answered
##                                                                  -> edits {acked, rejected, ...}
##   wait_order N              until edit N - 1 arrived             -> order {next_order, log_hash}
##   hash X0 Y0 Z0 X1 Y1 Z1    chunk hashes of a box of chunks, once each chunk is synced -> hash
##   leave                     leave the server                      -> left
##   garbage KIND              a raw connection sending a malformed (junk) or oversized packet
##                                                                  -> garbage {dropped}
##   load CLIENTS RATE SECONDS [LAYOUT FIRST TOTAL]
##                             CLIENTS players, RATE edits a second each; players FIRST.. of
##                             TOTAL standing in LAYOUT (cluster or spread) -> load {figures}
##   jointime VIEW SEED        single-player view-ready time, then a join's -> jointime
##   quit
extends SceneTree

const HOST := "127.0.0.1"
## Stops by itself after this long, should the harness be gone.
const MAX_SECONDS := 600.0
const Spots := preload("res://tools/net_spots.gd")
const CRATE := preload("res://tools/net_crate.tscn")

var _port := 0
var _commands_path := ""
var _done_lines := 0
var _busy := false
var _started_ms := 0
var _world: StrataChunkWorld
var _viewer: Node3D
var _sync: StrataWorldSync
var _stand := Vector3.ZERO
## Every edit this client heard of, in order: [order, x, y, z, block].
var _log: Array = []
## The host's object of the `entity` commands.
var _crate: Node3D


func _initialize() -> void:
	_started_ms = Time.get_ticks_msec()
	# A steady frame rate: latencies measured here are not the harness's busy loop.
	Engine.max_fps = 250
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--port="):
			_port = arg.substr(7).to_int()
		elif arg.begins_with("--commands="):
			_commands_path = arg.substr(11)
	if _port <= 0 or _commands_path == "":
		printerr("usage: -s res://tools/net_client.gd -- --port=N --commands=PATH")
		quit(2)
		return
	_say("ready", {})


func _process(_delta: float) -> bool:
	if Time.get_ticks_msec() - _started_ms > MAX_SECONDS * 1000.0:
		printerr("net_client: gave up after %d s" % MAX_SECONDS)
		quit(4)
		return true
	if not _busy:
		_next_command()
	return false


func _say(tag: String, data: Dictionary) -> void:
	printerr("net_client %s %s" % [tag, JSON.stringify(data)])


func _next_command() -> void:
	var f := FileAccess.open(_commands_path, FileAccess.READ)
	if f == null:
		return
	var lines := f.get_as_text().split("\n", false)
	if _done_lines >= lines.size():
		return
	var words := lines[_done_lines].strip_edges().split(" ", false)
	_done_lines += 1
	if words.is_empty():
		return
	_busy = true
	await _run(words)
	_busy = false


func _run(w: PackedStringArray) -> void:
	match w[0]:
		"join":
			await _join(w[1], int(w[2]) if w.size() > 2 else 2)
		"host":
			_host(int(w[1]))
		"entity":
			await _entity(w)
		"entity_seen":
			await _entity_seen(
				Vector3(float(w[1]), float(w[2]), float(w[3])), w[4] == "1", float(w[5])
			)
		"stand":
			_stand_at(float(w[1]), float(w[2]))
		"edits":
			await _edits(int(w[1]), float(w[2]), int(w[3]))
		"wait_order":
			await _wait_order(int(w[1]))
		"hash":
			await _hash(
				Vector3i(int(w[1]), int(w[2]), int(w[3])), Vector3i(int(w[4]), int(w[5]), int(w[6]))
			)
		"leave":
			_sync.leave()
			_say("left", {})
		"shared":
			await _shared(w[1], float(w[2]) if w.size() > 2 else 10.0)
		"garbage":
			await _garbage(w[1])
		"load":
			await _load(
				int(w[1]),
				float(w[2]),
				float(w[3]),
				w[4] if w.size() > 4 else "cluster",
				int(w[5]) if w.size() > 5 else 0,
				int(w[6]) if w.size() > 6 else -1
			)
		"jointime":
			await _join_time(int(w[1]), int(w[2]))
		"quit":
			if _sync != null:
				_sync.leave()
			quit(0)
		_:
			_say("error", {"message": "unknown command %s" % w[0]})


func _wait(condition: Callable, seconds: float) -> bool:
	var deadline := Time.get_ticks_msec() + seconds * 1000.0
	while not condition.call():
		if Time.get_ticks_msec() > deadline:
			return false
		await process_frame
	return true


func _new_world(view: int) -> StrataChunkWorld:
	if _viewer == null:
		_viewer = Node3D.new()
		root.add_child(_viewer)
	var world := StrataChunkWorld.new()
	world.view_distance = view
	world.vertical_view_distance = 1
	world.far_view_levels = 0
	world.frame_budget_ms = 8.0
	root.add_child(world)
	world.viewer = world.get_path_to(_viewer)
	return world


func _join(player_name: String, view: int) -> void:
	if _world == null:
		_world = _new_world(view)
	if _sync == null:
		_sync = StrataWorldSync.new()
		root.add_child(_sync)
		_sync.world = _sync.get_path_to(_world)
		_sync.edit_applied.connect(_on_edit_applied)
	_log.clear()
	if _sync.join(HOST, _port, player_name) != OK:
		_say("join_failed", {"message": _sync.last_error()})
		return
	if await _wait(func() -> bool: return _sync.is_joined() or _sync.last_error() != "", 20.0):
		if _sync.is_joined():
			_say("joined", {"player": _sync.get_local_player_id()})
			return
	_say("join_failed", {"message": _sync.last_error()})


func _host(seed: int) -> void:
	if _world == null:
		_world = _new_world(2)
		var preset := StrataWorldPreset.new()
		preset.seed = seed
		_world.preset = preset
		_world.entity_distance = 2
	if _sync == null:
		_sync = StrataWorldSync.new()
		root.add_child(_sync)
		_sync.world = _sync.get_path_to(_world)
		_sync.edit_applied.connect(_on_edit_applied)
	if _sync.host(_port) != OK:
		_say("host_failed", {"message": _sync.last_error()})
		return
	_say("hosting", {"port": _port})


func _entity(w: PackedStringArray) -> void:
	match w[1]:
		"add", "move":
			var x := float(w[2])
			var z := float(w[3])
			var at := Vector3(x, _world.get_height(x, z) + 1.0, z)
			# An object added where no chunk stands yet is kept as a record until its chunk
			# loads (its node goes): on a loaded machine the area may still be streaming.
			await _wait(_world.is_area_ready, 30.0)
			if w[1] == "add":
				_crate = _world.add_entity(CRATE, at)
			elif _crate != null:
				_crate.position = at
			if _crate == null:
				_say("entity", {"error": _world.last_error()})
				return
			var p := _crate.position
			_say("entity", {"position": [p.x, p.y, p.z]})
		"remove":
			var removed := _crate != null and _world.remove_entity(_crate)
			_crate = null
			_say("entity", {"removed": removed})
		_:
			_say("error", {"message": "unknown entity command %s" % w[1]})


func _entity_seen(at: Vector3, present: bool, seconds: float) -> void:
	var near := func() -> Array:
		var found: Array = []
		for e in _world.get_entities_in(AABB(at - Vector3.ONE * 4.0, Vector3.ONE * 8.0)):
			found.append([e.position.x, e.position.y, e.position.z])
		return found
	var seen := func() -> bool:
		for p: Array in near.call():
			if Vector3(p[0], p[1], p[2]).distance_to(at) < 0.05:
				return true
		return false
	var done := func() -> bool: return seen.call() if present else near.call().is_empty()
	var ok := await _wait(done, seconds)
	_say("entity_seen", {"ok": ok, "near": near.call()})


func _on_edit_applied(order: int, _player: int, _request: int, p: Vector3i, block: int) -> void:
	_log.append([order, p.x, p.y, p.z, block])


func _stand_at(x: float, z: float) -> void:
	var h := _world.get_height(x, z)
	_stand = Vector3(x, h + 1.6, z)
	_viewer.position = _stand
	_sync.set_local_pose(_stand, 0.0, 0.0)
	_say("stood", {"height": h})


func _edits(count: int, rate: float, seed: int) -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = seed
	var pending := {}
	var acked: Array = []
	var rejected: Array = []
	var not_sent: Array = []
	var on_applied := func(order: int, player: int, request: int, p: Vector3i, block: int) -> void:
		if player == _sync.get_local_player_id() and pending.has(request):
			pending.erase(request)
			acked.append([order, p.x, p.y, p.z, block, request])
	var on_rejected := func(request: int, reason: String) -> void:
		if pending.has(request):
			pending.erase(request)
			rejected.append(reason)
	_sync.edit_applied.connect(on_applied)
	_sync.edit_rejected.connect(on_rejected)
	var start := Time.get_ticks_msec()
	for i in count:
		var due := start + i * 1000.0 / rate
		while Time.get_ticks_msec() < due:
			await process_frame
		var spot: Array = Spots.edit_spot(rng, _stand)
		var request := _sync.request_edit(spot[0], spot[1])
		if request >= 0:
			pending[request] = true
		else:
			not_sent.append(_sync.last_error())
	await _wait(func() -> bool: return pending.is_empty(), 20.0)
	_sync.edit_applied.disconnect(on_applied)
	_sync.edit_rejected.disconnect(on_rejected)
	_say(
		"edits",
		{
			"requested": count,
			"acked": acked,
			"rejected": rejected,
			"not_sent": not_sent,
			"unanswered": pending.size(),
		}
	)


## The shared state `key` once this client has it (waiting at most `seconds`).
func _shared(key: String, seconds: float) -> void:
	await _wait(func() -> bool: return _sync.get_shared_state(key, null) != null, seconds)
	_say("shared", {"key": key, "value": _sync.get_shared_state(key, null)})


func _wait_order(n: int) -> void:
	await _wait(func() -> bool: return int(_sync.get_stats().get("next_order", 0)) >= n, 30.0)
	_say(
		"order",
		{
			"next_order": int(_sync.get_stats().get("next_order", 0)),
			"log_hash": JSON.stringify(_log).sha256_text(),
			"log_size": _log.size(),
		}
	)


func _hash(from: Vector3i, to: Vector3i) -> void:
	var chunks: Array[Vector3i] = []
	for x in range(from.x, to.x + 1):
		for y in range(from.y, to.y + 1):
			for z in range(from.z, to.z + 1):
				chunks.append(Vector3i(x, y, z))
	var synced := func() -> bool:
		for c in chunks:
			if not _sync.is_chunk_synced(c):
				return false
		return true
	var all_synced := await _wait(synced, 30.0)
	var hashes := {}
	var unsynced: Array[String] = []
	for c in chunks:
		var key := "%d,%d,%d" % [c.x, c.y, c.z]
		hashes[key] = str(_world.debug_chunk_hash(c))
		if not _sync.is_chunk_synced(c):
			unsynced.append(key)
	_say("hash", {"synced": all_synced, "unsynced": unsynced, "hashes": hashes})


func _garbage(kind: String) -> void:
	var holder := Node.new()
	root.add_child(holder)
	var peer := ENetMultiplayerPeer.new()
	peer.create_client(HOST, _port)
	var api := SceneMultiplayer.new()
	api.root_path = holder.get_path()
	api.multiplayer_peer = peer
	var state := {"connected": false, "dropped": false}
	api.connected_to_server.connect(func() -> void: state["connected"] = true)
	api.server_disconnected.connect(func() -> void: state["dropped"] = true)
	var poll := func() -> bool:
		api.poll()
		return state["connected"]
	await _wait(poll, 10.0)
	var packet := PackedByteArray()
	if kind == "oversized":
		# A hello whose name is 1 MiB long.
		packet.resize(1 << 20)
		packet.fill(65)
		packet[0] = 1
	else:
		packet = PackedByteArray([0xff, 0x13, 0x37, 0x00, 0xfe])
	api.send_bytes(packet, 1, MultiplayerPeer.TRANSFER_MODE_RELIABLE)
	var dropped := func() -> bool:
		api.poll()
		return state["dropped"]
	var was_dropped := await _wait(dropped, 10.0)
	_say("garbage", {"kind": kind, "connected": state["connected"], "dropped": was_dropped})
	peer.close()
	holder.queue_free()


func _load(
	clients: int, rate: float, seconds: float, layout: String, first: int, total: int
) -> void:
	var load_run: Node = preload("res://tools/net_load.gd").new()
	root.add_child(load_run)
	var result: Dictionary = await load_run.run(
		self, _port, clients, rate, seconds, layout, first, total
	)
	load_run.queue_free()
	_say("load", result)


func _join_time(view: int, seed: int) -> void:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var single := _new_world(view)
	single.preset = preset
	var t0 := Time.get_ticks_usec()
	await _wait(single.is_area_ready, 120.0)
	var single_s := (Time.get_ticks_usec() - t0) / 1e6
	single.queue_free()
	await process_frame
	t0 = Time.get_ticks_usec()
	await _join("joiner", view)
	await _wait(_world.is_area_ready, 120.0)
	var joined_s := (Time.get_ticks_usec() - t0) / 1e6
	_say("jointime", {"single_s": single_s, "join_s": joined_s, "view_distance": view})
