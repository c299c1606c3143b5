## The side-view demo in a shared world, in one process: two side views (each in a SubViewport
## with a 2D world of its own: physics and navigation apart) over ENet on 127.0.0.1. One hosts
## from its multiplayer node, the other joins and gets the host's world; each draws the other
## with its name where the other stands; digging on the guest and a torch placed by the host reach
## both worlds through the server; a guest may not save the host's world; a join with nobody
## listening says why in the menu and leaves the side view playing alone.
extends StrataTestCase

const SIDE_VIEW := preload("res://demo2d/side_view.tscn")
const HOST := "127.0.0.1"

var _port := 0
var _views: Array[SubViewport] = []
var _saved_player_name: Variant


func before_each() -> void:
	# A port of this run's own, so parallel runs on one machine do not meet.
	_port = 20000 + randi() % 20000
	_saved_player_name = GameState.profiles.get_setting(GameState.PLAYER_NAME_SETTING)


func after_each() -> void:
	# Guests first: each leaves before its host goes.
	_views.reverse()
	for view in _views:
		if is_instance_valid(view):
			var remote: SideViewMultiplayer = view.get_child(0).get_node("Multiplayer")
			if remote.session != null:
				remote.session.leave()
			view.free()
	_views.clear()
	GameState.profiles.set_setting(
		GameState.PLAYER_NAME_SETTING, "" if _saved_player_name == null else str(_saved_player_name)
	)


## A side view in a SubViewport of its own 2D world; with `preset`, streaming that world.
func _side_view(preset: StrataWorldPreset = null) -> Node2D:
	var view := SubViewport.new()
	view.world_2d = World2D.new()
	view.size = Vector2i(320, 180)
	add_child(view)
	_views.append(view)
	var scene: Node2D = SIDE_VIEW.instantiate()
	var world: StrataChunkWorld2D = scene.get_node("World")
	if preset != null:
		world.preset = preset
	# Two worlds on a small machine: a small view.
	world.view_distance = 1
	view.add_child(scene)
	return scene


func _remove_shared_save(preset: StrataWorldPreset) -> void:
	var path := SharedWorldSession.save_path_for(preset, "shared-side")
	for f in [path, path + ".journal", path + ".shared"]:
		if FileAccess.file_exists(f):
			DirAccess.remove_absolute(ProjectSettings.globalize_path(f))


func _standing(scene: Node2D) -> bool:
	var player: Player2D = scene.get_node("Player")
	return scene.is_spawned() and player.is_on_floor()


## A solid tile within reach below `player` (or an air tile beside it with `air`).
func _tile_near(world: StrataChunkWorld2D, player: Player2D, air: bool) -> Vector2i:
	var me := world.local_to_tile(world.to_local(player.global_position))
	for dy in range(-2, 5) if air else range(2, 5):
		for dx in [2, -2, 3, -3]:
			var t := me + Vector2i(dx, dy)
			var id := world.get_tile(t)
			var below := world.get_tile(t + Vector2i.DOWN)
			if air and id == 0 and below != 0 and below != 5:
				return t
			if not air and id != 0 and id != 5:
				return t
	return Vector2i(1 << 30, 0)


