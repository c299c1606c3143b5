## Painting and digging voxels of a StrataChunkWorld in the editor's 3D viewport: a stroke (mouse
## button down, drags, up) casts a ray from the editor camera through `StrataChunkWorld.raycast` at
## every event and sets a sphere of voxels there (the chosen block against the face hit, or air
## at the voxel hit), all in one edit group; when the stroke ends its changes become one action
## of Godot's `EditorUndoRedoManager` (`StrataChunkWorld.apply_edit_changes` forwards and back). The
## edits are saved with the scene through `StrataChunkWorld.edits_data`. The capture tool picks two
## corners (the voxels hit by two clicks) and announces the box with `region_picked`, which the
## toolbar saves as a `StrataStructure`.
@tool
class_name StrataWorldPaint
extends RefCounted

## The capture tool picked the second corner of a box of `world` (both corners included).
signal region_picked(world: StrataChunkWorld, from: Vector3i, to: Vector3i)

## What a stroke does.
enum Tool { NONE, PAINT, DIG, CAPTURE }

## The longest ray from the camera, in voxels (StrataChunkWorld.raycast walks at most 512).
const MAX_RAY := 512.0

## The tool in use; NONE leaves the viewport's input to the editor.
var tool: Tool = Tool.NONE
## The block painted (an id of the world's block library).
var block := 1
## Brush radius in voxels (0: one voxel).
var radius := 1.0

var _undo_redo: EditorUndoRedoManager
## The world of the stroke in progress, or null.
var _world: StrataChunkWorld = null
## Voxels changed by the stroke so far.
var _changed := 0
## The capture tool's first corner, once picked.
var _corner: Variant = null


func _init(undo_redo: EditorUndoRedoManager) -> void:
	_undo_redo = undo_redo


## Handles one input event of the 3D viewport for `world` seen through `camera`; true when
## the event was a stroke's (the editor then ignores it).
func forward_input(world: StrataChunkWorld, camera: Camera3D, event: InputEvent) -> bool:
	if tool == Tool.NONE or world == null or camera == null:
		return false
	var button := event as InputEventMouseButton
	if tool == Tool.CAPTURE:
		if button == null or button.button_index != MOUSE_BUTTON_LEFT:
			return false
		if button.pressed:
			var screen := button.position
			pick_corner(world, camera.project_ray_origin(screen), camera.project_ray_normal(screen))
		return true
	if button != null and button.button_index == MOUSE_BUTTON_LEFT:
		if button.pressed:
			begin_stroke(world)
			stroke_at(camera, button.position)
		else:
			end_stroke()
		return true
	var motion := event as InputEventMouseMotion
	if motion != null and _world != null and (motion.button_mask & MOUSE_BUTTON_MASK_LEFT) != 0:
		stroke_at(camera, motion.position)
		return true
	return false


## Starts a stroke on `world` (ending any stroke in progress).
func begin_stroke(world: StrataChunkWorld) -> void:
	end_stroke()
	_world = world
	_changed = 0
	world.begin_edit_group()


## Applies the brush where the ray through screen point `screen` of `camera` meets the world.
func stroke_at(camera: Camera3D, screen: Vector2) -> bool:
	return stroke_ray(camera.project_ray_origin(screen), camera.project_ray_normal(screen))


## Applies the brush where the ray from `origin` along `direction` (global space) meets the
## world; false when the ray hits nothing or no stroke is in progress.
func stroke_ray(origin: Vector3, direction: Vector3) -> bool:
	if _world == null or not is_instance_valid(_world):
		return false
	var local_origin := _world.to_local(origin)
	var local_direction := _world.global_transform.basis.inverse() * direction
	var hit := _world.raycast(local_origin, local_direction, MAX_RAY)
	if hit.is_empty():
		return false
	var at: Vector3i = hit["position"]
	var id := 0
	if tool == Tool.PAINT:
		at += hit["normal"] as Vector3i
		id = block
	var n := _world.set_voxels_sphere(at, radius, id)
	if n < 0:
		push_warning("Strata paint: %s" % _world.last_error())
		return false
	_changed += n
	return true


## Ends the stroke in progress: its changes become one undoable editor action. Forgets a
## capture's first corner.
func end_stroke() -> void:
	_corner = null
	if _world == null:
		return
	var world := _world
	_world = null
	if not is_instance_valid(world) or not world.end_edit_group():
		return
	var verb := "Paint" if tool == Tool.PAINT else "Dig"
	commit_stroke(_undo_redo, world, "%s %%d voxels" % verb, 5)


## Makes the step `world` just recorded (a stroke already applied) one action of `undo_redo`:
## `apply_edit_changes` of its changes forwards and back. `title` takes the count of changes
## (`stride` ints each in `get_undo_changes()`).
static func commit_stroke(
	undo_redo: EditorUndoRedoManager, world: Node, title: String, stride: int
) -> void:
	var changes: PackedInt32Array = world.call(&"get_undo_changes")
	undo_redo.create_action(
		"Strata: " + title % (changes.size() / stride), UndoRedo.MERGE_DISABLE, world
	)
	undo_redo.add_do_method(world, &"apply_edit_changes", changes, false)
	undo_redo.add_undo_method(world, &"apply_edit_changes", changes, true)
	undo_redo.commit_action(false)


## Picks the voxel the ray from `origin` along `direction` (global space) hits as a corner of
## the box to capture: the first, or the second, which emits `region_picked`; false when the ray
## hits nothing.
func pick_corner(world: StrataChunkWorld, origin: Vector3, direction: Vector3) -> bool:
	var local_direction := world.global_transform.basis.inverse() * direction
	var hit := world.raycast(world.to_local(origin), local_direction, MAX_RAY)
	if hit.is_empty():
		return false
	var at: Vector3i = hit["position"]
	if _corner == null:
		_corner = at
		print("Strata capture: first corner %s; click the second" % at)
		return true
	var from: Vector3i = _corner
	_corner = null
	region_picked.emit(world, from, at)
	return true


## True while a stroke is in progress.
func is_stroking() -> bool:
	return _world != null
