## Abuse of the designer and script tools: world codes, StrataWorldPreview,
## StrataCellularAutomaton2D and StrataNoise called with out-of-range, empty, huge, NaN/±inf and
## wrong arguments (law: Clear
## errors). The probes count into `test_abuse.gd`'s total; the last test prints this suite's.
extends StrataTestCase

const Abuse := preload("res://suites/test_abuse.gd")

static var probes_here := 0


func _probe(what: String) -> String:
	Abuse.probes += 1
	probes_here += 1
	return what


func test_world_codes_and_previews() -> void:
	var p := StrataWorldPreset.new()
	p.seed = 5150
	var fingerprint := p.fingerprint()
	var code := p.to_world_code("", null)
	var codes: Array[String] = [
		"",
		" ",
		"strata1-",
		"strata1-" + "A".repeat(100000),
		code + "A",
		code.substr(0, 15),
		code.replace("strata2-", "strata7-"),
		char(0) + code,
		code.to_upper(),
		"x".repeat(20000)
	]
	for bad in codes:
		var what := _probe("StrataWorldPreset.parse_world_code(%d chars)" % bad.length())
		var q := StrataWorldPreset.new()
		q.seed = 5150
		if q.parse_world_code(bad, {}) != OK:
			assert_true(q.last_error().contains("world code"), what + ": " + q.last_error())
			assert_eq(q.fingerprint(), fingerprint, what + ": a refused code changes nothing")
	for bases: Dictionary in [{"": null}, {"": 5}, {"": RefCounted.new()}, {7: p}, {"": p}]:
		var what := _probe("StrataWorldPreset.parse_world_code(bases %s)" % str(bases))
		var q := StrataWorldPreset.new()
		if q.parse_world_code(code, bases) == OK:
			assert_eq(q.fingerprint(), fingerprint, what)
		else:
			assert_ne(q.last_error(), "", what + ": says why")
	for name: String in ["", "Moon", "a".repeat(65), "../x", "é", char(0)]:
		var what := _probe("StrataWorldPreset.to_world_code(%s)" % name.c_escape())
		var made := p.to_world_code(name, null)
		if made == "":
			assert_true(p.last_error().contains("base preset name"), what + ": " + p.last_error())
	for factor in Abuse._floats() + [8.0, 8.5, 0.5]:
		var what := _probe("StrataWorldPreset.with_ore_clusters_scaled(%s)" % factor)
		var q := StrataWorldPreset.new()
		var scaled := q.with_ore_clusters_scaled(factor)
		if scaled != null:
			assert_eq(scaled.validate(), "", what + ": an accepted factor keeps the preset valid")
		else:
			assert_true(q.last_error().contains("factor"), what + ": " + q.last_error())
		assert_eq(
			q.fingerprint(), StrataWorldPreset.new().fingerprint(), what + ": the preset unchanged"
		)
	var preview := StrataWorldPreview.new()
	for size: int in Abuse.INTS + [7, 8, 1024, 1025]:
		for cell: float in Abuse._floats() + [0.25, 1024.0, 1025.0]:
			var what := _probe("StrataWorldPreview.request(size %d, cell %s)" % [size, cell])
			var job := preview.request(p, Vector2i.ZERO, size, cell, 0)
			if job < 0:
				assert_true(
					preview.last_error().contains("allowed"), what + ": " + preview.last_error()
				)
			preview.cancel()
	for y: int in Abuse.INTS:
		for center: Vector2i in [
			Vector2i(Abuse.HUGE_I, 0), Vector2i(0, -Abuse.HUGE_I - 1), Vector2i.ZERO
		]:
			var what := _probe("StrataWorldPreview.request(center %s, cave_y %d)" % [center, y])
			if preview.request(p, center, 8, 1.0, y) < 0:
				assert_ne(preview.last_error(), "", what + ": says why")
			preview.poll()
	preview.request(p, Vector2i.ZERO, 8, 1.0, 0)
	preview = null  # dropped while its worker runs: the worker stops, nothing crashes
	await wait_frames(2)
	assert_eq(p.fingerprint(), fingerprint, "the preset survived")


