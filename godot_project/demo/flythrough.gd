## Headless (or Xvfb-rendered) flythrough: loads the view, flies a path, prints progress and
## stats, and optionally writes screenshots.
##
## User arguments (after `--`): `--view-distance=N` (default 8), `--seconds=S` flight time
## (default 8), `--screenshot-dir=ABS_DIR` (rendered runs only), `--preset=res://...tres`,
## `--seed=N`, `--walk=N` (after the flight, a random walk of N one-frame steps of up to 8 voxels,
## then the resident memory is printed again, and at every 10,000 steps: it should stay flat),
## `--far-levels=N` (far view levels, default 3; the overview screenshot waits for the far view),
## `--workers=N` (worker threads, default 0 = automatic),
## `--ambient-occlusion=0|1` (default 1), `--entities=0|1` (the demo's spawn rules: deer and
## chests, default 0; prints the live entities and the main-thread time to instance one),
## `--light=0|1` (sky and block light, default 1: off, the workers keep no voxel cache),
## `--origin-shift=D` (the floating origin on, shifting when the camera is D voxels from it;
## default 0: off; prints the shifts and their main-thread time).
## Machine-readable lines start with `STRATA_` (read by `cargo xtask bench`).
extends Node3D

var view_distance := 8
var seconds := 8.0
var screenshot_dir := ""
var preset_path := "res://addons/strata/presets/default_hills.tres"
var seed_override := -1
var walk_steps := 0
var far_levels := 3
var workers := 0
var ambient_occlusion := true
var entities := false
var light := true
var origin_shift := 0.0

@onready var world: StrataChunkWorld = $StrataChunkWorld
@onready var camera: Camera3D = $Camera3D
## The game's sky, sun and fog, its clock stopped in the morning (`flythrough.tscn`).
@onready var day_night: DayNight = $DayNight


func _parse_args() -> void:
	for arg in OS.get_cmdline_user_args():
		var kv := arg.split("=", true, 1)
		if kv.size() != 2:
			continue
		match kv[0]:
			"--view-distance":
				view_distance = int(kv[1])
			"--seconds":
				seconds = float(kv[1])
			"--screenshot-dir":
				screenshot_dir = kv[1]
			"--preset":
				preset_path = kv[1]
			"--seed":
				seed_override = int(kv[1])
			"--walk":
				walk_steps = int(kv[1])
			"--far-levels":
				far_levels = int(kv[1])
			"--workers":
				workers = int(kv[1])
			"--ambient-occlusion":
				ambient_occlusion = kv[1] != "0" and kv[1] != "false"
			"--entities":
				entities = kv[1] != "0" and kv[1] != "false"
			"--light":
				light = kv[1] != "0" and kv[1] != "false"
			"--origin-shift":
				origin_shift = float(kv[1])


func _ready() -> void:
	_parse_args()
	var preset: StrataWorldPreset = null
	if ResourceLoader.exists(preset_path):
		preset = load(preset_path) as StrataWorldPreset
	if preset == null:
		preset = StrataWorldPreset.new()
	if seed_override >= 0:
		preset.seed = seed_override
	if entities:
		preset = preset.duplicate() as StrataWorldPreset
		DemoLife.add_rules(preset)
		DemoLife.add_structures(world)
		DemoLife.add_structure_rules(preset)
	world.preset = preset
	world.view_distance = view_distance
	world.far_view_levels = far_levels
	# Fixed levels: a benchmark or screenshot run must not depend on how slow its frames are.
	world.adaptive_far_view = false
	world.ambient_occlusion = ambient_occlusion
	world.worker_threads = workers
	world.light_enabled = light
	world.frame_budget_ms = 3.0
	# As the game does: shadows and fog reach as far as the world is drawn.
	var reach := float(view_distance * StrataChunkWorld.chunk_size()) * pow(2.0, far_levels)
	day_night.shadow_distance = minf(reach, 2048.0)
	day_night.view_reach_m = minf(reach, camera.far)
	if origin_shift > 0.0:
		world.floating_origin = true
		world.origin_shift_distance = origin_shift
		camera.add_to_group(world.origin_shift_group)
	print(
		(
			(
				"Strata flythrough: preset %s, seed %d, view distance %d chunks, "
				+ "far view %d levels (%d voxels), %d workers"
			)
			% [
				preset_path.get_file(),
				preset.seed,
				view_distance,
				far_levels,
				view_distance * 32 * (1 << far_levels),
				world.get_stats()["workers"]
			]
		)
	)
	_run.call_deferred()


