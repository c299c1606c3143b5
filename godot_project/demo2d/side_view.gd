## The 2D demo: an infinite side-view world streamed by StrataChunkWorld2D around a character.
##
## Controls (`ACTIONS`, declared in the project's input map with their keys and gamepad inputs):
## side_move_left / side_move_right (A/D, the arrows, the left stick or the D-pad), side_jump
## (Space, W or A on a gamepad), side_crouch (C, S or B), dig (left mouse or RT: the tile goes into
## the inventory), place (right mouse or LT: one of the chosen block), hotbar_1…hotbar_9 (1–9)
## or hotbar_next / hotbar_previous (the mouse wheel, RB / LB) choose the block, place_torch (T)
## puts a torch at the mouse, quick_save (F5 or Back) and quick_load (F9 or Y) keep the world,
## the inventory, the character's place and the time of day in `SAVE_PATH`.
## The world's spawn rules start critters on the surface, cave crawlers on cave floors and chests
## in caves and buried chest rooms (`demo2d/life/`): the creatures walk, a chest the character
## touches opens into the inventory, and quick save keeps them all.
## A day-night cycle (`DAY_SECONDS` a day) drives the world's `daylight` and the sky's colour:
## at night only torches light the caves. The world keeps a floating origin (the character is in
## its `origin_shift_group`), so running and digging stay exact however far the character goes.
## User argument `--screenshot=PATH` saves one frame once the world is ready, then quits;
## `--zoom=Z` sets the screenshot's camera zoom (default 0.5); `--showcase` builds a tree and a hut
## of the library's own blocks (log, leaves, planks, glass, torch) beside the character first;
## `--preset=PATH` streams that StrataWorldPreset (e.g. the side-view classic,
## res://addons/strata/presets/side_view_classic.tres); `--time=T` starts at time of day T
## (0 midnight, 0.5 noon; default 0.3); `--cave` blasts a cave room under the character as one
## edit group (a stone shell, then the room), lights it with torches and puts the character in it;
## `--structure=NAME` puts the character beside the first structure of that name (the world's
## `structures`: a hut drawn in an image, a ruin in a TileMapLayer scene, a buried chest room) at
## or right of x = 0.
## pause (Esc or Start) opens the multiplayer menu (`SideViewMultiplayer`): host this side view
## on a UDP port, or join another player's; the other players show with their names, and digging
## and placing go through the host. A guest's world is the host's: quick save and load are the
## host's to do.
extends Node2D

## Where quick_save writes and quick_load reads.
const SAVE_PATH := "user://saves/side_view.strata"
## Seconds of a whole day and night.
const DAY_SECONDS := 240.0
## The sky's colour at noon and at midnight.
const DAY_SKY := Color(0.56, 0.76, 0.96)
const NIGHT_SKY := Color(0.03, 0.04, 0.10)
## The actions this demo reads (the character's and its own).
const ACTIONS: Array[String] = [
	"side_move_left",
	"side_move_right",
	"side_jump",
	"side_crouch",
	"dig",
	"place",
	"hotbar_1",
	"hotbar_2",
	"hotbar_3",
	"hotbar_4",
	"hotbar_5",
	"hotbar_6",
	"hotbar_7",
	"hotbar_8",
	"hotbar_9",
	"hotbar_next",
	"hotbar_previous",
	"quick_save",
	"quick_load",
	"place_torch",
	"pause",
]

## The time of day: 0 midnight, 0.25 sunrise, 0.5 noon, 0.75 sunset.
var time_of_day := 0.3

var _spawned := false
var _screenshot_path := ""
var _ready_frames := 0
var _zoom := 0.5
var _showcase := false
var _cave := false
## The structure to spawn beside (`--structure=`), or "".
var _structure := ""
## The last save or load, for the HUD.
var _status := ""

@onready var _world: StrataChunkWorld2D = $World
@onready var _player: CharacterBody2D = $Player
@onready var _camera: Camera2D = $Player/Camera
@onready var _hud: Label = $Hud/Label
@onready var _multiplayer: SideViewMultiplayer = $Multiplayer


func _ready() -> void:
	for action in ACTIONS:
		if not InputMap.has_action(action):
			push_error("side_view: the project's input map lacks the action `%s`" % action)
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--screenshot="):
			_screenshot_path = arg.substr(13)
		elif arg.begins_with("--zoom="):
			_zoom = clampf(arg.substr(7).to_float(), 0.1, 4.0)
		elif arg == "--showcase":
			_showcase = true
		elif arg == "--cave":
			_cave = true
		elif arg.begins_with("--structure="):
			_structure = arg.substr(12)
		elif arg.begins_with("--time="):
			time_of_day = fposmod(arg.substr(7).to_float(), 1.0)
		elif arg.begins_with("--preset="):
			var preset := load(arg.substr(9)) as StrataWorldPreset
			if preset == null:
				push_error("side_view: --preset=%s is not a StrataWorldPreset" % arg.substr(9))
			else:
				_world.preset = preset
	if _screenshot_path != "":
		_camera.zoom = Vector2(_zoom, _zoom)
	_apply_daylight()
	_multiplayer.joined_world.connect(_on_joined_world)
	# Wait at the surface, frozen, until the ground under the spawn point is in the layer.
	_spawn()
	_player.set_physics_process(false)


