## Rendered frame of the 2D demo's life (run under Xvfb, not headless): the demo scene streams
## its world, its spawn rules start critters on the surface, cave crawlers on cave floors and
## chests in caves and buried rooms; three close-ups are taken, side by side in one picture: a
## critter on the ground by day, a cave crawler and a chest each lit by torches placed beside it
## (caves are dark until lit). Each shot's creature stands still for it (its walking turned off).
## The picture goes to `--out-dir` as `side_view_creatures.png` (docs/images/ keeps a copy).
##
##   xvfb-run -a -s "-screen 0 1280x720x24" godot --rendering-driver opengl3 --path tests/godot \
##       res://rendered/creature_shots_2d.tscn -- --out-dir=/abs/dir
extends Node2D

## One close-up's size (the window is made this size).
const SHOT_SIZE := Vector2i(480, 300)
const ZOOM := 2.5

var out_dir := "user://creature_shots_2d"
var _scene: Node2D
var _world: StrataChunkWorld2D
var _player: CharacterBody2D


func _ready() -> void:
	out_dir = RenderedChecks.out_dir_arg(out_dir)
	get_window().size = SHOT_SIZE
	_scene = load("res://demo2d/side_view.tscn").instantiate()
	add_child(_scene)
	_world = _scene.get_node("World")
	_player = _scene.get_node("Player")
	(_scene.get_node("Hud") as CanvasLayer).visible = false
	_run.call_deferred()


func _run() -> void:
	DirAccess.make_dir_recursive_absolute(out_dir)
	var found := await _wait_for_life()
	if found.is_empty():
		push_error("creature_shots_2d: the demo's creatures and chests did not all appear")
		get_tree().quit(1)
		return
	var shots: Array[Image] = []
	shots.append(await _close_up(found["critter_2d.tscn"], false))
	shots.append(await _close_up(found["cave_crawler_2d.tscn"], true))
	shots.append(await _close_up(found["chest_2d.tscn"], true))
	var picture := Image.create(SHOT_SIZE.x * shots.size(), SHOT_SIZE.y, false, Image.FORMAT_RGBA8)
	for i in shots.size():
		shots[i].convert(Image.FORMAT_RGBA8)
		picture.blit_rect(shots[i], Rect2i(Vector2i.ZERO, SHOT_SIZE), Vector2i(SHOT_SIZE.x * i, 0))
	var path := out_dir.path_join("side_view_creatures.png")
	var err := picture.save_png(path)
	print("CREATURES %s (%s)" % [path, error_string(err)])
	get_tree().quit(0 if err == OK else 1)


## Waits until the demo's character stands in its world and at least one of each kind of life
## is in it: kind (scene file) → the one nearest the character.
func _wait_for_life() -> Dictionary:
	var kinds: Array[String] = ["critter_2d.tscn", "cave_crawler_2d.tscn", "chest_2d.tscn"]
	for i in 3000:
		await get_tree().process_frame
		if not bool(_scene.get("_spawned")):
			continue
		var nearest := {}
		for e in _world.get_entities_in(Rect2(-1e9, -1e9, 2e9, 2e9)):
			var k := e.scene_file_path.get_file()
			var best: Node2D = nearest.get(k)
			var d := e.position.distance_to(_player.position)
			if k in kinds and (best == null or d < best.position.distance_to(_player.position)):
				nearest[k] = e
		if nearest.size() == kinds.size():
			return nearest
	return {}


## A shot of `subject` with the character two tiles left of it; `lit`: a torch on a floor tile
## on each side of it first.
func _close_up(subject: Node2D, lit: bool) -> Image:
	if subject is Walker2D:
		subject.set_physics_process(false)
	var at := _world.local_to_tile(subject.position - Vector2(0, 4))
	if lit:
		var torch := _world.get_block_id("torch")
		for side: int in [-1, 1]:
			for step: int in [2, 1, 3]:
				var t := at + Vector2i(side * step, 0)
				if _world.get_tile(t) == 0 and _world.get_tile(t + Vector2i(0, 1)) != 0:
					_world.set_tile(t, torch)
					break
	_player.set_physics_process(false)
	_player.velocity = Vector2.ZERO
	_player.position = subject.position + Vector2(-40, -13)
	var camera := _player.get_node("Camera") as Camera2D
	camera.zoom = Vector2(ZOOM, ZOOM)
	camera.position = Vector2(40, 0)
	camera.reset_smoothing()
	for i in 600:
		await get_tree().process_frame
		if _world.is_area_ready() and i > 30:
			break
	camera.reset_smoothing()
	for i in 3:
		await RenderingServer.frame_post_draw
	return get_viewport().get_texture().get_image()