## Puts the camera 28 voxels over world column (x, z), in the world's node space.
func _place_camera(x: float, z: float, look_ahead: Vector3) -> void:
	var ground := world.get_height(x, z)
	camera.position = Vector3(x, maxf(ground, 0.0) + 28.0, z) - Vector3(world.get_origin())
	camera.look_at(camera.position + look_ahead, Vector3.UP)


## While loading, frames need not be drawn: under a software renderer (llvmpipe) each drawn frame
## costs hundreds of milliseconds, and streaming applies results once per frame.
func _set_loading(loading: bool) -> void:
	get_viewport().disable_3d = loading
	world.frame_budget_ms = 30.0 if loading else 3.0


## Resident memory of this process in MB (Linux /proc), or -1.
func _rss_mb() -> float:
	var f := FileAccess.open("/proc/self/status", FileAccess.READ)
	if f == null:
		return -1.0
	# /proc files report size 0, so read line by line rather than by length.
	for i in 64:
		var line := f.get_line()
		if line.begins_with("VmRSS:"):
			return float(line.split(":")[1].strip_edges().split(" ")[0]) / 1024.0
		if line == "" and f.eof_reached():
			break
	return -1.0


func _run() -> void:
	var rss_start := _rss_mb()
	print(
		(
			"  memory at start: RSS %.1f MB, Godot static %.1f MB, objects %d"
			% [
				rss_start,
				Performance.get_monitor(Performance.MEMORY_STATIC) / 1048576.0,
				Performance.get_monitor(Performance.OBJECT_COUNT)
			]
		)
	)
	var start := Time.get_ticks_usec()
	_place_camera(0.0, 0.0, Vector3(1, -0.35, 0.4))
	_set_loading(true)
	var last_print := 0
	while not world.is_area_ready():
		await get_tree().process_frame
		var now := Time.get_ticks_msec()
		if now - last_print >= 500:
			last_print = now
			var st := world.get_stats()
			print(
				(
					"  loading %3d%%  (%d loaded, %d pending)"
					% [int(world.get_progress() * 100.0), st["loaded_chunks"], st["pending_chunks"]]
				)
			)
		if Time.get_ticks_usec() - start > 120_000_000:
			print("ERROR: view not ready after 120 s")
			get_tree().quit(1)
			return
	var ready_s := (Time.get_ticks_usec() - start) / 1_000_000.0
	var st0 := world.get_stats()
	print(
		(
			"view ready in %.2f s at view distance %d (%d chunks, gen median %.2f ms, mesh median %.2f ms)"
			% [
				ready_s,
				view_distance,
				st0["loaded_chunks"],
				st0["gen_ms_median"],
				st0["mesh_ms_median"]
			]
		)
	)
	# The far view fills in after the near field (near chunks are queued first).
	var far_s := -1.0
	if far_levels > 0:
		var far_deadline := Time.get_ticks_msec() + 60_000
		while Time.get_ticks_msec() < far_deadline:
			var st := world.get_stats()
			if st["far_pending"] == 0 and st["far_loaded"] > 0 and st["retiring"] == 0:
				break
			await get_tree().process_frame
		far_s = (Time.get_ticks_usec() - start) / 1_000_000.0
		var stf := world.get_stats()
		print(
			(
				"far view complete in %.2f s (%d far columns, far median %.2f ms, %d levels in use)"
				% [far_s, stf["far_loaded"], stf["far_ms_median"], stf["far_view_levels"]]
			)
		)
	_set_loading(false)
	if screenshot_dir != "":
		await _screenshot("overview")
	# Fly east along a gentle curve, following the terrain.
	var t0 := Time.get_ticks_msec()
	var apply_ms: Array[float] = []
	var speed := 40.0
	var x := 0.0
	var z := 0.0
	var last_stats := t0
	while (Time.get_ticks_msec() - t0) / 1000.0 < seconds:
		var dt := get_process_delta_time()
		x += speed * dt
		z = sin(x / 200.0) * 60.0
		_place_camera(x, z, Vector3(1, -0.3, cos(x / 200.0) * 0.3))
		await get_tree().process_frame
		apply_ms.append(world.get_stats()["apply_ms_last_frame"])
		if Time.get_ticks_msec() - last_stats >= 1000:
			last_stats = Time.get_ticks_msec()
			var st := world.get_stats()
			print(
				(
					"  flying x=%6.0f  loaded %d  pending %d  generated %d  apply %.2f ms"
					% [
						x,
						st["loaded_chunks"],
						st["pending_chunks"],
						st["generated_total"],
						st["apply_ms_last_frame"]
					]
				)
			)
	apply_ms.sort()
	if entities:
		var ste := world.get_stats()
		print("STRATA_ENTITIES=%d" % int(ste["entities"]))
		print("STRATA_ENTITY_SPAWN_US_MEDIAN=%.1f" % float(ste["entity_spawn_us_median"]))
	var p50 := apply_ms[apply_ms.size() / 2] if apply_ms.size() > 0 else 0.0
	var p99 := (
		apply_ms[mini(apply_ms.size() - 1, int(apply_ms.size() * 0.99))]
		if apply_ms.size() > 0
		else 0.0
	)
	var st1 := world.get_stats()
	print(
		(
			(
				"flight: %.0f voxels in %.1f s, %d frames, "
				+ "apply ms p50 %.2f p99 %.2f max %.2f, %d chunks generated"
			)
			% [
				x,
				seconds,
				apply_ms.size(),
				p50,
				p99,
				apply_ms.back() if apply_ms.size() > 0 else 0.0,
				st1["generated_total"]
			]
		)
	)
	if screenshot_dir != "":
		_set_loading(true)
		var ready_deadline := Time.get_ticks_msec() + 120_000
		while not world.is_area_ready() and Time.get_ticks_msec() < ready_deadline:
			await get_tree().process_frame
		_set_loading(false)
		await _screenshot("flight_end")
	var rss_ready := _rss_mb()
	_print_memory("ready")
	var godot_mb_ready := Performance.get_monitor(Performance.MEMORY_STATIC) / 1048576.0
	var objects_ready := Performance.get_monitor(Performance.OBJECT_COUNT)
	if walk_steps > 0:
		var rng := RandomNumberGenerator.new()
		rng.seed = 7
		var wx := x
		var wz := z
		var walk_start := Time.get_ticks_msec()
		for i in walk_steps:
			wx += rng.randf_range(-8.0, 8.0)
			wz += rng.randf_range(-8.0, 8.0)
			_place_camera(wx, wz, Vector3(1, -0.3, 0.2))
			await get_tree().process_frame
			# Every 10,000 steps: settle (near chunks, far view and retiring chunks all done, so
			# the same chunks and columns are loaded whatever the machine's speed), then resident
			# memory (flat from one mark to the next means no growth with distance walked).
			if (i + 1) % 10000 == 0:
				await _settle_view(60_000)
				var rss_now := _rss_mb()
				var loaded_now: int = world.get_stats()["loaded_chunks"]
				print("STRATA_RSS_MB_AFTER_WALK_%d=%.1f" % [i + 1, rss_now])
				# The issue's figure: resident growth since start per loaded near chunk.
				print(
					(
						"STRATA_RSS_BYTES_PER_CHUNK_AFTER_WALK_%d=%.0f"
						% [i + 1, (rss_now - rss_start) * 1048576.0 / maxi(loaded_now, 1)]
					)
				)
				_print_memory("walk %d" % (i + 1))
		while not world.is_area_ready():
			await get_tree().process_frame
		print(
			(
				"walk: %d steps in %.1f s, ended at (%.0f, %.0f), %d chunks generated in all"
				% [
					walk_steps,
					(Time.get_ticks_msec() - walk_start) / 1000.0,
					wx,
					wz,
					world.get_stats()["generated_total"]
				]
			)
		)
		print("STRATA_RSS_MB_AFTER_WALK=%.1f" % _rss_mb())
		# Godot's own allocations and objects, to tell a leak from allocator fragmentation.
		print("STRATA_GODOT_STATIC_MB_READY=%.1f" % godot_mb_ready)
		print(
			(
				"STRATA_GODOT_STATIC_MB_AFTER_WALK=%.1f"
				% (Performance.get_monitor(Performance.MEMORY_STATIC) / 1048576.0)
			)
		)
		print("STRATA_OBJECTS_READY=%d" % objects_ready)
		print("STRATA_OBJECTS_AFTER_WALK=%d" % Performance.get_monitor(Performance.OBJECT_COUNT))
	print("STRATA_RSS_MB_START=%.1f" % rss_start)
	print("STRATA_RSS_MB_READY=%.1f" % rss_ready)
	print("STRATA_LOADED_CHUNKS=%d" % st0["loaded_chunks"])
	print("STRATA_MESHED_CHUNKS=%d" % st0["nodes"])
	print("STRATA_APPLY_MS_P50=%.3f" % p50)
	print("STRATA_APPLY_MS_P99=%.3f" % p99)
	print("STRATA_APPLY_MS_MAX=%.3f" % (apply_ms.back() if apply_ms.size() > 0 else 0.0))
	print("STRATA_CHUNKS_PER_S=%.1f" % (st0["loaded_chunks"] / maxf(ready_s, 0.001)))
	print("STRATA_DEMO_VIEW_READY_S=%.3f" % ready_s)
	print("STRATA_FAR_READY_S=%.3f" % far_s)
	print("STRATA_APPLY_CHUNK_US_MEDIAN=%.1f" % world.get_stats()["apply_chunk_us_median"])
	print("STRATA_APPLY_FAR_US_MEDIAN=%.1f" % world.get_stats()["apply_far_us_median"])
	print("STRATA_COLLISION_US_MEDIAN=%.1f" % world.get_stats()["collision_us_median"])
	print("STRATA_COLLISION_US_MAX=%.1f" % world.get_stats()["collision_us_max"])
	var stats := world.get_stats()
	for kind: String in ["start", "part", "swap", "start_from_mesh"]:
		for of: String in ["median", "max"]:
			var key := "collision_%s_us_%s" % [kind, of]
			print("STRATA_%s=%.1f" % [key.to_upper(), stats[key]])
	for part: String in ["bookkeeping", "scatter", "mesh", "node", "occluders", "collision"]:
		var part_key := "apply_chunk_%s_us_median" % part
		print("STRATA_%s=%.1f" % [part_key.to_upper(), stats.get(part_key, -1.0)])
	print("STRATA_FAR_COLUMNS=%d" % world.get_stats()["far_loaded"])
	if origin_shift > 0.0:
		print("STRATA_ORIGIN_SHIFTS=%d" % stats["origin_shifts"])
		print("STRATA_ORIGIN_SHIFT_US_MEDIAN=%.1f" % stats["origin_shift_us_median"])
		print("STRATA_ORIGIN_SHIFT_US_MAX=%.1f" % stats["origin_shift_us_max"])
	get_tree().quit(0)


