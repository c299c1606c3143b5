## A shared world 3,000 km out, where each peer's StrataChunkWorld has its own floating origin
## (a host and a client in one Godot process over ENet on 127.0.0.1): poses travel in world
## coordinates (each sees the other where it stands, within 1 cm), edits land at the same world
## voxels (equal chunk hashes on both), and the host's entities stand at the same world places on
## the client (within 1 cm).
extends StrataNetTestCase

const DIR := "user://floating_origin_shared"
## Where both players stand: 3,000 km out on x and z.
const SPOT := Vector3i(3_000_008, 0, 3_000_008)


func before_each() -> void:
	super()
	critter_scene(DIR)


func _preset() -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = 8128
	var rule := StrataSpawnRule.create(DIR + "/critter.tscn", 3.0)
	rule.cluster_size = 4
	rule.cluster_spread = 8.0
	rule.min_spacing = 2.0
	preset.set_spawn_rules([rule] as Array[StrataSpawnRule])
	return preset


## A world whose origin is at `origin` and whose viewer stands over SPOT, in the shift group.
func _far_world(origin: Vector3i) -> StrataChunkWorld:
	var viewer := Node3D.new()
	_keep(viewer)
	var w := StrataChunkWorld.new()
	w.preset = _preset()
	w.view_distance = 2
	w.vertical_view_distance = 1
	w.entity_distance = 1
	w.far_view_levels = 0
	w.adaptive_far_view = false
	w.frame_budget_ms = 8.0
	w.floating_origin = true
	# Each world its own group: both are in one process, and a shift moves its whole group.
	w.origin_shift_group = StringName("origin_of_%d" % w.get_instance_id())
	_keep(w)
	viewer.add_to_group(w.origin_shift_group)
	w.viewer = w.get_path_to(viewer)
	w.set_origin(origin)
	_place_viewer(w)
	return w


## The viewer two voxels over the ground at SPOT (a world's ground follows its preset, which a
## client gets from the host on joining).
func _place_viewer(w: StrataChunkWorld) -> void:
	var ground := w.get_height(SPOT.x + 0.5, SPOT.z + 0.5)
	var viewer := w.get_node(w.viewer) as Node3D
	viewer.position = (
		w.voxel_to_local(Vector3i(SPOT.x, int(ground) + 2, SPOT.z)) + Vector3(0.5, 0, 0.5)
	)


## The world point of `local` in `w` (64-bit floats).
func _world_of(w: StrataChunkWorld, local: Vector3) -> Vector3:
	# Only differences are compared: both sides subtract SPOT first, so Vector3 keeps 1 cm.
	var o := w.get_origin() - SPOT
	return Vector3(o) + local


func _entities(w: StrataChunkWorld) -> Array[Node3D]:
	return w.get_entities_in(AABB(Vector3(-1e6, -1e6, -1e6), Vector3(2e6, 2e6, 2e6)))


func _settle(w: StrataChunkWorld) -> bool:
	var done := func() -> bool:
		var s := w.get_stats()
		return w.is_area_ready() and int(s["entities_queued"]) == 0 and int(s["entities"]) > 0
	var ok: bool = await wait_until(done, 90.0)
	await wait_frames(3)
	return ok


## Whether every host entity has one on the client within 1 cm of its world place.
func _entities_agree(host: StrataChunkWorld, client: StrataChunkWorld) -> bool:
	var theirs := _entities(host)
	var ours := _entities(client)
	if theirs.is_empty() or ours.size() != theirs.size():
		return false
	for e in theirs:
		var at := _world_of(host, e.position)
		if not ours.any(
			func(r: Node3D) -> bool: return _world_of(client, r.position).distance_to(at) < 0.01
		):
			return false
	return true


func test_players_with_different_origins_share_poses_edits_and_entities_far_out() -> void:
	var host_world := _far_world(Vector3i(3_000_000, 0, 3_000_000))
	var server := _sync(host_world)
	assert_eq(server.host(_port), OK, server.last_error())
	assert_true(await _settle(host_world), "the host's world settles 3,000 km out")
	var client_world := _far_world(Vector3i(3_000_064, 32, 2_999_936))
	var client := _sync(client_world)
	assert_eq(client.join(HOST, _port, "ada"), OK, client.last_error())
	if not assert_true(
		await wait_until(client.is_joined, 20.0), "joined: %s" % client.last_error()
	):
		return
	_place_viewer(client_world)
	assert_ne(host_world.get_origin(), client_world.get_origin(), "two origins")
	assert_true(await _settle(client_world), "the client's world settles")
	# Poses: each eye 1.62 over the ground at SPOT, given in its own node space.
	var ground := host_world.get_height(SPOT.x + 0.5, SPOT.z + 0.5)
	var eye_voxel := Vector3i(SPOT.x, int(ground) + 1, SPOT.z)
	var eye_offset := Vector3(0.25, 0.62, 0.75)
	server.set_local_pose(host_world.voxel_to_local(eye_voxel) + eye_offset, 0.0, 0.0)
	client.set_local_pose(
		client_world.voxel_to_local(eye_voxel) + eye_offset + Vector3(1, 0, 0), 0.0, 0.0
	)
	var ada_id := client.get_local_player_id()
	var seen_by_host := func() -> bool:
		var p := server.get_player_position(ada_id)
		return p != Vector3.ZERO
	assert_true(await wait_until(seen_by_host, 10.0), "the host sees ada")
	await wait_frames(12)
	var ada_on_host := _world_of(host_world, server.get_player_position(ada_id))
	var ada_own := _world_of(
		client_world, client_world.voxel_to_local(eye_voxel) + eye_offset + Vector3(1, 0, 0)
	)
	assert_lt(
		ada_on_host.distance_to(ada_own),
		0.01,
		"ada where she stands: %s %s" % [ada_on_host, ada_own]
	)
	# Edits next to each other, one from each peer, at world voxels.
	var stone := default_block_id("stone")
	var a := eye_voxel + Vector3i(2, 0, 0)
	var b := eye_voxel + Vector3i(2, 0, 1)
	assert_true(server.request_edit(a, stone) >= 0, server.last_error())
	assert_true(client.request_edit(b, stone) >= 0, client.last_error())
	var both := func() -> bool:
		return (
			host_world.get_voxel(a) == stone
			and host_world.get_voxel(b) == stone
			and client_world.get_voxel(a) == stone
			and client_world.get_voxel(b) == stone
		)
	assert_true(await wait_until(both, 15.0), "both edits on both peers")
	var chunk := Vector3i(floori(a.x / 32.0), floori(a.y / 32.0), floori(a.z / 32.0))
	assert_eq(
		host_world.debug_chunk_hash(chunk),
		client_world.debug_chunk_hash(chunk),
		"equal chunk hashes"
	)
	# The host's entities at the same world places on the client.
	assert_true(
		await wait_until(func() -> bool: return _entities_agree(host_world, client_world), 30.0),
		"entity transforms agree within 1 cm"
	)
