## Runs the docs' GDScript snippets that `cargo xtask test` wrapped into `res://doc_snippets/`
## (listed in its `manifest.tsv`: name, Markdown file:line, kind), each against a real
## `StrataChunkWorld`, and prints one line per snippet naming its Markdown line, then
## `N passed, N failed`.
##
## A snippet fails when its script does not load, when anything is logged as an error or a
## warning while it runs, when it does not finish (fragment) or its checks do not all hold
## (script) within `TIME_LIMIT_MS`, or when a check of a fragment is false.
extends Node

const DIR := "res://doc_snippets"
const HOST := "res://tools/doc_snippet_host.gd"
const TIME_LIMIT_MS := 60000

## Every error and warning Godot logs.
var _log := StrataLogCollector.new()


func _ready() -> void:
	await get_tree().process_frame
	OS.add_logger(_log)
	var manifest := FileAccess.get_file_as_string(DIR.path_join("manifest.tsv"))
	var passed := 0
	var failed := 0
	for row in manifest.split("\n", false):
		var cols := row.split("\t")
		if cols.size() != 3:
			print("  FAIL manifest row %s: expected name, source and kind" % row)
			failed += 1
			continue
		var t0 := Time.get_ticks_msec()
		var expected: Array[String] = []
		var problems := await _run_one(cols[0], cols[2], expected)
		problems.append_array(_unexpected(_log.take(), expected))
		var ms := Time.get_ticks_msec() - t0
		if problems.is_empty():
			passed += 1
			print("  ok   %s (%s, %d ms)" % [cols[1], cols[2], ms])
		else:
			failed += 1
			print("  FAIL %s (%s, %d ms): %s" % [cols[1], cols[2], ms, cols[0] + ".gd"])
			for p in problems:
				print("       - " + p)
	OS.remove_logger(_log)
	_remove_user_files()
	print("%d passed, %d failed" % [passed, failed])
	get_tree().quit(1 if failed > 0 else 0)


## Runs one wrapped snippet; returns what went wrong.
## Fills `expected` with the snippet's `SNIPPET_EXPECTED_ERRORS`.
func _run_one(snippet_name: String, kind: String, expected: Array[String]) -> PackedStringArray:
	_remove_user_files()
	var path := DIR.path_join(snippet_name + ".gd")
	var script := (
		ResourceLoader.load(path, "GDScript", ResourceLoader.CACHE_MODE_IGNORE) as GDScript
	)
	if script == null or not script.can_instantiate():
		return PackedStringArray(["%s does not compile (the errors above name its lines)" % path])
	var problems: PackedStringArray = []
	var node: Node = script.new()
	expected.assign(node.get("SNIPPET_EXPECTED_ERRORS"))
	if kind == "fragment":
		var world := _small_world()
		node.add_child(world)
		node.set("world", world)
		node.set("preset", world.preset)
		add_child(node)
		if not await _wait(func() -> bool: return world.is_area_ready()):
			problems.append("the page's world was not ready in time: " + world.last_error())
		else:
			node.call("start")
			if not await _wait(func() -> bool: return node.get("finished")):
				var limit_s := TIME_LIMIT_MS / 1000
				problems.append(
					"did not finish within %d s (an await that never returns?)" % limit_s
				)
			for c: String in node.get("check_failures"):
				problems.append("check failed: " + c)
	else:
		if node is Node3D:
			node.add_child(_small_world())
			var player := Node3D.new()
			player.name = "Player"
			node.add_child(player)
			var camera := Camera3D.new()
			camera.name = "Camera3D"
			node.add_child(camera)
		add_child(node)
		var checks: Array[String] = node.get("SNIPPET_CHECKS")
		var all_hold := func() -> bool:
			for i in checks.size():
				if not node.call("snippet_check_%d" % i):
					return false
			return true
		if not await _wait(all_hold):
			for i in checks.size():
				if is_instance_valid(node) and not node.call("snippet_check_%d" % i):
					problems.append(
						"check still false after %d s: %s" % [TIME_LIMIT_MS / 1000, checks[i]]
					)
	if is_instance_valid(node):
		node.queue_free()
	for i in 3:
		await get_tree().process_frame
	return problems


## The logged `lines` that no `expected` text explains, and each expected text never logged.
func _unexpected(lines: PackedStringArray, expected: Array[String]) -> PackedStringArray:
	var out: PackedStringArray = []
	var seen: Array[String] = []
	for line in lines:
		var explained := false
		for e in expected:
			if line.contains(e):
				explained = true
				if not seen.has(e):
					seen.append(e)
		if not explained:
			out.append(line)
	for e in expected:
		if not seen.has(e):
			out.append("the expected error was not logged: " + e)
	return out


## A `StrataChunkWorld` named as the docs' scenes name it, showing little of the default world.
func _small_world() -> StrataChunkWorld:
	var world := StrataChunkWorld.new()
	world.name = "StrataChunkWorld"
	world.preset = StrataWorldPreset.new()
	world.view_distance = 2
	world.vertical_view_distance = 1
	world.far_view_levels = 0
	return world


## Waits frame by frame until `condition` holds (true) or the time limit passes (false).
func _wait(condition: Callable) -> bool:
	var start := Time.get_ticks_msec()
	while not condition.call():
		if Time.get_ticks_msec() - start > TIME_LIMIT_MS:
			return false
		await get_tree().process_frame
	return true


## The files the docs' snippets write (saves, profiles) in the test project's user folder.
func _remove_user_files() -> void:
	for dir: String in ["user://saves", "user://profiles"]:
		_remove_tree(ProjectSettings.globalize_path(dir))


func _remove_tree(dir: String) -> void:
	if not DirAccess.dir_exists_absolute(dir):
		return
	for f in DirAccess.get_files_at(dir):
		DirAccess.remove_absolute(dir.path_join(f))
	for d in DirAccess.get_directories_at(dir):
		_remove_tree(dir.path_join(d))
	DirAccess.remove_absolute(dir)