## Waits until the near chunks are ready, the far view is complete and no retiring chunk waits
## for its far column (at most `timeout_ms`).
func _settle_view(timeout_ms: int) -> void:
	var deadline := Time.get_ticks_msec() + timeout_ms
	while Time.get_ticks_msec() < deadline:
		var st := world.get_stats()
		if world.is_area_ready() and st["far_pending"] == 0 and st["retiring"] == 0:
			return
		await get_tree().process_frame
	print("  (view not settled after %d ms)" % timeout_ms)


## Where resident memory goes at this point: Godot's own tracked allocations (meshes held by the
## RenderingServer, nodes, physics), the mesh streams of loaded chunks, the workers' voxel cache
## (keys absent from builds without them print -1).
func _print_memory(tag: String) -> void:
	var st := world.get_stats()
	print(
		(
			(
				"  memory at %s: RSS %.1f MB, Godot static %.1f MB, objects %d, %d near chunks "
				+ "(%d meshed), %d far columns, %d retiring, chunk meshes %.1f MB, far meshes %.1f MB, "
				+ "voxel cache %.1f MB (%d entries, %d hits, %d misses), C heap in use %.1f MB, "
				+ "kept free %.1f MB"
			)
			% [
				tag,
				_rss_mb(),
				Performance.get_monitor(Performance.MEMORY_STATIC) / 1048576.0,
				Performance.get_monitor(Performance.OBJECT_COUNT),
				st["loaded_chunks"],
				st["nodes"],
				st["far_loaded"],
				st["retiring"],
				st.get("chunk_mesh_mb", -1.0),
				st.get("far_mesh_mb", -1.0),
				st.get("voxel_cache_mb", -1.0),
				st.get("voxel_cache_entries", -1),
				st.get("voxel_cache_hits", -1),
				st.get("voxel_cache_misses", -1),
				st.get("heap_in_use_mb", -1.0),
				st.get("heap_free_mb", -1.0)
			]
		)
	)
	_print_node_breakdown()


