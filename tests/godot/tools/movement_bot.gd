## A bot that plays the demo's player honestly in a shared world, for the server's movement
## checks: `suites/test_movement_checks.gd` runs it for seconds, `cargo xtask movement-soak`
## (`tools/movement_soak.gd`) for minutes. It joins a server with a StrataChunkWorld of its own,
## moves the demo's body (res://game/player.tscn: StrataPlayer, its speeds, gravity, stances and
## swimming) by pressing the demo's input actions, and sends the player's eye every frame through
## the demo's NetSession, as the game does. It counts the `pose_corrected` signals the server
## sends it, apart from the moves it asked the host for (`fall` going up again).
##
## Behaviours, one a phase (`run`): walk, sprint, jump (held: hop after hop while sprinting),
## crouch (crouching, lying down and standing by turns while walking), fall (dropped
## FALL_HEIGHT voxels onto the ground, again and again while time is left), swim (forward, up
## and sinking by turns), lag (sprint-jumping while the pose sends pause LAG_HOLD_S at a time).
## Every moving behaviour turns as it goes, so the bot circles where its chunks are loaded, and
## turns away from a step or a wall that stops it.
##
## Several bots may run in one process. The demo's player reads the global `Input`: each bot
## presses its actions in its own `_physics_process`, which runs just before its player's (a
## parent's physics callback runs before its children's, and bots do not nest), and a bot that
## is not moving releases them there, so no bot moves another's player.
extends Node

## Every phase ended (or the bot could not play): see `results`.
signal finished

## The behaviours `run` knows.
const BEHAVIOURS: Array[String] = ["walk", "sprint", "jump", "crouch", "fall", "swim", "lag"]
## The actions the bot presses; all of them are set every physics frame.
const ACTIONS: Array[String] = ["move_forward", "sprint", "jump", "crouch"]
const PLAYER_SCENE := preload("res://game/player.tscn")
const HOST := "127.0.0.1"
## Radians a second the bot turns while it moves: circles 7 to 13 voxels across at walking
## and sprinting speed.
const TURN_RATE := 0.6
## Seconds between two quarter turns away from a wall.
const WALL_TURN_S := 0.4
## `lag`: the pose sends pause this long, at the start of every LAG_PERIOD_S.
const LAG_HOLD_S := 0.4
const LAG_PERIOD_S := 1.2
## `fall`: how far above the ground the feet are dropped from.
const FALL_HEIGHT := 34.0
## `fall`: seconds on the ground before going up again, and the time a fall needs (going up,
## streaming, 1.8 s of free fall, landing), so a phase ends on the ground.
const FALL_REST_S := 0.5
const FALL_CYCLE_S := 5.0
## Seconds to join, and to stream the world around a new spot.
const JOIN_TIMEOUT_S := 60.0
const AREA_TIMEOUT_S := 90.0

## The name the bot joins as.
var bot_name := "bot"
var world: StrataChunkWorld
var player: StrataPlayer
var session: NetSession
## How the host moves this bot (`fall` going up again): `func(player_id: int, eye: Vector3)
## -> bool`, the host's `StrataWorldSync.teleport_player` with a yaw and pitch of 0.
var host_teleport: Callable
## One per phase run: `behaviour`, `seconds` (physics time), `poses` (changed poses handed to
## `set_local_pose`), `packets` (packets the client sent), `corrections` (pose_corrected not
## asked for), `teleports` (moves asked of the host), and what the body did: `distance`
## (horizontal voxels), `jumps`, `max_drop` (the longest fall, voxels), `water_s` (seconds in
## water), `low_s` (seconds crouching or prone), `held_s` (seconds the pose sends paused).
var results: Array[Dictionary] = []
## Every correction: what the bot was doing, where it was, where the server put it.
var correction_log: PackedStringArray = []
## Why the bot could not start or go on ("" while all is well).
var error := ""
## Whether `start` stood the player on its spot: its poses go to the server.
var standing := false

var _phases: Array = []
var _phase := -1
var _phase_t := 0.0
## The eye `_rise` asked the host to move the player to (INF: none expected).
var _expected_teleport := Vector3.INF
## `fall`: going up (frozen until the host moved it and the ground below is loaded).
var _rising := false
## `fall`: seconds the player has stood on the ground since it last landed.
var _grounded_s := 0.0
## The last pose handed to the server, and the client's packet count at the phase's start.
var _last_eye := Vector3.INF
var _last_yaw := 0.0
var _packets_at_start := 0
## The body last physics frame: where its feet were, whether on the floor, the top of its
## flight since it left the floor.
var _last_feet := Vector3.INF
var _was_on_floor := true
var _flight_top := -INF
## When, in phase time, the bot last turned away from a wall.
var _turned_at := -INF


