## A deer of the demo: wanders over the ground of the world it belongs to and flees from the
## player. Where the world has navigation (`StrataChunkWorld.navigation_enabled`), it walks along
## paths of the world's navigation map (`NavigationServer3D.query_path`): round holes and cliffs, up
## one-block steps. Elsewhere it heads straight and turns at steps higher than a block. It follows
## the ground with `StrataChunkWorld.get_height` (no physics body: it needs no collision shapes near
## it), so it works wherever its chunk stands in the world. In a shared world only the host's deer
## think and move (`StrataChunkWorld.is_entity_authority`); the clients' follow the server.
##
## It stands in the world node's space (world − the world's floating origin): columns and voxels
## it asks about are that plus `get_origin()`, and when the origin moves its path moves with it.
class_name Deer
extends Node3D

## Path queries all deer together have running at once. Each runs as a task of Godot's
## `WorkerThreadPool` (the navigation server's queries are thread-safe) and its deer picks the
## path up in a later frame, so the main thread never waits for one; a herd turning at once
## queues its queries rather than flooding the pool.
const PATHS_IN_FLIGHT := 2
## A query searches only the navigation regions of the chunks within this many voxels of the box
## spanned by its two ends (`StrataChunkWorld.get_navigation_regions`): a wandering deer's path is
## short, and a query over the whole map scans every streamed polygon for its ends.
const PATH_MARGIN := 8.0
## The most polygons one query's search visits: an unreachable target costs a bounded search (the
## path then ends as near the target as the search came), not a search of all the ground in reach.
const PATH_SEARCH_POLYGONS := 512

## Queries running now, of all deer (see `PATHS_IN_FLIGHT`).
static var _paths_in_flight := 0
## The tasks of deer that left the tree while their query ran: waited for once finished.
static var _orphaned_tasks: Array[int] = []

## Walking speed, m/s.
@export var walk_speed := 1.4
## Fleeing speed, m/s.
@export var flee_speed := 6.0
## The player is noticed within this distance, m.
@export var alert_distance := 9.0
## Seconds between changes of wandering direction (the longest).
@export var wander_interval := 4.0

## How often it fled; kept in saves through `strata_get_state`.
var times_fled := 0
var _heading := Vector3.FORWARD
var _until_turn := 0.0
var _fleeing := false
var _rng := RandomNumberGenerator.new()
## The navigation path being walked (world-node space), and the next point's index.
var _path := PackedVector3Array()
var _next := 0
## Where the next path goes, while one is wanted.
var _path_target := Vector3.ZERO
var _wants_path := false
## The running path query's task (-1: none), what it was asked and what it answers.
var _path_task := -1
var _query := NavigationPathQueryParameters3D.new()
var _query_result := NavigationPathQueryResult3D.new()
## How far the world's origin moved since the running query was asked: its answer is in the
## space of then.
var _shift_since_query := Vector3.ZERO
## The column last stepped onto and what the world said of it: a deer asks the world again only
## when it enters another voxel column (a few times a second), not every frame.
var _column := Vector2i(1 << 30, 0)
var _column_ground := 0.0
var _column_wet := false
## The player it watches, looked up a few times a second rather than every frame.
var _threat_node: Node3D = null
var _until_look := 0.0


func _ready() -> void:
	# Seeded by where it started in the world (its world voxel and the place inside it).
	var world := get_parent() as StrataChunkWorld
	var at: Variant = position
	if world != null:
		at = [world.local_to_voxel(position), position - position.floor()]
	_rng.seed = hash(at)
	_heading = Vector3.FORWARD.rotated(Vector3.UP, rotation.y)


func _enter_tree() -> void:
	var world := get_parent() as StrataChunkWorld
	if world != null and not world.origin_shifted.is_connected(_on_origin_shifted):
		world.origin_shifted.connect(_on_origin_shifted)


## The world's origin moved by `shift` (and this deer with the world's other nodes): so do the
## path it walks, where it heads, and what it last read of the ground.
func _on_origin_shifted(shift: Vector3i) -> void:
	var d := Vector3(shift)
	for i in _path.size():
		_path[i] -= d
	_path_target -= d
	_shift_since_query += d
	_column = Vector2i(1 << 30, 0)


