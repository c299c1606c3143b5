## Heads-up display (toggle with `toggle_hud`): FPS, position, biome, time of day, weather,
## loaded/pending chunks and the main thread's apply time, plus a crosshair and the hotbar.
extends CanvasLayer

var game: Node = null # world.gd
var _label: Label
var _hotbar: Label
var _timer := 0.0

func _ready() -> void:
	layer = 5
	var cross := Label.new()
	cross.text = "+"
	cross.add_theme_font_size_override("font_size", 22)
	cross.set_anchors_preset(Control.PRESET_CENTER)
	cross.position = Vector2(-6, -16)
	add_child(cross)
	var panel := PanelContainer.new()
	panel.position = Vector2(8, 8)
	var sb := StyleBoxFlat.new()
	sb.bg_color = Color(0, 0, 0, 0.45)
	sb.set_content_margin_all(6)
	panel.add_theme_stylebox_override("panel", sb)
	add_child(panel)
	_label = Label.new()
	_label.name = "Stats"
	panel.add_child(_label)
	_hotbar = Label.new()
	_hotbar.set_anchors_preset(Control.PRESET_CENTER_BOTTOM)
	_hotbar.position = Vector2(-300, -36)
	_hotbar.custom_minimum_size = Vector2(600, 24)
	_hotbar.horizontal_alignment = HORIZONTAL_ALIGNMENT_CENTER
	add_child(_hotbar)

func _process(delta: float) -> void:
	_timer -= delta
	if _timer > 0.0 or game == null:
		return
	_timer = 0.2
	_label.text = game.stats_text()
	_hotbar.text = game.hotbar_text()
