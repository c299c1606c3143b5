## Block libraries: the default one with the addon's textures, a developer's own blocks, and
## saves that keep block names, so reordering or extending a library never changes what an old
## save loads, and a block it lacks is refused by name (laws: Nothing is lost, Clear errors).
extends StrataTestCase

const DEFAULT_DIR := "res://addons/strata/textures/blocks/"


func _block(block_name: String, solid: bool = true) -> StrataBlockType:
	var b := StrataBlockType.new()
	b.block_name = block_name
	b.solid = solid
	b.light_opacity = 15 if solid else 0
	return b


## A world streaming nothing yet (no viewer in reach matters: edits and saves work regardless).
func _world(library: StrataBlockLibrary) -> StrataChunkWorld:
	var w := StrataChunkWorld.new()
	var preset := StrataWorldPreset.new()
	preset.seed = 4242
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.worker_threads = 1
	if library != null:
		w.block_library = library
	keep(w)
	add_child(w)
	return w


func test_the_default_library_has_the_built_in_blocks_and_textures() -> void:
	var lib := StrataBlockLibrary.create_default()
	assert_eq(lib.validate(), "", "the default library is valid")
	assert_eq(
		lib.get_block_count(), 23, "18 built-in blocks, then torch, glass, leaves, log, planks"
	)
	for id in 18:
		assert_eq(
			lib.get_block_name(id), default_block_name(id), "built-in block %d keeps its id" % id
		)
	assert_eq(lib.get_block_id("torch"), 18)
	assert_eq(lib.get_block_name(22), "planks")
	assert_eq(lib.get_block_id("no_such_block"), -1)
	assert_eq(lib.get_block_name(-1), "")
	assert_eq(lib.get_block_name(23), "")
	var grass: StrataBlockType = lib.blocks[3]
	assert_true(grass.texture_top.resource_path.ends_with("grass_top.png"), "grass has its top")
	assert_true(grass.texture.resource_path.ends_with("grass_side.png"), "and its sides")
	var torch: StrataBlockType = lib.blocks[18]
	assert_eq(torch.light_emission, 14, "a torch glows")
	assert_false(torch.solid, "a torch is not solid")
	assert_eq(torch.render_mode, StrataBlockType.RENDER_MODE_CUTOUT, "a torch is cut out")
	var glass: StrataBlockType = lib.blocks[19]
	assert_eq(glass.render_mode, StrataBlockType.RENDER_MODE_TRANSPARENT, "glass is transparent")
	assert_eq(glass.texture.get_width(), 16, "16×16 pixel art")


func test_block_properties_are_range_checked() -> void:
	var b := _block("lamp")
	b.light_emission = 99
	assert_eq(b.light_emission, 15, "emission clamped to 15")
	b.light_opacity = -4
	assert_eq(b.light_opacity, 0, "opacity clamped to 0")
	var lib := StrataBlockLibrary.new()
	lib.blocks = [_block("stone"), _block("air")]
	assert_true(lib.validate().contains("block 0"), "block 0 must be air: " + lib.validate())
	lib.blocks = [_block("air", false), _block("stone"), _block("stone")]
	var said := lib.validate()
	assert_true(said.contains("block 2") and said.contains("stone"), "duplicate named: " + said)
	lib.blocks = [_block("air", false), _block("Bad Name")]
	assert_true(lib.validate().contains("Bad Name"), "bad name named: " + lib.validate())