func test_two_side_views_host_and_join_and_see_each_others_edits_and_avatars() -> void:
	var host := _side_view()
	var host_world: StrataChunkWorld2D = host.get_node("World")
	var host_player: Player2D = host.get_node("Player")
	var host_net: SideViewMultiplayer = host.get_node("Multiplayer")
	assert_true(await wait_until(_standing.bind(host), 90.0), "the host stands in its world")
	_remove_shared_save(host_world.preset)
	assert_eq(host_net.host(_port, "hostess"), "", "hosts")
	assert_true(host_net.status.contains("%d" % _port), host_net.status)
	# The guest starts in a world of its own; joining brings the host's.
	var other := StrataWorldPreset.new()
	other.seed = 99
	var guest := _side_view(other)
	var guest_world: StrataChunkWorld2D = guest.get_node("World")
	var guest_player: Player2D = guest.get_node("Player")
	var guest_net: SideViewMultiplayer = guest.get_node("Multiplayer")
	assert_true(
		await wait_until(func() -> bool: return guest.is_spawned(), 90.0),
		"the guest stands in its own world"
	)
	assert_ne(guest_world.preset.fingerprint(), host_world.preset.fingerprint())
	assert_eq(guest_net.join(HOST, _port, "guest"), "", "joining")
	assert_true(
		await wait_until(guest_net.session.is_joined, 30.0), "joined: %s" % guest_net.status
	)
	assert_eq(guest_world.preset.fingerprint(), host_world.preset.fingerprint(), "the host's world")
	assert_true(
		await wait_until(_standing.bind(guest), 90.0), "the guest stands in the host's world"
	)
	# Each draws the other, named, where the other's body is (both worlds' origins at the start).
	assert_eq(guest_world.get_origin(), host_world.get_origin(), "the same origin")
	var guest_id := guest_net.session.sync.get_local_player_id()
	var host_id := host_net.session.sync.get_local_player_id()
	var host_avatars: RemotePlayers2D = host.get_node("RemotePlayers")
	var guest_avatars: RemotePlayers2D = guest.get_node("RemotePlayers")
	var drawn := func(avatars: RemotePlayers2D, id: int, body: Player2D) -> bool:
		var avatar := avatars.get_avatar(id)
		return (
			avatar != null
			and avatar.visible
			and avatar.global_position.distance_to(body.body_rect().position) < 1.0
		)
	assert_true(
		await wait_until(drawn.bind(host_avatars, guest_id, guest_player), 20.0),
		"the host draws the guest where it stands: %s" % guest_player.body_rect().position
	)
	assert_eq(host_avatars.get_avatar(guest_id).name_tag.text, "guest")
	assert_true(
		await wait_until(drawn.bind(guest_avatars, host_id, host_player), 20.0),
		"the guest draws the host where it stands: %s" % host_player.body_rect().position
	)
	assert_eq(guest_avatars.get_avatar(host_id).name_tag.text, "hostess")
	# The guest digs: through the server into both worlds.
	var dug := _tile_near(guest_world, guest_player, false)
	assert_true(guest_player.dig_tile(dug), "the guest digs %s" % dug)
	assert_true(
		await wait_until(
			func() -> bool: return host_world.get_tile(dug) == 0 and guest_world.get_tile(dug) == 0,
			20.0
		),
		"dug in both worlds"
	)
	# The host places a torch: the guest's world has it too.
	var torch := host_world.get_block_id("torch")
	var lit := _tile_near(host_world, host_player, true)
	assert_true(host_player.place_torch(lit), "the host places a torch at %s" % lit)
	assert_true(
		await wait_until(func() -> bool: return guest_world.get_tile(lit) == torch, 20.0),
		"the torch in the guest's world"
	)
	assert_eq(host_world.get_tile(lit), torch, "and in the host's")
	# The host keeps the shared world: the guest may not save it.
	assert_eq(guest.save_game(scratch_dir().path_join("guest.strata")), ERR_UNAVAILABLE)
	_remove_shared_save(host_world.preset)


func test_a_join_with_nobody_listening_says_why_in_the_menu() -> void:
	var lonely := _side_view()
	var net: SideViewMultiplayer = lonely.get_node("Multiplayer")
	var player: Player2D = lonely.get_node("Player")
	assert_true(
		await wait_until(func() -> bool: return lonely.is_spawned(), 90.0),
		"the side view stands in its world"
	)
	var menu := net.open_menu()
	(menu.get_node("%PlayerName") as LineEdit).text = "lonely"
	(menu.get_node("%Address") as LineEdit).text = HOST
	(menu.get_node("%JoinPort") as SpinBox).value = _port
	menu.join()
	assert_true(net.is_shared(), "joining")
	assert_false(player.is_physics_processing(), "the character waits while joining")
	assert_true(await wait_until(func() -> bool: return not net.is_shared(), 60.0), "the join ends")
	assert_true(
		menu.get_status().contains("could not reach the server"), "says why: %s" % menu.get_status()
	)
	assert_true(
		menu.get_status().contains("%s:%d" % [HOST, _port]),
		"names the address: %s" % menu.get_status()
	)
	assert_true(player.is_physics_processing(), "the character plays on alone")
	assert_true(player.edit_tile.is_null(), "its edits go straight into its world again")
