## The Strata editor plugin: adds the preview dock (height, biomes, caves and structures of the
## inspected `StrataWorldPreset`, or of the inspected `StrataChunkWorld`'s preset) and makes every
## `StrataChunkWorld` of the edited scene stream its editor preview around the 3D viewport's camera.
## The preview's chunk nodes belong to no scene, so they are never saved into it.
## A selected `StrataChunkWorld` can be painted and dug in the 3D viewport (`StrataWorldPaint`, with
## its toolbar `StrataPaintToolbar` in the viewport's menu); each stroke is one undoable action.
## The same for a `StrataChunkWorld2D` in the 2D viewport (`StrataWorldPaint2D`, with a toolbar of
## its own), whose preview streams around the centre of the 2D view.
## MagicaVoxel `.vox` files import as `StrataStructure` resources (`StrataVoxImport`).
## Project → Tools → "Upgrade Strata 0.2 scenes and resources…" renames the unprefixed class names
## Strata 0.2 saved (`StrataClassUpgrade`); the plugin warns once when the project has such files.
##
## A scene with a `StrataChunkWorld` opened for the first time shows its world at once: the 3D
## view of a scene without a saved view starts 4 m from the origin, inside the ground of most
## worlds, so the plugin then places the editor camera above the ground at the world's origin,
## looking at it, and selects the world (the dock, brought to the front, shows its preset; the
## toolbar its tools). The editor takes a transform a script gives its camera as the view's new
## place (Godot 4.4+, pull request 93503: orbiting and flying go on from there); the plugin's
## editor state for the scene (`_get_state`, saved with the scene's view) records that the view
## was placed, so a view the user saved is never moved.
@tool
extends EditorPlugin

const DOCK_SCENE := preload("res://addons/strata/editor/preview_dock.tscn")
## Frames between two searches of the edited scene for StrataChunkWorld nodes.
const RESCAN_FRAMES := 30
## The editor's view of a scene opened without a saved view orbits the origin at 4 m: a camera
## within this distance of the origin is at that default.
const DEFAULT_VIEW_RADIUS := 6.0
## Where the placed view looks from: this far above and south of the ground it looks at.
const VIEW_UP := 40.0
const VIEW_BACK := 60.0
## The least height of the placed camera above the ground under it.
const VIEW_CLEARANCE := 12.0
## Frames a newly opened scene is left to the editor before its view is placed: the editor sets
## the view of a scene it opens during its first frames (to the saved view, or to its default).
const PLACE_AFTER_FRAMES := 10
## The Project → Tools entry that upgrades Strata 0.2 files.
const UPGRADE_MENU := "Upgrade Strata 0.2 scenes and resources…"

## The editor dock holding the preview.
var _dock: EditorDock
var _preview: StrataPreviewDock
var _worlds: Array[StrataChunkWorld] = []
var _rescan_in := 0
## The paint tool and its toolbar, and the StrataChunkWorld they act on (the selected one).
var _paint: StrataWorldPaint
var _toolbar: StrataPaintToolbar
var _painted: StrataChunkWorld = null
## The same for the 2D viewport: the brush its toolbar sets, the tool and the StrataChunkWorld2D.
var _brush_2d: StrataWorldPaint
var _paint_2d: StrataWorldPaint2D
var _toolbar_2d: StrataPaintToolbar
var _painted_2d: StrataChunkWorld2D = null
var _worlds_2d: Array[StrataChunkWorld2D] = []
## Imports `.vox` files as `StrataStructure` resources.
var _vox_import: StrataVoxImport
## The scenes (by `_scene_key`) whose view this plugin placed, or found placed or saved.
var _placed := {}
## The edited scene (by `_scene_key`) and the frame it was first seen on.
var _seen_scene := ""
var _seen_at := 0


