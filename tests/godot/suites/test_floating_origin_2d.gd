## StrataChunkWorld2D's floating origin in real headless Godot (issue 45's side view). One metre is
## one tile here (16 pixels, the generated TileSet's): a CharacterBody2D walked at 2 m/s for one
## second moves 2.000 m within 1 cm, rests within 1 cm of the ground, and a raycast from its eye
## hits the tile the core predicts, at 0, 1e5, 4e6, 1e8 and 1e9 tiles from the world's start (with
## the origin off the walk is wrong at 4e6); crossing the shift distance while walking and while
## falling keeps the body's velocity, collision under it on both sides, every tile cell, light
## sprite and the camera's picture where the core says; edits, undo and saves at 1e9.
extends StrataTestCase

const DISTANCES: Array[int] = [0, 100_000, 4_000_000, 100_000_000, 1_000_000_000]
## Pixels a tile (and a metre), and tiles a chunk (the preset's default).
const PX := 16
const N := 64
## The body: a 10 × 24 pixel box.
const HALF_HEIGHT := 12.0
const DIR := "user://test_floating_origin_2d"

var _worlds: Array[StrataChunkWorld2D] = []
var _shifts: Array[Vector2i] = []
var _shift_problems: PackedStringArray = []
## Each light sprite's position just before the frame.
var _sprites_before: Dictionary = {}
## What the camera showed just before the world's frame (this suite processes before the world).
var _probe_camera: Camera2D = null
var _camera_center := Vector2.ZERO
## Whether `_on_shifted` checks the nodes (while crossing the shift distance).
var _checking := false


func before_each() -> void:
	super.before_each()
	process_priority = 5


func after_each() -> void:
	_probe_camera = null
	_checking = false
	for w in _worlds:
		if is_instance_valid(w):
			w.free()
	_worlds.clear()
	_shifts.clear()
	_shift_problems.clear()
	_sprites_before.clear()
	super.after_each()


func _process(_delta: float) -> void:
	if _probe_camera != null and is_instance_valid(_probe_camera):
		_camera_center = _probe_camera.get_screen_center_position()


## Flat ground: no hills, caves or water; the surface row is the same in every column.
func _flat_preset() -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = 9191
	preset.side_view_amplitude = 0.0
	preset.side_view_cave_mode = StrataWorldPreset.SIDE_VIEW_CAVE_MODE_NONE
	preset.side_view_water_enabled = false
	return preset


## A world that follows `player` (in its group) with the floating origin on or off.
func _world(
	player: Node2D, origin_on: bool = true, layer: TileMapLayer = null
) -> StrataChunkWorld2D:
	var w := StrataChunkWorld2D.new()
	w.preset = _flat_preset()
	w.view_distance = 1
	w.frame_budget_ms = 20.0
	w.floating_origin = origin_on
	w.process_priority = 10
	add_child(w)
	if layer != null:
		w.tile_map = w.get_path_to(layer)
	player.add_to_group(w.origin_shift_group)
	w.viewer = w.get_path_to(player)
	w.origin_shifted.connect(_on_shifted.bind(w, player))
	_worlds.append(w)
	return w


func _player() -> CharacterBody2D:
	var body := CharacterBody2D.new()
	body.name = "Walker2D"
	var shape := CollisionShape2D.new()
	var box := RectangleShape2D.new()
	box.size = Vector2(10.0, 2.0 * HALF_HEIGHT)
	shape.shape = box
	body.add_child(shape)
	add_child(body)
	keep(body)
	return body


## The world row of the flat ground's top tile (the same in every column).
func _ground(w: StrataChunkWorld2D) -> int:
	return w.get_generated_surface_rows(0, 1)[0]


## A point of `w`'s node space in world tiles (x, then y), as 64-bit floats.
func _wx(w: StrataChunkWorld2D, local: Vector2) -> float:
	return float(w.get_origin().x) + float(local.x) / PX


func _wy(w: StrataChunkWorld2D, local: Vector2) -> float:
	return float(w.get_origin().y) + float(local.y) / PX


## A physics ray from `from` along `to - from` in the body's space: the hit, or {}.
func _ray(body: CharacterBody2D, from: Vector2, to: Vector2) -> Dictionary:
	var query := PhysicsRayQueryParameters2D.create(from, to)
	query.exclude = [body.get_rid()]
	return body.get_world_2d().direct_space_state.intersect_ray(query)