func _process(delta: float) -> void:
	var world := get_parent() as StrataChunkWorld
	# On a shared world's client the deer is a replica: the server moves it.
	if world == null or not world.is_entity_authority():
		return
	_until_look -= delta
	if _until_look <= 0.0:
		_until_look = 0.25
		_threat_node = _threat()
	var threat := _threat_node if is_instance_valid(_threat_node) else null
	var was_fleeing := _fleeing
	_fleeing = (
		threat != null and threat.global_position.distance_to(global_position) < alert_distance
	)
	if _fleeing:
		var away := global_position - threat.global_position
		away.y = 0.0
		if away.length() > 0.01:
			_heading = away.normalized()
		if not was_fleeing:
			times_fled += 1
			_plan(world, position + _heading * 12.0)
	else:
		_until_turn -= delta
		if _until_turn <= 0.0:
			_until_turn = _rng.randf_range(1.0, wander_interval)
			_heading = Vector3.FORWARD.rotated(Vector3.UP, _rng.randf() * TAU)
			_plan(world, position + _heading * _rng.randf_range(4.0, 10.0))
	if _path_task >= 0:
		_collect_path(world)
	if _wants_path:
		_query_path(world)
	_follow_path()
	var speed := flee_speed if _fleeing else walk_speed
	var next := position + _heading * speed * delta
	var column := Vector2i(floori(next.x), floori(next.z))
	if column != _column:
		_column = column
		# The world column is the origin's plus the local one (64-bit floats: exact).
		var o := world.get_origin()
		_column_ground = (world.get_height(float(o.x) + next.x, float(o.z) + next.z) - float(o.y))
		var at := world.local_to_voxel(Vector3(next.x, _column_ground, next.z))
		_column_wet = world.get_voxel(at) == _water(world)
	var ground := _column_ground
	# A step of more than one block, or water, turns it round.
	if absf(ground - position.y) > 1.2 or _column_wet:
		_heading = -_heading
		_until_turn = 0.5
		return
	position = Vector3(next.x, ground, next.z)
	rotation.y = atan2(-_heading.x, -_heading.z)


## Wants a path to `target` from the world's navigation map (asked for as soon as fewer than
## `PATHS_IN_FLIGHT` queries run, answered a frame or so later); meanwhile, and without
## navigation, the deer heads straight.
func _plan(world: StrataChunkWorld, target: Vector3) -> void:
	_path = PackedVector3Array()
	_next = 0
	_wants_path = world.navigation_enabled
	_path_target = target


## Starts a query for the wanted path on the worker pool when fewer than `PATHS_IN_FLIGHT` run.
func _query_path(world: StrataChunkWorld) -> void:
	_collect_orphaned_tasks()
	if _path_task >= 0 or _paths_in_flight >= PATHS_IN_FLIGHT or not world.is_inside_tree():
		return
	_wants_path = false
	var regions := world.get_navigation_regions(position, _path_target, PATH_MARGIN)
	# No navigation ground near yet (an empty list would mean every region): head straight.
	if regions.is_empty():
		return
	var to_global := world.global_transform
	_query.map = world.get_world_3d().navigation_map
	_query.start_position = to_global * position
	_query.target_position = to_global * _path_target
	_query.included_regions = regions
	_shift_since_query = Vector3.ZERO
	_query.path_search_max_polygons = PATH_SEARCH_POLYGONS
	var run := Callable(NavigationServer3D, "query_path").bind(_query, _query_result)
	_path_task = WorkerThreadPool.add_task(run, false, "Deer path query")
	_paths_in_flight += 1


## Takes the path of the finished query (unless a newer one is wanted by now).
func _collect_path(world: StrataChunkWorld) -> void:
	if not WorkerThreadPool.is_task_completed(_path_task):
		return
	WorkerThreadPool.wait_for_task_completion(_path_task)
	_path_task = -1
	_paths_in_flight -= 1
	if _wants_path:
		return
	_path = PackedVector3Array()
	_next = 0
	var to_local := world.global_transform.affine_inverse()
	for p in _query_result.path:
		_path.append(to_local * p - _shift_since_query)


## Waits for the finished tasks of deer that left the tree (each must be waited for once).
static func _collect_orphaned_tasks() -> void:
	for i in range(_orphaned_tasks.size() - 1, -1, -1):
		if WorkerThreadPool.is_task_completed(_orphaned_tasks[i]):
			WorkerThreadPool.wait_for_task_completion(_orphaned_tasks[i])
			_orphaned_tasks.remove_at(i)
			_paths_in_flight -= 1


func _exit_tree() -> void:
	var world := get_parent() as StrataChunkWorld
	if world != null and world.origin_shifted.is_connected(_on_origin_shifted):
		world.origin_shifted.disconnect(_on_origin_shifted)
	# The query runs on with its own parameters and result, and another deer waits for it; this
	# deer asks again, with new ones, if it comes back.
	if _path_task >= 0:
		_orphaned_tasks.append(_path_task)
		_path_task = -1
		_query = NavigationPathQueryParameters3D.new()
		_query_result = NavigationPathQueryResult3D.new()
		_wants_path = true


## The navigation path it walks now (world-node space): empty while it heads straight.
func get_walk_path() -> PackedVector3Array:
	return _path


## Turns toward the next point of the path, skipping points already reached (a step's top and
## bottom are two points one above the other, so only the horizontal distance counts).
func _follow_path() -> void:
	while _next < _path.size():
		var d := _path[_next] - position
		d.y = 0.0
		if d.length() > 0.6:
			_heading = d.normalized()
			return
		_next += 1


func _threat() -> Node3D:
	var players := get_tree().get_nodes_in_group("player")
	return players[0] as Node3D if not players.is_empty() else null


func _water(world: StrataChunkWorld) -> int:
	return world.get_block_id("water")


## What a save keeps besides the transform.
func strata_get_state() -> Dictionary:
	return {"times_fled": times_fled}


## Takes what `strata_get_state` returned in an earlier run.
func strata_set_state(state: Dictionary) -> void:
	times_fled = int(state.get("times_fled", 0))
