## StrataChunkWorld2D with a block library: tiles drawn from the library's side textures (or
## colours), collision only on solid blocks, ids and names of the library, saves that keep blocks by
## name,
## and an invalid library refused without losing the world (laws: Nothing is lost, Clear errors).
extends StrataTestCase

const DEFAULT_DIR := "res://addons/strata/textures/blocks/"


func _block(block_name: String, solid: bool = true, color: Color = Color.WHITE) -> StrataBlockType:
	var b := StrataBlockType.new()
	b.block_name = block_name
	b.solid = solid
	b.color = color
	b.light_opacity = 15 if solid else 0
	return b


## The default library with glass moved to the end and `marble` (a colour, no texture) before it:
## torch stays 18, leaves 19, log 20, planks 21, marble 22, glass 23.
func _reordered_library() -> StrataBlockLibrary:
	var lib := StrataBlockLibrary.create_default()
	var blocks: Array[StrataBlockType] = lib.blocks.duplicate()
	var glass: StrataBlockType = blocks[19]
	blocks.remove_at(19)
	blocks.append(_block("marble", true, Color(0.9, 0.1, 0.6)))
	blocks.append(glass)
	lib.blocks = blocks
	return lib


## A streaming world around a viewer at the surface of column 0; `library` null = the default.
func _world(library: StrataBlockLibrary, seed: int = 77) -> StrataChunkWorld2D:
	var preset := StrataWorldPreset.new()
	preset.seed = seed
	var viewer := Node2D.new()
	keep(viewer)
	add_child(viewer)
	var w := StrataChunkWorld2D.new()
	w.preset = preset
	w.view_distance = 1
	w.worker_threads = 2
	w.frame_budget_ms = 8.0
	if library != null:
		w.block_library = library
	keep(w)
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	viewer.position = Vector2(8, w.get_surface_height(8.0))
	return w


## The atlas image of the layer's TileSet source `source_id`.
func _atlas_image(layer: TileMapLayer, source_id: int) -> Image:
	var source := layer.tile_set.get_source(source_id) as TileSetAtlasSource
	var image := source.texture.get_image()
	image.convert(Image.FORMAT_RGBA8)
	return image


## The pixel of texture `path` at (x, y), as the atlas stores it (RGBA8).
func _texture_pixel(path: String, x: int, y: int) -> Color:
	var image := (load(path) as Texture2D).get_image()
	image.decompress()
	image.convert(Image.FORMAT_RGBA8)
	return image.get_pixel(x, y)


## A tile `up` tiles above the surface of tile column `x`.
func _above_surface(w: StrataChunkWorld2D, x: int, up: int) -> Vector2i:
	var top := w.local_to_tile(Vector2(x * 16 + 8, w.get_surface_height(x * 16 + 8)))
	return top + Vector2i(0, -up)


func test_a_custom_library_draws_its_blocks_where_the_world_has_them() -> void:
	var w := _world(_reordered_library())
	assert_eq(w.get_block_id("marble"), 22, "marble after planks")
	assert_eq(w.get_block_id("glass"), 23, "glass moved to the end")
	assert_eq(w.get_block_name(21), "planks")
	assert_eq(w.get_block_name(23), "glass")
	assert_eq(w.get_block_id("no_such_block"), -1)
	assert_eq(w.get_block_name(24), "", "past the library")
	assert_eq(w.get_block_name(-3), "")
	var at := {}
	for i in 4:
		var block_name: String = ["marble", "glass", "planks", "stone"][i]
		var p := _above_surface(w, 3 + 3 * i, 6)
		w.set_tile(p, w.get_block_id(block_name))
		at[block_name] = p
	assert_eq(w.get_tile(at["glass"]), 23, "glass placed by its new id")
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams")
	var layer := w.get_tile_map_layer()
	for block_name: String in at:
		var p: Vector2i = at[block_name]
		assert_eq(
			layer.get_cell_atlas_coords(p).y, w.get_block_id(block_name), block_name + "'s row"
		)
		assert_eq(layer.get_cell_source_id(p), w.tile_source_id, block_name + " from the atlas")
	var image := _atlas_image(layer, w.tile_source_id)
	assert_eq(image.get_height(), 24 * 16, "one row of 16 × 16 tiles a block")
	# Textured blocks: the middle of the tile is the side texture's pixel (alpha kept for glass).
	var textures := {
		"planks": DEFAULT_DIR + "planks.png",
		"glass": DEFAULT_DIR + "glass.png",
		"stone": DEFAULT_DIR + "stone.png"
	}
	for block_name: String in textures:
		var cell: Vector2i = layer.get_cell_atlas_coords(at[block_name])
		var got := image.get_pixel(cell.x * 16 + 8, cell.y * 16 + 7)
		var want := _texture_pixel(textures[block_name], 8, 7)
		assert_true(
			got.is_equal_approx(want), "%s: %s is the texture's %s" % [block_name, got, want]
		)
	var glass_cell: Vector2i = layer.get_cell_atlas_coords(at["glass"])
	assert_lt(
		image.get_pixel(glass_cell.x * 16 + 8, glass_cell.y * 16 + 7).a, 1.0, "glass shows through"
	)
	# Marble has no texture: its colour (linear, shaded 0.94 at the middle row) in sRGB.
	var m: Vector2i = layer.get_cell_atlas_coords(at["marble"])
	var got_m := image.get_pixel(m.x * 16 + 8, m.y * 16 + 8)
	for c in [[got_m.r, 0.9], [got_m.g, 0.1], [got_m.b, 0.6]]:
		assert_near(c[0], pow(c[1] * 0.94, 1.0 / 2.2), 0.01, "marble's colour: %s" % got_m)
	assert_eq(got_m.a, 1.0, "opaque")