func test_saves_keep_block_names_across_library_changes() -> void:
	var default_world := _world(StrataBlockLibrary.create_default())
	var stone_at := Vector3i(3, 90, 3)
	var torch_at := Vector3i(4, 90, 3)
	default_world.set_voxel(stone_at, default_world.get_block_id("stone"))
	default_world.set_voxel(torch_at, default_world.get_block_id("torch"))
	assert_eq(default_world.get_voxel(torch_at), 18, "a torch can be placed")
	var path := scratch_dir().path_join("world.strata")
	assert_eq(default_world.save_world(path), OK, "saved")
	# Another library: the same names at other ids, and a block of the developer's own.
	var own := StrataBlockLibrary.new()
	own.blocks = [
		_block("air", false),
		_block("marble"),
		_block("torch", false),
		_block("stone"),
		_block("dirt")
	]
	assert_eq(own.validate(), "", own.validate())
	var other := _world(own)
	assert_eq(other.load_world(path), OK, "loads into a reordered, extended library")
	assert_eq(other.get_voxel(stone_at), 3, "stone is stone, at its new id")
	assert_eq(other.get_voxel(torch_at), 2, "the torch is the torch, at its new id")
	assert_eq(other.get_block_name(other.get_voxel(torch_at)), "torch")
	# A library without torches refuses the save by name, and keeps its world.
	var keep_at := Vector3i(9, 90, 9)
	var no_torch := StrataBlockLibrary.new()
	no_torch.blocks = [_block("air", false), _block("stone")]
	var lacking := _world(no_torch)
	lacking.set_voxel(keep_at, 1)
	assert_ne(lacking.load_world(path), OK, "refused")
	assert_true(lacking.last_error().contains("torch"), "names the block: " + lacking.last_error())
	assert_eq(lacking.get_voxel(keep_at), 1, "its own edit is still there")
	# Ids beyond the library are refused when set.
	lacking.set_voxel(keep_at, 5)
	assert_eq(lacking.get_voxel(keep_at), 1, "id 5 is not a block of a two-block library")
	# An invalid library refuses to save, saying why, and writes nothing.
	var broken := StrataBlockLibrary.new()
	broken.blocks = [_block("stone")]
	lacking.block_library = broken
	var broken_path := scratch_dir().path_join("broken.strata")
	assert_ne(lacking.save_world(broken_path), OK, "an invalid library does not save")
	assert_true(lacking.last_error().contains("block 0"), "says why: " + lacking.last_error())
	assert_false(FileAccess.file_exists(broken_path), "nothing written")


func test_light_follows_the_sky_digging_and_torches() -> void:
	var w := _world(StrataBlockLibrary.create_default())
	var x := 17
	var z := -9
	var top := int(w.get_height(x, z))
	assert_eq(w.get_sky_light(Vector3i(x, top + 20, z)), 15, "open sky above the ground")
	assert_eq(w.get_light(Vector3i(x, top - 40, z)) >= 0, true, "deep ground answers")
	# A shaft ten deep: the sky comes straight down it.
	var stone := w.get_block_id("stone")
	for y in range(top - 10, top + 1):
		w.set_voxel(Vector3i(x, y, z), 0)
	assert_eq(w.get_sky_light(Vector3i(x, top - 10, z)), 15, "the sky reaches the shaft's floor")
	# Close it with stone: its floor is dark to the sky again.
	w.set_voxel(Vector3i(x, top, z), stone)
	w.set_voxel(Vector3i(x, top - 1, z), stone)
	assert_eq(w.get_sky_light(Vector3i(x, top - 10, z)), 0, "a closed shaft is dark")
	assert_eq(w.get_block_light(Vector3i(x, top - 10, z)), 0, "and nothing glows")
	# A torch in the closed shaft lights it, one level less a voxel; removed, dark again.
	var torch := w.get_block_id("torch")
	w.set_voxel(Vector3i(x, top - 5, z), torch)
	assert_eq(w.get_block_light(Vector3i(x, top - 5, z)), 14, "a torch glows 14")
	assert_eq(w.get_block_light(Vector3i(x, top - 8, z)), 11, "three voxels down: 11")
	assert_eq(w.get_light(Vector3i(x, top - 8, z)), 11, "light is the brighter of sky and block")
	w.set_voxel(Vector3i(x, top - 5, z), 0)
	assert_eq(w.get_block_light(Vector3i(x, top - 8, z)), 0, "removed: dark again")
	assert_eq(w.get_light(Vector3i(2147483647, 0, 0)), 15, "beyond the bounds: open sky")


func test_the_texture_array_has_a_layer_per_texture_in_walk_order() -> void:
	var lib := StrataBlockLibrary.create_default()
	var layers := lib.get_texture_layers()
	assert_eq(layers.size(), 24, "24 distinct textures in the default library: %s" % [layers])
	assert_true(layers[0].ends_with("stone.png"), "stone (block 1) comes first: " + layers[0])
	var dirt := layers.find(DEFAULT_DIR + "dirt.png")
	var grass_side := layers.find(DEFAULT_DIR + "grass_side.png")
	assert_true(dirt >= 0 and dirt < grass_side, "dirt (block 2) before grass's sides (block 3)")
	var array := lib.build_texture_array()
	assert_true(array != null, "built")
	assert_eq(array.get_layers(), 24, "one layer a texture")
	assert_eq(array.get_width(), 16, "16 pixels wide")
	var images := lib.build_texture_images()
	assert_eq(images.size(), 24, "one image a layer")
	var stone_px := images[0].get_pixel(3, 3)
	var own := (load(layers[0]) as Texture2D).get_image()
	own.convert(Image.FORMAT_RGBA8)
	assert_eq(stone_px, own.get_pixel(3, 3), "layer 0 holds stone's pixels")
	assert_eq(images[0].get_width(), 16, "16×16")
	assert_true(images[0].has_mipmaps(), "with mipmaps")
	var empty := StrataBlockLibrary.new()
	empty.blocks = [_block("air", false), _block("stone")]
	assert_eq(empty.get_texture_layers().size(), 0, "no textures")
	assert_true(empty.build_texture_array() == null, "no array without textures")


