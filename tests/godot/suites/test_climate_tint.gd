## Grass and foliage tinted by climate: block tints per face kind in the library (and the error
## for a value that names no colour map), the layer tints the shaders read, the climate map the
## workers fill (its texels are the core's corner climates, read back from the texture), the
## uniforms that reach the chunks' materials, and the tint at two places of different climate.
extends StrataTestCase


func _block(block_name: String, solid: bool = true) -> StrataBlockType:
	var b := StrataBlockType.new()
	b.block_name = block_name
	b.solid = solid
	b.light_opacity = 15 if solid else 0
	return b


## A world with the default library streaming around a viewer standing on the ground at
## `at`'s column (world voxels).
func _streaming_world(at: Vector3) -> StrataChunkWorld:
	var w := StrataChunkWorld.new()
	var preset := StrataWorldPreset.new()
	preset.seed = 4242
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.worker_threads = 1
	keep(w)
	add_child(w)
	var v := Node3D.new()
	keep(v)
	add_child(v)
	v.position = Vector3(at.x, w.get_height(at.x, at.z) + 2.0, at.z)
	w.viewer = w.get_path_to(v)
	var ready := await wait_until(w.is_area_ready, 60.0)
	assert_true(ready, "streams")
	return w if ready else null


func _climate_built(w: StrataChunkWorld) -> bool:
	var stats := w.get_stats()
	return int(stats["climate_tiles_ready"]) > 0 and int(stats["climate_tiles_pending"]) == 0


func _opaque_material(w: StrataChunkWorld) -> ShaderMaterial:
	for child in w.get_children(true):
		var mi := child as MeshInstance3D
		if mi != null and String(mi.name).begins_with("chunk_") and mi.mesh != null:
			var mesh := mi.mesh as ArrayMesh
			var opaque := mesh.surface_find_by_name("opaque")
			if opaque >= 0:
				return mesh.surface_get_material(opaque) as ShaderMaterial
	return null


func test_the_default_library_tints_grass_tops_and_leaves() -> void:
	var lib := StrataBlockLibrary.create_default()
	var grass: StrataBlockType = lib.blocks[lib.get_block_id("grass")]
	assert_eq(grass.tint_top, StrataBlockType.TINT_GRASS, "the grass top: grass map")
	assert_eq(grass.tint_side, StrataBlockType.TINT_NONE, "the grass side as drawn")
	assert_eq(grass.tint_bottom, StrataBlockType.TINT_NONE, "the grass bottom (dirt) as drawn")
	var leaves: StrataBlockType = lib.blocks[lib.get_block_id("leaves")]
	for field in ["tint_top", "tint_side", "tint_bottom"]:
		assert_eq(leaves.get(field), StrataBlockType.TINT_FOLIAGE, "leaves " + field)
	var stone: StrataBlockType = lib.blocks[lib.get_block_id("stone")]
	assert_eq(stone.tint_top, StrataBlockType.TINT_NONE, "stone is not tinted")
	# One tint a layer, in layer order: the grass top's and the leaves' layers only.
	var layers := lib.get_texture_layers()
	var tints := lib.get_layer_tints()
	assert_eq(tints.size(), layers.size(), "a tint a layer")
	for i in layers.size():
		var want := 0
		if layers[i].ends_with("/grass_top.png"):
			want = 1
		elif layers[i].ends_with("/leaves.png"):
			want = 2
		assert_eq(tints[i], want, "layer %d (%s)" % [i, layers[i]])


func test_a_texture_tinted_and_not_gets_two_layers_and_bad_tints_are_refused() -> void:
	var lib := StrataBlockLibrary.new()
	var moss := _block("moss")
	moss.texture = load("res://addons/strata/textures/blocks/leaves.png")
	moss.tint_top = StrataBlockType.TINT_FOLIAGE
	var plain := _block("plain_leaves")
	plain.texture = moss.texture
	lib.blocks = [_block("air", false), moss, plain]
	assert_eq(lib.validate(), "", "valid")
	var layers := lib.get_texture_layers()
	assert_eq(
		layers.size(), 2, "leaves twice: tinted on moss's top, plain elsewhere: %s" % [layers]
	)
	assert_eq(lib.get_layer_tints(), PackedByteArray([0, 2]), "moss's sides first, then its top")
	assert_eq(lib.build_texture_array().get_layers(), 2, "two layers of the same image")
	# A value naming no colour map: refused by name, property, value and what is allowed.
	plain.tint_side = 7
	var message := lib.validate()
	for needle in ["block 2", "plain_leaves", "tint_side", "7", "0 (None), 1 (Grass), 2 (Foliage)"]:
		assert_true(message.contains(needle), "the error names %s: %s" % [needle, message])
	# A library saved to a file names the file too.
	var path := scratch_dir().path_join("bad_tints.tres")
	assert_eq(ResourceSaver.save(lib, path), OK, "saved")
	var loaded := (
		ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE) as StrataBlockLibrary
	)
	assert_true(
		loaded.validate().begins_with(path), "the error names the file: " + loaded.validate()
	)


