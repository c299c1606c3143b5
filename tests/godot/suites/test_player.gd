## The demo game's player, driven by synthetic input: walking, jumping, stances, low ceilings,
## and digging/placing in a real StrataChunkWorld.
extends StrataTestCase

const PLAYER := preload("res://game/player.tscn")
const GAME_SCENE := "res://game/world.tscn"

var root: Node3D
var player: StrataPlayer


func before_each() -> void:
	# Whatever a suite before this one left held (an action, a stick) is let go first.
	_release_inputs()
	root = Node3D.new()
	add_child(root)
	_add_box(Vector3(0, -0.5, 0), Vector3(200, 1, 200))  # flat floor, top at y = 0
	player = PLAYER.instantiate()
	root.add_child(player)
	player.global_position = Vector3(0, 0.05, 0)
	await _physics_frames(5)


func after_each() -> void:
	_release_inputs()
	await get_tree().process_frame
	if is_instance_valid(root):
		root.queue_free()
	await get_tree().process_frame


func _add_box(center: Vector3, size: Vector3) -> StaticBody3D:
	var body := StaticBody3D.new()
	var cs := CollisionShape3D.new()
	var box := BoxShape3D.new()
	box.size = size
	cs.shape = box
	body.add_child(cs)
	root.add_child(body)
	body.global_position = center
	return body


func _physics_frames(n: int) -> void:
	for i in n:
		await get_tree().physics_frame


func _tap(action: String) -> void:
	var e := InputEventAction.new()
	e.action = action
	e.pressed = true
	Input.parse_input_event(e)
	await _physics_frames(1)
	var r := InputEventAction.new()
	r.action = action
	r.pressed = false
	Input.parse_input_event(r)
	await _physics_frames(2)


func _horizontal(v: Vector3) -> Vector2:
	return Vector2(v.x, v.z)


## Every stick centred and every action of the game released.
func _release_inputs() -> void:
	for axis in JOY_AXIS_SDL_MAX:
		_pad_axis(axis as JoyAxis, 0.0)
	for a in GameState.ACTIONS:
		Input.action_release(a)


## Feeds a gamepad stick or trigger position (device 0), as a real gamepad would, at once (the
## input buffer flushed).
func _pad_axis(axis: JoyAxis, value: float) -> void:
	var e := InputEventJoypadMotion.new()
	e.axis = axis
	e.axis_value = value
	Input.parse_input_event(e)
	Input.flush_buffered_events()


## Feeds a gamepad button press or release (device 0), at once.
func _pad_button(button: JoyButton, pressed: bool) -> void:
	var e := InputEventJoypadButton.new()
	e.button_index = button
	e.pressed = pressed
	e.pressure = 1.0 if pressed else 0.0
	Input.parse_input_event(e)
	Input.flush_buffered_events()


## Feeds a key press, then its release, to the player's input handling.
func _press_key(code: Key) -> void:
	var e := InputEventKey.new()
	e.physical_keycode = code
	e.pressed = true
	Input.parse_input_event(e)
	await get_tree().process_frame
	var r := InputEventKey.new()
	r.physical_keycode = code
	Input.parse_input_event(r)
	await get_tree().process_frame


func test_every_action_has_a_gamepad_input_that_presses_it() -> void:
	var checked := 0
	for action in GameState.ACTIONS:
		var pads: Array[InputEvent] = []
		for e in InputMap.action_get_events(action):
			if KeyBindings.is_pad_event(e):
				pads.append(e)
		if action.begins_with("hotbar_") and action.trim_prefix("hotbar_").is_valid_int():
			# Nine direct slots do not fit a gamepad; it cycles with hotbar_next/_previous.
			assert_eq(pads.size(), 0, "%s: keyboard only" % action)
			continue
		if not assert_eq(pads.size(), 1, "%s has one gamepad input" % action):
			continue
		var motion := pads[0] as InputEventJoypadMotion
		var button := pads[0] as InputEventJoypadButton
		if motion != null:
			_pad_axis(motion.axis, motion.axis_value)
		else:
			_pad_button(button.button_index, true)
		await get_tree().process_frame
		assert_true(Input.is_action_pressed(action), "%s pressed by %s" % [action, pads[0]])
		assert_near(Input.get_action_strength(action), 1.0, 1e-4, "%s at full strength" % action)
		if motion != null:
			_pad_axis(motion.axis, 0.0)
		else:
			_pad_button(button.button_index, false)
		await get_tree().process_frame
		assert_false(Input.is_action_pressed(action), "%s released" % action)
		checked += 1
	assert_eq(checked, GameState.ACTIONS.size() - 9, "every action but the nine slots checked")


