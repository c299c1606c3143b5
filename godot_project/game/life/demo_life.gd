## The demo's own objects and where they start: deer on the ground, chests on cave floors and in
## crypts, and cottages, ruins and watchtowers on the surface. A game adds its library to a preset
## as spawn and structure rules, as `add_rules` does, and its own structures to the world, as
## `add_structures` does.
class_name DemoLife
extends RefCounted

const DEER := "res://game/life/deer.tscn"
const CHEST := "res://game/life/chest.tscn"
## The demo's own structure: a MagicaVoxel file written by `cargo xtask structures`.
const WATCHTOWER := "res://game/structures/watchtower.vox"


## Adds the demo's spawn rules and structures to `preset`, each unless it has its own.
static func add_rules(preset: StrataWorldPreset) -> void:
	if preset == null:
		return
	if preset.get_structure_rules().is_empty():
		var cottage := StrataStructureRule.create("cottage", 160, 0.5)
		cottage.sink = 3
		var ruin := StrataStructureRule.create("ruin", 224, 0.5)
		var crypt := StrataStructureRule.create("crypt", 128, 0.6)
		crypt.placement = StrataStructureRule.PLACEMENT_UNDERGROUND
		crypt.depth_min = 6
		crypt.depth_max = 20
		crypt.entity = CHEST
		preset.set_structure_rules([cottage, ruin, crypt] as Array[StrataStructureRule])
	if not preset.get_spawn_rules().is_empty():
		return
	var deer := StrataSpawnRule.create(DEER, 0.12)
	deer.cluster_size = 4
	deer.cluster_spread = 7.0
	deer.min_spacing = 2.5
	var chest := StrataSpawnRule.create(CHEST, 0.2)
	chest.habitat = StrataSpawnRule.HABITAT_CAVE
	chest.cluster_size = 1
	chest.depth_min = 6
	chest.depth_max = 120
	preset.set_spawn_rules([deer, chest] as Array[StrataSpawnRule])


## Gives `world` the demo's own structures (the watchtower, read from its `.vox` file) unless it
## has them. A world needs them before a preset or save whose rules name them.
static func add_structures(world: StrataChunkWorld) -> void:
	if world == null:
		return
	for s in world.structures:
		if s != null and s.structure_name == "watchtower":
			return
	var tower := StrataStructure.from_vox(WATCHTOWER, "watchtower")
	if tower == null:
		return
	var all := world.structures
	all.append(tower)
	world.structures = all


## Adds a rule for the watchtowers to `preset` unless it has one; a world of it needs
## `add_structures` first.
static func add_structure_rules(preset: StrataWorldPreset) -> void:
	if preset == null:
		return
	var rules := preset.get_structure_rules()
	for r in rules:
		if r.structure == "watchtower":
			return
	var tower := StrataStructureRule.create("watchtower", 192, 0.5)
	tower.sink = 3
	rules.append(tower)
	preset.set_structure_rules(rules)
