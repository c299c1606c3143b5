## The Strata editor plugin: adds the preview dock (height, biomes, caves and structures of the
## inspected `WorldPreset`, or of the inspected `ChunkWorld`'s preset) and makes every
## `ChunkWorld` of the edited scene stream its editor preview around the 3D viewport's camera.
## The preview's chunk nodes belong to no scene, so they are never saved into it.
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


func _enter_tree() -> void:
	_preview = DOCK_SCENE.instantiate()
	_dock = EditorDock.new()
	_dock.title = "Strata Preview"
	_dock.default_slot = EditorDock.DOCK_SLOT_RIGHT_UL
	_dock.add_child(_preview)
	add_dock(_dock)
	EditorInterface.get_inspector().edited_object_changed.connect(_on_edited_object_changed)


func _exit_tree() -> void:
	var inspector := EditorInterface.get_inspector()
	if inspector.edited_object_changed.is_connected(_on_edited_object_changed):
		inspector.edited_object_changed.disconnect(_on_edited_object_changed)
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
		_preview.preset = edited as WorldPreset
	elif edited is ChunkWorld:
		var world := edited as ChunkWorld
		_preview.preset = world.preset if world.preset != null else WorldPreset.new()