func test_the_gamepad_walks_and_jumps() -> void:
	player.rotate_y(deg_to_rad(90.0))  # facing -X
	var start := player.global_position
	_pad_axis(JOY_AXIS_LEFT_Y, -1.0)  # left stick pushed forward
	await _physics_frames(30)
	var moved := _horizontal(player.global_position - start)
	assert_gt(moved.length(), 1.0, "the left stick walks")
	assert_gt(moved.normalized().dot(Vector2(-1, 0)), 0.99, "forward, where the player faces")
	_pad_axis(JOY_AXIS_LEFT_Y, 0.1)  # a resting stick, inside the deadzone
	await _physics_frames(3)
	assert_near(_horizontal(player.velocity).length(), 0.0, 1e-4, "a resting stick stands still")
	assert_true(player.is_on_floor(), "on the floor")
	_pad_button(JOY_BUTTON_A, true)
	await _physics_frames(3)
	_pad_button(JOY_BUTTON_A, false)
	assert_gt(player.velocity.y, 0.0, "A jumps")
	assert_gt(player.global_position.y, 0.05, "off the floor")


func test_the_right_stick_turns_the_view() -> void:
	player.set_process(false)
	var yaw := player.rotation.y
	var pitch := player.head.rotation.x
	_pad_axis(JOY_AXIS_RIGHT_X, 0.15)  # inside the look actions' deadzone
	await get_tree().process_frame
	player.stick_look(0.5)
	assert_eq(player.rotation.y, yaw, "a stick inside the deadzone turns nothing")
	_pad_axis(JOY_AXIS_RIGHT_X, 1.0)
	await get_tree().process_frame
	player.stick_look(0.5)
	assert_near(
		player.rotation.y - yaw,
		-deg_to_rad(player.stick_look_speed * 0.5),
		1e-4,
		"pushed right all the way, it turns right at stick_look_speed"
	)
	assert_near(player.head.rotation.x, pitch, 1e-6, "no pitch from a sideways push")
	_pad_axis(JOY_AXIS_RIGHT_X, 0.0)
	_pad_axis(JOY_AXIS_RIGHT_Y, -1.0)
	await get_tree().process_frame
	yaw = player.rotation.y
	player.stick_look(0.2)
	assert_near(
		player.head.rotation.x - pitch,
		deg_to_rad(player.stick_look_speed * 0.2),
		1e-4,
		"pushed up, it looks up"
	)
	assert_near(player.rotation.y, yaw, 1e-6, "no turn from an upward push")
	# Live: with processing on, a held stick keeps turning frame after frame.
	_pad_axis(JOY_AXIS_RIGHT_Y, 0.0)
	_pad_axis(JOY_AXIS_RIGHT_X, -1.0)
	player.set_process(true)
	await wait_frames(5)
	assert_gt(player.rotation.y - yaw, deg_to_rad(1.0), "held left, the player turns left")
	player.input_enabled = false
	var held := player.rotation.y
	await wait_frames(3)
	assert_eq(player.rotation.y, held, "no stick look while input is off")


func test_hotbar_actions_choose_the_block() -> void:
	assert_eq(player.selected_block, 0, "first slot at start")
	await _press_key(KEY_3)
	assert_eq(player.selected_block, 2, "hotbar_3 (the 3 key) chooses the third block")
	await _press_key(KEY_9)
	assert_eq(player.selected_block, 8, "hotbar_9")
	# From released: a button an earlier suite left down would not press again.
	_pad_button(JOY_BUTTON_RIGHT_SHOULDER, false)
	await get_tree().process_frame
	_pad_button(JOY_BUTTON_RIGHT_SHOULDER, true)
	await get_tree().process_frame
	_pad_button(JOY_BUTTON_RIGHT_SHOULDER, false)
	await get_tree().process_frame
	assert_eq(player.selected_block, 0, "RB (hotbar_next) wraps round to the first")
	var wheel := InputEventMouseButton.new()
	wheel.button_index = MOUSE_BUTTON_WHEEL_UP
	wheel.pressed = true
	Input.parse_input_event(wheel)
	await get_tree().process_frame
	var wheel_end := InputEventMouseButton.new()
	wheel_end.button_index = MOUSE_BUTTON_WHEEL_UP
	Input.parse_input_event(wheel_end)
	await get_tree().process_frame
	assert_eq(player.selected_block, 8, "the wheel up (hotbar_previous) wraps back to the last")


