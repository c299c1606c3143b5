## A chest of the 2D demo: holds a few blocks, decided by the world tile it stands in (the same
## in every run and on every machine, wherever the floating origin is). The character opens it by
## touching it and takes everything into its inventory. Its contents and lid are kept in saves
## through `strata_get_state`.
class_name Chest2D
extends Node2D

## Emitted when the chest is opened, with what was taken.
signal opened_by(body: Node2D, taken: Dictionary)

## Blocks a chest may hold.
const LOOT: Array[String] = ["torch", "planks", "glass", "log", "gold_ore"]

## Block name → count still inside.
var contents: Dictionary[String, int] = {}
var opened := false
var _filled := false

@onready var _lid: Node2D = $Lid


func _ready() -> void:
	if not _filled:
		var rng := RandomNumberGenerator.new()
		var world := get_parent() as StrataChunkWorld2D
		var at: Variant = position.floor() if world == null else world.local_to_tile(position)
		rng.seed = hash(at)
		for i in rng.randi_range(1, 3):
			var block_name := LOOT[rng.randi_range(0, LOOT.size() - 1)]
			contents[block_name] = contents.get(block_name, 0) + rng.randi_range(2, 6)
		_filled = true
	_show_lid()


## Opens the chest and takes everything in it: block name → count (empty if already taken).
func open() -> Dictionary[String, int]:
	var taken := contents.duplicate()
	contents.clear()
	opened = true
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
