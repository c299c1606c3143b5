## Headless crowd benchmark: the demo's deer (walking on navigation paths, turning at steps and
## water) around a still viewer, and the main thread's frame time while they walk.
##
## User arguments (after `--`): `--entities=N` deer (default 200), `--navigation=0|1` (default
## 1), `--seconds=S` measured (default 8), `--view-distance=N` (default 6). The frame time is the
## time between two frames of the main loop with its idle wait turned off (headless Godot would
## otherwise sleep to 6.9 ms a frame): scripts, streaming apply, physics steps and the navigation
## server's sync, nothing drawn. Machine-readable lines start with `STRATA_CROWD_` (read by
## `cargo xtask bench`).
extends Node3D

const DEER := preload("res://game/life/deer.tscn")
const PRESET := "res://addons/strata/presets/default_hills.tres"

var count := 200
var navigation := true
var seconds := 8.0
var view_distance := 6

@onready var world: StrataChunkWorld = $StrataChunkWorld
@onready var camera: Camera3D = $Camera3D


func _parse_args() -> void:
	for arg in OS.get_cmdline_user_args():
		var kv := arg.split("=", true, 1)
		if kv.size() != 2:
			continue
		match kv[0]:
			"--entities":
				count = int(kv[1])
			"--navigation":
				navigation = kv[1] != "0" and kv[1] != "false"
			"--seconds":
				seconds = float(kv[1])
			"--view-distance":
				view_distance = int(kv[1])


func _ready() -> void:
	_parse_args()
	# Headless, the main loop sleeps to 6.9 ms a frame: without the wait a frame takes its work.
	OS.low_processor_usage_mode_sleep_usec = 0
	var preset := load(PRESET) as StrataWorldPreset
	world.preset = preset if preset != null else StrataWorldPreset.new()
	world.view_distance = view_distance
	world.far_view_levels = 0
	world.navigation_enabled = navigation
	world.frame_budget_ms = 3.0
	camera.position = Vector3(0.0, world.get_height(0.0, 0.0) + 12.0, 0.0)
	print(
		(
			"Strata crowd: %d deer, navigation %s, view distance %d"
			% [count, "on" if navigation else "off", view_distance]
		)
	)
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
	world.frame_budget_ms = 30.0
	if not await _wait_for(world.is_area_ready, 120.0):
		print("ERROR: view not ready after 120 s")
		get_tree().quit(1)
		return
	if navigation:
		var baked := func() -> bool: return int(world.get_stats()["nav_queue"]) == 0
		await _wait_for(baked, 60.0)
	world.frame_budget_ms = 3.0
	# A sunflower spiral of deer within 40 voxels of the viewer (entity_distance covers it).
	for i in count:
		var r := 4.0 + 36.0 * sqrt(float(i) / maxf(count, 1))
		var a := float(i) * 2.399963
		var x := cos(a) * r
		var z := sin(a) * r
		world.add_entity(DEER, Vector3(x, world.get_height(x, z), z))
	# Let paths be asked for and the spawns settle before measuring.
	for i in 60:
		await get_tree().process_frame
	var frame_ms: Array[float] = []

	var start := Time.get_ticks_msec()
	var last := Time.get_ticks_usec()
	while Time.get_ticks_msec() - start < seconds * 1000.0:
		await get_tree().process_frame
		var now := Time.get_ticks_usec()
		frame_ms.append((now - last) / 1000.0)
		last = now
	frame_ms.sort()
	var st := world.get_stats()
	print("STRATA_CROWD_ENTITIES=%d" % int(st["entities"]))
	print("STRATA_CROWD_NAV_REGIONS=%d" % int(st["nav_regions"]))
	print("STRATA_CROWD_FRAMES=%d" % frame_ms.size())
	print("STRATA_CROWD_FRAME_MS_P50=%.3f" % _quantile(frame_ms, 0.5))
	print("STRATA_CROWD_FRAME_MS_P99=%.3f" % _quantile(frame_ms, 0.99))
	print("STRATA_CROWD_FRAME_MS_MAX=%.3f" % frame_ms.back())
	get_tree().quit(0)


func _quantile(sorted: Array[float], q: float) -> float:
	if sorted.is_empty():
		return 0.0
	return sorted[mini(sorted.size() - 1, int(sorted.size() * q))]