func test_walks_forward_in_the_facing_direction() -> void:
	player.rotate_y(deg_to_rad(90.0))  # now facing -X
	var facing := player.get_facing()
	assert_near(facing.x, -1.0, 1e-3, "facing after turning")
	assert_true(player.is_on_floor(), "starts on the floor")
	var start := player.global_position
	Input.action_press("move_forward")
	await _physics_frames(30)
	Input.action_release("move_forward")
	var moved := player.global_position - start
	moved.y = 0.0
	assert_gt(moved.length(), 1.0, "walked some distance in 0.5 s")
	assert_gt(moved.normalized().dot(facing), 0.99, "walked where it faces")
	# Sprinting is faster than walking.
	var s0 := player.global_position
	Input.action_press("move_forward")
	Input.action_press("sprint")
	await _physics_frames(30)
	Input.action_release("sprint")
	Input.action_release("move_forward")
	assert_gt(
		(player.global_position - s0).length(), moved.length() * 1.3, "sprint covers more ground"
	)


func test_jump_rises_and_lands_with_unchanged_horizontal_speed() -> void:
	Input.action_press("move_forward")
	await _physics_frames(10)
	Input.action_press("jump")
	var left_floor := false
	for i in 10:
		await _physics_frames(1)
		if not player.is_on_floor():
			left_floor = true
			break
	Input.action_release("jump")
	assert_true(left_floor, "the jump left the floor")
	var v0 := _horizontal(player.velocity)
	assert_gt(v0.length(), 1.0, "was moving when it jumped")
	# Let go of forward and turn: neither may change the horizontal velocity in the air.
	Input.action_release("move_forward")
	Input.action_press("move_left")
	var top := player.global_position.y
	var frames := 0
	var max_dv := 0.0
	while not player.is_on_floor() and frames < 240:
		await _physics_frames(1)
		frames += 1
		top = maxf(top, player.global_position.y)
		if not player.is_on_floor():
			max_dv = maxf(max_dv, (_horizontal(player.velocity) - v0).length())
	Input.action_release("move_left")
	assert_gt(top, 1.0, "rose above one voxel")
	assert_true(player.is_on_floor(), "landed again")
	assert_near(player.global_position.y, 0.0, 0.05, "landed on the floor")
	assert_near(max_dv, 0.0, 1e-4, "horizontal velocity unchanged in the air")
	# Airtime of a constant-gravity jump: 2 v / g.
	var expected := 2.0 * player.jump_velocity / player.gravity
	assert_near(
		frames / float(Engine.physics_ticks_per_second),
		expected,
		0.1,
		"airtime matches constant gravity"
	)


func test_crouch_and_prone_shrink_the_shape_and_lower_the_camera() -> void:
	var stand_h := player.get_shape_height()
	assert_near(stand_h, 1.8, 1e-4, "standing height")
	Input.action_press("crouch")
	await _physics_frames(40)
	assert_near(player.get_shape_height(), 1.3, 1e-4, "crouching height")
	assert_lt(player.get_eye_height(), 1.3, "camera lowered when crouching")
	Input.action_release("crouch")
	await _physics_frames(40)
	assert_near(player.get_shape_height(), stand_h, 1e-4, "stands up again")
	await _tap("prone")
	await _physics_frames(40)
	assert_eq(player.stance, StrataPlayer.Stance.PRONE, "prone after pressing prone")
	assert_near(player.get_shape_height(), 0.6, 1e-4, "prone height")
	assert_lt(player.get_eye_height(), 0.6, "camera near the ground when prone")
	# Prone is slow.
	var s0 := player.global_position
	Input.action_press("move_forward")
	await _physics_frames(60)
	Input.action_release("move_forward")
	var d := (player.global_position - s0).length()
	assert_gt(d, 0.3, "can crawl")
	assert_lt(d, 1.5, "crawling is slow")
	await _tap("prone")
	await _physics_frames(5)
	assert_near(player.get_shape_height(), stand_h, 1e-4, "stands up from prone")


