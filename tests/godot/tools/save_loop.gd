## Crash-consistency worker for `cargo xtask crash` (rust/xtask/src/crash.rs):
## `godot --headless --path tests/godot -s res://tools/save_loop.gd -- --save=PATH`.
##
## Loads the world save at PATH (or creates one with BASE_EDITS edits), prints `loaded N` (the
## save's counter) or `created`, then `ready`, then forever: one more edit, counter + 1 in the game
## state, `save_world(PATH)`, and `saved N` once that save returned. The harness kills the process
## with SIGKILL at a random moment and checks that the file holds save N or N + 1. Save N has
## counter N in its game state, BASE_EDITS + N edits and block (N % 3) + 1 at (N, MARK_Y, 0).
## Lines go to stderr (unbuffered), so the harness sees each one as soon as it is written.
extends SceneTree

const BASE_EDITS := 20000
const BASE_Y := 300
const MARK_Y := 320
## Stops by itself after this long, should the harness be gone.
const MAX_SECONDS := 120.0


func _initialize() -> void:
	var path := ""
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--save="):
			path = arg.substr(7)
	if path == "":
		printerr("usage: -s res://tools/save_loop.gd -- --save=PATH")
		quit(2)
		return
	var preset := StrataWorldPreset.new()
	preset.seed = 19
	var world := StrataChunkWorld.new()
	world.preset = preset
	world.worker_threads = 1
	var counter := 0
	if FileAccess.file_exists(path):
		if world.load_world(path) != OK:
			printerr("load failed: " + world.last_error())
			world.free()
			quit(3)
			return
		counter = int(world.get_state("counter", "-1"))
		printerr("loaded %d" % counter)
	else:
		for i in BASE_EDITS:
			world.set_voxel(Vector3i(i % 100, BASE_Y + i / 10000, (i / 100) % 100), 1 + i % 3)
		printerr("created")
	printerr("ready")
	var started := Time.get_ticks_msec()
	while Time.get_ticks_msec() - started < MAX_SECONDS * 1000.0:
		counter += 1
		world.set_voxel(Vector3i(counter, MARK_Y, 0), 1 + counter % 3)
		world.set_state("counter", str(counter))
		if world.save_world(path) != OK:
			printerr("save failed: " + world.last_error())
			break
		printerr("saved %d" % counter)
	world.free()
	quit(1)
