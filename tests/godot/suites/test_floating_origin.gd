## StrataChunkWorld's floating origin in real headless Godot: a CharacterBody3D walks 2 m in one
## second, rests on the ground and looks at the voxel the core predicts at 0, 1e5, 4e6, 1e8 and
## 1e9 voxels from the world's start; crossing the shift distance while walking, flying and
## falling keeps every chunk, collision body and decoration where the world says, the body's
## velocity and its world position, and collision under it; the coordinate API; edits, undo,
## entities and saves far away; no shift while the viewer would stay behind.
extends StrataTestCase

const DISTANCES: Array[int] = [0, 100_000, 4_000_000, 100_000_000, 1_000_000_000]
## The flat preset's ground: voxels up to y = 19 are solid, the surface is at y = 20.
const GROUND_TOP := 19
const HALF_HEIGHT := 0.9
const DIR := "user://test_floating_origin"

var _worlds: Array[StrataChunkWorld] = []
var _shifts: Array[Vector3i] = []
var _shift_problems: PackedStringArray = []
## Each node of the world (internal ones included) and its position just before the frame.
var _before: Dictionary = {}


func after_each() -> void:
	for w in _worlds:
		if is_instance_valid(w):
			w.free()
	_worlds.clear()
	_shifts.clear()
	_shift_problems.clear()
	_before.clear()


## Flat ground at y = 20 (no biomes' heights, ravines, caves, sea, structures or spawns).
func _flat_preset() -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.seed = 9191
	preset.height_base_height = 20.0
	preset.height_amplitude = 0.0
	preset.height_ravine_depth = 0.0
	preset.biomes_enabled = false
	preset.scatter_enabled = false
	preset.water_sea_level = -64
	preset.caves_mode = StrataWorldPreset.CAVES_MODE_NONE
	preset.caves_tunnel_strength = 0.0
	var no_structures: Array[StrataStructureRule] = []
	preset.structure_rules = no_structures
	return preset


## A world that follows `player` with the floating origin on, and the player in its group.
func _world(player: Node3D, preset: StrataWorldPreset = null) -> StrataChunkWorld:
	var w := StrataChunkWorld.new()
	w.preset = preset if preset != null else _flat_preset()
	w.view_distance = 2
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.adaptive_far_view = false
	w.collision_distance = 1
	w.frame_budget_ms = 20.0
	w.floating_origin = true
	add_child(w)
	player.add_to_group(w.origin_shift_group)
	w.viewer = w.get_path_to(player)
	w.origin_shifted.connect(_on_shifted.bind(w, player))
	_worlds.append(w)
	return w


func _player() -> CharacterBody3D:
	var body := CharacterBody3D.new()
	body.name = "Walker"
	var shape := CollisionShape3D.new()
	var capsule := CapsuleShape3D.new()
	capsule.radius = 0.3
	capsule.height = 2.0 * HALF_HEIGHT
	shape.shape = capsule
	body.add_child(shape)
	add_child(body)
	keep(body)
	return body


## The world position of a point of `w`'s node space, as 64-bit floats.
func _world_x(w: StrataChunkWorld, local: Vector3) -> Array[float]:
	var o := w.get_origin()
	return [float(o.x) + local.x, float(o.y) + local.y, float(o.z) + local.z]


## Puts `body` standing over world column (x, z) and waits until its collision is in.
func _teleport(w: StrataChunkWorld, body: CharacterBody3D, x: int, z: int) -> bool:
	w.set_origin(Vector3i(x, 0, z))
	body.position = w.voxel_to_local(Vector3i(x, GROUND_TOP + 3, z)) + Vector3(0.5, 0.0, 0.5)
	body.velocity = Vector3.ZERO
	# The world sees where the viewer went at its next frame: until then it reports the old area.
	await wait_frames(2)
	if not await wait_until(func() -> bool: return w.is_area_ready(), 60.0):
		return false
	# Collision under the body: a physics ray down from it hits the world's ground.
	var ground_hit := func() -> bool:
		var from := body.global_position
		var ray := PhysicsRayQueryParameters3D.create(from, from + Vector3(0, -10, 0))
		ray.exclude = [body.get_rid()]
		return not body.get_world_3d().direct_space_state.intersect_ray(ray).is_empty()
	return await wait_until(ground_hit, 30.0)


