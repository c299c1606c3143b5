## Renders the Getting started page's picture: the minimal scene the page builds (a
## `StrataChunkWorld` with a new `StrataWorldPreset`, a `Camera3D` at (0, 60, 0) looking down a
## little), once the area is ready. Run under Xvfb, from the repository root:
## `cargo xtask godot --xvfb -- --path tests/godot -s res://tools/getting_started_shot.gd --
## --out=PATH`
extends SceneTree


func _initialize() -> void:
	_shoot.call_deferred()


func _shoot() -> void:
	var out := "user://getting_started_game.png"
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--out="):
			out = arg.substr(6)
	var scene := Node3D.new()
	var world := StrataChunkWorld.new()
	world.preset = StrataWorldPreset.new()
	scene.add_child(world)
	var camera := Camera3D.new()
	camera.position = Vector3(0, 60, 0)
	camera.rotation_degrees = Vector3(-20, -30, 0)
	scene.add_child(camera)
	var sun := DirectionalLight3D.new()
	sun.rotation_degrees = Vector3(-50, 30, 0)
	scene.add_child(sun)
	root.add_child(scene)
	camera.make_current()
	var start := Time.get_ticks_msec()
	while not world.is_area_ready() and Time.get_ticks_msec() - start < 120000:
		await process_frame
	for i in 30:
		await process_frame
	var image := root.get_texture().get_image()
	var err := image.save_png(out)
	var ready := world.is_area_ready()
	print("getting started shot: %s (%s, area ready: %s)" % [out, error_string(err), ready])
	quit(0 if err == OK else 1)
