## The demo game far from the world's start: "Go to…" in the pause menu refuses what is not a
## destination with a clear line, and sends the player to x = z = 1,000,000 (typed) and
## 1,000,000,000 (the far-spot button), where it stands on the ground at the spot the standing-spot
## search picks, the world's origin beside it, and the HUD shows its world coordinates exactly; a
## jump there lands where it took off; a typed height puts the feet there, in the typed column;
## a game saved at 1e9 resumes there, its edit with it.
extends StrataTestCase

const GAME_SCENE := preload("res://game/world.tscn")
## A world of this suite's own.
const WORLD_SEED := 515_151
const LOAD_TIMEOUT_S := 90.0
const TRAVEL_TIMEOUT_S := 90.0

var _games: Array[Game] = []
var _saved_pending: Dictionary = {}
## The player's own save, put back after each test.
var _save_backup := PackedByteArray()


func before_each() -> void:
	_saved_pending = GameState.pending.duplicate(true)
	_save_backup = (
		FileAccess.get_file_as_bytes(WorldSave.PATH)
		if FileAccess.file_exists(WorldSave.PATH)
		else PackedByteArray()
	)


func after_each() -> void:
	for game in _games:
		if is_instance_valid(game):
			game.free()
	_games.clear()
	GameState.pending = _saved_pending
	get_tree().paused = false
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE
	if _save_backup.is_empty():
		if FileAccess.file_exists(WorldSave.PATH):
			DirAccess.remove_absolute(ProjectSettings.globalize_path(WorldSave.PATH))
	else:
		var f := FileAccess.open(WorldSave.PATH, FileAccess.WRITE)
		f.store_buffer(_save_backup)
		f.close()


## A game of this suite's world (a new one, or the last save when `continue_save`), loaded.
func _game(continue_save: bool) -> Game:
	GameState.pending = {
		"preset_path": GameState.DEFAULT_PRESET,
		"seed": WORLD_SEED,
		"day_length_s": 600.0,
		"continue": continue_save,
		"world_code": "",
	}
	var game: Game = GAME_SCENE.instantiate()
	add_child(game)
	_games.append(game)
	# A small machine: no far view, a short view once loaded.
	game.world.far_view_levels = 0
	var ok := await wait_until(func() -> bool: return game.loaded, LOAD_TIMEOUT_S)
	assert_true(ok, "the game loaded")
	if ok:
		game.world.view_distance = 2
	return game if ok else null


## The player's world position, [x, y, z], computed here from the origin and its place.
func _world_of(game: Game) -> Array[float]:
	var o := game.world.get_origin()
	var p := game.world.to_local(game.player.global_position)
	return [float(o.x) + p.x, float(o.y) + p.y, float(o.z) + p.z]


## Waits for the journey under way to end and the player to stand still on the ground.
func _arrive(game: Game, label: String) -> bool:
	var arrived := await wait_until(
		func() -> bool: return not game.travel.is_travelling(), TRAVEL_TIMEOUT_S
	)
	assert_true(arrived, "%s: arrived" % label)
	if not arrived:
		return false
	var standing := 0
	for i in 600:
		await get_tree().physics_frame
		standing = standing + 1 if game.player.is_on_floor() else 0
		if standing >= 20:
			return true
	fail("%s: the player stands on the floor" % label)
	return false


## The player stands on the ground at the standing spot `spot` (world voxel of the feet) and
## the HUD shows where, to one decimal.
func _check_standing(game: Game, spot: Vector3i, label: String) -> void:
	var w := _world_of(game)
	assert_near(w[0], spot.x + 0.5, 0.01, "%s: x is the spot's column" % label)
	assert_near(w[2], spot.z + 0.5, 0.01, "%s: z is the spot's column" % label)
	var ground := game.world.get_height(w[0], w[2])
	assert_near(w[1], ground, 0.02, "%s: the feet rest on the ground" % label)
	assert_ne(
		game.world.get_voxel(Vector3i(spot.x, floori(ground) - 1, spot.z)),
		0,
		"%s: something solid underfoot" % label
	)
	var local := game.world.to_local(game.player.global_position)
	assert_lt(local.length(), 64.0, "%s: the origin came along (local %s)" % [label, local])
	var want := (
		"Position %.1f, %.1f, %.1f (block %d, %d, %d)"
		% [w[0], w[1], w[2], floori(w[0]), floori(w[1]), floori(w[2])]
	)
	assert_eq(game.hud.position_text(), want, "%s: the HUD's position" % label)
	assert_true(game.hud.stats_text().contains(want), "%s: the HUD shows it" % label)


