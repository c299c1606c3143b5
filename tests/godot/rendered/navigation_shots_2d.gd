## Rendered frame of the side view's walker navigation (run under Xvfb, not headless): hilly
## ground with caves, StrataChunkWorld2D's navigation drawn over it from
## `get_navigation_polygons` / `get_navigation_links` (strips green, risers yellow, one-way drops
## as orange arrows) and a walker's path across it in white (edge-centred, as a
## NavigationAgent2D with PATH_POSTPROCESSING_EDGECENTERED follows it). Checks that the frame
## shows navigation and that the path reaches its target.
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/navigation_shots_2d.tscn -- --out-dir=/abs/dir
extends Node2D

const FRAME_SIZE := Vector2i(960, 540)
const PX := 16.0
const STRIP := Color(0.2, 0.95, 0.35, 0.45)
const RISER := Color(1.0, 0.9, 0.2, 0.55)
const DROP := Color(1.0, 0.55, 0.1, 0.95)
const PATH := Color(1.0, 1.0, 1.0, 0.95)

var out_dir := "user://navigation_shots_2d"
var _path := PackedVector2Array()

@onready var world: StrataChunkWorld2D = $StrataChunkWorld2D
@onready var overlay: Node2D = $Overlay
@onready var viewer: Node2D = $Viewer
@onready var camera: Camera2D = $Viewer/Camera2D


func _ready() -> void:
	out_dir = RenderedChecks.out_dir_arg(out_dir)
	get_window().size = FRAME_SIZE
	var preset := StrataWorldPreset.new()
	preset.seed = 31
	preset.side_view_water_enabled = false
	preset.side_view_amplitude = 36.0
	world.preset = preset
	# The tiles as they are, unlit: the navigation is what the frame shows.
	world.light_enabled = false
	RenderingServer.set_default_clear_color(Color(0.55, 0.72, 0.9))
	world.view_distance = 1
	world.navigation_enabled = true
	world.navigation_distance = 1
	world.navigation_max_step_up = 1
	world.navigation_max_drop = 6
	world.viewer = world.get_path_to(viewer)
	camera.make_current()
	overlay.draw.connect(_draw_overlay)
	_run.call_deferred()


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var checks := RenderedChecks.new()
	var x0 := 20
	var ground: int = world.get_generated_surface_rows(x0, 1)[0]
	viewer.position = world.tile_to_local(Vector2i(x0, ground + 6))
	for i in 3:
		await get_tree().process_frame
	while not world.is_area_ready() or int(world.get_stats()["nav_queue"]) > 0:
		await get_tree().process_frame
	NavigationServer2D.map_force_update(world.get_navigation_map())
	await get_tree().physics_frame
	await get_tree().physics_frame
	var from_x := x0 - 26
	var to_x := x0 + 26
	var from := world.tile_to_local(
		Vector2i(from_x, world.get_generated_surface_rows(from_x, 1)[0] - 1)
	)
	var to := world.tile_to_local(Vector2i(to_x, world.get_generated_surface_rows(to_x, 1)[0] - 1))
	_path = NavigationServer2D.map_get_path(world.get_navigation_map(), from, to, false)
	overlay.queue_redraw()
	var stats := world.get_stats()
	print("navigation: %d regions, %d links" % [stats["nav_regions"], stats["nav_links"]])
	checks.check("regions on the server", int(stats["nav_regions"]) > 0)
	checks.check(
		"the path reaches its target",
		_path.size() > 1 and _path[_path.size() - 1].distance_to(to) < 1.0
	)
	for i in 2:
		await RenderingServer.frame_post_draw
	var img := RenderedChecks.screenshot(get_viewport(), out_dir, "side_view_navigation")
	checks.check("a frame was drawn", img != null)
	if img != null:
		checks.check("the strips show in the frame", _green_share(img) > 0.002)
	checks.finish(get_tree())


## The share of pixels the strips' green dominates.
static func _green_share(img: Image) -> float:
	var green := 0
	var total := 0
	for y in range(0, img.get_height(), 2):
		for x in range(0, img.get_width(), 2):
			var c := img.get_pixel(x, y)
			total += 1
			if c.g > 0.45 and c.g > c.r * 1.4 and c.g > c.b * 1.4:
				green += 1
	return float(green) / float(max(total, 1))


func _draw_overlay() -> void:
	var c := world.chunk_of_tile(world.local_to_tile(viewer.position))
	for cy in range(c.y - 1, c.y + 2):
		for cx in range(c.x - 1, c.x + 2):
			var chunk := Vector2i(cx, cy)
			for poly: PackedVector2Array in world.get_navigation_polygons(chunk):
				var lo := poly[0]
				var hi := poly[0]
				for p in poly:
					lo = lo.min(p)
					hi = hi.max(p)
				var is_strip := is_equal_approx(hi.y - lo.y, PX) and _standable_row(lo)
				overlay.draw_colored_polygon(poly, STRIP if is_strip else RISER)
				var ring := poly.duplicate()
				ring.append(poly[0])
				overlay.draw_polyline(ring, Color(0, 0, 0, 0.6), 1.0)
			var links := world.get_navigation_links(chunk)
			for i in range(0, links.size(), 2):
				_arrow(links[i], links[i + 1])
	if _path.size() > 1:
		overlay.draw_polyline(_path, PATH, 2.0)
		for p in _path:
			overlay.draw_circle(p, 2.5, PATH)


## Whether the polygon whose top-left corner is `corner` stands on ground (a strip): the tile
## below its row is solid.
func _standable_row(corner: Vector2) -> bool:
	var t := world.local_to_tile(corner + Vector2(PX / 2.0, PX / 2.0))
	return world.get_tile(t + Vector2i.DOWN) != 0 and world.get_tile(t) == 0


func _arrow(a: Vector2, b: Vector2) -> void:
	overlay.draw_line(a, b, DROP, 2.0)
	var d := (b - a).normalized()
	var side := Vector2(-d.y, d.x)
	overlay.draw_colored_polygon(
		PackedVector2Array([b, b - d * 7.0 + side * 4.0, b - d * 7.0 - side * 4.0]), DROP
	)
