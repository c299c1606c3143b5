## Pause menu: resume, save, settings, main menu. Runs while the tree is paused; the game
## listens to its signals.
class_name PauseMenu
extends CanvasLayer

signal resume_requested
signal save_requested
signal main_menu_requested

const SETTINGS_MENU := preload("res://game/settings_menu.tscn")

var _settings: SettingsMenu = null

@onready var _resume: Button = %Resume
@onready var _status: Label = %Status


func _ready() -> void:
	visibility_changed.connect(_on_visibility_changed)


## Shows a line under the buttons (the result of saving).
func set_status(text: String) -> void:
	_status.text = text


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
		resume_requested.emit()


func _on_visibility_changed() -> void:
	if visible:
		_status.text = ""
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
