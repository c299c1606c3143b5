## Texture sets: `StrataBlockLibrary.texture_size`, the side every layer of a library's texture
## array is built at (16 or 32, others clamped with a warning: law Bad input gets a clear error),
## and `create_default(32)`, the addon's 32×32 textures: the same layers in the same order as the
## 16 set, the same mean colours, and a world drawn with them.
extends StrataTestCase

const DIR_16 := "res://addons/strata/textures/blocks/"
const DIR_32 := "res://addons/strata/textures/blocks_32/"


## The warnings logged while `action` runs.
func _warnings_of(action: Callable) -> PackedStringArray:
	var collector := StrataLogCollector.new([Logger.ERROR_TYPE_WARNING])
	OS.add_logger(collector)
	action.call()
	OS.remove_logger(collector)
	return collector.take()


## The mean colour of an image's pixels (at its largest size), weighted by alpha (the colour
## clear pixels hold is not seen, and the import changes it near opaque ones), and its mean alpha.
static func _mean(img: Image) -> Color:
	var sum := Vector3.ZERO
	var alpha := 0.0
	for y in img.get_height():
		for x in img.get_width():
			var c := img.get_pixel(x, y)
			sum += Vector3(c.r, c.g, c.b) * c.a
			alpha += c.a
	var rgb := sum / maxf(alpha, 1e-6)
	return Color(rgb.x, rgb.y, rgb.z, alpha / float(img.get_width() * img.get_height()))


func test_the_32_library_has_the_16_ones_layers_at_32_pixels_with_mipmaps() -> void:
	var small := StrataBlockLibrary.create_default()
	var large := StrataBlockLibrary.create_default(32)
	assert_eq(small.texture_size, 16, "create_default() builds 16-pixel layers")
	assert_eq(large.texture_size, 32, "create_default(32) builds 32-pixel layers")
	assert_eq(large.validate(), "", "the 32 library is valid")
	var small_layers := small.get_texture_layers()
	var large_layers := large.get_texture_layers()
	assert_eq(large_layers.size(), 24, "24 layers")
	assert_eq(large_layers.size(), small_layers.size(), "as many layers as the 16 library")
	for i in small_layers.size():
		assert_true(small_layers[i].begins_with(DIR_16), small_layers[i])
		assert_true(large_layers[i].begins_with(DIR_32), large_layers[i])
		assert_eq(large_layers[i].get_file(), small_layers[i].get_file(), "layer %d in order" % i)
	assert_eq(large.get_layer_tints(), small.get_layer_tints(), "the same tinted layers")
	var small_images := small.build_texture_images()
	var large_images := large.build_texture_images()
	assert_eq(large_images.size(), small_images.size(), "one image a layer")
	for i in large_images.size():
		var img := large_images[i]
		assert_eq(img.get_size(), Vector2i(32, 32), "layer %d is 32×32" % i)
		assert_eq(img.get_format(), Image.FORMAT_RGBA8, "layer %d is RGBA8" % i)
		assert_true(img.get_mipmap_count() > 0, "layer %d has mipmaps" % i)
		assert_eq(small_images[i].get_size(), Vector2i(16, 16), "the 16 library's are 16×16")
		# The same palette: each layer's mean colour and alpha within 0.04 a channel (the
		# xtask's unit test bounds the CIELAB ΔE of each texture pair by 2).
		var a := _mean(small_images[i])
		var b := _mean(large_images[i])
		var diff := maxf(
			maxf(absf(a.r - b.r), absf(a.g - b.g)), maxf(absf(a.b - b.b), absf(a.a - b.a))
		)
		assert_lt(
			diff, 0.04, "layer %d (%s) keeps its mean colour" % [i, large_layers[i].get_file()]
		)
	# The pixels are the 32 file's own, not the 16 one's scaled.
	var own := (load(large_layers[0]) as Texture2D).get_image()
	own.convert(Image.FORMAT_RGBA8)
	assert_eq(large_images[0].get_pixel(5, 7), own.get_pixel(5, 7), "layer 0 holds the 32 stone")
	var array := large.build_texture_array()
	assert_true(array != null, "the array is built")
	assert_eq(array.get_width(), 32, "32 wide")
	assert_eq(array.get_layers(), 24, "24 layers")


func test_texture_size_scales_other_textures_nearest_neighbour() -> void:
	var lib := StrataBlockLibrary.create_default()
	lib.texture_size = 32
	var up := lib.build_texture_images()
	assert_eq(up[0].get_size(), Vector2i(32, 32), "16 textures scaled to 32")
	assert_true(up[0].get_mipmap_count() > 0, "with mipmaps")
	var own := (load(lib.get_texture_layers()[0]) as Texture2D).get_image()
	own.convert(Image.FORMAT_RGBA8)
	for p in [Vector2i(0, 0), Vector2i(3, 9), Vector2i(15, 15)]:
		assert_eq(up[0].get_pixel(p.x * 2, p.y * 2), own.get_pixel(p.x, p.y), "nearest at %s" % p)
		assert_eq(up[0].get_pixel(p.x * 2 + 1, p.y * 2 + 1), own.get_pixel(p.x, p.y), "a 2×2 block")
	var down := StrataBlockLibrary.create_default(32)
	down.texture_size = 16
	assert_eq(
		down.build_texture_images()[0].get_size(), Vector2i(16, 16), "32 textures scaled to 16"
	)
	assert_eq(StrataBlockLibrary.new().texture_size, 16, "a new library builds 16-pixel layers")