## Puts `body` three tiles over the ground of world column `x` (the origin moved there when
## `w`'s origin is on) and waits until the area is drawn and collision is under the body.
func _teleport(w: StrataChunkWorld2D, body: CharacterBody2D, x: int) -> bool:
	var g := _ground(w)
	if w.floating_origin:
		w.set_origin(Vector2i(x, g))
	body.position = w.tile_to_local(Vector2i(x, g - 3))
	body.velocity = Vector2.ZERO
	# Until the world's next frame it has not seen where the viewer went: not ready.
	if w.is_area_ready():
		fail("ready before the world saw the viewer at %d" % x)
	await wait_frames(2)
	if not await wait_until(func() -> bool: return w.is_area_ready(), 60.0):
		return false
	var ground_hit := func() -> bool:
		var from := body.global_position
		return not _ray(body, from, from + Vector2(0, 10 * PX)).is_empty()
	return await wait_until(ground_hit, 30.0)


## Lets `body` fall under gravity (9.8 m/s²) until it has stood on the floor for ten frames.
func _settle(body: CharacterBody2D) -> bool:
	var standing := 0
	for i in 600:
		await get_tree().physics_frame
		body.velocity.y += 9.8 * PX / Engine.physics_ticks_per_second
		body.move_and_slide()
		standing = standing + 1 if body.is_on_floor() else 0
		if standing >= 10:
			return true
	return false


## Drives `body` at `velocity` (pixels/s; gravity added while `falls`) for `frames` frames.
func _drive(body: CharacterBody2D, velocity: Vector2, frames: int, falls: bool) -> void:
	body.velocity = velocity
	for i in frames:
		await get_tree().physics_frame
		var keep_y := (
			body.velocity.y + 9.8 * PX / Engine.physics_ticks_per_second if falls else velocity.y
		)
		body.velocity = Vector2(velocity.x, keep_y)
		body.move_and_slide()


## Walks `body` at 2 m/s for one second: the distance in world tiles (metres).
func _walk(w: StrataChunkWorld2D, body: CharacterBody2D) -> float:
	var start := _wx(w, body.position)
	await _drive(body, Vector2(2.0 * PX, 0.0), Engine.physics_ticks_per_second, true)
	return _wx(w, body.position) - start


func test_a_walk_a_rest_and_a_raycast_are_exact_at_every_distance() -> void:
	var body := _player()
	var w := _world(body)
	var g := _ground(w)
	for d in DISTANCES:
		assert_true(await _teleport(w, body, d + 8), "the area at %d is ready" % d)
		assert_true(await _settle(body), "the body lands at %d" % d)
		var feet := _wy(w, body.position + Vector2(0, HALF_HEIGHT))
		assert_near(feet, float(g), 0.01, "the body rests on the ground at %d" % d)
		var walked := await _walk(w, body)
		assert_near(walked, 2.0, 0.01, "2 m in one second at %d" % d)
		print("  2D walk at %d tiles: %.4f m" % [d, walked])
		# From the eye down and ahead at 45°: the ground tile the geometry of the flat world says.
		var eye := body.position + Vector2(0, -8)
		var ex := _wx(w, eye)
		var ey := _wy(w, eye)
		var hx := ex + (float(g) - ey)
		var hit := w.raycast(eye, Vector2(1, 1), 40.0 * PX)
		assert_eq(hit.get("position"), Vector2i(floori(hx), g), "the ray's tile at %d" % d)
		assert_eq(w.get_tile(Vector2i(floori(hx), g)), hit.get("block"), "its block at %d" % d)
		var point: Vector2 = hit.get("point", Vector2.ZERO)
		var want := Vector2(float(hx - w.get_origin().x) * PX, float(g - w.get_origin().y) * PX)
		assert_true(point.distance_to(want) < 0.01 * PX, "the ray's point %s at %d" % [point, d])
		# The physics ray meets the layer's collision at the same point.
		var phys := _ray(body, eye, eye + Vector2(40, 40) * PX)
		assert_false(phys.is_empty(), "collision under the ray at %d" % d)
		if not phys.is_empty():
			var at: Vector2 = w.to_local(phys["position"])
			assert_true(at.distance_to(want) < 0.01 * PX, "collision at %s at %d" % [at, d])
	var stats := w.get_stats()
	assert_gt(stats["origin_shifts"], DISTANCES.size() - 2, "a shift for each teleport")
	print(
		(
			"  2D shift cost: median %s µs, max %s µs over %d shifts"
			% [
				stats["origin_shift_us_median"],
				stats["origin_shift_us_max"],
				stats["origin_shifts"]
			]
		)
	)


