## Side-view multiplayer worker for `cargo xtask test`'s multi-process check of shared side views
## (rust/xtask/src/net_test_2d.rs):
## `godot --headless --path tests/godot -s res://tools/net_client_2d.gd --
##     --port=N --commands=PATH`.
##
## Runs the commands the harness appends to PATH, one a line, in order, and answers each with a
## line `net_client TAG JSON` on stderr (unbuffered): `net_client.gd`'s loop (this script extends
## it), with commands for a StrataChunkWorld2D:
##   join NAME                 join 127.0.0.1:N as NAME             -> joined / join_failed
##   stand X                   stand on the ground of column X      -> stood {row}
##   tiles COUNT SEED          COUNT single tiles of blocks 1 to 3 in the air within reach (above
##                             the ground: each changes its tile), one a frame, until each is
##                             answered                             -> tiles {acked, rejected}
##   rect DX0 DY0 DX1 DY1 BLOCK  a rectangle of tiles, corners relative to the tile stood on
##                                                                  -> rect {acked, rejected}
##   wait_order N              until edit N - 1 arrived             -> order {next_order}
##   hash X0 Y0 X1 Y1          hashes of a box of chunks, once each is synced and the water
##                             settled                              -> hash {synced, hashes}
##   leave                     leave the server                      -> left
##   quit
## Acknowledged edits are `[order, x, y, block]`, a rectangle's one per tile (its tiles are
## numbered row by row from its first order).
extends "res://tools/net_client.gd"

## Pixels a tile (the generated TileSet's), and the body's height in tiles.
const PX := 16.0
const BODY_TILES := 1.6

var _world_2d: StrataChunkWorld2D
var _viewer_2d: Node2D
## The tile stood on.
var _stand_tile := Vector2i.ZERO
## The requests of the command running that have no answer yet (request number -> true).
var _pending := {}
## What the world streamed, in order ("+x,y" loaded, "-x,y" unloaded, "joined" when the
## server's welcome came): a failed `hash` shows it.
var _streamed: Array[String] = []


func _run(w: PackedStringArray) -> void:
	match w[0]:
		"join":
			await _join_2d(w[1])
		"stand":
			_stand_on(int(w[1]))
		"tiles":
			await _tiles(int(w[1]), int(w[2]))
		"rect":
			await _rect(Vector2i(int(w[1]), int(w[2])), Vector2i(int(w[3]), int(w[4])), int(w[5]))
		"wait_order":
			await _wait(
				func() -> bool: return int(_sync.get_stats().get("next_order", 0)) >= int(w[1]),
				30.0
			)
			_say("order", {"next_order": int(_sync.get_stats().get("next_order", 0))})
		"hash":
			await _hash_2d(Vector2i(int(w[1]), int(w[2])), Vector2i(int(w[3]), int(w[4])))
		"leave":
			_sync.leave()
			_say("left", {})
		"quit":
			if _sync != null:
				_sync.leave()
			quit(0)
		_:
			_say("error", {"message": "unknown command %s" % w[0]})


func _join_2d(player_name: String) -> void:
	if _world_2d == null:
		_viewer_2d = Node2D.new()
		root.add_child(_viewer_2d)
		_world_2d = StrataChunkWorld2D.new()
		_world_2d.view_distance = 1
		_world_2d.frame_budget_ms = 8.0
		root.add_child(_world_2d)
		_world_2d.viewer = _world_2d.get_path_to(_viewer_2d)
		_world_2d.chunk_loaded.connect(
			func(c: Vector2i) -> void: _streamed.append("+%d,%d" % [c.x, c.y])
		)
		_world_2d.chunk_unloaded.connect(
			func(c: Vector2i) -> void: _streamed.append("-%d,%d" % [c.x, c.y])
		)
	if _sync == null:
		_sync = StrataWorldSync.new()
		root.add_child(_sync)
		_sync.world = _sync.get_path_to(_world_2d)
	if _sync.join(HOST, _port, player_name) != OK:
		_say("join_failed", {"message": _sync.last_error()})
		return
	if await _wait(func() -> bool: return _sync.is_joined() or _sync.last_error() != "", 20.0):
		if _sync.is_joined():
			_streamed.append("joined")
			_say("joined", {"player": _sync.get_local_player_id()})
			return
	_say("join_failed", {"message": _sync.last_error()})


