## Runs inside the real Godot editor (headless): opens a scene with a StrataChunkWorld, lets the
## editor run frames with the Strata editor plugin enabled, and checks that the world streams its
## editor preview around the editor's 3D camera. Then it selects the world and drives the Strata
## plugin's viewport input (`_forward_3d_gui_input` with mouse events through a camera looking
## down): a dig stroke and a paint stroke, undone and redone through the editor's
## `EditorUndoRedoManager`; saves the scene and writes the voxels it expects to
## `EXPECTED_FILE`, which `runtime_check.gd` compares in a running game. Then it picks two
## corners with the capture tool and saves that box through the toolbar as a `StrataStructure`
## (`CAPTURE_FILE`), which must hold the world's voxels of the box. Last it opens a 2D scene
## with a StrataChunkWorld2D, checks that its preview streams around the centre of the editor's
## 2D view, digs and paints through the plugin's `_forward_canvas_gui_input`, undoes and redoes
## through the editor's history and saves the scene with the tiles it expects beside it
## (`EXPECTED_FILE_2D`). Prints one `EDITOR_CHECK` line and quits with exit code 0 (passed) or
## 1 (failed). Started by `cargo xtask test` (rust/xtask/src/editor_check.rs).
@tool
extends EditorPlugin

const SCENE := "res://editor_check_scene.tscn"
## Frames to wait for chunks before giving up (the xtask also bounds the whole run).
const MAX_FRAMES := 1800

## Where the check puts the editor camera, and how close (horizontally) a chunk must then be.
const FAR_POINT := Vector3(1000, 40, -700)
const NEAR := 48.0
## The Strata plugin's script, to find its instance among the editor's plugins.
const STRATA_PLUGIN := "res://addons/strata/editor/strata_plugin.gd"
## Where the painted voxels the game must show are written ("x y z block" lines).
const EXPECTED_FILE := "res://editor_check_expected.txt"
## Half the edge of the box of voxels compared around each stroke.
const AROUND := 3
## Where the capture check saves the box it picks.
const CAPTURE_FILE := "res://editor_check_capture.tres"
## The side-view scene, and where the tiles its game must show are written ("x y block" lines).
const SCENE_2D := "res://editor_check_scene_2d.tscn"
const EXPECTED_FILE_2D := "res://editor_check_expected_2d.txt"

var _frames := 0
var _opened := false
var _moved_at := -1
var _done := false


func _process(_delta: float) -> void:
	if _done:
		return
	_frames += 1
	if not _opened:
		if _frames < 5:
			return
		EditorInterface.open_scene_from_path(SCENE)
		EditorInterface.set_main_screen_editor("3D")
		_opened = true
		return
	var viewport := EditorInterface.get_editor_viewport_3d(0)
	var camera := viewport.get_camera_3d() if viewport != null else null
	var root := EditorInterface.get_edited_scene_root()
	var world := root as StrataChunkWorld if root != null else null
	if world == null and root != null:
		world = root.find_child("World", true, false) as StrataChunkWorld
	if camera == null or world == null:
		if _frames > MAX_FRAMES:
			_finish(false, "camera=%s world=%s after %d frames" % [camera, world, _frames])
		return
	if _moved_at < 0:
		# Far from the origin (the preview's fallback centre), so chunks there prove streaming
		# follows the camera. The editor viewport moves its camera only when its cursor changes.
		camera.global_position = FAR_POINT
		_moved_at = _frames
		return
	var viewer := world.get_editor_viewer()
	var stats := world.get_stats()
	var loaded := int(stats.get("loaded_chunks", 0))
	var near := _nearest_chunk_node(world, camera.global_position)
	var summary := (
		"camera=%s viewer=%s loaded_chunks=%d nearest_chunk_node=%.0f frames=%d"
		% [camera.global_position, viewer, loaded, near, _frames]
	)
	# The plugin passes the camera's position every frame; chunks load around it.
	if viewer.is_equal_approx(FAR_POINT) and world.is_area_ready() and near < NEAR:
		_done = true
		var problem := await _paint_check(world)
		if problem == "":
			problem = _capture_check(world)
		if problem == "":
			problem = await _side_view_check()
		_done = false
		_finish(
			problem == "", summary + (" paint: passed" if problem == "" else " paint: " + problem)
		)
	elif _frames > MAX_FRAMES:
		_finish(false, summary)


## Horizontal distance from `at` to the centre of the nearest chunk node of `world`.
func _nearest_chunk_node(world: StrataChunkWorld, at: Vector3) -> float:
	var best := INF
	for child in world.get_children(true):
		var node := child as Node3D
		if node == null:
			continue
		var centre := node.global_position + Vector3(16, 16, 16)
		best = minf(best, Vector2(centre.x - at.x, centre.z - at.z).length())
	return best