## Lets `body` fall under gravity until it has stood on the floor for ten physics frames.
func _settle(body: CharacterBody3D) -> bool:
	var standing := 0
	for i in 600:
		await get_tree().physics_frame
		body.velocity.y -= 9.8 / Engine.physics_ticks_per_second
		body.move_and_slide()
		standing = standing + 1 if body.is_on_floor() else 0
		if standing >= 10:
			return true
	return false


## Drives `body` at `velocity` (gravity added while `falls`) for `frames` physics frames.
func _drive(body: CharacterBody3D, velocity: Vector3, frames: int, falls: bool) -> void:
	body.velocity = velocity
	for i in frames:
		await get_tree().physics_frame
		var keep_y := (
			body.velocity.y - 9.8 / Engine.physics_ticks_per_second if falls else velocity.y
		)
		body.velocity = Vector3(velocity.x, keep_y, velocity.z)
		body.move_and_slide()


func test_a_walk_and_a_rest_are_exact_at_every_distance() -> void:
	var body := _player()
	var w := _world(body)
	for d in DISTANCES:
		var x := d + 8
		var z := -d - 8
		assert_true(await _teleport(w, body, x, z), "the area at %d is ready" % d)
		assert_true(await _settle(body), "the body lands at %d" % d)
		var feet := _world_x(w, body.position)[1] - HALF_HEIGHT
		var surface := w.get_height(float(x) + 0.5, float(z) + 0.5)
		assert_near(surface, GROUND_TOP + 1.0, 0.0, "the flat ground at %d" % d)
		assert_near(feet, surface, 0.01, "the body rests on the ground at %d" % d)
		var start := _world_x(w, body.position)
		await _drive(body, Vector3(2.0, 0.0, 0.0), Engine.physics_ticks_per_second, true)
		var end := _world_x(w, body.position)
		assert_near(end[0] - start[0], 2.0, 0.01, "2 m in one second at %d" % d)
		assert_near(end[2] - start[2], 0.0, 0.01, "straight on at %d" % d)
		# From the eye straight down: the voxel under the feet, as the core says.
		var eye := body.position + Vector3(0.0, 0.72, 0.0)
		var hit := w.raycast(eye, Vector3.DOWN, 8.0)
		var under := w.local_to_voxel(body.position)
		assert_eq(
			hit.get("position"), Vector3i(under.x, GROUND_TOP, under.z), "the ray's voxel at %d" % d
		)
		assert_near(
			float(hit.get("point", Vector3.ZERO).y),
			body.position.y - HALF_HEIGHT,
			0.01,
			"the ray's point in the node's space at %d" % d
		)


## At each shift: every chunk, body and decoration node of the world stands at its chunk's
## corner in the new node space, and the player's world position did not change.
func _on_shifted(shift: Vector3i, w: StrataChunkWorld, player: Node3D) -> void:
	_shifts.append(shift)
	if shift.x % 32 != 0 or shift.y % 32 != 0 or shift.z % 32 != 0:
		_shift_problems.append("shift %s is not whole chunks" % shift)
	for child in w.get_children(true):
		var parts := String(child.name).split("_")
		var kinds := ["chunk", "collision", "scatter"]
		if not kinds.has(parts[0]) or parts.size() < 4:
			continue
		var n := parts.size()
		var c := Vector3i(int(parts[n - 3]), int(parts[n - 2]), int(parts[n - 1]))
		var at := w.voxel_to_local(c * 32)
		if not (child as Node3D).position.is_equal_approx(at):
			_shift_problems.append(
				"%s at %s, not %s" % [child.name, (child as Node3D).position, at]
			)
	# Every node the world had before the shift (far columns, entities, the debug view...) moved
	# back by exactly the shift.
	for node: Node3D in _before:
		if is_instance_valid(node) and node.get_parent() == w:
			var want: Vector3 = _before[node] - Vector3(shift)
			if not node.position.is_equal_approx(want):
				_shift_problems.append("%s at %s, not %s" % [node.name, node.position, want])
	if player.position.length() > w.origin_shift_distance:
		_shift_problems.append("the player did not move with the shift: %s" % player.position)