## Joins the server at 127.0.0.1:`port` and stands the player with its feet at `feet` (x and z
## of a column, y the height: on the ground, above it to fall, or in water) once the world
## there is loaded; from then on its poses go to the server. False, with `error`, when that
## fails.
func start(port: int, feet: Vector3) -> bool:
	world = StrataChunkWorld.new()
	world.name = "World"
	world.view_distance = 1
	world.vertical_view_distance = 2
	world.collision_distance = 2
	world.far_view_levels = 0
	world.frame_budget_ms = 4.0
	add_child(world)
	player = PLAYER_SCENE.instantiate()
	player.name = "Player"
	# Still until its ground is loaded, and no body for the other bots to bump into.
	player.process_mode = Node.PROCESS_MODE_DISABLED
	player.collision_layer = 0
	player.position = feet
	add_child(player)
	player.set_world(world)
	world.viewer = world.get_path_to(player)
	session = NetSession.new()
	session.name = "NetSession"
	add_child(session)
	session.setup(world, player, bot_name)
	session.sync.pose_corrected.connect(_on_pose_corrected)
	error = session.join(HOST, port)
	if error != "":
		return false
	if not await _wait(session.is_joined, JOIN_TIMEOUT_S):
		error = "%s did not join: %s" % [bot_name, session.sync.last_error()]
		return false
	# The world now streams the server's preset around the spot.
	player.position = feet
	if not await _wait(_ground_loaded, AREA_TIMEOUT_S):
		error = "%s: the world around %s never loaded" % [bot_name, feet]
		return false
	player.process_mode = Node.PROCESS_MODE_INHERIT
	# The first pose is where the server puts the player (its spawn).
	session.sends_poses = true
	standing = true
	return true


## Runs `phases`, `[[behaviour, seconds], …]`, one after the other; `finished` follows.
func run(phases: Array) -> void:
	_phases = phases
	_phase = -1
	_next_phase()


## Whether `run`'s phases are over.
func is_done() -> bool:
	return _phase >= _phases.size()


## The host is about to move the player's eye to `eye`: the `pose_corrected` telling of it is
## not counted as a correction.
func expect_teleport(eye: Vector3) -> void:
	_expected_teleport = eye


## Corrections over every phase.
func corrections() -> int:
	var n := 0
	for r in results:
		n += int(r["corrections"])
	return n


## One line of a phase's figures (`results`).
static func describe(r: Dictionary) -> String:
	return (
		(
			"%s: %.1f s, %d poses, %d packets, %d corrections, %d teleports; %.1f voxels, %d jumps, "
			% [
				r["behaviour"],
				r["seconds"],
				r["poses"],
				r["packets"],
				r["corrections"],
				r["teleports"],
				r["distance"],
				r["jumps"],
			]
		)
		+ (
			"longest fall %.1f, %.1f s in water, %.1f s low, %.1f s of sends held"
			% [r["max_drop"], r["water_s"], r["low_s"], r["held_s"]]
		)
	)


## The client's packets sent so far.
func packets_sent() -> int:
	return int(session.sync.get_stats().get("packets_sent", 0))


## The flattest column within 32 voxels of `around` (the least difference in height within
## `margin` of it, on a grid of 4) whose ground lies above `sea_level` all round, or
## Vector2i(0, -99999) when there is none.
static func find_land(
	w: StrataChunkWorld, around: Vector2i, sea_level: int, margin := 4
) -> Vector2i:
	var best := Vector2i(0, -99999)
	var best_spread := INF
	for dz in range(-32, 33, 4):
		for dx in range(-32, 33, 4):
			var c := around + Vector2i(dx, dz)
			var spread := _spread(w, c, sea_level, margin)
			if spread < best_spread:
				best = c
				best_spread = spread
	return best


## A column near `around` whose water reaches at least `depth` below `sea_level`, with as
## deep water within `margin` all round; Vector2i(0, -99999) when none is within 64 voxels.
static func find_water(
	w: StrataChunkWorld, around: Vector2i, sea_level: int, depth := 6, margin := 8
) -> Vector2i:
	var water := w.get_block_id("water")
	for r in range(0, 64, 4):
		for dz in range(-r, r + 1, 4):
			for dx in range(-r, r + 1, 4):
				var c := around + Vector2i(dx, dz)
				var deep := true
				for oz in range(-margin, margin + 1, margin):
					for ox in range(-margin, margin + 1, margin):
						var bottom := Vector3i(c.x + ox, sea_level - depth, c.y + oz)
						deep = deep and w.get_voxel(bottom) == water
				if deep:
					return c
	return Vector2i(0, -99999)