## Without the origin the engine's 32-bit positions cannot hold the walk at 4e6 tiles
## (6.4 × 10⁷ pixels, a step of 4 pixels): what the origin fixes.
func test_without_the_origin_the_walk_fails_far_away() -> void:
	var body := _player()
	var w := _world(body, false)
	var d := 4_000_000
	assert_true(await _teleport(w, body, d + 8), "the area at %d is ready" % d)
	await _settle(body)
	var walked := await _walk(w, body)
	print("  2D walk at %d tiles with the origin off: %.4f m" % [d, walked])
	assert_gt(absf(walked - 2.0), 0.01, "the walk is wrong without the origin: %f" % walked)


## At each shift: the layer's cells show the core's tiles at world − origin, each light sprite
## moved back by exactly the shift and stands at its chunk, the player kept its world position
## and the camera shows what it showed.
func _on_shifted(shift: Vector2i, w: StrataChunkWorld2D, player: Node2D) -> void:
	_shifts.append(shift)
	# A teleport leaves the old place far from the new origin: only crossings are checked.
	if not _checking:
		return
	if shift.x % N != 0 or shift.y % N != 0:
		_shift_problems.append("shift %s is not whole chunks" % shift)
	var d := Vector2(shift) * PX
	var layer := w.get_tile_map_layer()
	var center := w.local_to_tile(player.position)
	for dx in range(-40, 41, 3):
		for dy in range(-30, 31, 3):
			var t := center + Vector2i(dx, dy)
			var cell := w.tile_to_cell(t)
			var id := w.get_tile(t)
			var drawn := (
				layer.get_cell_atlas_coords(cell).y if layer.get_cell_source_id(cell) >= 0 else 0
			)
			if drawn != id:
				_shift_problems.append("tile %s drawn as %d, is %d" % [t, drawn, id])
			var at := w.to_local(layer.to_global(layer.map_to_local(cell)))
			if at != w.tile_to_local(t):
				_shift_problems.append("tile %s drawn at %s, not %s" % [t, at, w.tile_to_local(t)])
	for sprite: Node2D in _sprites_before:
		if not is_instance_valid(sprite):
			continue
		var want: Vector2 = _sprites_before[sprite] - d
		if sprite.position != want:
			_shift_problems.append("light sprite at %s, not %s" % [sprite.position, want])
		var corner := w.local_to_tile(sprite.position + Vector2(0.5, 0.5))
		if posmod(corner.x, N) != 0 or posmod(corner.y, N) != 0:
			_shift_problems.append("light sprite at %s is not at a chunk corner" % sprite.position)
	if absf(player.position.x) > w.origin_shift_distance * PX:
		_shift_problems.append("the player did not move with the shift: %s" % player.position)
	if _probe_camera != null:
		var now := _probe_camera.get_screen_center_position()
		if now.distance_to(_camera_center - d) > 0.001:
			_shift_problems.append(
				"the camera shows %s, not %s (the picture jumped)" % [now, _camera_center - d]
			)


## The world's light sprites and their positions now.
func _record_sprites(w: StrataChunkWorld2D) -> void:
	_sprites_before.clear()
	for child in w.get_children(true):
		if child.name == "Light":
			for s in child.get_children():
				_sprites_before[s] = (s as Node2D).position


