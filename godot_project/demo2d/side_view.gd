## The 2D demo: an infinite side-view world streamed by ChunkWorld2D around a character.
##
## Controls (InputMap actions, created here when the project lacks them): move_left / move_right
## (A/D or arrows), jump (Space), crouch (C or S), dig (left mouse), place (right mouse).
## User argument `--screenshot=PATH` saves one frame once the world is ready, then quits.
extends Node2D

var _spawned := false
var _screenshot_path := ""
var _ready_frames := 0

@onready var _world: ChunkWorld2D = $World
@onready var _player: CharacterBody2D = $Player
@onready var _camera: Camera2D = $Player/Camera
@onready var _hud: Label = $Hud/Label


func _ready() -> void:
	_ensure_actions()
	RenderingServer.set_default_clear_color(Color(0.56, 0.76, 0.96))
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--screenshot="):
			_screenshot_path = arg.substr(13)
	if _screenshot_path != "":
		_camera.zoom = Vector2(0.5, 0.5)
	# Wait at the surface, frozen, until the ground under the spawn point is in the layer.
	_spawn()
	_player.set_physics_process(false)


## Puts the character on the first dry column at or right of x = 8.
func _spawn() -> void:
	var x := 8.0
	for i in 64:
		var y := _world.get_surface_height(x)
		var above := _world.local_to_tile(Vector2(x, y - 8.0))
		if _world.get_tile(above) == 0:
			break
		x += 16.0
	_player.position = Vector2(x, _world.get_surface_height(x) - 14.0)


func _process(_delta: float) -> void:
	if not _spawned and _world.is_area_ready():
		_spawned = true
		_spawn()
		_player.set_physics_process(true)
	var s := _world.get_stats()
	var tile := _world.local_to_tile(_player.position)
	_hud.text = (
		(
			"tile %s  chunks %d (+%d pending)  gen %.2f ms  apply %.2f ms  edits %d\n"
			+ "A/D run  Space jump  C crouch  LMB dig  RMB place"
		)
		% [
			tile,
			s["loaded_chunks"],
			s["pending_chunks"],
			s["gen_ms_median"],
			s["apply_ms_last_frame"],
			s["edits"]
		]
	)
	if _screenshot_path != "" and _spawned:
		_ready_frames += 1
		if _ready_frames == 20:
			var img := get_viewport().get_texture().get_image()
			DirAccess.make_dir_recursive_absolute(_screenshot_path.get_base_dir())
			var err := img.save_png(_screenshot_path)
			print("screenshot saved to %s (%s)" % [_screenshot_path, error_string(err)])
			get_tree().quit(0 if err == OK else 1)


## Adds the demo's actions to the InputMap when the project does not define them.
func _ensure_actions() -> void:
	var keys: Dictionary[String, Array] = {
		"move_left": [KEY_A, KEY_LEFT],
		"move_right": [KEY_D, KEY_RIGHT],
		"jump": [KEY_SPACE, KEY_W],
		"crouch": [KEY_C, KEY_S],
	}
	for action: String in keys:
		if not InputMap.has_action(action):
			InputMap.add_action(action)
			for k: Key in keys[action]:
				var e := InputEventKey.new()
				e.physical_keycode = k
				InputMap.action_add_event(action, e)
	var buttons: Dictionary[String, MouseButton] = {
		"dig": MOUSE_BUTTON_LEFT, "place": MOUSE_BUTTON_RIGHT
	}
	for action: String in buttons:
		if not InputMap.has_action(action):
			InputMap.add_action(action)
			var m := InputEventMouseButton.new()
			m.button_index = buttons[action]
			InputMap.action_add_event(action, m)
