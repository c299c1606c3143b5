## Main menu: pick or create a user profile, start a new world (preset with preview, seed,
## random seed, day length), continue the last save, settings, the 2D side view, quit.
extends Control

const WORLD_SCENE := "res://game/world.tscn"
const SIDE_VIEW := "res://demo2d/side_view.tscn"

var _users: OptionButton
var _new_user: LineEdit
var _presets: ItemList
var _preview: TextureRect
var _seed: LineEdit
var _day_length: SpinBox
var _continue: Button
var _status: Label
var _preset_entries: Array = []
var _main_box: Control
var _map_cache := {}

func _ready() -> void:
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE
	set_anchors_preset(Control.PRESET_FULL_RECT)
	var bg := ColorRect.new()
	bg.color = Color(0.09, 0.11, 0.14)
	bg.set_anchors_preset(Control.PRESET_FULL_RECT)
	add_child(bg)
	var margin := MarginContainer.new()
	margin.set_anchors_preset(Control.PRESET_FULL_RECT)
	for side in ["left", "right", "top", "bottom"]:
		margin.add_theme_constant_override("margin_" + side, 28)
	add_child(margin)
	var cols := HBoxContainer.new()
	cols.add_theme_constant_override("separation", 28)
	margin.add_child(cols)
	_main_box = cols

	# Left: title, profile, actions.
	var left := VBoxContainer.new()
	left.custom_minimum_size.x = 330
	left.add_theme_constant_override("separation", 10)
	cols.add_child(left)
	var title := Label.new()
	title.text = "STRATA"
	title.add_theme_font_size_override("font_size", 56)
	left.add_child(title)
	var sub := Label.new()
	sub.text = "Infinite seeded voxel worlds"
	sub.modulate = Color(1, 1, 1, 0.7)
	left.add_child(sub)
	left.add_child(HSeparator.new())
	left.add_child(_label("Player profile"))
	_users = OptionButton.new()
	_users.name = "Users"
	_users.item_selected.connect(_on_user_selected)
	left.add_child(_users)
	var nu := HBoxContainer.new()
	left.add_child(nu)
	_new_user = LineEdit.new()
	_new_user.name = "NewUserName"
	_new_user.placeholder_text = "New profile name"
	_new_user.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	_new_user.text_submitted.connect(func(_t): _create_user())
	nu.add_child(_new_user)
	var create := Button.new()
	create.name = "CreateUser"
	create.text = "Create"
	create.pressed.connect(_create_user)
	nu.add_child(create)
	left.add_child(HSeparator.new())
	_continue = _big_button(left, "Continue", _on_continue)
	_continue.disabled = not GameState.has_save()
	_continue.tooltip_text = "Continue the last saved game" if GameState.has_save() else "No saved game yet"
	_big_button(left, "Settings", _open_settings)
	var side := _big_button(left, "2D side view", _open_side_view)
	side.name = "SideView"
	side.disabled = not ResourceLoader.exists(SIDE_VIEW)
	if side.disabled:
		side.tooltip_text = "Not available in this build"
	_big_button(left, "Quit", func(): get_tree().quit())
	_status = Label.new()
	_status.autowrap_mode = TextServer.AUTOWRAP_WORD
	_status.modulate = Color(1, 0.8, 0.5)
	left.add_child(_status)

	# Right: new world.
	var right := VBoxContainer.new()
	right.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	right.add_theme_constant_override("separation", 10)
	cols.add_child(right)
	var nw := Label.new()
	nw.text = "New world"
	nw.add_theme_font_size_override("font_size", 28)
	right.add_child(nw)
	var row := HBoxContainer.new()
	row.size_flags_vertical = Control.SIZE_EXPAND_FILL
	row.add_theme_constant_override("separation", 16)
	right.add_child(row)
	_presets = ItemList.new()
	_presets.name = "Presets"
	_presets.custom_minimum_size = Vector2(260, 260)
	_presets.size_flags_vertical = Control.SIZE_EXPAND_FILL
	_presets.item_selected.connect(_on_preset_selected)
	row.add_child(_presets)
	_preview = TextureRect.new()
	_preview.name = "Preview"
	_preview.custom_minimum_size = Vector2(320, 240)
	_preview.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	_preview.expand_mode = TextureRect.EXPAND_IGNORE_SIZE
	_preview.stretch_mode = TextureRect.STRETCH_KEEP_ASPECT_CENTERED
	_preview.texture_filter = CanvasItem.TEXTURE_FILTER_NEAREST
	row.add_child(_preview)
	var seed_row := HBoxContainer.new()
	right.add_child(seed_row)
	seed_row.add_child(_label("Seed"))
	_seed = LineEdit.new()
	_seed.name = "Seed"
	_seed.placeholder_text = "preset's own seed"
	_seed.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	_seed.text_submitted.connect(func(_t): _refresh_preview())
	_seed.focus_exited.connect(_refresh_preview)
	seed_row.add_child(_seed)
	var rnd := Button.new()
	rnd.name = "RandomSeed"
	rnd.text = "Random seed"
	rnd.pressed.connect(randomize_seed)
	seed_row.add_child(rnd)
	var day_row := HBoxContainer.new()
	right.add_child(day_row)
	day_row.add_child(_label("Day length (minutes)"))
	_day_length = SpinBox.new()
	_day_length.name = "DayLength"
	_day_length.min_value = 1
	_day_length.max_value = 120
	_day_length.step = 1
	_day_length.value = 10
	day_row.add_child(_day_length)
	var start := _big_button(right, "Create world", start_new_world)
	start.name = "CreateWorld"

	_fill_users()
	_fill_presets()
	start.grab_focus.call_deferred()