func test_the_block_shaders_compile() -> void:
	for shader_name in ["blocks_opaque", "blocks_cutout", "blocks_transparent", "water"]:
		var shader := load("res://addons/strata/shaders/%s.gdshader" % shader_name) as Shader
		assert_true(shader != null, shader_name + " loads")
		var params := shader.get_shader_uniform_list()
		var names: Array = params.map(func(p: Dictionary) -> String: return p["name"])
		assert_true(
			names.has("block_textures"), "%s samples the texture array: %s" % [shader_name, names]
		)
		assert_true(names.has("daylight"), "%s scales sky light by daylight" % shader_name)
		for uniform_name in [
			"horizon_heights", "horizon_slots", "horizon_from_world", "horizon_start"
		]:
			assert_true(names.has(uniform_name), "%s has %s" % [shader_name, uniform_name])


## The first chunk mesh of `w` with a surface, or null.
func _a_chunk_mesh(w: StrataChunkWorld) -> ArrayMesh:
	for child in w.get_children(true):
		var mi := child as MeshInstance3D
		if mi != null and String(mi.name).begins_with("chunk_") and mi.mesh != null:
			return mi.mesh as ArrayMesh
	return null


## A world with the default library streaming around a viewer at the origin, with one stone
## block placed in the sky so a chunk there has a mesh; null if it never became ready.
func _streaming_world() -> StrataChunkWorld:
	var w := _world(null)
	var v := Node3D.new()
	keep(v)
	add_child(v)
	w.viewer = w.get_path_to(v)
	w.set_voxel(Vector3i(1, 120, 1), 1)
	var ready := await wait_until(w.is_area_ready, 60.0)
	assert_true(ready, "streams")
	return w if ready else null


func test_chunks_are_drawn_by_the_block_shaders_or_the_override() -> void:
	var w := await _streaming_world()
	if w == null:
		return
	var mesh := _a_chunk_mesh(w)
	assert_true(mesh != null, "a chunk mesh")
	var opaque := mesh.surface_find_by_name("opaque")
	assert_true(opaque >= 0, "an opaque surface")
	var material := mesh.surface_get_material(opaque) as ShaderMaterial
	assert_true(material != null, "drawn by a ShaderMaterial")
	assert_true(
		material.shader.resource_path.ends_with("blocks_opaque.gdshader"), "the opaque shader"
	)
	var textures: Variant = material.get_shader_parameter("block_textures")
	assert_true(textures is Texture2DArray, "with the library's texture array")
	assert_eq((textures as Texture2DArray).get_layers(), 24, "every texture of the library")
	var own := StandardMaterial3D.new()
	w.material_override = own
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams again")
	mesh = _a_chunk_mesh(w)
	assert_eq(mesh.surface_get_material(mesh.surface_find_by_name("opaque")), own, "the override")
	assert_eq(w.get_voxel(Vector3i(1, 120, 1)), 1, "the edit is kept")


## The light bytes (sky × 16 + block) of the upward faces of the chunk mesh holding voxel `p`
## whose quads start at `p`'s top: what CUSTOM0 carries there (layer + 4096 × (light + 256 ×
## direction), direction 2 = +y), or -1 when no such face is drawn.
func _baked_top_light(w: StrataChunkWorld, p: Vector3i) -> int:
	var c := StrataChunkWorld.chunk_of(Vector3(p))
	var node := w.get_node_or_null("chunk_%d_%d_%d" % [c.x, c.y, c.z]) as MeshInstance3D
	if node == null or node.mesh == null:
		return -1
	var mesh := node.mesh as ArrayMesh
	var size := StrataChunkWorld.chunk_size()
	var local := Vector3(p - c * size)
	for s in mesh.get_surface_count():
		var arrays := mesh.surface_get_arrays(s)
		var positions: PackedVector3Array = arrays[Mesh.ARRAY_VERTEX]
		var custom0: PackedFloat32Array = arrays[Mesh.ARRAY_CUSTOM0]
		for q in range(0, positions.size(), 4):
			if int(custom0[q]) >> 20 != 2:
				continue
			var lo := positions[q].min(positions[q + 1]).min(positions[q + 2]).min(positions[q + 3])
			var hi := positions[q].max(positions[q + 1]).max(positions[q + 2]).max(positions[q + 3])
			var inside := local.x >= lo.x and local.x < hi.x and local.z >= lo.z and local.z < hi.z
			if inside and is_equal_approx(lo.y, local.y + 1.0):
				return (int(custom0[q]) >> 12) & 255
	return -1