func _finish(passed: bool, detail: String) -> void:
	_done = true
	print("EDITOR_CHECK %s %s" % ["passed" if passed else "FAILED", detail])
	get_tree().quit(0 if passed else 1)


## Selects `world`, digs and paints through the Strata plugin's viewport input, undoes and
## redoes both through the editor's undo history, saves the scene and writes what it expects;
## "" when all of that held, else what did not.
func _paint_check(world: StrataChunkWorld) -> String:
	var strata := _strata_plugin()
	if strata == null:
		return "the Strata editor plugin is not among the editor's plugins"
	EditorInterface.edit_node(world)
	for i in 3:
		await get_tree().process_frame
	var paint: StrataWorldPaint = strata.call("get_paint")
	# A camera of a known viewport, looking straight down.
	var view := SubViewport.new()
	view.size = Vector2i(200, 200)
	var camera := Camera3D.new()
	view.add_child(camera)
	add_child(view)
	var centre := Vector2(100, 100)
	var dig_at := Vector2i(int(FAR_POINT.x) + 3, int(FAR_POINT.z) + 3)
	var paint_at := dig_at + Vector2i(8, 0)
	var stone := world.get_block_id("stone")
	var undo_redo := get_undo_redo()
	var strokes: Array[Vector3i] = []
	var problem := ""
	for stroke in [[StrataWorldPaint.Tool.DIG, dig_at], [StrataWorldPaint.Tool.PAINT, paint_at]]:
		var column: Vector2i = stroke[1]
		var top := world.get_height(column.x, column.y)
		camera.global_transform = Transform3D(
			Basis.from_euler(Vector3(-PI / 2, 0, 0)),
			Vector3(column.x + 0.5, top + 30.0, column.y + 0.5)
		)
		var ray := world.raycast(
			camera.project_ray_origin(centre), camera.project_ray_normal(centre), 200.0
		)
		if ray.is_empty():
			problem = "no ground under the camera at %s" % column
			break
		paint.tool = stroke[0]
		paint.block = stone
		paint.radius = 1.5
		var target: Vector3i = ray["position"]
		if stroke[0] == StrataWorldPaint.Tool.PAINT:
			target += ray["normal"] as Vector3i
		var before := world.get_voxel(target)
		var history := undo_redo.get_history_undo_redo(undo_redo.get_object_history_id(world))
		var versions := history.get_version()
		var consumed := [
			strata.call("_forward_3d_gui_input", camera, _button(centre, true)),
			strata.call("_forward_3d_gui_input", camera, _motion(centre + Vector2(4, 0))),
			strata.call("_forward_3d_gui_input", camera, _button(centre + Vector2(4, 0), false)),
		]
		var want := 0 if stroke[0] == StrataWorldPaint.Tool.DIG else stone
		if consumed != [AFTER_GUI_INPUT_STOP, AFTER_GUI_INPUT_STOP, AFTER_GUI_INPUT_STOP]:
			problem = "the plugin did not take the stroke's events: %s" % [consumed]
		elif world.get_voxel(target) != want or before == want:
			problem = (
				"stroke at %s: voxel %d -> %d, wanted %d"
				% [target, before, world.get_voxel(target), want]
			)
		elif history.get_version() == versions or not history.has_undo():
			problem = "the stroke is not an action of the editor's undo history"
		else:
			history.undo()
			if world.get_voxel(target) != before:
				problem = (
					"undo left voxel %s at %d, not %d" % [target, world.get_voxel(target), before]
				)
			else:
				history.redo()
				if world.get_voxel(target) != want:
					problem = (
						"redo left voxel %s at %d, not %d" % [target, world.get_voxel(target), want]
					)
		if problem != "":
			break
		strokes.append(target)
	view.queue_free()
	if problem != "":
		return problem
	if EditorInterface.save_scene() != OK:
		return "the scene did not save"
	var saved := FileAccess.get_file_as_string(SCENE)
	if not saved.contains("edits_data"):
		return "the saved scene has no edits_data"
	var lines := PackedStringArray()
	for target in strokes:
		for x in range(-AROUND, AROUND + 1):
			for y in range(-AROUND, AROUND + 1):
				for z in range(-AROUND, AROUND + 1):
					var p := target + Vector3i(x, y, z)
					lines.append("%d %d %d %d" % [p.x, p.y, p.z, world.get_voxel(p)])
	var file := FileAccess.open(EXPECTED_FILE, FileAccess.WRITE)
	if file == null:
		return "cannot write %s" % EXPECTED_FILE
	file.store_string("\n".join(lines) + "\n")
	file.close()
	return ""


