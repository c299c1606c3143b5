## StrataChunkWorld2D's walker navigation in real headless Godot: one NavigationServer2D region
## per chunk (and a one-way link per drop), joined across chunk borders; a path on flat ground
## over several chunk borders; a wall placed in the way (stepped over, or sealing the way) and
## dug away again; a pit dropped into but not climbed out of; the same polygons whatever order
## the chunks came in; a NavigationAgent2D walking a CharacterBody2D over a step to its target;
## regions moved with the floating origin, and freed when navigation is turned off.
extends StrataTestCase

## Pixels per tile (the created TileSet's).
const PX := 16.0

var _maps: Array[RID] = []


## Flat ground: no hills, caves or water; the surface row is the same in every column.
func _flat_preset() -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = 5151
	preset.side_view_amplitude = 0.0
	preset.side_view_cave_mode = StrataWorldPreset.SIDE_VIEW_CAVE_MODE_NONE
	preset.side_view_water_enabled = false
	return preset


func _make_world(
	preset: StrataWorldPreset, at: Vector2i, workers: int = 2, view: int = 2
) -> StrataChunkWorld2D:
	var w := _side_view_world(preset, at, view, workers)
	w.light_enabled = false
	w.navigation_enabled = true
	w.navigation_distance = view
	return w


func after_each() -> void:
	for m in _maps:
		NavigationServer2D.free_rid(m)
	_maps.clear()


## Every wanted chunk is in, every baked mesh registered, and the map has synchronised: the
## server builds changed regions on its own threads and the map takes them in at a later sync,
## so the map's iteration must stay the same over several physics frames.
func _settle(w: StrataChunkWorld2D) -> bool:
	var ready := await wait_until(
		func() -> bool: return w.is_area_ready() and int(w.get_stats()["nav_queue"]) == 0, 90.0
	)
	var map := w.get_navigation_map()
	NavigationServer2D.map_force_update(map)
	var iteration := NavigationServer2D.map_get_iteration_id(map)
	var same := 0
	var deadline := Time.get_ticks_msec() + 20000
	while same < 8 and Time.get_ticks_msec() < deadline:
		await get_tree().physics_frame
		var now := NavigationServer2D.map_get_iteration_id(map)
		same = same + 1 if now == iteration else 0
		iteration = now
	return ready and same >= 8


## The world row of the flat ground's top tile (the same in every column).
func _ground(w: StrataChunkWorld2D) -> int:
	return w.get_generated_surface_rows(0, 1)[0]


## The centre of the cell a walker stands in at column `x` on the flat ground.
func _feet(w: StrataChunkWorld2D, x: int) -> Vector2:
	return w.tile_to_local(Vector2i(x, _ground(w) - 1))


## The path from `from` to `to` on the world's map: corridor-funnelled (the shortest line, which
## grazes the corners of steps), or with `optimize` false through the middle of every edge it
## crosses (what a walker's `NavigationAgent2D` follows, `PATH_POSTPROCESSING_EDGECENTERED`).
func _path(
	w: StrataChunkWorld2D, from: Vector2, to: Vector2, optimize: bool = true
) -> PackedVector2Array:
	return NavigationServer2D.map_get_path(w.get_navigation_map(), from, to, optimize)


## Whether every point of the path, and every point along its segments, lies in the cell row a
## walker stands in on the flat ground (the strips), with no gap.
func _on_flat_ground(w: StrataChunkWorld2D, path: PackedVector2Array) -> bool:
	var top := w.tile_to_local(Vector2i(0, _ground(w) - 1)).y - PX / 2.0
	for p in path:
		if p.y < top - 0.01 or p.y > top + PX + 0.01:
			return false
	return true


## The largest distance between consecutive path points (a path is continuous when its
## segments run on the ground: on flat ground they are straight along it).
func _path_length(path: PackedVector2Array) -> float:
	var length := 0.0
	for i in range(1, path.size()):
		length += path[i - 1].distance_to(path[i])
	return length


