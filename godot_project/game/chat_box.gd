## The chat line of a shared world: the `chat` action (Enter) opens a text field at the bottom
## left, Enter sends, Escape cancels. The last `MAX_LINES` messages show above it as
## "name: text" and fade out `SHOW_S` seconds after they arrived (all show while typing).
class_name ChatBox
extends CanvasLayer

## The player typed a line and pressed Enter.
signal message_submitted(text: String)
## The text field opened or closed (the game stops moving the player while it is open).
signal typing_changed(typing: bool)

const MAX_LINES := 8
const SHOW_S := 10.0
const FADE_S := 1.5
## The longest line the server passes on, in bytes.
const MAX_MESSAGE_BYTES := 256

## Whether the chat takes the `chat` action (only in a shared world).
var enabled := false

@onready var _log: VBoxContainer = %Log
@onready var _field: LineEdit = %Input


func _ready() -> void:
	_field.visible = false
	_field.max_length = MAX_MESSAGE_BYTES


func is_typing() -> bool:
	return _field.visible


## Adds a line to the log (the oldest goes beyond `MAX_LINES`).
func add_line(player_name: String, text: String) -> void:
	var line := Label.new()
	line.text = "%s: %s" % [player_name, text]
	line.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	line.add_theme_color_override("font_outline_color", Color(0, 0, 0, 0.9))
	line.add_theme_constant_override("outline_size", 6)
	line.set_meta("shown_at", _now())
	_log.add_child(line)
	while _log.get_child_count() > MAX_LINES:
		var oldest := _log.get_child(0)
		_log.remove_child(oldest)
		oldest.queue_free()


## The log's lines, oldest first.
func get_lines() -> PackedStringArray:
	var out := PackedStringArray()
	for line: Label in _log.get_children():
		out.append(line.text)
	return out


func open() -> void:
	if not enabled or is_typing():
		return
	_field.text = ""
	_field.visible = true
	_field.grab_focus()
	typing_changed.emit(true)


func close() -> void:
	if not is_typing():
		return
	_field.release_focus()
	_field.visible = false
	typing_changed.emit(false)


func _unhandled_input(event: InputEvent) -> void:
	if enabled and not is_typing() and event.is_action_pressed("chat"):
		open()
		get_viewport().set_input_as_handled()


func _input(event: InputEvent) -> void:
	# Escape cancels before the game would pause.
	var key := event as InputEventKey
	var escape := key != null and key.pressed and KEY_ESCAPE in [key.keycode, key.physical_keycode]
	if is_typing() and escape:
		close()
		get_viewport().set_input_as_handled()


func _process(_delta: float) -> void:
	var now := _now()
	for line: Label in _log.get_children():
		var age := now - float(line.get_meta("shown_at"))
		line.modulate.a = 1.0 if is_typing() else clampf((SHOW_S + FADE_S - age) / FADE_S, 0.0, 1.0)


func _on_input_text_submitted(text: String) -> void:
	close()
	if text.strip_edges() != "":
		message_submitted.emit(text.strip_edges())


static func _now() -> float:
	return Time.get_ticks_msec() / 1000.0
