## Painting and digging tiles of a StrataChunkWorld2D in the editor's 2D viewport: a stroke (mouse
## button down, drags, up) sets a disc of tiles under the mouse at every event (the chosen block,
## or air to dig), all in one edit group; when the stroke ends its changes become one action of
## Godot's `EditorUndoRedoManager` (`StrataChunkWorld2D.apply_edit_changes` forwards and back). The
## edits are saved with the scene through `StrataChunkWorld2D.edits_data`. The tool, block and
## radius are those of the `StrataWorldPaint` the 2D toolbar sets (`brush`); its capture tool
## does nothing here.
@tool
class_name StrataWorldPaint2D
extends RefCounted

## The tool, block and brush radius (in tiles) of a stroke.
var brush: StrataWorldPaint

var _undo_redo: EditorUndoRedoManager
## The world of the stroke in progress, or null.
var _world: StrataChunkWorld2D = null
## Tiles changed by the stroke so far.
var _changed := 0
## The tile the brush was last applied at in this stroke (a drag within one tile adds nothing).
var _last_tile := Vector2i.ZERO
var _has_last_tile := false


func _init(undo_redo: EditorUndoRedoManager, settings: StrataWorldPaint) -> void:
	_undo_redo = undo_redo
	brush = settings


## Handles one input event of the 2D viewport for `world` (`_forward_canvas_gui_input`); true
## when the event was a stroke's (the editor then ignores it).
func forward_input(world: StrataChunkWorld2D, event: InputEvent) -> bool:
	if world == null or brush == null:
		return false
	if brush.tool != StrataWorldPaint.Tool.PAINT and brush.tool != StrataWorldPaint.Tool.DIG:
		return false
	var button := event as InputEventMouseButton
	if button != null and button.button_index == MOUSE_BUTTON_LEFT:
		if button.pressed:
			begin_stroke(world)
			stroke_at(button.position)
		else:
			end_stroke()
		return true
	var motion := event as InputEventMouseMotion
	if motion != null and _world != null and (motion.button_mask & MOUSE_BUTTON_MASK_LEFT) != 0:
		stroke_at(motion.position)
		return true
	return false


## Starts a stroke on `world` (ending any stroke in progress).
func begin_stroke(world: StrataChunkWorld2D) -> void:
	end_stroke()
	_world = world
	_changed = 0
	_has_last_tile = false
	world.begin_edit_group()


## Applies the brush at `screen`, a point of the viewport the world is drawn in (the event's
## position); false when no stroke is in progress or the edit was refused.
func stroke_at(screen: Vector2) -> bool:
	if _world == null or not is_instance_valid(_world):
		return false
	var local := _world.get_global_transform_with_canvas().affine_inverse() * screen
	var tile := _world.local_to_tile(local)
	if _has_last_tile and tile == _last_tile:
		return true
	_last_tile = tile
	_has_last_tile = true
	var id := brush.block if brush.tool == StrataWorldPaint.Tool.PAINT else 0
	var n := _world.set_tiles_circle(tile, brush.radius, id)
	if n < 0:
		push_warning("Strata paint: %s" % _world.last_error())
		return false
	_changed += n
	return true


## Ends the stroke in progress: its changes become one undoable editor action.
func end_stroke() -> void:
	if _world == null:
		return
	var world := _world
	_world = null
	if not is_instance_valid(world) or not world.end_edit_group():
		return
	var verb := "Paint" if brush.tool == StrataWorldPaint.Tool.PAINT else "Dig"
	StrataWorldPaint.commit_stroke(_undo_redo, world, "%s %%d tiles" % verb, 4)


## True while a stroke is in progress.
func is_stroking() -> bool:
	return _world != null
