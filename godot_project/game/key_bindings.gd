## The demo's actions and their bindings on the active user's profile: each action has a
## keyboard/mouse binding and a gamepad binding, rebound apart.
##
## `StrataUserProfiles.rebind` binds an action to one input alone, so the keyboard/mouse binding
## is the profile's binding override (keys by physical keycode) and the gamepad binding is the
## profile setting `pad_<action>` (an `input_id`); each is stored only while it differs from the
## project's input map. Whenever the profile applies its bindings to the InputMap,
## `_apply_pad_bindings` puts each action's gamepad input back beside its key. `GameState` holds
## one as `bindings`.
class_name KeyBindings
extends RefCounted

## The InputMap holds the active profile's bindings anew.
signal changed

## Every action the game reads, in the order the settings menu lists them.
const ACTIONS: Array[String] = [
	"move_forward",
	"move_back",
	"move_left",
	"move_right",
	"look_left",
	"look_right",
	"look_up",
	"look_down",
	"jump",
	"sprint",
	"crouch",
	"prone",
	"dig",
	"place",
	"interact",
	"hotbar_next",
	"hotbar_previous",
	"hotbar_1",
	"hotbar_2",
	"hotbar_3",
	"hotbar_4",
	"hotbar_5",
	"hotbar_6",
	"hotbar_7",
	"hotbar_8",
	"hotbar_9",
	"pause",
	"toggle_hud",
	"debug_view",
	"chat",
]
const ACTION_LABELS: Dictionary[String, String] = {
	"move_forward": "Forward",
	"move_back": "Back",
	"move_left": "Left",
	"move_right": "Right",
	"look_left": "Look left",
	"look_right": "Look right",
	"look_up": "Look up",
	"look_down": "Look down",
	"jump": "Jump",
	"sprint": "Sprint",
	"crouch": "Crouch",
	"prone": "Prone",
	"dig": "Dig",
	"place": "Place",
	"interact": "Open / use",
	"hotbar_next": "Next block",
	"hotbar_previous": "Previous block",
	"hotbar_1": "Block 1",
	"hotbar_2": "Block 2",
	"hotbar_3": "Block 3",
	"hotbar_4": "Block 4",
	"hotbar_5": "Block 5",
	"hotbar_6": "Block 6",
	"hotbar_7": "Block 7",
	"hotbar_8": "Block 8",
	"hotbar_9": "Block 9",
	"pause": "Pause",
	"toggle_hud": "Toggle HUD",
	"debug_view": "Debug view (chunks, far view, collision)",
	"chat": "Chat (multiplayer)",
}
## Names of the gamepad's buttons by `JoyButton` index (Xbox layout, as Godot names them).
const PAD_BUTTONS: Array[String] = [
	"A",
	"B",
	"X",
	"Y",
	"Back",
	"Guide",
	"Start",
	"Left stick press",
	"Right stick press",
	"LB",
	"RB",
	"D-pad up",
	"D-pad down",
	"D-pad left",
	"D-pad right",
]
## Profile settings holding each action's gamepad binding: `pad_<action>`, "" for the project's.
const PAD_SETTING_PREFIX := "pad_"

var _profiles: StrataUserProfiles
## The project's events of each of `ACTIONS`, as the InputMap held them when this was made.
var _default_events: Dictionary[String, Array] = {}


## Bindings kept on `profiles` (before it enters the tree, while the InputMap is the project's).
func _init(profiles: StrataUserProfiles) -> void:
	_profiles = profiles
	for action in ACTIONS:
		if InputMap.has_action(action):
			_default_events[action] = InputMap.action_get_events(action)
	_profiles.bindings_changed.connect(_on_profile_bindings_changed)


## Whether `event` comes from a gamepad (a button or a stick or trigger).
static func is_pad_event(event: InputEvent) -> bool:
	return event is InputEventJoypadButton or event is InputEventJoypadMotion


## Binds `action` to `event` alone among its inputs of the same kind (keyboard and mouse, or
## gamepad), on the active profile; the other kind keeps its binding.
func rebind(action: String, event: InputEvent) -> void:
	if is_pad_event(event):
		_set_pad_binding(action, input_id(event))
		return
	var defaults := default_events(action, false)
	var err := OK
	if defaults.size() == 1 and input_id(defaults[0]) == input_id(event):
		# Back to the project's binding: nothing to keep on the profile.
		err = _profiles.reset_action(action)
	else:
		err = _profiles.rebind(action, event)
	if err != OK:
		push_warning("KeyBindings: " + _profiles.last_error())


## Restores the project's default bindings (keyboard, mouse and gamepad) of `action`.
func reset_action(action: String) -> void:
	_clear_pad_binding(action)
	_profiles.reset_action(action)


## Restores every default binding.
func reset_all() -> void:
	for action in ACTIONS:
		_clear_pad_binding(action)
	_profiles.reset_all()


## The project's events of `action` from a gamepad (`pad`) or from keyboard and mouse.
func default_events(action: String, pad: bool) -> Array[InputEvent]:
	var out: Array[InputEvent] = []
	for event: InputEvent in _default_events.get(action, []):
		if is_pad_event(event) == pad:
			out.append(event)
	return out


## The active profile's gamepad binding of `action` as an `input_id`, "" for the project's.
func pad_override(action: String) -> String:
	var stored: Variant = _profiles.get_setting(PAD_SETTING_PREFIX + action)
	return str(stored) if stored is String else ""


func _set_pad_binding(action: String, id: String) -> void:
	var defaults := default_events(action, true)
	if defaults.size() == 1 and input_id(defaults[0]) == id:
		id = ""
	if id != pad_override(action):
		if _profiles.set_setting(PAD_SETTING_PREFIX + action, id) != OK:
			push_warning("KeyBindings: " + _profiles.last_error())
			return
	_apply_pad_bindings()
	changed.emit()


