## StrataWorldSync sharing a side view (StrataChunkWorld2D): a server and clients in one Godot
## process over ENet on 127.0.0.1, each with its own world. Single tiles and shape edits reach
## everyone as the server orders them and a late joiner catches up (equal chunk hashes); two peers
## with different floating origins 3,000,000 tiles out edit next to each other and agree; a
## client's move through a wall of tiles or too fast is refused and corrected; a host resumes its
## side view from its save and the journal of the edits after it.
extends StrataNetTestCase

## Pixels a tile (the generated TileSet's).
const PX := 16.0
## The body: 1.6 tiles tall.
const BODY_TILES := 1.6
const DIR := "user://test_world_sync_2d"
## Where the far test plays, in tiles.
const FAR_X := 3_000_000


func after_each() -> void:
	super.after_each()
	var dir := DirAccess.open("user://")
	if dir != null and dir.dir_exists("test_world_sync_2d"):
		for f in DirAccess.get_files_at(DIR):
			DirAccess.remove_absolute("%s/%s" % [DIR, f])


func _preset(seed: int, flat := false) -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	if flat:
		preset.side_view_amplitude = 0.0
		preset.side_view_cave_mode = StrataWorldPreset.SIDE_VIEW_CAVE_MODE_NONE
		preset.side_view_water_enabled = false
	return preset


## A side view that streams one chunk around a viewer of its own at tile `at`, its origin at the
## chunk corner nearest `origin`.
func _world(seed: int, at: Vector2i, origin := Vector2i.ZERO, flat := false) -> StrataChunkWorld2D:
	var w := StrataChunkWorld2D.new()
	w.preset = _preset(seed, flat)
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
