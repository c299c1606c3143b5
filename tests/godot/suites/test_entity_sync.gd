## Entities in a shared world: a host and clients in one Godot process over ENet on 127.0.0.1,
## each with its own StrataChunkWorld. The host's entities are the authority; on a client the spawn
## rules start the same objects and the server's entity deltas move (interpolated), change,
## remove and add them; a late joiner sees all of it, and an object walking across a chunk border
## stays one node.
extends StrataNetTestCase

const DIR := "user://entity_sync_suite"

var _critter: PackedScene


func before_each() -> void:
	super()
	DirAccess.make_dir_recursive_absolute(DIR)
	if _critter == null:
		_critter = critter_scene(DIR)


func _preset(seed: int) -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var rule := StrataSpawnRule.create(DIR + "/critter.tscn", 3.0)
	rule.cluster_size = 4
	rule.cluster_spread = 8.0
	rule.min_spacing = 2.0
	preset.set_spawn_rules([rule] as Array[StrataSpawnRule])
	return preset


func _world(seed: int) -> StrataChunkWorld:
	var viewer := Node3D.new()
	_keep(viewer)
	var w := StrataChunkWorld.new()
	w.preset = _preset(seed)
	w.view_distance = 2
	w.vertical_view_distance = 1
	w.entity_distance = 1
	w.far_view_levels = 0
	w.adaptive_far_view = false
	w.frame_budget_ms = 8.0
	_keep(w)
	w.viewer = w.get_path_to(viewer)
	viewer.position = Vector3(8, w.get_height(8, 8) + 2.0, 8)
	return w


func _entities(w: StrataChunkWorld) -> Array[Node3D]:
	return w.get_entities_in(AABB(Vector3(-1e6, -1e6, -1e6), Vector3(2e6, 2e6, 2e6)))


## Every entity of `w` as "scene x y z health" (positions to a centimetre), sorted.
func _entity_list(w: StrataChunkWorld) -> Array[String]:
	var out: Array[String] = []
	for e in _entities(w):
		var p := e.position
		out.append("%s %.2f %.2f %.2f %s" % [e.scene_file_path, p.x, p.y, p.z, e.get("health")])
	out.sort()
	return out


func _entity_near(w: StrataChunkWorld, p: Vector3, within := 0.01) -> Node3D:
	for e in _entities(w):
		if e.position.distance_to(p) < within:
			return e
	return null


## Waits until the world's area is loaded and no entity waits to be instanced.
func _settle(w: StrataChunkWorld) -> bool:
	var done := func() -> bool:
		var s := w.get_stats()
		return w.is_area_ready() and int(s["entities_queued"]) == 0 and int(s["entities"]) > 0
	var ok: bool = await wait_until(done, 90.0)
	await wait_frames(3)
	return ok


## True when every entity of `host` has one on `client` at its place with its health, and the
## counts agree.
func _mirrors(host: StrataChunkWorld, client: StrataChunkWorld) -> bool:
	var theirs := _entities(host)
	if _entities(client).size() != theirs.size():
		return false
	for e in theirs:
		var r := _entity_near(client, e.position)
		if r == null or r.get("health") != e.get("health"):
			return false
	return true


## A client of `host_world`'s server, joined, its world settled and mirroring the host's.
func _join(host_world: StrataChunkWorld, seed: int, player_name: String) -> Array:
	var world := _world(seed)
	var s := _sync(world)
	assert_eq(s.join(HOST, _port, player_name), OK, "join")
	assert_true(
		await wait_until(s.is_joined, 20.0), "%s joined: %s" % [player_name, s.last_error()]
	)
	# It stands where the host's viewer stands, in the server's world now.
	(world.get_node(world.viewer) as Node3D).position = (
		(host_world.get_node(host_world.viewer) as Node3D).position
	)
	assert_true(await _settle(world), "%s's world settles: %s" % [player_name, world.get_stats()])
	assert_true(
		await wait_until(func() -> bool: return _mirrors(host_world, world), 30.0),
		"%s sees the host's entities" % player_name
	)
	return [world, s]