func test_a_path_on_flat_ground_crosses_several_chunk_borders_in_one_straight_run() -> void:
	var w := _make_world(_flat_preset(), Vector2i(0, 0))
	# The viewer stands on the ground.
	var viewer := w.get_node(w.viewer) as Node2D
	viewer.position = _feet(w, 0)
	assert_true(await _settle(w), "world and navigation never settled: %s" % w.get_stats())
	var stats := w.get_stats()
	print(
		(
			"  nav 2d: %d regions, %d links, bake median %.0f us (max %.0f), register median %.0f us"
			% [
				stats["nav_regions"],
				stats["nav_links"],
				stats["nav_bake_us_median"],
				stats["nav_bake_us_max"],
				stats["nav_register_us_median"]
			]
		)
	)
	assert_eq(stats["nav_regions"], 5, "one region per chunk of the ground's row of chunks")
	assert_eq(stats["nav_links"], 0, "flat ground has no drops")
	var from := _feet(w, -100)
	var to := _feet(w, 100)
	var n := w.chunk_tiles()
	assert_eq(w.chunk_of_tile(Vector2i(100, 0)).x - w.chunk_of_tile(Vector2i(-100, 0)).x, 3)
	var path := _path(w, from, to)
	assert_gt(path.size(), 1, "a path")
	if path.size() < 2:
		return
	assert_lt(path[0].distance_to(from), 0.05, "the path starts at the start")
	assert_lt(
		path[path.size() - 1].distance_to(to), 0.05, "and ends at the target, three borders on"
	)
	assert_true(_on_flat_ground(w, path), "every point on the ground's strip: %s" % path)
	assert_near(_path_length(path), from.distance_to(to), 0.5, "straight, no detour and no gap")
	# Each chunk's polygon is the strip of its cells, meeting the next at the border.
	var g := _ground(w)
	for cx in range(-2, 3):
		var polys := w.get_navigation_polygons(Vector2i(cx, floori(float(g - 1) / n)))
		assert_eq(polys.size(), 1, "one strip in chunk %d" % cx)
		if polys.size() == 1:
			var strip: PackedVector2Array = polys[0]
			var xs: Array[float] = []
			for p in strip:
				xs.append(p.x)
			assert_eq(xs.min(), float(cx * n) * PX, "the strip starts at the chunk's left border")
			assert_eq(xs.max(), float((cx + 1) * n) * PX, "and ends at its right border")
	assert_eq(w.get_navigation_regions(from, to, 0.0).size(), 4, "regions from x -100 to 100")


func test_a_wall_in_the_way_is_stepped_over_or_seals_the_way_until_dug_away() -> void:
	var w := _make_world(_flat_preset(), Vector2i(0, 0))
	(w.get_node(w.viewer) as Node2D).position = _feet(w, 0)
	assert_true(await _settle(w), "world and navigation never settled")
	var g := _ground(w)
	var stone := w.get_block_id("stone")
	var from := _feet(w, -40)
	var to := _feet(w, 40)
	# A wall one tile high across the way, right on a chunk border: a step up and down.
	assert_eq(w.set_tiles_rect(Vector2i(0, g - 1), Vector2i(1, g - 1), stone), 2)
	assert_true(await _settle(w), "rebake after the low wall")
	var path := _path(w, from, to, false)
	assert_lt(path[path.size() - 1].distance_to(to), 0.05, "over a low wall: the target is reached")
	var highest := INF
	for p in path:
		highest = minf(highest, p.y)
	assert_lt(highest, from.y - PX / 2.0 + 0.01, "the path climbs onto the wall: %s" % path)
	assert_false(_on_flat_ground(w, path), "it leaves the ground's row")
	# Six tiles high: more than a step (1 tile), no way over.
	w.set_tiles_rect(Vector2i(0, g - 6), Vector2i(1, g - 1), stone)
	assert_true(await _settle(w), "rebake after the high wall")
	path = _path(w, from, to)
	var end := path[path.size() - 1]
	assert_gt(end.distance_to(to), 30.0 * PX, "sealed: no path reaches the target (%s)" % end)
	var wall_x := w.tile_to_local(Vector2i(0, 0)).x
	assert_lt(end.x, wall_x, "the nearest reachable point is before the wall")
	# Dug away (back to air, down to the ground): straight again.
	w.set_tiles_rect(Vector2i(0, g - 6), Vector2i(1, g - 1), 0)
	assert_true(await _settle(w), "rebake after digging")
	path = _path(w, from, to)
	assert_lt(path[path.size() - 1].distance_to(to), 0.05, "the target is reached again")
	assert_true(_on_flat_ground(w, path), "on the ground all the way: %s" % path)
	assert_near(_path_length(path), from.distance_to(to), 0.5, "straight")
	# Undo brings the high wall back, and the navigation with it.
	assert_true(w.undo(), "undo the digging")
	assert_true(await _settle(w), "rebake after undo")
	path = _path(w, from, to)
	assert_gt(path[path.size() - 1].distance_to(to), 30.0 * PX, "sealed again after undo")


