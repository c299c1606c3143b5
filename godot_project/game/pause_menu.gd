## Pause menu: resume, save, settings, main menu. Runs while the tree is paused.
extends CanvasLayer

signal resume_requested
signal save_requested
signal main_menu_requested

var _box: VBoxContainer
var _status: Label

func _ready() -> void:
	layer = 20
	process_mode = Node.PROCESS_MODE_ALWAYS
	var bg := ColorRect.new()
	bg.color = Color(0, 0, 0, 0.5)
	bg.set_anchors_preset(Control.PRESET_FULL_RECT)
	add_child(bg)
	var center := CenterContainer.new()
	center.set_anchors_preset(Control.PRESET_FULL_RECT)
	add_child(center)
	_box = VBoxContainer.new()
	_box.custom_minimum_size = Vector2(280, 0)
	_box.add_theme_constant_override("separation", 10)
	center.add_child(_box)
	var title := Label.new()
	title.text = "Paused"
	title.horizontal_alignment = HORIZONTAL_ALIGNMENT_CENTER
	title.add_theme_font_size_override("font_size", 30)
	_box.add_child(title)
	_button("Resume", func(): resume_requested.emit())
	_button("Save", func(): save_requested.emit())
	_button("Settings", open_settings)
	_button("Main menu", func(): main_menu_requested.emit())
	_status = Label.new()
	_status.horizontal_alignment = HORIZONTAL_ALIGNMENT_CENTER
	_box.add_child(_status)
	visibility_changed.connect(func(): if visible: _status.text = ""; _focus_first())

func _button(text: String, cb: Callable) -> Button:
	var b := Button.new()
	b.name = text.replace(" ", "")
	b.text = text
	b.custom_minimum_size.y = 40
	b.pressed.connect(cb)
	_box.add_child(b)
	return b

func _focus_first() -> void:
	(_box.get_node("Resume") as Button).grab_focus.call_deferred()

func set_status(text: String) -> void:
	_status.text = text

func open_settings() -> void:
	var s: Control = load("res://game/settings_menu.tscn").instantiate()
	add_child(s)
	s.closed.connect(_focus_first)

func has_open_settings() -> bool:
	for c in get_children():
		if c is SettingsMenu:
			return true
	return false

func _unhandled_input(event: InputEvent) -> void:
	# The game itself is paused (gets no input): the menu handles "pause" to resume.
	if visible and event.is_action_pressed("pause") and not has_open_settings():
		get_viewport().set_input_as_handled()
		resume_requested.emit()
