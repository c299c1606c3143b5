## Heightmap files in a StrataChunkWorld preset: `user://`, relative and `res://` paths (including a
## file only Godot's file access reaches, in a resource pack) are read once, off the frame, and
## shape the world alike; `validate()` and the world report a bad file with the same message
## (laws: Main thread never waits, Clear errors).
extends StrataTestCase

const PACKED_DIR := "res://strata_packed_maps"
const SIDE := 64


## `file` in the test's scratch folder as a `user://` path.
func _user_path(file: String) -> String:
	var relative := scratch_dir().trim_prefix(OS.get_user_data_dir()).trim_prefix("/")
	return "user://" + relative.path_join(file)


## An 8-bit grayscale PNG rising from black in the west to white in the east, with a bump
## at `bump` (pixels), so two files of different content give different worlds.
func _write_ramp(path: String, bump: Vector2i = Vector2i(-1, -1)) -> void:
	var img := Image.create(SIDE, SIDE, false, Image.FORMAT_L8)
	for y in SIDE:
		for x in SIDE:
			var v := float(x) / float(SIDE - 1)
			if Vector2i(x, y).distance_to(bump) < 6.0:
				v = 1.0
			img.set_pixel(x, y, Color(v, v, v))
	assert_eq(img.save_png(path), OK, "wrote " + path)


func _preset(path: String) -> StrataWorldPreset:
	var p := StrataWorldPreset.new()
	p.seed = 5
	p.height_perlin_weight = 0.0
	p.height_open_simplex_weight = 0.0
	p.height_ridged_weight = 0.0
	p.height_value_weight = 0.0
	p.height_diamond_square_weight = 0.0
	p.height_heightmap_weight = 1.0
	p.height_heightmap_cell_size = 4.0
	p.height_heightmap_path = path
	return p


## A small world of `preset`, not yet in the tree.
func _new_world(preset: StrataWorldPreset) -> StrataChunkWorld:
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	w.worker_threads = 1
	keep(w)
	return w


## Adds `w` to the tree with a viewer at the origin: it starts streaming.
func _attach(w: StrataChunkWorld) -> StrataChunkWorld:
	var v := Node3D.new()
	keep(v)
	add_child(v)
	add_child(w)
	w.viewer = w.get_path_to(v)
	return w


func _world(preset: StrataWorldPreset) -> StrataChunkWorld:
	return _attach(_new_world(preset))


func _loads(w: StrataChunkWorld) -> int:
	return w.get_stats()["heightmap_loads_total"]


## Heights at a row of columns across the map, west to east.
func _heights(w: StrataChunkWorld) -> Array[float]:
	var out: Array[float] = []
	for x in range(-120, 121, 20):
		out.append(w.get_height(x, 8))
	return out


func test_a_user_heightmap_loads_once_and_shapes_the_world() -> void:
	var path := _user_path("ramp.png")
	assert_true(path.begins_with("user://"), "a user:// path: " + path)
	_write_ramp(path)
	var preset := _preset(path)
	var w := _new_world(preset)
	var before := _loads(w)
	assert_eq(preset.validate(), "", "a readable heightmap validates")
	assert_eq(_loads(w), before + 1, "validate() loads the file")
	_attach(w)
	assert_true(await wait_until(w.is_area_ready, 60.0), "the world streams")
	assert_eq(w.last_error(), "", "no error")
	assert_eq(_loads(w), before + 1, "the world reuses the file validate() loaded")
	var h := _heights(w)
	assert_lt(h[0] + 10.0, h[h.size() - 1], "the ramp rises from west to east: %s" % [h])
	w.regenerate()
	assert_true(await wait_until(w.is_area_ready, 60.0), "streams again after regenerate()")
	var other := _world(_preset(path))
	assert_true(await wait_until(other.is_area_ready, 60.0), "a second world streams")
	assert_eq(_heights(other), h, "same file, same world")
	assert_eq(_loads(w), before + 1, "regenerate() and a second world load nothing again")
	# A changed file is loaded again, and gives another world.
	_write_ramp(path, Vector2i(32, 34))
	var changed := _world(_preset(path))
	assert_true(await wait_until(changed.is_area_ready, 60.0), "the changed file streams")
	assert_eq(_loads(w), before + 2, "a changed file is loaded again")
	assert_ne(_heights(changed), h, "another file, another world")


