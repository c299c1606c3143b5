## The side-view classic preset in StrataChunkWorld2D, and the 47-tile blob layout: the shipped
## preset keeps its documented settings and streams caves under a whole surface; `tile_layout`
## Blob47
## fills the layer from a 47-column atlas with inner corners, and switching back re-tiles it.
extends StrataTestCase

const CLASSIC := "res://addons/strata/presets/side_view_classic.tres"
const VALUE_NOISE := "res://addons/strata/presets/side_view_value_noise.tres"
const EDGES16 := StrataChunkWorld2D.TILE_LAYOUT_EDGES16
const BLOB47 := StrataChunkWorld2D.TILE_LAYOUT_BLOB47


## A world of `preset` streaming around a viewer `below` pixels under the surface of column 0.
func _world(preset: StrataWorldPreset, layout: int, below: float) -> StrataChunkWorld2D:
	var viewer := Node2D.new()
	keep(viewer)
	add_child(viewer)
	var w := StrataChunkWorld2D.new()
	w.preset = preset
	w.view_distance = 1
	w.worker_threads = 2
	w.frame_budget_ms = 8.0
	w.tile_layout = layout
	keep(w)
	add_child(w)
	w.viewer = w.get_path_to(viewer)
	viewer.position = Vector2(8, w.get_surface_height(8.0) + below)
	return w


## The atlas columns (x of the atlas coordinates) the layer's cells use.
func _columns_used(layer: TileMapLayer) -> Dictionary:
	var used := {}
	for cell in layer.get_used_cells():
		used[layer.get_cell_atlas_coords(cell).x] = true
	return used


func test_the_shipped_presets_keep_their_documented_numbers() -> void:
	var p := load(CLASSIC) as StrataWorldPreset
	if not assert_true(p != null, "the classic preset loads"):
		return
	assert_eq(p.validate(), "", "valid")
	assert_eq(p.side_view_surface_source, StrataWorldPreset.SIDE_VIEW_SURFACE_SOURCE_CLASSIC_HASH)
	assert_eq(p.side_view_cave_mode, StrataWorldPreset.SIDE_VIEW_CAVE_MODE_CLASSIC)
	assert_eq(p.side_view_octaves, 5, "octaves 0-4")
	assert_near(p.side_view_persistence, 0.5, 1e-6, "persistence 0.5")
	assert_near(p.side_view_amplitude, 10.0, 1e-6, "scaled by 10")
	assert_eq(p.side_view_cave_depth, 10)
	assert_eq(p.side_view_cave_threshold, 5)
	assert_eq(p.side_view_cave_final_passes, 2)
	assert_eq(p.side_view_cave_final_threshold, 6)
	assert_false(p.side_view_classic_xor_frequency, "2^i frequencies unless asked")
	var v := load(VALUE_NOISE) as StrataWorldPreset
	if assert_true(v != null, "the value-noise preset loads"):
		assert_near(
			v.side_view_persistence, 0.55, 1e-6, "the 2D value-noise example: persistence 0.55"
		)
		assert_eq(
			v.side_view_surface_source,
			StrataWorldPreset.SIDE_VIEW_SURFACE_SOURCE_VALUE_NOISE_LINEAR
		)


func test_the_classic_streams_caves_under_a_whole_surface_in_blob_tiles() -> void:
	var w := _world(load(CLASSIC) as StrataWorldPreset, BLOB47, 300.0)
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams")
	assert_eq(w.last_error(), "")
	# Ground at the top of every column, caves further down.
	var air := 0
	for x in range(-32, 32):
		var px := x * 16.0 + 8.0
		var top := w.local_to_tile(Vector2(px, w.get_surface_height(px)))
		assert_ne(w.get_tile(top), 0, "column %d: the surface tile is ground" % x)
		for y in range(top.y + 30, top.y + 60):
			air += int(w.get_tile(Vector2i(x, y)) == 0)
	assert_gt(air, 300, "the classic's caves are open below the poke depth")
	# The layer is drawn from the 47-column blob atlas, columns past 15 in use.
	var layer := w.get_tile_map_layer()
	var source := layer.tile_set.get_source(w.tile_source_id) as TileSetAtlasSource
	assert_eq(source.texture.get_width(), 47 * 16, "47 columns of 16-pixel tiles")
	var used := _columns_used(layer)
	assert_gt(used.size(), 20, "many blob variants: %s" % [used.keys()])
	assert_true(used.has(46), "the surrounded tile")
	assert_true(
		used.keys().any(func(c: int) -> bool: return c >= 16), "columns only the 47 set has"
	)
	assert_true(used.keys().all(func(c: int) -> bool: return c >= 0 and c < 47), "within the atlas")


func test_switching_the_layout_retiles_and_keeps_edits() -> void:
	var w := _world(load(CLASSIC) as StrataWorldPreset, BLOB47, 200.0)
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams")
	var p := w.local_to_tile(Vector2(8.0, w.get_surface_height(8.0))) + Vector2i(0, 2)
	w.set_tile(p, 0)
	w.tile_layout = EDGES16
	await wait_frames(1)
	assert_true(await wait_until(w.is_area_ready, 60.0), "re-tiled")
	var layer := w.get_tile_map_layer()
	var source := layer.tile_set.get_source(w.tile_source_id) as TileSetAtlasSource
	assert_eq(source.texture.get_width(), 16 * 16, "16 columns again")
	assert_true(
		_columns_used(layer).keys().all(func(c: int) -> bool: return c < 16), "only edge variants"
	)
	assert_eq(w.get_tile(p), 0, "the edit is kept")
	w.tile_layout = 7
	assert_eq(w.tile_layout, EDGES16, "a bad layout is refused")
	assert_true(w.last_error().contains("allowed: 0 (Edges16"), w.last_error())
