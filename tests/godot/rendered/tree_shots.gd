## Rendered check of trees of blocks (run under Xvfb, not headless): a forest of the default
## world with `trees_enabled`, seen from a little above its canopy, is drawn twice from the same
## camera, with and without trees. The trees must show where `get_trees_in` says: the mean colour
## (linear RGB) of a window around the nearest tree's crown differs from the same window without
## trees. The frames are saved (`trees_on.png`, `trees_close.png`, `trees_off.png`) to be
## looked at: crowns whole across chunk borders, trunks on the ground, no tree in water.
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/tree_shots.tscn -- --out-dir=/abs/dir
extends RenderedWorldCheck

const FRAME_SIZE := Vector2i(640, 360)
## The camera: this far back from the tree it looks at (x and z) and this high over its base.
const EYE_OFFSET := Vector3(-26.0, 16.0, 22.0)
## The close look's camera, from the tree's base.
const CLOSE_OFFSET := Vector3(-9.0, 4.0, 7.0)
## The window around the tree's crown, half size in pixels.
const WINDOW_HALF := Vector2i(40, 40)
## The crown must move the window's mean colour (linear RGB, 0–1 a channel) by more than this.
const MIN_COLOUR_CHANGE := 0.02


func _ready() -> void:
	open_frames("user://tree_shots", FRAME_SIZE)
	world.preset = _forest_preset(true)
	world.view_distance = 3
	world.far_view_levels = 2
	world.adaptive_far_view = false
	world.viewer = world.get_path_to(camera)
	day_night.frozen = true
	day_night.weather_cloud_cover = 0.0
	day_night.set_time_of_day(0.42)
	_run.call_deferred()


func _forest_preset(trees: bool) -> StrataWorldPreset:
	var preset := StrataWorldPreset.new()
	preset.trees_enabled = trees
	var no_structures: Array[StrataStructureRule] = []
	preset.structure_rules = no_structures
	return preset


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var checks := RenderedChecks.new()
	var trees := world.get_trees_in(AABB(Vector3(-48, 0, -48), Vector3(96, 1, 96)))
	checks.check("the forest has trees", trees.size() > 10)
	if trees.is_empty():
		checks.finish(get_tree())
		return
	# The tree nearest the origin; the camera stands back from it, looking at its crown.
	var tree: Dictionary = trees[0]
	for t: Dictionary in trees:
		if Vector3(t["position"]).length() < Vector3(tree["position"]).length():
			tree = t
	var base := Vector3(tree["position"]) + Vector3(0.5, 0.0, 0.5)
	var crown := base + Vector3(0.0, float(tree["height"]) * 0.7, 0.0)
	print("tree %s" % tree)
	camera.position = base + EYE_OFFSET
	camera.look_at(crown, Vector3.UP)
	var on := await _frame("trees_on")
	var window := Rect2i(Vector2i(camera.unproject_position(crown)) - WINDOW_HALF, WINDOW_HALF * 2)
	# A close look at the crown and the trunk (not measured: to be looked at).
	camera.position = base + CLOSE_OFFSET
	camera.look_at(base + Vector3(0.0, float(tree["height"]) * 0.5, 0.0), Vector3.UP)
	await _frame("trees_close")
	camera.position = base + EYE_OFFSET
	camera.look_at(crown, Vector3.UP)
	world.preset = _forest_preset(false)
	var off := await _frame("trees_off")
	checks.check("both frames were drawn", on != null and off != null)
	var d := _colour_change(on, off, window)
	print("TREE_COLOUR_CHANGE %.3f in %s" % [d, window])
	checks.check(
		"the crown shows where get_trees_in says (%.3f > %.3f)" % [d, MIN_COLOUR_CHANGE],
		d > MIN_COLOUR_CHANGE
	)
	checks.finish(get_tree())


## The world once it (and the far view) is ready, drawn; null without rendering.
func _frame(tag: String) -> Image:
	for i in 3:
		await get_tree().process_frame
	await RenderedChecks.wait_ready(world, true)
	for i in 2:
		await RenderingServer.frame_post_draw
	return RenderedChecks.screenshot(get_viewport(), out_dir, tag)


## The distance of the mean colours (linear RGB) of `r` in `a` and `b`; -1 when a frame is
## missing or `r` lies outside it.
static func _colour_change(a: Image, b: Image, r: Rect2i) -> float:
	if a == null or b == null or a.get_size() != b.get_size():
		return -1.0
	var inside := r.intersection(Rect2i(Vector2i.ZERO, a.get_size()))
	if not inside.has_area():
		return -1.0
	var sum := Vector3.ZERO
	for y in range(inside.position.y, inside.end.y):
		for x in range(inside.position.x, inside.end.x):
			var ca := a.get_pixel(x, y).srgb_to_linear()
			var cb := b.get_pixel(x, y).srgb_to_linear()
			sum += Vector3(ca.r - cb.r, ca.g - cb.g, ca.b - cb.b)
	return sum.length() / float(inside.get_area())
