## The Strata preview dock: height, biomes, a horizontal cave slice and structures of one
## `StrataWorldPreset`, redrawn on a worker (`StrataWorldPreview`) after every change to the preset
## or to the dock's zoom and cave height. The main thread only asks and polls (law: Main thread
## never
## waits); a change while images are being made cancels them.
##
## The editor plugin sets `preset` to the inspected preset; outside the editor (tests, tools) set
## it yourself: the dock works in any scene tree.
@tool
class_name StrataPreviewDock
extends VBoxContainer

## Map edge in pixels (the cave slice is as many voxels wide).
const SIZE_PX := 128

## The preset shown; null shows nothing.
var preset: StrataWorldPreset:
	set = set_preset
## The world's own structures the preset's rules may name (a StrataChunkWorld's `structures`).
var structures: Array[StrataStructure] = []:
	set = set_structures
## Milliseconds from the newest change (preset, field, zoom, cave height) to its first map
## images on screen (a quick half-size picture; the full one follows); -1 before the first.
var last_update_ms := -1.0
## How many times map images were shown (quick and full pictures each count).
var updates := 0

var _preview := StrataWorldPreview.new()
## A change waits for the next frame, so a slider dragged over many values asks once a frame.
var _dirty := false
## When the oldest change not yet shown happened (Time.get_ticks_usec), 0 when none.
var _changed_usec := 0
## The job asked for after that change, and when the change happened.
var _job := -1
var _job_changed_usec := 0

@onready var _source: Label = %Source
@onready var _cell: HSlider = %Cell
@onready var _cell_value: Label = %CellValue
@onready var _cave_y: HSlider = %CaveY
@onready var _cave_y_value: Label = %CaveYValue
@onready var _height: TextureRect = %Height
@onready var _biomes: TextureRect = %Biomes
@onready var _caves: TextureRect = %Caves
@onready var _structures: TextureRect = %Structures
@onready var _status: Label = %Status


func _ready() -> void:
	_preview.updated.connect(_on_preview_updated)
	_cell.value_changed.connect(_on_view_changed)
	_cave_y.value_changed.connect(_on_view_changed)
	_show_values()
	if preset != null:
		_mark_dirty()


func _exit_tree() -> void:
	_preview.cancel()


func _process(_delta: float) -> void:
	if _dirty and is_node_ready():
		_request()
	_preview.poll()


func set_preset(value: StrataWorldPreset) -> void:
	if preset == value:
		return
	if preset != null and preset.changed.is_connected(_mark_dirty):
		preset.changed.disconnect(_mark_dirty)
	preset = value
	if preset != null:
		preset.changed.connect(_mark_dirty)
	_mark_dirty()


func set_structures(value: Array[StrataStructure]) -> void:
	structures = value
	_mark_dirty()


## Zoom: voxels per map pixel.
func set_cell_size(voxels: float) -> void:
	_cell.value = voxels


## The world height of the cave slice.
func set_cave_y(y: int) -> void:
	_cave_y.value = y


## The images on screen: "height", "biomes", "caves", "structures" → Texture2D (null before).
func get_textures() -> Dictionary[String, Texture2D]:
	return {
		"height": _height.texture,
		"biomes": _biomes.texture,
		"caves": _caves.texture,
		"structures": _structures.texture,
	}


## True while images for the newest change are still being made.
func is_updating() -> bool:
	return _dirty or _preview.is_busy()


func _mark_dirty() -> void:
	_dirty = true
	if _changed_usec == 0:
		_changed_usec = Time.get_ticks_usec()


func _request() -> void:
	_dirty = false
	_show_values()
	if preset == null:
		_source.text = "Select a StrataWorldPreset or a StrataChunkWorld"
		_changed_usec = 0
		return
	var title := preset.get("name") as String
	_source.text = "%s · seed %d · %s" % [title, preset.get("seed"), preset.fingerprint()]
	_preview.own_structures = structures
	_job = _preview.request(preset, Vector2i.ZERO, SIZE_PX, _cell.value, int(_cave_y.value))
	_job_changed_usec = _changed_usec
	_changed_usec = 0
	if _job < 0:
		_status.text = _preview.last_error()


func _show_values() -> void:
	_cell_value.text = "%d" % int(_cell.value)
	_cave_y_value.text = "%d" % int(_cave_y.value)


func _on_view_changed(_value: float) -> void:
	_mark_dirty()


func _on_preview_updated(job: int, maps: bool) -> void:
	if maps:
		_height.texture = ImageTexture.create_from_image(_preview.get_height_image())
		_biomes.texture = ImageTexture.create_from_image(_preview.get_biome_image())
		_structures.texture = ImageTexture.create_from_image(_preview.get_structure_image())
		if job == _job and _job_changed_usec > 0:
			last_update_ms = (Time.get_ticks_usec() - _job_changed_usec) / 1000.0
			_job_changed_usec = 0
		updates += 1
		var heights := _preview.get_height_range()
		_status.text = (
			"Heights %d to %d · %d structures · %d voxels across · updated in %d ms"
			% [
				int(heights.x),
				int(heights.y),
				_preview.get_structures().size(),
				int(SIZE_PX * _cell.value),
				int(last_update_ms),
			]
		)
	else:
		_caves.texture = ImageTexture.create_from_image(_preview.get_cave_image())
