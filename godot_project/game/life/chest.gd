## A chest of the demo: holds a few blocks, decided by where it stands (its world voxel;
## `ChestLoot`); `open` hands them over once. Its contents and lid are kept in saves through
## `strata_get_state`.
class_name Chest
extends Node3D

## Blocks a chest may hold.
const LOOT: Array[String] = ["torch", "planks", "glass", "log"]

## What it holds.
var loot := ChestLoot.new()
## Block name → count still inside.
var contents: Dictionary[String, int]:
	get:
		return loot.contents
var opened: bool:
	get:
		return loot.opened

@onready var lid: Node3D = $Lid


func _ready() -> void:
	var world := get_parent() as StrataChunkWorld
	loot.fill(Vector3i(position.floor()) if world == null else world.local_to_voxel(position), LOOT)
	_show_lid()


## Opens the chest and takes everything in it: block name → count (empty if already taken).
func open() -> Dictionary[String, int]:
	var taken := loot.take_all()
	_show_lid()
	return taken


func _show_lid() -> void:
	if lid != null:
		lid.rotation.x = -1.1 if opened else 0.0


## What a save keeps besides the transform.
func strata_get_state() -> Dictionary:
	return loot.to_state()


## Takes what `strata_get_state` returned in an earlier run.
func strata_set_state(state: Dictionary) -> void:
	loot.from_state(state)
	_show_lid()
