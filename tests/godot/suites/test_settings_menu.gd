## The settings menu: rebinding through the UI with a synthetic key event, the conflict warning,
## resets, persistence on the active profile, and live settings (view distance on a
## StrataChunkWorld).
extends StrataTestCase

const MENU := preload("res://game/settings_menu.tscn")
const GAME_SCENE := "res://game/world.tscn"

var menu: SettingsMenu
var _saved_settings := {}


func before_each() -> void:
	GameState.reset_all()
	for k in GameState.DEFAULT_SETTINGS:
		_saved_settings[k] = GameState.get_setting(k)
	menu = MENU.instantiate()
	add_child(menu)
	await wait_frames(2)


func after_each() -> void:
	if is_instance_valid(menu):
		menu.queue_free()
	GameState.reset_all()
	for k in _saved_settings:
		if GameState.get_setting(k) != _saved_settings[k]:
			GameState.set_setting(k, _saved_settings[k])
	await wait_frames(1)


func _key(code: Key) -> void:
	var e := InputEventKey.new()
	e.physical_keycode = code
	e.keycode = code
	e.pressed = true
	Input.parse_input_event(e)
	await wait_frames(2)
	var r := e.duplicate()
	r.pressed = false
	Input.parse_input_event(r)
	await wait_frames(1)


func _bound_keys(action: String) -> Array:
	var out := []
	for e in InputMap.action_get_events(action):
		if e is InputEventKey:
			out.append(e.physical_keycode)
	return out


func test_rebinds_jump_through_the_ui() -> void:
	assert_eq(_bound_keys("jump"), [KEY_SPACE], "default jump")
	var button: Button = menu.find_child("Bind_jump", true, false)
	if not assert_true(button != null, "a rebind button for jump"):
		return
	assert_eq(button.text, "Space", "shows the current key")
	button.pressed.emit()
	await wait_frames(1)
	assert_eq(menu.waiting_action, "jump", "waits for a key")
	assert_eq(button.text, "Press a key…", "asks for a key")
	await _key(KEY_J)
	assert_eq(menu.waiting_action, "", "done waiting")
	assert_eq(_bound_keys("jump"), [KEY_J], "jump is now J in the InputMap")
	assert_eq(button.text, "J", "button shows the new key")
	var probe := InputEventKey.new()
	probe.physical_keycode = KEY_J
	probe.pressed = true
	assert_true(InputMap.event_is_action(probe, "jump"), "a J press is a jump")
	# Stored on the active profile: re-applying the profile keeps J.
	GameState.apply_all()
	assert_eq(_bound_keys("jump"), [KEY_J], "binding survives re-applying the profile")
	# A fresh StrataUserProfiles over the project defaults reads the override back from disk.
	InputMap.action_erase_events("jump")
	var space := InputEventKey.new()
	space.physical_keycode = KEY_SPACE
	InputMap.action_add_event("jump", space)
	var fresh: Node = ClassDB.instantiate("StrataUserProfiles")
	add_child(fresh)
	assert_eq(int(fresh.call("set_active_user", GameState.get_active_user())), OK, "profile loads")
	assert_eq(_bound_keys("jump"), [KEY_J], "saved in the active profile")
	fresh.queue_free()


## The gamepad inputs of `action` as `KeyBindings.input_id`s.
func _pad_inputs(action: String) -> Array[String]:
	var out: Array[String] = []
	for e in InputMap.action_get_events(action):
		if KeyBindings.is_pad_event(e):
			out.append(KeyBindings.input_id(e))
	return out


func _pad_button(button: JoyButton) -> void:
	var e := InputEventJoypadButton.new()
	e.button_index = button
	e.pressed = true
	e.pressure = 1.0
	Input.parse_input_event(e)
	await wait_frames(2)
	var r := InputEventJoypadButton.new()
	r.button_index = button
	Input.parse_input_event(r)
	await wait_frames(1)


func _pad_axis(axis: JoyAxis, value: float) -> void:
	var e := InputEventJoypadMotion.new()
	e.axis = axis
	e.axis_value = value
	Input.parse_input_event(e)
	await wait_frames(2)


## The keys of `action` as a fresh StrataUserProfiles applies the active profile over project
## defaults in which `action` is `default_key`; then the game's bindings again.
func _profile_keys(action: String, default_key: Key) -> Array:
	InputMap.action_erase_events(action)
	var key := InputEventKey.new()
	key.physical_keycode = default_key
	InputMap.action_add_event(action, key)
	var fresh: Node = ClassDB.instantiate("StrataUserProfiles")
	add_child(fresh)
	assert_eq(int(fresh.call("set_active_user", GameState.get_active_user())), OK, "profile loads")
	var out := _bound_keys(action)
	fresh.free()
	GameState.apply_all()
	return out


