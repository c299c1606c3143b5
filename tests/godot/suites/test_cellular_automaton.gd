## StrataCellularAutomaton2D in real headless Godot: Conway's patterns, other rules, the flood fill
## of secondary regions and the errors for bad rules and grids.
extends StrataTestCase


## A grid of bytes from rows of text, top row first: `#` alive (1), anything else dead (0).
func _grid(rows: Array[String]) -> PackedByteArray:
	var out := PackedByteArray()
	for row in rows:
		for ch in row:
			out.append(1 if ch == "#" else 0)
	return out


func _rows(cells: PackedByteArray, width: int) -> Array[String]:
	var out: Array[String] = []
	for y in cells.size() / width:
		var row := ""
		for x in width:
			row += "#" if cells[y * width + x] != 0 else "."
		out.append(row)
	return out


func test_defaults_to_conway() -> void:
	var ca := StrataCellularAutomaton2D.new()
	assert_eq(ca.rule, "B3/S23")


func test_blinker_oscillates_and_block_stays() -> void:
	var ca := StrataCellularAutomaton2D.new()
	var blinker := _grid([".....", "..#..", "..#..", "..#..", "....."])
	var one := ca.step(blinker, 5, 5, 1)
	assert_eq(_rows(one, 5), [".....", ".....", ".###.", ".....", "....."] as Array[String])
	assert_eq(ca.step(blinker, 5, 5, 2), blinker, "period 2")
	assert_eq(ca.step(blinker, 5, 5, 0), blinker, "zero ticks")
	var block := _grid(["....", ".##.", ".##.", "...."])
	assert_eq(ca.step(block, 4, 4, 9), block, "still life")
	assert_eq(ca.last_error(), "")


func test_glider_moves_one_cell_diagonally_every_four_ticks() -> void:
	var ca := StrataCellularAutomaton2D.new()
	var rows: Array[String] = [".#......", "..#.....", "###.....", "........"]
	for i in 4:
		rows.append("........")
	var glider := _grid(rows)
	var cells := glider
	for k in range(1, 5):
		cells = ca.step(cells, 8, 8, 4)
		var moved := PackedByteArray()
		moved.resize(64)
		for y in 8:
			for x in 8:
				if glider[y * 8 + x] != 0:
					moved[(y + k) * 8 + x + k] = 1
		assert_eq(cells, moved, "after %d ticks" % (4 * k))
	# Cells outside the grid are dead: the glider dies at the corner (a block remains).
	cells = ca.step(cells, 8, 8, 40)
	assert_eq(_rows(cells, 8).slice(6), ["......##", "......##"] as Array[String])


func test_other_rules_and_nonzero_bytes() -> void:
	var ca := StrataCellularAutomaton2D.new()
	ca.rule = "B1/S"
	assert_eq(ca.rule, "B1/S")
	# One seed cell: every cell with exactly one alive neighbour is born, the seed dies.
	var seed := PackedByteArray()
	seed.resize(9)
	seed[4] = 200
	assert_eq(_rows(ca.step(seed, 3, 3, 1), 3), ["###", "#.#", "###"] as Array[String])
	ca.rule = "B3/S1-5"
	assert_eq(ca.rule, "B3/S1-5")


func test_flood_fill_keeps_the_largest_open_region() -> void:
	var ca := StrataCellularAutomaton2D.new()
	# `.` open (0), `#` rock (1): regions of 4, 5 and 1 open cells.
	var cells := _grid(["#######", "#..#..#", "#..#.##", "####.##", "#.##.##", "#######"])
	var filled := ca.flood_fill_secondary(cells, 7, 6)
	var expect: Array[String] = ["#######", "####..#", "####.##", "####.##", "####.##", "#######"]
	assert_eq(_rows(filled, 7), expect)
	assert_eq(
		ca.flood_fill_secondary(filled, 7, 6), filled, "one region left: nothing more to fill"
	)


func test_bad_rules_are_refused_and_the_old_rule_kept() -> void:
	var ca := StrataCellularAutomaton2D.new()
	ca.rule = "B36/S23"
	for bad in ["B3S23", "", "B9/S23", "B3/S2,27", "X3/S23", "B5-3/S2"]:
		ca.rule = bad
		assert_eq(ca.rule, "B36/S23", "%s refused" % bad)
		var e := ca.last_error()
		assert_true(e.contains('"%s"' % bad) and e.contains("B…/S…"), e)
		assert_true(e.contains('kept "B36/S23"'), e)


func test_bad_grids_give_an_empty_array_and_say_why() -> void:
	var ca := StrataCellularAutomaton2D.new()
	var cells := PackedByteArray()
	cells.resize(12)
	var cases: Array = [
		[cells, 4, 4, 1, "12 bytes but width × height is 16"],
		[cells, 0, 12, 1, "allowed 1..=4096 each"],
		[cells, -3, -4, 1, "allowed 1..=4096 each"],
		[cells, 4, 3, -1, "ticks -1"],
		[cells, 4, 3, 5000, "allowed 0..=4096"],
		[PackedByteArray(), 1 << 40, 1, 1, "allowed 1..=4096 each"],
	]
	for c: Array in cases:
		var what := "step(%d bytes, %d, %d, %d)" % [c[0].size(), c[1], c[2], c[3]]
		assert_eq(ca.step(c[0], c[1], c[2], c[3]), PackedByteArray(), what)
		assert_true(ca.last_error().contains(c[4]), what + ": " + ca.last_error())
		assert_true(
			ca.last_error().begins_with("StrataCellularAutomaton2D.step()"), ca.last_error()
		)
	assert_eq(ca.flood_fill_secondary(cells, 5, 3), PackedByteArray())
	assert_true(ca.last_error().contains("12 bytes but width × height is 15"), ca.last_error())
	assert_eq(ca.step(cells, 4, 3, 1).size(), 12, "a good call still works")
	assert_eq(ca.last_error(), "", "and clears the error")
