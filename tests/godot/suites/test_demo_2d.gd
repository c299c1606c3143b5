## The 2D demo in real headless Godot: digging fills the inventory, the chosen block is placed
## from it, a quick save brings back the tiles, the inventory and the character, and every
## binding the project declares for the demo's actions presses its action.
extends StrataTestCase

const SIDE_VIEW := preload("res://demo2d/side_view.gd")

var _scene: Node2D
var _world: StrataChunkWorld2D
var _player: CharacterBody2D


func before_each() -> void:
	_scene = load("res://demo2d/side_view.tscn").instantiate()
	add_child(_scene)
	_world = _scene.get_node("World")
	_player = _scene.get_node("Player")


func after_each() -> void:
	if is_instance_valid(_scene):
		_scene.free()


## The solid tiles within reach below the character, nearest first.
func _ground_below(n: int) -> Array[Vector2i]:
	var me := _world.local_to_tile(_world.to_local(_player.global_position))
	var out: Array[Vector2i] = []
	for dy in range(1, 6):
		for dx in [-2, -1, 1, 2]:
			var t := me + Vector2i(dx, dy)
			var id := _world.get_tile(t)
			if id != 0 and id != 5 and out.size() < n:
				out.append(t)
	return out


func test_digging_fills_the_inventory_and_placing_takes_from_it() -> void:
	assert_true(await wait_until(_world.is_area_ready, 60.0), "demo world ready")
	assert_true(await wait_until(func() -> bool: return _player.is_on_floor(), 10.0), "landed")
	var inv: Inventory2D = _player.inventory
	assert_eq(inv.counts.size(), 0, "empty at first")
	var tiles := _ground_below(3)
	assert_eq(tiles.size(), 3, "ground within reach")
	var names: Array[String] = []
	for t in tiles:
		names.append(_world.get_block_name(_world.get_tile(t)))
		assert_true(_player.dig_tile(t), "dug %s" % t)
		assert_eq(_world.get_tile(t), 0, "air after digging")
	var total := 0
	for k in inv.counts:
		total += inv.counts[k]
	assert_eq(total, 3, "three blocks held: %s" % inv.describe())
	assert_eq(inv.selected, names[0], "the first block mined is chosen")
	assert_false(_player.dig_tile(tiles[0]), "air is not dug")
	assert_false(_player.dig_tile(Vector2i(99999, 0)), "out of reach")
	# Place the chosen block back; the count goes down.
	var before: int = inv.counts[inv.selected]
	var chosen := inv.selected
	assert_true(_player.place_tile(tiles[0]), "placed")
	assert_eq(_world.get_block_name(_world.get_tile(tiles[0])), chosen)
	assert_eq(inv.counts.get(chosen, 0), before - 1)
	# Nothing to place once the inventory is empty.
	while not inv.counts.is_empty():
		inv.take(inv.names()[0])
	assert_false(_player.place_tile(tiles[1]), "nothing held")
	assert_eq(_world.get_tile(tiles[1]), 0)


func test_a_quick_save_brings_back_tiles_inventory_and_place() -> void:
	assert_true(await wait_until(_world.is_area_ready, 60.0), "demo world ready")
	assert_true(await wait_until(func() -> bool: return _player.is_on_floor(), 10.0), "landed")
	var tiles := _ground_below(2)
	for t in tiles:
		_player.dig_tile(t)
	var inv: Inventory2D = _player.inventory
	inv.add("torch", 4)
	inv.select_slot(inv.names().find("torch"))
	var saved_counts := inv.counts.duplicate()
	var at := _player.position
	var path := scratch_dir().path_join("side.strata")
	assert_eq(_scene.save_game(path), OK, _world.last_error())
	# Change everything, then load.
	_world.set_tile(tiles[0], _world.get_block_id("stone"))
	inv.add("glass", 9)
	_player.position += Vector2(200, -50)
	assert_eq(_scene.load_game(path), OK, _world.last_error())
	assert_eq(inv.counts, saved_counts, "the inventory as saved")
	assert_eq(inv.selected, "torch", "the chosen block as saved")
	assert_eq(_player.position, at, "the character where it was")
	assert_true(await wait_until(_world.is_area_ready, 60.0), "loaded world ready")
	for t in tiles:
		assert_eq(_world.get_tile(t), 0, "dug tiles stay dug")
	assert_ne(_scene.load_game(scratch_dir().path_join("missing.strata")), OK, "a missing file")
	assert_eq(inv.counts, saved_counts, "unchanged by a failed load")