func test_a_pit_deeper_than_a_step_is_a_one_way_drop() -> void:
	var w := _make_world(_flat_preset(), Vector2i(0, 0))
	(w.get_node(w.viewer) as Node2D).position = _feet(w, 0)
	assert_true(await _settle(w), "world and navigation never settled")
	var g := _ground(w)
	# A pit three tiles deep and four wide at x 10..13.
	w.set_tiles_rect(Vector2i(10, g), Vector2i(13, g + 2), 0)
	assert_true(await _settle(w), "rebake after the pit")
	var links := w.get_navigation_links(w.chunk_of_tile(Vector2i(10, g + 2)))
	assert_eq(links.size(), 4, "two drops into the pit, one from each rim: %s" % links)
	var left := _feet(w, 0)
	var bottom := w.tile_to_local(Vector2i(11, g + 2))
	var right := _feet(w, 30)
	var down := _path(w, left, bottom)
	assert_lt(down[down.size() - 1].distance_to(bottom), 0.05, "down into the pit: %s" % down)
	var up := _path(w, bottom, left)
	assert_gt(up[up.size() - 1].distance_to(left), 5.0 * PX, "but not out of it: %s" % up)
	var across := _path(w, left, right)
	assert_gt(across[across.size() - 1].distance_to(right), 10.0 * PX, "nor across it")
	# A walker that climbs three tiles gets out, both ways, through polygons.
	w.navigation_max_step_up = 3
	assert_true(await _settle(w), "rebake for the climber")
	assert_eq(
		w.get_navigation_links(w.chunk_of_tile(Vector2i(10, g + 2))).size(), 0, "no drop left"
	)
	up = _path(w, bottom, left)
	assert_lt(up[up.size() - 1].distance_to(left), 0.05, "out of the pit: %s" % up)
	across = _path(w, left, right)
	assert_lt(across[across.size() - 1].distance_to(right), 0.05, "and across it")


## All polygons and links of the chunks from `lo` to `hi`, in world tiles, as text.
func _navigation_text(w: StrataChunkWorld2D, lo: Vector2i, hi: Vector2i) -> PackedStringArray:
	var out := PackedStringArray()
	for cy in range(lo.y, hi.y + 1):
		for cx in range(lo.x, hi.x + 1):
			var c := Vector2i(cx, cy)
			out.append(
				(
					"%s polys %s links %s"
					% [c, w.get_navigation_polygons(c), w.get_navigation_links(c)]
				)
			)
	return out


func test_the_polygons_are_the_same_whatever_order_the_chunks_came_in() -> void:
	# Hills and caves: many strips, risers and drops.
	var preset := StrataWorldPreset.new()
	preset.seed = 777
	var a := _make_world(preset, Vector2i(0, 0), 1)
	var probe_row: int = a.get_generated_surface_rows(0, 1)[0]
	(a.get_node(a.viewer) as Node2D).position = a.tile_to_local(Vector2i(0, probe_row))
	# The second world comes from far to the left, with three workers, on a map of its own.
	var b := _make_world(preset, Vector2i(-700, probe_row), 3)
	var map := NavigationServer2D.map_create()
	NavigationServer2D.map_set_active(map, true)
	_maps.append(map)
	b.set_navigation_map(map)
	assert_eq(b.get_navigation_map(), map)
	assert_true(await _settle(b), "second world settled far left")
	(b.get_node(b.viewer) as Node2D).position = a.tile_to_local(Vector2i(0, probe_row))
	assert_true(await _settle(a), "first world settled")
	assert_true(await _settle(b), "second world settled")
	var c := a.chunk_of_tile(Vector2i(0, probe_row))
	var lo := c - Vector2i(2, 2)
	var hi := c + Vector2i(2, 2)
	var text_a := _navigation_text(a, lo, hi)
	var text_b := _navigation_text(b, lo, hi)
	var total := 0
	for cy in range(lo.y, hi.y + 1):
		for cx in range(lo.x, hi.x + 1):
			total += a.get_navigation_polygons(Vector2i(cx, cy)).size()
	assert_gt(total, 20, "rough ground has many polygons")
	assert_eq(text_a, text_b, "same polygons and links chunk by chunk")
	# The two worlds' paths agree too, each on its own map.
	var from := a.tile_to_local(Vector2i(-60, a.get_generated_surface_rows(-60, 1)[0] - 1))
	var to := a.tile_to_local(Vector2i(60, a.get_generated_surface_rows(60, 1)[0] - 1))
	assert_eq(_path(a, from, to), _path(b, from, to), "the same path on both maps")


