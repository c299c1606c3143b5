## World codes: a code pasted into a fresh preset gives the same world (same fingerprint, same
## voxels), bad codes are refused with a message naming the problem and change nothing, and the
## "customize world" screen and the pause menu show and take codes.
extends StrataTestCase

const ARCHIPELAGO := "res://addons/strata/presets/archipelago.tres"
const CUSTOMIZE := preload("res://game/customize_world.tscn")
const PAUSE_MENU := preload("res://game/pause_menu.tscn")

var _saved_pending: Dictionary


func before_each() -> void:
	_saved_pending = GameState.pending.duplicate()


func after_each() -> void:
	GameState.pending = _saved_pending


func _customised() -> StrataWorldPreset:
	var p := GameState.make_preset(ARCHIPELAGO, 4242)
	p.height_amplitude = 61.0
	p.water_sea_level = 9
	return p.with_ore_clusters_scaled(2.0)


func test_pasting_a_code_gives_a_world_with_the_same_fingerprint() -> void:
	var p := _customised()
	var code := GameState.world_code_of(p, ARCHIPELAGO)
	assert_true(code.begins_with("strata2-"), code)
	# Seed, two fields and the whole ore list (lists travel whole): a few hundred characters.
	assert_lt(code.length(), 400, "a short code: " + code)
	var q := StrataWorldPreset.new()
	assert_eq(q.parse_world_code(code, GameState.base_presets()), OK, q.last_error())
	assert_eq(q.fingerprint(), p.fingerprint(), "same fingerprint")
	assert_eq(int(q.seed), 4242)
	assert_eq(float(q.height_amplitude), 61.0)
	# The same world, voxel for voxel, in two ChunkWorlds.
	var a := StrataChunkWorld.new()
	a.preset = p
	var b := StrataChunkWorld.new()
	b.preset = q
	keep(a)
	keep(b)
	for xz: Vector2i in [Vector2i(0, 0), Vector2i(37, -91), Vector2i(-500, 260)]:
		var h := a.get_height(xz.x, xz.y)
		assert_eq(b.get_height(xz.x, xz.y), h, "height at %s" % xz)
		for dy in [-20, -3, 0, 2]:
			var v := Vector3i(xz.x, int(h) + dy, xz.y)
			assert_eq(b.get_voxel(v), a.get_voxel(v), "voxel %s" % v)
	# A reseeded shipped preset is a few dozen characters.
	var reseeded := GameState.make_preset(ARCHIPELAGO, 99)
	assert_lt(GameState.world_code_of(reseeded, ARCHIPELAGO).length(), 48, "reseeded preset")


func test_bad_codes_are_refused_with_the_problem_named() -> void:
	var code := GameState.world_code_of(_customised(), ARCHIPELAGO)
	var typo := code.substr(0, 20) + ("B" if code[20] == "A" else "A") + code.substr(21)
	var cases := {
		"": "empty",
		"hello world": "strata2-",
		"strata9-AAAAAAAAAAAAAAAA": "version 9",
		typo: "checksum",
		code.substr(0, 32): "checksum",
		code.substr(0, 12) + "!" + code.substr(13): "character `!` at position 13",
	}
	var q := StrataWorldPreset.new()
	q.seed = 5
	var before := q.fingerprint()
	for bad: String in cases:
		q.clear_error()
		assert_eq(q.parse_world_code(bad, GameState.base_presets()), ERR_INVALID_DATA, bad)
		var e := q.last_error()
		assert_true(e.contains(cases[bad]), "%s: %s" % [bad, e])
		assert_eq(q.fingerprint(), before, bad + ": a refused code changes nothing")


func test_a_base_preset_that_is_not_here_is_named() -> void:
	var p := _customised()
	var code := p.to_world_code("moon_base", GameState.make_preset(ARCHIPELAGO, -1))
	var q := StrataWorldPreset.new()
	assert_eq(q.parse_world_code(code, GameState.base_presets()), ERR_INVALID_DATA)
	assert_true(q.last_error().contains("moon_base"), q.last_error())
	assert_true(
		q.last_error().contains("`archipelago`"), "lists the known bases: " + q.last_error()
	)
	# With that base given, it reads.
	var bases := {"moon_base": GameState.make_preset(ARCHIPELAGO, -1)}
	assert_eq(q.parse_world_code(code, bases), OK, q.last_error())
	assert_eq(q.fingerprint(), p.fingerprint())
	assert_eq(p.to_world_code("Moon Base", null), "")
	assert_true(p.last_error().contains("base preset name"), p.last_error())


func test_customize_screen_shows_a_live_preview_and_a_code_that_reads_back() -> void:
	GameState.pending = {"preset_path": ARCHIPELAGO, "seed": 77, "day_length_s": 600.0}
	var screen: CustomizeWorld = CUSTOMIZE.instantiate()
	keep(screen)
	add_child(screen)
	assert_true(
		await wait_until(func() -> bool: return screen.preview_updates > 0, 20.0), "preview"
	)
	var first := screen.get_world_code()
	assert_true(first.begins_with("strata2-"), first)
	assert_eq(int(screen.preset.seed), 77)
	var shown := screen.preview_updates
	screen.set_slider("TerrainHeight", 100.0)
	screen.set_slider("Ores", 0.0)
	screen.set_slider("WaterLevel", 20.0)
	assert_true(
		await wait_until(func() -> bool: return screen.preview_updates > shown, 20.0), "redrawn"
	)
	var code := screen.get_world_code()
	assert_ne(code, first, "the code follows the sliders")
	assert_eq(float(screen.preset.height_amplitude), 100.0)
	assert_eq(bool(screen.preset.ores_enabled), false)
	assert_eq(int(screen.preset.water_sea_level), 20)
	var q := StrataWorldPreset.new()
	assert_eq(q.parse_world_code(code, GameState.base_presets()), OK, q.last_error())
	assert_eq(q.fingerprint(), screen.preset.fingerprint(), "the code is the screen's world")
	# A friend's code: the sliders start from its world; a bad one says why.
	assert_false(screen.use_code("strata1-nonsense"))
	var status := screen.find_child("Status", true, false) as Label
	assert_true(status.text.contains("world code"), status.text)
	var friend := GameState.world_code_of(_customised(), ARCHIPELAGO)
	assert_true(screen.use_code(friend))
	await wait_frames(2)
	assert_eq(screen.preset.fingerprint(), _customised().fingerprint(), "the friend's world")
	var slider := screen.find_child("TerrainHeight", true, false) as HSlider
	assert_eq(slider.value, 61.0, "the slider shows the friend's value")


func test_pause_menu_shows_the_seed_and_the_code() -> void:
	var menu: PauseMenu = PAUSE_MENU.instantiate()
	keep(menu)
	add_child(menu)
	await wait_frames(1)
	menu.set_world(4242, "strata1-abc")
	assert_eq(menu.get_world_code(), "strata1-abc")
	assert_eq((menu.find_child("Seed", true, false) as Label).text, "Seed 4242")
