## StrataWorldSync's shared game state and joining with nobody there: a server and clients in one
## Godot process over ENet on 127.0.0.1. The server alone sets the state; every client gets each
## change in the server's order, a late joiner gets it whole, a client's attempt is refused, and
## a server resumes it from its save (and from its `.shared` file after a crash). A join to a
## port where nobody answers fails within `join_timeout_s`, naming the address.
extends StrataNetTestCase


func _world(seed: int) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	return _small_world(preset)


func _join(world: StrataChunkWorld, player_name: String, port := 0) -> StrataWorldSync:
	var s := _sync(world)
	assert_eq(s.join(HOST, _port if port == 0 else port, player_name), OK, "join")
	assert_true(
		await wait_until(s.is_joined, 20.0), "%s never joined: %s" % [player_name, s.last_error()]
	)
	return s


## Records every `shared_state_changed` of `s` as [key, value].
func _record(s: StrataWorldSync) -> Array:
	var log: Array = []
	s.shared_state_changed.connect(
		func(key: String, value: Variant) -> void: log.append([key, value])
	)
	return log


func test_every_client_gets_each_change_in_order_and_a_late_joiner_gets_it_whole() -> void:
	var server := _sync(_world(910))
	assert_eq(server.host(_port), OK, server.last_error())
	var host_log := _record(server)
	var a := await _join(_world(1), "ada")
	var b := await _join(_world(2), "bo")
	var a_log := _record(a)
	var b_log := _record(b)
	var changes: Array = [
		["time_of_day", 0.25],
		["weather", "rain"],
		["time_of_day", 0.5],
		["gate", Vector3(1.5, 64.0, -2.0)],
		["wind", Vector2(0.5, -1.0)],
		["open", true],
		["score", -7],
		["map", PackedByteArray([1, 2, 255])],
		["weather", null],
	]
	for c: Array in changes:
		assert_eq(server.set_shared_state(c[0], c[1]), OK, server.last_error())
	# Setting a value it already has sends nothing.
	assert_eq(server.set_shared_state("time_of_day", 0.5), OK)
	assert_eq(host_log, changes, "the host hears its own changes at once, in order")
	for log: Array in [a_log, b_log]:
		assert_true(
			await wait_until(func() -> bool: return log.size() >= changes.size(), 10.0),
			"every change arrived: %s" % [log]
		)
		assert_eq(log, changes, "in the server's order, with their types")
	assert_eq(a.get_shared_state("time_of_day", -1.0), 0.5)
	assert_eq(a.get_shared_state("weather", "clear"), "clear", "an erased key gives the default")
	assert_eq(typeof(a.get_shared_state("score", 0)), TYPE_INT)
	assert_eq(
		Array(b.get_shared_state_keys()),
		["gate", "map", "open", "score", "time_of_day", "wind"],
		"keys in order"
	)
	# A late joiner gets the whole state right after its welcome, one signal per key.
	var late_world := _world(3)
	var late := _sync(late_world)
	var late_log := _record(late)
	assert_eq(late.join(HOST, _port, "late"), OK)
	assert_true(await wait_until(late.is_joined, 20.0), late.last_error())
	assert_true(await wait_until(func() -> bool: return late_log.size() >= 6, 10.0))
	assert_eq(late_log.size(), 6, "one signal per key: %s" % [late_log])
	assert_eq(Array(late.get_shared_state_keys()), Array(server.get_shared_state_keys()))
	assert_eq(late.get_shared_state("gate", null), Vector3(1.5, 64.0, -2.0))
	assert_eq(late.get_shared_state("map", null), PackedByteArray([1, 2, 255]))


