## The script errors Godot reports while a test runs (a GDScript runtime error: a call on a
## freed instance, a bad index, a wrong type). Such an error ends the test's function early
## without an assertion failing, so the runner fails the test with it. Registered once with
## `OS.add_logger`; Godot may log from any thread, hence the mutex.
class_name StrataScriptErrors
extends Logger

var _mutex := Mutex.new()
var _errors: PackedStringArray = []


func _log_error(
	function: String,
	file: String,
	line: int,
	code: String,
	rationale: String,
	_editor_notify: bool,
	error_type: int,
	_script_backtraces: Array[ScriptBacktrace]
) -> void:
	if error_type != ERROR_TYPE_SCRIPT:
		return
	var what := rationale if rationale != "" else code
	_mutex.lock()
	_errors.append("script error in %s (%s:%d): %s" % [function, file, line, what])
	_mutex.unlock()


func _log_message(_message: String, _error: bool) -> void:
	pass


## The script errors since the last call, oldest first.
func take() -> PackedStringArray:
	_mutex.lock()
	var out := _errors.duplicate()
	_errors.clear()
	_mutex.unlock()
	return out
