## A creature of the 2D demo: walks the side-view world it belongs to with `CharacterBody2D`
## physics and gravity, on the world's walker navigation (its `NavigationAgent2D` child `Agent`;
## the world bakes the navigation when its `navigation_enabled` is on). It wanders to reachable
## places near it, resting between walks; a player (a node of `player_group`) within
## `notice_tiles` draws it: a curious critter comes to `keep_tiles` of it, a cave crawler hunts
## it down while it is in the caves (below the generated surface). It jumps up steps and drops
## off ledges as its path says. After an edit the world bakes the touched chunks again and the
## agent paths anew; a goal it could not reach is tried again when the navigation changes. Where
## no navigation is baked (navigation off, beyond `navigation_distance` of every viewer, the
## first frames) it walks on along the ground and turns round at walls and at ledges it would
## fall from. It decides every `think_seconds`, so paths are asked for a few times a second at
## most, never every frame. The surface critter and the cave crawler are this script with other
## settings and looks; the world's spawn rules start them by habitat and depth (`side_view.tscn`'s
## preset). Its heading and the turns it made are kept in saves through `strata_get_state`; its
## place is kept by the world.
class_name Walker2D
extends CharacterBody2D

## What a player near it does to it.
enum Interest {
	## Nothing: it goes on wandering.
	NONE,
	## It comes to `keep_tiles` of the player.
	CURIOUS,
	## It comes right up to the player while the player is in the caves.
	HUNTS_IN_CAVES,
}

## Pixels a tile (the demo's TileSet).
const TILE := 16.0
## How far (pixels) the navigation may be from its feet for it to walk by it.
const ON_NAVIGATION := 1.5 * TILE

## Walking speed, pixels a second.
@export var speed := 30.0
## Downward acceleration, pixels a second².
@export var gravity := 900.0
## Upward speed of a jump onto a step (a tile and a half at the default gravity).
@export var jump_speed := 215.0
## How far ahead (pixels) it looks for ground before it steps on, where it has no navigation.
@export var look_ahead := 7.0
## How far (tiles, either way) a wander goes at most.
@export var wander_tiles := 12.0
## Seconds it rests between wanders, at least and at most.
@export var rest_seconds := Vector2(1.0, 3.0)
## What a player near it does to it.
@export var interest := Interest.NONE
## How near (tiles) a player must come to draw it.
@export var notice_tiles := 10.0
## How far (tiles) from the player it stops (a hunter comes close, a curious one keeps back).
@export var keep_tiles := 2.5
## How deep (tiles) under the generated surface a player is in the caves.
@export var cave_depth_tiles := 6.0
## The group of the players it notices.
@export var player_group := &"player"
## Seconds between its decisions (each one is jittered a little, so many creatures spread out).
@export var think_seconds := 0.6

## 1 walking right, -1 left.
var facing := 1
## Times it turned round (at a wall or ledge, or to walk the other way); kept in saves.
var turns := 0
var _restored := false
var _rng := RandomNumberGenerator.new()
## Seconds to the next decision, and left of the current rest.
var _think_in := 0.0
var _rest_in := 0.0
## Following a path (else resting, or walking without navigation).
var _navigating := false
## A goal given with `go_to`, held until reached.
var _goal := Vector2.ZERO
var _has_goal := false
## The navigation map's iteration when the current path was asked for.
var _path_iteration := -1
## Seconds on the floor without getting anywhere while following a path.
var _stuck_for := 0.0
var _last_x := 0.0

@onready var agent: NavigationAgent2D = $Agent
@onready var _body: Node2D = $Body


func _ready() -> void:
	if not _restored:
		# Seeded by where it started in the world (its world tile: the same in every run and on
		# every machine, wherever the floating origin is).
		var at: Variant = position if _world() == null else _world().local_to_tile(position)
		facing = 1 if hash(at) % 2 == 0 else -1
		_rng.seed = hash(at)
	else:
		_rng.seed = hash(position)
	_think_in = _rng.randf_range(0.0, think_seconds)
	_show_facing()


## Walks to `target` (the world node's pixels, at its feet) by the navigation, and keeps that goal
## until it stands there: a goal out of reach is tried again whenever the navigation changes.
func go_to(target: Vector2) -> void:
	_goal = target
	_has_goal = true
	_rest_in = 0.0
	_set_target(target)


## Whether it is following a path now.
func is_navigating() -> bool:
	return _navigating


func _physics_process(delta: float) -> void:
	velocity.y = minf(velocity.y + gravity * delta, 600.0)
	_think_in -= delta
	if _think_in <= 0.0:
		_think_in = think_seconds * _rng.randf_range(0.8, 1.2)
		_think()
	if _navigating:
		_follow_path(delta)
	elif _rest_in > 0.0:
		_rest_in -= delta
		velocity.x = 0.0
	else:
		velocity.x = facing * speed
	move_and_slide()
	if not _navigating and _rest_in <= 0.0 and is_on_floor():
		_turn_at_walls_and_ledges()


