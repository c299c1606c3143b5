## Renders the README's multiplayer picture: the demo game hosting a shared world, a second
## player (a bare `StrataWorldSync` client with a hidden world of its own) standing in view under
## its name tag, and a few chat lines with the chat line open. Run under Xvfb, from the repository
## root:
## `cargo xtask godot --xvfb -- --path tests/godot res://tools/multiplayer_shot.tscn --
## --out=ABS.png --view-distance=4 --far-view=1 --auto-time=0.35`
extends Node

const GAME := preload("res://game/world.tscn")
const WORLD_SEED := 2026
const TIMEOUT_MS := 240_000
const SETTLE_FRAMES := 20


func _ready() -> void:
	_run.call_deferred()


func _run() -> void:
	var out := "user://multiplayer.png"
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--out="):
			out = arg.substr(6)
	var port := 20000 + randi() % 20000
	GameState.pending = {
		"preset_path": GameState.DEFAULT_PRESET,
		"seed": WORLD_SEED,
		"day_length_s": 600.0,
		"continue": false,
		"world_code": "",
		"multiplayer": {"mode": "host", "port": port, "name": "ada"},
	}
	var game: Game = GAME.instantiate()
	add_child(game)
	var deadline := Time.get_ticks_msec() + TIMEOUT_MS
	while not game.loaded and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	if not game.loaded:
		_fail("the host's game did not load")
		return
	game.hud.get_node("StatsPanel").visible = false

	var guest_world := StrataChunkWorld.new()
	guest_world.visible = false
	guest_world.view_distance = 1
	guest_world.vertical_view_distance = 1
	guest_world.far_view_levels = 0
	# The host's world places the demo's structures; a joining world must name the same ones.
	DemoLife.add_structures(guest_world)
	add_child(guest_world)
	var guest := StrataWorldSync.new()
	add_child(guest)
	guest.world = guest.get_path_to(guest_world)
	guest.join("127.0.0.1", port, "bo")
	while not guest.is_joined() and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	if not guest.is_joined():
		_fail("the guest did not join: %s" % guest.last_error())
		return
	while not game.world.is_area_ready() and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	# Bo stands a few steps ahead of Ada, on the ground, where nothing hides him.
	var body := game.player
	var eye := body.camera.global_position
	var at := Vector3.INF
	for turn_deg: float in [20.0, -20.0, 35.0, -35.0, 0.0, 50.0, -50.0]:
		var ahead := body.get_facing().rotated(Vector3.UP, deg_to_rad(turn_deg))
		var spot := body.global_position + ahead * 4.5
		spot.y = (
			game.world.get_height(spot.x, spot.z) + StrataPlayer.EYES[StrataPlayer.Stance.STAND]
		)
		var ray := PhysicsRayQueryParameters3D.create(eye, spot - Vector3(0, 0.7, 0))
		ray.exclude = [body.get_rid()]
		if body.get_world_3d().direct_space_state.intersect_ray(ray).is_empty():
			at = spot
			break
	if at == Vector3.INF:
		_fail("no open spot in view for the second player")
		return
	guest.set_local_pose(at, 0.0, 0.0)
	var to := at - Vector3(0, 0.5, 0) - eye
	body.rotation.y = atan2(-to.x, -to.z) + deg_to_rad(12.0)
	body.head.rotation.x = atan2(to.y, Vector2(to.x, to.z).length())
	guest.send_chat("hi ada! nice hills")
	await get_tree().create_timer(0.3).timeout
	game.session.send_chat("welcome, bo :)")
	await get_tree().create_timer(0.3).timeout
	guest.send_chat("race you to the top")
	var bo := guest.get_local_player_id()
	while Time.get_ticks_msec() < deadline:
		var avatar := game.remote_players.get_avatar(bo)
		if avatar != null and avatar.visible and game.chat.get_lines().size() >= 3:
			break
		await get_tree().process_frame
	for i in SETTLE_FRAMES:
		await get_tree().process_frame
	# Ada is typing an answer: the open chat line shows every line (frames are slow under
	# llvmpipe, the lines would have faded by now).
	game.chat.open()
	var field: LineEdit = game.chat.get_node("%Input")
	field.text = "on my way!"
	field.caret_column = field.text.length()
	for i in 3:
		await get_tree().process_frame
	await RenderingServer.frame_post_draw
	var img := get_viewport().get_texture().get_image()
	if img == null or img.is_empty():
		_fail("no frame to save (run under Xvfb, not headless)")
		return
	img.save_png(out)
	print("screenshot: ", out, " chat: ", game.chat.get_lines())
	guest.leave()
	get_tree().quit()


func _fail(message: String) -> void:
	push_error("multiplayer_shot: " + message)
	get_tree().quit(1)