func _label(text: String) -> Label:
	var l := Label.new()
	l.text = text
	return l

func _big_button(parent: Container, text: String, cb: Callable) -> Button:
	var b := Button.new()
	b.name = text.replace(" ", "")
	b.text = text
	b.custom_minimum_size.y = 42
	b.pressed.connect(cb)
	parent.add_child(b)
	return b

func _fill_users() -> void:
	_users.clear()
	var active := GameState.get_active_user()
	var users := GameState.list_users()
	for i in users.size():
		_users.add_item(users[i])
		if users[i] == active:
			_users.select(i)

func _on_user_selected(i: int) -> void:
	GameState.set_active_user(_users.get_item_text(i))

func _create_user() -> void:
	var n := _new_user.text.strip_edges()
	if n == "":
		_status.text = "Type a name for the new profile."
		return
	if GameState.create_user(n):
		GameState.set_active_user(n)
		_new_user.text = ""
		_status.text = "Profile \"%s\" created." % n
		_fill_users()
	else:
		var err := GameState.last_error()
		_status.text = err if err != "" else "Cannot create \"%s\" (name taken?)." % n

func _fill_presets() -> void:
	_preset_entries = GameState.list_presets()
	_presets.clear()
	var default_index := 0
	for i in _preset_entries.size():
		var e: Dictionary = _preset_entries[i]
		_presets.add_item(e["name"])
		if str(e["path"]).ends_with("default_hills.tres"):
			default_index = i
	_presets.select(default_index)
	_on_preset_selected(default_index)

func _on_preset_selected(i: int) -> void:
	var e: Dictionary = _preset_entries[i]
	_preview.texture = e["preview"]
	if e["preview"] == null:
		var key := "%s:%d" % [e["path"], get_seed()]
		if not _map_cache.has(key):
			_map_cache[key] = _map_preview(key)
		_preview.texture = _map_cache[key]

## A small top-down height map of the preset around the origin (no preview image shipped):
## water below sea level, then sand, grass, rock and snow by height.
func _map_preview(path: String) -> Texture2D:
	var preset := GameState.make_preset(path, get_seed())
	if preset == null:
		return _placeholder_preview("")
	var w := ChunkWorld.new()
	w.preset = preset
	var sea := int(preset.get("water_sea_level")) if preset.get("water_enabled") else -100000
	var size := Vector2i(96, 72)
	var stride := 6
	var img := Image.create(size.x, size.y, false, Image.FORMAT_RGB8)
	var t0 := Time.get_ticks_msec()
	for y in size.y:
		for x in size.x:
			var h := w.get_height((x - size.x / 2) * stride, (y - size.y / 2) * stride)
			var c: Color
			if h < sea:
				c = Color(0.15, 0.35, 0.7).lerp(Color(0.05, 0.12, 0.35), clampf((sea - h) / 40.0, 0.0, 1.0))
			elif h < sea + 2:
				c = Color(0.85, 0.8, 0.55)
			elif h < sea + 40:
				c = Color(0.3, 0.6, 0.25).lerp(Color(0.2, 0.42, 0.18), (h - sea) / 40.0)
			elif h < sea + 90:
				c = Color(0.45, 0.43, 0.42)
			else:
				c = Color(0.95, 0.95, 0.97)
			img.set_pixel(x, y, c)
		if Time.get_ticks_msec() - t0 > 1500:
			break # slow build: show what we have
	w.free()
	return ImageTexture.create_from_image(img)

func _placeholder_preview(_name: String) -> Texture2D:
	# No preview image shipped: a plain gradient stands in.
	var g := Gradient.new()
	g.set_color(0, Color(0.25, 0.45, 0.75))
	g.set_color(1, Color(0.3, 0.55, 0.25))
	var t := GradientTexture2D.new()
	t.gradient = g
	t.fill_from = Vector2(0, 0)
	t.fill_to = Vector2(0, 1)
	t.width = 320
	t.height = 240
	return t

func randomize_seed() -> void:
	_seed.text = str(randi() % 2_000_000_000)
	_refresh_preview()

func _refresh_preview() -> void:
	var sel := _presets.get_selected_items()
	if sel.size() > 0:
		_on_preset_selected(sel[0])

## The seed typed in the field (any text is hashed), or -1 for the preset's own.
func get_seed() -> int:
	var t := _seed.text.strip_edges()
	if t == "":
		return -1
	if t.is_valid_int():
		return absi(int(t))
	return absi(hash(t)) % 2_000_000_000

func start_new_world() -> void:
	var sel := _presets.get_selected_items()
	var e: Dictionary = _preset_entries[sel[0] if sel.size() > 0 else 0]
	GameState.pending = {
		"preset_path": e["path"],
		"seed": get_seed(),
		"day_length_s": _day_length.value * 60.0,
		"continue": false,
	}
	get_tree().change_scene_to_file(WORLD_SCENE)

func _on_continue() -> void:
	GameState.pending["continue"] = true
	get_tree().change_scene_to_file(WORLD_SCENE)

func _open_settings() -> void:
	var s: Control = load("res://game/settings_menu.tscn").instantiate()
	add_child(s)

func _open_side_view() -> void:
	if ResourceLoader.exists(SIDE_VIEW):
		get_tree().change_scene_to_file(SIDE_VIEW)
