## The `load` command of `net_client.gd`: CLIENTS players in this process, each with its own ENet
## connection to the server, editing RATE times a second for SECONDS, on one shared StrataChunkWorld
## (the world is the same for all; generating it once keeps the load on the network and server).
## Measures what the players see: acknowledgements, refusals, edits never answered, the latency
## from request to the server's broadcast coming back, and the bytes each edit costs and each
## player receives.
##
## Where the players stand (LAYOUT): `cluster`, all of a run's players on a grid 3 voxels apart
## (every player sees every edit), or `spread`, 1,024 voxels apart (out of each other's view).
## Player FIRST of the run's TOTAL is this process's first, so several processes share one grid.
## This process's world looks at a spot far from every player: what it costs is the players'.
extends Node

const HOST := "127.0.0.1"
const DRAIN_S := 10.0
const Spots := preload("res://tools/net_spots.gd")
const CLUSTER_SPACING := 3.0
const SPREAD_SPACING := 1024.0
## Latencies are counted in buckets of this many milliseconds (merged across processes).
const LATENCY_BUCKET_MS := 0.1

var _tree: SceneTree
var _world: StrataChunkWorld
var _syncs: Array[StrataWorldSync] = []
var _peers: Array[ENetMultiplayerPeer] = []
## Per client: request -> Time.get_ticks_usec() when sent.
var _sent: Array[Dictionary] = []
var _latencies_ms: Array[float] = []
## Refusals by reason.
var _rejected := {}


## Where player `k` of `total` stands (x, z) in `layout`.
static func stand_xz(layout: String, k: int, total: int) -> Vector2:
	var side := ceili(sqrt(float(maxi(total, 1))))
	var spacing := SPREAD_SPACING if layout == "spread" else CLUSTER_SPACING
	return Vector2(float(k % side) * spacing, floorf(float(k) / float(side)) * spacing)


func run(
	tree: SceneTree,
	port: int,
	clients: int,
	rate: float,
	seconds: float,
	layout: String = "cluster",
	first: int = 0,
	total: int = -1
) -> Dictionary:
	_tree = tree
	if total < 0:
		total = first + clients
	var viewer := Node3D.new()
	viewer.position = Vector3(-100_000.0, 64.0, -100_000.0)
	add_child(viewer)
	_world = StrataChunkWorld.new()
	_world.view_distance = 1
	_world.vertical_view_distance = 1
	_world.far_view_levels = 0
	add_child(_world)
	_world.viewer = _world.get_path_to(viewer)
	for i in clients:
		var peer := ENetMultiplayerPeer.new()
		if peer.create_client(HOST, port) != OK:
			return {"error": "client %d could not connect" % i}
		var sync := StrataWorldSync.new()
		add_child(sync)
		sync.world = sync.get_path_to(_world)
		sync.join_with_peer(peer, "load%d" % i)
		sync.edit_applied.connect(_on_applied.bind(i))
		sync.edit_rejected.connect(_on_rejected.bind(i))
		_syncs.append(sync)
		_peers.append(peer)
		_sent.append({})
	if not await _wait(_all_joined, 30.0):
		return {"error": "not every client joined within 30 s"}
	# Bots, not players: once joined, no world of theirs takes the edits (a real player's one
	# world would; here one process holds dozens of players, and what is measured is the server).
	for s in _syncs:
		s.world = NodePath()
	var stands: Array[Vector3] = []
	for i in clients:
		var xz := stand_xz(layout, first + i, total) + Vector2(0.5, 0.5)
		stands.append(Vector3(xz.x, _world.get_height(xz.x, xz.y) + 1.6, xz.y))
		_syncs[i].set_local_pose(stands[i], 0.0, 0.0)
	await _wait(func() -> bool: return false, 1.0)
	for peer in _peers:
		_pop_wire(peer)
		_pop_received(peer)
	var payload_before := 0
	for s in _syncs:
		payload_before += int(s.get_stats()["bytes_sent"])
	var rngs: Array[RandomNumberGenerator] = []
	for i in clients:
		var rng := RandomNumberGenerator.new()
		rng.seed = 1000 + i
		rngs.append(rng)
	var requested := 0
	var payload_edits := 0
	var start := Time.get_ticks_usec()
	var edits_each := int(rate * seconds)
	var made := 0
	while made < edits_each:
		var now := Time.get_ticks_usec()
		var due := mini(int((now - start) / 1e6 * rate) + 1, edits_each)
		while made < due:
			for i in clients:
				var spot: Array = Spots.edit_spot(rngs[i], stands[i])
				var before := int(_syncs[i].get_stats()["bytes_sent"])
				var request := _syncs[i].request_edit(spot[0], spot[1])
				payload_edits += int(_syncs[i].get_stats()["bytes_sent"]) - before
				if request >= 0:
					_sent[i][request] = Time.get_ticks_usec()
					requested += 1
			made += 1
		await _tree.process_frame
	var load_s := (Time.get_ticks_usec() - start) / 1e6
	# What each player received while the load ran, per second.
	var received_per_s: Array[float] = []
	for peer in _peers:
		received_per_s.append(_pop_received(peer) / load_s)
	await _wait(_all_answered, DRAIN_S)
	var wire_sent := 0
	var datagrams := 0
	for peer in _peers:
		var w := _pop_wire(peer)
		wire_sent += w[0]
		datagrams += w[1]
	var payload_all := -payload_before
	for s in _syncs:
		payload_all += int(s.get_stats()["bytes_sent"])
	var unanswered := 0
	for d in _sent:
		unanswered += d.size()
	_latencies_ms.sort()
	var histogram := {}
	for ms in _latencies_ms:
		var bucket := str(int(ms / LATENCY_BUCKET_MS))
		histogram[bucket] = int(histogram.get(bucket, 0)) + 1
	var result := {
		"layout": layout,
		"latency_histogram": histogram,
		"latency_bucket_ms": LATENCY_BUCKET_MS,
		"received_bytes_per_s": received_per_s,
		"clients": clients,
		"rate_per_client": rate,
		"seconds": load_s,
		"requested": requested,
		"acknowledged": _latencies_ms.size(),
		"rejected": _rejected.values().reduce(func(a: int, b: int) -> int: return a + b, 0),
		"rejected_by_reason": _rejected,
		"lost": unanswered,
		"latency_ms_p50": _quantile(0.5),
		"latency_ms_p99": _quantile(0.99),
		"latency_ms_max": _quantile(1.0),
		"payload_bytes_per_edit_request": float(payload_edits) / maxi(requested, 1),
		"client_payload_bytes_per_edit": float(payload_all) / maxi(requested, 1),
		"client_wire_bytes_per_edit": float(wire_sent) / maxi(requested, 1),
		"client_datagrams_per_edit": float(datagrams) / maxi(requested, 1),
	}
	for s in _syncs:
		s.leave()
	return result


