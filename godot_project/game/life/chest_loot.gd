## What a demo chest holds, for the 3D demo's `Chest` and the side view's `Chest2D`: a few blocks
## decided by where the chest stands (its world voxel or tile: the same in every run and on every
## machine, wherever the world's floating origin is), handed over once, and kept in saves as the
## chest's `strata_get_state`.
class_name ChestLoot
extends RefCounted

## Block name → count still inside.
var contents: Dictionary[String, int] = {}
var opened := false
## Whether it was filled (or restored from a save).
var filled := false


## Fills it once with one to three of `loot`'s blocks, two to six each, seeded by `place`.
func fill(place: Variant, loot: Array[String]) -> void:
	if filled:
		return
	var rng := RandomNumberGenerator.new()
	rng.seed = hash(place)
	for i in rng.randi_range(1, 3):
		var block_name := loot[rng.randi_range(0, loot.size() - 1)]
		contents[block_name] = contents.get(block_name, 0) + rng.randi_range(2, 6)
	filled = true


## Opens it and takes everything in it: block name → count (empty if already taken).
func take_all() -> Dictionary[String, int]:
	var taken := contents.duplicate()
	contents.clear()
	opened = true
	return taken


## What a save keeps.
func to_state() -> Dictionary:
	return {"contents": contents, "opened": opened}


## Takes what `to_state` returned in an earlier run.
func from_state(state: Dictionary) -> void:
	contents.clear()
	var saved: Dictionary = state.get("contents", {})
	for k: String in saved:
		contents[k] = int(saved[k])
	opened = bool(state.get("opened", false))
	filled = true
