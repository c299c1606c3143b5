## Side-view character for the 2D demo: runs, jumps (gravity only ever changes the vertical
## speed, so a jump keeps its horizontal speed), crouches (lower, slower, narrower collision),
## and digs and places tiles of a ChunkWorld2D with the mouse.
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
## Block id placed with the `place` action (2 = dirt).
@export var place_block := 2
## The world to dig in.
@export var world: ChunkWorld2D

var _stand_shape: RectangleShape2D
var _crouching := false
var _edit_cooldown := 0.0

@onready var _shape: CollisionShape2D = $Shape
@onready var _body: Polygon2D = $Body


func _ready() -> void:
	_stand_shape = _shape.shape as RectangleShape2D


func _physics_process(delta: float) -> void:
	if world == null:
		return
	_set_crouching(
		Input.is_action_pressed("crouch") and is_on_floor() or (_crouching and not _can_stand())
	)
	var dir := Input.get_axis("move_left", "move_right")
	velocity.x = dir * (crouch_speed if _crouching else run_speed)
	# Gravity acts on the vertical speed only.
	velocity.y = minf(velocity.y + gravity * delta, 900.0)
	if Input.is_action_just_pressed("jump") and is_on_floor() and not _crouching:
		velocity.y = -jump_speed
	move_and_slide()
	_edit_cooldown -= delta
	if _edit_cooldown <= 0.0:
		if Input.is_action_pressed("dig"):
			_edit(0)
		elif Input.is_action_pressed("place"):
			_edit(place_block)


## Digs (id 0) or places a tile under the mouse, within reach; placing never traps the player.
func _edit(id: int) -> void:
	var mouse := world.get_local_mouse_position()
	var tile := world.local_to_tile(mouse)
	var me := world.local_to_tile(world.to_local(global_position))
	if absi(tile.x - me.x) > reach_tiles or absi(tile.y - me.y) > reach_tiles:
		return
	var current := world.get_tile(tile)
	if id == 0 and (current == 0 or current == 5):
		return
	if id != 0:
		if current != 0 and current != 5:
			return
		var cell := Rect2(world.tile_to_local(tile) - Vector2(8, 8), Vector2(16, 16))
		var me_rect := Rect2(
			world.to_local(global_position) - _stand_shape.size / 2.0, _stand_shape.size
		)
		if cell.intersects(me_rect):
			return
	world.set_tile(tile, id)
	_edit_cooldown = 0.12


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
