## The demo's own objects and where they start: deer on grassland and in forests, chests on cave
## floors. A game adds its library to a preset as spawn rules, as `add_rules` does.
class_name DemoLife
extends RefCounted

const DEER := "res://game/life/deer.tscn"
const CHEST := "res://game/life/chest.tscn"


## Adds the demo's spawn rules to `preset` unless it has spawn rules of its own.
static func add_rules(preset: WorldPreset) -> void:
	if preset == null or not preset.get_spawn_rules().is_empty():
		return
	var deer := SpawnRule.create(DEER, 0.12)
	deer.cluster_size = 4
	deer.cluster_spread = 7.0
	deer.min_spacing = 2.5
	var chest := SpawnRule.create(CHEST, 0.2)
	chest.habitat = 1
	chest.cluster_size = 1
	chest.depth_min = 6
	chest.depth_max = 120
	preset.set_spawn_rules([deer, chest] as Array[SpawnRule])
