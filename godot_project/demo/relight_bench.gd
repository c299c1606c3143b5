## Headless relight benchmark: how many frames (at 60 fps) and milliseconds pass between an edit
## that changes light and the relit meshes being applied, the frame in which the player sees it.
##
## A sealed stone room deep underground with the viewer in it, and a shaft from the surface that
## stops one voxel above the room's roof. Each round places a torch in the room and takes it away
## again (block light), then opens and closes the shaft's last voxel (sky light down the shaft),
## and waits after each edit until `StrataChunkWorld.is_area_ready()` holds again: every chunk the
## edit relit has its new mesh in the scene. User arguments (after `--`): `--rounds=N` (default 10),
## `--view-distance=N` (default 4). Machine-readable lines start with `STRATA_RELIGHT_` (read by
## `cargo xtask bench`).
extends Node3D

const PRESET := "res://addons/strata/presets/default_hills.tres"
## The room's middle, in columns.
const X := 10
const Z := 10

var rounds := 10
var view_distance := 4

@onready var world: StrataChunkWorld = $StrataChunkWorld
@onready var camera: Camera3D = $Camera3D


func _parse_args() -> void:
	for arg in OS.get_cmdline_user_args():
		var kv := arg.split("=", true, 1)
		if kv.size() != 2:
			continue
		match kv[0]:
			"--rounds":
				rounds = maxi(1, int(kv[1]))
			"--view-distance":
				view_distance = int(kv[1])


func _ready() -> void:
	_parse_args()
	var preset := load(PRESET) as StrataWorldPreset
	world.preset = preset if preset != null else StrataWorldPreset.new()
	world.view_distance = view_distance
	world.far_view_levels = 0
	print("Strata relight: %d rounds, view distance %d" % [rounds, view_distance])
	_run.call_deferred()


## Waits until `done` holds, at most `limit_s` seconds; false on time-out.
func _wait_for(done: Callable, limit_s: float) -> bool:
	var deadline := Time.get_ticks_msec() + int(limit_s * 1000.0)
	while not done.call():
		if Time.get_ticks_msec() > deadline:
			return false
		await get_tree().process_frame
	return true


func _run() -> void:
	var surface := int(world.get_height(X, Z))
	var floor_y := surface - 40
	var stone := world.get_block_id("stone")
	# A 5×3×5 room walled in stone.
	for dy in range(-1, 4):
		for dz in range(-3, 4):
			for dx in range(-3, 4):
				var inside := dy >= 0 and dy <= 2 and absi(dx) <= 2 and absi(dz) <= 2
				world.set_voxel(Vector3i(X + dx, floor_y + dy, Z + dz), 0 if inside else stone)
	# A shaft from above the surface down to one voxel above the room's roof (floor_y + 3).
	for y in range(floor_y + 5, surface + 8):
		world.set_voxel(Vector3i(X, y, Z), 0)
	var lid := Vector3i(X, floor_y + 4, Z)
	world.set_voxel(lid, stone)
	camera.position = Vector3(X + 0.5, floor_y + 1.5, Z - 1.5)
	if not await _wait_for(world.is_area_ready, 120.0):
		print("ERROR: view not ready after 120 s")
		get_tree().quit(1)
		return
	# Frames as a player sees them: the main loop paced to 60 a second.
	Engine.max_fps = 60
	for i in 30:
		await get_tree().process_frame
	var torch := world.get_block_id("torch")
	var lamp := Vector3i(X, floor_y + 1, Z)
	var results := {"torch": [[], [], []], "shaft": [[], [], []]}
	for r in rounds:
		for edit: Array in [
			["torch", lamp, torch], ["torch", lamp, 0], ["shaft", lid, 0], ["shaft", lid, stone]
		]:
			var measured: Array = await _measure(edit[1], edit[2])
			if measured.is_empty():
				print("ERROR: not relit after 30 s (%s)" % edit[0])
				get_tree().quit(1)
				return
			for i in 3:
				results[edit[0]][i].append(measured[i])
	for kind: String in results:
		var frames: Array = results[kind][0]
		var ms: Array = results[kind][1]
		var mesh_frames: Array = results[kind][2]
		frames.sort()
		ms.sort()
		mesh_frames.sort()
		var tag := kind.to_upper()
		print("STRATA_RELIGHT_%s_EDITS=%d" % [tag, frames.size()])
		print("STRATA_RELIGHT_%s_MESH_FRAMES_P50=%d" % [tag, mesh_frames[mesh_frames.size() / 2]])
		print("STRATA_RELIGHT_%s_MESH_FRAMES_MAX=%d" % [tag, mesh_frames.back()])
		print("STRATA_RELIGHT_%s_FRAMES_P50=%d" % [tag, frames[frames.size() / 2]])
		print("STRATA_RELIGHT_%s_FRAMES_MAX=%d" % [tag, frames.back()])
		print("STRATA_RELIGHT_%s_MS_P50=%.2f" % [tag, ms[ms.size() / 2]])
		print("STRATA_RELIGHT_%s_MS_MAX=%.2f" % [tag, ms.back()])
	get_tree().quit(0)


## Sets `voxel` to `block` at the start of a frame and returns [frames, milliseconds, mesh
## frames], or [] after 30 s: the frames until the world is ready again (every relit chunk's mesh
## applied and its collision body, where its faces changed, rebuilt), and until the edited
## chunk's new mesh is in the scene (its node replaced). A count of n means it was observed at the
## start of the n-th frame after the edit's: done in the frame before, drawn at that frame's end.
func _measure(voxel: Vector3i, block: int) -> Array:
	await get_tree().process_frame
	var chunk := Vector3i(floori(voxel.x / 32.0), floori(voxel.y / 32.0), floori(voxel.z / 32.0))
	var node_name := "chunk_%d_%d_%d" % [chunk.x, chunk.y, chunk.z]
	var before := world.get_node_or_null(node_name)
	var before_id := before.get_instance_id() if before != null else 0
	var frame := Engine.get_process_frames()
	var start := Time.get_ticks_usec()
	world.set_voxel(voxel, block)
	if world.is_area_ready():
		print("ERROR: an edit left the area ready before its meshes were rebuilt")
		return []
	var mesh_frames := -1
	var deadline := Time.get_ticks_msec() + 30000
	while not world.is_area_ready() or mesh_frames < 0:
		if Time.get_ticks_msec() > deadline:
			return []
		await get_tree().process_frame
		var now := world.get_node_or_null(node_name)
		if mesh_frames < 0 and now != null and now.get_instance_id() != before_id:
			mesh_frames = Engine.get_process_frames() - frame
	var result := [
		Engine.get_process_frames() - frame, (Time.get_ticks_usec() - start) / 1000.0, mesh_frames
	]
	# Let the world rest before the next edit.
	for i in 10:
		await get_tree().process_frame
	return result
