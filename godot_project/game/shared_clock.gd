## The time of day of a shared world: the host's clock is the one everybody sees.
##
## On the host it puts its `DayNight`'s time of day, day and day length into the `StrataWorldSync`'s
## shared state once a second (and resumes its clock from that state when the shared world comes
## back from its save). On a client it sets its `DayNight` from each change the host sends and
## lets it run at the same rate in between, so the sky moves smoothly and never drifts more than
## a second's worth from the host's.
##
## May use: `StrataWorldSync`, `DayNight`.
class_name SharedClock
extends Node

## Shared state keys.
const TIME_KEY := "time_of_day"
const DAY_KEY := "day"
const DAY_LENGTH_KEY := "day_length_s"
## Seconds between two publications of the host's clock.
const PUBLISH_INTERVAL_S := 1.0

var sync: StrataWorldSync
var day_night: DayNight
var _since_publish := 0.0


## Follows `world_sync`'s shared state with `clock`.
func follow(world_sync: StrataWorldSync, clock: DayNight) -> void:
	sync = world_sync
	day_night = clock
	sync.shared_state_changed.connect(_on_shared_state_changed)


## On the host, once serving and its clock set up: a resumed shared world keeps its time, then
## the host's clock is published.
func host_started() -> void:
	apply_shared()
	publish()


## Sets the clock from the shared state as it stands (a client that just joined, or a host
## resuming).
func apply_shared() -> void:
	day_night.period_s = float(sync.get_shared_state(DAY_LENGTH_KEY, day_night.period_s))
	day_night.set_day(int(sync.get_shared_state(DAY_KEY, day_night.get_day())))
	day_night.set_time_of_day(float(sync.get_shared_state(TIME_KEY, day_night.get_time_of_day())))


## Host: the clock into the shared state now.
func publish() -> void:
	_since_publish = 0.0
	if sync == null or not sync.is_server():
		return
	for entry: Array in [
		[DAY_LENGTH_KEY, day_night.period_s],
		[DAY_KEY, day_night.get_day()],
		[TIME_KEY, day_night.get_time_of_day()],
	]:
		if sync.set_shared_state(entry[0], entry[1]) != OK:
			push_warning("SharedClock: %s" % sync.last_error())


func _process(delta: float) -> void:
	_since_publish += delta
	if _since_publish >= PUBLISH_INTERVAL_S:
		publish()


func _on_shared_state_changed(key: String, value: Variant) -> void:
	if sync.is_server() or value == null:
		return
	match key:
		TIME_KEY:
			day_night.set_time_of_day(float(value))
		DAY_KEY:
			day_night.set_day(int(value))
		DAY_LENGTH_KEY:
			day_night.period_s = float(value)
