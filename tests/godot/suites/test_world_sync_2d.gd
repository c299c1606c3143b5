## StrataWorldSync sharing a side view (StrataChunkWorld2D): a server and clients in one Godot
## process over ENet on 127.0.0.1, each with its own world. Single tiles and shape edits reach
## everyone as the server orders them and a late joiner catches up (equal chunk hashes); two peers
## with different floating origins 3,000,000 tiles out edit next to each other and agree; a
## client's move through a wall of tiles or too fast is refused and corrected; a host resumes its
## side view from its save and the journal of the edits after it. Objects: the host's are the
## authority; a client's are replicas that show the host's moved, turned, changed, removed and
## added ones (in world tiles, whatever each peer's origin) after gliding there, a late joiner
## sees every change, a client may not add or remove one, and a client that leaves (or whose
## host stops) keeps what it shows as its own.
extends StrataNetTestCase

## Pixels a tile (the generated TileSet's).
const PX := 16.0
## The body: 1.6 tiles tall.
const BODY_TILES := 1.6
const DIR := "user://test_world_sync_2d"
## Where the far test plays, in tiles.
const FAR_X := 3_000_000
## The objects' script: a Node2D with a `health` kept through `strata_get_state`.
const MARKER_SCRIPT := """extends Node2D

var health: int = 10


func strata_get_state() -> Dictionary:
	return {"health": health}


func strata_set_state(state: Dictionary) -> void:
	health = int(state.get("health", 10))
"""


func after_each() -> void:
	super.after_each()
	var dir := DirAccess.open("user://")
	if dir != null and dir.dir_exists("test_world_sync_2d"):
		for f in DirAccess.get_files_at(DIR):
			DirAccess.remove_absolute("%s/%s" % [DIR, f])


## A preset of `seed`; with `spawn_scene`, objects of that scene spawn on the surface.
func _preset(seed: int, flat := false, spawn_scene := "") -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	if flat:
		preset.side_view_amplitude = 0.0
		preset.side_view_cave_mode = StrataWorldPreset.SIDE_VIEW_CAVE_MODE_NONE
		preset.side_view_water_enabled = false
	if spawn_scene != "":
		var rule := StrataSpawnRule.create(spawn_scene, 3.0)
		rule.cluster_size = 3
		rule.cluster_spread = 10.0
		rule.min_spacing = 2.0
		preset.set_spawn_rules([rule] as Array[StrataSpawnRule])
	return preset


## A side view that streams one chunk around a viewer of its own at tile `at`, its origin at the
## chunk corner nearest `origin`.
func _world(
	seed: int, at: Vector2i, origin := Vector2i.ZERO, flat := false, spawn_scene := ""
) -> StrataChunkWorld2D:
	var w := StrataChunkWorld2D.new()
	w.preset = _preset(seed, flat, spawn_scene)
	w.view_distance = 1
	w.frame_budget_ms = 20.0
	_keep(w)
	w.set_origin(origin)
	var viewer: Node2D = _keep(Node2D.new())
	w.viewer = w.get_path_to(viewer)
	w.set_meta("viewer", viewer)
	_look_at(w, at)
	return w


## Moves `w`'s viewer to tile `at`.
func _look_at(w: StrataChunkWorld2D, at: Vector2i) -> void:
	(w.get_meta("viewer") as Node2D).position = w.tile_to_local(at)


func _sync_of(world: StrataChunkWorld2D) -> StrataWorldSync:
	var s := StrataWorldSync.new()
	_keep(s)
	s.world = s.get_path_to(world)
	# The test's bodies: a side view's jumps are higher than the 3D defaults.
	s.jump_height = 5.0
	return s


func _join(world: StrataChunkWorld2D, player_name: String) -> StrataWorldSync:
	var s := _sync_of(world)
	assert_eq(s.join(HOST, _port, player_name), OK, "join")
	assert_true(
		await wait_until(s.is_joined, 20.0), "%s never joined: %s" % [player_name, s.last_error()]
	)
	return s


## The row of the topmost solid tile of column `x`.
func _ground(w: StrataChunkWorld2D, x: int) -> int:
	var local_x := w.tile_to_local(Vector2i(x, 0)).x
	return w.local_to_tile(Vector2(local_x, w.get_surface_height(local_x) + 1.0)).y


