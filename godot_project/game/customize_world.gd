## "Customize world": the main sliders of a new world mapped onto `StrataWorldPreset` fields, a live
## map preview (made on a worker by `StrataWorldPreview`, the same code as the editor's preview
## dock), the seed, and the world code: copy it for a friend, or paste a friend's to start a fresh
## copy
## of their world. Reached from the main menu's "Customize…" (which fills `GameState.pending`);
## "Start world" starts the game from the world code.
class_name CustomizeWorld
extends Control

const WORLD_SCENE := "res://game/world.tscn"
const MAIN_MENU := "res://game/main_menu.tscn"
## Map preview: pixels across, voxels per pixel, and the height of the cave slice.
const PREVIEW_PX := 160
const PREVIEW_CELL := 8.0
const CAVE_Y := -24
## Random seeds are below this.
const SEED_LIMIT := 2_000_000_000
## Each slider (its unique name) and the preset field it sets. The "Ores" slider scales the ore
## clusters instead (`StrataWorldPreset.with_ore_clusters_scaled`; 0 turns ores off).
const SLIDER_FIELDS: Dictionary[String, String] = {
	"TerrainScale": "height_scale",
	"TerrainHeight": "height_amplitude",
	"Roughness": "height_persistence",
	"BiomeSize": "biomes_cell_size",
	"Caves": "caves_fill_probability",
	"WaterLevel": "water_sea_level",
	"TreeDensity": "scatter_density",
}
const ORES := "Ores"

## The world as customised so far.
var preset: StrataWorldPreset
## The shipped preset the world code is written against, and its path.
var base_path := GameState.DEFAULT_PRESET
## How many times map images were shown (tests wait on it).
var preview_updates := 0

## The preset the sliders start from: the chosen preset with the seed, or a pasted code's world.
var _start: StrataWorldPreset
var _base: StrataWorldPreset
var _sliders: Dictionary[String, HSlider] = {}
## Sliders the player moved: only these override the start preset.
var _touched: Dictionary[String, bool] = {}
var _preview := StrataWorldPreview.new()
var _dirty := false

@onready var _base_label: Label = %Base
@onready var _seed: LineEdit = %Seed
@onready var _world_code: LineEdit = %WorldCode
@onready var _paste_code: LineEdit = %PasteCode
@onready var _status: Label = %Status
@onready var _map: TextureRect = %Map
@onready var _cave_slice: TextureRect = %CaveSlice
@onready var _start_world: Button = %StartWorld


func _ready() -> void:
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE
	_preview.updated.connect(_on_preview_updated)
	for slider_name: String in SLIDER_FIELDS.keys() + [ORES]:
		var slider := find_child(slider_name, true, false) as HSlider
		_sliders[slider_name] = slider
		slider.value_changed.connect(_on_slider_changed.bind(slider_name))
	base_path = str(GameState.pending.get("preset_path", GameState.DEFAULT_PRESET))
	_base = GameState.make_preset(base_path, -1)
	_base_label.text = "Based on: %s" % str(_base.get("name"))
	start_from(GameState.make_preset(base_path, int(GameState.pending.get("seed", -1))))
	_start_world.grab_focus.call_deferred()


func _process(_delta: float) -> void:
	if _dirty:
		_rebuild()
	_preview.poll()


## Starts over from `start` (sliders show its values, none counts as moved).
func start_from(start: StrataWorldPreset) -> void:
	_start = start
	_touched.clear()
	for slider_name: String in SLIDER_FIELDS:
		_sliders[slider_name].set_value_no_signal(float(start.get(SLIDER_FIELDS[slider_name])))
	_sliders[ORES].set_value_no_signal(1.0 if bool(start.get("ores_enabled")) else 0.0)
	_seed.text = str(start.get("seed"))
	_show_values()
	_dirty = true


## Sets the slider `slider_name` (a key of SLIDER_FIELDS, or "Ores") as the player would.
func set_slider(slider_name: String, value: float) -> void:
	_sliders[slider_name].value = value


func get_world_code() -> String:
	return _world_code.text


## Uses a friend's world code: the sliders start from its world. False (the status line says
## why) for a bad code.
func use_code(code: String) -> bool:
	var from_code := StrataWorldPreset.new()
	if from_code.parse_world_code(code.strip_edges(), GameState.base_presets()) != OK:
		_status.text = from_code.last_error().trim_prefix("StrataWorldPreset.parse_world_code: ")
		return false
	start_from(from_code)
	_status.text = "Code accepted: world %s" % from_code.fingerprint()
	return true


## The seed typed in the field (any text is hashed).
func get_seed() -> int:
	var text := _seed.text.strip_edges()
	if text.is_valid_int():
		return absi(int(text))
	return absi(hash(text)) % SEED_LIMIT


func randomize_seed() -> void:
	_seed.text = str(randi() % SEED_LIMIT)
	_on_seed_changed()


func start_world() -> void:
	_rebuild()
	GameState.pending = {
		"preset_path": base_path,
		"seed": -1,
		"day_length_s": float(GameState.pending.get("day_length_s", 600.0)),
		"continue": false,
		"world_code": _world_code.text,
	}
	get_tree().change_scene_to_file(WORLD_SCENE)


func back() -> void:
	get_tree().change_scene_to_file(MAIN_MENU)


## The customised preset from the start preset, the seed and the moved sliders; then the
## world code and a new preview.
func _rebuild() -> void:
	_dirty = false
	preset = _start.with_new_seed(get_seed())
	for slider_name: String in _touched:
		var value := _sliders[slider_name].value
		if slider_name == ORES:
			preset.set("ores_enabled", value > 0.0)
			if value > 0.0:
				preset = preset.with_ore_clusters_scaled(value)
		elif SLIDER_FIELDS[slider_name] == "water_sea_level":
			preset.set(SLIDER_FIELDS[slider_name], int(value))
		else:
			preset.set(SLIDER_FIELDS[slider_name], value)
	var problem := preset.validate()
	_world_code.text = GameState.world_code_of(preset, base_path) if problem == "" else ""
	_start_world.disabled = problem != ""
	if problem != "":
		_status.text = problem
	_preview.request(preset, Vector2i.ZERO, PREVIEW_PX, PREVIEW_CELL, CAVE_Y)


func _show_values() -> void:
	for slider_name: String in _sliders:
		var slider := _sliders[slider_name]
		var label := find_child(slider_name + "Value", true, false) as Label
		label.text = "%d" % int(slider.value) if slider.step >= 1.0 else "%.2f" % slider.value


func _on_slider_changed(_value: float, slider_name: String) -> void:
	_touched[slider_name] = true
	_show_values()
	_dirty = true


func _on_seed_changed(_text: String = "") -> void:
	_dirty = true


func _on_use_code_pressed() -> void:
	use_code(_paste_code.text)


func _on_copy_code_pressed() -> void:
	DisplayServer.clipboard_set(_world_code.text)
	_status.text = "World code copied"


func _on_preview_updated(_job: int, maps: bool) -> void:
	if maps:
		_map.texture = ImageTexture.create_from_image(_preview.get_structure_image())
		preview_updates += 1
	else:
		_cave_slice.texture = ImageTexture.create_from_image(_preview.get_cave_image())