func test_a_client_cannot_set_it_and_bad_keys_and_values_are_refused() -> void:
	var server := _sync(_world(911))
	var idle_error := server.set_shared_state("time_of_day", 0.5)
	assert_eq(idle_error, ERR_UNCONFIGURED, "not hosting yet")
	assert_true(server.last_error().contains("not hosting"), server.last_error())
	assert_eq(server.host(_port), OK, server.last_error())
	assert_eq(server.set_shared_state("time_of_day", 0.5), OK)
	var client := await _join(_world(4), "cheat")
	assert_eq(client.set_shared_state("time_of_day", 0.9), ERR_UNAUTHORIZED)
	assert_true(client.last_error().contains("only the server"), client.last_error())
	await wait_frames(10)
	assert_eq(server.get_shared_state("time_of_day", 0.0), 0.5, "the server's value stands")
	assert_eq(client.get_shared_state("time_of_day", 0.0), 0.5, "and the client still has it")
	# Bounds: each refused with the reason, nothing changes.
	var refused := [
		["", 1, "key"],
		["x".repeat(65), 1, "key"],
		["n", NAN, "not finite"],
		["t", "x".repeat(513), "513 bytes"],
		["o", Node.new(), "cannot be shared"],
		["c", Color.RED, "cannot be shared"],
	]
	for r: Array in refused:
		assert_eq(server.set_shared_state(r[0], r[1]), ERR_INVALID_PARAMETER, str(r[0]))
		assert_true(server.last_error().contains(r[2]), server.last_error())
		if r[1] is Node:
			(r[1] as Node).free()
	for i in 127:
		assert_eq(server.set_shared_state("k%d" % i, i), OK, server.last_error())
	assert_eq(server.set_shared_state("one_too_many", 1), ERR_INVALID_PARAMETER)
	assert_true(server.last_error().contains("at most 128 keys"), server.last_error())
	assert_eq(server.get_shared_state_keys().size(), 128)
	assert_eq(server.get_shared_state("t", "none"), "none")
	assert_true(client.is_joined(), "the client is still there")


func test_clients_request_changes_writable_keys_apply_and_the_rest_is_the_games() -> void:
	var server := _sync(_world(912))
	server.client_writable_keys = PackedStringArray(["door_open"])
	assert_eq(server.host(_port), OK, server.last_error())
	var requests: Array = []
	var client := await _join(_world(5), "asker")
	var other := await _join(_world(6), "watcher")
	var other_log := _record(other)
	var refusals: Array = []
	client.shared_state_refused.connect(
		func(key: String, reason: String) -> void: refusals.append([key, reason])
	)
	# No handler on the server yet: a writable key applies, another is refused.
	assert_eq(client.request_shared_state("door_open", true), OK, client.last_error())
	assert_eq(client.request_shared_state("time_of_day", 0.9), OK, client.last_error())
	assert_true(
		await wait_until(func() -> bool: return refusals.size() == 1, 10.0), "refusal arrived"
	)
	assert_eq(refusals[0][0], "time_of_day")
	assert_true(str(refusals[0][1]).contains("client_writable_keys"), str(refusals[0][1]))
	assert_true(
		await wait_until(func() -> bool: return other.get_shared_state("door_open", false), 10.0),
		"the applied change reached everyone"
	)
	assert_eq(server.get_shared_state("time_of_day", null), null)
	# With a handler, the game decides the other keys (here: it applies a weather request).
	server.shared_state_requested.connect(
		func(player_id: int, key: String, value: Variant) -> void:
			requests.append([player_id, key, value])
			if key == "weather":
				server.set_shared_state(key, value)
	)
	assert_eq(client.request_shared_state("weather", "rain"), OK)
	assert_true(
		await wait_until(
			func() -> bool: return other.get_shared_state("weather", "") == "rain", 10.0
		),
		"the game's handler applied it: %s" % [requests]
	)
	assert_eq(requests.size(), 1)
	assert_eq(requests[0][0], client.get_local_player_id())
	assert_eq(other_log, [["door_open", true], ["weather", "rain"]])
	# Bad values never leave the client; a flood is refused and nothing crashes.
	assert_eq(client.request_shared_state("", 1), ERR_INVALID_PARAMETER)
	assert_eq(client.request_shared_state("t", NAN), ERR_INVALID_PARAMETER)
	assert_eq(client.request_shared_state("t", Node), ERR_INVALID_PARAMETER)
	for i in 60:
		client.request_shared_state("door_open", i % 2 == 0)
	assert_true(
		await wait_until(
			func() -> bool:
				return refusals.any(func(r: Array) -> bool: return str(r[1]).contains("too many")),
			10.0
		),
		"a flood is refused: %s" % [refusals.size()]
	)
	assert_true(int(server.get_stats()["state_requests_refused"]) > 0)
	assert_true(client.is_joined(), "the flooder stays connected")
	assert_eq(server.request_shared_state("score", 3), OK, "on the server it is set_shared_state")
	assert_eq(server.get_shared_state("score", 0), 3)


