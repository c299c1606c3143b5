## Runs inside the real Godot editor (headless): opens a scene with a ChunkWorld, lets the editor
## run frames with the Strata editor plugin enabled, and checks that the world streams its
## editor preview around the editor's 3D camera. Prints one `EDITOR_CHECK` line and quits with
## exit code 0 (passed) or 1 (failed). Started by `cargo xtask test`
## (rust/xtask/src/editor_check.rs).
@tool
extends EditorPlugin

const SCENE := "res://editor_check_scene.tscn"
## Frames to wait for chunks before giving up (the xtask also bounds the whole run).
const MAX_FRAMES := 1800

## Where the check puts the editor camera, and how close (horizontally) a chunk must then be.
const FAR_POINT := Vector3(1000, 40, -700)
const NEAR := 48.0

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
	var world := root as ChunkWorld if root != null else null
	if world == null and root != null:
		world = root.find_child("World", true, false) as ChunkWorld
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
		_finish(true, summary)
	elif _frames > MAX_FRAMES:
		_finish(false, summary)


## Horizontal distance from `at` to the centre of the nearest chunk node of `world`.
func _nearest_chunk_node(world: ChunkWorld, at: Vector3) -> float:
	var best := INF
	for child in world.get_children():
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