## Puts the character on the first dry column at or right of x = 8 (or left of the structure
## `--structure=` names); without `--structure=`, with room to run: no structure stands within a
## few tiles of it.
func _spawn() -> void:
	var x := 8.0
	if _structure != "":
		x = _structure_x(_structure)
	for i in 256:
		var y := _world.get_surface_height(x)
		var above := _world.local_to_tile(Vector2(x, y - 8.0))
		var near := Rect2i(above.x - 3, above.y - 12, 10, 16)
		var clear := _structure != "" or _world.get_structures_in(near).is_empty()
		if _world.get_tile(above) == 0 and clear:
			break
		x += 16.0
	_player.position = Vector2(x, _world.get_surface_height(x) - 14.0)


func _process(delta: float) -> void:
	# A screenshot keeps the time it was asked for.
	if _screenshot_path == "":
		time_of_day = fposmod(time_of_day + delta / DAY_SECONDS, 1.0)
	_apply_daylight()
	if not _spawned and _world.is_area_ready():
		_spawned = true
		_spawn()
		_player.set_physics_process(true)
		if _showcase:
			_build_showcase()
		if _cave:
			_build_cave()
		_multiplayer.placed()
	var s := _world.get_stats()
	var tile := _world.local_to_tile(_player.position)
	_hud.text = (
		(
			"%s  tile %s  chunks %d (+%d pending)  gen %.2f ms  apply %.2f ms  edits %d  %s\n"
			+ "A/D run  Space jump  C crouch  LMB dig  RMB place  T torch  1-9/wheel choose"
			+ "  F5 save  F9 load  Esc multiplayer\n"
			+ "%s\n%s"
		)
		% [
			clock(),
			tile,
			s["loaded_chunks"],
			s["pending_chunks"],
			s["gen_ms_median"],
			s["apply_ms_last_frame"],
			s["edits"],
			_status,
			_player.inventory.describe(),
			_multiplayer.status,
		]
	)
	if _screenshot_path != "" and _spawned and _world.is_area_ready():
		_ready_frames += 1
		if _ready_frames == 20:
			var img := get_viewport().get_texture().get_image()
			DirAccess.make_dir_recursive_absolute(_screenshot_path.get_base_dir())
			var err := img.save_png(_screenshot_path)
			print("screenshot saved to %s (%s)" % [_screenshot_path, error_string(err)])
			get_tree().quit(0 if err == OK else 1)


## Whether the character stands in the streamed world (after the start, and after a join).
func is_spawned() -> bool:
	return _spawned


## Local pixel x a few tiles left of the first structure named `structure_name` at or right of
## x = 0 (placement is known before any chunk loads), or 8 when none is within 20,000 tiles.
func _structure_x(structure_name: String) -> float:
	for found: Dictionary in _world.get_structures_in(Rect2i(0, -4096, 20000, 8192)):
		if found["structure"] == structure_name:
			var at: Vector2i = found["position"]
			return _world.tile_to_local(at + Vector2i(-4, 0)).x
	push_error("side_view: no structure `%s` within 20,000 tiles" % structure_name)
	return 8.0


## A tree (log, leaves) and a hut (planks, a glass window, a torch inside) on the ground a few
## tiles right of the character, from the world's block library.
func _build_showcase() -> void:
	var me := _world.local_to_tile(_player.position)
	var ids := {}
	for block_name: String in ["log", "leaves", "planks", "glass", "torch"]:
		ids[block_name] = _world.get_block_id(block_name)
	var tree_x := me.x + 4
	var top := _surface_row(tree_x)
	for y in range(top - 5, top):
		_world.set_tile(Vector2i(tree_x, y), ids["log"])
	for dy in range(-8, -4):
		for dx in range(-2, 3):
			if absi(dx) + absi(dy + 6) <= 3 and not (dx == 0 and dy == -5):
				_world.set_tile(Vector2i(tree_x + dx, top + dy), ids["leaves"])
	var hut_x := tree_x + 5
	var floor_y := _surface_row(hut_x)
	for dx in 6:
		for dy in range(1, 6):
			var wall := dx == 0 or dx == 5 or dy == 5
			var window := dx == 5 and (dy == 2 or dy == 3)
			var at := Vector2i(hut_x + dx, floor_y - dy)
			if window:
				_world.set_tile(at, ids["glass"])
			elif wall:
				_world.set_tile(at, ids["planks"])
			else:
				_world.set_tile(at, 0)
	_world.set_tile(Vector2i(hut_x + 2, floor_y - 2), ids["torch"])


