## Rendered frame of the side-view demo in a shared world (run under Xvfb, not headless): one
## demo scene hosts on 127.0.0.1 as "ada", a second one (in a SubViewport with a 2D world of its
## own, not drawn) joins as "bo" and stands beside her; the frame is the host's: bo's avatar with
## his name, the HUD saying she hosts, the demo's creatures about. Written to `--out-dir` as
## `side_view_shared.png` (docs/images/ keeps a copy).
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/shared_side_view_shot.tscn -- --out-dir=/abs/dir
extends Node2D

const SHOT_SIZE := Vector2i(960, 540)
const ZOOM := 2.0
const SIDE_VIEW := preload("res://demo2d/side_view.tscn")

var out_dir := "user://shared_side_view_shot"


func _ready() -> void:
	out_dir = RenderedChecks.out_dir_arg(out_dir)
	get_window().size = SHOT_SIZE
	_run.call_deferred()


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var port := 20000 + randi() % 20000
	var host: Node2D = SIDE_VIEW.instantiate()
	add_child(host)
	# A shared world of its own: not one an earlier run left.
	var world: StrataChunkWorld2D = host.get_node("World")
	var save := SharedWorldSession.save_path_for(world.preset, "shared-side")
	for f: String in [save, save + ".journal", save + ".shared"]:
		DirAccess.remove_absolute(ProjectSettings.globalize_path(f))
	var host_player: Player2D = host.get_node("Player")
	if not await _until(func() -> bool: return host.is_spawned() and host_player.is_on_floor()):
		return _fail("the host never stood in its world")
	host.set("time_of_day", 0.45)
	var host_net: SideViewMultiplayer = host.get_node("Multiplayer")
	var error := host_net.host(port, "ada")
	if error != "":
		return _fail(error)
	var view := SubViewport.new()
	view.world_2d = World2D.new()
	view.size = Vector2i(64, 64)
	add_child(view)
	var guest: Node2D = SIDE_VIEW.instantiate()
	view.add_child(guest)
	var guest_net: SideViewMultiplayer = guest.get_node("Multiplayer")
	if not await _until(func() -> bool: return guest.is_spawned()):
		return _fail("the guest never stood in its world")
	error = guest_net.join("127.0.0.1", port, "bo")
	if error != "":
		return _fail(error)
	var guest_player: Player2D = guest.get_node("Player")
	var standing := func() -> bool:
		return guest_net.session.is_joined() and guest.is_spawned() and guest_player.is_on_floor()
	if not await _until(standing):
		return _fail("bo never joined: %s" % guest_net.status)
	# Placed at the spawn, where ada stands: he steps aside.
	guest_player.position.x += 40.0
	var bo := guest_net.session.sync.get_local_player_id()
	var avatars: RemotePlayers2D = host.get_node("RemotePlayers")
	var drawn := func() -> bool:
		var avatar := avatars.get_avatar(bo)
		return avatar != null and avatar.visible
	if not await _until(drawn):
		return _fail("bo's avatar never showed")
	var camera := host_player.get_node("Camera") as Camera2D
	camera.zoom = Vector2(ZOOM, ZOOM)
	camera.position = Vector2(20.0, -30.0)
	for i in 90:
		await get_tree().process_frame
	camera.reset_smoothing()
	for i in 3:
		await RenderingServer.frame_post_draw
	var path := out_dir.path_join("side_view_shared.png")
	var err := get_viewport().get_texture().get_image().save_png(path)
	print("SHARED %s (%s)" % [path, error_string(err)])
	guest_net.session.leave()
	get_tree().quit(0 if err == OK else 1)


## Waits up to 3,000 frames for `done`.
func _until(done: Callable) -> bool:
	for i in 3000:
		if bool(done.call()):
			return true
		await get_tree().process_frame
	return false


func _fail(message: String) -> void:
	push_error("shared_side_view_shot: %s" % message)
	get_tree().quit(1)
