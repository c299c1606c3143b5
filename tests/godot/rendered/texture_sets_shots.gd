## Rendered check of the two texture sets (run under Xvfb, not headless): a platform of stone and
## grass floating over the default world is seen close up from the same camera twice, with
## `StrataBlockLibrary.create_default()` (16×16 textures) and `create_default(32)` (32×32). In a
## window of each face the 32 set must show finer detail: the mean absolute luma difference
## between neighbouring pixels is higher (more than `MIN_DETAIL_GAIN` times the 16 set's); and the
## same colour: the window's mean colour within ΔE `MAX_MEAN_DELTA_E` (CIE76, CIELAB from linear
## light, D65) of the 16 set's, so a world switching sets keeps its look. Then the ground about
## 100 m out, as far columns (which sample the textures' mipmapped mean colours), is drawn with
## both sets from one camera: its mean colour within the same ΔE. The frames are saved
## (`texture_set_16.png`, `texture_set_32.png`, `texture_set_far_16.png`,
## `texture_set_far_32.png`) and the figures printed (`TEXTURE_SET`).
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/texture_sets_shots.tscn -- --out-dir=/abs/dir
extends RenderedWorldCheck

const FRAME_SIZE := Vector2i(640, 360)
## The platform's top, this far over the ground of column (0, 0).
const PLATFORM_OVER_GROUND := 24
## The platform: stone where x < 0, grass where x >= 0, from -HALF_X to HALF_X - 1 and from
## -HALF_Z to HALF_Z - 1.
const HALF_X := 7
const HALF_Z := 5
## The camera, from the middle of the platform's top.
const EYE_OFFSET := Vector3(0.0, 1.8, 2.2)
## Where the windows are centred on the top face, from its middle, and their half size in pixels.
const STONE_AT := Vector3(-1.5, 0.0, -0.5)
const GRASS_AT := Vector3(1.5, 0.0, -0.5)
const WINDOW_HALF := Vector2i(70, 40)
## The 32 set's detail (mean neighbour luma difference) over the 16 set's must exceed this.
const MIN_DETAIL_GAIN := 1.25
## The largest ΔE between the sets' window means (the far-colour check's bound).
const MAX_MEAN_DELTA_E := 3.0
## The far look (as in far_colour_shots): the camera this high over the ground of
## `FAR_EYE_COLUMN`, looking at the ground of `FAR_TARGET_COLUMN`, 100 m ahead (far columns past
## view distance 2; the platform out of sight to the left), and the measured window's half size
## there.
const FAR_EYE_COLUMN := Vector2(56.0, 16.0)
const FAR_TARGET_COLUMN := Vector2(56.0, -84.0)
const FAR_EYE_OVER_GROUND := 30.0
const FAR_WINDOW_HALF := Vector2i(288, 16)

var _top := Vector3.ZERO


