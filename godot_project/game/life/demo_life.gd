## The demo's own objects and where they start: deer on the ground, chests on cave floors and in
## crypts, and cottages and ruins on the surface. A game adds its library to a preset as spawn
## and structure rules, as `add_rules` does.
class_name DemoLife
extends RefCounted

const DEER := "res://game/life/deer.tscn"
const CHEST := "res://game/life/chest.tscn"


## Adds the demo's spawn rules and structures to `preset`, each unless it has its own.
static func add_rules(preset: WorldPreset) -> void:
	if preset == null:
		return
	if preset.get_structure_rules().is_empty():
		var cottage := StructureRule.create("cottage", 160, 0.5)
		cottage.sink = 3
		var ruin := StructureRule.create("ruin", 224, 0.5)
		var crypt := StructureRule.create("crypt", 128, 0.6)
		crypt.placement = 1
		crypt.depth_min = 6
		crypt.depth_max = 20
		crypt.entity = CHEST
		preset.set_structure_rules([cottage, ruin, crypt] as Array[StructureRule])
	if not preset.get_spawn_rules().is_empty():
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