func test_the_default_library_draws_the_addon_textures() -> void:
	var w := _world(null)
	assert_eq(w.get_block_id("torch"), 18, "the default library")
	var p := _above_surface(w, 5, 4)
	w.set_tile(p, 1)
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams")
	var layer := w.get_tile_map_layer()
	var image := _atlas_image(layer, w.tile_source_id)
	assert_eq(image.get_height(), 23 * 16, "the 23 default blocks")
	assert_eq(layer.get_cell_atlas_coords(p), Vector2i(0, 1), "an isolated stone")
	var want := _texture_pixel(DEFAULT_DIR + "stone.png", 6, 9)
	assert_true(image.get_pixel(6, 16 + 9).is_equal_approx(want), "stone's texture")
	# The open edge of an isolated tile is darker than the texture there.
	var edge := _texture_pixel(DEFAULT_DIR + "stone.png", 6, 0)
	assert_lt(image.get_pixel(6, 16).r, edge.r, "a darker rim on the open top")
	assert_true(image.get_pixel(15 * 16 + 6, 16).is_equal_approx(edge), "no rim when surrounded")


func test_only_solid_blocks_collide() -> void:
	var lib := StrataBlockLibrary.create_default()
	var blocks: Array[StrataBlockType] = lib.blocks.duplicate()
	blocks.append(_block("ghost", false, Color(0.8, 0.8, 1.0)))
	lib.blocks = blocks
	var w := _world(lib)
	await wait_frames(1)
	var layer := w.get_tile_map_layer()
	var source := layer.tile_set.get_source(w.tile_source_id) as TileSetAtlasSource
	var expect := {"stone": 1, "glass": 1, "planks": 1, "water": 0, "torch": 0, "ghost": 0}
	for block_name: String in expect:
		var row := w.get_block_id(block_name)
		for column in [0, 7, 15]:
			var data := source.get_tile_data(Vector2i(column, row), 0)
			assert_true(data != null, "%s has tile %d" % [block_name, column])
			assert_eq(
				data.get_collision_polygons_count(0),
				expect[block_name],
				"collision polygons of %s" % block_name
			)
	# A body falls through a ghost tile and lands on stone.
	var p := _above_surface(w, 2, 12)
	w.set_tile(p, w.get_block_id("ghost"))
	w.set_tile(p + Vector2i(0, 3), 1)
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams")
	var body := CharacterBody2D.new()
	var shape := CollisionShape2D.new()
	var rect := RectangleShape2D.new()
	rect.size = Vector2(8, 8)
	shape.shape = rect
	body.add_child(shape)
	keep(body)
	w.add_child(body)
	body.position = w.tile_to_local(p + Vector2i(0, -1))
	await wait_frames(2)
	var hit := body.move_and_collide(Vector2(0, 16 * 6))
	assert_true(hit != null, "lands on something")
	assert_near(
		body.position.y,
		w.tile_to_local(p + Vector2i(0, 3)).y - 12.0,
		1.0,
		"on the stone, not the ghost"
	)


