## The server's movement checks (StrataWorldSync's "Server checks", strata-core's
## net/movement.rs) against real clients over ENet on 127.0.0.1, in one process: a speed hack is
## moved back (`pose_corrected`) and cannot edit where it cheated its way to, while the demo's
## player played honestly by bots (tools/movement_bot.gd: walking, sprinting, jumping, crouching
## and lying down, falling 34 voxels, swimming, sprinting over a lagging connection, and a
## server that stalls) is never corrected, nor moved back from where the host put it. The body is
## swept from the feet to the eye: walls lower than the eye stop it, a low stance passes under
## ledges.
extends StrataNetTestCase

const Bot := preload("res://tools/movement_bot.gd")
## A world with a sea south-east of the origin and hilly land north of it.
const WORLD_SEED := 1234
const SEA := 24
## Seconds each honest behaviour runs here; `cargo xtask movement-soak` runs them for minutes.
const PHASE_S := 2.0
## `fall` runs long enough for the drop from its spawn (landing after 1.8 s) and one more from
## where the host puts it.
const FALL_S := 3.0 + Bot.FALL_CYCLE_S
## How long the server stalls (its node not processed), twice during the honest run: the
## clients' poses of that time then arrive at once.
const STALL_S := 0.4


func after_each() -> void:
	super()
	for a in Bot.ACTIONS:
		Input.action_release(a)


func _world() -> StrataChunkWorld:
	var preset := StrataWorldPreset.new()
	preset.seed = WORLD_SEED
	preset.water_sea_level = SEA
	# The bots are the viewers that matter; the world's own stays at the origin.
	var w := _small_world(preset, 4.0, false)
	var viewer := Node3D.new()
	_keep(viewer)
	w.viewer = w.get_path_to(viewer)
	return w


func _bot(bot_name: String, server: StrataWorldSync) -> Bot:
	var bot: Bot = Bot.new()
	bot.name = bot_name
	bot.bot_name = bot_name
	bot.host_teleport = func(id: int, eye: Vector3) -> bool:
		return server.teleport_player(id, eye, 0.0, 0.0)
	_keep(bot)
	return bot