func _stand_on(x: int) -> void:
	var local_x := _world_2d.tile_to_local(Vector2i(x, 0)).x
	var row := (
		_world_2d.local_to_tile(Vector2(local_x, _world_2d.get_surface_height(local_x) + 1.0)).y
	)
	_stand_tile = Vector2i(x, row)
	_viewer_2d.position = _world_2d.tile_to_local(_stand_tile)
	var head := _world_2d.tile_to_local(_stand_tile) - Vector2(0.0, PX * (0.5 + BODY_TILES))
	_sync.set_local_pose_2d(head, BODY_TILES * PX)
	_say("stood", {"row": row})


## Runs `send` (it makes requests with `_request` and returns how many it could not send) and
## collects their answers.
func _answers(send: Callable) -> Dictionary:
	var pending := _pending
	pending.clear()
	var acked: Array = []
	var rejected: Array = []
	var me := _sync.get_local_player_id()
	var on_tile := func(order: int, player: int, request: int, p: Vector3i, block: int) -> void:
		if player == me and pending.erase(request):
			acked.append([order, p.x, p.y, block])
	var on_shape := func(order: int, player: int, request: int, count: int) -> void:
		if player == me and pending.erase(request):
			acked.append([order, count])
	var on_rejected := func(request: int, reason: String) -> void:
		if pending.erase(request):
			rejected.append(reason)
	_sync.edit_applied.connect(on_tile)
	_sync.shape_applied.connect(on_shape)
	_sync.edit_rejected.connect(on_rejected)
	var not_sent: int = await send.call()
	await _wait(func() -> bool: return pending.is_empty(), 20.0)
	_sync.edit_applied.disconnect(on_tile)
	_sync.shape_applied.disconnect(on_shape)
	_sync.edit_rejected.disconnect(on_rejected)
	return {
		"acked": acked, "rejected": rejected, "unanswered": pending.size(), "not_sent": not_sent
	}


## Waits for the answer to request `r` (the number a request method returned): 0, or 1 when it
## was not sent.
func _request(r: int) -> int:
	if r < 0:
		return 1
	_pending[r] = true
	return 0


func _tiles(count: int, seed: int) -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = seed
	var send := func() -> int:
		var not_sent := 0
		for i in count:
			var at := _stand_tile + Vector2i(rng.randi_range(-3, 3), rng.randi_range(-4, -1))
			not_sent += _request(_sync.request_tile(at, rng.randi_range(1, 3)))
			await process_frame
		return not_sent
	_say("tiles", await _answers(send))


func _rect(from: Vector2i, to: Vector2i, block: int) -> void:
	var a := _stand_tile + from
	var b := _stand_tile + to
	var result := await _answers(
		func() -> int: return _request(_sync.request_tiles_rect(a, b, block))
	)
	# A rectangle's tiles, one per order, row by row.
	var tiles: Array = []
	for entry: Array in result["acked"]:
		var order: int = entry[0]
		for y in range(mini(a.y, b.y), maxi(a.y, b.y) + 1):
			for x in range(mini(a.x, b.x), maxi(a.x, b.x) + 1):
				tiles.append([order, x, y, block])
				order += 1
	result["acked"] = tiles
	_say("rect", result)


func _hash_2d(from: Vector2i, to: Vector2i) -> void:
	var chunks: Array[Vector2i] = []
	for x in range(from.x, to.x + 1):
		for y in range(from.y, to.y + 1):
			chunks.append(Vector2i(x, y))
	var synced := func() -> bool:
		for c in chunks:
			if not _sync.is_chunk_synced_2d(c):
				return false
		return _world_2d.is_water_settled()
	var all_synced := await _wait(synced, 30.0)
	# Water an edit moved settles over frames on each peer: wait for a frame or two more.
	for i in 3:
		await process_frame
	var hashes := {}
	var not_synced: Array = []
	for c in chunks:
		hashes["%d,%d" % [c.x, c.y]] = str(_world_2d.debug_chunk_hash(c))
		if not _sync.is_chunk_synced_2d(c):
			not_synced.append("%d,%d" % [c.x, c.y])
	_say(
		"hash",
		{
			"synced": all_synced,
			"hashes": hashes,
			"not_synced": not_synced,
			"water_settled": _world_2d.is_water_settled(),
			"streamed": _streamed if not all_synced else [],
			"stats": _world_2d.get_stats() if not all_synced else {},
		}
	)
