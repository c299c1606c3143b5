## Rendered light check (run under Xvfb, not headless): the baked sky and block light and the
## sun's shadows, in real frames. Renders a sunset over mountains looking into the sun (shadows
## to the horizon), noon and midnight over the same ground with torches placed on it, and a
## sealed cave room dug under the ground, first dark, then lit by torches. Saves every frame and
## checks: the sealed room is black without a torch (law: caves are dark without light), a torch
## lights it, and torches stand out at night; the debug view draws its lines over the ground.
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/light_shots.tscn -- --out-dir=/abs/dir
extends Node3D

const ROOM_HALF := 4
const ROOM_HEIGHT := 4

var out_dir := "user://light_shots"
## The frame `_shot` took last.
var _last_frame: Image

@onready var world: StrataChunkWorld = $StrataChunkWorld
@onready var camera: Camera3D = $Camera3D
@onready var day_night: DayNight = $DayNight


func _ready() -> void:
	out_dir = RenderedChecks.out_dir_arg(out_dir)
	var preset := GameState.make_preset(GameState.DEFAULT_PRESET, -1)
	world.preset = preset
	world.view_distance = 4
	world.vertical_view_distance = 3
	world.far_view_levels = 3
	# Fixed levels: under llvmpipe frames are slow, and the adaptive far view would drop levels.
	world.adaptive_far_view = false
	day_night.frozen = true
	day_night.shadow_distance = 2048.0
	_run.call_deferred()


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var checks := RenderedChecks.new()
	# Sunset: the sun low in the west (-x). From a mountain's eastern flank, looking north-east
	# over the land below (thin fog, to see far), the shadows of the mountain and of every ridge
	# run east across the ground at every distance.
	var peak := RenderedChecks.find_mountain(world)
	var x := int(peak.x) + 40
	var z := int(peak.y)
	camera.position = Vector3(x, world.get_height(x, z) + 30.0, z)
	camera.look_at(camera.position + Vector3(1.0, -0.35, 0.6), Vector3.UP)
	day_night.clear_fog_density = 0.0004
	print("SUNSET_VIEW from %s, peak %s" % [camera.position, peak])
	await RenderedChecks.wait_ready(world, true)
	var sunset := await _shot(0.735, "sunset")
	day_night.clear_fog_density = 0.002
	# Noon and midnight over the same ground, with three torches on it.
	var gx := 24
	var gz := 16
	var ground := int(world.get_height(gx, gz))
	var torch := world.get_block_id("torch")
	var torches: Array[Vector3i] = []
	for offset: Vector3i in [Vector3i(0, 0, 0), Vector3i(6, 0, 3), Vector3i(-5, 0, 5)]:
		var cx := gx + offset.x
		var cz := gz + offset.z
		torches.append(Vector3i(cx, _top_of(cx, cz), cz))
	for at in torches:
		world.set_voxel(at, torch)
	camera.position = Vector3(gx + 0.5, ground + 6.0, gz - 12.0)
	camera.look_at(Vector3(gx + 0.5, ground, gz + 2.0), Vector3.UP)
	await RenderedChecks.wait_ready(world)
	var noon := await _shot(0.5, "torches_noon")
	var noon_frame := _last_frame
	# The debug view over the same ground: chunk bounds and the collision wireframe.
	world.debug_view = true
	for i in 20:
		await get_tree().process_frame
	await _shot(0.5, "debug_view")
	var debug_lines := RenderedChecks.debug_line_share(_last_frame, noon_frame)
	var no_lines := RenderedChecks.debug_line_share(noon_frame, noon_frame)
	world.debug_view = false
	var midnight := await _shot(0.0, "torches_midnight")
	for at in torches:
		world.set_voxel(at, 0)
	await RenderedChecks.wait_ready(world)
	var unlit_midnight := await _shot(0.0, "no_torches_midnight")
	# A sealed room 30 voxels under the ground: dark, then lit by torches on its floor.
	var rx := -40
	var rz := 30
	var floor_y := int(world.get_height(rx, rz)) - 30
	var stone := world.get_block_id("stone")
	for dy in range(-1, ROOM_HEIGHT + 1):
		for dz in range(-ROOM_HALF - 1, ROOM_HALF + 2):
			for dx in range(-ROOM_HALF - 1, ROOM_HALF + 2):
				var inside := (
					dy >= 0 and dy < ROOM_HEIGHT and absi(dx) <= ROOM_HALF and absi(dz) <= ROOM_HALF
				)
				world.set_voxel(Vector3i(rx + dx, floor_y + dy, rz + dz), 0 if inside else stone)
	camera.position = Vector3(rx + 0.5, floor_y + 2.5, rz - ROOM_HALF + 0.6)
	camera.look_at(Vector3(rx + 0.5, floor_y + 0.5, rz + ROOM_HALF), Vector3.UP)
	await RenderedChecks.wait_ready(world)
	var dark := await _shot(0.5, "cave_dark")
	for offset: Vector3i in [Vector3i(-2, 0, 2), Vector3i(3, 0, 3), Vector3i(0, 0, -1)]:
		world.set_voxel(Vector3i(rx + offset.x, floor_y, rz + offset.z), torch)
	await RenderedChecks.wait_ready(world)
	var lit := await _shot(0.5, "cave_torches")
	print("SUNSET_BRIGHTNESS=%.4f" % sunset)
	print("TORCHES_NOON=%.4f MIDNIGHT=%.4f WITHOUT_TORCHES=%.4f" % [noon, midnight, unlit_midnight])
	print("CAVE_DARK=%.4f CAVE_TORCHES=%.4f" % [dark, lit])
	print("DEBUG_VIEW_LINES=%.4f (share of the frame the lines changed)" % debug_lines)
	checks.check("every view was ready", world.is_area_ready())
	checks.check(
		"a sealed room without light is black (mean luma < 0.03)", dark >= 0.0 and dark < 0.03
	)
	checks.check("torches light the room (3× brighter and > 0.08)", lit > 0.08 and lit > dark * 3.0)
	checks.check("midnight is darker than noon", midnight < noon * 0.5)
	var debug_check := "the debug view draws its lines (> 2 % of the frame changed by them)"
	checks.check(debug_check, debug_lines > 0.02 and no_lines == 0.0)
	checks.check(
		"torches light the ground at midnight (frame 1.3× brighter than without)",
		midnight > unlit_midnight * 1.3
	)
	checks.finish(get_tree())


## The y of the first open voxel above the ground in column (x, z).
func _top_of(x: int, z: int) -> int:
	var y := int(world.get_height(x, z)) + 8
	while y > -64 and world.get_voxel(Vector3i(x, y - 1, z)) == 0:
		y -= 1
	return y


func _shot(t: float, tag: String) -> float:
	# The air around the camera holds as much of the sky's light as the camera's voxel.
	day_night.fog_shade = DayNight.sky_share(world.get_sky_light(Vector3i(camera.position.floor())))
	day_night.set_time_of_day(t)
	world.daylight = day_night.get_daylight()
	for i in 4:
		await RenderingServer.frame_post_draw
	var img := RenderedChecks.screenshot(get_viewport(), out_dir, tag)
	_last_frame = img if img != null else Image.create(1, 1, false, Image.FORMAT_RGB8)
	return -1.0 if img == null else RenderedChecks.mean_luma(img)
