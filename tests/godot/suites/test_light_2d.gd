## StrataChunkWorld2D's light in real headless Godot: a sealed cave is dark, a torch lights it
## as soon as its chunks come back from the workers, a dug shaft lets the sky down, the light
## drawn is the same whatever order the chunks loaded in, and `light_enabled` / `daylight`.
extends StrataTestCase

## Pixels per tile (the created TileSet's).
const PX := 16


func _make_world(seed: int, at: Vector2i, workers: int = 2) -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	return _side_view_world(preset, at, 1, workers)


## A dry column near x = 0 (no pool above its ground), as its surface tile.
func _dry_surface(w: StrataChunkWorld2D) -> Vector2i:
	for x in range(0, 400):
		var top := w.local_to_tile(
			Vector2((x + 0.5) * PX, w.get_surface_height((x + 0.5) * PX) + 1)
		)
		if w.get_tile(top + Vector2i.UP) == 0:
			return top
	return Vector2i(0, w.local_to_tile(Vector2(8, w.get_surface_height(8) + 1)).y)


## Walls a room of 9 × 5 air tiles whose top-left inner tile is `corner` with stone.
func _sealed_room(w: StrataChunkWorld2D, corner: Vector2i) -> void:
	var stone := w.get_block_id("stone")
	for y in range(corner.y - 1, corner.y + 6):
		for x in range(corner.x - 1, corner.x + 10):
			var inside := y >= corner.y and y < corner.y + 5 and x >= corner.x and x < corner.x + 9
			w.set_tile(Vector2i(x, y), 0 if inside else stone)


func test_a_sealed_cave_is_dark_and_a_torch_lights_it_the_frame_it_is_relit() -> void:
	var probe := _make_world(11, Vector2i.ZERO)
	var surface := _dry_surface(probe)
	var corner := surface + Vector2i(-2, 40)
	var w := _make_world(11, corner)
	probe.free()
	_sealed_room(w, corner)
	assert_true(await wait_until(w.is_area_ready, 60.0), "area never became ready")
	var inside := corner + Vector2i(4, 2)
	assert_eq(w.get_light(inside), 0, "a sealed cave is dark")
	assert_eq(w.get_drawn_light(inside), Vector2i(0, 0), "and drawn dark")
	assert_eq(w.get_drawn_light(corner + Vector2i(-1, 2)), Vector2i(0, 0), "its wall too")
	# A torch: its chunks are relit on the workers; the frame they come back shows the light.
	var torch := w.get_block_id("torch")
	w.set_tile(corner + Vector2i(1, 4), torch)
	assert_eq(w.get_block_light(corner + Vector2i(1, 4)), 14, "the torch glows 14 at once")
	assert_eq(w.get_block_light(inside), 14 - 3 - 2, "five tiles on: 9")
	# Frames until the streamer has every relit chunk back: the light is drawn by then.
	var frames := 0
	while not w.is_area_ready() and frames < 3000:
		await get_tree().process_frame
		frames += 1
	assert_true(w.is_area_ready(), "relit within %d frames" % frames)
	assert_eq(w.get_drawn_light(inside), Vector2i(0, 9), "drawn when relit, %d frames on" % frames)
	assert_eq(
		w.get_drawn_light(corner + Vector2i(-1, 4)), Vector2i(0, 13), "the wall beside the torch"
	)
	# Taken away, dark again.
	w.set_tile(corner + Vector2i(1, 4), 0)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	assert_eq(w.get_drawn_light(inside), Vector2i(0, 0), "dark again")