## The climate map's texels are the core's corner climates (read back from the texture the
## shaders sample), its uniforms reach the chunks' own materials, and off turns the tint off.
func test_the_climate_map_holds_the_corner_climates_and_reaches_the_shaders() -> void:
	var w := await _streaming_world(Vector3(100, 100, -300))
	if w == null:
		return
	assert_true(w.climate_tint, "on by default")
	assert_true(await wait_until(_climate_built.bind(w), 60.0), "the map's tiles are built")
	await wait_frames(2)
	var stats := w.get_stats()
	# View distance 1 (32 voxels), no far view, and 512 voxels beyond: the viewer's tile and two
	# of 512 voxels on each side.
	assert_eq(int(stats["climate_tiles_ready"]), 5 * 5, "the whole window")
	var texture := w.get_climate_texture()
	if not assert_true(texture != null, "a climate texture"):
		return
	# What the world uploaded (a headless renderer keeps no texels to read back; the rendered
	# check reads the texture itself).
	var image := w.get_climate_image()
	assert_eq(Vector2i(image.get_width(), image.get_height()), Vector2i(80, 80), "16 texels a tile")
	# Corners of loaded chunks and of the window's edge: each texel holds its corner's climate.
	var checked := 0
	# Tiles -2..2 on x and -3..1 on z: corners -32..47 and -48..31.
	for corner in [
		Vector2i(3, -10), Vector2i(4, -10), Vector2i(3, -9), Vector2i(-32, -48), Vector2i(47, 31)
	]:
		var want := w.get_corner_climate(corner)
		var texel := Vector2i(posmod(corner.x, 80), posmod(corner.y, 80))
		var got := image.get_pixelv(texel)
		assert_near(got.r, want.x, 0.5 / 255.0 + 1e-6, "temperature at corner %s" % [corner])
		assert_near(got.g, want.y, 0.5 / 255.0 + 1e-6, "moisture at corner %s" % [corner])
		assert_eq(got.b, 1.0, "corner %s is built" % [corner])
		checked += 1
	assert_eq(checked, 5, "five corners read back")
	var material := _opaque_material(w)
	if not assert_true(material != null, "a chunk's opaque material"):
		return
	assert_eq(
		int(material.get_shader_parameter("strata_climate_slots")), 5, "the shaders know the window"
	)
	# The viewer at x = 100, z = -300 stands in tile (0, -1): the window starts two tiles before.
	assert_eq(
		material.get_shader_parameter("strata_climate_start"),
		Vector2i(-2, -3),
		"the window's start"
	)
	assert_eq(material.get_shader_parameter("strata_climate"), texture, "the same texture")
	var tints := material.get_shader_parameter("strata_layer_tints") as Texture2D
	assert_true(tints != null, "and the layers' tints")
	w.climate_tint = false
	await wait_frames(2)
	assert_eq(int(material.get_shader_parameter("strata_climate_slots")), 0, "off: no tint")
	stats = w.get_stats()
	assert_eq(
		int(stats["climate_tiles_ready"]) + int(stats["climate_tiles_pending"]), 0, "off: no map"
	)


## Two places of clearly different climate give clearly different tints, the same on either side
## of a chunk border; the colour maps are editable and checked.
func test_the_tint_follows_the_climate_and_the_maps_are_checked() -> void:
	var w := StrataChunkWorld.new()
	var preset := StrataWorldPreset.new()
	preset.seed = 4242
	w.preset = preset
	keep(w)
	add_child(w)
	# The hottest-driest and the coldest corner among a few hundred far apart.
	var hot := Vector2i.ZERO
	var cold := Vector2i.ZERO
	var hot_t := -1.0
	var cold_t := 2.0
	for i in 400:
		var corner := Vector2i((i * 37) % 800 - 400, (i * 53) % 800 - 400)
		var c := w.get_corner_climate(corner)
		if c.x > hot_t:
			hot_t = c.x
			hot = corner
		if c.x < cold_t:
			cold_t = c.x
			cold = corner
	assert_gt(hot_t - cold_t, 0.4, "the world has hot and cold land")
	var at_hot := w.get_tint_at(hot.x * 32.0, hot.y * 32.0, StrataBlockType.TINT_GRASS)
	var at_cold := w.get_tint_at(cold.x * 32.0, cold.y * 32.0, StrataBlockType.TINT_GRASS)
	assert_gt(at_hot.r / at_hot.b, at_cold.r / at_cold.b + 0.2, "hot grass is yellower than cold")
	assert_ne(at_hot.to_html(), at_cold.to_html(), "different tints")
	assert_eq(
		w.get_tint_at(hot.x * 32.0, hot.y * 32.0, StrataBlockType.TINT_NONE),
		Color.WHITE,
		"no tint: white"
	)
	# Across the border x = 32 · k of two chunks the tint is continuous.
	for z in [3.0, 17.5]:
		var left := w.get_tint_at(hot.x * 32.0 - 0.001, z, StrataBlockType.TINT_FOLIAGE)
		var right := w.get_tint_at(hot.x * 32.0, z, StrataBlockType.TINT_FOLIAGE)
		assert_near(left.r, right.r, 1e-3, "no step at the border (r)")
		assert_near(left.g, right.g, 1e-3, "no step at the border (g)")
	# The maps: four colours, or none for the built-in one; anything else is refused.
	var grey := PackedColorArray([Color.GRAY, Color.GRAY, Color.GRAY, Color.GRAY])
	w.grass_colors = grey
	assert_eq(w.grass_colors, grey, "four colours taken")
	var flat := w.get_tint_at(hot.x * 32.0, hot.y * 32.0, StrataBlockType.TINT_GRASS)
	assert_near(flat.r, 1.0, 1e-5, "a map of one colour tints nothing")
	w.grass_colors = PackedColorArray([Color.RED])
	assert_eq(w.grass_colors, grey, "one colour refused, the map kept")
	w.foliage_colors = PackedColorArray([Color(2, 0, 0), Color.RED, Color.RED, Color.RED])
	assert_eq(w.foliage_colors.size(), 0, "a channel past 1 refused")
	w.grass_colors = PackedColorArray()
	assert_eq(w.grass_colors.size(), 0, "empty: the built-in map again")
