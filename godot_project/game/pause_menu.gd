## Pause menu: resume, save, go to (the `GoToPanel`: world coordinates or a far spot), settings,
## main menu, and the world's seed and world code (to copy for a friend). Runs while the tree is
## paused; the game listens to its signals.
class_name PauseMenu
extends CanvasLayer

signal resume_requested
signal save_requested
signal main_menu_requested
## The player asked to go to world coordinates (x, y, z); `y` NAN: on the ground.
signal travel_requested(x: float, y: float, z: float)

const SETTINGS_MENU := preload("res://game/settings_menu.tscn")

var _settings: SettingsMenu = null

@onready var go_to_panel: GoToPanel = %GoToPanel
@onready var _resume: Button = %Resume
@onready var _status: Label = %Status
@onready var _seed: Label = %Seed
@onready var _world_code: LineEdit = %WorldCode
@onready var _buttons: CenterContainer = $Center


func _ready() -> void:
	visibility_changed.connect(_on_visibility_changed)


## Shows the world's seed and its world code ("" when it has none: the copy button is off).
func set_world(seed_value: int, code: String) -> void:
	_seed.text = "Seed %d" % seed_value
	_world_code.text = code
	_world_code.tooltip_text = code


func get_world_code() -> String:
	return _world_code.text


## Copies the world code to the clipboard (for a friend to paste in "Customize world").
func copy_world_code() -> void:
	if _world_code.text == "":
		return
	DisplayServer.clipboard_set(_world_code.text)
	_status.text = "World code copied"


## Shows a line under the buttons (the result of saving).
func set_status(text: String) -> void:
	_status.text = text


## Shows the "Go to…" panel in place of the buttons.
func open_go_to() -> void:
	_buttons.visible = false
	go_to_panel.open()


## Shows `text` on the "Go to…" panel (why a journey cannot start).
func show_travel_message(text: String) -> void:
	go_to_panel.show_message(text)


func open_settings() -> void:
	_settings = SETTINGS_MENU.instantiate()
	add_child(_settings)
	_settings.closed.connect(_on_settings_closed)


func has_open_settings() -> bool:
	return _settings != null


func _unhandled_input(event: InputEvent) -> void:
	# The game itself is paused (gets no input): the menu handles "pause" to resume.
	if visible and event.is_action_pressed("pause") and not has_open_settings():
		get_viewport().set_input_as_handled()
		if go_to_panel.visible:
			go_to_panel.visible = false
			_on_go_to_panel_closed()
		else:
			resume_requested.emit()


func _on_visibility_changed() -> void:
	if visible:
		_status.text = ""
		go_to_panel.visible = false
		_buttons.visible = true
		_resume.grab_focus.call_deferred()


func _on_settings_closed() -> void:
	_settings = null
	_resume.grab_focus.call_deferred()


func _on_resume_pressed() -> void:
	resume_requested.emit()


func _on_save_pressed() -> void:
	save_requested.emit()


func _on_main_menu_pressed() -> void:
	main_menu_requested.emit()


func _on_go_to_panel_travel_requested(x: float, y: float, z: float) -> void:
	travel_requested.emit(x, y, z)


func _on_go_to_panel_closed() -> void:
	_buttons.visible = true
	_resume.grab_focus.call_deferred()
