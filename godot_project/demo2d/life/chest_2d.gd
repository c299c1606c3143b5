## A chest of the 2D demo: holds a few blocks, decided by the world tile it stands in
## (`ChestLoot`, shared with the 3D demo's `Chest`). The character opens it by
## touching it and takes everything into its inventory. Its contents and lid are kept in saves
## through `strata_get_state`.
class_name Chest2D
extends Node2D

## Emitted when the chest is opened, with what was taken.
signal opened_by(body: Node2D, taken: Dictionary)

## Blocks a chest may hold.
const LOOT: Array[String] = ["torch", "planks", "glass", "log", "gold_ore"]

## What it holds.
var loot := ChestLoot.new()
## Block name → count still inside.
var contents: Dictionary[String, int]:
	get:
		return loot.contents
var opened: bool:
	get:
		return loot.opened

@onready var _lid: Node2D = $Lid


func _ready() -> void:
	var world := get_parent() as StrataChunkWorld2D
	loot.fill(position.floor() if world == null else world.local_to_tile(position), LOOT)
	_show_lid()


## Opens the chest and takes everything in it: block name → count (empty if already taken).
func open() -> Dictionary[String, int]:
	var taken := loot.take_all()
	_show_lid()
	return taken


func _on_touched(body: Node2D) -> void:
	if opened or not "inventory" in body:
		return
	var taken := open()
	var inventory: Inventory2D = body.get("inventory")
	for block_name: String in taken:
		inventory.add(block_name, taken[block_name])
	opened_by.emit(body, taken)


func _show_lid() -> void:
	if _lid != null:
		_lid.rotation = -1.2 if opened else 0.0


## What a save keeps besides the position.
func strata_get_state() -> Dictionary:
	return loot.to_state()


## Takes what `strata_get_state` returned in an earlier run.
func strata_set_state(state: Dictionary) -> void:
	loot.from_state(state)
	_show_lid()
