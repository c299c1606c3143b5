## The settings menu: rebinding through the UI with a synthetic key event, the conflict warning,
## resets, persistence on the active profile, and live settings (view distance on a ChunkWorld).
extends StrataTestCase

const MENU := preload("res://game/settings_menu.tscn")

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
	# A fresh UserProfiles over the project defaults reads the override back from disk.
	InputMap.action_erase_events("jump")
	var space := InputEventKey.new()
	space.physical_keycode = KEY_SPACE
	InputMap.action_add_event("jump", space)
	var fresh: Node = ClassDB.instantiate("UserProfiles")
	add_child(fresh)
	assert_eq(int(fresh.call("set_active_user", GameState.get_active_user())), OK, "profile loads")
	assert_eq(_bound_keys("jump"), [KEY_J], "saved in the active profile")
	fresh.queue_free()


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
	var game: Node = load("res://game/world.tscn").instantiate()
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
	assert_eq(game.world.view_distance, 5, "view distance applied to the ChunkWorld")
	assert_near(game.player.camera.fov, 90.0, 1e-3, "fov applied to the camera")
	assert_eq(game.player.invert_y, invert.button_pressed, "invert Y applied to the player")
	assert_eq(GameState.get_setting("view_distance"), 5, "stored on the profile")
	slider.value = 9
	await wait_frames(1)
	assert_eq(game.world.view_distance, 9, "slider moves the live view distance")
	game.queue_free()
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE
	await wait_frames(2)
