## Screenshot of the main menu (run under Xvfb): `-- --out=/abs/file.png [--settings]`
## (`--settings` opens the settings menu over it).
extends Node

func _ready() -> void:
	var out := "user://main_menu.png"
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with("--out="):
			out = arg.substr(6)
	var menu: Control = load("res://game/main_menu.tscn").instantiate()
	add_child(menu)
	if "--settings" in OS.get_cmdline_user_args():
		await get_tree().process_frame
		menu.call("_open_settings")
	for i in 20:
		await get_tree().process_frame
	await RenderingServer.frame_post_draw
	get_viewport().get_texture().get_image().save_png(out)
	print("screenshot: " + out)
	get_tree().quit()
