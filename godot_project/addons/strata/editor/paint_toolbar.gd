## A viewport toolbar for painting a selected world: the tool (off, paint, dig, and in 3D
## capture), the block painted (by name, from the world's block library) and the brush radius. It
## sets the fields of a `StrataWorldPaint` (which a `StrataWorldPaint2D` reads in the 2D
## viewport), and saves the box the capture tool picks as a `StrataStructure` resource
## (`StrataChunkWorld.capture_structure`) where a file dialog says. The 3D viewport's toolbar
## paints a StrataChunkWorld, the 2D viewport's (`capture_offered` false) a StrataChunkWorld2D.
@tool
class_name StrataPaintToolbar
extends HBoxContainer

## The largest brush radius offered, in voxels.
const MAX_RADIUS := 8.0

var paint: StrataWorldPaint:
	set = set_paint
## Whether the tool list offers the capture tool (3D only).
var capture_offered := true:
	set = set_capture_offered

var _tool := OptionButton.new()
var _block := OptionButton.new()
var _radius := SpinBox.new()
var _save_dialog := EditorFileDialog.new()
## The box the capture tool picked, waiting for the dialog: [world, from, to].
var _region: Array = []


func _init() -> void:
	var label := Label.new()
	label.text = "Strata:"
	add_child(label)
	_tool.add_item("Select", StrataWorldPaint.Tool.NONE)
	_tool.add_item("Paint", StrataWorldPaint.Tool.PAINT)
	_tool.add_item("Dig", StrataWorldPaint.Tool.DIG)
	_tool.add_item("Save region as structure", StrataWorldPaint.Tool.CAPTURE)
	set_capture_offered(true)
	_tool.item_selected.connect(_on_tool_selected)
	add_child(_tool)
	_block.tooltip_text = "The block Paint places."
	_block.item_selected.connect(_on_block_selected)
	add_child(_block)
	_radius.min_value = 0.0
	_radius.max_value = MAX_RADIUS
	_radius.step = 0.5
	_radius.value = 1.0
	_radius.prefix = "r"
	_radius.tooltip_text = "Brush radius in voxels (0: one voxel)."
	_radius.value_changed.connect(_on_radius_changed)
	add_child(_radius)
	_save_dialog.file_mode = EditorFileDialog.FILE_MODE_SAVE_FILE
	_save_dialog.access = EditorFileDialog.ACCESS_RESOURCES
	_save_dialog.add_filter("*.tres", "StrataStructure")
	_save_dialog.title = "Save region as structure"
	_save_dialog.file_selected.connect(_on_structure_path_chosen)
	add_child(_save_dialog)


## Uses `value` and saves the boxes its capture tool picks.
func set_paint(value: StrataWorldPaint) -> void:
	if paint != null and paint.region_picked.is_connected(_on_region_picked):
		paint.region_picked.disconnect(_on_region_picked)
	paint = value
	if paint != null:
		paint.region_picked.connect(_on_region_picked)


## Shows or hides the capture tool in the tool list.
func set_capture_offered(value: bool) -> void:
	capture_offered = value
	var index := _tool.get_item_index(StrataWorldPaint.Tool.CAPTURE)
	if index >= 0:
		_tool.set_item_disabled(index, not value)
		_tool.get_popup().set_item_disabled(index, not value)
	_tool.tooltip_text = (
		(
			"Paint places the block against the face under the mouse; Dig removes voxels; "
			+ "Save region as structure: click two corners, then choose the .tres file."
		)
		if value
		else "Paint sets the tiles under the mouse to the block; Dig sets them to air."
	)


## Lists the blocks of `world`'s library (all but air) and keeps the chosen one if it has it;
## `world` is a StrataChunkWorld or a StrataChunkWorld2D (null: none).
func set_world(world: Node) -> void:
	_block.clear()
	if world == null or not world.has_method(&"get_block_name"):
		return
	var id := 1
	while true:
		var block_name: String = world.call(&"get_block_name", id)
		if block_name == "":
			break
		_block.add_item(block_name, id)
		id += 1
	var index := _block.get_item_index(paint.block) if paint != null else -1
	_block.select(maxi(index, 0))
	if paint != null and _block.item_count > 0:
		paint.block = _block.get_item_id(_block.selected)


func _on_tool_selected(index: int) -> void:
	if paint != null:
		paint.end_stroke()
		paint.tool = _tool.get_item_id(index) as StrataWorldPaint.Tool


func _on_block_selected(index: int) -> void:
	if paint != null:
		paint.block = _block.get_item_id(index)


func _on_radius_changed(value: float) -> void:
	if paint != null:
		paint.radius = value


func _on_region_picked(world: StrataChunkWorld, from: Vector3i, to: Vector3i) -> void:
	_region = [world, from, to]
	_save_dialog.current_file = "structure.tres"
	_save_dialog.popup_file_dialog()


func _on_structure_path_chosen(path: String) -> void:
	if _region.size() != 3 or not is_instance_valid(_region[0]):
		return
	var world: StrataChunkWorld = _region[0]
	var structure := world.capture_structure(_region[1], _region[2], path.get_file().get_basename())
	_region = []
	if structure == null:
		push_warning("Strata capture: " + world.last_error())
		return
	var error := ResourceSaver.save(structure, path)
	if error != OK:
		push_warning("Strata capture: cannot save %s (%s)" % [path, error_string(error)])
		return
	EditorInterface.get_resource_filesystem().scan()
	print("Strata capture: saved %s (%s voxels)" % [path, structure.get_size()])
