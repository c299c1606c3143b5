## Side-view character for the 2D demo: runs, jumps (gravity only ever changes the vertical
## speed, so a jump keeps its horizontal speed), crouches (lower, slower, narrower collision),
## and digs and places tiles of a StrataChunkWorld2D with the mouse, and places torches (the
## library's light-emitting block) that light the caves it digs into. It reads the actions the
## project declares: `side_move_left`, `side_move_right`, `side_jump`, `side_crouch` (its own:
## W jumps here but walks in the 3D demo), and the 3D demo's `dig`, `place`, `hotbar_1`…`hotbar_9`,
## `hotbar_next` and `hotbar_previous` (a player's rebinding of those reaches both), and
## `place_torch` (T: a torch at the mouse, from an endless supply). In a shared world its edits go
## to `edit_tile` (the session's request) instead of straight into the world.
class_name Player2D
extends CharacterBody2D

## Horizontal speed while running, pixels per second.
@export var run_speed := 170.0
## Horizontal speed while crouching.
@export var crouch_speed := 70.0
## Initial upward speed of a jump.
@export var jump_speed := 430.0
## Downward acceleration, pixels per second².
@export var gravity := 1250.0
## How far (in tiles) the mouse may dig or place from the character.
@export var reach_tiles := 6
## The world to dig in.
@export var world: StrataChunkWorld2D

## What the character has mined and places.
var inventory := Inventory2D.new()
## Whether it reads the player's actions (off while a menu takes the keys).
var input_enabled := true
## Where its edits go in a shared world: `func(tile: Vector2i, block: int) -> bool` (sent); unset:
## straight into `world`.
var edit_tile: Callable
var _stand_shape: RectangleShape2D
var _crouching := false
var _edit_cooldown := 0.0
## Presses of the hotbar actions (a trigger's stream of events presses once).
var _presses := ActionPresses.new()

@onready var _shape: CollisionShape2D = $Shape
@onready var _body: Polygon2D = $Body


func _ready() -> void:
	_stand_shape = _shape.shape as RectangleShape2D


func _physics_process(delta: float) -> void:
	if world == null:
		return
	_set_crouching(
		(
			input_enabled and Input.is_action_pressed("side_crouch") and is_on_floor()
			or (_crouching and not _can_stand())
		)
	)
	var dir := Input.get_axis("side_move_left", "side_move_right") if input_enabled else 0.0
	velocity.x = dir * (crouch_speed if _crouching else run_speed)
	# Gravity acts on the vertical speed only.
	velocity.y = minf(velocity.y + gravity * delta, 900.0)
	var jump := input_enabled and Input.is_action_just_pressed("side_jump")
	if jump and is_on_floor() and not _crouching:
		velocity.y = -jump_speed
	move_and_slide()
	_edit_cooldown -= delta
	if _edit_cooldown <= 0.0 and input_enabled:
		var tile := world.local_to_tile(world.get_local_mouse_position())
		if Input.is_action_pressed("dig") and dig_tile(tile):
			_edit_cooldown = 0.12
		elif Input.is_action_pressed("place") and place_tile(tile):
			_edit_cooldown = 0.12
		elif Input.is_action_pressed("place_torch") and place_torch(tile):
			_edit_cooldown = 0.2


func _unhandled_input(event: InputEvent) -> void:
	if not input_enabled:
		return
	if _presses.pressed(event, "hotbar_next"):
		inventory.cycle(1)
		get_viewport().set_input_as_handled()
	elif _presses.pressed(event, "hotbar_previous"):
		inventory.cycle(-1)
		get_viewport().set_input_as_handled()
	else:
		for slot in 9:
			if _presses.pressed(event, "hotbar_%d" % (slot + 1)) and inventory.select_slot(slot):
				get_viewport().set_input_as_handled()
				return


## Digs the tile within reach into the inventory; false when out of reach, air or water.
func dig_tile(tile: Vector2i) -> bool:
	if not _within_reach(tile):
		return false
	var current := world.get_tile(tile)
	if current == 0 or current == 5:
		return false
	if not _edit(tile, 0):
		return false
	inventory.add(world.get_block_name(current))
	return true


## Places one of the chosen block from the inventory on the tile within reach; false when out of
## reach, not air or water, none is held, or it would trap the character.
func place_tile(tile: Vector2i) -> bool:
	if not _within_reach(tile) or inventory.selected == "":
		return false
	var current := world.get_tile(tile)
	if current != 0 and current != 5:
		return false
	var cell := Rect2(world.tile_to_local(tile) - Vector2(8, 8), Vector2(16, 16))
	var me_rect := Rect2(
		world.to_local(global_position) - _stand_shape.size / 2.0, _stand_shape.size
	)
	if cell.intersects(me_rect):
		return false
	var id := world.get_block_id(inventory.selected)
	if id <= 0 or inventory.counts.get(inventory.selected, 0) <= 0 or not _edit(tile, id):
		return false
	return inventory.take(inventory.selected)


## Places a torch (the library's block "torch", which glows) on the tile within reach; false when
## out of reach, not air or water, or it would trap the character. Torches need no inventory.
func place_torch(tile: Vector2i) -> bool:
	if not _within_reach(tile):
		return false
	var current := world.get_tile(tile)
	var torch := world.get_block_id("torch")
	if torch <= 0 or (current != 0 and current != 5):
		return false
	return _edit(tile, torch)


## The box of its collision shape, in global pixels (its top is the pose a shared world sends).
func body_rect() -> Rect2:
	var box := _shape.shape as RectangleShape2D
	return Rect2(_shape.global_position - box.size / 2.0, box.size)


## Sets `tile` to `block`: through `edit_tile` in a shared world, else straight into the world.
func _edit(tile: Vector2i, block: int) -> bool:
	if edit_tile.is_valid():
		return bool(edit_tile.call(tile, block))
	world.set_tile(tile, block)
	return true


func _within_reach(tile: Vector2i) -> bool:
	var me := world.local_to_tile(world.to_local(global_position))
	return absi(tile.x - me.x) <= reach_tiles and absi(tile.y - me.y) <= reach_tiles


func _can_stand() -> bool:
	var params := PhysicsShapeQueryParameters2D.new()
	var tall := RectangleShape2D.new()
	tall.size = Vector2(_stand_shape.size.x - 2, 26)
	params.shape = tall
	params.transform = Transform2D(0, global_position + Vector2(0, -1))
	params.exclude = [get_rid()]
	return get_world_2d().direct_space_state.intersect_shape(params, 1).is_empty()


func _set_crouching(on: bool) -> void:
	if on == _crouching:
		return
	_crouching = on
	var s := RectangleShape2D.new()
	s.size = Vector2(12, 14) if on else Vector2(12, 26)
	_shape.shape = s
	_stand_shape = RectangleShape2D.new()
	_stand_shape.size = Vector2(12, 26)
	# Keep the feet where they are: the shape's bottom stays at y = 13.
	_shape.position.y = 6 if on else 0
	_body.scale.y = 0.55 if on else 1.0
	_body.position.y = 6 if on else 0
