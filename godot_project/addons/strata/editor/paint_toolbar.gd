## The 3D viewport's toolbar for painting a selected ChunkWorld: the tool (off, paint, dig),
## the block painted (by name, from the world's block library) and the brush radius. It only
## sets the fields of a `StrataWorldPaint`.
@tool
class_name StrataPaintToolbar
extends HBoxContainer

## The largest brush radius offered, in voxels.
const MAX_RADIUS := 8.0

var paint: StrataWorldPaint

var _tool := OptionButton.new()
var _block := OptionButton.new()
var _radius := SpinBox.new()


func _init() -> void:
	var label := Label.new()
	label.text = "Strata:"
	add_child(label)
	_tool.add_item("Select", StrataWorldPaint.Tool.NONE)
	_tool.add_item("Paint", StrataWorldPaint.Tool.PAINT)
	_tool.add_item("Dig", StrataWorldPaint.Tool.DIG)
	_tool.tooltip_text = "Paint places the block against the face under the mouse; Dig removes voxels."
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


## Lists the blocks of `world`'s library (all but air) and keeps the chosen one if it has it.
func set_world(world: ChunkWorld) -> void:
	_block.clear()
	if world == null:
		return
	var id := 1
	while true:
		var block_name := world.get_block_name(id)
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