func _all_joined() -> bool:
	for s in _syncs:
		if not s.is_joined():
			return false
	return true


func _all_answered() -> bool:
	for d in _sent:
		if not d.is_empty():
			return false
	return true


func _on_applied(_order: int, player: int, request: int, _p: Vector3i, _b: int, i: int) -> void:
	if player == _syncs[i].get_local_player_id() and _sent[i].has(request):
		_latencies_ms.append((Time.get_ticks_usec() - int(_sent[i][request])) / 1000.0)
		_sent[i].erase(request)


func _on_rejected(request: int, reason: String, i: int) -> void:
	if _sent[i].has(request):
		_sent[i].erase(request)
		_rejected[reason] = int(_rejected.get(reason, 0)) + 1


## ENet's counts of UDP payload bytes and datagrams this peer sent since the last call.
func _pop_wire(peer: ENetMultiplayerPeer) -> Array[int]:
	if peer.host == null:
		return [0, 0]
	return [
		peer.host.pop_statistic(ENetConnection.HOST_TOTAL_SENT_DATA),
		peer.host.pop_statistic(ENetConnection.HOST_TOTAL_SENT_PACKETS),
	]


## ENet's count of UDP payload bytes this peer received since the last call.
func _pop_received(peer: ENetMultiplayerPeer) -> int:
	if peer.host == null:
		return 0
	return peer.host.pop_statistic(ENetConnection.HOST_TOTAL_RECEIVED_DATA)


func _quantile(q: float) -> float:
	if _latencies_ms.is_empty():
		return 0.0
	var rank := clampi(ceili(q * _latencies_ms.size()), 1, _latencies_ms.size())
	return _latencies_ms[rank - 1]


func _wait(condition: Callable, seconds: float) -> bool:
	var deadline := Time.get_ticks_msec() + seconds * 1000.0
	while not condition.call():
		if Time.get_ticks_msec() > deadline:
			return false
		await _tree.process_frame
	return true
