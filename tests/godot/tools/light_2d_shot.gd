## Rendered frame of the side view's light (run under Xvfb, not headless): a sealed cave room dug
## 40 tiles under the ground, lit by one torch, beside a shaft that lets the sky down into a
## second room, at `daylight` 1 and 0.2. Saves `light_2d_day.png` and `light_2d_night.png`.
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://tools/light_2d_shot.tscn -- --out-dir=/abs/dir
extends Node2D

var out_dir := "user://light_2d_shot"


func _ready() -> void:
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--out-dir="):
			out_dir = arg.substr(10)
	_run.call_deferred()


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var world := StrataChunkWorld2D.new()
	var preset := StrataWorldPreset.new()
	preset.seed = 11
	world.preset = preset
	world.view_distance = 1
	add_child(world)
	var camera := Camera2D.new()
	add_child(camera)
	world.viewer = world.get_path_to(camera)
	var surface := world.local_to_tile(Vector2(8, world.get_surface_height(8) + 1))
	var stone := world.get_block_id("stone")
	# Two rooms 24 × 8 tiles, 30 tiles under the ground, side by side with a wall between.
	for room in 2:
		var corner := surface + Vector2i(-30 + room * 30, 30)
		for y in range(corner.y - 1, corner.y + 9):
			for x in range(corner.x - 1, corner.x + 25):
				var inside := (
					y >= corner.y and y < corner.y + 8 and x >= corner.x and x < corner.x + 24
				)
				world.set_tile(Vector2i(x, y), 0 if inside else stone)
	world.set_tile(surface + Vector2i(-18, 37), world.get_block_id("torch"))
	for y in range(surface.y, surface.y + 31):
		world.set_tile(Vector2i(surface.x + 12, y), 0)
	camera.position = world.tile_to_local(surface + Vector2i(0, 22))
	camera.zoom = Vector2(1.2, 1.2)
	while not world.is_area_ready():
		await get_tree().process_frame
	var shots: Dictionary[String, float] = {"light_2d_day.png": 1.0, "light_2d_night.png": 0.2}
	for file: String in shots:
		world.daylight = shots[file]
		for i in 4:
			await RenderingServer.frame_post_draw
		var img := get_viewport().get_texture().get_image()
		var path := out_dir.path_join(file)
		print("saved %s: %s" % [path, error_string(img.save_png(path))])
	get_tree().quit()