func test_a_navigation_agent_walks_a_body_over_a_step_to_its_target() -> void:
	var w := _make_world(_flat_preset(), Vector2i(0, 0))
	(w.get_node(w.viewer) as Node2D).position = _feet(w, 0)
	assert_true(await _settle(w), "world and navigation never settled")
	var g := _ground(w)
	# A one-tile step up on the way at x 8..11.
	w.set_tiles_rect(Vector2i(8, g - 1), Vector2i(11, g - 1), w.get_block_id("stone"))
	assert_true(await _settle(w), "rebake after the step")
	var body := CharacterBody2D.new()
	body.name = "NavWalker2D"
	var shape := CollisionShape2D.new()
	var box := RectangleShape2D.new()
	box.size = Vector2(10.0, 28.0)
	shape.shape = box
	body.add_child(shape)
	var agent := NavigationAgent2D.new()
	agent.path_postprocessing = NavigationPathQueryParameters2D.PATH_POSTPROCESSING_EDGECENTERED
	# Path points lie on the edges between polygons: at a step, half a tile up the riser's side,
	# up to 6 pixels from where the body's centre can be.
	agent.path_desired_distance = 10.0
	agent.target_desired_distance = 6.0
	body.add_child(agent)
	w.add_child(body)
	# Standing on the ground at x 0: its centre 14 pixels over the ground's top.
	body.position = Vector2(_feet(w, 0).x, g * PX - 14.0)
	var target := Vector2(_feet(w, 24).x, g * PX - 14.0)
	await get_tree().physics_frame
	agent.target_position = target
	var jumped := false
	var reached := false
	var highest := INF
	for frame in 900:
		await get_tree().physics_frame
		if agent.is_navigation_finished():
			reached = body.position.distance_to(target) < 10.0
			break
		var next := agent.get_next_path_position()
		var dx := next.x - body.position.x
		body.velocity.x = clampf(dx * 10.0, -180.0, 180.0)
		if next.y < body.position.y - 6.0 and body.is_on_floor():
			body.velocity.y = -320.0
			jumped = true
		body.velocity.y += 980.0 * get_physics_process_delta_time()
		body.move_and_slide()
		if body.is_on_floor():
			highest = minf(highest, body.position.y)
	assert_true(jumped, "the walker jumped onto the step")
	assert_true(
		reached, "the walker reached its target: at %s, target %s" % [body.position, target]
	)
	assert_lt(highest, (g - 1) * PX, "it stood on the step on the way")


func test_regions_move_with_the_origin_and_go_when_navigation_is_off() -> void:
	var w := _make_world(_flat_preset(), Vector2i(0, 0))
	(w.get_node(w.viewer) as Node2D).position = _feet(w, 0)
	assert_true(await _settle(w), "world and navigation never settled")
	var agent := NavigationAgent2D.new()
	var holder := Node2D.new()
	holder.add_child(agent)
	w.add_child(holder)
	agent.target_position = _feet(w, 30)
	var n := w.chunk_tiles()
	w.set_origin(Vector2i(n, 0))
	assert_eq(agent.target_position, _feet(w, 30), "the agent's target moved with the origin")
	NavigationServer2D.map_force_update(w.get_navigation_map())
	await get_tree().physics_frame
	var from := _feet(w, -40)
	var to := _feet(w, 40)
	var path := _path(w, from, to)
	assert_lt(path[path.size() - 1].distance_to(to), 0.05, "after the shift: the target is reached")
	assert_true(_on_flat_ground(w, path), "on the ground: %s" % path)
	var polys := w.get_navigation_polygons(w.chunk_of_tile(Vector2i(0, _ground(w) - 1)))
	var corner := (polys[0] as PackedVector2Array)[1]
	assert_eq(corner.x, float(-n) * PX, "polygons in the node's new space")
	w.navigation_enabled = false
	assert_eq(w.get_stats()["nav_regions"], 0, "off: every region freed")
	assert_eq(w.get_navigation_polygons(w.chunk_of_tile(Vector2i(0, _ground(w) - 1))).size(), 0)
	w.navigation_enabled = true
	assert_true(await _settle(w), "on again: baked again")
	assert_eq(w.get_stats()["nav_regions"], 5, "every region back")
