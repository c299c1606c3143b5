## Settings: view distance, far view, mouse sensitivity, invert Y, field of view, fullscreen,
## smooth lighting, texture detail (16 or 32 pixels a block side), and remapping of every
## action's key (or mouse button) and gamepad input ("press a key", "press a button": a gamepad
## button, or a stick or trigger pushed past half way), with a conflict warning and resets.
##
## Everything is stored on the active user's profile through `GameState`; changes apply at once
## (the game follows `GameState.settings_changed` and `GameState.bindings_changed`). The setting
## controls are `SettingSlider` / `SettingCheck` nodes laid out in the scene; the key list has a
## `KeyBindingRow` per action of `GameState.ACTIONS`.
class_name SettingsMenu
extends Control

signal closed

const KEY_BINDING_ROW := preload("res://game/key_binding_row.tscn")

## A stick or trigger binds once pushed this far (0..1).
const PAD_AXIS_THRESHOLD := 0.5

## The action waiting for an input ("" = none).
var waiting_action := ""
## Whether `waiting_action` waits for a gamepad input (else a key or mouse button).
var waiting_pad := false

var _rows: Array[KeyBindingRow] = []

@onready var _title: Label = %Title
@onready var _bindings: VBoxContainer = %Bindings
@onready var _conflict_label: Label = %ConflictLabel
@onready var _back: Button = %Back


func _ready() -> void:
	_title.text = "Settings — %s" % GameState.get_active_user()
	for action in GameState.ACTIONS:
		var row: KeyBindingRow = KEY_BINDING_ROW.instantiate()
		row.setup(action)
		_bindings.add_child(row)
		row.rebind_requested.connect(start_rebind)
		_rows.append(row)
	GameState.bindings_changed.connect(refresh)
	refresh()
	_back.grab_focus.call_deferred()


func _exit_tree() -> void:
	if GameState.bindings_changed.is_connected(refresh):
		GameState.bindings_changed.disconnect(refresh)


func close() -> void:
	waiting_action = ""
	waiting_pad = false
	closed.emit()
	queue_free()


## Waits for the next key or mouse button, or with `pad` the next gamepad button or stick or
## trigger push, and binds it to `action`.
func start_rebind(action: String, pad := false) -> void:
	waiting_action = action
	waiting_pad = pad
	refresh()


func _input(event: InputEvent) -> void:
	if waiting_action == "":
		if event.is_action_pressed("ui_cancel"):
			get_viewport().set_input_as_handled()
			close()
		return
	var key := event as InputEventKey
	var is_key := key != null and key.pressed and not key.echo
	var is_escape := is_key and KEY_ESCAPE in [key.physical_keycode, key.keycode]
	var bindable := _is_pad_press(event) if waiting_pad else _is_key_or_button_press(event)
	if not (bindable or is_escape):
		if KeyBindings.is_pad_event(event) or is_key:
			# Not what this binding takes: keep it from the menu's focus and buttons.
			get_viewport().set_input_as_handled()
		return
	get_viewport().set_input_as_handled()
	var action := waiting_action
	waiting_action = ""
	# Escape cancels, except when binding the action that is Escape by default.
	if is_escape and (waiting_pad or action != "pause"):
		refresh()
		return
	GameState.rebind(action, event)
	refresh()


static func _is_key_or_button_press(event: InputEvent) -> bool:
	var key := event as InputEventKey
	if key != null:
		return key.pressed and not key.echo
	return event is InputEventMouseButton and event.is_pressed()


static func _is_pad_press(event: InputEvent) -> bool:
	var motion := event as InputEventJoypadMotion
	if motion != null:
		return absf(motion.axis_value) >= PAD_AXIS_THRESHOLD
	return event is InputEventJoypadButton and event.is_pressed()


func refresh() -> void:
	for row in _rows:
		row.show_binding(row.action == waiting_action, waiting_pad)
	var lines: PackedStringArray = []
	for conflict in GameState.conflicts():
		var names: PackedStringArray = []
		for action: String in conflict["actions"]:
			names.append(GameState.ACTION_LABELS.get(action, action))
		lines.append("Warning: %s is bound to %s" % [conflict["event"], " and ".join(names)])
	_conflict_label.text = "\n".join(lines)


## Number of binding conflicts shown.
func conflict_count() -> int:
	return GameState.conflicts().size()


func _on_reset_all_pressed() -> void:
	GameState.reset_all()
