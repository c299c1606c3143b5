## A check box bound to one of the active user's on/off settings (`GameState`).
class_name SettingCheck
extends CheckBox

## The setting's key (see `GameState.DEFAULT_SETTINGS`).
@export var key := ""


func _ready() -> void:
	button_pressed = bool(GameState.get_setting(key))
	toggled.connect(_on_toggled)


func _on_toggled(on: bool) -> void:
	GameState.set_setting(key, on)
