## A connection flood against StrataWorldSync's server over ENet, in one process: 250 raw ENet
## connections (ENetConnection) that finish ENet's handshake, answer its pings and never say
## Hello: 200 from 25 source addresses, 8 each (within `max_connections_per_address`), and 50
## from one more address, 127.0.0.2. Each binds its own source address in 127.0.0.0/8, which
## Linux's loopback answers whole. While they hang, an honest client from 127.0.0.1 must join
## within 2 s; connections beyond an address's limit are closed at once
## (`connections_refused`), and those that never join are dropped after
## `server_join_timeout_s` (`join_timeouts`).
extends StrataNetTestCase

## Addresses of the flood, 8 connections each: 127.0.1.1 to 127.0.1.25.
const FLOOD_ADDRESSES := 25
const PER_ADDRESS := 8
## One more address with far more connections than it may hold.
const GREEDY_ADDRESS := "127.0.0.2"
const GREEDY := 50
## The honest client's time to join.
const JOIN_LIMIT_S := 2.0

## The flood's connections, and how many of them ENet connected and closed.
var _flood: Array[ENetConnection] = []
var _connected := 0
var _closed := 0


func after_each() -> void:
	for h in _flood:
		h.destroy()
	_flood.clear()
	super()


func _world() -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = 2024
	return _small_world(preset, -1.0, false)


## Opens `count` raw connections to the server from `address`. Each sends the id Godot's ENet
## server wants as the connection's data (a client's peer id, 2 or more) and nothing else.
func _open_flood(address: String, count: int) -> bool:
	for i in count:
		var h := ENetConnection.new()
		var err := h.create_host_bound(address, 0, 1)
		if err != OK:
			fail("cannot bind an ENet host to %s: %s" % [address, error_string(err)])
			return false
		if h.connect_to_host(HOST, _port, 0, 1000 + _flood.size()) == null:
			fail("cannot connect from %s" % address)
			return false
		_flood.append(h)
	return true


## Services every flood connection once (ENet's handshake, acknowledgements and pings; what the
## server sends is read and dropped), counting the connections opened and closed.
func _pump() -> void:
	for h in _flood:
		var event: Array = h.service(0)
		while event[0] != ENetConnection.EVENT_NONE and event[0] != ENetConnection.EVENT_ERROR:
			if event[0] == ENetConnection.EVENT_CONNECT:
				_connected += 1
			elif event[0] == ENetConnection.EVENT_DISCONNECT:
				_closed += 1
			event = h.service(0)


## `wait_until` with the flood kept alive meanwhile.
func _pump_until(predicate: Callable, timeout_s: float) -> bool:
	return await wait_until(
		func() -> bool:
			_pump()
			return predicate.call(),
		timeout_s
	)


## The flood: 25 addresses × 8, then 50 from GREEDY_ADDRESS. False where a host cannot bind
## addresses of 127.0.0.0/8 besides 127.0.0.1 (only Linux's loopback answers them all): the
## test is skipped there, with a note.
func _open_all() -> bool:
	if OS.get_name() != "Linux":
		print(
			"       skipped: binding 127.0.1.x needs Linux's loopback (this is %s)" % OS.get_name()
		)
		return false
	for a in FLOOD_ADDRESSES:
		if not _open_flood("127.0.1.%d" % (a + 1), PER_ADDRESS):
			return false
	return _open_flood(GREEDY_ADDRESS, GREEDY)


## Starts an honest client's join from 127.0.0.1 and returns the seconds until it joined
## (INF: not within `limit_s`), keeping the flood alive meanwhile.
func _honest_join(limit_s: float) -> float:
	var client := _sync(_world())
	assert_eq(client.join(HOST, _port, "honest"), OK, client.last_error())
	var started := Time.get_ticks_msec()
	if not await _pump_until(client.is_joined, limit_s):
		return INF
	return (Time.get_ticks_msec() - started) / 1000.0


func test_a_flood_that_never_joins_is_limited_dropped_and_keeps_nobody_out() -> void:
	var server := _sync(_world())
	# ENet's slots are `max_players`: room here for the whole flood besides the players.
	server.max_players = 300
	server.server_join_timeout_s = 4.0
	assert_eq(server.host(_port), OK, server.last_error())
	if not _open_all():
		return
	var stats := func() -> Dictionary: return server.get_stats()
	var total := FLOOD_ADDRESSES * PER_ADDRESS + GREEDY
	# The server hears of them one after another; the first are dropped 4 s after they came.
	assert_true(
		await _pump_until(
			func() -> bool: return int(stats.call()["pending_connections"]) >= 100, 10.0
		),
		"the flood hangs on the server: %s" % stats.call()
	)
	var pending_at_join := int(stats.call()["pending_connections"])
	var took := await _honest_join(JOIN_LIMIT_S)
	assert_lt(
		took, JOIN_LIMIT_S, "the honest client joined within 2 s of %d pending" % pending_at_join
	)
	# All 250 were heard of: 42 of GREEDY_ADDRESS's refused at once, the 208 others dropped
	# by the join timeout.
	var allowed := FLOOD_ADDRESSES * PER_ADDRESS + PER_ADDRESS
	assert_true(
		await _pump_until(
			func() -> bool:
				var s: Dictionary = stats.call()
				return (
					int(s["join_timeouts"]) + int(s["connections_refused"]) >= total
					and int(s["pending_connections"]) == 0
				),
			30.0
		),
		"every flood connection was closed: %s" % stats.call()
	)
	var s: Dictionary = stats.call()
	assert_eq(int(s["connections_refused"]), GREEDY - PER_ADDRESS, "over the per-address limit")
	assert_eq(int(s["join_timeouts"]), allowed, "never joined: %s" % s)
	assert_eq(int(s["players"]), 2, "the host and the honest client")
	assert_true(
		await _pump_until(func() -> bool: return _closed == total, 10.0),
		"ENet closed the flood's connections: %d of %d" % [_closed, total]
	)
	assert_eq(_connected, total, "every flood connection had finished ENet's handshake")


## The same flood against a server with its default settings (`max_players` 32): ENet's
## server has exactly `max_players` slots, and pending connections hold them, so 4 addresses
## within the per-address limit fill them all; when the join timeout frees them, the flood's
## connections still retrying take them again. The honest client must still get in.
func test_a_flood_from_many_addresses_keeps_nobody_out_with_the_default_settings() -> void:
	var server := _sync(_world())
	server.server_join_timeout_s = 1.0
	assert_eq(server.host(_port), OK, server.last_error())
	if not _open_all():
		return
	await _pump_until(func() -> bool: return _connected >= server.max_players, 10.0)
	var took := await _honest_join(JOIN_LIMIT_S)
	var s := server.get_stats()
	assert_lt(
		took,
		JOIN_LIMIT_S,
		(
			(
				"the honest client joined within 2 s; ENet connected %d of the %d flood connections"
				+ " (max_players %d), the server had %d pending, %d dropped by the join timeout"
			)
			% [
				_connected,
				_flood.size(),
				server.max_players,
				s["pending_connections"],
				s["join_timeouts"],
			]
		)
	)
