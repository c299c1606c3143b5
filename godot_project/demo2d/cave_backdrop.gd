## Dark rock behind the tiles below the generated surface, so caves read as caves, not sky.
## Redrawn when the camera moves; asks the world only for surface rows (cheap, no tiles). Drawn in
## the world's node space: world tiles less the world's floating origin.
extends Node2D

@export var world: StrataChunkWorld2D
@export var color := Color(0.16, 0.13, 0.12)

var _last_key := Vector3i(1 << 30, 0, 0)


func _process(_delta: float) -> void:
	var cam := get_viewport().get_camera_2d()
	if cam == null or world == null:
		return
	var key := Vector3i(
		int(cam.get_screen_center_position().x / 16.0),
		int(cam.get_screen_center_position().y / 16.0),
		int(cam.zoom.x * 100)
	)
	# A shift of the origin moves the camera by whole chunks: the key changes with it.
	key += Vector3i(world.get_origin().x, world.get_origin().y, 0)
	if key != _last_key:
		_last_key = key
		queue_redraw()


func _draw() -> void:
	var cam := get_viewport().get_camera_2d()
	if cam == null or world == null:
		return
	var half := get_viewport_rect().size / cam.zoom / 2.0 + Vector2(64, 64)
	var center := cam.get_screen_center_position()
	var origin := world.get_origin()
	# Local tile columns (node space), and the world's columns they show.
	var x0 := int(floor((center.x - half.x) / 16.0))
	var count := int(ceil(half.x * 2.0 / 16.0)) + 1
	var bottom := center.y + half.y
	var rows := world.get_generated_surface_rows(x0 + origin.x, count)
	for i in rows.size():
		# Start a few tiles under the surface: only caves (below the cave depth) show the backdrop.
		var top := (rows[i] - origin.y + 2) * 16.0
		if top < bottom:
			draw_rect(Rect2((x0 + i) * 16.0, top, 16.0, bottom - top), color)
