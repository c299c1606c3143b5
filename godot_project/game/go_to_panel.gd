## The pause menu's "Go to…" panel: world coordinates x, y (optional: empty is "on the ground")
## and z, checked before anything moves (numbers within the world's travel limits, a clear line
## otherwise), and two far spots for seeing the world far from its start: x = z = 1,000,000 and
## x = z = 1,000,000,000 (the same spot for a seed in every run). The game does the journey
## (`Travel`); this panel only asks for it.
class_name GoToPanel
extends PanelContainer

## Go to world coordinates (x, y, z); `y` is NAN for "on the ground".
signal travel_requested(x: float, y: float, z: float)
## Back to the pause menu.
signal closed

## The far spots' x = z.
const NEAR_FAR := 1_000_000
const FAR_FAR := 1_000_000_000

@onready var _x: LineEdit = %X
@onready var _y: LineEdit = %Y
@onready var _z: LineEdit = %Z
@onready var _message: Label = %Message


## Shows the panel, its message cleared, the x field focused.
func open() -> void:
	visible = true
	_message.text = ""
	_x.grab_focus.call_deferred()


## Shows `text` under the fields (what was wrong, or why travel is off).
func show_message(text: String) -> void:
	_message.text = text


func get_message() -> String:
	return _message.text


## Fills the fields (as typed by the player) and asks to go there; returns the message shown
## ("" when the journey was asked for).
func submit(x_text: String, y_text: String, z_text: String) -> String:
	_x.text = x_text
	_y.text = y_text
	_z.text = z_text
	_on_go_pressed()
	return _message.text


## The number typed for `axis` in `text`: { "value": float, "error": String }. Empty is NAN
## when `optional`, else an error. Thousands may be grouped with "_", spaces, or commas between
## groups of three digits ("1,000,000"); exponents ("1e9") are fine.
static func parse_coordinate(text: String, axis: String, optional: bool) -> Dictionary:
	var t := text.strip_edges().replace("_", "").replace(" ", "")
	var grouped := RegEx.create_from_string("^[+-]?\\d{1,3}(,\\d{3})+(\\.\\d*)?$")
	if grouped.search(t) != null:
		t = t.replace(",", "")
	if t == "":
		if optional:
			return {"value": NAN, "error": ""}
		return {"value": NAN, "error": "%s is needed" % axis}
	if not t.is_valid_float():
		return {"value": NAN, "error": '%s: "%s" is not a number' % [axis, text.strip_edges()]}
	var value := t.to_float()
	var where := Travel.check_destination(
		value if axis == "x" else 0.0, value if axis == "y" else NAN, value if axis == "z" else 0.0
	)
	return {"value": value, "error": where}


func _on_go_pressed() -> void:
	var values: Array[float] = []
	for field: Array in [[_x, "x", false], [_y, "y", true], [_z, "z", false]]:
		var parsed := parse_coordinate((field[0] as LineEdit).text, field[1], field[2])
		if str(parsed["error"]) != "":
			_message.text = parsed["error"]
			return
		values.append(parsed["value"])
	_message.text = ""
	travel_requested.emit(values[0], values[1], values[2])


func _on_far_pressed(distance: int) -> void:
	_message.text = ""
	travel_requested.emit(float(distance), NAN, float(distance))


func _on_near_far_pressed() -> void:
	_on_far_pressed(NEAR_FAR)


func _on_far_far_pressed() -> void:
	_on_far_pressed(FAR_FAR)


func _on_field_submitted(_text: String) -> void:
	_on_go_pressed()


func _on_back_pressed() -> void:
	visible = false
	closed.emit()
