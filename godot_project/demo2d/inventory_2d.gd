## The 2D demo's inventory: how many of each block the character has mined, and which one it
## places. Blocks are kept by name, so a saved inventory survives a block library that numbers
## its blocks differently; it travels in the world save as game state (`to_text`/`from_text`).
class_name Inventory2D
extends RefCounted

## Emitted after every change of a count or of the chosen block.
signal changed

## Block name → count (only names with a count above zero).
var counts: Dictionary[String, int] = {}
## The chosen block's name, "" for none.
var selected := ""


## Adds `n` of the block `block_name`; the first block mined is chosen.
func add(block_name: String, n := 1) -> void:
	if block_name == "" or n <= 0:
		return
	counts[block_name] = counts.get(block_name, 0) + n
	if selected == "":
		selected = block_name
	changed.emit()


## Takes one of `block_name`; false when there is none.
func take(block_name: String) -> bool:
	if counts.get(block_name, 0) <= 0:
		return false
	counts[block_name] -= 1
	if counts[block_name] == 0:
		counts.erase(block_name)
		if selected == block_name:
			selected = names()[0] if not names().is_empty() else ""
	changed.emit()
	return true


## The names held, sorted (the slots of the number keys).
func names() -> Array[String]:
	var out: Array[String] = []
	out.assign(counts.keys())
	out.sort()
	return out


## Chooses slot `i` (0-based) of `names()`; false when there is no such slot.
func select_slot(i: int) -> bool:
	var n := names()
	if i < 0 or i >= n.size():
		return false
	selected = n[i]
	changed.emit()
	return true


## Chooses the next (`step` 1) or previous (-1) held block, wrapping round.
func cycle(step: int) -> void:
	var n := names()
	if n.is_empty():
		return
	var i := n.find(selected)
	selected = n[posmod(i + step, n.size())]
	changed.emit()


## One line for the HUD: each block and count, the chosen one in brackets.
func describe() -> String:
	var parts: PackedStringArray = []
	for name in names():
		var item := "%s %d" % [name, counts[name]]
		parts.append("[%s]" % item if name == selected else item)
	return "  ".join(parts) if not parts.is_empty() else "(empty: dig to collect blocks)"


## The inventory as text for a save's game state.
func to_text() -> String:
	return JSON.stringify({"counts": counts, "selected": selected})


## Takes an inventory written by `to_text`; false (and unchanged) for text that is not one.
func from_text(text: String) -> bool:
	var parsed: Variant = JSON.parse_string(text)
	if not parsed is Dictionary or not (parsed as Dictionary).get("counts") is Dictionary:
		return false
	counts.clear()
	var saved: Dictionary = parsed["counts"]
	for k: Variant in saved:
		var n := int(saved[k])
		if n > 0:
			counts[str(k)] = n
	selected = str(parsed.get("selected", ""))
	if not counts.has(selected):
		selected = names()[0] if not names().is_empty() else ""
	changed.emit()
	return true