## Clicks two corners with the Strata plugin's capture tool (through a camera looking down) and
## saves the box through its toolbar; "" when the saved `StrataStructure` holds the world's voxels
## of that box, else what did not hold.
func _capture_check(world: StrataChunkWorld) -> String:
	var strata := _strata_plugin()
	var paint: StrataWorldPaint = strata.call("get_paint")
	var toolbar: StrataPaintToolbar = strata.get("_toolbar")
	var view := SubViewport.new()
	view.size = Vector2i(200, 200)
	var camera := Camera3D.new()
	view.add_child(camera)
	add_child(view)
	var centre := Vector2(100, 100)
	var picked: Array = []
	var on_picked := func(_w: StrataChunkWorld, a: Vector3i, b: Vector3i) -> void:
		picked.append_array([a, b])
	paint.region_picked.connect(on_picked)
	paint.tool = StrataWorldPaint.Tool.CAPTURE
	var corners: Array = []
	var problem := ""
	for column: Vector2i in [Vector2i(980, -697), Vector2i(986, -692)]:
		var top := world.get_height(column.x, column.y)
		camera.global_transform = Transform3D(
			Basis.from_euler(Vector3(-PI / 2, 0, 0)),
			Vector3(column.x + 0.5, top + 30.0, column.y + 0.5)
		)
		var ray := world.raycast(
			camera.project_ray_origin(centre), camera.project_ray_normal(centre), 200.0
		)
		if ray.is_empty():
			problem = "capture: no ground under the camera at %s" % column
			break
		corners.append(ray["position"])
		var down: int = strata.call("_forward_3d_gui_input", camera, _button(centre, true))
		strata.call("_forward_3d_gui_input", camera, _button(centre, false))
		if down != AFTER_GUI_INPUT_STOP:
			problem = "the plugin did not take the capture click"
			break
	paint.tool = StrataWorldPaint.Tool.NONE
	paint.region_picked.disconnect(on_picked)
	view.queue_free()
	if problem != "":
		return problem
	if picked != corners:
		return "capture: picked %s, wanted %s" % [picked, corners]
	toolbar.call("_on_structure_path_chosen", CAPTURE_FILE)
	var saved := (
		ResourceLoader.load(CAPTURE_FILE, "", ResourceLoader.CACHE_MODE_IGNORE) as StrataStructure
	)
	if saved == null:
		return "capture: no StrataStructure saved at %s" % CAPTURE_FILE
	var expected := world.capture_structure(corners[0], corners[1], "editor_check_capture")
	if saved.cells != expected.cells or saved.blocks != expected.blocks:
		return "capture: the saved structure is not the box's voxels"
	if saved.get_size() != expected.get_size() or saved.structure_name != "editor_check_capture":
		return "capture: saved %s of %s" % [saved.structure_name, saved.get_size()]
	return ""


## Opens the side-view scene and checks its preview and painting (see the top); "" when all of
## it held, else what did not.
func _side_view_check() -> String:
	EditorInterface.open_scene_from_path(SCENE_2D)
	EditorInterface.set_main_screen_editor("2D")
	var world: StrataChunkWorld2D = await _side_view_preview()
	if world == null:
		return "2D: the preview did not stream around the centre of the 2D view"
	var strata := _strata_plugin()
	EditorInterface.edit_node(world)
	for i in 3:
		await get_tree().process_frame
	var paint: StrataWorldPaint2D = strata.call("get_paint_2d")
	var stone := world.get_block_id("stone")
	var x := world.to_local(_view_2d_centre()).x
	var dig_at := world.local_to_tile(Vector2(x, world.get_surface_height(x) + 1.0))
	var x2 := x + 6.0 * world.tile_size.x
	var paint_at := world.local_to_tile(Vector2(x2, world.get_surface_height(x2) + 1.0))
	paint_at += Vector2i(0, -3)
	var expected := PackedStringArray()
	for stroke in [
		[StrataWorldPaint.Tool.DIG, dig_at, 0], [StrataWorldPaint.Tool.PAINT, paint_at, stone]
	]:
		paint.brush.tool = stroke[0]
		paint.brush.block = stone
		paint.brush.radius = 0.0
		var problem: String = await _side_view_stroke(world, strata, stroke[1], stroke[2])
		if problem != "":
			return "2D: " + problem
		expected.append("%d %d %d" % [stroke[1].x, stroke[1].y, stroke[2]])
	return _save_side_view(expected)