func test_a_hotbar_rebinding_is_stored_on_the_profile_and_selects_the_slot() -> void:
	assert_eq(_bound_keys("hotbar_3"), [KEY_3], "default: the 3 key")
	var button: Button = menu.find_child("Bind_hotbar_3", true, false)
	if not assert_true(button != null, "a rebind button for hotbar slot 3"):
		return
	assert_eq(button.text, "3", "shows the current key")
	button.pressed.emit()
	await wait_frames(1)
	await _key(KEY_K)
	assert_eq(_bound_keys("hotbar_3"), [KEY_K], "hotbar_3 is now K in the InputMap")
	assert_eq(button.text, "K", "button shows the new key")
	# On the profile: a fresh StrataUserProfiles over the project defaults reads it back.
	assert_eq(_profile_keys("hotbar_3", KEY_3), [KEY_K], "saved in the active profile")
	# K now chooses the third block, 3 no longer does.
	var player: StrataPlayer = load("res://game/player.tscn").instantiate()
	add_child(player)
	await wait_frames(1)
	assert_eq(player.selected_block, 0, "first block at start")
	await _key(KEY_3)
	assert_eq(player.selected_block, 0, "3 is no longer a hotbar key")
	await _key(KEY_K)
	assert_eq(player.selected_block, 2, "K chooses the third block")
	player.queue_free()
	# Binding the default key again leaves nothing on the profile.
	menu.find_child("Bind_hotbar_3", true, false).pressed.emit()
	await wait_frames(1)
	await _key(KEY_3)
	assert_eq(_bound_keys("hotbar_3"), [KEY_3], "back to 3")
	assert_eq(
		_profile_keys("hotbar_3", KEY_F7), [KEY_F7], "no override: a new project default applies"
	)


func test_rebinds_a_gamepad_button_and_keeps_the_key() -> void:
	assert_eq(_pad_inputs("jump"), ["button 0"], "default jump: A")
	var pad: Button = menu.find_child("Pad_jump", true, false)
	if not assert_true(pad != null, "a gamepad rebind button for jump"):
		return
	assert_eq(pad.text, "A", "shows the gamepad button")
	pad.pressed.emit()
	await wait_frames(1)
	assert_eq(menu.waiting_action, "jump", "waits for an input")
	assert_true(menu.waiting_pad, "a gamepad one")
	assert_eq(pad.text, "Press a button…", "asks for a button")
	await _key(KEY_J)
	assert_eq(menu.waiting_action, "jump", "a key does not bind the gamepad input")
	await _pad_button(JOY_BUTTON_Y)
	assert_eq(menu.waiting_action, "", "done waiting")
	assert_eq(_pad_inputs("jump"), ["button 3"], "jump's gamepad input is Y")
	assert_eq(_bound_keys("jump"), [KEY_SPACE], "its key is kept")
	assert_eq(pad.text, "Y", "button shows Y")
	assert_eq(GameState.profiles.get_setting("pad_jump"), "button 3", "stored on the profile")
	var y := InputEventJoypadButton.new()
	y.button_index = JOY_BUTTON_Y
	y.pressed = true
	assert_true(InputMap.event_is_action(y, "jump"), "a Y press is a jump")
	# Rebinding the key keeps the gamepad input, and re-applying the profile keeps both.
	menu.find_child("Bind_jump", true, false).pressed.emit()
	await wait_frames(1)
	await _pad_button(JOY_BUTTON_X)
	assert_eq(menu.waiting_action, "jump", "a gamepad button does not bind the key")
	await _key(KEY_J)
	assert_eq(_bound_keys("jump"), [KEY_J], "key rebound")
	assert_eq(_pad_inputs("jump"), ["button 3"], "gamepad input kept")
	GameState.apply_all()
	assert_eq(_bound_keys("jump"), [KEY_J], "key after re-applying the profile")
	assert_eq(_pad_inputs("jump"), ["button 3"], "gamepad input after re-applying the profile")
	# Reset restores both.
	menu.find_child("Reset_jump", true, false).pressed.emit()
	await wait_frames(1)
	assert_eq(_bound_keys("jump"), [KEY_SPACE], "reset: Space")
	assert_eq(_pad_inputs("jump"), ["button 0"], "reset: A")
	assert_eq(GameState.profiles.get_setting("pad_jump"), "", "nothing kept on the profile")


func test_rebinds_a_stick_with_the_conflict_warning() -> void:
	var label: Label = menu.find_child("ConflictLabel", true, false)
	var pad: Button = menu.find_child("Pad_dig", true, false)
	assert_eq(pad.text, "RT", "dig: the right trigger")
	pad.pressed.emit()
	await wait_frames(1)
	await _pad_axis(JOY_AXIS_RIGHT_Y, 0.3)
	assert_eq(menu.waiting_action, "dig", "a small push does not bind")
	await _pad_axis(JOY_AXIS_RIGHT_Y, 0.9)
	await _pad_axis(JOY_AXIS_RIGHT_Y, 0.0)
	assert_eq(menu.waiting_action, "", "a push past half way binds")
	assert_eq(_pad_inputs("dig"), ["axis 3 1"], "dig is the right stick pushed down")
	assert_eq(pad.text, "Right stick down")
	assert_eq(_bound_keys("dig"), [], "no key, as before")
	assert_eq(GameState.binding_text("dig"), "Left mouse", "the mouse button kept")
	assert_eq(menu.conflict_count(), 1, "the right stick down also looks down")
	assert_true(
		(
			label.text.contains("Right stick down")
			and label.text.contains("Dig")
			and label.text.contains("Look down")
		),
		"warning names the input and both actions: " + label.text
	)
	# A gamepad button conflict too: crouch on A, jump's.
	menu.find_child("Pad_crouch", true, false).pressed.emit()
	await wait_frames(1)
	await _pad_button(JOY_BUTTON_A)
	assert_eq(menu.conflict_count(), 2, "A is on jump and crouch")
	assert_true(
		label.text.contains("A is bound to") and label.text.contains("Crouch"),
		"warning names A and crouch: " + label.text
	)
	menu.find_child("ResetAll", true, false).pressed.emit()
	await wait_frames(1)
	assert_eq(label.text, "", "reset all clears the warnings")
	assert_eq(_pad_inputs("dig"), ["axis 5 1"], "dig: RT again")
	assert_eq(_pad_inputs("crouch"), ["button 1"], "crouch: B again")


