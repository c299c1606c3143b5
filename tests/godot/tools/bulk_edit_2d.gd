## Headless end-to-end measurement of big side-view edits (issue 50, "Fast bulk edits"): a
## `StrataChunkWorld2D` at its defaults (view distance 2, `frame_budget_ms` 4, light and water
## on) takes 64 × 64-tile edits (a bomb of air, a structure of planks, the undo of each) one after
## another, each once the last is in the `TileMapLayer`, and every frame's whole time is recorded
## (from one frame's start to the next: the world's apply, Godot's own update of the layer's
## cells and physics, everything) with the world's `apply_ms_last_frame` and the main-thread time
## of the edit call itself. Prints `STRATA_BULK_*` lines: median, p99 and max in ms, and the
## frames an edit took to reach the layer. Measures, asserts nothing.
##
## Each figure is given twice: wall time, and (`*_CPU_MS`, on Linux) the main thread's own CPU
## time from `/proc/thread-self/schedstat`, which a machine busy with other work does not
## inflate (the wall time then includes the time the thread waited for a core).
##
##   godot --headless --path tests/godot res://tools/bulk_edit_2d.tscn -- [--edits=N]
extends Node2D

var _world: StrataChunkWorld2D
var _last_usec := 0
var _frame_ms: Array[float] = []
var _apply_ms: Array[float] = []
var _receive_ms: Array[float] = []
var _layer_update_ms: Array[float] = []
var _recording := false
var _last_cpu_ns := 0
var _frame_cpu_ms: Array[float] = []
## The frames' CPU time less the edit calls' own (the call is the game's; the rest is the
## world's apply, Godot's update of the layer and the engine's frame).
var _frame_cpu_ms_less_call: Array[float] = []
var _call_cpu_ns_pending := 0


func _ready() -> void:
	process_priority = -1000
	_run.call_deferred()


func _process(_delta: float) -> void:
	var now := Time.get_ticks_usec()
	var cpu := _thread_cpu_ns()
	if _recording and _last_usec > 0:
		_frame_ms.append((now - _last_usec) / 1000.0)
		_frame_cpu_ms.append((cpu - _last_cpu_ns) / 1e6)
		_frame_cpu_ms_less_call.append((cpu - _last_cpu_ns - _call_cpu_ns_pending) / 1e6)
		var stats := _world.get_stats()
		_apply_ms.append(float(stats["apply_ms_last_frame"]))
		_receive_ms.append(float(stats["receive_ms_last_frame"]))
		_layer_update_ms.append(float(stats["layer_update_ms_last_frame"]))
	_call_cpu_ns_pending = 0
	_last_usec = now
	_last_cpu_ns = cpu


## The calling thread's CPU time so far in ns (Linux), 0 where it cannot be read.
func _thread_cpu_ns() -> int:
	var f := FileAccess.open("/proc/thread-self/schedstat", FileAccess.READ)
	if f == null:
		return 0
	return f.get_line().get_slice(" ", 0).to_int()