## The centre of the editor's 2D view, in the canvas (global) space.
func _view_2d_centre() -> Vector2:
	var view := EditorInterface.get_editor_viewport_2d()
	return view.global_canvas_transform.affine_inverse() * (Vector2(view.size) / 2.0)


## The edited side-view world once its editor viewer is the 2D view's centre and its preview
## shows the area there, or null after `MAX_FRAMES`.
func _side_view_preview() -> StrataChunkWorld2D:
	for i in MAX_FRAMES:
		await get_tree().process_frame
		var world := EditorInterface.get_edited_scene_root() as StrataChunkWorld2D
		var layer := world.get_tile_map_layer() if world != null else null
		if (
			layer != null
			and world.get_editor_viewer().is_equal_approx(_view_2d_centre())
			and world.is_area_ready()
			and layer.get_used_cells().size() > 0
		):
			return world
	return null


## One stroke of the 2D brush at tile `at` through the plugin's canvas input, which must set it
## to `want`, be one action of the editor's history that undoes and redoes exactly, and show in
## the preview; "" when all of that held, else what did not.
func _side_view_stroke(
	world: StrataChunkWorld2D, strata: EditorPlugin, at: Vector2i, want: int
) -> String:
	var undo_redo := get_undo_redo()
	var history := undo_redo.get_history_undo_redo(undo_redo.get_object_history_id(world))
	var before := world.get_tile(at)
	var versions := history.get_version()
	var screen := world.get_global_transform_with_canvas() * world.tile_to_local(at)
	var consumed := [
		strata.call("_forward_canvas_gui_input", _button(screen, true)),
		strata.call("_forward_canvas_gui_input", _motion(screen + Vector2(1, 0))),
		strata.call("_forward_canvas_gui_input", _button(screen + Vector2(1, 0), false)),
	]
	var problem := ""
	if consumed != [true, true, true]:
		problem = "the plugin did not take the stroke's events: %s" % [consumed]
	elif world.get_tile(at) != want or before == want:
		problem = "stroke at %s: tile %d -> %d, wanted %d" % [at, before, world.get_tile(at), want]
	elif history.get_version() == versions or not history.has_undo():
		problem = "the stroke is not an action of the editor's undo history"
	else:
		history.undo()
		var undone := world.get_tile(at)
		history.redo()
		if undone != before or world.get_tile(at) != want:
			problem = (
				"undo and redo left tile %s at %d and %d, not %d and %d"
				% [at, undone, world.get_tile(at), before, want]
			)
	if problem != "":
		return problem
	# The preview shows the stroke once the chunk is tiled again.
	for i in MAX_FRAMES:
		await get_tree().process_frame
		if world.is_area_ready():
			break
	var shown := world.get_tile_map_layer().get_cell_source_id(at) != -1
	if shown != (want != 0):
		return "the preview's cell %s is %s after the stroke" % [at, "drawn" if shown else "empty"]
	return ""


## Saves the side-view scene and writes `expected` ("x y block" lines) beside it; "" when the
## saved scene holds the edits and none of the preview's cells, else what is wrong.
func _save_side_view(expected: PackedStringArray) -> String:
	if EditorInterface.save_scene() != OK:
		return "2D: the scene did not save"
	var saved := FileAccess.get_file_as_string(SCENE_2D)
	var problem := ""
	if not saved.contains("edits_data"):
		problem = "2D: the saved scene has no edits_data"
	elif saved.contains("TileMapLayer") or saved.contains("tile_map_data"):
		problem = "2D: the preview's generated tiles were saved into the scene"
	else:
		var file := FileAccess.open(EXPECTED_FILE_2D, FileAccess.WRITE)
		if file == null:
			problem = "cannot write %s" % EXPECTED_FILE_2D
		else:
			file.store_string("\n".join(expected) + "\n")
			file.close()
	return problem


## The Strata editor plugin's instance, or null.
func _strata_plugin() -> EditorPlugin:
	for node in get_tree().root.find_children("*", "EditorPlugin", true, false):
		var script := node.get_script() as Script
		if script != null and script.resource_path == STRATA_PLUGIN:
			return node as EditorPlugin
	return null


func _button(at: Vector2, pressed: bool) -> InputEventMouseButton:
	var e := InputEventMouseButton.new()
	e.button_index = MOUSE_BUTTON_LEFT
	e.pressed = pressed
	e.position = at
	e.button_mask = MOUSE_BUTTON_MASK_LEFT if pressed else 0
	return e


func _motion(at: Vector2) -> InputEventMouseMotion:
	var e := InputEventMouseMotion.new()
	e.position = at
	e.button_mask = MOUSE_BUTTON_MASK_LEFT
	return e