## Drives a body from `start` (world) across the shift distance, the origin first at `origin`.
func _check_crossing(
	label: String, origin: Vector3i, start: Vector3, velocity: Vector3, falls: bool
) -> void:
	var body := _player()
	var w := _world(body)
	w.origin_shift_distance = 64.0
	w.far_view_levels = 1
	w.floating_origin = false
	body.position = start
	w.set_origin(origin)
	_shifts.clear()
	assert_true(
		await wait_until(func() -> bool: return w.is_area_ready(), 60.0), "%s: ready" % label
	)
	if not falls:
		assert_true(await _settle(body), "%s: standing" % label)
	w.floating_origin = true
	var frames := 0
	while _shifts.is_empty() and frames < 600:
		var before_world := _world_x(w, body.position)
		var before_velocity := body.velocity
		_before.clear()
		for child in w.get_children(true):
			if child is Node3D:
				_before[child] = (child as Node3D).position
		await _drive(body, velocity, 1, falls)
		frames += 1
		await get_tree().process_frame
		if not _shifts.is_empty():
			# The shift came after this physics frame: the world position and the velocity
			# carried over (the body moved by one frame's velocity at most).
			var after_world := _world_x(w, body.position)
			var step := velocity.length() / Engine.physics_ticks_per_second + 0.5
			for i in 3:
				assert_near(
					after_world[i],
					before_world[i],
					step,
					"%s: world position kept on axis %d" % [label, i]
				)
			assert_near(
				body.velocity.x,
				before_velocity.x if frames > 1 else velocity.x,
				1e-4,
				"%s: velocity kept" % label
			)
	assert_false(_shifts.is_empty(), "%s: the origin moved" % label)
	assert_eq(_shift_problems, PackedStringArray(), "%s: every node in place at the shift" % label)
	assert_true(
		w.get_children(true).any(func(n: Node) -> bool: return String(n.name).begins_with("far_")),
		"%s: far columns were checked too" % label
	)
	# Collision on the new side: the body comes to rest on the ground where the core says.
	assert_true(await _settle(body), "%s: lands after the shift" % label)
	var feet := _world_x(w, body.position)[1] - HALF_HEIGHT
	assert_near(feet, GROUND_TOP + 1.0, 0.01, "%s: rests on the ground after the shift" % label)


func test_crossing_the_shift_distance_walking() -> void:
	await _check_crossing(
		"walking", Vector3i.ZERO, Vector3(60.5, GROUND_TOP + 2.0, 0.5), Vector3(6.0, 0.0, 0.0), true
	)


func test_crossing_the_shift_distance_flying() -> void:
	await _check_crossing(
		"flying", Vector3i.ZERO, Vector3(0.5, 40.0, 60.5), Vector3(0.0, 3.0, 6.0), false
	)


func test_crossing_the_shift_distance_falling() -> void:
	# From world y = 75 with the origin at y = 96: the shift comes on the way down, at y = 32.
	await _check_crossing(
		"falling", Vector3i(0, 96, 0), Vector3(-20.5, 75.0, 0.5), Vector3(0.0, -20.0, 0.0), true
	)


func test_the_coordinate_api_is_exact_far_away() -> void:
	var body := _player()
	var w := _world(body)
	w.set_origin(Vector3i(1_000_000_015, 5, -1_000_000_015))
	assert_eq(w.get_origin(), Vector3i(1_000_000_000, 0, -1_000_000_000), "chunk-aligned")
	assert_eq(
		_shifts, [Vector3i(1_000_000_000, 0, -1_000_000_000)] as Array[Vector3i], "one shift signal"
	)
	var v := Vector3i(1_000_000_003, 19, -999_999_999)
	assert_eq(w.voxel_to_local(v), Vector3(3, 19, 1), "voxel to local")
	assert_eq(w.local_to_voxel(Vector3(3.5, 19.25, 1.75)), v, "local to voxel")
	assert_eq(w.local_to_voxel(Vector3(-0.25, 0.0, 0.0)).x, 999_999_999, "below the origin")
	assert_eq(
		w.chunk_at(Vector3(3.5, 19.25, 1.75)), Vector3i(31_250_000, 0, -31_250_000), "chunk at"
	)
	var changed: Array[AABB] = []
	w.voxels_changed.connect(func(box: AABB) -> void: changed.append(box))
	w.set_voxel(v, 0)
	assert_eq(changed.size(), 1, "voxels_changed once")
	if changed.size() == 1:
		assert_eq(changed[0], AABB(Vector3(3, 19, 1), Vector3.ONE), "in the node's space")
	assert_eq(w.get_voxel(v), 0, "the edit at the world voxel")
	var hit := w.raycast(Vector3(3.5, 30.0, 1.5), Vector3.DOWN, 20.0)
	assert_eq(
		hit.get("position"),
		Vector3i(1_000_000_003, 18, -999_999_999),
		"the ray falls into the dug voxel"
	)
	assert_eq(hit.get("point"), Vector3(3.5, 19.0, 1.5), "the point in the node's space")


