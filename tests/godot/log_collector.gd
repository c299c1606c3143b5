## Collects what Godot logs as an error of the kinds in `kinds`, from any thread (hence the
## mutex), registered with `OS.add_logger`. The test runner keeps script errors (a GDScript
## runtime error ends a test's function early without an assertion failing, so the test fails
## with it); the docs' snippet check keeps every error and warning.
class_name StrataLogCollector
extends Logger

## The `Logger.ErrorType`s kept.
var kinds: Array[int] = [ERROR_TYPE_ERROR, ERROR_TYPE_WARNING, ERROR_TYPE_SCRIPT, ERROR_TYPE_SHADER]

var _mutex := Mutex.new()
var _lines: PackedStringArray = []


func _init(kept: Array[int] = kinds) -> void:
	kinds = kept


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
	if not kinds.has(error_type):
		return
	var what := rationale if rationale != "" else code
	var kind := "WARNING" if error_type == ERROR_TYPE_WARNING else "ERROR"
	if error_type == ERROR_TYPE_SCRIPT:
		kind = "SCRIPT ERROR"
	_mutex.lock()
	_lines.append("%s: %s (%s, %s:%d)" % [kind, what, function, file, line])
	_mutex.unlock()


func _log_message(_message: String, _error: bool) -> void:
	pass


## The lines logged since the last call, oldest first.
func take() -> PackedStringArray:
	_mutex.lock()
	var out := _lines
	_lines = []
	_mutex.unlock()
	return out
