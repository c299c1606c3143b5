## Runs every Godot test suite in headless Godot and exits non-zero on any failure.
##
## Suites are the scripts `res://suites/test_*.gd` (each extends StrataTestCase). Optional user
## argument `--filter=TEXT` runs only tests whose "suite.test" name contains TEXT; `--skip=A,B`
## leaves out those whose name contains A or B; `--suites=A,B` runs only the suites named A and B
## (`cargo xtask platforms` under emulation); `--wait-scale=N` lets every `wait_until` wait N
## times as long (an emulated CPU runs many times slower; the conditions waited for are the same).
## A test that stops on a script error fails with it (`StrataLogCollector`). Ends with the line
## `N passed, N failed`.
extends Node

const SUITES_DIR := "res://suites"

var _script_errors := StrataLogCollector.new([Logger.ERROR_TYPE_SCRIPT])


func _ready() -> void:
	await get_tree().process_frame
	var filter := ""
	var skip: PackedStringArray = []
	var only_suites: PackedStringArray = []
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--filter="):
			filter = arg.substr(9)
		elif arg.begins_with("--skip="):
			skip = arg.substr(7).split(",", false)
		elif arg.begins_with("--suites="):
			only_suites = arg.substr(9).split(",", false)
		elif arg.begins_with("--wait-scale="):
			StrataTestCase.wait_scale = maxf(1.0, arg.substr(13).to_float())
	if not ClassDB.class_exists("StrataChunkWorld"):
		print(
			"FAIL: the Strata extension is not loaded (StrataChunkWorld class missing); run the import first"
		)
		print("0 passed, 1 failed")
		get_tree().quit(1)
		return
	OS.add_logger(_script_errors)
	var passed := 0
	var failed := 0
	var failed_names: PackedStringArray = []
	var started := Time.get_ticks_msec()
	for path in _suite_paths():
		var script: GDScript = load(path)
		if script == null:
			print("FAIL %s: could not load" % path)
			failed += 1
			continue
		var suite_name := path.get_file().get_basename()
		if not only_suites.is_empty() and not only_suites.has(suite_name):
			continue
		for method in _test_methods(script):
			var full := suite_name + "." + method
			if filter != "" and not full.contains(filter):
				continue
			if Array(skip).any(func(s: String) -> bool: return full.contains(s)):
				print("SKIP %s" % full)
				continue
			var failures := await _run_test(script, suite_name, method)
			if failures.is_empty():
				passed += 1
			else:
				failed += 1
				failed_names.append(full)
	print("")
	if not failed_names.is_empty():
		print("failed: " + ", ".join(failed_names))
	print("Godot suite took %.1f s" % ((Time.get_ticks_msec() - started) / 1000.0))
	print("%d passed, %d failed" % [passed, failed])
	get_tree().quit(1 if failed > 0 else 0)


## `res://suites/test_*.gd`, sorted.
func _suite_paths() -> Array[String]:
	var out: Array[String] = []
	for f in DirAccess.get_files_at(SUITES_DIR):
		if f.begins_with("test_") and f.ends_with(".gd"):
			out.append(SUITES_DIR.path_join(f))
	out.sort()
	return out


## The script's `test_*` methods in source order.
func _test_methods(script: GDScript) -> Array[String]:
	var out: Array[String] = []
	for m in script.get_script_method_list():
		var method_name: String = m["name"]
		if method_name.begins_with("test_") and not out.has(method_name):
			out.append(method_name)
	return out


## Runs one test on a fresh suite node, prints its line, returns its failures.
func _run_test(script: GDScript, suite_name: String, method: String) -> PackedStringArray:
	var suite: StrataTestCase = script.new()
	suite.name = suite_name
	add_child(suite)
	var t0 := Time.get_ticks_msec()
	_script_errors.take()
	await suite.before_each()
	await suite.call(method)
	await suite.after_each()
	suite.clean_up()
	var ms := Time.get_ticks_msec() - t0
	var failures := suite._failures
	failures.append_array(_script_errors.take())
	var full := suite_name + "." + method
	if failures.is_empty():
		print("  ok   %s (%d ms)" % [full, ms])
	else:
		print("  FAIL %s (%d ms)" % [full, ms])
		for msg in failures:
			print("       - " + msg)
	remove_child(suite)
	suite.free()
	# Let deferred frees and worker shutdowns finish between tests.
	await get_tree().process_frame
	return failures
