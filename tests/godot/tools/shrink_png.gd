## Shrinks PNG screenshots for the docs:
## `godot --headless --path tests/godot -s res://tools/shrink_png.gd -- --width=640 IN.png OUT.png`
## (more IN/OUT pairs may follow).
extends SceneTree


func _initialize() -> void:
	var width := 640
	var files: PackedStringArray = []
	for a in OS.get_cmdline_user_args():
		if a.begins_with("--width="):
			width = int(a.substr(8))
		else:
			files.append(a)
	for i in range(0, files.size() - 1, 2):
		var img := Image.load_from_file(files[i])
		if img == null or img.is_empty():
			printerr("cannot read " + files[i])
			continue
		var h := int(round(img.get_height() * width / float(img.get_width())))
		img.resize(width, h, Image.INTERPOLATE_LANCZOS)
		img.save_png(files[i + 1])
		print("%s -> %s (%dx%d)" % [files[i], files[i + 1], width, h])
	quit()