func test_cellular_automaton_2d() -> void:
	var ca := StrataCellularAutomaton2D.new()
	var rules: Array = [
		"", "B", "/", "B3/S23/S1", "B3/S-1", "B99999999999/S2", "b3/s23 ", "B3/S2,9"
	]
	rules.append("B" + "3".repeat(100000) + "/S2")
	rules.append(char(0))
	for value: Variant in rules:
		var what := _probe("StrataCellularAutomaton2D.rule = %d chars" % str(value).length())
		var before := ca.rule
		ca.rule = value
		if ca.rule == before:
			assert_true(ca.last_error().contains("allowed"), what + ": " + ca.last_error())
		ca.rule = "B3/S23"
	var cells := PackedByteArray()
	cells.resize(6)
	for w in Abuse.INTS + [2, 3, 4096, 4097]:
		for h in Abuse.INTS + [2, 3]:
			var fits: bool = w > 0 and h > 0 and w <= 4096 and h <= 4096 and w * h == 6
			for ticks in [0, 1, -1, 4097, Abuse.HUGE_I]:
				var what := _probe(
					"StrataCellularAutomaton2D.step(6 bytes, %d, %d, %d)" % [w, h, ticks]
				)
				var out := ca.step(cells, w, h, ticks)
				var good: bool = fits and ticks >= 0 and ticks <= 4096
				assert_eq(out.size(), 6 if good else 0, what)
				if not good:
					assert_true(
						ca.last_error().contains("allowed") or ca.last_error().contains("bytes"),
						what
					)
			var what_f := _probe(
				"StrataCellularAutomaton2D.flood_fill_secondary(6 bytes, %d, %d)" % [w, h]
			)
			assert_eq(ca.flood_fill_secondary(cells, w, h).size(), 6 if fits else 0, what_f)
	assert_eq(ca.rule, "B3/S23", "grids never change the rule")


func test_strata_noise() -> void:
	var n := StrataNoise.new()
	var props := [
		"noise_type",
		"seed",
		"frequency",
		"fractal_octaves",
		"fractal_persistence",
		"fractal_lacunarity",
		"value_interpolation",
		"simplex_radius_squared"
	]
	var values: Array = [0, -1, 1 << 40, -(1 << 40), 0.55, "abc", null, Vector3(1, 2, 3)]
	values.append_array(Abuse._floats())
	for prop: String in props:
		for value: Variant in values:
			var what := _probe("StrataNoise.%s = %s" % [prop, var_to_str(value)])
			n.clear_error()
			n.set(prop, value)
			var v := n.get_noise_2d(1.5, 2.5)
			assert_true(v >= -1.5 and v <= 1.5, "%s: still a noise value %f" % [what, v])
			if n.last_error() != "":
				assert_true(n.last_error().contains("allowed"), what + ": " + n.last_error())
	n = StrataNoise.new()
	for t in 6:
		n.noise_type = t
		for x: float in Abuse._floats():
			var what := _probe("StrataNoise type %d at %f" % [t, x])
			n.clear_error()
			var v := n.get_noise_4d(x, x, x, x) + n.get_noise_1d(x) + n.get_noise_3d(x, 0, x)
			assert_true(is_finite(v), what)
			var nd := n.get_noise_nd(PackedFloat64Array([x, 1.0, x, 2.0, x]))
			assert_true(is_finite(nd), what + " nd")
		for size: int in Abuse.INTS:
			var what := _probe("StrataNoise.get_image(%d)" % size)
			n.clear_error()
			var img := n.get_image(size, 3)
			if img == null:
				assert_true(n.last_error().contains("allowed"), what + ": " + n.last_error())


## Runs last: prints how many probes this suite ran.
func test_zz_probe_count() -> void:
	print("abuse probes (tools): %d" % probes_here)
	assert_gt(probes_here, 50, "probes run")