## Steers along the agent's path: towards the next point, jumping when it is above the feet.
func _follow_path(delta: float) -> void:
	if agent.is_navigation_finished():
		_arrive()
		return
	var next := agent.get_next_path_position()
	if agent.get_current_navigation_path().is_empty():
		# No way from here on the map after all: walk on without navigation.
		_navigating = false
		return
	var dx := next.x - global_position.x
	velocity.x = clampf(dx * 8.0, -speed, speed)
	if absf(dx) > 1.0:
		_face(1 if dx > 0.0 else -1)
	if is_on_floor():
		# Path points lie at the middle of the feet's tile, half a tile over the feet.
		var above := next.y < global_position.y - TILE * 0.5 - 6.0
		if above or (_against_ground() and absf(dx) > 1.0):
			velocity.y = -jump_speed
		_stuck_for = _stuck_for + delta if absf(global_position.x - _last_x) < 0.01 else 0.0
		_last_x = global_position.x
		if _stuck_for > 2.0:
			# Somewhere its body does not fit after all: rest, then choose again.
			_stuck_for = 0.0
			_navigating = false
			_rest()


## Whether a wall of the world (not another body: a player, a creature) stops it.
func _against_ground() -> bool:
	for i in get_slide_collision_count():
		var hit := get_slide_collision(i)
		if absf(hit.get_normal().x) > 0.7 and not hit.get_collider() is PhysicsBody2D:
			return true
	return false


func _arrive() -> void:
	_navigating = false
	velocity.x = 0.0
	if _has_goal and _reached(_goal):
		_has_goal = false
	_rest()


func _rest() -> void:
	_rest_in = _rng.randf_range(rest_seconds.x, rest_seconds.y)


func _reached(target: Vector2) -> bool:
	return global_position.distance_to(_to_global(target)) < TILE


## One decision: follow a player near it, keep at a goal, or wander; nothing where there is no
## navigation (it walks on as a simple walker).
func _think() -> void:
	if not _has_navigation():
		_navigating = false
		return
	var changed := _map_iteration() != _path_iteration
	var player := _noticed_player()
	if player != null:
		var near := _near_player(player)
		if not _navigating or agent.target_position.distance_to(near) > TILE or changed:
			_set_target_global(near)
		return
	if _has_goal:
		# A goal it stopped short of is tried again on new navigation; a path it follows is
		# asked for again on new navigation (an edit on the way).
		if changed:
			_set_target(_goal)
		return
	if _navigating:
		if changed:
			_set_target_global(agent.target_position)
		return
	if _rest_in > 0.0:
		return
	var x := global_position.x + _rng.randf_range(-wander_tiles, wander_tiles) * TILE
	var spot := NavigationServer2D.map_get_closest_point(
		agent.get_navigation_map(), Vector2(x, global_position.y - TILE * 0.5)
	)
	_set_target_global(spot)


## Whether the navigation is baked where it stands.
func _has_navigation() -> bool:
	var world := _world()
	if world == null or not world.navigation_enabled:
		return false
	var map := agent.get_navigation_map()
	if not map.is_valid() or NavigationServer2D.map_get_iteration_id(map) == 0:
		return false
	var feet := global_position - Vector2(0.0, TILE * 0.5)
	var closest := NavigationServer2D.map_get_closest_point(map, feet)
	return closest.distance_to(feet) < ON_NAVIGATION


func _map_iteration() -> int:
	return NavigationServer2D.map_get_iteration_id(agent.get_navigation_map())


## The nearest player of `player_group` within `notice_tiles` that draws it, or null.
func _noticed_player() -> Node2D:
	if interest == Interest.NONE:
		return null
	var best: Node2D = null
	var best_distance := notice_tiles * TILE
	for node in get_tree().get_nodes_in_group(player_group):
		var player := node as Node2D
		if player == null:
			continue
		var d := player.global_position.distance_to(global_position)
		if d < best_distance and (interest != Interest.HUNTS_IN_CAVES or _in_caves(player)):
			best = player
			best_distance = d
	return best


func _in_caves(player: Node2D) -> bool:
	var world := _world()
	if world == null:
		return false
	var at := world.to_local(player.global_position)
	return at.y > world.get_surface_height(at.x) + cave_depth_tiles * TILE


## Where to go for `player` (global): `keep_tiles` short of it, on its side.
func _near_player(player: Node2D) -> Vector2:
	var at := player.global_position
	var side := 1.0 if global_position.x > at.x else -1.0
	at.x += side * keep_tiles * TILE
	return at


## Asks for a path to `target` in the world node's pixels.
func _set_target(target: Vector2) -> void:
	_set_target_global(_to_global(target))


func _set_target_global(target: Vector2) -> void:
	agent.target_position = target
	_path_iteration = _map_iteration()
	_navigating = true
	_stuck_for = 0.0
	_rest_in = 0.0


func _to_global(target: Vector2) -> Vector2:
	var world := _world()
	return target if world == null else world.to_global(target)


## Without navigation: turns round at a wall or where the ground ahead ends.
func _turn_at_walls_and_ledges() -> void:
	var blocked := is_on_wall()
	var ledge := not test_move(
		transform.translated(Vector2(facing * look_ahead, -2.0)), Vector2(0, 6)
	)
	if blocked or ledge:
		_face(-facing)


func _face(direction: int) -> void:
	if direction != facing:
		facing = direction
		turns += 1
		_show_facing()


func _world() -> StrataChunkWorld2D:
	return get_parent() as StrataChunkWorld2D


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