func test_a_dug_shaft_lets_the_sky_down() -> void:
	var probe := _make_world(5, Vector2i.ZERO)
	var surface := _dry_surface(probe)
	var corner := surface + Vector2i(-3, 30)
	var w := _make_world(5, corner)
	probe.free()
	_sealed_room(w, corner)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	var floor_tile := Vector2i(surface.x, corner.y + 4)
	assert_eq(w.get_sky_light(floor_tile), 0, "closed: no sky")
	assert_eq(w.get_sky_light(surface + Vector2i.UP), 15, "open sky above the ground")
	assert_eq(w.get_drawn_light(surface), Vector2i(15, 0), "the ground's top tile is drawn lit")
	for y in range(surface.y, corner.y):
		w.set_tile(Vector2i(surface.x, y), 0)
	assert_eq(w.get_sky_light(floor_tile), 15, "the sky straight down the shaft")
	assert_eq(w.get_sky_light(floor_tile + Vector2i(3, 0)), 12, "three tiles aside")
	assert_true(await wait_until(w.is_area_ready, 60.0))
	assert_eq(w.get_drawn_light(floor_tile), Vector2i(15, 0), "drawn")
	assert_eq(w.get_drawn_light(floor_tile + Vector2i(3, 0)), Vector2i(12, 0), "drawn aside")
	# Closed at the top again: dark.
	w.set_tile(surface, w.get_block_id("dirt"))
	assert_true(await wait_until(w.is_area_ready, 60.0))
	assert_eq(w.get_drawn_light(floor_tile), Vector2i(0, 0), "closed again: dark")


func test_light_is_the_same_in_any_load_order() -> void:
	var probe := _make_world(23, Vector2i.ZERO)
	var surface := _dry_surface(probe)
	probe.free()
	var torch_at := surface + Vector2i(5, 20)
	var near := surface + Vector2i(0, 10)
	# Straight to `near` with one worker; from far away through a third place with three.
	var far := near + Vector2i(5 * 64, 3 * 64)
	var orders: Array[Array] = [[near], [far, near + Vector2i(2 * 64, -64), near]]
	var drawn: Array[PackedInt32Array] = []
	for order: Array in orders:
		var w := _make_world(23, order[0], 1 if drawn.is_empty() else 3)
		w.set_tile(torch_at, w.get_block_id("torch"))
		for y in range(surface.y, surface.y + 12):
			w.set_tile(Vector2i(surface.x - 4, y), 0)
		for at: Vector2i in order:
			(w.get_node(w.viewer) as Node2D).position = w.tile_to_local(at)
			await wait_frames(1)
			assert_true(await wait_until(w.is_area_ready, 60.0))
		var values := PackedInt32Array()
		for y in range(near.y - 40, near.y + 40, 3):
			for x in range(near.x - 40, near.x + 40, 3):
				var l := w.get_drawn_light(Vector2i(x, y))
				values.append(l.x * 16 + l.y)
		drawn.append(values)
	assert_eq(drawn[0].size(), drawn[1].size())
	assert_true(drawn[0] == drawn[1], "the same light drawn in either order")
	assert_true(drawn[0].has(15 * 16), "with open sky")
	assert_true(drawn[0].has(0), "and dark ground")


func test_light_enabled_and_daylight() -> void:
	var w := _make_world(3, Vector2i.ZERO)
	var surface := _dry_surface(w)
	(w.get_node(w.viewer) as Node2D).position = w.tile_to_local(surface)
	await wait_frames(1)
	assert_true(await wait_until(w.is_area_ready, 60.0))
	assert_eq(w.get_drawn_light(surface + Vector2i.UP), Vector2i(15, 0), "drawn under the sky")
	w.light_enabled = false
	assert_eq(w.get_drawn_light(surface + Vector2i.UP), Vector2i(-1, -1), "off: nothing drawn")
	assert_true(await wait_until(w.is_area_ready, 60.0))
	assert_eq(w.get_drawn_light(surface + Vector2i.UP), Vector2i(-1, -1), "and none comes back")
	assert_eq(w.get_sky_light(surface + Vector2i.UP), 15, "the query still answers")
	w.light_enabled = true
	assert_true(await wait_until(w.is_area_ready, 60.0))
	assert_eq(w.get_drawn_light(surface + Vector2i.UP), Vector2i(15, 0), "on again: drawn")
	w.daylight = 0.25
	assert_eq(w.daylight, 0.25)
	w.daylight = 3.0
	assert_eq(w.daylight, 1.0, "clamped to 1")
	assert_eq(w.get_light(Vector2i(2147483647, 0)), 15, "beyond the bounds: open sky")
