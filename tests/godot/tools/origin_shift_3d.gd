## Headless end-to-end measurement of what a 3D floating-origin shift costs the main thread: a
## `StrataChunkWorld` at the demo's view (distance 8, far view 3 levels, entities and collision
## on) follows a viewer in its `origin_shift_group` that flies east at 40 m a frame, waiting for the
## area to be ready between shifts, until the world has shifted `--shifts=N` times (default 8).
## Prints `STRATA_ORIGIN_SHIFT_US median=… max=… shifts=…` (the world's own `get_stats()`: moving
## its nodes, the regions and the group, µs) and the frame time of the shift frames. Measures,
## asserts nothing.
##
##   godot --headless --path tests/godot res://tools/origin_shift_3d.tscn -- [--shifts=N]
extends Node3D

var _world: StrataChunkWorld
var _viewer: Node3D


func _ready() -> void:
	_run.call_deferred()


func _run() -> void:
	var shifts := 8
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--shifts="):
			shifts = maxi(1, arg.substr(9).to_int())
	_world = StrataChunkWorld.new()
	_world.preset = StrataWorldPreset.new()
	_world.floating_origin = true
	_world.view_distance = 8
	_world.far_view_levels = 3
	add_child(_world)
	_viewer = Node3D.new()
	_viewer.add_to_group(_world.origin_shift_group)
	add_child(_viewer)
	_viewer.position = Vector3(0.5, _world.get_height(0.5, 0.5) + 2.0, 0.5)
	_world.viewer = _world.get_path_to(_viewer)
	var frame_ms: Array[float] = []
	var done := 0
	while done < shifts:
		while not _world.is_area_ready():
			await get_tree().process_frame
		var before := int(_world.get_stats()["origin_shifts"])
		var t0 := Time.get_ticks_usec()
		_viewer.position.x += 40.0
		await get_tree().process_frame
		var took := (Time.get_ticks_usec() - t0) / 1000.0
		if int(_world.get_stats()["origin_shifts"]) > before:
			frame_ms.append(took)
			done += 1
	var stats := _world.get_stats()
	frame_ms.sort()
	print(
		(
			"STRATA_ORIGIN_SHIFT_US median=%d max=%d shifts=%d loaded_chunks=%d"
			% [
				stats["origin_shift_us_median"],
				stats["origin_shift_us_max"],
				stats["origin_shifts"],
				stats["loaded_chunks"]
			]
		)
	)
	print(
		(
			"STRATA_ORIGIN_SHIFT_FRAME_MS median=%.2f max=%.2f"
			% [frame_ms[frame_ms.size() / 2], frame_ms[frame_ms.size() - 1]]
		)
	)
	get_tree().quit()