func test_a_restarted_server_resumes_the_shared_state() -> void:
	var path := scratch_dir().path_join("shared_state.strata")
	var world := _world(4141)
	var server := _sync(world)
	server.save_path = path
	assert_eq(server.host(_port), OK, server.last_error())
	assert_eq(server.set_shared_state("time_of_day", 0.375), OK)
	assert_eq(server.set_shared_state("weather", "snow"), OK)
	# A crash now: the save predates the changes, the `.shared` file beside it holds them.
	assert_true(
		FileAccess.file_exists(path + ".shared"), "changes are on disk before they are sent"
	)
	var crashed := scratch_dir().path_join("crashed_state.strata")
	for ext in ["", ".journal", ".shared"]:
		assert_eq(DirAccess.copy_absolute(path + ext, crashed + ext), OK)
	# A clean stop saves the state into the save itself.
	server.leave()
	assert_false(FileAccess.file_exists(path + ".shared"), "the save holds it now")
	for save in [crashed, path]:
		var revived_world := _world(1)
		var revived := _sync(revived_world)
		revived.save_path = save
		_port += 1
		assert_eq(revived.host(_port), OK, revived.last_error())
		assert_eq(revived.get_shared_state("time_of_day", 0.0), 0.375, save)
		assert_eq(revived.get_shared_state("weather", ""), "snow", save)
		# Clients joining the revived server get it.
		var guest := await _join(_world(6), "guest", _port)
		assert_true(
			await wait_until(
				func() -> bool: return guest.get_shared_state("weather", "") == "snow", 10.0
			),
			"the guest gets the resumed state"
		)
		guest.leave()
		revived.leave()
	# The world's own game state holds it too (the game's own saves keep it).
	assert_eq(world.get_state("strata.shared.weather", ""), "string:snow")


func test_a_join_where_nobody_answers_fails_in_time_naming_the_address() -> void:
	var client := _sync(_world(7))
	client.join_timeout_s = 1.5
	var failures: Array[String] = []
	client.join_failed.connect(func(message: String) -> void: failures.append(message))
	var started := Time.get_ticks_msec()
	# Nobody listens on this port.
	assert_eq(client.join(HOST, _port, "alone"), OK)
	assert_true(await wait_until(func() -> bool: return failures.size() == 1, 10.0), "it gave up")
	var waited_s := (Time.get_ticks_msec() - started) / 1000.0
	assert_true(waited_s >= 1.4 and waited_s < 8.0, "gave up after the timeout: %.1f s" % waited_s)
	var address := "%s:%d" % [HOST, _port]
	assert_true(failures[0].contains(address), failures[0])
	assert_true(failures[0].contains("could not reach"), failures[0])
	assert_eq(client.last_error(), failures[0])
	assert_false(client.is_joined())
	# The default is a few seconds, not ENet's half minute.
	var fresh := StrataWorldSync.new()
	assert_eq(fresh.join_timeout_s, 5.0)
	fresh.free()
	# A server that does answer is joined well within the timeout.
	var server := _sync(_world(912))
	assert_eq(server.host(_port), OK, server.last_error())
	assert_eq(client.join(HOST, _port, "found"), OK)
	assert_true(await wait_until(client.is_joined, 20.0), client.last_error())
	await get_tree().create_timer(2.0).timeout
	assert_true(client.is_joined(), "a joined client does not time out")
	assert_eq(failures.size(), 1)
