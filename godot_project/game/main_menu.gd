## Main menu: pick or create a user profile, start a new world (preset with preview, seed,
## random seed, day length) or customize one (sliders, world codes), continue the last save,
## host or join a shared world (`MultiplayerMenu`; also `--host`/`--join` on the command line,
## see `RunArgs`), settings, the 2D side view, quit.
class_name MainMenu
extends Control

const WORLD_SCENE := "res://game/world.tscn"
const CUSTOMIZE_SCENE := "res://game/customize_world.tscn"
const SIDE_VIEW := "res://demo2d/side_view.tscn"
const SETTINGS_MENU := preload("res://game/settings_menu.tscn")
const MULTIPLAYER_MENU := preload("res://game/multiplayer_menu.tscn")
## Random seeds are below this.
const SEED_LIMIT := 2_000_000_000

var _preset_entries: Array[Dictionary] = []
## Map previews of presets without a shipped picture, made on a worker, by "path:seed".
var _preset_preview := PresetPreview.new()

@onready var _users: OptionButton = %Users
@onready var _new_user: LineEdit = %NewUserName
@onready var _continue: Button = %Continue
@onready var _side_view: Button = %SideView
@onready var _status: Label = %Status
@onready var _presets: ItemList = %Presets
@onready var _preview: TextureRect = %Preview
@onready var _seed: LineEdit = %Seed
@onready var _day_length: SpinBox = %DayLength
@onready var _create_world: Button = %CreateWorld


func _ready() -> void:
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE
	_continue.disabled = not WorldSave.exists()
	_continue.tooltip_text = (
		"No saved game yet" if _continue.disabled else "Continue the last saved game"
	)
	_side_view.disabled = not ResourceLoader.exists(SIDE_VIEW)
	if _side_view.disabled:
		_side_view.tooltip_text = "Not available in this build"
	_preset_preview.shown.connect(_on_preset_preview_shown)
	_fill_users()
	_fill_presets()
	_create_world.grab_focus.call_deferred()
	if GameState.menu_message != "":
		_status.text = GameState.menu_message
		GameState.menu_message = ""
	if not GameState.run_args_used:
		GameState.run_args_used = true
		_follow_run_args(RunArgs.from_command_line())


## Starts a shared game at once when the run says `--host` or `--join` (see `RunArgs`).
func _follow_run_args(args: RunArgs) -> void:
	if args.error != "":
		_status.text = args.error
		return
	if args.wants_multiplayer():
		_start_shared(args.multiplayer_request(GameState.get_player_name()))


func _process(_delta: float) -> void:
	_preset_preview.poll()


## The seed typed in the field (any text is hashed), or -1 for the preset's own.
func get_seed() -> int:
	var text := _seed.text.strip_edges()
	if text == "":
		return -1
	if text.is_valid_int():
		return absi(int(text))
	return absi(hash(text)) % SEED_LIMIT


func randomize_seed() -> void:
	_seed.text = str(randi() % SEED_LIMIT)
	_refresh_preview()


func start_new_world() -> void:
	_set_pending()
	get_tree().change_scene_to_file(WORLD_SCENE)


func open_multiplayer() -> void:
	var menu: MultiplayerMenu = MULTIPLAYER_MENU.instantiate()
	add_child(menu)
	menu.host_requested.connect(
		func(port: int, player_name: String) -> void:
			_start_shared({"mode": "host", "port": port, "name": player_name})
	)
	menu.join_requested.connect(
		func(address: String, port: int, player_name: String) -> void:
			_start_shared({"mode": "join", "address": address, "port": port, "name": player_name})
	)


## Hosts the chosen world, or joins one (`shared`: see `GameState.pending`).
func _start_shared(shared: Dictionary) -> void:
	_set_pending()
	GameState.pending["multiplayer"] = shared
	get_tree().change_scene_to_file.call_deferred(WORLD_SCENE)


## Opens the "customize world" screen for the selected preset and seed.
func customize_world() -> void:
	_set_pending()
	get_tree().change_scene_to_file(CUSTOMIZE_SCENE)


func _set_pending() -> void:
	var selected := _presets.get_selected_items()
	var entry := _preset_entries[selected[0] if selected.size() > 0 else 0]
	GameState.pending = {
		"preset_path": entry["path"],
		"seed": get_seed(),
		"day_length_s": _day_length.value * 60.0,
		"continue": false,
		"world_code": "",
		"multiplayer": {},
	}


func open_settings() -> void:
	add_child(SETTINGS_MENU.instantiate())


func _fill_users() -> void:
	_users.clear()
	var active := GameState.get_active_user()
	var users := GameState.list_users()
	for i in users.size():
		_users.add_item(users[i])
		if users[i] == active:
			_users.select(i)


func _create_user() -> void:
	var user_name := _new_user.text.strip_edges()
	if user_name == "":
		_status.text = "Type a name for the new profile."
		return
	if GameState.create_user(user_name):
		GameState.set_active_user(user_name)
		_new_user.text = ""
		_status.text = 'Profile "%s" created.' % user_name
		_fill_users()
	else:
		var err := GameState.last_error()
		_status.text = err if err != "" else 'Cannot create "%s" (name taken?).' % user_name


func _fill_presets() -> void:
	_preset_entries = GameState.list_presets()
	_presets.clear()
	var default_index := 0
	for i in _preset_entries.size():
		var entry := _preset_entries[i]
		_presets.add_item(str(entry["name"]))
		if str(entry["path"]) == GameState.DEFAULT_PRESET:
			default_index = i
	_presets.select(default_index)
	_on_presets_item_selected(default_index)


func _refresh_preview() -> void:
	var selected := _presets.get_selected_items()
	if selected.size() > 0:
		_on_presets_item_selected(selected[0])


func _on_presets_item_selected(index: int) -> void:
	var entry := _preset_entries[index]
	var shipped: Texture2D = entry["preview"]
	if shipped != null:
		_preset_preview.cancel()
		_preview.texture = shipped
		return
	var key := preview_key(index)
	var picture := _preset_preview.request(
		key, GameState.make_preset(str(entry["path"]), get_seed())
	)
	# Until the worker's picture arrives, the old one stays.
	if picture != null:
		_preview.texture = picture


## The key of the map preview of preset entry `index` with the seed typed now.
func preview_key(index: int) -> String:
	return "%s:%d" % [_preset_entries[index]["path"], get_seed()]


## The map previews of presets without a shipped picture (tests wait on it).
func get_preset_preview() -> PresetPreview:
	return _preset_preview


func _on_preset_preview_shown(_key: String, texture: Texture2D) -> void:
	_preview.texture = texture


func _on_users_item_selected(index: int) -> void:
	GameState.set_active_user(_users.get_item_text(index))


func _on_new_user_name_text_submitted(_text: String) -> void:
	_create_user()


func _on_seed_text_submitted(_text: String) -> void:
	_refresh_preview()


func _on_continue_pressed() -> void:
	GameState.pending["continue"] = true
	GameState.pending["multiplayer"] = {}
	get_tree().change_scene_to_file(WORLD_SCENE)


func _on_side_view_pressed() -> void:
	get_tree().change_scene_to_file(SIDE_VIEW)


func _on_quit_pressed() -> void:
	get_tree().quit()
