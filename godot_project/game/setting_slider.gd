## A slider bound to one of the active user's settings (`GameState`): it starts at the stored
## value, shows it in `value_label`, and stores every change at once.
class_name SettingSlider
extends HSlider

## The setting's key (see `GameState.DEFAULT_SETTINGS`).
@export var key := ""
## Stores whole numbers (a float setting such as the field of view stays a float).
@export var whole_numbers := true
@export var value_label: Label


func _ready() -> void:
	value = float(GameState.get_setting(key))
	_show(value)
	value_changed.connect(_on_value_changed)


func _show(x: float) -> void:
	if value_label != null:
		value_label.text = str(int(x)) if step >= 1.0 else "%.2f" % x


func _on_value_changed(x: float) -> void:
	_show(x)
	GameState.set_setting(key, int(x) if whole_numbers else x)