func test_meshes_carry_light_and_a_torch_relights_them() -> void:
	var w := _world(StrataBlockLibrary.create_default())
	var x := 10
	var z := 10
	var floor_y := int(w.get_height(x, z)) - 40
	var stone := w.get_block_id("stone")
	# A 5×3×5 room walled in stone, deep underground.
	for dy in range(-1, 4):
		for dz in range(-3, 4):
			for dx in range(-3, 4):
				var inside := dy >= 0 and dy <= 2 and absi(dx) <= 2 and absi(dz) <= 2
				w.set_voxel(Vector3i(x + dx, floor_y + dy, z + dz), 0 if inside else stone)
	var v := Node3D.new()
	keep(v)
	add_child(v)
	v.position = Vector3(x, floor_y, z)
	w.viewer = w.get_path_to(v)
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams the room")
	# The floor voxel two steps from the room's middle: its top face looks into the room.
	var floor_voxel := Vector3i(x + 2, floor_y - 1, z + 2)
	assert_eq(_baked_top_light(w, floor_voxel), 0, "a sealed room is dark in its mesh")
	w.set_voxel(Vector3i(x, floor_y + 1, z), w.get_block_id("torch"))
	assert_true(await wait_until(w.is_area_ready, 60.0), "relit")
	var want := w.get_light(floor_voxel + Vector3i.UP)
	assert_eq(want, 14 - 5, "the torch's light five steps away")
	assert_eq(_baked_top_light(w, floor_voxel), want, "the mesh carries the block light (sky 0)")
	w.set_voxel(Vector3i(x, floor_y + 1, z), 0)
	assert_true(await wait_until(w.is_area_ready, 60.0), "relit again")
	assert_eq(_baked_top_light(w, floor_voxel), 0, "dark again without the torch")
	# Light off: every face as under open sky (sky 15 × 16).
	w.light_enabled = false
	assert_true(await wait_until(w.is_area_ready, 60.0), "remeshed")
	assert_eq(_baked_top_light(w, floor_voxel), 15 * 16, "unlit meshes see the open sky")


func test_the_horizon_map_is_built_around_the_viewer_and_reaches_the_shaders() -> void:
	var w := await _streaming_world()
	if w == null:
		return
	assert_true(w.horizon_shadows, "on by default")
	var built := func() -> bool:
		var stats := w.get_stats()
		return int(stats["horizon_tiles_ready"]) > 0 and int(stats["horizon_tiles_pending"]) == 0
	assert_true(await wait_until(built, 60.0), "the map's tiles are built and copied in")
	var stats := w.get_stats()
	# View distance 1 (32 voxels), no far view, and 1,024 voxels beyond: the viewer's tile and
	# three of 512 voxels on each side.
	assert_eq(int(stats["horizon_tiles_ready"]), 7 * 7, "the whole window")
	assert_eq(int(stats["horizon_tiles_uploaded"]), 7 * 7, "each tile copied in once")
	var mesh := _a_chunk_mesh(w)
	var material := mesh.surface_get_material(mesh.surface_find_by_name("opaque")) as ShaderMaterial
	assert_eq(int(material.get_shader_parameter("horizon_slots")), 7, "the shaders know the window")
	var heights := material.get_shader_parameter("horizon_heights") as Texture2DArray
	assert_true(heights != null, "and have its heights")
	if heights != null:
		assert_eq(heights.get_layers(), 7 * 7, "a layer a tile")
		assert_eq(
			Vector2i(heights.get_width(), heights.get_height()),
			Vector2i(64, 65),
			"64² + a header row"
		)
	# The viewer moves with the world, so the same chunks (and their own material copies) stay.
	var moved := Transform3D(Basis.IDENTITY, Vector3(100, 0, -50))
	var viewer := w.get_node(w.viewer) as Node3D
	var viewer_at := viewer.global_transform
	w.transform = moved
	viewer.global_transform = moved * viewer_at
	await wait_frames(2)
	var from_world: Variant = material.get_shader_parameter("horizon_from_world")
	assert_eq(from_world, moved.affine_inverse(), "world space to the world's voxels")
	w.transform = Transform3D.IDENTITY
	viewer.global_transform = viewer_at
	w.horizon_shadows = false
	await wait_frames(2)
	assert_eq(int(material.get_shader_parameter("horizon_slots")), 0, "off: no march")
	stats = w.get_stats()
	assert_eq(
		int(stats["horizon_tiles_ready"]) + int(stats["horizon_tiles_pending"]), 0, "off: no map"
	)


