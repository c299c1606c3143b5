## The demo's first-person player: walk, sprint, jump, crouch and prone, mouse or right-stick
## look (the `look_*` actions), choosing a hotbar block (`hotbar_1`…`hotbar_9`, `hotbar_next`,
## `hotbar_previous`), and digging/placing voxels in a `StrataChunkWorld` through a DDA voxel
## raycast.
##
## The body's origin is at the feet; the capsule's height (and the camera's) follows the stance.
## Gravity is a constant downward acceleration and never touches horizontal velocity: in the air
## the body keeps the horizontal velocity it left the ground with. Standing up (or crouching
## from prone) only happens when the taller shape fits (`test_move` upward).
##
## With a world, the player joins the world's `origin_shift_group`: when the world's floating
## origin moves, the body moves back with everything else and the digging target is cast again.
## Voxels it names (targets, digs, places) are world voxels, converted by `WorldCoords`.
class_name StrataPlayer
extends CharacterBody3D

## Digging or placing changed (or, with `edit_voxel`, asked to change) a voxel.
signal block_changed(cell: Vector3i, old_id: int, new_id: int)
## Something worth telling the player happened (a chest opened, a tree felled).
signal notice(text: String)

enum Stance { STAND, CROUCH, PRONE }

## Capsule height and eye height of each stance.
const HEIGHTS: Array[float] = [1.8, 1.3, 0.6]
const EYES: Array[float] = [1.62, 1.12, 0.42]
const RADIUS := 0.3
const HOTBAR: Array[String] = [
	"stone", "dirt", "grass", "planks", "log", "glass", "leaves", "torch", "sand"
]

@export var walk_speed := 4.5
@export var sprint_speed := 7.5
@export var crouch_speed := 2.0
@export var prone_speed := 0.9
## Upward speed at take-off: with the default gravity that clears one voxel.
@export var jump_velocity := 7.2
## Constant downward acceleration, m/s².
@export var gravity := 22.0
## The fastest a fall gets, m/s (air drag; Minecraft's is about 78): reached after a 140 m drop,
## and below the server's `max_fall_speed`, so a fall from any height is never refused.
@export var terminal_fall_speed := 78.0
## Degrees per pixel of mouse motion.
@export var mouse_sensitivity := 0.15
## Degrees per second of turning with a look stick pushed all the way (the `look_*` actions; their
## deadzone in the project's input map leaves a resting stick still).
@export var stick_look_speed := 150.0
@export var invert_y := false
@export var reach := 6.0
## The StrataChunkWorld to dig in (optional: without it the player only walks).
@export var world: StrataChunkWorld

var stance := Stance.STAND
var input_enabled := true
## Index into HOTBAR.
var selected_block := 0
## The last VoxelRay result.
var target: Dictionary = {}
var in_water := false
## How digging and placing change a voxel, `func(cell: Vector3i, block: int)`; unset: directly in
## `world`. A shared world sets it to ask the server instead.
var edit_voxel: Callable

var _prone_toggled := false
## Presses of the actions above (a trigger's stream of events presses once).
var _presses := ActionPresses.new()
var _water_id := -1

@onready var shape_node: CollisionShape3D = $CollisionShape3D
@onready var head: Node3D = $Head
@onready var camera: Camera3D = $Head/Camera3D
@onready var highlight: MeshInstance3D = $Highlight


func _ready() -> void:
	add_to_group("player")
	var cap := CapsuleShape3D.new()
	cap.radius = RADIUS
	shape_node.shape = cap
	_apply_height(HEIGHTS[Stance.STAND])
	head.position.y = EYES[Stance.STAND]
	highlight.top_level = true
	highlight.mesh = _make_highlight_mesh()
	highlight.visible = false
	floor_snap_length = 0.2
	floor_max_angle = deg_to_rad(50.0)


