## The loading screen shown while the start area streams in (and, in a shared world, while
## joining, which the player may cancel): progress, a status line, and what went wrong with a
## way back to the menu.
class_name LoadingScreen
extends CanvasLayer

## The player wants to go back to the main menu (after an error).
signal back_requested

@onready var _title: Label = %Title
@onready var _bar: ProgressBar = %Progress
@onready var _details: Label = %Details
@onready var _error: Label = %Error
@onready var _back: Button = %Back


func show_progress(fraction: float, loaded_chunks: int, pending_chunks: int) -> void:
	_title.text = "Generating world…"
	_bar.value = fraction * 100.0
	_details.text = (
		"%d%%  —  %d chunks loaded, %d pending"
		% [int(fraction * 100.0), loaded_chunks, pending_chunks]
	)


## A step before the world streams ("Joining 127.0.0.1:24565…"), which the player may cancel.
func show_status(title: String, details: String) -> void:
	_title.text = title
	_details.text = details
	_back.text = "Cancel"
	_back.visible = true


func show_progress_only() -> void:
	_back.visible = false


## Shows why the game cannot start, with a button back to the menu.
func show_error(title: String, message: String) -> void:
	_title.text = title
	_error.text = message
	_error.visible = true
	_bar.visible = false
	_back.text = "Back to the main menu"
	_back.visible = true
	_back.grab_focus()


func get_error() -> String:
	return _error.text if _error.visible else ""


func _on_back_pressed() -> void:
	back_requested.emit()