func test_the_hosts_entity_changes_reach_clients_and_late_joiners() -> void:
	var host_world := _world(6161)
	var server := _sync(host_world)
	assert_eq(server.host(_port), OK, server.last_error())
	assert_true(await _settle(host_world), "the host's world settles")
	assert_true(host_world.is_entity_authority(), "the host's entities act")
	var all := _entities(host_world)
	assert_gt(all.size(), 5, "critters around the host")
	var joined := await _join(host_world, 1, "ada")
	var ada_world: StrataChunkWorld = joined[0]
	var ada: StrataWorldSync = joined[1]
	assert_eq(ada_world.preset.fingerprint(), host_world.preset.fingerprint())
	assert_false(ada_world.is_entity_authority(), "a client's entities are replicas")
	# Moved on the host: the replica glides there and ends at the host's position.
	var walker: Node3D = all[0]
	var from := walker.position
	# Three metres along x, within its chunk (one update moves it).
	var step := 3.0 if fposmod(from.x, 32.0) < 28.0 else -3.0
	var to := from + Vector3(step, 0, 0)
	var replica := _entity_near(ada_world, from)
	assert_true(replica != null, "ada has the walker at its spawn")
	walker.position = to
	var seen: Array[Vector3] = []
	var arrived := func() -> bool:
		if is_instance_valid(replica):
			seen.append(replica.position)
		return _entity_near(ada_world, to) != null
	assert_true(await wait_until(arrived, 10.0), "the replica reached %s" % to)
	assert_true(
		is_instance_valid(replica) and _entity_near(ada_world, to) == replica, "one replica"
	)
	assert_true(_entity_near(ada_world, from, 0.05) == null, "nothing left at the spawn")
	var between := seen.filter(
		func(p: Vector3) -> bool:
			return minf(from.x, to.x) + 0.05 < p.x and p.x < maxf(from.x, to.x) - 0.05
	)
	assert_gt(between.size(), 0, "drawn between the two positions on the way: %s" % [seen])
	# A state change.
	var hurt: Node3D = all[1]
	hurt.set("health", 3)
	assert_true(
		await wait_until(
			func() -> bool:
				var r := _entity_near(ada_world, hurt.position)
				return r != null and r.get("health") == 3,
			10.0
		),
		"the state change arrived"
	)
	# Removed and added on the host.
	var gone_at: Vector3 = all[2].position
	assert_true(host_world.remove_entity(all[2]), "removed on the host")
	var added_at := Vector3(12.25, host_world.get_height(12, 4) + 0.5, 4.5)
	var added := host_world.add_entity(_critter, added_at)
	assert_true(added != null, host_world.last_error())
	added.set("health", 7)
	assert_true(
		await wait_until(
			func() -> bool:
				var a := _entity_near(ada_world, added_at)
				return (
					_entity_near(ada_world, gone_at) == null and a != null and a.get("health") == 7
				),
			10.0
		),
		"the removed one went and the added one came"
	)
	assert_true(_mirrors(host_world, ada_world), "ada mirrors the host")
	# Changes made on a client are not sent: the host keeps its own.
	var local := _entity_near(ada_world, to)
	local.set("health", 1)
	await wait_frames(12)
	assert_eq(walker.get("health"), 10, "the host's walker untouched by ada's change")
	# A late joiner sees every change made before it came.
	var late := await _join(host_world, 2, "late")
	var late_world: StrataChunkWorld = late[0]
	assert_true(_entity_near(late_world, to) != null, "the moved one where it went")
	assert_true(_entity_near(late_world, from, 0.05) == null, "not at its spawn")
	assert_true(_entity_near(late_world, gone_at) == null, "the removed one absent")
	assert_eq(_entity_near(late_world, added_at).get("health"), 7, "the added one with its state")
	assert_gt(int(server.get_stats()["entity_updates"]), 0, "%s" % server.get_stats())
	assert_gt(int(ada.get_stats()["entity_records"]), 0, "%s" % ada.get_stats())
	# Leaving gives the client's world its own entities back, and it keeps every object it shows.
	var shown := _entity_list(ada_world)
	ada.leave()
	assert_true(ada_world.is_entity_authority(), "ada's world acts on its own again")
	await wait_frames(10)
	assert_eq(_entity_list(ada_world), shown, "nothing lost on leaving")
	assert_eq(_entity_near(ada_world, added_at).get("health"), 7, "the host's added one is ada's")
	assert_true(_entity_near(ada_world, gone_at) == null, "the removed one stays away")
	assert_true(
		ada_world.add_entity(_critter, added_at + Vector3(1, 0, 0)) != null, ada_world.last_error()
	)


func test_an_entity_crossing_a_chunk_border_keeps_its_replica() -> void:
	var host_world := _world(6262)
	var server := _sync(host_world)
	assert_eq(server.host(_port), OK, server.last_error())
	assert_true(await _settle(host_world), "the host's world settles")
	var walker: Node3D = _entities(host_world)[0]
	# Near the border of chunks x = 0 and x = 1 first (a jump: the client may make a new node).
	var before := Vector3(30.5, walker.position.y, 8.25)
	walker.position = before
	var joined := await _join(host_world, 3, "bo")
	var bo_world: StrataChunkWorld = joined[0]
	var replica := _entity_near(bo_world, before)
	assert_true(replica != null, "bo has the walker by the border")
	# Three metres on, into the next chunk: the same node glides there.
	var after := before + Vector3(3, 0, 0)
	assert_ne(
		StrataChunkWorld.chunk_of(before),
		StrataChunkWorld.chunk_of(after),
		"a chunk border between"
	)
	walker.position = after
	assert_true(
		await wait_until(func() -> bool: return _entity_near(bo_world, after) != null, 10.0),
		"the replica reached %s" % after
	)
	assert_true(is_instance_valid(replica), "not freed on the way")
	assert_true(_entity_near(bo_world, after) == replica, "the same node across the border")
	assert_true(_mirrors(host_world, bo_world), "bo mirrors the host")


func test_the_host_brings_objects_to_life_where_each_player_stands() -> void:
	var host_world := _world(6262)
	var server := _sync(host_world)
	assert_eq(server.host(_port), OK, server.last_error())
	assert_true(await _settle(host_world), "the host's world settles")
	var world := _world(6262)
	var s := _sync(world)
	assert_eq(s.join(HOST, _port, "far"), OK, "join")
	assert_true(await wait_until(s.is_joined, 20.0), "joined: %s" % s.last_error())
	# Far beyond the host's view: nothing of the host's world lives there yet.
	var far := Vector3(900.0, 0.0, 8.0)
	far.y = world.get_height(far.x, far.z) + 2.0
	var box := AABB(far - Vector3(64, 96, 64), Vector3(128, 192, 128))
	assert_true(host_world.get_entities_in(box).is_empty(), "no objects there before")
	(world.get_node(world.viewer) as Node3D).position = far
	s.set_local_pose(far, 0.0, 0.0)
	var alive := func() -> bool: return not host_world.get_entities_in(box).is_empty()
	assert_true(await wait_until(alive, 60.0), "objects live on the host where the player stands")
	assert_eq(host_world.get_viewer_count(), 2, "the host's viewer and the player's")
	s.leave()
	var gone := func() -> bool: return host_world.get_entities_in(box).is_empty()
	assert_true(await wait_until(gone, 30.0), "and leave with the player")
	assert_eq(host_world.get_viewer_count(), 1, "the player's viewer went with it")