func set_world(w: StrataChunkWorld) -> void:
	if world != null:
		remove_from_group(world.origin_shift_group)
		if world.origin_shifted.is_connected(_on_origin_shifted):
			world.origin_shifted.disconnect(_on_origin_shifted)
	world = w
	_water_id = -1
	if world != null:
		add_to_group(world.origin_shift_group)
		world.origin_shifted.connect(_on_origin_shifted)


## The world moved its origin (and this body with it): the highlight (a top-level node, which
## the shift leaves where it was) follows the target cast from the new place.
func _on_origin_shifted(_shift: Vector3i) -> void:
	_update_target()


## Current capsule height (changes with the stance).
func get_shape_height() -> float:
	return (shape_node.shape as CapsuleShape3D).height


func get_eye_height() -> float:
	return head.position.y


## The horizontal direction the player faces.
func get_facing() -> Vector3:
	var f := -global_transform.basis.z
	f.y = 0.0
	return f.normalized()


func _unhandled_input(event: InputEvent) -> void:
	if not input_enabled:
		return
	var motion := event as InputEventMouseMotion
	if motion != null and Input.mouse_mode == Input.MOUSE_MODE_CAPTURED:
		look(motion.relative)
	elif _presses.pressed(event, "prone"):
		toggle_prone()
		get_viewport().set_input_as_handled()
	elif _presses.pressed(event, "dig"):
		dig()
		get_viewport().set_input_as_handled()
	elif _presses.pressed(event, "place"):
		place()
		get_viewport().set_input_as_handled()
	elif _presses.pressed(event, "interact"):
		interact()
		get_viewport().set_input_as_handled()
	elif _presses.pressed(event, "hotbar_next"):
		select_block(selected_block + 1)
		get_viewport().set_input_as_handled()
	elif _presses.pressed(event, "hotbar_previous"):
		select_block(selected_block - 1)
		get_viewport().set_input_as_handled()
	else:
		for i in HOTBAR.size():
			if _presses.pressed(event, "hotbar_%d" % (i + 1)):
				select_block(i)
				get_viewport().set_input_as_handled()
				return


## Chooses hotbar slot `slot` (0-based), wrapping round at either end.
func select_block(slot: int) -> void:
	selected_block = posmod(slot, HOTBAR.size())


## Turns the view by a mouse motion of `relative` pixels.
func look(relative: Vector2) -> void:
	var k := deg_to_rad(mouse_sensitivity)
	rotate_y(-relative.x * k)
	var dy := relative.y * k * (-1.0 if invert_y else 1.0)
	head.rotation.x = clampf(head.rotation.x - dy, deg_to_rad(-89.0), deg_to_rad(89.0))


## Turns the view by the look stick (the `look_*` actions) over `delta` seconds.
func stick_look(delta: float) -> void:
	var stick := Input.get_vector("look_left", "look_right", "look_up", "look_down")
	if stick != Vector2.ZERO and mouse_sensitivity > 0.0:
		# `look` takes pixels: turn `stick_look_speed` degrees a second at full tilt.
		look(stick * stick_look_speed * delta / mouse_sensitivity)


func _process(delta: float) -> void:
	if input_enabled:
		stick_look(delta)


func _physics_process(delta: float) -> void:
	_update_stance()
	_update_water()
	var move := Vector2.ZERO
	if input_enabled:
		move = Input.get_vector("move_left", "move_right", "move_forward", "move_back")
	var dir := global_transform.basis * Vector3(move.x, 0.0, move.y)
	dir.y = 0.0
	if dir.length_squared() > 1.0:
		dir = dir.normalized()
	var speed := _current_speed()
	if in_water:
		velocity.y -= gravity * 0.25 * delta
		velocity.y = maxf(velocity.y, -3.0)
		velocity.x = dir.x * speed * 0.6
		velocity.z = dir.z * speed * 0.6
		if input_enabled and Input.is_action_pressed("jump"):
			velocity.y = 3.0
	elif is_on_floor():
		velocity.x = dir.x * speed
		velocity.z = dir.z * speed
		if input_enabled and Input.is_action_pressed("jump") and stance != Stance.PRONE:
			velocity.y = jump_velocity
	else:
		# Free fall: gravity up to the terminal speed; horizontal velocity is what it was at
		# take-off.
		velocity.y = maxf(velocity.y - gravity * delta, -terminal_fall_speed)
	move_and_slide()
	head.position.y = move_toward(head.position.y, EYES[stance], delta * 6.0)
	_update_target()


