## Rendered check of the side view's floating origin (run under Xvfb, not headless): the same
## flat scene (grass on dirt, a few columns of blocks and a torch, StrataChunkWorld2D's light
## over it) drawn with its corner at the world's start and 10⁹ tiles out, and across an origin
## shift, must give the same frame:
##
## - with its corner at world tile (0, 0), the origin there, and again at (1e9, 0), the origin
##   there: the layer, its cells and the light sprites stand at the same place in the node space;
## - just before and just after an origin shift (`floating_origin` on, the camera's player past
##   `origin_shift_distance`, in `origin_shift_group`; the camera smooths): the layer moves
##   instead of its cells, and the camera keeps its picture;
## - the control: the camera one tile off must differ.
##
## The frames and the measured differences are saved and printed (`ORIGIN_DIFF`, `SHIFT_DIFF`).
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/origin_shots_2d.tscn -- --out-dir=/abs/dir
extends Node2D

## The far corner: 10⁹ tiles (a chunk corner: 1e9 = 64 · 15,625,000).
const FAR := 1_000_000_000
## The frames' size: small, as software rendering is slow (the window is made this size).
const FRAME_SIZE := Vector2i(640, 360)
## The share of 4 × 4 blocks allowed to differ (renderer noise), as the 3D check's.
const MAX_DIFFERING_SHARE := 0.002
const SHIFT_DISTANCE := 64.0
## The 3D check's frame comparison (pixels, and 4 × 4 blocks against renderer noise).
const OriginShots := preload("res://rendered/origin_shots.gd")

var out_dir := "user://origin_shots_2d"

@onready var world: StrataChunkWorld2D = $StrataChunkWorld2D
@onready var player: Node2D = $Player
@onready var camera: Camera2D = $Player/Camera2D


func _ready() -> void:
	out_dir = RenderedChecks.out_dir_arg(out_dir)
	get_window().size = FRAME_SIZE
	var preset := StrataWorldPreset.new()
	preset.seed = 9191
	preset.side_view_amplitude = 0.0
	preset.side_view_cave_mode = StrataWorldPreset.SIDE_VIEW_CAVE_MODE_NONE
	preset.side_view_water_enabled = false
	world.preset = preset
	world.view_distance = 1
	world.viewer = world.get_path_to(player)
	player.add_to_group(world.origin_shift_group)
	camera.make_current()
	_run.call_deferred()


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var checks := RenderedChecks.new()
	var near := await _scene_at(0, "origin_2d_near")
	var far := await _scene_at(FAR, "origin_2d_far")
	var origin_diff: Array[float] = OriginShots.frame_difference(near, far)
	_print_difference("ORIGIN_DIFF", origin_diff, "the side view at 0 against 1e9")
	# Just before and just after a shift: the player past the shift distance with the origin
	# off, a frame; then on, and the world shifts in its next frame, before drawing it.
	world.set_origin(Vector2i(FAR, 0))
	world.origin_shift_distance = SHIFT_DISTANCE
	_build(FAR + 64)
	player.position = world.tile_to_local(Vector2i(FAR + 64 + 14, _ground() - 4))
	camera.reset_smoothing()
	await _wait_ready("shift_2d")
	var before := await _shot("shift_2d_before")
	var shifts: Array[Vector2i] = []
	world.origin_shifted.connect(func(s: Vector2i) -> void: shifts.append(s))
	world.floating_origin = true
	var after := await _shot("shift_2d_after")
	var shift_diff: Array[float] = OriginShots.frame_difference(before, after)
	_print_difference("SHIFT_DIFF", shift_diff, "shift %s" % [shifts])
	player.position.x += 16.0
	camera.reset_smoothing()
	var control := await _shot("shift_2d_control_one_tile")
	var control_diff: Array[float] = OriginShots.frame_difference(before, control)
	_print_difference("CONTROL_DIFF", control_diff, "the camera one tile off")
	var allowed := "< %.1f %% of 4 × 4 blocks differ" % (MAX_DIFFERING_SHARE * 100.0)
	checks.check("every frame was drawn", near != null and far != null and after != null)
	checks.check(
		"the side view at 1e9 tiles draws as at the origin (%s)" % allowed,
		origin_diff[3] < MAX_DIFFERING_SHARE
	)
	checks.check(
		"the origin shifted once, by a chunk", shifts == ([Vector2i(64, 0)] as Array[Vector2i])
	)
	checks.check(
		"the frames just before and after the shift match (%s)" % allowed,
		shift_diff[3] < MAX_DIFFERING_SHARE
	)
	checks.check(
		"the check sees a camera one tile off (5× more blocks differ than it allows)",
		control_diff[3] > MAX_DIFFERING_SHARE * 5.0
	)
	checks.finish(get_tree())


## The flat ground's top row (the same in every column).
func _ground() -> int:
	return world.get_generated_surface_rows(0, 1)[0]


## The scene with its corner at world tile (`x`, 0), the origin moved there first; its frame.
func _scene_at(x: int, tag: String) -> Image:
	world.set_origin(Vector2i(x, 0))
	_build(x)
	player.position = world.tile_to_local(Vector2i(x + 14, _ground() - 4))
	camera.reset_smoothing()
	await _wait_ready(tag)
	print("%s: origin %s, player at %s" % [tag, world.get_origin(), player.position])
	return await _shot(tag)


## Columns of stone, planks, glass and logs and a torch on the ground right of tile `x`.
func _build(x: int) -> void:
	var g := _ground()
	var blocks: Array[String] = ["stone", "planks", "glass", "log"]
	for i in blocks.size():
		var at := Vector2i(x + 6 + 3 * i, g - 1)
		world.set_tiles_rect(at - Vector2i(0, 1 + i), at, world.get_block_id(blocks[i]))
	world.set_tile(Vector2i(x + 20, g - 1), world.get_block_id("torch"))


func _wait_ready(tag: String) -> void:
	var t := Time.get_ticks_msec()
	for i in 3:
		await get_tree().process_frame
	while not world.is_area_ready():
		await get_tree().process_frame
	print("%s ready in %d ms" % [tag, Time.get_ticks_msec() - t])


static func _print_difference(label: String, d: Array[float], what: String) -> void:
	print(
		(
			"%s pixels: share=%.5f mean=%.5f max=%.4f; 4 × 4 blocks: share=%.5f (%s)"
			% [label, d[0], d[1], d[2], d[3], what]
		)
	)


## The frame, the second drawn from now (the first may still show the last change).
func _shot(tag: String) -> Image:
	for i in 2:
		await RenderingServer.frame_post_draw
	return RenderedChecks.screenshot(get_viewport(), out_dir, tag)
