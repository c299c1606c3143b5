## Rendered UI check (run under Xvfb, not headless): the main menu, the settings menu over it,
## the "customize world" screen with its live preview, the game with its HUD once the world has
## loaded, the pause menu and its "Go to…" panel (refusing a z that is not a number); each is
## saved as a PNG (`main_menu`, `settings_menu`, `customize_world`, `game_hud`, `pause_menu`,
## `go_to_panel` in `--out-dir`) and checked.
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/ui_shots.tscn -- --out-dir=/abs/dir --view-distance=3 --far-view=1
extends Node

const MAIN_MENU := preload("res://game/main_menu.tscn")
const CUSTOMIZE := preload("res://game/customize_world.tscn")
const GAME := preload("res://game/world.tscn")
## Frames drawn before a screenshot, so layouts and fonts have settled.
const SETTLE_FRAMES := 10
const LOAD_TIMEOUT_MS := 240_000

var out_dir := "user://ui_shots"
var checks := RenderedChecks.new()


func _ready() -> void:
	out_dir = RenderedChecks.out_dir_arg(out_dir)
	DirAccess.make_dir_recursive_absolute(out_dir)
	_run.call_deferred()


func _run() -> void:
	var menu: MainMenu = MAIN_MENU.instantiate()
	add_child(menu)
	var shot := await _shot("main_menu")
	var presets: ItemList = menu.find_child("Presets", true, false)
	checks.check("the main menu lists the shipped presets", presets.item_count >= 5)
	var preview: TextureRect = menu.find_child("Preview", true, false)
	checks.check("the main menu shows a preset preview", preview.texture != null)
	checks.check("the main menu is drawn (not blank)", _has_detail(shot))

	menu.open_settings()
	shot = await _shot("settings_menu")
	var settings: SettingsMenu = menu.find_child("SettingsMenu", true, false)
	var binds := 0
	for action in GameState.ACTIONS:
		if settings.find_child("Bind_" + action, true, false) != null:
			binds += 1
	checks.check("the settings menu lists every action", binds == GameState.ACTIONS.size())
	checks.check("the settings menu is drawn (not blank)", _has_detail(shot))
	settings.close()
	menu.queue_free()
	await get_tree().process_frame

	GameState.pending = {
		"preset_path": "res://addons/strata/presets/archipelago.tres",
		"seed": 2026,
		"day_length_s": 600.0,
		"continue": false,
	}
	var customize: CustomizeWorld = CUSTOMIZE.instantiate()
	add_child(customize)
	customize.set_slider("TerrainHeight", 72.0)
	var caves: TextureRect = customize.find_child("CaveSlice", true, false)
	var preview_deadline := Time.get_ticks_msec() + 30_000
	while (
		(customize.preview_updates == 0 or caves.texture == null)
		and Time.get_ticks_msec() < preview_deadline
	):
		await get_tree().process_frame
	shot = await _shot("customize_world")
	checks.check("the customize screen shows its map preview", customize.preview_updates > 0)
	checks.check("the customize screen shows its cave slice", caves.texture != null)
	checks.check(
		"the customize screen shows a world code",
		customize.get_world_code().begins_with("strata2-")
	)
	checks.check("the customize screen is drawn (not blank)", _has_detail(shot))
	customize.queue_free()
	await get_tree().process_frame

	GameState.pending = {
		"preset_path": GameState.DEFAULT_PRESET,
		"seed": -1,
		"day_length_s": 600.0,
		"continue": false,
	}
	var game: Game = GAME.instantiate()
	add_child(game)
	# Don't draw while loading: under llvmpipe every drawn frame costs hundreds of milliseconds.
	get_viewport().disable_3d = true
	var deadline := Time.get_ticks_msec() + LOAD_TIMEOUT_MS
	while not game.loaded and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	get_viewport().disable_3d = false
	checks.check("the game loaded", game.loaded)
	game.day_night.set_time_of_day(0.5)
	game.day_night.frozen = true
	shot = await _shot("game_hud")
	checks.check("the HUD shows after loading", game.hud.visible)
	var stats: Label = game.hud.find_child("Stats", true, false)
	checks.check(
		"the HUD shows the stats", stats.text.contains("FPS") and stats.text.contains("Chunks")
	)
	checks.check("the HUD shows the seed", stats.text.contains("Seed "))
	checks.check("the game is drawn (not blank)", _has_detail(shot))

	game.pause()
	shot = await _shot("pause_menu")
	checks.check("pausing shows the pause menu", game.pause_menu.visible and get_tree().paused)
	checks.check(
		"the pause menu shows the world code",
		game.pause_menu.get_world_code().begins_with("strata2-")
	)
	checks.check("the pause menu is drawn (not blank)", _has_detail(shot))
	game.pause_menu.open_go_to()
	game.pause_menu.go_to_panel.submit("1,000,000", "", "far")
	shot = await _shot("go_to_panel")
	checks.check(
		"Go to… shows its panel with the refusal of a bad z",
		(
			game.pause_menu.go_to_panel.visible
			and game.pause_menu.go_to_panel.get_message().contains("not a number")
		)
	)
	checks.check("the Go to… panel is drawn (not blank)", _has_detail(shot))
	game.resume()
	Input.mouse_mode = Input.MOUSE_MODE_VISIBLE
	checks.finish(get_tree())


func _shot(shot_name: String) -> Image:
	for i in SETTLE_FRAMES:
		await get_tree().process_frame
	await RenderingServer.frame_post_draw
	return RenderedChecks.screenshot(get_viewport(), out_dir, shot_name)


## Whether the frame has more than one colour in a coarse sample (text and widgets drawn).
static func _has_detail(img: Image) -> bool:
	if img == null:
		return false
	var first := img.get_pixel(0, 0)
	for y in range(0, img.get_height(), 16):
		for x in range(0, img.get_width(), 16):
			if not img.get_pixel(x, y).is_equal_approx(first):
				return true
	return false