func _current_speed() -> float:
	match stance:
		Stance.CROUCH:
			return crouch_speed
		Stance.PRONE:
			return prone_speed
	if input_enabled and Input.is_action_pressed("sprint"):
		return sprint_speed
	return walk_speed


func _update_stance() -> void:
	var want := Stance.STAND
	if _prone_toggled:
		want = Stance.PRONE
	elif input_enabled and Input.is_action_pressed("crouch"):
		want = Stance.CROUCH
	set_stance(want)


## Lies down, or gets up again (as far as there is room).
func toggle_prone() -> void:
	_prone_toggled = stance != Stance.PRONE


## Tries to take stance `s`; lower is always possible, higher only if there is room above.
## Returns whether the stance is now `s`.
func set_stance(s: Stance) -> bool:
	if s == stance:
		return true
	var h := HEIGHTS[s]
	if h > get_shape_height() and not can_grow_to(h):
		# Not enough room: get as tall as fits.
		if s == Stance.STAND and stance == Stance.PRONE and can_grow_to(HEIGHTS[Stance.CROUCH]):
			_set_stance_now(Stance.CROUCH)
		return false
	_set_stance_now(s)
	return true


func _set_stance_now(s: Stance) -> void:
	stance = s
	_apply_height(HEIGHTS[s])
	if s != Stance.PRONE:
		_prone_toggled = false


## Whether the capsule could grow to height `h` here without hitting anything above.
func can_grow_to(h: float) -> bool:
	var dh := h - get_shape_height()
	if dh <= 0.0:
		return true
	return not test_move(global_transform, Vector3(0.0, dh, 0.0))


func _apply_height(h: float) -> void:
	var cap := shape_node.shape as CapsuleShape3D
	cap.height = h
	shape_node.position = Vector3(0.0, h * 0.5, 0.0)


func _update_water() -> void:
	in_water = false
	if world == null:
		return
	if _water_id < 0:
		_water_id = world.get_block_id("water")
	var p := global_position + Vector3(0.0, 0.4, 0.0)
	in_water = world.get_voxel(WorldCoords.voxel_at(world, p)) == _water_id


# --- digging and placing -------------------------------------------------------------------


func _is_target_block(id: int) -> bool:
	return id != 0 and id != _water_id


## Casts the view ray into the world; returns (and remembers) the VoxelRay result.
func _update_target() -> Dictionary:
	if world == null or camera == null:
		target = {}
		highlight.visible = false
		return target
	if _water_id < 0:
		_water_id = world.get_block_id("water")
	var origin := camera.global_position
	var dir := -camera.global_transform.basis.z
	target = VoxelRay.cast(world, origin, dir, reach, _is_target_block)
	highlight.visible = bool(target.get("hit", false))
	if highlight.visible:
		var c: Vector3i = target["cell"]
		highlight.global_transform = Transform3D(Basis.IDENTITY, WorldCoords.voxel_center(world, c))
	return target


## Fells the tree (or picks the bush, flower or rock) in front of the player, else removes the
## targeted voxel; returns whether something was taken.
func dig() -> bool:
	var t := _update_target()
	if fell():
		return true
	if not bool(t.get("hit", false)):
		return false
	var c: Vector3i = t["cell"]
	_set_voxel(c, 0)
	block_changed.emit(c, int(t["block"]), 0)
	return true


