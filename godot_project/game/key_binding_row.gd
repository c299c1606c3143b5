## One action in the settings menu's controls list: its name, its keyboard/mouse binding and its
## gamepad binding (press either to rebind it) and a reset to the project's defaults. The buttons
## are named `Bind_<action>`, `Pad_<action>` and `Reset_<action>`.
class_name KeyBindingRow
extends HBoxContainer

## A bind button was pressed: the menu should wait for a key or mouse button, or for a gamepad
## button or stick (`pad`).
signal rebind_requested(action: String, pad: bool)

var action := ""

@onready var _label: Label = $Action
@onready var _bind: Button = $Bind
@onready var _pad: Button = $Pad
@onready var _reset: Button = $Reset


## Shows `action_name` (call once, before the row enters the tree or right after).
func setup(action_name: String) -> void:
	action = action_name
	name = "Binding_" + action


func _ready() -> void:
	_label.text = GameState.ACTION_LABELS.get(action, action)
	_bind.name = "Bind_" + action
	_pad.name = "Pad_" + action
	_reset.name = "Reset_" + action
	_bind.pressed.connect(func() -> void: rebind_requested.emit(action, false))
	_pad.pressed.connect(func() -> void: rebind_requested.emit(action, true))
	_reset.pressed.connect(func() -> void: GameState.reset_action(action))


## Shows the current bindings, or a prompt on the one waiting for an input (`waiting_pad`: the
## gamepad's).
func show_binding(waiting: bool, waiting_pad := false) -> void:
	_bind.text = "Press a key…" if waiting and not waiting_pad else GameState.binding_text(action)
	_pad.text = (
		"Press a button…"
		if waiting and waiting_pad
		else GameState.bindings.pad_binding_text(action)
	)