## Drives a body from `start` (tiles of the node's space, the origin first at `origin`) across
## the shift distance (64 tiles) at `velocity` tiles/s, with a smoothing camera on it.
func _check_crossing(
	label: String, origin: Vector2i, start: Vector2, velocity: Vector2, falls: bool, own_layer: bool
) -> void:
	var body := _player()
	var camera := Camera2D.new()
	camera.position_smoothing_enabled = true
	body.add_child(camera)
	var layer: TileMapLayer = null
	if not own_layer:
		layer = TileMapLayer.new()
		layer.name = "GameTiles"
		add_child(layer)
		keep(layer)
	var w := _world(body, false, layer)
	w.view_distance = 2
	w.origin_shift_distance = 64.0
	w.set_origin(origin)
	_shifts.clear()
	body.position = start * PX
	camera.make_current()
	assert_true(
		await wait_until(func() -> bool: return w.is_area_ready(), 60.0), "%s: ready" % label
	)
	if not falls:
		assert_true(await _settle(body), "%s: standing" % label)
	var g := _ground(w)
	w.floating_origin = true
	_probe_camera = camera
	_checking = true
	var frames := 0
	var ground_before := false
	while _shifts.is_empty() and frames < 600:
		var before_x := _wx(w, body.position)
		var before_y := _wy(w, body.position)
		_record_sprites(w)
		await get_tree().physics_frame
		body.velocity.x = velocity.x * PX
		if falls:
			body.velocity.y += 9.8 * PX / Engine.physics_ticks_per_second
		body.move_and_slide()
		var moving := body.velocity
		frames += 1
		var down := body.global_position + Vector2(0, 400 * PX)
		ground_before = not _ray(body, body.global_position, down).is_empty()
		await get_tree().process_frame
		if not _shifts.is_empty():
			# The shift came after this physics frame: world position and velocity carried over.
			var step := (moving.length() / Engine.physics_ticks_per_second + 0.5) / PX
			assert_near(_wx(w, body.position), before_x, step, "%s: world x kept" % label)
			assert_near(_wy(w, body.position), before_y, step, "%s: world y kept" % label)
			assert_eq(body.velocity, moving, "%s: velocity kept across the shift" % label)
			if falls and velocity.x == 0.0:
				assert_gt(moving.y, 0.0, "%s: falling at the shift" % label)
	_probe_camera = null
	_checking = false
	assert_false(_shifts.is_empty(), "%s: the origin moved" % label)
	assert_true(ground_before, "%s: collision under the body before the shift" % label)
	assert_eq(_shift_problems, PackedStringArray(), "%s: everything in place at the shift" % label)
	assert_false(_sprites_before.is_empty(), "%s: light sprites were checked" % label)
	# Collision under the body right after the shift, then it lands where the core says.
	await get_tree().physics_frame
	assert_false(
		_ray(body, body.global_position, body.global_position + Vector2(0, 400 * PX)).is_empty(),
		"%s: collision under the body after the shift" % label
	)
	assert_true(await _settle(body), "%s: lands after the shift" % label)
	var feet := _wy(w, body.position + Vector2(0, HALF_HEIGHT))
	assert_near(feet, float(g), 0.01, "%s: rests on the ground after the shift" % label)
	var stats := w.get_stats()
	print(
		(
			"  2D %s: shift cost %s µs (max %s), layer redraws %s"
			% [
				label,
				stats["origin_shift_us_median"],
				stats["origin_shift_us_max"],
				stats["layer_redraws"]
			]
		)
	)
	assert_eq(stats["layer_redraws"], 0, "%s: the layer moved, its cells were not redrawn" % label)


func test_crossing_the_shift_distance_walking() -> void:
	var body := _player()
	var probe := _world(body)
	var g := _ground(probe)
	probe.free()
	body.free()
	await _check_crossing(
		"walking", Vector2i.ZERO, Vector2(60.5, g - 2), Vector2(6.0, 0.0), true, true
	)


func test_crossing_the_shift_distance_falling_into_a_layer_of_the_game() -> void:
	var body := _player()
	var probe := _world(body)
	var g := _ground(probe)
	probe.free()
	body.free()
	# The origin 128 tiles over the ground (a chunk corner): the body falls from 55 tiles below
	# it, crossing 64 on the way down.
	var top := int(roundf((g - 128) / float(N))) * N
	await _check_crossing(
		"falling", Vector2i(0, top), Vector2(3.5, 55.0), Vector2(0.0, 0.0), true, false
	)