## The top of a body standing on tile (x, row) in `w`'s pixels.
func _head(w: StrataChunkWorld2D, x: int, row: int) -> Vector2:
	return w.tile_to_local(Vector2i(x, row)) - Vector2(0.0, PX * (0.5 + BODY_TILES))


## Stands the player on the ground of column `x` and waits until the server has its pose.
func _stand(s: StrataWorldSync, w: StrataChunkWorld2D, x: int) -> int:
	var row := _ground(w, x)
	s.set_local_pose_2d(_head(w, x, row), BODY_TILES * PX)
	await wait_frames(12)
	return row


## The hashes of the chunks `center` ± 1 of `w`.
func _hashes(w: StrataChunkWorld2D, center: Vector2i) -> Array[int]:
	var out: Array[int] = []
	for dy in [-1, 0, 1]:
		for dx in [-1, 0, 1]:
			out.append(w.debug_chunk_hash(center + Vector2i(dx, dy)))
	return out


## Waits until `s` holds the chunks `center` ± 1 and `w` has the server world's tiles there
## (water settled on both).
func _agree(
	s: StrataWorldSync, w: StrataChunkWorld2D, server_world: StrataChunkWorld2D, center: Vector2i
) -> bool:
	var same := func() -> bool:
		for dy in [-1, 0, 1]:
			for dx in [-1, 0, 1]:
				if not s.is_chunk_synced_2d(center + Vector2i(dx, dy)):
					return false
		if not (w.is_water_settled() and server_world.is_water_settled()):
			return false
		return _hashes(w, center) == _hashes(server_world, center)
	var agreed := await wait_until(same, 30.0)
	if not agreed:
		print("not agreed: %s vs %s" % [_hashes(w, center), _hashes(server_world, center)])
	return agreed