func test_cannot_stand_up_under_a_low_ceiling() -> void:
	await _tap("prone")
	assert_near(player.get_shape_height(), 0.6, 1e-4, "prone")
	# A slab whose underside is 1.0 above the floor: room for prone only.
	var ceiling := _add_box(player.global_position + Vector3(0, 1.25, 0), Vector3(4, 0.5, 4))
	await _physics_frames(2)
	await _tap("prone")
	await _physics_frames(10)
	assert_near(player.get_shape_height(), 0.6, 1e-4, "still prone under a 1.0 ceiling")
	Input.action_press("crouch")
	await _physics_frames(5)
	assert_near(player.get_shape_height(), 0.6, 1e-4, "cannot even crouch under a 1.0 ceiling")
	Input.action_release("crouch")
	# Raise the ceiling to 1.5: crouching fits, standing does not.
	ceiling.global_position.y += 0.5
	await _physics_frames(5)
	assert_near(player.get_shape_height(), 1.3, 1e-4, "gets up as far as crouching")
	assert_eq(player.stance, StrataPlayer.Stance.CROUCH, "crouching under a 1.5 ceiling")
	ceiling.queue_free()
	await _physics_frames(5)
	assert_near(player.get_shape_height(), 1.8, 1e-4, "stands once the ceiling is gone")


func test_walks_digs_and_places_in_a_chunk_world() -> void:
	root.queue_free()
	await get_tree().process_frame
	root = Node3D.new()
	add_child(root)
	var world: StrataChunkWorld = StrataChunkWorld.new()
	world.preset = StrataWorldPreset.new()
	world.view_distance = 2
	world.vertical_view_distance = 2
	world.collision_distance = 1
	root.add_child(world)
	player = PLAYER.instantiate()
	root.add_child(player)
	player.set_world(world)
	world.viewer = world.get_path_to(player)
	var h := world.get_height(8.5, 8.5)
	player.global_position = Vector3(8.5, h + 0.1, 8.5)
	player.input_enabled = false
	# Held still until the ground has its collision (as the game spawns a player), however
	# long the area takes on a busy machine.
	player.set_physics_process(false)
	var ready := await wait_until(func(): return world.is_area_ready(), 60.0)
	assert_true(ready, "area around the player loads")
	player.global_position = Vector3(8.5, h + 0.1, 8.5)
	player.set_physics_process(true)
	player.input_enabled = true
	await _physics_frames(30)
	assert_true(player.is_on_floor(), "stands on the terrain's collision")
	assert_gt(player.global_position.y, h - 1.5, "did not fall through the terrain")
	# Aim at the top face of the surface voxel two columns ahead and dig it.
	var px := floori(player.global_position.x)
	var pz := floori(player.global_position.z)
	var cx := px + 2
	var top := int(world.get_height(cx + 0.5, pz + 0.5))
	var cell := Vector3i(cx, top - 1, pz)
	_aim_at(Vector3(cell) + Vector3(0.5, 1.0, 0.5))
	await _physics_frames(1)
	assert_true(player.target.get("hit", false), "the view ray hits the ground")
	assert_eq(player.target.get("cell"), cell, "target is the aimed voxel")
	assert_true(player.highlight.visible, "target cell highlighted")
	assert_near(
		player.highlight.global_position.distance_to(Vector3(cell) + Vector3(0.5, 0.5, 0.5)),
		0.0,
		1e-3,
		"highlight on the target cell"
	)
	assert_true(player.dig(), "dig")
	assert_eq(world.get_voxel(cell), 0, "dug voxel is air")
	# Aim into the hole again: the ray now ends below it, and placing fills the hole.
	_aim_at(Vector3(cell) + Vector3(0.5, 0.9, 0.5))
	await _physics_frames(1)
	assert_eq(player.target.get("previous"), cell, "the empty cell before the hit is the hole")
	player.selected_block = 0
	assert_true(player.place(), "place")
	assert_eq(world.get_voxel(cell), default_block_id("stone"), "placed stone in the hole")
	# The new blocks of the library come from the hotbar too: dig again, place a torch.
	assert_true(player.dig(), "dig the stone")
	await _physics_frames(1)
	player.selected_block = StrataPlayer.HOTBAR.find("torch")
	assert_true(player.place(), "place a torch")
	assert_eq(world.get_voxel(cell), world.get_block_id("torch"), "a torch in the hole")
	assert_eq(world.get_block_light(cell), 14, "and it glows")


func _aim_at(p: Vector3) -> void:
	var eye := player.camera.global_position
	var to := p - eye
	player.rotation.y = atan2(-to.x, -to.z)
	player.head.rotation.x = atan2(to.y, Vector2(to.x, to.z).length())