func _enter_tree() -> void:
	_preview = DOCK_SCENE.instantiate()
	_dock = EditorDock.new()
	_dock.title = "Strata Preview"
	# Below the inspector, so the preview and the inspected preset's sliders show together.
	_dock.default_slot = EditorDock.DOCK_SLOT_RIGHT_BL
	_dock.add_child(_preview)
	add_dock(_dock)
	EditorInterface.get_inspector().edited_object_changed.connect(_on_edited_object_changed)
	_paint = StrataWorldPaint.new(get_undo_redo())
	_toolbar = StrataPaintToolbar.new()
	_toolbar.paint = _paint
	_toolbar.hide()
	add_control_to_container(CONTAINER_SPATIAL_EDITOR_MENU, _toolbar)
	_brush_2d = StrataWorldPaint.new(get_undo_redo())
	_paint_2d = StrataWorldPaint2D.new(get_undo_redo(), _brush_2d)
	_toolbar_2d = StrataPaintToolbar.new()
	_toolbar_2d.paint = _brush_2d
	_toolbar_2d.capture_offered = false
	_toolbar_2d.hide()
	add_control_to_container(CONTAINER_CANVAS_EDITOR_MENU, _toolbar_2d)
	_vox_import = StrataVoxImport.new()
	add_import_plugin(_vox_import)
	add_tool_menu_item(UPGRADE_MENU, _on_upgrade_requested)
	_warn_about_0_2_files.call_deferred()


func _exit_tree() -> void:
	remove_tool_menu_item(UPGRADE_MENU)
	remove_import_plugin(_vox_import)
	_vox_import = null
	var inspector := EditorInterface.get_inspector()
	if inspector.edited_object_changed.is_connected(_on_edited_object_changed):
		inspector.edited_object_changed.disconnect(_on_edited_object_changed)
	_paint.end_stroke()
	remove_control_from_container(CONTAINER_SPATIAL_EDITOR_MENU, _toolbar)
	_toolbar.queue_free()
	_painted = null
	_paint_2d.end_stroke()
	remove_control_from_container(CONTAINER_CANVAS_EDITOR_MENU, _toolbar_2d)
	_toolbar_2d.queue_free()
	_painted_2d = null
	_worlds_2d.clear()
	remove_dock(_dock)
	_dock.queue_free()
	_dock = null
	_preview = null
	_worlds.clear()


func _process(_delta: float) -> void:
	_rescan_in -= 1
	if _rescan_in <= 0:
		_rescan_in = RESCAN_FRAMES
		var edited := EditorInterface.get_edited_scene_root()
		_worlds = worlds_in(edited)
		_worlds_2d = worlds_2d_in(edited)
	var view_2d := EditorInterface.get_editor_viewport_2d()
	if view_2d != null:
		var centre := (
			view_2d.global_canvas_transform.affine_inverse() * (Vector2(view_2d.size) / 2.0)
		)
		for world in _worlds_2d:
			if is_instance_valid(world):
				world.set_editor_viewer(centre)
	var viewport := EditorInterface.get_editor_viewport_3d(0)
	var camera := viewport.get_camera_3d() if viewport != null else null
	if camera == null:
		return
	var root := EditorInterface.get_edited_scene_root()
	if root != null and not _placed.has(_scene_key(root)):
		if _seen_scene != _scene_key(root):
			_seen_scene = _scene_key(root)
			_seen_at = Engine.get_process_frames()
		elif Engine.get_process_frames() - _seen_at >= PLACE_AFTER_FRAMES:
			_place_view(camera, root)
	var at := camera.global_position
	for world in _worlds:
		if is_instance_valid(world):
			world.set_editor_viewer(at)


func _get_plugin_name() -> String:
	return "Strata"


func _get_state() -> Dictionary:
	var root := EditorInterface.get_edited_scene_root()
	if root != null and _placed.has(_scene_key(root)):
		return {"view_placed": true}
	return {}


func _set_state(state: Dictionary) -> void:
	var root := EditorInterface.get_edited_scene_root()
	if root != null and bool(state.get("view_placed", false)):
		_placed[_scene_key(root)] = true


## Once per scene: when the scene has a StrataChunkWorld and the editor camera is still at the
## default view of a scene opened without a saved view, places the camera above the first
## world's ground (`view_above`), selects that world and shows the preview dock.
func _place_view(camera: Camera3D, root: Node) -> void:
	_placed[_scene_key(root)] = true
	var worlds := worlds_in(root)
	if worlds.is_empty() or camera.global_position.length() > DEFAULT_VIEW_RADIUS:
		return
	var world := worlds[0]
	camera.global_transform = view_above(world)
	var selection := EditorInterface.get_selection()
	selection.clear()
	selection.add_node(world)
	EditorInterface.edit_node(world)
	_dock.make_visible()