func test_saves_keep_blocks_by_name_across_reordered_libraries() -> void:
	var first := _world(null, 12)
	var at := {"planks": _above_surface(first, 2, 5), "torch": _above_surface(first, 4, 5)}
	at["stone"] = _above_surface(first, 6, 5)
	for block_name: String in at:
		first.set_tile(at[block_name], first.get_block_id(block_name))
	assert_eq(first.get_tile(at["planks"]), 22, "planks in the default library")
	var path := scratch_dir().path_join("side.strata")
	assert_eq(first.save_world(path), OK, first.last_error())
	# The same names at other ids, and a block of the developer's own.
	var own := StrataBlockLibrary.new()
	own.blocks = [
		_block("air", false),
		_block("marble"),
		_block("torch", false),
		_block("stone"),
		_block("planks")
	]
	var other := _world(own, 99)
	assert_eq(other.load_world(path), OK, other.last_error())
	for block_name: String in at:
		assert_eq(
			other.get_tile(at[block_name]),
			other.get_block_id(block_name),
			"%s is %s at its new id" % [block_name, block_name]
		)
	assert_eq(other.get_block_name(other.get_tile(at["planks"])), "planks")
	assert_true(await wait_until(other.is_area_ready, 60.0), "the loaded world streams")
	var layer := other.get_tile_map_layer()
	assert_eq(layer.get_cell_atlas_coords(at["planks"]).y, 4, "drawn as planks")
	# A library without planks refuses the save by name and keeps its own world.
	var lacking_lib := StrataBlockLibrary.new()
	lacking_lib.blocks = [_block("air", false), _block("stone"), _block("torch", false)]
	var lacking := _world(lacking_lib, 5)
	var mine := _above_surface(lacking, 1, 3)
	lacking.set_tile(mine, 2)
	assert_ne(lacking.load_world(path), OK, "refused")
	assert_true(lacking.last_error().contains("planks"), "names the block: " + lacking.last_error())
	assert_eq(lacking.get_tile(mine), 2, "its own edit is still there")
	assert_eq(lacking.preset.seed, 5, "and its preset")
	lacking.set_tile(mine, 3)
	assert_eq(lacking.get_tile(mine), 2, "id 3 is not a block of a three-block library")


func test_an_invalid_library_is_refused_and_the_world_keeps_its_blocks() -> void:
	var w := _world(null)
	var p := _above_surface(w, 4, 5)
	w.set_tile(p, 18)
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams")
	var layer := w.get_tile_map_layer()
	var tiles_before := layer.tile_set
	var bad := StrataBlockLibrary.new()
	bad.blocks = [_block("air", false), _block("stone"), _block("Red Stone")]
	w.block_library = bad
	var said := w.last_error()
	for needle in ["block_library", "block 2", "name", "Red Stone", "allowed"]:
		assert_true(said.contains(needle), "the error names %s: %s" % [needle, said])
	assert_eq(w.get_block_id("torch"), 18, "the library in use stays")
	assert_eq(w.get_tile(p), 18, "the edit stays")
	assert_eq(layer.tile_set, tiles_before, "the tiles stay")
	_viewer_of(w).position += Vector2(64 * 16 * 3, 0)
	await wait_frames(1)
	assert_true(await wait_until(w.is_area_ready, 60.0), "still streams")
	_viewer_of(w).position -= Vector2(64 * 16 * 3, 0)
	await wait_frames(1)
	assert_true(await wait_until(w.is_area_ready, 60.0), "and back")
	assert_eq(layer.get_cell_atlas_coords(p).y, 18, "the torch is drawn")
	# A valid library again: the error is over, the tiles are built anew, the edit kept.
	w.block_library = _reordered_library()
	assert_eq(w.last_error(), "", "a valid library clears the error")
	assert_ne(layer.tile_set, tiles_before, "a new TileSet")
	assert_true(await wait_until(w.is_area_ready, 60.0), "re-tiled")
	assert_eq(w.get_tile(p), 18)
	assert_eq(layer.get_cell_atlas_coords(p).y, 18, "still drawn")
	assert_eq(_atlas_image(layer, w.tile_source_id).get_height(), 24 * 16, "the new library's rows")
	# While the library is invalid, saving is refused and writes nothing.
	w.block_library = bad
	var path := scratch_dir().path_join("bad.strata")
	assert_ne(w.save_world(path), OK, "an invalid library does not save")
	assert_true(w.last_error().contains("Red Stone"), "says why: " + w.last_error())
	assert_false(FileAccess.file_exists(path), "nothing written")
	assert_eq(w.get_tile(p), 18, "the edit is still there")


func test_a_tile_set_of_the_layers_own_wins() -> void:
	var own := load("res://demo2d/tiles.tres") as TileSet
	var layer := TileMapLayer.new()
	layer.tile_set = own
	keep(layer)
	add_child(layer)
	var w := _world(null)
	w.tile_map = w.get_path_to(layer)
	w.block_library = _reordered_library()
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams into the layer")
	assert_eq(layer.tile_set, own, "the layer's own TileSet is kept")
	assert_gt(layer.get_used_cells().size(), 1000, "and filled")
	w.block_library = null
	await wait_frames(1)
	assert_eq(layer.tile_set, own, "still kept after another library")


func _viewer_of(w: StrataChunkWorld2D) -> Node2D:
	return w.get_node(w.viewer) as Node2D