## The difference between the highest and the lowest ground within `margin` of column `c`;
## INF where the ground there reaches down to `sea_level`.
static func _spread(w: StrataChunkWorld, c: Vector2i, sea_level: int, margin: int) -> float:
	var lo := INF
	var hi := -INF
	for z in range(c.y - margin, c.y + margin + 1):
		for x in range(c.x - margin, c.x + margin + 1):
			var h := w.get_height(x, z)
			if h <= sea_level + 1:
				return INF
			lo = minf(lo, h)
			hi = maxf(hi, h)
	return hi - lo


func _physics_process(delta: float) -> void:
	if _phase < 0 or is_done():
		_press({})
		return
	var behaviour: String = _phases[_phase][0]
	_measure(delta)
	_drive(behaviour, _phase_t, delta)
	_phase_t += delta
	if _phase_t >= float(_phases[_phase][1]) and not _rising:
		_end_phase()


func _process(_delta: float) -> void:
	if session == null or not session.sends_poses or not session.is_joined():
		return
	# What NetSession hands to set_local_pose this frame.
	var eye := player.camera.global_position
	if eye != _last_eye or player.rotation.y != _last_yaw:
		_last_eye = eye
		_last_yaw = player.rotation.y
		if _phase >= 0 and not is_done():
			results[_phase]["poses"] = int(results[_phase]["poses"]) + 1


## Adds what the body did since the last physics frame to the phase's figures.
func _measure(delta: float) -> void:
	var r := results[_phase]
	var feet := player.global_position
	var on_floor := player.is_on_floor()
	if _rising:
		_last_feet = Vector3.INF
		_was_on_floor = on_floor
		_flight_top = -INF
		return
	if _last_feet != Vector3.INF:
		r["distance"] = (
			float(r["distance"]) + Vector2(feet.x - _last_feet.x, feet.z - _last_feet.z).length()
		)
	if on_floor or player.in_water:
		if _flight_top > -INF:
			r["max_drop"] = maxf(float(r["max_drop"]), _flight_top - feet.y)
		_flight_top = -INF
	else:
		_flight_top = maxf(_flight_top, feet.y)
		if _was_on_floor and player.velocity.y > 0.0:
			r["jumps"] = int(r["jumps"]) + 1
	if player.in_water:
		r["water_s"] = float(r["water_s"]) + delta
	if player.stance != StrataPlayer.Stance.STAND:
		r["low_s"] = float(r["low_s"]) + delta
	if not session.sends_poses:
		r["held_s"] = float(r["held_s"]) + delta
	_last_feet = feet
	_was_on_floor = on_floor


## Presses exactly the actions in `held` (the others released).
func _press(held: Dictionary) -> void:
	for a in ACTIONS:
		if held.has(a):
			Input.action_press(a)
		else:
			Input.action_release(a)


## This frame's input of `behaviour`, `t` seconds into its phase.
func _drive(behaviour: String, t: float, delta: float) -> void:
	var held := {}
	match behaviour:
		"walk":
			held = {"move_forward": true}
		"sprint":
			held = {"move_forward": true, "sprint": true}
		"jump":
			held = {"move_forward": true, "sprint": true, "jump": true}
		"crouch":
			# Of every 3 s: 1 crouching, 1 lying down, 1 standing (as far as there is room).
			held = {"move_forward": true}
			var part := fmod(t, 3.0)
			if part < 1.0:
				held["crouch"] = true
			var lying := part >= 1.0 and part < 2.0
			if lying != (player.stance == StrataPlayer.Stance.PRONE):
				player.toggle_prone()
		"fall":
			_drive_fall(delta)
		"swim":
			held = {"move_forward": true}
			if fmod(t, 4.0) < 2.0:
				held["sprint"] = true
			if fmod(t, 2.5) < 1.5:
				held["jump"] = true
		"lag":
			held = {"move_forward": true, "sprint": true, "jump": true}
			session.sends_poses = fmod(t, LAG_PERIOD_S) >= LAG_HOLD_S
	if behaviour != "fall":
		# Turning as a mouse would, and away from a wall or a step that stops it (the demo's
		# player climbs a step only by jumping before it gets there).
		var turn := TURN_RATE * delta
		if player.is_on_wall() and _phase_t - _turned_at >= WALL_TURN_S:
			turn += PI * 0.5
			_turned_at = _phase_t
		player.rotation.y = wrapf(player.rotation.y + turn, -PI, PI)
	_press(held)


