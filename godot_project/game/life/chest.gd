## A chest of the demo: holds a few blocks, decided by where it stands (its world voxel: the same
## in every run and on every machine, wherever the world's floating origin is); `open` hands them
## over once. Its contents and lid are kept in saves through `strata_get_state`.
class_name Chest
extends Node3D

## Blocks a chest may hold.
const LOOT: Array[String] = ["torch", "planks", "glass", "log"]

## Block name → count still inside.
var contents: Dictionary[String, int] = {}
var opened := false
var _filled := false

@onready var lid: Node3D = $Lid


func _ready() -> void:
	if not _filled:
		var rng := RandomNumberGenerator.new()
		var world := get_parent() as StrataChunkWorld
		var at := Vector3i(position.floor()) if world == null else world.local_to_voxel(position)
		rng.seed = hash(at)
		for i in rng.randi_range(1, 3):
			var name := LOOT[rng.randi_range(0, LOOT.size() - 1)]
			contents[name] = contents.get(name, 0) + rng.randi_range(2, 6)
		_filled = true
	_show_lid()


## Opens the chest and takes everything in it: block name → count (empty if already taken).
func open() -> Dictionary[String, int]:
	var taken := contents.duplicate()
	contents.clear()
	opened = true
	_show_lid()
	return taken


func _show_lid() -> void:
	if lid != null:
		lid.rotation.x = -1.1 if opened else 0.0


## What a save keeps besides the transform.
func strata_get_state() -> Dictionary:
	return {"contents": contents, "opened": opened}


## Takes what `strata_get_state` returned in an earlier run.
func strata_set_state(state: Dictionary) -> void:
	contents.clear()
	var saved: Dictionary = state.get("contents", {})
	for k: String in saved:
		contents[k] = int(saved[k])
	opened = bool(state.get("opened", false))
	_filled = true
	_show_lid()