## A view of `world` from above its ground (or water) at its origin: from `VIEW_UP` m above and
## `VIEW_BACK` m south of that point, at least `VIEW_CLEARANCE` m above the ground under the
## camera, looking at it (north and down).
static func view_above(world: StrataChunkWorld) -> Transform3D:
	var preset := world.preset if world.preset != null else StrataWorldPreset.new()
	var floor_y := world.get_height(0.5, 0.5)
	if bool(preset.water_enabled):
		floor_y = maxf(floor_y, float(preset.water_sea_level))
	var target := Vector3(0.5, floor_y, 0.5)
	var eye := target + Vector3(0.0, VIEW_UP, VIEW_BACK)
	eye.y = maxf(eye.y, world.get_height(eye.x, eye.z) + VIEW_CLEARANCE)
	var to_global := world.global_transform
	return Transform3D(Basis.IDENTITY, to_global * eye).looking_at(to_global * target, Vector3.UP)


## A key for the edited scene: its file, or the root's id for a scene never saved.
static func _scene_key(root: Node) -> String:
	return root.scene_file_path if root.scene_file_path != "" else str(root.get_instance_id())


func _handles(object: Object) -> bool:
	return object is StrataChunkWorld or object is StrataChunkWorld2D


func _edit(object: Object) -> void:
	_paint.end_stroke()
	_paint_2d.end_stroke()
	_painted = object as StrataChunkWorld
	_painted_2d = object as StrataChunkWorld2D
	_toolbar.set_world(_painted)
	_toolbar_2d.set_world(_painted_2d)


func _make_visible(visible: bool) -> void:
	_toolbar.visible = visible and _painted != null
	_toolbar_2d.visible = visible and _painted_2d != null
	if not visible:
		_paint.end_stroke()
		_paint_2d.end_stroke()


func _forward_3d_gui_input(camera: Camera3D, event: InputEvent) -> int:
	if _painted == null or not is_instance_valid(_painted):
		return AFTER_GUI_INPUT_PASS
	if _paint.forward_input(_painted, camera, event):
		return AFTER_GUI_INPUT_STOP
	return AFTER_GUI_INPUT_PASS


func _forward_canvas_gui_input(event: InputEvent) -> bool:
	if _painted_2d == null or not is_instance_valid(_painted_2d):
		return false
	return _paint_2d.forward_input(_painted_2d, event)


## The paint tool of the selected StrataChunkWorld (the editor check drives it).
func get_paint() -> StrataWorldPaint:
	return _paint


## The paint tool of the selected StrataChunkWorld2D (the editor check drives it).
func get_paint_2d() -> StrataWorldPaint2D:
	return _paint_2d


## Every StrataChunkWorld in the scene under `root` (root included).
static func worlds_in(root: Node) -> Array[StrataChunkWorld]:
	var out: Array[StrataChunkWorld] = []
	out.assign(_nodes_of_class(root, "StrataChunkWorld"))
	return out


## Every StrataChunkWorld2D in the scene under `root` (root included).
static func worlds_2d_in(root: Node) -> Array[StrataChunkWorld2D]:
	var out: Array[StrataChunkWorld2D] = []
	out.assign(_nodes_of_class(root, "StrataChunkWorld2D"))
	return out


## `root` (when of class `type`) and every node of that class under it.
static func _nodes_of_class(root: Node, type: String) -> Array[Node]:
	var out: Array[Node] = []
	if root == null:
		return out
	if root.is_class(type):
		out.append(root)
	out.append_array(root.find_children("*", type, true, false))
	return out


func _on_edited_object_changed() -> void:
	var edited := EditorInterface.get_inspector().get_edited_object()
	if edited is StrataWorldPreset:
		_preview.structures = [] as Array[StrataStructure]
		_preview.preset = edited as StrataWorldPreset
	elif edited is StrataChunkWorld:
		var world := edited as StrataChunkWorld
		_preview.structures = world.structures
		_preview.preset = world.preset if world.preset != null else StrataWorldPreset.new()


func _warn_about_0_2_files() -> void:
	var old := StrataClassUpgrade.files_to_upgrade()
	if not old.is_empty():
		var message := (
			"Strata: %d file(s) use Strata 0.2 class names and will not load" % old.size()
		)
		push_warning('%s (first: %s); run Project → Tools → "%s"' % [message, old[0], UPGRADE_MENU])


func _on_upgrade_requested() -> void:
	var done := StrataClassUpgrade.upgrade_tree()
	print(
		(
			"Strata: upgraded %d file(s) from Strata 0.2 class names: %s"
			% [done.size(), ", ".join(done)]
		)
	)
	EditorInterface.get_resource_filesystem().scan()