func test_the_coordinate_api_is_exact_far_away() -> void:
	var body := _player()
	var w := _world(body)
	w.set_origin(Vector2i(1_000_000_015, 40))
	assert_eq(w.get_origin(), Vector2i(1_000_000_000, 64), "chunk-aligned")
	assert_eq(_shifts, [Vector2i(1_000_000_000, 64)] as Array[Vector2i], "one shift signal")
	var t := Vector2i(1_000_000_003, 70)
	assert_eq(w.tile_to_local(t), Vector2(3.5, 6.5) * PX, "tile to local")
	assert_eq(w.local_to_tile(Vector2(3.75, 6.25) * PX), t, "local to tile")
	assert_eq(w.local_to_tile(Vector2(-0.25, 0.0)).x, 999_999_999, "below the origin")
	assert_eq(w.chunk_of_tile(t), Vector2i(15_625_000, 1), "chunk of tile")
	var g := _ground(w)
	var top := Vector2i(1_000_000_003, g)
	assert_eq(w.get_surface_height(3.5 * PX), float(g - 64) * PX, "the surface in the node's space")
	var changed: Array[Rect2i] = []
	w.voxels_changed.connect(func(r: Rect2i) -> void: changed.append(r))
	w.set_tile(top, 0)
	assert_eq(
		changed, [Rect2i(top, Vector2i.ONE)] as Array[Rect2i], "voxels_changed in world tiles"
	)
	assert_eq(w.get_tile(top), 0, "the edit at the world tile")
	var hit := w.raycast(Vector2(3.5, float(g - 64 - 10)) * PX, Vector2.DOWN, 40.0 * PX)
	assert_eq(hit.get("position"), top + Vector2i(0, 1), "the ray falls through the dug tile")
	assert_eq(
		hit.get("point"), Vector2(3.5, float(g - 64 + 1)) * PX, "the point in the node's space"
	)


func test_edits_undo_and_saves_far_away() -> void:
	var body := _player()
	var w := _world(body)
	var far := 1_000_000_000
	assert_true(await _teleport(w, body, far), "ready at 1e9")
	var g := _ground(w)
	var a := Vector2i(far + 5, g)
	assert_eq(w.set_tiles_rect(a, a + Vector2i(2, 1), 0), 6, "six tiles dug")
	assert_true(w.undo(), "undo")
	assert_ne(w.get_tile(a), 0, "undone at 1e9")
	assert_true(w.redo(), "redo")
	assert_eq(w.get_tile(a + Vector2i(1, 1)), 0, "redone at 1e9")
	await wait_frames(1)
	assert_true(await wait_until(func() -> bool: return w.is_area_ready(), 30.0), "redrawn")
	var layer := w.get_tile_map_layer()
	assert_eq(layer.get_cell_source_id(w.tile_to_cell(a)), -1, "the layer shows the hole")
	assert_ne(layer.get_cell_source_id(w.tile_to_cell(a + Vector2i(3, 0))), -1, "and ground beside")
	var path := DIR + "/far.strata"
	DirAccess.make_dir_recursive_absolute(DIR)
	assert_eq(w.save_world(path), OK, w.last_error())
	w.free()
	var body2 := _player()
	var back := _world(body2)
	assert_eq(back.load_world(path), OK, back.last_error())
	assert_true(await _teleport(back, body2, far), "ready again at 1e9")
	assert_eq(back.get_tile(a + Vector2i(2, 1)), 0, "the edit reloads far away")
	assert_ne(back.get_tile(a + Vector2i(3, 0)), 0, "and only it")
	var layer2 := back.get_tile_map_layer()
	assert_eq(layer2.get_cell_source_id(back.tile_to_cell(a)), -1, "drawn far away after the load")
	back.set_tile(a, 1)
	assert_true(back.undo(), "undo after the load")
	assert_eq(back.get_tile(a), 0, "undone after the load at 1e9")
	DirAccess.remove_absolute(path)


func test_the_origin_stays_while_the_viewer_would_stay_behind() -> void:
	var body := _player()
	var w := _world(body)
	body.remove_from_group(w.origin_shift_group)
	w.origin_shift_distance = 64.0
	body.position = Vector2(100.5, -30.0) * PX
	await wait_frames(3)
	assert_eq(w.get_origin(), Vector2i.ZERO, "no shift: the viewer would not follow")
	assert_true(_shifts.is_empty(), "no signal")
	body.add_to_group(w.origin_shift_group)
	await wait_frames(2)
	assert_eq(w.get_origin(), Vector2i(128, 0), "in the group, it shifts")
	assert_eq(body.position, Vector2(-27.5, -30.0) * PX, "and the viewer with it")