func _ready() -> void:
	open_frames("user://texture_sets_shots", FRAME_SIZE)
	var preset := RenderedChecks.bare_preset(3232)
	preset.trees_enabled = false
	world.preset = preset
	world.view_distance = 2
	world.far_view_levels = 0
	world.adaptive_far_view = false
	world.viewer = world.get_path_to(camera)
	day_night.frozen = true
	day_night.weather_cloud_cover = 0.0
	day_night.set_time_of_day(0.4)
	_run.call_deferred()


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var checks := RenderedChecks.new()
	var top_y := int(world.get_height(0.5, 0.5)) + PLATFORM_OVER_GROUND
	_top = Vector3(0.0, top_y + 1, 0.0)
	var stone := world.get_block_id("stone")
	var grass := world.get_block_id("grass")
	world.set_voxels_box(Vector3i(-HALF_X, top_y, -HALF_Z), Vector3i(-1, top_y, HALF_Z - 1), stone)
	world.set_voxels_box(
		Vector3i(0, top_y, -HALF_Z), Vector3i(HALF_X - 1, top_y, HALF_Z - 1), grass
	)
	camera.position = _top + EYE_OFFSET
	camera.look_at(_top + Vector3(0.0, 0.0, -1.0), Vector3.UP)
	world.block_library = StrataBlockLibrary.create_default()
	var small := await _frame("texture_set_16")
	var small_width := _texture_width()
	world.block_library = StrataBlockLibrary.create_default(32)
	var large := await _frame("texture_set_32")
	var large_width := _texture_width()
	checks.check("both frames were drawn", small != null and large != null)
	checks.check(
		(
			"the chunks sample 16 then 32 pixel wide texture arrays (%d, %d)"
			% [small_width, large_width]
		),
		small_width == 16 and large_width == 32
	)
	if small == null or large == null:
		checks.finish(get_tree())
		return
	for face: Array in [["stone", STONE_AT], ["grass", GRASS_AT]]:
		var window := _window(_top + Vector3(face[1]), WINDOW_HALF)
		var d16 := _detail(small, window)
		var d32 := _detail(large, window)
		var de := RenderedChecks.lab_distance(
			RenderedChecks.mean_linear(small, window), RenderedChecks.mean_linear(large, window)
		)
		print(
			(
				"TEXTURE_SET %s window=%s detail16=%.4f detail32=%.4f gain=%.2f mean_delta_e=%.2f"
				% [face[0], window, d16, d32, d32 / maxf(d16, 1e-6), de]
			)
		)
		checks.check("the %s window lies in the frame" % face[0], window.get_area() > 4000)
		checks.check("the 16 set's %s shows texture (detail %.4f)" % [face[0], d16], d16 > 0.005)
		checks.check(
			(
				"the 32 set's %s shows finer detail: %.4f > %.2f × %.4f"
				% [face[0], d32, MIN_DETAIL_GAIN, d16]
			),
			d32 > MIN_DETAIL_GAIN * d16
		)
		checks.check(
			"the %s keeps its colour: ΔE %.2f < %.1f" % [face[0], de, MAX_MEAN_DELTA_E],
			de < MAX_MEAN_DELTA_E
		)
	# The far look, the 32 set first (the world has it), then the 16 set.
	var eye := _on_ground(FAR_EYE_COLUMN) + Vector3(0.0, FAR_EYE_OVER_GROUND, 0.0)
	var target := _on_ground(FAR_TARGET_COLUMN)
	world.far_view_levels = 2
	camera.position = eye
	camera.look_at(target, Vector3.UP)
	var far_large := await _frame("texture_set_far_32", true)
	world.block_library = StrataBlockLibrary.create_default()
	var far_small := await _frame("texture_set_far_16", true)
	var far_window := _window(target, FAR_WINDOW_HALF)
	checks.check("both far frames were drawn", far_small != null and far_large != null)
	if far_small != null and far_large != null:
		var far_de := RenderedChecks.lab_distance(
			RenderedChecks.mean_linear(far_small, far_window),
			RenderedChecks.mean_linear(far_large, far_window)
		)
		print("TEXTURE_SET far window=%s mean_delta_e=%.2f" % [far_window, far_de])
		checks.check(
			"the far ground keeps its colour: ΔE %.2f < %.1f" % [far_de, MAX_MEAN_DELTA_E],
			far_de < MAX_MEAN_DELTA_E
		)
	checks.finish(get_tree())


## The world once its chunks (and with `far` the far view) are ready, drawn; null without
## rendering.
func _frame(tag: String, far := false) -> Image:
	for i in 3:
		await get_tree().process_frame
	await RenderedChecks.wait_ready(world, far)
	for i in 2:
		await RenderingServer.frame_post_draw
	return RenderedChecks.screenshot(get_viewport(), out_dir, tag)


## The top of the ground at column `c` (x, z).
func _on_ground(c: Vector2) -> Vector3:
	return Vector3(c.x, world.get_height(c.x, c.y), c.y)


## The width of the texture array the platform's chunk is drawn with (0: none found).
func _texture_width() -> int:
	var c := StrataChunkWorld.chunk_of(_top - Vector3(0.0, 1.0, 0.0))
	var node := world.get_node_or_null("chunk_%d_%d_%d" % [c.x, c.y, c.z]) as MeshInstance3D
	if node == null or node.mesh == null:
		return 0
	var mesh := node.mesh as ArrayMesh
	var surface := mesh.surface_find_by_name("opaque")
	var material := mesh.surface_get_material(surface) as ShaderMaterial if surface >= 0 else null
	if material == null:
		return 0
	var textures := material.get_shader_parameter("block_textures") as Texture2DArray
	return textures.get_width() if textures != null else 0


## The window of `half` either side of world point `p`'s place in the frame.
func _window(p: Vector3, half: Vector2i) -> Rect2i:
	var centre := Vector2i(camera.unproject_position(p))
	return Rect2i(centre - half, half * 2).intersection(Rect2i(Vector2i.ZERO, FRAME_SIZE))


## The mean absolute luma difference between each pixel of `r` and its right and lower
## neighbours: how much fine detail the window shows.
static func _detail(img: Image, r: Rect2i) -> float:
	var sum := 0.0
	var n := 0
	for y in range(r.position.y, r.end.y - 1):
		for x in range(r.position.x, r.end.x - 1):
			var here := RenderedChecks.luma(img.get_pixel(x, y))
			sum += absf(RenderedChecks.luma(img.get_pixel(x + 1, y)) - here)
			sum += absf(RenderedChecks.luma(img.get_pixel(x, y + 1)) - here)
			n += 2
	return sum / maxf(1.0, n)