## The world's daylight at `time_of_day`: 1 from mid-morning to mid-afternoon, 0.05 at night,
## a smooth dawn and dusk between.
func daylight_at(t: float) -> float:
	var sun := -cos(TAU * t)  # -1 at midnight, 1 at noon
	return lerpf(0.05, 1.0, smoothstep(-0.3, 0.4, sun))


## The time of day as a 24-hour clock.
func clock() -> String:
	var minutes := int(time_of_day * 24.0 * 60.0)
	return "%02d:%02d" % [minutes / 60, minutes % 60]


func _apply_daylight() -> void:
	var d := daylight_at(time_of_day)
	_world.daylight = d
	RenderingServer.set_default_clear_color(NIGHT_SKY.lerp(DAY_SKY, d))


## A cave room blasted 24 tiles under the character as one edit group (a stone shell, then the
## room inside it: two rectangle edits, one undo step), lit by two torches on its floor; the
## character is put inside.
func _build_cave() -> void:
	var me := _world.local_to_tile(_player.position)
	var corner := me + Vector2i(-14, 24)
	var size := Vector2i(28, 9)
	_world.begin_edit_group()
	_world.set_tiles_rect(corner - Vector2i.ONE, corner + size, _world.get_block_id("stone"))
	_world.set_tiles_rect(corner, corner + size - Vector2i.ONE, 0)
	var torch := _world.get_block_id("torch")
	var floor_row := corner.y + size.y - 1
	_world.set_tile(Vector2i(corner.x + 5, floor_row), torch)
	_world.set_tile(Vector2i(corner.x + 21, floor_row), torch)
	_world.end_edit_group()
	var feet := _world.tile_to_local(Vector2i(corner.x + 13, floor_row))
	_player.position = Vector2(feet.x, feet.y + 8.0 - 13.0)
	_player.velocity = Vector2.ZERO


## The row of the topmost solid tile of tile column `x`.
func _surface_row(x: int) -> int:
	var px := _world.tile_to_local(Vector2i(x, 0)).x
	return _world.local_to_tile(Vector2(px, _world.get_surface_height(px))).y


## Joined another player's world (the host's preset): the character is placed again once it
## has streamed.
func _on_joined_world() -> void:
	_spawned = false
	_player.set_physics_process(false)


## Whether this side view may save or load: not as another player's guest (the host keeps the
## shared world); the reason on the HUD.
func _may_keep() -> bool:
	if _multiplayer.is_guest():
		_status = "the host keeps this shared world"
		return false
	return true


func _unhandled_input(event: InputEvent) -> void:
	if event.is_action_pressed("quick_save"):
		save_game()
		get_viewport().set_input_as_handled()
	elif event.is_action_pressed("quick_load"):
		load_game()
		get_viewport().set_input_as_handled()
	elif event.is_action_pressed("pause"):
		# After the saves: Back on a gamepad is quick_save's here, Start and Esc open the menu.
		_multiplayer.open_menu()
		get_viewport().set_input_as_handled()


## Writes the world, the inventory and the character's place to `path`; OK or the error (its
## message on the HUD).
func save_game(path := SAVE_PATH) -> Error:
	if not _may_keep():
		return ERR_UNAVAILABLE
	DirAccess.make_dir_recursive_absolute(path.get_base_dir())
	_world.set_state("inventory", _player.inventory.to_text())
	# The place in the world's node space, and where that space starts (the floating origin).
	_world.set_state("player", _player.position)
	_world.set_state("player_origin", _world.get_origin())
	_world.set_state("time_of_day", time_of_day)
	var err := _world.save_world(path)
	_status = "saved" if err == OK else "save failed: " + _world.last_error()
	return err


## Reads what `save_game` wrote: the world streams again, the inventory and the character come
## back. On error nothing changes (the message is on the HUD).
func load_game(path := SAVE_PATH) -> Error:
	if not _may_keep():
		return ERR_UNAVAILABLE
	var err := _world.load_world(path)
	if err != OK:
		_status = "load failed: " + _world.last_error()
		return err
	_player.inventory.from_text(_world.get_state("inventory", ""))
	var at: Variant = _world.get_state("player", null)
	if at is String:  # a save of 0.2 kept the place as text
		at = str_to_var(at)
	if at is Vector2:
		# Back where the save was made, far from the world's start too (saves before the
		# floating origin kept no origin: the world's start).
		_world.set_origin(_world.get_state("player_origin", Vector2i.ZERO))
		_player.position = at
		_player.velocity = Vector2.ZERO
	time_of_day = fposmod(float(_world.get_state("time_of_day", time_of_day)), 1.0)
	_apply_daylight()
	_status = "loaded"
	return OK