func _run() -> void:
	var edits := 12
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--edits="):
			edits = maxi(1, arg.substr(8).to_int())
	_world = StrataChunkWorld2D.new()
	var preset := StrataWorldPreset.new()
	preset.seed = 2024
	preset.side_view_water_enabled = true
	_world.preset = preset
	add_child(_world)
	var camera := Camera2D.new()
	add_child(camera)
	_world.viewer = _world.get_path_to(camera)
	var top := _world.local_to_tile(Vector2(8, _world.get_surface_height(8) + 1))
	camera.position = _world.tile_to_local(top + Vector2i(0, 16))
	while not _world.is_area_ready():
		await get_tree().process_frame
	# Quiet frames first: what a frame costs with nothing to write.
	_recording = true
	for i in 120:
		await get_tree().process_frame
	_recording = false
	var idle := _frame_ms.duplicate()
	var idle_cpu := _frame_cpu_ms.duplicate()
	_frame_ms.clear()
	_frame_cpu_ms.clear()
	_frame_cpu_ms_less_call.clear()
	_apply_ms.clear()
	_receive_ms.clear()
	_layer_update_ms.clear()
	var call_ms: Array[float] = []
	var call_cpu_ms: Array[float] = []
	var frames: Array[float] = []
	var planks := _world.get_block_id("planks")
	var changed := 0
	for i in edits:
		# Alternately a bomb of air across the surface and a block of planks beside it, then the
		# undo of the one before: every kind of big change at the 64 × 64 size.
		var a := top + Vector2i(-64 + (i % 4) * 24, -24 + (i % 3) * 8)
		var t0 := Time.get_ticks_usec()
		var c0 := _thread_cpu_ns()
		match i % 3:
			0:
				changed += _world.set_tiles_rect(a, a + Vector2i(63, 63), 0)
			1:
				changed += _world.set_tiles_rect(a, a + Vector2i(63, 63), planks)
			_:
				_world.undo()
		call_ms.append((Time.get_ticks_usec() - t0) / 1000.0)
		_call_cpu_ns_pending = _thread_cpu_ns() - c0
		call_cpu_ms.append(_call_cpu_ns_pending / 1e6)
		_recording = true
		var n := 0
		# Written once the area is ready again and the water has settled.
		while n == 0 or not (_world.is_area_ready() and _world.is_water_settled()):
			await get_tree().process_frame
			n += 1
		_recording = false
		frames.append(n)
	print("STRATA_BULK_EDITS=%d" % edits)
	print("STRATA_BULK_TILES_CHANGED=%d" % changed)
	print("STRATA_BULK_IDLE_FRAME_MS %s" % _stats(idle))
	print("STRATA_BULK_IDLE_FRAME_CPU_MS %s" % _stats(idle_cpu))
	print("STRATA_BULK_FRAME_MS %s" % _stats(_frame_ms))
	print("STRATA_BULK_FRAME_CPU_MS %s" % _stats(_frame_cpu_ms))
	print("STRATA_BULK_FRAME_CPU_MS_LESS_CALL %s" % _stats(_frame_cpu_ms_less_call))
	print("STRATA_BULK_APPLY_MS %s" % _stats(_apply_ms))
	print("STRATA_BULK_RECEIVE_MS %s" % _stats(_receive_ms))
	print("STRATA_BULK_LAYER_UPDATE_MS %s" % _stats(_layer_update_ms))
	print("STRATA_BULK_CALL_MS %s" % _stats(call_ms))
	print("STRATA_BULK_CALL_CPU_MS %s" % _stats(call_cpu_ms))
	print("STRATA_BULK_FRAMES_TO_LAYER %s" % _stats(frames))
	_print_worst_frames(5)
	get_tree().quit()


## The `count` frames of most CPU less the call, each with the world's share of it: where a
## frame over the budget spent its time.
func _print_worst_frames(count: int) -> void:
	var order: Array[int] = []
	for i in _frame_cpu_ms_less_call.size():
		order.append(i)
	order.sort_custom(
		func(a: int, b: int) -> bool: return _frame_cpu_ms_less_call[a] > _frame_cpu_ms_less_call[b]
	)
	for i: int in order.slice(0, count):
		print(
			(
				"STRATA_BULK_WORST_FRAME cpu_less_call=%.3f apply=%.3f receive=%.3f layer_update=%.3f"
				% [_frame_cpu_ms_less_call[i], _apply_ms[i], _receive_ms[i], _layer_update_ms[i]]
			)
		)


## "median=… p99=… max=… n=…" of `v`, in its units.
func _stats(v: Array[float]) -> String:
	if v.is_empty():
		return "none"
	var s := v.duplicate()
	s.sort()
	var p99: float = s[mini(s.size() - 1, int(ceil(s.size() * 0.99)) - 1)]
	return "median=%.3f p99=%.3f max=%.3f n=%d" % [s[s.size() / 2], p99, s[s.size() - 1], s.size()]