## The designer's preview reaches the world's bounds: at 1e9 it draws the same flat ground as at
## the origin.
func test_previews_draw_far_away() -> void:
	var preview := StrataWorldPreview.new()
	var near := preview.render_now(_flat_preset(), Vector2i.ZERO, 16, 1.0, 10)
	var far := preview.render_now(
		_flat_preset(), Vector2i(1_000_000_000, -1_000_000_000), 16, 1.0, 10
	)
	assert_true(far.has("height"), "a preview at 1e9: %s" % preview.last_error())
	if near.has("height") and far.has("height"):
		var a: Image = near["height"]
		var b: Image = far["height"]
		assert_eq(b.get_size(), Vector2i(16, 16), "its size")
		assert_true(a.get_data() == b.get_data(), "the same flat ground as at the origin")
	var refused := preview.render_now(_flat_preset(), Vector2i(1_073_741_824, 0), 16, 1.0, 10)
	assert_true(refused.is_empty(), "beyond the bounds")
	assert_true(preview.last_error().contains("1073741823"), preview.last_error())


func test_edits_undo_entities_and_saves_far_away() -> void:
	var critter := critter_scene(DIR)
	var body := _player()
	var w := _world(body)
	var far := Vector3i(1_000_000_000, 0, 1_000_000_000)
	assert_true(await _teleport(w, body, far.x, far.z), "ready at 1e9")
	var a := far + Vector3i(5, GROUND_TOP, 7)
	assert_eq(w.set_voxels_box(a, a + Vector3i(2, 0, 2), 0), 9, "nine voxels dug")
	assert_true(w.undo(), "undo")
	assert_ne(w.get_voxel(a), 0, "undone at 1e9")
	assert_true(w.redo(), "redo")
	assert_eq(w.get_voxel(a + Vector3i(1, 0, 1)), 0, "redone at 1e9")
	var at := w.voxel_to_local(far + Vector3i(9, GROUND_TOP + 1, 3)) + Vector3(0.25, 0.0, 0.75)
	var added := w.add_entity(critter, at)
	assert_true(added != null, w.last_error())
	if added == null:
		return
	added.set("health", 4)
	var path := DIR + "/far.strata"
	assert_eq(w.save_world(path), OK, w.last_error())
	w.free()
	var body2 := _player()
	var back := _world(body2)
	assert_eq(back.load_world(path), OK, back.last_error())
	assert_true(await _teleport(back, body2, far.x, far.z), "ready again at 1e9")
	assert_eq(back.get_voxel(a + Vector3i(2, 0, 2)), 0, "the edit reloads far away")
	var local_at := (
		back.voxel_to_local(far + Vector3i(9, GROUND_TOP + 1, 3)) + Vector3(0.25, 0.0, 0.75)
	)
	var found: Array[Node3D] = back.get_entities_in(AABB(local_at - Vector3.ONE, Vector3.ONE * 2.0))
	assert_eq(found.size(), 1, "the entity reloads far away")
	if found.size() == 1:
		assert_true(
			found[0].position.distance_to(local_at) < 0.01, "at its place: %s" % found[0].position
		)
		assert_eq(found[0].get("health"), 4, "with its state")
	DirAccess.remove_absolute(path)


func test_the_origin_stays_while_the_viewer_would_stay_behind() -> void:
	var body := _player()
	var w := _world(body)
	body.remove_from_group(w.origin_shift_group)
	w.origin_shift_distance = 64.0
	body.position = Vector3(100.5, 30.0, 0.5)
	await wait_frames(3)
	assert_eq(w.get_origin(), Vector3i.ZERO, "no shift: the viewer would not follow")
	assert_true(_shifts.is_empty(), "no signal")
	body.add_to_group(w.origin_shift_group)
	await wait_frames(2)
	assert_eq(w.get_origin(), Vector3i(96, 32, 0), "in the group, it shifts")
	assert_true(
		body.position.is_equal_approx(Vector3(4.5, -2.0, 0.5)),
		"and the viewer with it: %s" % body.position
	)
