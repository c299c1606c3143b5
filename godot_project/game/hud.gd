## Heads-up display (toggle with `toggle_hud`): FPS, position (the player's world coordinates:
## the world's floating origin plus its place, exact anywhere), biome, seed, time of day,
## weather, streaming statistics and the main thread's apply time, plus the crosshair, the hotbar
## and a short notice line (a refused edit in a shared world, a journey's end).
class_name Hud
extends CanvasLayer

## Seconds between text updates.
const REFRESH_S := 0.2
## Frames the FPS figure is averaged over.
const FPS_FRAMES := 30
const STANCE_NAMES: Array[String] = ["standing", "crouching", "prone"]
## How long a notice shows, and how long of that it takes to fade.
const NOTICE_S := 3.0
const NOTICE_FADE_S := 0.8

@export var world: StrataChunkWorld
@export var player: StrataPlayer
@export var day_night: DayNight
@export var events: WorldEvents

var _fps_samples: Array[float] = []
var _refresh_in := 0.0
var _notice_left := 0.0

@onready var _stats: Label = %Stats
@onready var _hotbar: Label = %Hotbar
@onready var _notice: Label = %Notice


## Shows `text` under the crosshair for a few seconds.
func show_notice(text: String) -> void:
	_notice.text = text
	_notice_left = NOTICE_S


func get_notice() -> String:
	return _notice.text if _notice_left > 0.0 else ""


func _process(delta: float) -> void:
	_notice_left = maxf(0.0, _notice_left - delta)
	_notice.modulate.a = clampf(_notice_left / NOTICE_FADE_S, 0.0, 1.0)
	_fps_samples.append(Engine.get_frames_per_second())
	if _fps_samples.size() > FPS_FRAMES:
		_fps_samples.pop_front()
	_refresh_in -= delta
	if _refresh_in > 0.0 or not visible:
		return
	_refresh_in = REFRESH_S
	_stats.text = stats_text()
	_hotbar.text = hotbar_text()


## The biome under the player; without biome data, the kind of place in brackets.
func biome_name() -> String:
	if events.biome != "":
		return events.biome
	var h := WorldCoords.height_at(world, player.global_position)
	return "(%s)" % WorldEvents.classify("", h, events.sea_level)


func average_fps() -> float:
	var sum := 0.0
	for f in _fps_samples:
		sum += f
	return sum / maxf(1.0, _fps_samples.size())


func stats_text() -> String:
	var st := world.get_stats()
	var lines := PackedStringArray(
		[
			"FPS %d" % int(average_fps()),
			position_text(),
			"Biome %s" % biome_name(),
			"Seed %d" % world_seed(),
			(
				"Day %d  %s  (%s)"
				% [day_night.get_day() + 1, day_night.get_clock_text(), events.describe()]
			),
			"Chunks %d loaded, %d pending" % [st["loaded_chunks"], st["pending_chunks"]],
			(
				"Far view %d levels: %d columns, %d pending"
				% [st["far_view_levels"], st["far_loaded"], st["far_pending"]]
			),
			(
				"Jobs %d queued, %d on workers, %d retiring, %d collision"
				% [st["queued"], st["in_flight"], st["retiring"], st["collision_queue"]]
			),
			(
				"Worker ms: gen %.2f  mesh %.2f  far %.2f"
				% [st["gen_ms_median"], st["mesh_ms_median"], st["far_ms_median"]]
			),
			(
				"Apply %.2f ms / frame; per chunk %d µs, far %d µs, collision %d µs"
				% [
					st["apply_ms_last_frame"],
					int(st["apply_chunk_us_median"]),
					int(st["apply_far_us_median"]),
					int(st["collision_us_median"]),
				]
			),
			"Stance %s" % STANCE_NAMES[player.stance],
		]
	)
	return "\n".join(lines)


## "Position x, y, z (block X, Y, Z)": the player's world position to one decimal and the world
## voxel its feet are in.
func position_text() -> String:
	var w := WorldCoords.world_position(world, player.global_position)
	var v := WorldCoords.voxel_at(world, player.global_position)
	return "Position %s (block %d, %d, %d)" % [WorldCoords.describe(w), v.x, v.y, v.z]


## The seed of the world shown (the default preset's when the world has none).
func world_seed() -> int:
	return int(world.preset.seed) if world.preset != null else int(StrataWorldPreset.new().seed)


## The hotbar, each block after the key of its `hotbar_<n>` action, the selected one in brackets.
func hotbar_text() -> String:
	var parts: PackedStringArray = []
	for i in StrataPlayer.HOTBAR.size():
		var pattern := "[%s %s]" if i == player.selected_block else " %s %s "
		var key := GameState.binding_text("hotbar_%d" % (i + 1))
		parts.append(pattern % [key, StrataPlayer.HOTBAR[i]])
	return " ".join(parts)
