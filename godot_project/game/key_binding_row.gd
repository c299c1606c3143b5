## One action in the settings menu's key list: its name, its binding (press to rebind) and a
## reset to the project's default. The buttons are named `Bind_<action>` and `Reset_<action>`.
class_name KeyBindingRow
extends HBoxContainer

## The bind button was pressed: the menu should wait for a key.
signal rebind_requested(action: String)

var action := ""

@onready var _label: Label = $Action
@onready var _bind: Button = $Bind
@onready var _reset: Button = $Reset


## Shows `action_name` (call once, before the row enters the tree or right after).
func setup(action_name: String) -> void:
	action = action_name
	name = "Binding_" + action


func _ready() -> void:
	_label.text = GameState.ACTION_LABELS.get(action, action)
	_bind.name = "Bind_" + action
	_reset.name = "Reset_" + action
	_bind.pressed.connect(func() -> void: rebind_requested.emit(action))
	_reset.pressed.connect(func() -> void: GameState.reset_action(action))


## Shows the current binding, or a prompt while waiting for a key.
func show_binding(waiting: bool) -> void:
	_bind.text = "Press a key…" if waiting else GameState.binding_text(action)