func test_game_spawns_on_dry_ground_and_a_save_restores_the_player() -> void:
	root.queue_free()
	await get_tree().process_frame
	root = Node3D.new()
	add_child(root)
	GameState.pending = {
		"preset_path": GameState.DEFAULT_PRESET,
		"seed": 12345,
		"day_length_s": 120.0,
		"continue": false
	}
	var game: Node = load(GAME_SCENE).instantiate()
	root.add_child(game)
	await wait_frames(2)
	var w: StrataChunkWorld = game.world
	var p: Vector3 = game.player.global_position
	var h := w.get_height(p.x, p.z)
	assert_near(p.y, h + 0.05, 1e-3, "spawn stands on the surface")
	assert_gt(h, game.setup.sea_level, "spawn is above the sea")
	var feet := Vector3i(floori(p.x), floori(p.y), floori(p.z))
	for dy in 2:
		assert_eq(w.get_voxel(feet + Vector3i(0, dy, 0)), 0, "air for the body at +%d" % dy)
	var ground := w.get_voxel(feet - Vector3i(0, 1, 0))
	assert_ne(ground, default_block_id("water"), "not standing in water")
	assert_ne(ground, 0, "standing on something solid")
	assert_eq(game.day_night.period_s, 120.0, "day length from the new-world settings")
	# Save (keeping whatever save the player had), then continue from it.
	var backups := {}
	for f in [WorldSave.PATH]:
		backups[f] = (
			FileAccess.get_file_as_bytes(f) if FileAccess.file_exists(f) else PackedByteArray()
		)
	var can_save_edits := w.has_method("save_world")
	var dug := Vector3i(floori(p.x) + 2, floori(w.get_height(p.x + 2.0, p.z)) - 1, floori(p.z))
	w.set_voxel(dug, 0)
	game.player.global_position = p + Vector3(3, 1, -2)
	game.player.rotation.y = 1.25
	game.day_night.set_time_of_day(0.8)
	var status: String = game.save_game()
	assert_true(status.begins_with("Saved"), status)
	game.queue_free()
	await wait_frames(2)
	GameState.pending["continue"] = true
	var again: Node = load(GAME_SCENE).instantiate()
	root.add_child(again)
	await wait_frames(2)
	assert_true(
		again.player.global_position.distance_to(p + Vector3(3, 1, -2)) < 1e-3,
		"player position restored"
	)
	assert_near(again.player.rotation.y, 1.25, 1e-4, "facing restored")
	assert_near(again.day_night.get_time_of_day(), 0.8, 1e-4, "time of day restored")
	assert_eq(int(again.world.preset.get("seed")), 12345, "same world seed")
	if can_save_edits:
		assert_eq(again.world.get_voxel(dug), 0, "the dug voxel is still air after continuing")
	again.queue_free()
	GameState.pending["continue"] = false
	for f in backups:
		if backups[f].is_empty():
			DirAccess.remove_absolute(ProjectSettings.globalize_path(f))
		else:
			var fa := FileAccess.open(f, FileAccess.WRITE)
			fa.store_buffer(backups[f])
			fa.close()
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE
	await wait_frames(2)


func test_a_stick_presses_once_until_released() -> void:
	# Bind the next block to the right stick pushed down (as a player could), then push it in
	# steps: a stick or trigger sends an event at every move.
	var stick := InputEventJoypadMotion.new()
	stick.axis = JOY_AXIS_RIGHT_Y
	stick.axis_value = 1.0
	GameState.rebind("hotbar_next", stick)
	assert_eq(
		GameState.bindings.pad_binding_text("hotbar_next"),
		"Right stick down",
		"next block on the stick"
	)
	assert_eq(player.selected_block, 0)
	for value: float in [0.1, 0.3, 0.6, 0.9, 1.0, 0.8]:
		_pad_axis(JOY_AXIS_RIGHT_Y, value)
	await get_tree().process_frame
	assert_eq(player.selected_block, 1, "one push, one step, however many events it sends")
	_pad_axis(JOY_AXIS_RIGHT_Y, 0.0)
	_pad_axis(JOY_AXIS_RIGHT_Y, 0.7)
	await get_tree().process_frame
	assert_eq(player.selected_block, 2, "back to the middle and pushed again: the next step")
	GameState.reset_all()
	assert_eq(GameState.bindings.pad_binding_text("hotbar_next"), "RB", "RB again")