## The world's children by kind, with the scatter's instance bytes and the occluder pages (what
## Godot keeps for them besides the mesh streams counted above).
func _print_node_breakdown() -> void:
	var counts := {}
	var scatter_instances := 0
	var scatter_bytes := 0
	for child in world.get_children(true):
		var kind := child.get_class()
		counts[kind] = int(counts.get(kind, 0)) + 1
		for grandchild in child.get_children():
			var sub := "%s/%s" % [kind, grandchild.get_class()]
			counts[sub] = int(counts.get(sub, 0)) + 1
		var multi := child as MultiMeshInstance3D
		if multi != null and multi.multimesh != null:
			scatter_instances += multi.multimesh.instance_count
			scatter_bytes += multi.multimesh.buffer.size() * 4
	var st := world.get_stats()
	# A page is 256 layers of 170 × 34 bytes, on the GPU.
	var pages: int = st.get("occluder_pages", 0)
	print(
		(
			(
				"  nodes: %s; scatter %d instances (%.1f MB); occluder pages %d (%.1f MB), "
				+ "%d layers in use, %d material copies"
			)
			% [
				counts,
				scatter_instances,
				scatter_bytes / 1048576.0,
				pages,
				pages * 256 * 170 * 34 / 1048576.0,
				st.get("occluder_layers", 0),
				st.get("occluder_materials", 0)
			]
		)
	)


func _screenshot(tag: String) -> void:
	for i in 5:
		await RenderingServer.frame_post_draw
	var tex := get_viewport().get_texture()
	var img: Image = tex.get_image() if tex != null else null
	if img == null or img.is_empty():
		print("  (no rendered frame to capture in this mode)")
		return
	DirAccess.make_dir_recursive_absolute(screenshot_dir)
	var path := screenshot_dir.path_join("demo_%s.png" % tag)
	var err := img.save_png(path)
	if err == OK:
		print("  screenshot: " + path)
	else:
		print("ERROR: could not write %s (%s)" % [path, error_string(err)])
