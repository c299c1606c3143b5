## The `load` command of `net_client.gd`: CLIENTS players in this process, each with its own ENet
## connection to the server, editing RATE times a second for SECONDS, on one shared StrataChunkWorld
## (the world is the same for all; generating it once keeps the load on the network and server).
## Measures what the players see: acknowledgements, refusals, edits never answered, the latency
## from request to the server's broadcast coming back, and the bytes each edit costs.
extends Node

const HOST := "127.0.0.1"
const DRAIN_S := 10.0
const Spots := preload("res://tools/net_spots.gd")

var _tree: SceneTree
var _world: StrataChunkWorld
var _syncs: Array[StrataWorldSync] = []
var _peers: Array[ENetMultiplayerPeer] = []
## Per client: request -> Time.get_ticks_usec() when sent.
var _sent: Array[Dictionary] = []
var _latencies_ms: Array[float] = []
## Refusals by reason.
var _rejected := {}


func run(tree: SceneTree, port: int, clients: int, rate: float, seconds: float) -> Dictionary:
	_tree = tree
	var viewer := Node3D.new()
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
	# Players stand 8 voxels apart; the viewer in their middle.
	var stands: Array[Vector3] = []
	for i in clients:
		var x := 8.0 * i
		stands.append(Vector3(x, _world.get_height(x, 0) + 1.6, 0))
		_syncs[i].set_local_pose(stands[i], 0.0, 0.0)
	viewer.position = Vector3(4.0 * (clients - 1), stands[0].y, 0)
	await _wait(func() -> bool: return false, 1.0)
	for peer in _peers:
		_pop_wire(peer)
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
	var total := int(rate * seconds)
	var made := 0
	while made < total:
		var now := Time.get_ticks_usec()
		var due := mini(int((now - start) / 1e6 * rate) + 1, total)
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
	var result := {
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