## Harvests the first decoration along the view ray, before the targeted voxel and within reach;
## returns whether one was taken (it stays gone, also in saves).
func fell() -> bool:
	if world == null:
		return false
	var origin := world.to_local(camera.global_position)
	var dir := world.global_basis.inverse() * -camera.global_transform.basis.z
	var limit := reach
	if bool(target.get("hit", false)):
		limit = minf(reach, float(target.get("distance", reach)))
	var d := 0.5
	while d <= limit:
		var taken := world.harvest_scatter(origin + dir * d, 0.9)
		if not taken.is_empty():
			notice.emit("Took a %s" % str(taken[0]["kind"]))
			return true
		d += 0.5
	return false


## Opens the nearest chest within reach; returns whether there was one.
func interact() -> bool:
	if world == null:
		return false
	var here := world.to_local(global_position)
	var near := world.get_entities_in(AABB(here - Vector3.ONE * 2.5, Vector3.ONE * 5.0))
	var best: Node3D = null
	for e in near:
		if (
			e.has_method("open")
			and (best == null or e.position.distance_to(here) < best.position.distance_to(here))
		):
			best = e
	if best == null:
		return false
	var loot: Dictionary = best.call("open")
	if loot.is_empty():
		notice.emit("The chest is empty")
	else:
		var parts: PackedStringArray = []
		for k: String in loot:
			parts.append("%d %s" % [int(loot[k]), k])
		notice.emit("Found " + ", ".join(parts))
	return true


## Places the selected block against the targeted face; returns whether a block was placed.
func place() -> bool:
	var t := _update_target()
	if not bool(t.get("hit", false)):
		return false
	var c: Vector3i = t["previous"]
	if c == t["cell"] or _overlaps_body(c):
		return false
	var id := world.get_block_id(HOTBAR[selected_block])
	if id <= 0:
		return false
	var old := world.get_voxel(c)
	_set_voxel(c, id)
	block_changed.emit(c, old, id)
	return true


func _set_voxel(cell: Vector3i, block: int) -> void:
	if edit_voxel.is_valid():
		edit_voxel.call(cell, block)
	else:
		world.set_voxel(cell, block)


func _overlaps_body(c: Vector3i) -> bool:
	var p := global_position
	var body := AABB(
		Vector3(p.x - RADIUS, p.y, p.z - RADIUS),
		Vector3(RADIUS * 2.0, get_shape_height(), RADIUS * 2.0)
	)
	return body.intersects(AABB(WorldCoords.voxel_corner(world, c), Vector3.ONE))


func _make_highlight_mesh() -> Mesh:
	var m := ImmediateMesh.new()
	var mat := StandardMaterial3D.new()
	mat.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
	mat.albedo_color = Color(0.05, 0.05, 0.05)
	m.surface_begin(Mesh.PRIMITIVE_LINES, mat)
	var s := 0.505
	var corners: Array[Vector3] = []
	for i in 8:
		corners.append(Vector3(s if i & 1 else -s, s if i & 2 else -s, s if i & 4 else -s))
	for i in 8:
		for bit: int in [1, 2, 4]:
			if not (i & bit):
				m.surface_add_vertex(corners[i])
				m.surface_add_vertex(corners[i | bit])
	m.surface_end()
	var face := StandardMaterial3D.new()
	face.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
	face.transparency = BaseMaterial3D.TRANSPARENCY_ALPHA
	face.albedo_color = Color(1, 1, 1, 0.12)
	face.cull_mode = BaseMaterial3D.CULL_DISABLED
	m.surface_begin(Mesh.PRIMITIVE_TRIANGLES, face)
	# Six faces of the box, two triangles each.
	var quads: Array[PackedInt32Array] = [
		PackedInt32Array([0, 1, 3, 2]),
		PackedInt32Array([4, 6, 7, 5]),
		PackedInt32Array([0, 4, 5, 1]),
		PackedInt32Array([2, 3, 7, 6]),
		PackedInt32Array([0, 2, 6, 4]),
		PackedInt32Array([1, 5, 7, 3]),
	]
	for q in quads:
		for k: int in [0, 1, 2, 0, 2, 3]:
			m.surface_add_vertex(corners[q[k]])
	m.surface_end()
	return m