func test_daylight_reaches_the_block_shaders_and_is_clamped() -> void:
	var w := await _streaming_world()
	if w == null:
		return
	w.daylight = 0.25
	var mesh := _a_chunk_mesh(w)
	var material := mesh.surface_get_material(mesh.surface_find_by_name("opaque")) as ShaderMaterial
	assert_near(float(material.get_shader_parameter("daylight")), 0.25, 1e-6, "set on the material")
	w.daylight = 7.0
	assert_eq(w.daylight, 1.0, "clamped to 1")
	assert_near(float(material.get_shader_parameter("daylight")), 1.0, 1e-6, "and passed on")


## The addon ships the default library as a resource (`blocks/default_blocks.tres`, to copy and
## edit): it must be `StrataBlockLibrary.create_default()`, block for block.
func test_the_shipped_default_library_resource_is_the_default_library() -> void:
	var shipped := load("res://addons/strata/blocks/default_blocks.tres") as StrataBlockLibrary
	if not assert_true(shipped != null, "blocks/default_blocks.tres loads as a StrataBlockLibrary"):
		return
	var made := StrataBlockLibrary.create_default()
	assert_eq(shipped.validate(), "", "the shipped library is valid")
	assert_eq(shipped.get_block_count(), made.get_block_count(), "block count")
	assert_eq(shipped.get_texture_layers(), made.get_texture_layers(), "texture layers")
	assert_eq(shipped.get_layer_tints(), made.get_layer_tints(), "the layers' tints")
	var fields := [
		"block_name",
		"color",
		"render_mode",
		"solid",
		"light_emission",
		"light_opacity",
		"hide_faces_between_same",
		"tint_top",
		"tint_side",
		"tint_bottom",
	]
	var texture_fields := ["texture", "texture_top", "texture_side", "texture_bottom"]
	for id in made.get_block_count():
		var a: StrataBlockType = shipped.blocks[id]
		var b: StrataBlockType = made.blocks[id]
		for field in fields:
			assert_eq(a.get(field), b.get(field), "block %d %s" % [id, field])
		for field in texture_fields:
			var ta: Texture2D = a.get(field)
			var tb: Texture2D = b.get(field)
			assert_eq(
				ta.resource_path if ta != null else "",
				tb.resource_path if tb != null else "",
				"block %d %s" % [id, field]
			)


## A rebuilt chunk keeps its collision body until its new one is built: an edit that changes only
## light (a torch, not solid) keeps the very same body, and one that changes the ground has a body
## in every frame until the new one replaces it, so nothing standing there falls through.
func test_a_relit_chunk_keeps_its_collision_body() -> void:
	var w := _world(null)
	var v := Node3D.new()
	keep(v)
	add_child(v)
	var h := int(w.get_height(5, 5))
	v.position = Vector3(5, h, 5)
	w.viewer = w.get_path_to(v)
	if not assert_true(await wait_until(w.is_area_ready, 60.0), "streams"):
		return
	var ground := Vector3i(5, h - 1, 5)
	while w.get_voxel(ground) == 0 and ground.y > h - 20:
		ground.y -= 1
	var chunk := Vector3i(floori(ground.x / 32.0), floori(ground.y / 32.0), floori(ground.z / 32.0))
	var body_name := "collision_%d_%d_%d" % [chunk.x, chunk.y, chunk.z]
	var body := w.get_node_or_null(body_name)
	if not assert_true(body != null, "the ground's chunk has a collision body"):
		return
	var first_id := body.get_instance_id()
	w.set_voxel(ground + Vector3i.UP, w.get_block_id("torch"))
	var always := true
	while not w.is_area_ready():
		always = always and w.get_node_or_null(body_name) != null
		await get_tree().process_frame
	assert_true(always, "a body in every frame while the torch relights the chunk")
	var kept := w.get_node_or_null(body_name)
	assert_true(
		kept != null and kept.get_instance_id() == first_id,
		"the same body: the faces did not change"
	)
	w.set_voxel(ground, 0)
	while not w.is_area_ready():
		always = always and w.get_node_or_null(body_name) != null
		await get_tree().process_frame
	assert_true(always, "a body in every frame until the dug chunk's new body is built")
	var rebuilt := w.get_node_or_null(body_name)
	assert_true(
		rebuilt != null and rebuilt.get_instance_id() != first_id, "a new body for the new ground"
	)
	assert_eq(
		w.get_children(true).filter(func(n: Node) -> bool: return n.name == body_name).size(),
		1,
		"one body, the old one freed"
	)
