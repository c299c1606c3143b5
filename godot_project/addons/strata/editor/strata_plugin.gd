## The Strata editor plugin: adds the preview dock (height, biomes, caves and structures of the
## inspected `WorldPreset`, or of the inspected `ChunkWorld`'s preset) and makes every
## `ChunkWorld` of the edited scene stream its editor preview around the 3D viewport's camera.
## The preview's chunk nodes belong to no scene, so they are never saved into it.
## A selected `ChunkWorld` can be painted and dug in the 3D viewport (`StrataWorldPaint`, with
## its toolbar `StrataPaintToolbar` in the viewport's menu); each stroke is one undoable action.
## MagicaVoxel `.vox` files import as `Structure` resources (`StrataVoxImport`).
@tool
extends EditorPlugin

const DOCK_SCENE := preload("res://addons/strata/editor/preview_dock.tscn")
## Frames between two searches of the edited scene for ChunkWorld nodes.
const RESCAN_FRAMES := 30

## The editor dock holding the preview.
var _dock: EditorDock
var _preview: StrataPreviewDock
var _worlds: Array[ChunkWorld] = []
var _rescan_in := 0
## The paint tool and its toolbar, and the ChunkWorld they act on (the selected one).
var _paint: StrataWorldPaint
var _toolbar: StrataPaintToolbar
var _painted: ChunkWorld = null
## Imports `.vox` files as `Structure` resources.
var _vox_import: StrataVoxImport


func _enter_tree() -> void:
	_preview = DOCK_SCENE.instantiate()
	_dock = EditorDock.new()
	_dock.title = "Strata Preview"
	_dock.default_slot = EditorDock.DOCK_SLOT_RIGHT_UL
	_dock.add_child(_preview)
	add_dock(_dock)
	EditorInterface.get_inspector().edited_object_changed.connect(_on_edited_object_changed)
	_paint = StrataWorldPaint.new(get_undo_redo())
	_toolbar = StrataPaintToolbar.new()
	_toolbar.paint = _paint
	_toolbar.hide()
	add_control_to_container(CONTAINER_SPATIAL_EDITOR_MENU, _toolbar)
	_vox_import = StrataVoxImport.new()
	add_import_plugin(_vox_import)


func _exit_tree() -> void:
	remove_import_plugin(_vox_import)
	_vox_import = null
	var inspector := EditorInterface.get_inspector()
	if inspector.edited_object_changed.is_connected(_on_edited_object_changed):
		inspector.edited_object_changed.disconnect(_on_edited_object_changed)
	_paint.end_stroke()
	remove_control_from_container(CONTAINER_SPATIAL_EDITOR_MENU, _toolbar)
	_toolbar.queue_free()
	_painted = null
	remove_dock(_dock)
	_dock.queue_free()
	_dock = null
	_preview = null
	_worlds.clear()


func _process(_delta: float) -> void:
	var viewport := EditorInterface.get_editor_viewport_3d(0)
	var camera := viewport.get_camera_3d() if viewport != null else null
	if camera == null:
		return
	_rescan_in -= 1
	if _rescan_in <= 0:
		_rescan_in = RESCAN_FRAMES
		_worlds = worlds_in(EditorInterface.get_edited_scene_root())
	var at := camera.global_position
	for world in _worlds:
		if is_instance_valid(world):
			world.set_editor_viewer(at)


func _handles(object: Object) -> bool:
	return object is ChunkWorld


func _edit(object: Object) -> void:
	_paint.end_stroke()
	_painted = object as ChunkWorld
	_toolbar.set_world(_painted)


func _make_visible(visible: bool) -> void:
	_toolbar.visible = visible
	if not visible:
		_paint.end_stroke()


func _forward_3d_gui_input(camera: Camera3D, event: InputEvent) -> int:
	if _painted == null or not is_instance_valid(_painted):
		return AFTER_GUI_INPUT_PASS
	if _paint.forward_input(_painted, camera, event):
		return AFTER_GUI_INPUT_STOP
	return AFTER_GUI_INPUT_PASS


## The paint tool of the selected ChunkWorld (the editor check drives it).
func get_paint() -> StrataWorldPaint:
	return _paint


## Every ChunkWorld in the scene under `root` (root included).
static func worlds_in(root: Node) -> Array[ChunkWorld]:
	var out: Array[ChunkWorld] = []
	if root == null:
		return out
	if root is ChunkWorld:
		out.append(root as ChunkWorld)
	for node in root.find_children("*", "ChunkWorld", true, false):
		out.append(node as ChunkWorld)
	return out


func _on_edited_object_changed() -> void:
	var edited := EditorInterface.get_inspector().get_edited_object()
	if edited is WorldPreset:
		_preview.structures = [] as Array[Structure]
		_preview.preset = edited as WorldPreset
	elif edited is ChunkWorld:
		var world := edited as ChunkWorld
		_preview.structures = world.structures
		_preview.preset = world.preset if world.preset != null else WorldPreset.new()