func test_a_packed_res_heightmap_reads_through_godot_file_access() -> void:
	var disk := _user_path("ramp.png")
	_write_ramp(disk, Vector2i(20, 40))
	var packer := PCKPacker.new()
	var pck := ProjectSettings.globalize_path(scratch_dir().path_join("maps.pck"))
	assert_eq(packer.pck_start(pck), OK, "pack started")
	assert_eq(
		packer.add_file(PACKED_DIR.path_join("ramp.png"), ProjectSettings.globalize_path(disk)), OK
	)
	assert_eq(packer.flush(), OK, "pack written")
	assert_true(ProjectSettings.load_resource_pack(pck), "pack loaded")
	var packed := PACKED_DIR.path_join("ramp.png")
	assert_true(FileAccess.file_exists(packed), "Godot reaches the packed file")
	assert_false(
		FileAccess.file_exists(ProjectSettings.globalize_path(packed)), "it is not on disk"
	)
	var from_user := _world(_preset(disk))
	var from_pack := _world(_preset(packed))
	assert_true(await wait_until(from_pack.is_area_ready, 60.0), "the packed heightmap streams")
	assert_eq(from_pack.last_error(), "", "no error: %s" % from_pack.last_error())
	assert_true(await wait_until(from_user.is_area_ready, 60.0), "the user:// heightmap streams")
	assert_eq(_heights(from_pack), _heights(from_user), "same bytes, same world")
	var relative := _world(_preset("strata_packed_maps/ramp.png"))
	assert_true(await wait_until(relative.is_area_ready, 60.0), "a path relative to res:// streams")
	assert_eq(_heights(relative), _heights(from_user), "relative paths are under res://")


func test_a_bad_heightmap_is_reported_alike_by_validate_and_the_world() -> void:
	var garbage := scratch_dir().path_join("garbage.png")
	var f := FileAccess.open(garbage, FileAccess.WRITE)
	f.store_string("this is not a PNG")
	f.close()
	DirAccess.make_dir_recursive_absolute(scratch_dir().path_join("folder.png"))
	var cases := {
		_user_path("missing.png"): "cannot read",
		scratch_dir().path_join("folder.png"): "is a folder",
		scratch_dir().path_join("notes.txt"): "unknown file type",
		garbage: "not a readable PNG",
	}
	if (
		OS.execute("mkfifo", [ProjectSettings.globalize_path(scratch_dir().path_join("pipe.png"))])
		== 0
	):
		cases[scratch_dir().path_join("pipe.png")] = "FIFO"
	for path: String in cases:
		var preset := _preset(path)
		var said := preset.validate()
		assert_true(said.contains(cases[path]), "validate() says `%s`: %s" % [cases[path], said])
		var w := _world(preset)
		assert_true(
			await wait_until(func() -> bool: return w.last_error() != "", 10.0),
			"the world reports %s" % path
		)
		assert_true(w.last_error().contains(said), "same message: %s / %s" % [w.last_error(), said])
		assert_false(w.is_area_ready(), "no world without its heightmap")
		assert_false(w.get_stats()["heightmap_loading"], "the load is over")


func test_asc_and_spca_heightmaps_read_from_disk_and_from_a_pack() -> void:
	# The shipped elevation model and its 16-component file, on disk under res://, and the same
	# bytes inside a resource pack (read through FileAccess, as in an exported game).
	var maps := "res://addons/strata/heightmaps/"
	var files := ["olinda_dem_utm25s.asc", "olinda_dem_k16.spca"]
	var packer := PCKPacker.new()
	var pck := ProjectSettings.globalize_path(scratch_dir().path_join("dem.pck"))
	assert_eq(packer.pck_start(pck), OK, "pack started")
	for file: String in files:
		assert_eq(
			packer.add_file(
				PACKED_DIR.path_join("dem_" + file), ProjectSettings.globalize_path(maps + file)
			),
			OK
		)
	assert_eq(packer.flush(), OK, "pack written")
	assert_true(ProjectSettings.load_resource_pack(pck), "pack loaded")
	var heights := {}
	for file: String in files:
		var on_disk := _preset(maps + file)
		assert_eq(on_disk.validate(), "", file + " validates")
		var disk_world := _world(on_disk)
		var packed_world := _world(_preset(PACKED_DIR.path_join("dem_" + file)))
		assert_true(await wait_until(disk_world.is_area_ready, 60.0), file + " streams")
		assert_true(await wait_until(packed_world.is_area_ready, 60.0), file + " streams packed")
		assert_eq(packed_world.last_error(), "", "no error: %s" % packed_world.last_error())
		heights[file] = _heights(disk_world)
		assert_eq(_heights(packed_world), heights[file], file + ": same bytes, same world")
	# 16 components keep the land's shape, not every detail.
	var full: Array[float] = heights[files[0]]
	var k16: Array[float] = heights[files[1]]
	assert_ne(k16, full, "16 components are not the whole model")
	for i in full.size():
		assert_near(k16[i], full[i], 12.0, "column %d" % i)


func test_a_broken_asc_names_the_line_and_what_is_allowed() -> void:
	var path := scratch_dir().path_join("broken.asc")
	var f := FileAccess.open(path, FileAccess.WRITE)
	f.store_string("ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 0\n1 2\n3 4\n")
	f.close()
	var said := _preset(path).validate()
	assert_true(said.contains("broken.asc"), said)
	assert_true(said.contains("line 5: `cellsize` = `0`; allowed: a positive number"), said)