func _clear_pad_binding(action: String) -> void:
	if _profiles.get_active_user() != "" and pad_override(action) != "":
		_profiles.set_setting(PAD_SETTING_PREFIX + action, "")


func _on_profile_bindings_changed() -> void:
	_apply_pad_bindings()
	changed.emit()


## Puts each action's gamepad binding (the profile's, else the project's) beside its keyboard
## and mouse binding in the InputMap.
func _apply_pad_bindings() -> void:
	for action in ACTIONS:
		if not InputMap.has_action(action):
			continue
		for event in InputMap.action_get_events(action):
			if is_pad_event(event):
				InputMap.action_erase_event(action, event)
		var stored: InputEvent = null
		if _profiles.get_active_user() != "":
			stored = pad_event(pad_override(action))
		if stored != null:
			InputMap.action_add_event(action, stored)
		else:
			for event in default_events(action, true):
				InputMap.action_add_event(action, event)


## Inputs bound to more than one of the game's actions:
## `[{ "event": text, "actions": Array[String] }]`.
func conflicts() -> Array[Dictionary]:
	var out: Array[Dictionary] = []
	for conflict: Dictionary in _profiles.conflicts():
		var actions: Array[String] = []
		for action: String in conflict["actions"]:
			if action in ACTIONS:
				actions.append(action)
		if actions.size() > 1:
			out.append({"event": event_text(conflict["event"]), "actions": actions})
	return out


## Text for the first keyboard or mouse event of `action` ("W", "Left mouse", ...).
func binding_text(action: String) -> String:
	return _first_event_text(action, false)


## Text for the first gamepad event of `action` ("A", "Left stick up", ...).
func pad_binding_text(action: String) -> String:
	return _first_event_text(action, true)


func _first_event_text(action: String, pad: bool) -> String:
	if not InputMap.has_action(action):
		return "—"
	for event in InputMap.action_get_events(action):
		if is_pad_event(event) == pad:
			return event_text(event)
	return "—"


static func event_text(event: InputEvent) -> String:
	var key := event as InputEventKey
	if key != null:
		return OS.get_keycode_string(
			key.physical_keycode if key.physical_keycode != KEY_NONE else key.keycode
		)
	var button := event as InputEventMouseButton
	if button != null:
		match button.button_index:
			MOUSE_BUTTON_LEFT:
				return "Left mouse"
			MOUSE_BUTTON_RIGHT:
				return "Right mouse"
			MOUSE_BUTTON_MIDDLE:
				return "Middle mouse"
			MOUSE_BUTTON_WHEEL_UP:
				return "Wheel up"
			MOUSE_BUTTON_WHEEL_DOWN:
				return "Wheel down"
		return "Mouse %d" % button.button_index
	var pad_button := event as InputEventJoypadButton
	if pad_button != null:
		var index := int(pad_button.button_index)
		return PAD_BUTTONS[index] if index < PAD_BUTTONS.size() else "Pad button %d" % index
	var motion := event as InputEventJoypadMotion
	if motion != null:
		return _axis_text(int(motion.axis), motion.axis_value < 0.0)
	return "?" if event == null else event.as_text()


static func _axis_text(axis: int, negative: bool) -> String:
	match axis:
		JOY_AXIS_LEFT_X, JOY_AXIS_RIGHT_X:
			var stick := "Left" if axis == JOY_AXIS_LEFT_X else "Right"
			return "%s stick %s" % [stick, "left" if negative else "right"]
		JOY_AXIS_LEFT_Y, JOY_AXIS_RIGHT_Y:
			var stick := "Left" if axis == JOY_AXIS_LEFT_Y else "Right"
			return "%s stick %s" % [stick, "up" if negative else "down"]
		JOY_AXIS_TRIGGER_LEFT:
			return "LT"
		JOY_AXIS_TRIGGER_RIGHT:
			return "RT"
	return "Pad axis %d %s" % [axis, "-" if negative else "+"]


## `event`'s input as stored text: "key <physical keycode>", "mouse <button>",
## "button <gamepad button>" or "axis <axis> <-1 or 1>"; "" for other events.
static func input_id(event: InputEvent) -> String:
	var key := event as InputEventKey
	if key != null:
		return (
			"key %d" % (key.physical_keycode if key.physical_keycode != KEY_NONE else key.keycode)
		)
	var mouse := event as InputEventMouseButton
	if mouse != null:
		return "mouse %d" % mouse.button_index
	var pad_button := event as InputEventJoypadButton
	if pad_button != null:
		return "button %d" % pad_button.button_index
	var motion := event as InputEventJoypadMotion
	if motion != null:
		return "axis %d %d" % [motion.axis, -1 if motion.axis_value < 0.0 else 1]
	return ""


## The gamepad event an `input_id` names; null when it names none (or a value out of range).
static func pad_event(id: String) -> InputEvent:
	var parts := id.split(" ")
	for i in range(1, parts.size()):
		if not parts[i].is_valid_int():
			return null
	if parts.size() == 2 and parts[0] == "button":
		var index := int(parts[1])
		if index < 0 or index >= JOY_BUTTON_MAX:
			return null
		var pad_button := InputEventJoypadButton.new()
		pad_button.button_index = index as JoyButton
		pad_button.pressed = true
		return pad_button
	if parts.size() == 3 and parts[0] == "axis":
		var axis := int(parts[1])
		if axis < 0 or axis >= JOY_AXIS_MAX:
			return null
		var motion := InputEventJoypadMotion.new()
		motion.axis = axis as JoyAxis
		motion.axis_value = -1.0 if int(parts[2]) < 0 else 1.0
		return motion
	return null
