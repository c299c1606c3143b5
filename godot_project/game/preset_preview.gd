## The main menu's map previews of presets that ship no preview image, made on a worker by
## `StrataWorldPreview` (the same code as the editor's preview dock and the "customize world"
## screen): the main thread only asks and polls (law: Main thread never waits). Finished pictures
## are kept
## by key (preset path and seed); asking for another key while one is being made supersedes it.
class_name PresetPreview
extends RefCounted

## Emitted by `poll()` when the picture for `key`, the one asked for last, is ready (a quick
## half-size picture first, then the full one).
signal shown(key: String, texture: Texture2D)

## Pixels across and voxels per pixel of a picture, and the depth of the (unused) cave slice.
const SIZE_PX := 96
const CELL := 6.0
const CAVE_Y := -24

var _preview := StrataWorldPreview.new()
var _cache: Dictionary[String, Texture2D] = {}
## The key asked for last and its job in `_preview` ("" / 0: none pending).
var _key := ""
var _job := 0


func _init() -> void:
	_preview.updated.connect(_on_updated)


## The finished picture for `key` if there is one; otherwise starts making it from `preset`
## (superseding the picture asked for before) and returns null: `shown` follows.
func request(key: String, preset: StrataWorldPreset) -> Texture2D:
	if _cache.has(key):
		cancel()
		return _cache[key]
	_key = key
	_job = _preview.request(preset, Vector2i.ZERO, SIZE_PX, CELL, CAVE_Y)
	if _job < 0:
		_key = ""
	return null


## Stops making the picture asked for last (nothing is shown for it).
func cancel() -> void:
	if _key != "":
		_preview.cancel()
		_key = ""


## Takes what the worker finished (never waits); call it every frame.
func poll() -> void:
	_preview.poll()


## True while a picture is being made.
func is_busy() -> bool:
	return _key != ""


## The key of the picture being made ("" when none).
func pending_key() -> String:
	return _key


## The finished picture for `key`, or null.
func cached(key: String) -> Texture2D:
	return _cache.get(key)


func _on_updated(job: int, maps: bool) -> void:
	if not maps or job != _job or _key == "":
		return
	var image := _preview.get_structure_image()
	var texture := ImageTexture.create_from_image(image)
	var key := _key
	if image.get_width() == SIZE_PX:
		_cache[key] = texture
		_key = ""
	shown.emit(key, texture)
