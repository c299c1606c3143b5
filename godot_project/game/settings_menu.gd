## Settings: view distance, far view, mouse sensitivity, invert Y, field of view, fullscreen,
## smooth lighting, and key remapping for every action ("press a key"), with a conflict warning
## and resets.
##
## Everything is stored on the active user's profile through `GameState`; changes apply at once
## (the game follows `GameState.settings_changed` and `GameState.bindings_changed`). The setting
## controls are `SettingSlider` / `SettingCheck` nodes laid out in the scene; the key list has a
## `KeyBindingRow` per action of `GameState.ACTIONS`.
class_name SettingsMenu
extends Control

signal closed

const KEY_BINDING_ROW := preload("res://game/key_binding_row.tscn")

## The action waiting for a key press ("" = none).
var waiting_action := ""

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
	closed.emit()
	queue_free()


## Waits for the next key or mouse button and binds it to `action`.
func start_rebind(action: String) -> void:
	waiting_action = action
	refresh()


func _input(event: InputEvent) -> void:
	if waiting_action == "":
		if event.is_action_pressed("ui_cancel"):
			get_viewport().set_input_as_handled()
			close()
		return
	var key := event as InputEventKey
	var is_key := key != null and key.pressed and not key.echo
	var is_button := event is InputEventMouseButton and event.is_pressed()
	if not (is_key or is_button):
		return
	get_viewport().set_input_as_handled()
	var action := waiting_action
	waiting_action = ""
	# Escape cancels, except when binding the action that is Escape by default.
	if is_key and KEY_ESCAPE in [key.physical_keycode, key.keycode] and action != "pause":
		refresh()
		return
	GameState.rebind(action, event)
	refresh()


func refresh() -> void:
	for row in _rows:
		row.show_binding(row.action == waiting_action)
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