## `fall`: rests on the ground after landing, then goes up FALL_HEIGHT again while the phase
## has time for another fall.
func _drive_fall(delta: float) -> void:
	if _rising:
		return
	_grounded_s = _grounded_s + delta if player.is_on_floor() else 0.0
	var left := float(_phases[_phase][1]) - _phase_t
	if _grounded_s >= FALL_REST_S and left >= FALL_CYCLE_S and host_teleport.is_valid():
		_rise()


## Asks the host to move the player FALL_HEIGHT up. The player stops and its poses pause first,
## and the host moves it only once the client's last packet reached the server: a pose still on
## its way would count as a move from the new spot (a fall back down the same height), and
## undo the host's move.
func _rise() -> void:
	_rising = true
	session.sends_poses = false
	player.process_mode = Node.PROCESS_MODE_DISABLED
	var sent := packets_sent()
	# The next packet out is the keepalive of the pose it stands at (at most a second away).
	await _wait(func() -> bool: return packets_sent() != sent, 2.0)
	for i in 3:
		await get_tree().process_frame
	var ground := world.get_height(player.global_position.x, player.global_position.z)
	var eye := player.camera.global_position
	eye.y = ground + FALL_HEIGHT + (eye.y - player.global_position.y)
	expect_teleport(eye)
	if not host_teleport.call(session.sync.get_local_player_id(), eye):
		error = "%s: the host could not move the player to %s" % [bot_name, eye]
	elif not await _wait(func() -> bool: return _expected_teleport == Vector3.INF, 10.0):
		error = "%s: the host's move to %s never reached the client" % [bot_name, eye]
	else:
		results[_phase]["teleports"] = int(results[_phase]["teleports"]) + 1
	await _wait(_ground_loaded, AREA_TIMEOUT_S)
	_expected_teleport = Vector3.INF
	_grounded_s = 0.0
	player.process_mode = Node.PROCESS_MODE_INHERIT
	session.sends_poses = true
	_rising = false


func _next_phase() -> void:
	_phase += 1
	_phase_t = 0.0
	_grounded_s = 0.0
	session.sends_poses = true
	# Every phase starts standing (a crouch phase may end lying down).
	if player.stance == StrataPlayer.Stance.PRONE:
		player.toggle_prone()
	if is_done():
		_press({})
		finished.emit()
		return
	_packets_at_start = packets_sent()
	_last_feet = Vector3.INF
	_flight_top = -INF
	(
		results
		. append(
			{
				"behaviour": str(_phases[_phase][0]),
				"seconds": 0.0,
				"poses": 0,
				"packets": 0,
				"corrections": 0,
				"teleports": 0,
				"distance": 0.0,
				"jumps": 0,
				"max_drop": 0.0,
				"water_s": 0.0,
				"low_s": 0.0,
				"held_s": 0.0,
			}
		)
	)


func _end_phase() -> void:
	results[_phase]["seconds"] = _phase_t
	results[_phase]["packets"] = packets_sent() - _packets_at_start
	_next_phase()


func _on_pose_corrected(eye: Vector3, _yaw: float, _pitch: float) -> void:
	if _expected_teleport != Vector3.INF and eye.distance_to(_expected_teleport) < 0.01:
		_expected_teleport = Vector3.INF
		return
	var doing := "before its phases"
	if _phase >= 0 and not is_done():
		results[_phase]["corrections"] = int(results[_phase]["corrections"]) + 1
		doing = "%s at %.2f s" % [_phases[_phase][0], _phase_t]
	var away := _last_eye.distance_to(eye) if _last_eye != Vector3.INF else -1.0
	var body := (
		"velocity %s, on floor %s, in water %s, stance %d"
		% [player.velocity, player.is_on_floor(), player.in_water, player.stance]
	)
	correction_log.append(
		(
			"%s (%s): sent eye %s, moved back to %s (%.2f away); %s"
			% [bot_name, doing, _last_eye, eye, away, body]
		)
	)


## Whether the world around the player is loaded and a ray finds ground (collision) below its
## feet within FALL_HEIGHT + 8 voxels.
func _ground_loaded() -> bool:
	if not world.is_area_ready():
		return false
	var from := player.global_position + Vector3.UP
	var to := player.global_position + Vector3.DOWN * (FALL_HEIGHT + 8.0)
	var query := PhysicsRayQueryParameters3D.create(from, to)
	return not player.get_world_3d().direct_space_state.intersect_ray(query).is_empty()


## Waits until `predicate.call()` is true or `timeout_s` passes; returns whether it became true.
func _wait(predicate: Callable, timeout_s: float) -> bool:
	var deadline := Time.get_ticks_msec() + int(timeout_s * 1000.0)
	while not predicate.call():
		if Time.get_ticks_msec() > deadline:
			return false
		await get_tree().process_frame
	return true
