## A creature of the 2D demo: walks along the ground of the side-view world it belongs to with
## `CharacterBody2D` physics and gravity, and turns round at walls and at ledges it would fall
## from (a short physics test below the step ahead). The surface critter and the cave crawler
## are this script with other speeds and looks; the world's spawn rules start them by habitat and
## depth (`side_view.tscn`'s preset). Its heading and the turns it made are kept in saves through
## `strata_get_state`; its place is kept by the world.
class_name Walker2D
extends CharacterBody2D

## Walking speed, pixels a second.
@export var speed := 30.0
## Downward acceleration, pixels a second².
@export var gravity := 900.0
## How far ahead (pixels) it looks for ground before it steps on.
@export var look_ahead := 7.0

## 1 walking right, -1 left.
var facing := 1
## Times it turned round; kept in saves.
var turns := 0
var _restored := false

@onready var _body: Node2D = $Body


func _ready() -> void:
	if not _restored:
		# Seeded by where it started in the world (its world tile: the same in every run and on
		# every machine, wherever the floating origin is).
		var world := get_parent() as StrataChunkWorld2D
		var at: Variant = position if world == null else world.local_to_tile(position)
		facing = 1 if hash(at) % 2 == 0 else -1
	_show_facing()


func _physics_process(delta: float) -> void:
	velocity.y = minf(velocity.y + gravity * delta, 600.0)
	velocity.x = facing * speed
	move_and_slide()
	if not is_on_floor():
		return
	var blocked := is_on_wall()
	var ledge := not test_move(
		transform.translated(Vector2(facing * look_ahead, -2.0)), Vector2(0, 6)
	)
	if blocked or ledge:
		facing = -facing
		turns += 1
		_show_facing()


func _show_facing() -> void:
	if _body != null:
		_body.scale.x = facing


## What a save keeps besides the position.
func strata_get_state() -> Dictionary:
	return {"facing": facing, "turns": turns}


## Takes what `strata_get_state` returned in an earlier run.
func strata_set_state(state: Dictionary) -> void:
	facing = 1 if int(state.get("facing", 1)) >= 0 else -1
	turns = int(state.get("turns", 0))
	_restored = true
	_show_facing()
