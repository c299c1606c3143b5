## The loading screen shown while the start area streams in.
class_name LoadingScreen
extends CanvasLayer

@onready var _bar: ProgressBar = %Progress
@onready var _details: Label = %Details


func show_progress(fraction: float, loaded_chunks: int, pending_chunks: int) -> void:
	_bar.value = fraction * 100.0
	_details.text = (
		"%d%%  —  %d chunks loaded, %d pending"
		% [int(fraction * 100.0), loaded_chunks, pending_chunks]
	)