func test_go_to_checks_what_was_typed_and_reaches_1e6_and_1e9() -> void:
	var game := await _game(false)
	if game == null:
		return
	game.pause()
	var menu := game.pause_menu
	menu.open_go_to()
	assert_true(menu.go_to_panel.visible, "the Go to panel shows")
	var panel := menu.go_to_panel
	assert_true(panel.submit("abc", "", "0").contains("not a number"), panel.get_message())
	assert_true(panel.submit("", "", "5").contains("x is needed"), panel.get_message())
	var outside := panel.submit("1073741824", "", "0")
	assert_true(outside.contains("outside the world"), outside)
	assert_true(outside.contains("1,073,741,823"), "the message names the limit: " + outside)
	assert_true(panel.submit("0", "-2e9", "0").contains("y = "), panel.get_message())
	assert_true(panel.submit("0", "", "inf").contains("z"), panel.get_message())
	assert_false(game.travel.is_travelling(), "nothing moved")
	assert_true(get_tree().paused, "still paused")
	# Typed, with thousands grouped: the standing spot nearest column (1e6, 1e6).
	var near_spot := game.setup.find_spawn_voxel(Vector2i(1_000_000, 1_000_000))
	assert_eq(panel.submit("1,000,000", "", "1_000_000"), "", "accepted")
	assert_false(get_tree().paused, "the game goes on while the player travels")
	assert_false(menu.visible, "the menu closed")
	if await _arrive(game, "1e6"):
		_check_standing(game, near_spot, "1e6")
	# The far-spot button: the standing spot nearest column (1e9, 1e9).
	game.pause()
	menu.open_go_to()
	var far_spot := game.setup.find_spawn_voxel(Vector2i(1_000_000_000, 1_000_000_000))
	panel.get_node("Margin/Box/FarRow/FarFar").emit_signal("pressed")
	assert_false(get_tree().paused, "on the way to 1e9")
	if await _arrive(game, "1e9"):
		_check_standing(game, far_spot, "1e9")
		assert_eq(
			game.world.chunk_at(game.world.to_local(game.player.global_position)),
			Vector3i(far_spot.x >> 5, far_spot.y >> 5, far_spot.z >> 5),
			"the world streams the spot's chunk"
		)
	# A jump there rises over a voxel and lands where it took off, as at the start.
	var start := _world_of(game)
	var top := start[1]
	Input.action_press("jump")
	for i in 3:
		await get_tree().physics_frame
	Input.action_release("jump")
	for i in Engine.physics_ticks_per_second * 2:
		await get_tree().physics_frame
		top = maxf(top, _world_of(game)[1])
	var end := _world_of(game)
	assert_gt(top - start[1], 0.9, "jumps at 1e9 (%.2f m high)" % (top - start[1]))
	assert_near(end[1], start[1], 0.02, "lands where it took off (height)")
	assert_near(end[0], start[0], 0.02, "lands where it took off (x)")
	# A typed height: the feet go there, in that very column, and the player falls to the ground.
	var column := Vector2i(far_spot.x + 6, far_spot.z - 4)
	var surface := int(game.world.get_height(column.x + 0.5, column.y + 0.5))
	game.pause()
	menu.open_go_to()
	var on_arrival: Array[float] = []
	game.travel.arrived.connect(
		func(_at: PackedFloat64Array) -> void: on_arrival.assign(_world_of(game)), CONNECT_ONE_SHOT
	)
	assert_eq(
		panel.submit(str(column.x), str(surface + 10), str(column.y)), "", "accepted with a y"
	)
	if await _arrive(game, "typed y"):
		assert_eq(on_arrival.size(), 3, "arrived")
		if on_arrival.size() == 3:
			assert_near(on_arrival[1], surface + 10.05, 0.01, "the feet at the typed height")
		var w := _world_of(game)
		assert_near(w[0], column.x + 0.5, 0.01, "in the typed column (x)")
		assert_near(w[2], column.y + 0.5, 0.01, "in the typed column (z)")
		assert_near(w[1], surface, 0.02, "then on the ground")


func test_a_game_saved_at_1e9_resumes_there() -> void:
	var game := await _game(false)
	if game == null:
		return
	var spot := game.setup.find_spawn_voxel(Vector2i(1_000_000_000, 1_000_000_000))
	assert_eq(game.travel_to(1_000_000_000.0, NAN, 1_000_000_000.0), "", "travel accepted")
	if not await _arrive(game, "1e9"):
		return
	# An edit beside the player, then a save.
	var dug := spot + Vector3i(2, -1, 0)
	game.world.set_voxel(dug, 0)
	var saved_at := _world_of(game)
	game.player.rotation.y = 0.75
	var status := game.save_game()
	assert_true(status.begins_with("Saved"), "saved: " + status)
	game.free()
	await wait_frames(2)
	var again := await _game(true)
	if again == null:
		return
	var w := _world_of(again)
	for i in 3:
		assert_near(w[i], saved_at[i], 0.02, "the player is back where it was on axis %d" % i)
	assert_near(again.player.rotation.y, 0.75, 1e-4, "facing the same way")
	var local := again.world.to_local(again.player.global_position)
	assert_lt(local.length(), 64.0, "the origin is beside the player (local %s)" % local)
	assert_eq(again.world.get_voxel(dug), 0, "the edit at 1e9 is still there")
	assert_true(again.player.is_on_floor() or await _arrive(again, "resumed"), "stands there")