func test_a_speed_hack_is_moved_back_and_cannot_edit_where_it_cheated_to() -> void:
	var server_world := _world()
	var server := _sync(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	var c_world := _world()
	var c := _sync(c_world)
	assert_eq(c.join(HOST, _port, "cheater"), OK, c.last_error())
	if not assert_true(await wait_until(c.is_joined, 20.0), "joined: %s" % c.last_error()):
		return
	var corrected: Array[Vector3] = []
	c.pose_corrected.connect(func(p: Vector3, _y: float, _p: float) -> void: corrected.append(p))
	var rejected := {}
	c.edit_rejected.connect(func(r: int, reason: String) -> void: rejected[r] = reason)
	var applied := {}
	c.edit_applied.connect(
		func(_o: int, player: int, r: int, _at: Vector3i, _b: int) -> void:
			if player == c.get_local_player_id():
				applied[r] = true
	)
	var eye_at := func(x: float) -> Vector3:
		return Vector3(x, c_world.get_height(x, 0.5) + 1.62, 0.5)
	c.set_local_pose(eye_at.call(0.5), 0.0, 0.0)
	await wait_frames(10)
	# Three times the horizontal speed the server allows, for 3 s, along x over the ground.
	var speed := 3.0 * server.max_horizontal_speed
	var start_ms := Time.get_ticks_msec()
	var x := 0.5
	while Time.get_ticks_msec() - start_ms < 3000:
		x = 0.5 + speed * (Time.get_ticks_msec() - start_ms) / 1000.0
		c.set_local_pose(eye_at.call(x), 0.0, 0.0)
		await get_tree().process_frame
	var stats := server.get_stats()
	assert_gt(corrected.size(), 0, "the cheater was told where the server has it")
	assert_gt(int(stats["pose_corrections"]), 0, "the server counted corrections: %s" % stats)
	assert_gt(int(stats["poses_refused"]), 0, "and refused poses: %s" % stats)
	if corrected.is_empty():
		return
	# Where the server has it: about one second of allowed movement from the start, far short
	# of the 80 voxels it claims.
	var accepted := corrected[corrected.size() - 1]
	assert_lt(accepted.x, 0.5 + 2.0 * server.max_horizontal_speed, "held back: %s" % accepted)
	assert_gt(x - accepted.x, 40.0, "the cheat claimed %.1f, the server kept %s" % [x, accepted])
	# An edit where it cheated its way to: refused, nothing changes there.
	var stone := default_block_id("stone")
	var far_spot := Vector3i(int(x), int(c_world.get_height(x, 0.5)) + 1, 0)
	var before := server_world.get_voxel(far_spot)
	c.set_local_pose(eye_at.call(x), 0.0, 0.0)
	var far_request := c.request_edit(far_spot, stone)
	assert_true(far_request >= 0, c.last_error())
	assert_true(
		await wait_until(func() -> bool: return rejected.has(far_request), 10.0),
		"the edit at the cheated spot was refused"
	)
	assert_eq(str(rejected.get(far_request, "")), "out of reach")
	assert_eq(server_world.get_voxel(far_spot), before, "nothing changed there")
	# Back where the server has it, an edit within reach goes through.
	c.set_local_pose(accepted, 0.0, 0.0)
	await wait_frames(5)
	var near_spot := Vector3i(
		floori(accepted.x) + 2, int(c_world.get_height(accepted.x + 2, 0.5)) + 1, 0
	)
	var near_request := c.request_edit(near_spot, stone)
	assert_true(near_request >= 0, c.last_error())
	assert_true(
		await wait_until(func() -> bool: return applied.has(near_request), 10.0),
		"the edit within reach of the accepted pose was applied: %s" % rejected
	)
	assert_eq(server_world.get_voxel(near_spot), stone, "the server's world holds it")


## The server sweeps the whole body, from the feet to the eye, not only the eye: a player lying
## down (eye 0.42 above the feet, as the demo's prone stance sends it) crawls under a ledge with a
## one-voxel gap unchallenged, and one that walks through a knee-high wall is moved back before
## it, though its eye passes over the wall. The course is built of stone in the host's world, in
## the air above the origin.
func test_the_body_is_swept_from_the_feet_to_the_eye() -> void:
	var preset := StrataWorldPreset.new()
	preset.seed = WORLD_SEED
	var server_world := _small_world(preset)
	var server := _sync(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	if not assert_true(await wait_until(server_world.is_area_ready, 60.0), "the host's world"):
		return
	var c := _sync(_world())
	assert_eq(c.join(HOST, _port, "crawler"), OK, c.last_error())
	if not assert_true(await wait_until(c.is_joined, 20.0), "joined: %s" % c.last_error()):
		return
	var corrected: Array[Vector3] = []
	c.pose_corrected.connect(func(p: Vector3, _y: float, _p: float) -> void: corrected.append(p))
	# A floor at y0 from x 0 to 13; a ceiling over x 3 and 4 leaving a one-voxel gap; at x 9 a
	# wall one voxel high under a ceiling that leaves a one-voxel gap over it. Wall and ceiling
	# span the server's whole way search (two voxels either side of the walk), so no way over or
	# round them exists, however far apart the poses arrive (a busy machine's slow frames): a
	# wall a body could jump or walk round would let poses that straddle it pass.
	var y0 := int(server_world.get_height(0, 0)) + 6
	var stone := default_block_id("stone")
	for x in range(0, 14):
		for z in range(-2, 3):
			if z >= -1 and z <= 1:
				server_world.set_voxel(Vector3i(x, y0, z), stone)
			if (x == 3 or x == 4) and z >= -1 and z <= 1:
				server_world.set_voxel(Vector3i(x, y0 + 2, z), stone)
			if x == 9:
				server_world.set_voxel(Vector3i(x, y0 + 1, z), stone)
				server_world.set_voxel(Vector3i(x, y0 + 3, z), stone)
	var feet_y := y0 + 1.0
	var walk := func(from_x: float, to_x: float, speed: float, eye_height: float) -> void:
		var start_ms := Time.get_ticks_msec()
		var x := from_x
		while x < to_x:
			x = minf(from_x + speed * (Time.get_ticks_msec() - start_ms) / 1000.0, to_x)
			c.set_local_pose(Vector3(x, feet_y + eye_height, 0.5), 0.0, 0.0, eye_height)
			await get_tree().process_frame
	# Lying down through the gap, then standing up beyond it.
	c.set_local_pose(Vector3(1.5, feet_y + 0.42, 0.5), 0.0, 0.0, 0.42)
	await wait_frames(10)
	await walk.call(1.5, 6.5, 2.0, 0.42)
	for i in 20:
		var eye_height := minf(0.42 + 0.1 * i, 1.62)
		c.set_local_pose(Vector3(6.5, feet_y + eye_height, 0.5), 0.0, 0.0, eye_height)
		await get_tree().process_frame
	await wait_frames(10)
	assert_eq(corrected, [] as Array[Vector3], "crawling under the ledge was never corrected")
	var stats := server.get_stats()
	assert_eq(int(stats["poses_refused"]), 0, "server refusals: %s" % stats)
	# Standing, through the knee-high wall: the eye passes over it (under the ceiling), the feet
	# do not.
	var resting_before := int(c.get_stats()["resting_poses_sent"])
	await walk.call(6.5, 12.5, 3.0, 1.62)
	# Moving poses travel unreliably, and a loaded machine's ENet throttle may drop most of them;
	# the pose the player stops at goes once more, reliably, so the server surely sees it.
	assert_true(
		await wait_until(
			func() -> bool: return int(c.get_stats()["resting_poses_sent"]) > resting_before, 2.0
		),
		"the pose the walk stopped at went reliably"
	)
	await wait_until(func() -> bool: return not corrected.is_empty(), 5.0)
	assert_gt(
		corrected.size(),
		0,
		"walking through the wall was corrected (server: %s)" % server.get_stats()
	)
	if corrected.is_empty():
		return
	var kept := corrected[corrected.size() - 1]
	assert_lt(kept.x, 9.5, "the server kept it before the wall: %s" % kept)
	# A body smaller than the server allows (`min_eye_height`, 0.4) is refused where it stands
	# (once the second after a correction, whose failing poses are taken as stale, is over).
	await get_tree().create_timer(1.2).timeout
	var before := corrected.size()
	c.set_local_pose(kept, 0.0, 0.0, 0.1)
	assert_true(
		await wait_until(func() -> bool: return corrected.size() > before, 5.0),
		"a body smaller than the smallest stance was corrected"
	)
	# The client refuses an eye height outside the protocol's bounds itself.
	c.set_local_pose(kept, 0.0, 0.0, 40.0)
	assert_true(c.last_error().contains("eye height 40"), c.last_error())


func test_honest_players_are_never_corrected() -> void:
	var server_world := _world()
	var server := _sync(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	var land := Bot.find_land(server_world, Vector2i(16, -36), SEA)
	var drop := Bot.find_land(server_world, Vector2i(28, -24), SEA)
	var sea := Bot.find_water(server_world, Vector2i(52, 16), SEA)
	for spot: Vector2i in [land, drop, sea]:
		if not assert_ne(
			spot.y, -99999, "spots to play at: land %s, drop %s, sea %s" % [land, drop, sea]
		):
			return
	var feet := func(c: Vector2i, above: float) -> Vector3:
		return Vector3(c.x + 0.5, server_world.get_height(c.x, c.y) + above, c.y + 0.5)
	var walker := _bot("walker", server)
	var faller := _bot("faller", server)
	var swimmer := _bot("swimmer", server)
	# Each joins and waits for its ground on its own; all three at once.
	var started := [0]
	var start := func(bot: Bot, at: Vector3) -> void:
		if await bot.start(_port, at):
			started[0] += 1
		else:
			fail(bot.error)
	start.call(walker, feet.call(land, 0.0))
	start.call(faller, feet.call(drop, Bot.FALL_HEIGHT))
	start.call(swimmer, Vector3(sea.x + 0.5, SEA - 2.0, sea.y + 0.5))
	if not assert_true(await wait_until(func() -> bool: return started[0] == 3, 120.0), "bots up"):
		return
	walker.run(
		[
			["walk", PHASE_S],
			["sprint", PHASE_S],
			["jump", PHASE_S],
			["crouch", PHASE_S],
			["lag", PHASE_S]
		]
	)
	faller.run([["fall", FALL_S]])
	swimmer.run([["swim", 5.0 * PHASE_S]])
	# The server stalls twice while they move: their poses of that time arrive at once.
	for i in 2:
		await get_tree().create_timer(3.0).timeout
		server.process_mode = Node.PROCESS_MODE_DISABLED
		await get_tree().create_timer(STALL_S).timeout
		server.process_mode = Node.PROCESS_MODE_INHERIT
	var bots: Array[Bot] = [walker, faller, swimmer]
	assert_true(
		await wait_until(
			func() -> bool: return bots.all(func(b: Bot) -> bool: return b.is_done()), 60.0
		),
		"the bots finished"
	)
	var stats := server.get_stats()
	for bot in bots:
		assert_eq(bot.error, "", bot.bot_name)
		for r in bot.results:
			print("       %s %s" % [bot.bot_name, Bot.describe(r)])
		assert_eq(bot.corrections(), 0, "%s corrected: %s" % [bot.bot_name, bot.correction_log])
	assert_eq(int(stats["pose_corrections"]), 0, "server corrections: %s" % stats)
	assert_eq(int(stats["poses_refused"]), 0, "server refusals: %s" % stats)
	# They did what they were meant to.
	var by_name := {}
	for bot in bots:
		for r in bot.results:
			by_name[r["behaviour"]] = r
	for b: String in by_name:
		assert_gt(int(by_name[b]["poses"]), 10, "%s sent its poses: %s" % [b, by_name[b]])
	assert_gt(
		float(by_name["walk"]["distance"]), 0.5 * 4.5 * PHASE_S, "walked: %s" % by_name["walk"]
	)
	assert_gt(float(by_name["sprint"]["distance"]), 0.5 * 7.5 * PHASE_S, "sprinted")
	assert_gt(int(by_name["jump"]["jumps"]), 1, "jumped again and again: %s" % by_name["jump"])
	assert_gt(float(by_name["crouch"]["low_s"]), 0.5 * PHASE_S, "crouched and lay down")
	assert_gt(float(by_name["fall"]["max_drop"]), 32.0, "fell 32 voxels: %s" % by_name["fall"])
	assert_gt(int(by_name["fall"]["teleports"]), 0, "and again from where the host put it")
	assert_gt(float(by_name["swim"]["water_s"]), 0.5 * 5.0 * PHASE_S, "swam: %s" % by_name["swim"])
	assert_gt(
		float(by_name["lag"]["held_s"]), 0.25 * PHASE_S, "the sends paused: %s" % by_name["lag"]
	)


## A respawn or a portal of the host's (`teleport_player`) while the player walks: the poses the
## client sent before it heard of the move are still on their way, and must not count as moves
## from the new spot. Here the host lifts the player 20 voxels right after a pose left the
## client. That pose, checked as a move from the new spot, is a fall of 20 voxels, within the
## falling budget: the server accepts it, which undoes the host's move, then refuses the next
## pose from up there as a rise of 20 and moves the player back to the ground. (The soak's and
## the honest test's `fall` bot go up safely: they stop and let their last pose arrive first.)
func test_a_player_the_host_moves_stays_where_the_host_put_it() -> void:
	var server_world := _world()
	var server := _sync(server_world)
	assert_eq(server.host(_port), OK, server.last_error())
	var land := Bot.find_land(server_world, Vector2i(16, -36), SEA)
	if not assert_ne(land.y, -99999, "land to walk on"):
		return
	var walker := _bot("walker", server)
	var ground := server_world.get_height(land.x, land.y)
	if not assert_true(
		await walker.start(_port, Vector3(land.x + 0.5, ground, land.y + 0.5)), walker.error
	):
		return
	walker.run([["walk", 5.0]])
	await get_tree().create_timer(1.5).timeout
	# Right after a pose left the client: it reaches the server after the move.
	var sent := walker.packets_sent()
	await wait_until(func() -> bool: return walker.packets_sent() != sent, 2.0)
	var up := walker.player.camera.global_position + Vector3.UP * 20.0
	walker.expect_teleport(up)
	assert_true(server.teleport_player(walker.session.sync.get_local_player_id(), up, 0.0, 0.0))
	assert_true(await wait_until(walker.is_done, 20.0), "walked on")
	assert_eq(
		walker.corrections(), 0, "moved back after the host's move: %s" % walker.correction_log
	)
	var stats := server.get_stats()
	assert_eq(int(stats["pose_corrections"]), 0, "server corrections: %s" % stats)
	assert_eq(int(stats["poses_refused"]), 0, "server refusals: %s" % stats)