func test_a_texture_size_other_than_16_or_32_is_clamped_with_a_warning() -> void:
	var lib := StrataBlockLibrary.new()
	var said := _warnings_of(func() -> void: lib.texture_size = 20)
	assert_eq(lib.texture_size, 16, "20 is clamped to 16, the nearer")
	assert_eq(said.size(), 1, "one warning: %s" % [said])
	var line := said[0] if said.size() > 0 else ""
	for part in ["StrataBlockLibrary.texture_size", "20", "allowed: 16 or 32", "using 16"]:
		assert_true(line.contains(part), "the warning says %s: %s" % [part, line])
	said = _warnings_of(func() -> void: lib.texture_size = 25)
	assert_eq(lib.texture_size, 32, "25 is clamped to 32")
	assert_eq(said.size(), 1, "one warning")
	said = _warnings_of(func() -> void: lib.texture_size = -3)
	assert_eq(lib.texture_size, 16, "-3 is clamped to 16")
	said = _warnings_of(func() -> void: lib.texture_size = 4096)
	assert_eq(lib.texture_size, 32, "4096 is clamped to 32")
	said = _warnings_of(func() -> void: lib.texture_size = 32)
	assert_eq(said.size(), 0, "32 is allowed without a warning")
	var made: Array[StrataBlockLibrary] = []
	said = _warnings_of(func() -> void: made.append(StrataBlockLibrary.create_default(64)))
	assert_eq(made[0].texture_size, 32, "create_default(64) makes the 32 library")
	assert_true(made[0].get_texture_layers()[0].begins_with(DIR_32), "with the 32 textures")
	assert_eq(said.size(), 1, "and warns once: %s" % [said])
	if said.size() == 1:
		assert_true(said[0].contains("create_default") and said[0].contains("64"), said[0])


func test_the_inspector_offers_16_or_32_and_a_saved_library_keeps_its_size() -> void:
	var lib := StrataBlockLibrary.create_default(32)
	var found := false
	for p: Dictionary in lib.get_property_list():
		if p["name"] == "texture_size":
			found = true
			assert_eq(p["hint"], PROPERTY_HINT_ENUM, "an enum")
			assert_eq(p["hint_string"], "16:16,32:32", "of 16 and 32")
			assert_true(int(p["usage"]) & PROPERTY_USAGE_STORAGE != 0, "saved with the library")
	assert_true(found, "texture_size is a property")
	var path := scratch_dir().path_join("library_32.tres")
	assert_eq(ResourceSaver.save(lib, path), OK, "saved")
	var back := (
		ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE) as StrataBlockLibrary
	)
	assert_true(back != null, "loads")
	if back != null:
		assert_eq(back.texture_size, 32, "keeps texture_size")
		assert_eq(back.build_texture_images()[0].get_width(), 32, "and builds 32-pixel layers")


## The texture array the opaque surface of the chunk holding voxel `p` is drawn with, or null.
func _chunk_textures(w: StrataChunkWorld, p: Vector3i) -> Texture2DArray:
	var c := StrataChunkWorld.chunk_of(Vector3(p))
	var node := w.get_node_or_null("chunk_%d_%d_%d" % [c.x, c.y, c.z]) as MeshInstance3D
	if node == null or node.mesh == null:
		return null
	var mesh := node.mesh as ArrayMesh
	var surface := mesh.surface_find_by_name("opaque")
	if surface < 0:
		return null
	var material := mesh.surface_get_material(surface) as ShaderMaterial
	if material == null:
		return null
	return material.get_shader_parameter("block_textures") as Texture2DArray


func test_a_world_given_the_32_library_streams_and_draws_with_32_pixel_layers() -> void:
	var w := StrataChunkWorld.new()
	var preset := StrataWorldPreset.new()
	preset.seed = 3232
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.worker_threads = 1
	w.block_library = StrataBlockLibrary.create_default(32)
	keep(w)
	add_child(w)
	# A stone block over the ground, and the viewer beside it.
	var marked := Vector3i(1, int(w.get_height(1.5, 1.5)) + 2, 1)
	var v := Node3D.new()
	v.position = Vector3(marked)
	keep(v)
	add_child(v)
	w.viewer = w.get_path_to(v)
	w.set_voxel(marked, w.get_block_id("stone"))
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams")
	var textures := _chunk_textures(w, marked)
	assert_true(textures != null, "the chunk is drawn with a texture array")
	if textures != null:
		assert_eq(textures.get_width(), 32, "32 wide")
		assert_eq(textures.get_height(), 32, "32 high")
		assert_eq(textures.get_layers(), 24, "every texture of the library")
		assert_true(textures.has_mipmaps(), "with mipmaps")
	# Back to the 16 set (what the demo's texture detail setting does): the world redraws.
	w.block_library = StrataBlockLibrary.create_default()
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams again")
	textures = _chunk_textures(w, marked)
	assert_true(textures != null and textures.get_width() == 16, "drawn with 16-pixel layers")
	assert_eq(w.get_voxel(marked), w.get_block_id("stone"), "the edit is kept")
