## Runs every Godot test suite in headless Godot and exits non-zero on any failure.
##
## Suites are the scripts `res://tests/test_*.gd` (each extends StrataTestCase). Optional user
## argument `--filter=TEXT` runs only tests whose "suite.test" name contains TEXT.
## Ends with the line `N passed, N failed`.
extends Node

func _ready() -> void:
	await get_tree().process_frame
	var filter := ""
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--filter="):
			filter = arg.substr(9)
	var passed := 0
	var failed := 0
	var failed_names: PackedStringArray = []
	if not ClassDB.class_exists("ChunkWorld"):
		print("FAIL: the Strata extension is not loaded (ChunkWorld class missing); run the import first")
		print("0 passed, 1 failed")
		get_tree().quit(1)
		return
	var files := DirAccess.get_files_at("res://tests")
	var suites: Array[String] = []
	for f in files:
		if f.begins_with("test_") and f.ends_with(".gd") and f != "test_runner.gd" and f != "test_case.gd":
			suites.append("res://tests/" + f)
	suites.sort()
	var started := Time.get_ticks_msec()
	for path in suites:
		var script: GDScript = load(path)
		if script == null:
			print("FAIL %s: could not load" % path)
			failed += 1
			continue
		var suite_name := path.get_file().get_basename()
		var methods: Array[String] = []
		for m in script.get_script_method_list():
			var n: String = m["name"]
			if n.begins_with("test_") and not methods.has(n):
				methods.append(n)
		for method in methods:
			var full := suite_name + "." + method
			if filter != "" and not full.contains(filter):
				continue
			var suite: StrataTestCase = script.new()
			suite.name = suite_name
			add_child(suite)
			var t0 := Time.get_ticks_msec()
			await suite.before_each()
			await suite.call(method)
			await suite.after_each()
			var ms := Time.get_ticks_msec() - t0
			if suite._failures.is_empty():
				passed += 1
				print("  ok   %s (%d ms)" % [full, ms])
			else:
				failed += 1
				failed_names.append(full)
				print("  FAIL %s (%d ms)" % [full, ms])
				for msg in suite._failures:
					print("       - " + msg)
			remove_child(suite)
			suite.free()
			# Let deferred frees and worker shutdowns finish between tests.
			await get_tree().process_frame
	print("")
	if not failed_names.is_empty():
		print("failed: " + ", ".join(failed_names))
	print("Godot suite took %.1f s" % ((Time.get_ticks_msec() - started) / 1000.0))
	print("%d passed, %d failed" % [passed, failed])
	get_tree().quit(1 if failed > 0 else 0)