func test_tiles_and_rectangles_reach_everyone_and_a_late_joiner_catches_up() -> void:
	var server_world := _world(4242, Vector2i(0, 0))
	var row := _ground(server_world, 0)
	_look_at(server_world, Vector2i(0, row))
	var server := _sync_of(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	var a_world := _world(1, Vector2i(2, row))
	var a := await _join(a_world, "ada")
	assert_eq(a_world.preset.fingerprint(), server_world.preset.fingerprint(), "the server's world")
	var shapes: Array[int] = []
	a.shape_applied.connect(
		func(_o: int, _p: int, _r: int, tiles: int) -> void: shapes.append(tiles)
	)
	await _stand(server, server_world, 0)
	var a_row := await _stand(a, a_world, 3)
	var stone := server_world.get_block_id("stone")
	var planks := server_world.get_block_id("planks")
	assert_true(stone > 0 and planks > 0, "the default library's stone and planks")
	# A tile each, and a rectangle of 5 × 2 above the ground next to ada.
	assert_true(a.request_tile(Vector2i(4, a_row), planks) >= 0, a.last_error())
	assert_true(
		a.request_tiles_rect(Vector2i(0, a_row - 3), Vector2i(4, a_row - 2), stone) >= 0,
		a.last_error()
	)
	assert_true(server.request_tile(Vector2i(-1, row), 0) >= 0, server.last_error())
	assert_true(
		await wait_until(
			func() -> bool: return int(server.get_stats()["edits_applied"]) == 12, 20.0
		),
		"12 edits applied: %s" % server.get_stats()
	)
	assert_eq(server_world.get_tile(Vector2i(2, a_row - 3)), stone, "the rectangle is on the host")
	assert_eq(server_world.get_tile(Vector2i(4, a_row)), planks, "the tile is on the host")
	assert_true(
		await wait_until(func() -> bool: return shapes == [10], 20.0), "ada heard of the rectangle"
	)
	var center := server_world.chunk_of_tile(Vector2i(0, row))
	assert_true(await _agree(a, a_world, server_world, center), "ada holds the host's chunks")
	# A late joiner gets every earlier edit, the water that followed them included.
	var late_world := _world(9, Vector2i(1, row))
	var late := await _join(late_world, "late")
	assert_true(
		await _agree(late, late_world, server_world, center),
		"the late joiner holds the host's chunks"
	)
	assert_eq(
		late_world.get_tile(Vector2i(1, a_row - 2)), stone, "the late joiner has the rectangle"
	)
	# A shape too large for one edit is refused before it is sent.
	assert_eq(a.request_tiles_rect(Vector2i(0, 0), Vector2i(100, 100), stone), -1)
	assert_true(a.last_error().contains("4096"), a.last_error())


func test_peers_with_different_origins_far_out_agree() -> void:
	# The host's origin three chunks west of x = 3e6, the client's two chunks east.
	var server_world := _world(555, Vector2i(FAR_X, 0), Vector2i(FAR_X - 192, 0))
	var row := _ground(server_world, FAR_X)
	_look_at(server_world, Vector2i(FAR_X, row))
	var server := _sync_of(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	var c_world := _world(2, Vector2i(FAR_X, row), Vector2i(FAR_X + 128, 0))
	var c := await _join(c_world, "far")
	assert_ne(c_world.get_origin(), server_world.get_origin(), "different origins")
	await _stand(server, server_world, FAR_X - 2)
	var c_row := await _stand(c, c_world, FAR_X + 2)
	# The host sees the client where it stands, in its own pixels.
	var seen := func() -> bool:
		var at := server_world.local_to_tile(
			server.get_player_position_2d(c.get_local_player_id()) + Vector2(0, PX)
		)
		return at.x == FAR_X + 2
	assert_true(await wait_until(seen, 10.0), "the host sees the client at x = 3e6 + 2")
	var stone := server_world.get_block_id("stone")
	assert_true(
		(
			c.request_tiles_rect(Vector2i(FAR_X, c_row - 4), Vector2i(FAR_X + 3, c_row - 4), stone)
			>= 0
		),
		c.last_error()
	)
	assert_true(c.request_tile(Vector2i(FAR_X + 1, c_row), 0) >= 0, c.last_error())
	assert_true(server.request_tile(Vector2i(FAR_X - 1, row - 3), stone) >= 0, server.last_error())
	assert_true(
		await wait_until(
			func() -> bool: return int(server.get_stats()["edits_applied"]) == 6, 20.0
		),
		"6 edits applied: %s" % server.get_stats()
	)
	assert_eq(
		server_world.get_tile(Vector2i(FAR_X + 3, c_row - 4)),
		stone,
		"the host has the client's row"
	)
	var center := server_world.chunk_of_tile(Vector2i(FAR_X, row))
	assert_true(
		await _agree(c, c_world, server_world, center), "both hold the same chunks at x = 3e6"
	)
	assert_eq(
		c_world.get_tile(Vector2i(FAR_X - 1, row - 3)), stone, "the client has the host's tile"
	)


func test_a_move_through_a_wall_or_too_fast_is_refused() -> void:
	var server_world := _world(8080, Vector2i(0, 0), Vector2i.ZERO, true)
	var row := _ground(server_world, 0)
	var server := _sync_of(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	var c_world := _world(3, Vector2i(0, row), Vector2i.ZERO, true)
	var c := await _join(c_world, "mallory")
	var corrected: Array[Vector2] = []
	c.pose_corrected_2d.connect(func(at: Vector2) -> void: corrected.append(at))
	# The host builds a wall at x = 3, four tiles high.
	await _stand(server, server_world, 1)
	var stone := server_world.get_block_id("stone")
	assert_true(server.request_tiles_rect(Vector2i(3, row - 4), Vector2i(3, row - 1), stone) >= 0)
	assert_eq(server_world.get_tile(Vector2i(3, row - 2)), stone)
	await _stand(c, c_world, 0)
	assert_true(
		await wait_until(
			func() -> bool: return c_world.get_tile(Vector2i(3, row - 2)) == stone, 20.0
		)
	)
	var start := _head(c_world, 0, row)
	# Through the wall in one step.
	c.set_local_pose_2d(_head(c_world, 6, row), BODY_TILES * PX)
	assert_true(await wait_until(func() -> bool: return corrected.size() == 1, 10.0), "corrected")
	assert_true(
		corrected[0].distance_to(start) < 0.01,
		"back where it stood: %s, not %s" % [corrected[0], start]
	)
	# Forty tiles west in one step, after the correction settled: too fast.
	await get_tree().create_timer(1.2).timeout
	c.set_local_pose_2d(_head(c_world, -40, row), BODY_TILES * PX)
	assert_true(
		await wait_until(func() -> bool: return corrected.size() == 2, 10.0), "corrected again"
	)
	assert_true(corrected[1].distance_to(start) < 0.01)
	assert_eq(int(server.get_stats()["poses_refused"]), 2, "%s" % server.get_stats())
	# An honest step west passes.
	await get_tree().create_timer(1.2).timeout
	c.set_local_pose_2d(_head(c_world, -2, row), BODY_TILES * PX)
	await wait_frames(20)
	assert_eq(int(server.get_stats()["poses_refused"]), 2, "the honest step passed")
	# The host moves the player: it hears where, in its own pixels.
	var there := Vector2i(10, row)
	assert_true(
		server.teleport_player_2d(c.get_local_player_id(), _head(server_world, there.x, row)),
		server.last_error()
	)
	assert_true(await wait_until(func() -> bool: return corrected.size() == 3, 10.0), "teleported")
	assert_true(corrected[2].distance_to(_head(c_world, there.x, row)) < 0.01, "%s" % corrected[2])
	assert_false(server.teleport_player(c.get_local_player_id(), Vector3.ZERO, 0.0, 0.0))
	# A 3D pose on a side view is refused here, with the reason.
	c.set_local_pose(Vector3(1, 2, 3), 0.0, 0.0)
	assert_true(c.last_error().contains("set_local_pose_2d"), c.last_error())


func test_a_host_resumes_its_side_view_from_save_and_journal() -> void:
	DirAccess.make_dir_recursive_absolute(DIR)
	var save := DIR + "/shared.strata"
	var copy := DIR + "/copy.strata"
	var w := _world(606, Vector2i(0, 0))
	var row := _ground(w, 0)
	var server := _sync_of(w)
	server.save_path = save
	assert_eq(server.host(_port), OK, server.last_error())
	await _stand(server, w, 0)
	var stone := w.get_block_id("stone")
	assert_true(server.request_tiles_rect(Vector2i(-2, row - 4), Vector2i(2, row - 3), stone) >= 0)
	assert_true(server.request_tile(Vector2i(0, row), 0) >= 0)
	assert_eq(int(server.get_stats()["next_order"]), 11)
	# The save made when hosting started and the journal of every edit since, as a crash leaves
	# them: copied before the server saves again.
	assert_eq(DirAccess.copy_absolute(save, copy), OK)
	assert_eq(DirAccess.copy_absolute(save + ".journal", copy + ".journal"), OK)
	await wait_until(w.is_water_settled, 20.0)
	var center := w.chunk_of_tile(Vector2i(0, row))
	var before: Array[int] = []
	for dx in [-1, 0, 1]:
		before.append(w.debug_chunk_hash(center + Vector2i(dx, 0)))
	server.leave()
	var again := _world(1, Vector2i(0, 0))
	var resumed := _sync_of(again)
	resumed.save_path = copy
	assert_eq(resumed.host(_port + 1), OK, resumed.last_error())
	assert_eq(int(resumed.get_stats()["next_order"]), 11, "numbering goes on after the journal")
	assert_eq(again.get_tile(Vector2i(1, row - 4)), stone, "the journal's rectangle")
	assert_eq(again.get_tile(Vector2i(0, row)), 0, "the journal's dug tile")
	assert_true(await wait_until(again.is_water_settled, 20.0))
	var after: Array[int] = []
	for dx in [-1, 0, 1]:
		after.append(again.debug_chunk_hash(center + Vector2i(dx, 0)))
	assert_eq(after, before, "the same chunks as before the crash")


## The objects' scene (a saved Node2D with MARKER_SCRIPT), in the test's scratch folder.
func _marker_scene() -> PackedScene:
	var dir := scratch_dir()
	var script := GDScript.new()
	script.source_code = MARKER_SCRIPT
	assert_eq(script.reload(), OK, "the marker script compiles")
	assert_eq(ResourceSaver.save(script, dir.path_join("marker.gd")), OK)
	var root := Node2D.new()
	root.name = "Marker"
	root.set_script(load(dir.path_join("marker.gd")))
	var packed := PackedScene.new()
	assert_eq(packed.pack(root), OK)
	root.free()
	assert_eq(ResourceSaver.save(packed, dir.path_join("marker.tscn")), OK)
	return load(dir.path_join("marker.tscn"))


func _objects(w: StrataChunkWorld2D) -> Array[Node2D]:
	return w.get_entities_in(Rect2(-1e9, -1e9, 2e9, 2e9))


## Where `node` of `w` stands, in world tiles.
func _tiles_of(w: StrataChunkWorld2D, node: Node2D) -> Vector2:
	return node.position / PX + Vector2(w.get_origin())


## The object of `w` standing at `p` (world tiles), or null.
func _object_at(w: StrataChunkWorld2D, p: Vector2, within := 0.01) -> Node2D:
	for e in _objects(w):
		if _tiles_of(w, e).distance_to(p) < within:
			return e
	return null


## Waits until `w` is loaded and every queued object stands in it.
func _settle_objects(w: StrataChunkWorld2D) -> bool:
	var done := func() -> bool:
		var s := w.get_stats()
		return w.is_area_ready() and int(s["entities_queued"]) == 0 and int(s["entities"]) > 0
	var ok: bool = await wait_until(done, 60.0)
	await wait_frames(3)
	return ok


## True when every object of `host` has one on `client` at its place (world tiles), turned and
## scaled alike and with its health, and the counts agree.
func _mirrors(host: StrataChunkWorld2D, client: StrataChunkWorld2D) -> bool:
	var theirs := _objects(host)
	if _objects(client).size() != theirs.size():
		return false
	for e in theirs:
		var r := _object_at(client, _tiles_of(host, e))
		if r == null or r.get("health") != e.get("health"):
			return false
		if (
			absf(angle_difference(r.rotation, e.rotation)) > 1e-3
			or r.scale.distance_to(e.scale) > 1e-3
		):
			return false
	return true


## Each object of `w` as [world tiles, health], in a fixed order.
func _object_list(w: StrataChunkWorld2D) -> Array:
	var out := []
	for e in _objects(w):
		var p := _tiles_of(w, e)
		out.append([snappedf(p.x, 0.001), snappedf(p.y, 0.001), e.get("health")])
	out.sort()
	return out


## A client of the running server with the marker objects, standing where `row` is ground at
## x = 0, its origin at `origin`, joined and mirroring `host_world`.
func _join_objects(
	host_world: StrataChunkWorld2D, row: int, origin: Vector2i, player_name: String, seed: int
) -> Array:
	var path: String = host_world.preset.get_spawn_rules()[0].scene
	var world := _world(seed, Vector2i(0, row), origin, false, path)
	var s := await _join(world, player_name)
	assert_true(
		await _settle_objects(world), "%s's world settles: %s" % [player_name, world.get_stats()]
	)
	assert_true(
		await wait_until(func() -> bool: return _mirrors(host_world, world), 30.0),
		"%s sees the host's objects" % player_name
	)
	return [world, s]


func test_the_hosts_objects_reach_clients_and_late_joiners() -> void:
	var marker := _marker_scene()
	var server_world := _world(7070, Vector2i(0, 0), Vector2i.ZERO, false, marker.resource_path)
	var row := _ground(server_world, 0)
	_look_at(server_world, Vector2i(0, row))
	var server := _sync_of(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	assert_true(await _settle_objects(server_world), "the host's world settles")
	assert_true(server_world.is_entity_authority(), "the host's objects act")
	var all := _objects(server_world)
	assert_gt(all.size(), 3, "objects around the host")
	# The client's origin two chunks east of the host's: positions agree in world tiles.
	var joined := await _join_objects(server_world, row, Vector2i(128, 0), "ada", 1)
	var a_world: StrataChunkWorld2D = joined[0]
	var a: StrataWorldSync = joined[1]
	assert_ne(a_world.get_origin(), server_world.get_origin(), "different origins")
	assert_false(a_world.is_entity_authority(), "a client's objects are replicas")
	# Moved and turned on the host: the replica glides there.
	var walker: Node2D = all[0]
	var from := _tiles_of(server_world, walker)
	var to := from + Vector2(3.0, -0.5)
	var replica := _object_at(a_world, from)
	assert_true(replica != null, "ada has the walker at its spawn")
	walker.position += Vector2(3.0, -0.5) * PX
	walker.rotation = 0.5
	var seen: Array[float] = []
	var arrived := func() -> bool:
		if is_instance_valid(replica):
			seen.append(_tiles_of(a_world, replica).x)
		return _object_at(a_world, to) != null
	assert_true(await wait_until(arrived, 10.0), "the replica reached %s" % to)
	assert_true(is_instance_valid(replica) and _object_at(a_world, to) == replica, "one replica")
	assert_near(replica.rotation, 0.5, 1e-3, "turned as the host's")
	assert_true(_object_at(a_world, from, 0.05) == null, "nothing left at the spawn")
	var between := seen.filter(func(x: float) -> bool: return from.x + 0.05 < x and x < to.x - 0.05)
	assert_gt(between.size(), 0, "drawn between the two positions on the way: %s" % [seen])
	# A state change.
	var hurt: Node2D = all[1]
	var hurt_at := _tiles_of(server_world, hurt)
	hurt.set("health", 3)
	assert_true(
		await wait_until(
			func() -> bool:
				var r := _object_at(a_world, hurt_at)
				return r != null and r.get("health") == 3,
			10.0
		),
		"the state change arrived"
	)
	# Removed and added on the host.
	var gone_at := _tiles_of(server_world, all[2])
	assert_true(server_world.remove_entity(all[2]), "removed on the host")
	var added_at := Vector2(2.25, row - 2.5)
	var added := server_world.add_entity(
		marker, (added_at - Vector2(server_world.get_origin())) * PX
	)
	assert_true(added != null, server_world.last_error())
	added.set("health", 7)
	assert_true(
		await wait_until(
			func() -> bool:
				var n := _object_at(a_world, added_at)
				return _object_at(a_world, gone_at) == null and n != null and n.get("health") == 7,
			10.0
		),
		"the removed one went and the added one came"
	)
	assert_true(_mirrors(server_world, a_world), "ada mirrors the host")
	# A client may not add or remove objects: refused with the reason.
	assert_true(a_world.add_entity(marker, Vector2.ZERO) == null, "a client's add is refused")
	assert_true(a_world.last_error().contains("is_entity_authority"), a_world.last_error())
	assert_false(a_world.remove_entity(replica), "a client's remove is refused")
	assert_true(a_world.last_error().contains("remove_entity"), a_world.last_error())
	assert_true(is_instance_valid(replica), "the replica stays")
	# Changes made on a client are not sent: the host keeps its own.
	replica.set("health", 1)
	await wait_frames(12)
	assert_eq(walker.get("health"), 10, "the host's walker untouched by ada's change")
	# A late joiner, its origin a chunk west, sees every change made before it came.
	var late := await _join_objects(server_world, row, Vector2i(-64, 0), "late", 2)
	var late_world: StrataChunkWorld2D = late[0]
	assert_true(_object_at(late_world, to) != null, "the moved one where it went")
	assert_true(_object_at(late_world, from, 0.05) == null, "not at its spawn")
	assert_true(_object_at(late_world, gone_at) == null, "the removed one absent")
	assert_eq(_object_at(late_world, added_at).get("health"), 7, "the added one with its state")
	assert_gt(int(server.get_stats()["entity_updates"]), 0, "%s" % server.get_stats())
	assert_gt(int(a.get_stats()["entity_records"]), 0, "%s" % a.get_stats())
	# Leaving: ada's world acts on its own again and keeps every object it showed.
	var shown := _object_list(a_world)
	a.leave()
	assert_true(a_world.is_entity_authority(), "ada's world acts on its own again")
	await wait_frames(10)
	assert_eq(_object_list(a_world), shown, "nothing lost on leaving")
	assert_eq(_object_at(a_world, added_at).get("health"), 7, "the host's added one is ada's now")
	assert_true(a_world.add_entity(marker, Vector2(0, -4 * PX)) != null, a_world.last_error())
	# The host stops: the late joiner's world acts on its own too, its objects kept.
	var late_shown := _object_list(late_world)
	server.leave()
	assert_true(
		await wait_until(late_world.is_entity_authority, 10.0), "the late joiner's world is its own"
	)
	await wait_frames(10)
	assert_eq(_object_list(late_world), late_shown, "nothing lost when the host stops")