func test_inventory_text_round_trips_and_refuses_junk() -> void:
	var inv := Inventory2D.new()
	inv.add("stone", 3)
	inv.add("dirt", 2)
	inv.cycle(1)
	var back := Inventory2D.new()
	assert_true(back.from_text(inv.to_text()))
	assert_eq(back.counts, inv.counts)
	assert_eq(back.selected, inv.selected)
	assert_false(back.from_text("not json"), "junk refused")
	assert_false(back.from_text("[1, 2]"), "not an inventory")
	assert_eq(back.counts, inv.counts, "unchanged after junk")
	assert_eq(
		back.describe(), "[dirt 2]  stone 3", "stone was chosen first; cycling moves on to dirt"
	)


## A press (or with `pressed` false, the release) of the input `event` stands for.
func _input_of(event: InputEvent, pressed: bool) -> InputEvent:
	var out := event.duplicate() as InputEvent
	out.device = 0
	var motion := out as InputEventJoypadMotion
	if motion != null:
		motion.axis_value = event.get("axis_value") if pressed else 0.0
	else:
		out.set("pressed", pressed)
	return out


func _press(event: InputEvent) -> void:
	Input.parse_input_event(_input_of(event, true))
	Input.flush_buffered_events()
	await get_tree().physics_frame
	Input.parse_input_event(_input_of(event, false))
	Input.flush_buffered_events()


func test_every_binding_of_the_project_presses_its_action() -> void:
	# The scene is not needed (and F5 would save): only the input map is under test.
	_scene.free()
	var checked := 0
	for action in SIDE_VIEW.ACTIONS:
		var declared: Variant = ProjectSettings.get_setting("input/" + action)
		if not assert_true(declared is Dictionary, "%s declared in project.godot" % action):
			continue
		var events: Array = (declared as Dictionary).get("events", [])
		assert_gt(events.size(), 0, "%s has bindings" % action)
		assert_eq(
			InputMap.action_get_events(action).size(),
			events.size(),
			"%s: every declared binding is in the InputMap" % action
		)
		for event: InputEvent in events:
			# From released: a button another suite left down would not press again.
			Input.parse_input_event(_input_of(event, false))
			Input.flush_buffered_events()
			Input.parse_input_event(_input_of(event, true))
			Input.flush_buffered_events()
			assert_true(Input.is_action_pressed(action), "%s by %s" % [action, event.as_text()])
			Input.parse_input_event(_input_of(event, false))
			Input.flush_buffered_events()
			assert_false(Input.is_action_pressed(action), "%s released" % action)
			checked += 1
	# 4 + 4 + 3 + 3 (move, jump, crouch), 2 + 2 (dig, place), 9 slots, 2 + 2 (next, previous),
	# 2 + 2 (save, load), 1 (place_torch: T), 2 (pause: Esc, Start; the multiplayer menu).
	assert_eq(checked, 38, "bindings checked")
	var w := InputEventKey.new()
	w.physical_keycode = KEY_W
	var left := InputEventKey.new()
	left.physical_keycode = KEY_LEFT
	assert_true(InputMap.event_is_action(w, "side_jump"), "W jumps in the 2D demo")
	assert_false(InputMap.event_is_action(w, "jump"), "not in the 3D one, where it walks")
	assert_true(InputMap.event_is_action(left, "side_move_left"), "the left arrow runs left")
	var t := InputEventKey.new()
	t.physical_keycode = KEY_T
	assert_true(InputMap.event_is_action(t, "place_torch"), "T places a torch")


func test_w_jumps_and_the_hotbar_actions_choose_the_block() -> void:
	assert_true(await wait_until(_world.is_area_ready, 60.0), "demo world ready")
	assert_true(await wait_until(func() -> bool: return _player.is_on_floor(), 10.0), "landed")
	var w := InputEventKey.new()
	w.physical_keycode = KEY_W
	Input.parse_input_event(_input_of(w, true))
	Input.flush_buffered_events()
	await get_tree().physics_frame
	await get_tree().physics_frame
	assert_lt(_player.velocity.y, 0.0, "W jumps")
	Input.parse_input_event(_input_of(w, false))
	var inv: Inventory2D = _player.inventory
	inv.add("stone", 2)
	inv.add("dirt", 3)
	assert_eq(inv.selected, "stone", "the first block mined is chosen")
	var one := InputEventKey.new()
	one.physical_keycode = KEY_1
	await _press(one)
	assert_eq(inv.selected, "dirt", "1 chooses the first slot (sorted: dirt, stone)")
	var two := InputEventKey.new()
	two.physical_keycode = KEY_2
	await _press(two)
	assert_eq(inv.selected, "stone", "2 chooses the second")
	await _press(one)
	var wheel := InputEventMouseButton.new()
	wheel.button_index = MOUSE_BUTTON_WHEEL_DOWN
	await _press(wheel)
	assert_eq(inv.selected, "stone", "the wheel down (hotbar_next) moves on from dirt")
	var lb := InputEventJoypadButton.new()
	lb.button_index = JOY_BUTTON_LEFT_SHOULDER
	await _press(lb)
	assert_eq(inv.selected, "dirt", "LB (hotbar_previous) moves back")