func test_escape_cancels_a_rebind() -> void:
	var button: Button = menu.find_child("Bind_crouch", true, false)
	button.pressed.emit()
	await wait_frames(1)
	await _key(KEY_ESCAPE)
	assert_eq(menu.waiting_action, "", "no longer waiting")
	assert_eq(_bound_keys("crouch"), [KEY_C], "crouch unchanged")
	assert_true(is_instance_valid(menu) and menu.is_inside_tree(), "menu still open")


func test_conflict_warning_and_reset() -> void:
	var label: Label = menu.find_child("ConflictLabel", true, false)
	assert_eq(label.text, "", "no conflicts by default")
	menu.find_child("Bind_jump", true, false).pressed.emit()
	await wait_frames(1)
	await _key(KEY_W)
	assert_eq(menu.conflict_count(), 1, "W is on two actions")
	assert_true(
		label.text.contains("Forward") and label.text.contains("Jump"),
		"warning names both actions: " + label.text
	)
	menu.find_child("Reset_jump", true, false).pressed.emit()
	await wait_frames(1)
	assert_eq(_bound_keys("jump"), [KEY_SPACE], "reset restores Space")
	assert_eq(label.text, "", "warning gone")
	# Reset all.
	menu.find_child("Bind_sprint", true, false).pressed.emit()
	await wait_frames(1)
	await _key(KEY_K)
	assert_eq(_bound_keys("sprint"), [KEY_K], "sprint rebound")
	menu.find_child("ResetAll", true, false).pressed.emit()
	await wait_frames(1)
	assert_eq(_bound_keys("sprint"), [KEY_SHIFT], "reset all restores sprint")


func test_settings_apply_live_and_persist() -> void:
	var game: Node = load(GAME_SCENE).instantiate()
	add_child(game)
	await wait_frames(2)
	game.loaded = true  # skip the loading screen; the slider must reach the live world
	var slider: HSlider = menu.find_child("Setting_view_distance", true, false)
	var fov: HSlider = menu.find_child("Setting_fov", true, false)
	var invert: CheckBox = menu.find_child("Setting_invert_y", true, false)
	slider.value = 5
	fov.value = 90
	invert.button_pressed = not invert.button_pressed
	await wait_frames(1)
	assert_eq(game.world.view_distance, 5, "view distance applied to the StrataChunkWorld")
	assert_near(game.player.camera.fov, 90.0, 1e-3, "fov applied to the camera")
	assert_eq(game.player.invert_y, invert.button_pressed, "invert Y applied to the player")
	assert_eq(GameState.get_setting("view_distance"), 5, "stored on the profile")
	slider.value = 9
	await wait_frames(1)
	assert_eq(game.world.view_distance, 9, "slider moves the live view distance")
	await _close_game(game)


func test_texture_detail_swaps_the_worlds_texture_set() -> void:
	var game: Node = load(GAME_SCENE).instantiate()
	add_child(game)
	await wait_frames(2)
	var world: StrataChunkWorld = game.world
	assert_eq(GameState.get_setting("texture_detail"), 16, "16 by default")
	assert_true(world.block_library == null, "at 16 the world keeps its default library")
	var slider: HSlider = menu.find_child("Setting_texture_detail", true, false)
	if not assert_true(slider != null, "a texture detail slider"):
		await _close_game(game)
		return
	assert_eq(int(slider.value), 16, "the slider shows 16")
	slider.value = 32
	await wait_frames(1)
	assert_eq(GameState.get_setting("texture_detail"), 32, "stored on the profile")
	assert_true(world.block_library != null, "the world has a library")
	if world.block_library != null:
		assert_eq(world.block_library.texture_size, 32, "of 32-pixel textures")
		assert_true(
			world.block_library.get_texture_layers()[0].contains("/blocks_32/"), "the 32 set"
		)
	slider.value = 16
	await wait_frames(1)
	assert_eq(world.block_library.texture_size, 16, "back to the 16 set")
	await _close_game(game)


## Frees the game scene and gives the mouse back.
func _close_game(game: Node) -> void:
	game.queue_free()
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE
	await wait_frames(2)
