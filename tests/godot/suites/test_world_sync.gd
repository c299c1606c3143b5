## StrataWorldSync: a server and clients in one Godot process over ENet on 127.0.0.1, each with its
## own StrataChunkWorld. Clients generate the server's world from its preset, every edit reaches
## everyone in one order, late joiners catch up (the water the host's flows placed included),
## abuse is refused, and a server resumes from its save and journal.
extends StrataNetTestCase

## The sea level of the water world.
const SEA := 24


func _world(seed: int, sea_level := -1) -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	if sea_level >= 0:
		preset.water_sea_level = sea_level
	return _small_world(preset)


func _join(world: StrataChunkWorld, player_name: String) -> StrataWorldSync:
	var s := _sync(world)
	assert_eq(s.join(HOST, _port, player_name), OK, "join")
	assert_true(
		await wait_until(s.is_joined, 20.0), "%s never joined: %s" % [player_name, s.last_error()]
	)
	return s


## Stands the player on the ground at (x, z) and waits until the server has its pose.
func _stand(s: StrataWorldSync, world: StrataChunkWorld, x: float, z: float) -> void:
	s.set_local_pose(Vector3(x, world.get_height(x, z) + 1.6, z), 0.0, 0.0)
	await wait_frames(12)


func test_clients_get_the_servers_world_and_every_edit_in_one_order() -> void:
	var server_world := _world(777)
	var server := _sync(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	assert_true(server.is_server())
	# Clients start with other seeds: what they stream after joining is the server's world.
	var a_world := _world(1)
	var b_world := _world(2)
	var a := await _join(a_world, "ada")
	var b := await _join(b_world, "bo")
	assert_eq(a_world.preset.fingerprint(), server_world.preset.fingerprint())
	assert_eq(b_world.preset.fingerprint(), server_world.preset.fingerprint())
	assert_near(a_world.get_height(10, 10), server_world.get_height(10, 10), 0.0, "same heights")
	# Ada knew the host's player when she joined, and hears of Bo.
	assert_true(
		await wait_until(func() -> bool: return a.get_players().values().has("bo"), 10.0),
		"ada sees bo"
	)
	assert_eq(a.get_players().size(), 2, "the host and bo")
	await _stand(a, a_world, 0, 0)
	await _stand(b, b_world, 4, 0)
	var h := int(server_world.get_height(0, 0))
	var stone := default_block_id("stone")
	var planks := server_world.get_block_id("planks")
	# Both players edit the same voxels, interleaved: the server's order decides, the same for
	# everyone.
	var spots: Array[Vector3i] = []
	for i in 4:
		var p := Vector3i(i, h + 1, 1)
		spots.append(p)
		a.request_edit(p, stone)
		b.request_edit(p, planks)
	assert_true(
		await wait_until(
			func() -> bool: return int(server.get_stats()["edits_applied"]) == 8, 20.0
		),
		"server applied 8 edits: %s" % server.get_stats()
	)
	for p in spots:
		var expected := server_world.get_voxel(p)
		assert_true(expected == planks or expected == stone, "one of the two edits at %s" % p)
		assert_true(
			await wait_until(
				func() -> bool:
					return a_world.get_voxel(p) == expected and b_world.get_voxel(p) == expected,
				20.0
			),
			"clients agree at %s" % p
		)
	# Out of reach: refused with the reason, nothing changes.
	var rejected: Array[String] = []
	a.edit_rejected.connect(func(_r: int, reason: String): rejected.append(reason))
	var far := Vector3i(200, h, 200)
	var before := a_world.get_voxel(far)
	a.request_edit(far, stone)
	assert_true(await wait_until(func() -> bool: return rejected.size() == 1, 10.0))
	assert_eq(rejected[0], "out of reach")
	assert_eq(server_world.get_voxel(far), before)


func test_a_late_joiner_sees_the_edits_made_before_it_came() -> void:
	var server_world := _world(31)
	var server := _sync(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	# The host plays too: it stands and digs.
	var h := int(server_world.get_height(2, 2))
	server.set_local_pose(Vector3(2, h + 1.6, 2), 0.0, 0.0)
	var dug := Vector3i(2, h - 1, 2)
	assert_true(server.request_edit(dug, 0) >= 0)
	assert_eq(server_world.get_voxel(dug), 0, "the host's edit applied")
	var late_world := _world(5)
	var late := await _join(late_world, "late")
	assert_true(
		await wait_until(func() -> bool: return late_world.get_voxel(dug) == 0, 30.0),
		"the late joiner got the edit when its chunk streamed in"
	)
	assert_eq(int(late.get_stats()["edits"]), 1)


func test_a_websocket_peer_works_unchanged() -> void:
	var server_world := _world(64)
	var server := _sync(server_world)
	var server_peer := WebSocketMultiplayerPeer.new()
	assert_eq(server_peer.create_server(_port, HOST), OK, "websocket server")
	assert_eq(server.host_with_peer(server_peer), OK, server.last_error())
	var client_world := _world(3)
	var client := _sync(client_world)
	var client_peer := WebSocketMultiplayerPeer.new()
	assert_eq(client_peer.create_client("ws://%s:%d" % [HOST, _port]), OK, "websocket client")
	assert_eq(client.join_with_peer(client_peer, "web"), OK, client.last_error())
	assert_true(
		await wait_until(client.is_joined, 20.0), "joined over WebSocket: %s" % client.last_error()
	)
	assert_eq(client_world.preset.fingerprint(), server_world.preset.fingerprint())
	await _stand(client, client_world, 1, 1)
	var p := Vector3i(1, int(server_world.get_height(1, 1)) + 1, 1)
	var applied: Array[int] = []
	client.edit_applied.connect(
		func(order: int, player: int, _request: int, at: Vector3i, block: int) -> void:
			if player == client.get_local_player_id() and at == p:
				applied.append(order)
				assert_eq(block, default_block_id("stone"))
	)
	assert_true(client.request_edit(p, default_block_id("stone")) >= 0)
	assert_true(
		await wait_until(func() -> bool: return applied.size() == 1, 20.0), "edit_applied came back"
	)
	assert_eq(server_world.get_voxel(p), default_block_id("stone"), "the server applied it")
	assert_eq(client_world.get_voxel(p), default_block_id("stone"), "the client holds it")


func test_malformed_packets_drop_only_that_peer() -> void:
	var server_world := _world(8)
	var server := _sync(server_world)
	assert_eq(server.host(_port), OK)
	var dropped: Array[String] = []
	server.peer_dropped.connect(func(_id: int, reason: String): dropped.append(reason))
	var honest := await _join(_world(9), "honest")
	# A raw client that speaks garbage.
	var peer := ENetMultiplayerPeer.new()
	assert_eq(peer.create_client(HOST, _port), OK)
	var api := SceneMultiplayer.new()
	api.multiplayer_peer = peer
	var connected := [false]
	api.connected_to_server.connect(func(): connected[0] = true)
	assert_true(
		await wait_until(
			func() -> bool:
				api.poll()
				return connected[0],
			10.0
		)
	)
	api.send_bytes(PackedByteArray([0xff, 0x01, 0x02]), 1)
	assert_true(
		await wait_until(
			func() -> bool:
				api.poll()
				return dropped.size() == 1,
			10.0
		),
		"the server dropped the garbage peer"
	)
	assert_true(dropped[0].contains("malformed packet"), dropped[0])
	peer.close()
	# The server still serves the honest player.
	honest.send_chat("still here")
	var heard: Array[String] = []
	honest.chat_received.connect(func(_id: int, text: String): heard.append(text))
	assert_true(await wait_until(func() -> bool: return heard.has("still here"), 10.0))


func test_a_server_resumes_from_its_save_and_journal() -> void:
	var path := scratch_dir().path_join("shared.strata")
	var server_world := _world(4040)
	var server := _sync(server_world)
	server.save_path = path
	assert_eq(server.host(_port), OK, server.last_error())
	var h := int(server_world.get_height(0, 0))
	server.set_local_pose(Vector3(0, h + 1.6, 0), 0.0, 0.0)
	var edited: Array[Vector3i] = []
	for i in 5:
		var p := Vector3i(i - 2, h + 2, 0)
		server.request_edit(p, default_block_id("stone"))
		edited.append(p)
	assert_eq(int(server.get_stats()["edits_applied"]), 5)
	# A crash now: the save on disk predates the edits; only the journal has them. Copy both as
	# they are (a killed process leaves exactly these files).
	var crashed := scratch_dir().path_join("crashed.strata")
	DirAccess.copy_absolute(path, crashed)
	DirAccess.copy_absolute(path + ".journal", crashed + ".journal")
	server.leave()
	var revived_world := _world(1)
	var revived := _sync(revived_world)
	revived.save_path = crashed
	assert_eq(revived.host(_port + 1), OK, revived.last_error())
	for p in edited:
		assert_eq(revived_world.get_voxel(p), default_block_id("stone"), "edit at %s kept" % p)
	assert_eq(int(revived.get_stats()["next_order"]), 5, "edit numbers go on from 5")
	assert_eq(revived_world.preset.fingerprint(), server_world.preset.fingerprint())
	# Bad input: clear errors.
	assert_ne(revived.host(0), OK)
	assert_true(revived.last_error().contains("port 0"), revived.last_error())
	var lonely := StrataWorldSync.new()
	_nodes.append(lonely)
	add_child(lonely)
	assert_ne(lonely.host(_port + 2), OK)
	assert_true(lonely.last_error().contains("not a StrataChunkWorld"), lonely.last_error())


func test_the_host_sees_the_others_and_where_they_are() -> void:
	var server_world := _world(55)
	var server := _sync(server_world)
	server.player_name = "x".repeat(33)
	assert_ne(server.host(_port), OK, "a name over 32 bytes")
	assert_true(server.last_error().contains("player_name"), server.last_error())
	server.player_name = "hostess"
	assert_eq(server.host(_port), OK, server.last_error())
	var guest_world := _world(56)
	var guest := await _join(guest_world, "guest")
	var guest_id := guest.get_local_player_id()
	assert_true(
		await wait_until(func() -> bool: return guest.get_players().values().has("hostess"), 10.0),
		"the guest knows the host by its name: %s" % guest.get_players()
	)
	assert_true(
		await wait_until(func() -> bool: return server.get_players().has(guest_id), 10.0),
		"the host lists the guest: %s" % server.get_players()
	)
	assert_eq(str(server.get_players()[guest_id]), "guest")
	var at := Vector3(6.5, server_world.get_height(6, 3) + 1.6, 3.5)
	guest.set_local_pose(at, 1.25, 0.0)
	assert_true(
		await wait_until(
			func() -> bool: return server.get_player_position(guest_id).distance_to(at) < 0.01, 10.0
		),
		"the host sees the guest at %s: %s" % [at, server.get_player_position(guest_id)]
	)
	assert_near(server.get_player_yaw(guest_id), 1.25, 1e-6, "the host sees which way it faces")
	assert_eq(server.get_player_yaw(9999), 0.0, "an unknown player faces nowhere")
	var left: Array[int] = []
	server.player_left.connect(func(id: int): left.append(id))
	guest.leave()
	assert_true(await wait_until(func() -> bool: return left.has(guest_id), 20.0), "left")
	assert_false(server.get_players().has(guest_id), "the host forgets who left")


func _hashes(w: StrataChunkWorld, chunks: Array[Vector3i]) -> Array[int]:
	var out: Array[int] = []
	for c in chunks:
		out.append(w.debug_chunk_hash(c))
	return out


func test_a_late_joiner_gets_the_water_the_hosts_flows_placed() -> void:
	var server_world := _world(1234, SEA)
	var shore := find_sea_shore(server_world, SEA)
	if not assert_ne(shore.y, -1, "a shore near the origin"):
		return
	(server_world.get_node(server_world.viewer) as Node3D).position = Vector3(shore.x, SEA, shore.z)
	var server := _sync(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	var early_world := _world(1)
	var early := await _join(early_world, "early")
	(early_world.get_node(early_world.viewer) as Node3D).position = Vector3(shore.x, SEA, shore.z)
	# The host digs beside the sea: each edit flows on every peer.
	server.set_local_pose(Vector3(shore.x + 2, SEA + 1.6, shore.z), 0.0, 0.0)
	var dug: Array[Vector3i] = []
	for x in range(shore.x + 1, shore.x + 4):
		for y in range(SEA, SEA - 3, -1):
			for z in range(shore.z, shore.z + 2):
				dug.append(Vector3i(x, y, z))
				assert_true(server.request_edit(Vector3i(x, y, z), 0) >= 0)
	assert_true(await wait_until(server_world.is_water_settled, 60.0), "host water settled")
	var water := default_block_id("water")
	var filled := dug.filter(func(p: Vector3i) -> bool: return server_world.get_voxel(p) == water)
	assert_gt(filled.size(), 0, "the sea flowed into the hole on the host")
	# The late joiner streams the same place in after the host's flows ran.
	var late_world := _world(2)
	var late := await _join(late_world, "late")
	(late_world.get_node(late_world.viewer) as Node3D).position = Vector3(shore.x, SEA, shore.z)
	var chunks: Array[Vector3i] = []
	for p in dug:
		var c := Vector3i(floori(p.x / 32.0), floori(p.y / 32.0), floori(p.z / 32.0))
		if not chunks.has(c):
			chunks.append(c)
	var synced := func() -> bool:
		for c in chunks:
			if not late.is_chunk_synced(c) or not early.is_chunk_synced(c):
				return false
		return (
			late_world.is_water_settled()
			and early_world.is_water_settled()
			and server_world.is_water_settled()
		)
	assert_true(await wait_until(synced, 60.0), "the late joiner's chunks synced")
	await wait_frames(10)
	var want := _hashes(server_world, chunks)
	assert_true(
		await wait_until(func() -> bool: return _hashes(late_world, chunks) == want, 30.0),
		"the late joiner holds the host's voxels, water included"
	)
	assert_eq(_hashes(early_world, chunks), want, "and so does the early client")
	for p in filled:
		assert_eq(late_world.get_voxel(p), water, "water at %s on the late joiner" % p)
	# The late joiner keeps subscribing as its view fills in; one that arrived this frame waits
	# for the next frame start, so none may stay waiting, but one may be waiting at any instant.
	var none_waiting := func() -> bool: return int(server.get_stats()["snapshots_waiting"]) == 0
	assert_true(await wait_until(none_waiting, 10.0), "no subscription stays waiting")


func test_a_client_that_teleports_is_moved_back_and_a_huge_chat_line_is_cut() -> void:
	var server_world := _world(91)
	var server := _sync(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	var c_world := _world(92)
	var c := await _join(c_world, "jumper")
	await _stand(c, c_world, 0, 0)
	var start := Vector3(0, c_world.get_height(0, 0) + 1.6, 0)
	var corrected: Array[Vector3] = []
	c.pose_corrected.connect(
		func(p: Vector3, _yaw: float, _pitch: float) -> void: corrected.append(p)
	)
	var rejected: Array[String] = []
	c.edit_rejected.connect(func(_r: int, reason: String) -> void: rejected.append(reason))
	# The game moves its player 300 voxels at once, a teleport the server did not make, and
	# edits there: the server keeps it where it was, so the edit is out of reach.
	var away := Vector3(300, c_world.get_height(300, 0) + 1.6, 0)
	c.set_local_pose(away, 0.0, 0.0)
	var target := Vector3i(300, int(c_world.get_height(300, 0)) + 1, 0)
	var stone := default_block_id("stone")
	var before := server_world.get_voxel(target)
	assert_true(c.request_edit(target, stone) >= 0, c.last_error())
	assert_true(
		await wait_until(func() -> bool: return corrected.size() >= 1, 10.0), "pose_corrected"
	)
	assert_lt(corrected[0].distance_to(start), 1.0, "back where it stood: %s" % corrected[0])
	assert_true(
		await wait_until(func() -> bool: return rejected.size() == 1, 10.0), "the edit refused"
	)
	assert_eq(rejected[0], "out of reach")
	assert_eq(server_world.get_voxel(target), before, "nothing changed there")
	assert_gt(int(server.get_stats()["poses_refused"]), 0, "counted: %s" % server.get_stats())
	# The host may move it there: then the edit goes through.
	corrected.clear()
	assert_true(
		server.teleport_player(c.get_local_player_id(), away, 0.5, 0.0), server.last_error()
	)
	assert_true(
		await wait_until(func() -> bool: return corrected.size() == 1, 10.0), "told of the teleport"
	)
	assert_lt(corrected[0].distance_to(away), 0.01, "at the host's spot")
	assert_false(server.teleport_player(9999, away, 0.0, 0.0), "no such player")
	# 64 KB of chat: cut to 256 bytes at a character boundary; the player stays.
	var heard: Array[String] = []
	c.chat_received.connect(func(_id: int, text: String) -> void: heard.append(text))
	c.send_chat("é".repeat(32768))
	assert_true(await wait_until(func() -> bool: return heard.size() == 1, 10.0), "the line came")
	assert_eq(heard[0], "é".repeat(128), "cut to 256 bytes")
	await wait_frames(10)
	assert_true(c.is_joined(), "still joined")
	assert_eq(int(server.get_stats()["peers_dropped"]), 0, "nobody dropped")
	c.send_chat("   ")
	assert_true(c.last_error().contains("nothing to show"), c.last_error())
