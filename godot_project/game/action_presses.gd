## Tells the presses of actions apart in a stream of input events. A key or button presses an
## action once (echoes left out), as `InputEvent.is_action_pressed` says; a stick or trigger sends
## an event at every move, so it presses an action only when it crosses the action's deadzone,
## and again only after coming back below it. One per listener (it remembers what is held).
class_name ActionPresses
extends RefCounted

## Actions held down by a stick or trigger.
var _held: Dictionary[String, bool] = {}


## Whether `event` presses `action` now.
func pressed(event: InputEvent, action: String) -> bool:
	var motion := event as InputEventJoypadMotion
	if motion == null:
		return event.is_action_pressed(action)
	if not _moves_a_binding(motion, action):
		return false
	var down := motion.is_action_pressed(action)
	var was: bool = _held.get(action, false)
	_held[action] = down
	return down and not was


## Whether `motion` is on an axis (and device) that `action` is bound to, in either direction:
## a stick coming back to the middle releases a binding of either sign.
static func _moves_a_binding(motion: InputEventJoypadMotion, action: String) -> bool:
	if not InputMap.has_action(action):
		return false
	for bound in InputMap.action_get_events(action):
		var axis := bound as InputEventJoypadMotion
		if axis != null and axis.axis == motion.axis and axis.device in [-1, motion.device]:
			return true
	return false
