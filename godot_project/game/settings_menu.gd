## Settings: view distance, mouse sensitivity, invert Y, field of view, fullscreen, and key
## remapping for every action ("press a key"), with a conflict warning and resets.
##
## Everything is stored on the active user's profile through `GameState` (which uses the
## extension's UserProfiles when present). Changes apply at once; listeners use
## `GameState.settings_changed` / `GameState.bindings_changed`.
class_name SettingsMenu
extends Control

signal closed

## The action waiting for a key press ("" = none).
var waiting_action := ""

var _bind_buttons := {}
var _conflict_label: Label
var _controls := {}

func _ready() -> void:
	process_mode = Node.PROCESS_MODE_ALWAYS
	set_anchors_preset(Control.PRESET_FULL_RECT)
	mouse_filter = Control.MOUSE_FILTER_STOP
	var bg := ColorRect.new()
	bg.color = Color(0, 0, 0, 0.6)
	bg.set_anchors_preset(Control.PRESET_FULL_RECT)
	add_child(bg)
	var panel := PanelContainer.new()
	panel.set_anchors_preset(Control.PRESET_CENTER)
	panel.custom_minimum_size = Vector2(620, 620)
	panel.position = Vector2(-310, -310)
	var style := StyleBoxFlat.new()
	style.bg_color = Color(0.11, 0.13, 0.16)
	style.set_corner_radius_all(6)
	panel.add_theme_stylebox_override("panel", style)
	add_child(panel)
	var margin := MarginContainer.new()
	for side in ["left", "right", "top", "bottom"]:
		margin.add_theme_constant_override("margin_" + side, 14)
	panel.add_child(margin)
	var outer := VBoxContainer.new()
	margin.add_child(outer)
	var title := Label.new()
	title.text = "Settings — %s" % GameState.get_active_user()
	title.add_theme_font_size_override("font_size", 24)
	outer.add_child(title)
	var scroll := ScrollContainer.new()
	scroll.size_flags_vertical = Control.SIZE_EXPAND_FILL
	scroll.horizontal_scroll_mode = ScrollContainer.SCROLL_MODE_DISABLED
	outer.add_child(scroll)
	var box := VBoxContainer.new()
	box.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	scroll.add_child(box)

	_add_slider(box, "view_distance", "View distance (chunks)", 2, 16, 1)
	_add_slider(box, "far_view", "Far view (levels, each doubles the reach)", 0, 6, 1)
	_add_slider(box, "mouse_sensitivity", "Mouse sensitivity (×)", 0.1, 3.0, 0.05)
	_add_check(box, "invert_y", "Invert Y")
	_add_slider(box, "fov", "Field of view", 50, 110, 1)
	_add_check(box, "fullscreen", "Fullscreen")
	_add_check(box, "smooth_lighting", "Smooth lighting (ambient occlusion; off meshes faster)")

	var ctl := Label.new()
	ctl.text = "Controls (click, then press a key or mouse button; Esc cancels)"
	box.add_child(ctl)
	var grid := GridContainer.new()
	grid.columns = 3
	box.add_child(grid)
	for action in GameState.ACTIONS:
		var l := Label.new()
		l.text = GameState.ACTION_LABELS.get(action, action)
		l.custom_minimum_size.x = 160
		grid.add_child(l)
		var b := Button.new()
		b.name = "Bind_" + action
		b.custom_minimum_size.x = 220
		b.pressed.connect(start_rebind.bind(action))
		grid.add_child(b)
		_bind_buttons[action] = b
		var r := Button.new()
		r.name = "Reset_" + action
		r.text = "Reset"
		r.pressed.connect(func(): GameState.reset_action(action))
		grid.add_child(r)
	_conflict_label = Label.new()
	_conflict_label.name = "ConflictLabel"
	_conflict_label.add_theme_color_override("font_color", Color(1, 0.45, 0.35))
	_conflict_label.autowrap_mode = TextServer.AUTOWRAP_WORD
	box.add_child(_conflict_label)

	var row := HBoxContainer.new()
	outer.add_child(row)
	var reset_all := Button.new()
	reset_all.name = "ResetAll"
	reset_all.text = "Reset all keys"
	reset_all.pressed.connect(func(): GameState.reset_all())
	row.add_child(reset_all)
	var spacer := Control.new()
	spacer.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	row.add_child(spacer)
	var back := Button.new()
	back.name = "Back"
	back.text = "Back"
	back.pressed.connect(close)
	row.add_child(back)
	GameState.bindings_changed.connect(refresh)
	refresh()
	back.grab_focus.call_deferred()

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
	var is_key: bool = event is InputEventKey and event.pressed and not event.echo
	var is_button: bool = event is InputEventMouseButton and event.pressed
	if not (is_key or is_button):
		return
	get_viewport().set_input_as_handled()
	var action := waiting_action
	waiting_action = ""
	if is_key and (event.physical_keycode == KEY_ESCAPE or event.keycode == KEY_ESCAPE) and action != "pause":
		refresh()
		return
	GameState.rebind(action, event)
	refresh()

func refresh() -> void:
	for action in _bind_buttons:
		var b: Button = _bind_buttons[action]
		b.text = "Press a key…" if action == waiting_action else GameState.binding_text(action)
	var c := GameState.conflicts()
	var lines: PackedStringArray = []
	for x in c:
		var names: PackedStringArray = []
		for a in x["actions"]:
			names.append(GameState.ACTION_LABELS.get(a, a))
		lines.append("Warning: %s is bound to %s" % [x["event"], " and ".join(names)])
	_conflict_label.text = "\n".join(lines)

## Number of binding conflicts shown.
func conflict_count() -> int:
	return GameState.conflicts().size()

func _add_slider(box: Container, key: String, label: String, lo: float, hi: float, step: float) -> void:
	var row := HBoxContainer.new()
	box.add_child(row)
	var l := Label.new()
	l.text = label
	l.custom_minimum_size.x = 220
	row.add_child(l)
	var s := HSlider.new()
	s.name = "Setting_" + key
	s.min_value = lo
	s.max_value = hi
	s.step = step
	s.value = float(GameState.get_setting(key))
	s.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	s.size_flags_vertical = Control.SIZE_SHRINK_CENTER
	row.add_child(s)
	var v := Label.new()
	v.custom_minimum_size.x = 60
	v.text = _fmt(s.value, step)
	row.add_child(v)
	s.value_changed.connect(func(x: float):
		v.text = _fmt(x, step)
		GameState.set_setting(key, int(x) if step >= 1.0 and key != "fov" else x))
	_controls[key] = s

func _add_check(box: Container, key: String, label: String) -> void:
	var c := CheckBox.new()
	c.name = "Setting_" + key
	c.text = label
	c.button_pressed = bool(GameState.get_setting(key))
	c.toggled.connect(func(on: bool): GameState.set_setting(key, on))
	box.add_child(c)
	_controls[key] = c

static func _fmt(x: float, step: float) -> String:
	return str(int(x)) if step >= 1.0 else "%.2f" % x
