## A small top-down height map of a preset around the origin, for presets that ship no preview
## image: water below sea level, then sand, grass, rock and snow by height.
class_name PresetPreview
extends RefCounted

const SIZE := Vector2i(96, 72)
## Voxels between two pixels.
const STRIDE := 6
## A slow build stops after this long and shows what it has.
const BUDGET_MS := 1500
const NO_SEA := -100000


static func render(preset: WorldPreset) -> Texture2D:
	var world := ChunkWorld.new()
	world.preset = preset
	var sea := int(preset.water_sea_level) if bool(preset.water_enabled) else NO_SEA
	var img := Image.create(SIZE.x, SIZE.y, false, Image.FORMAT_RGB8)
	var started := Time.get_ticks_msec()
	for y in SIZE.y:
		for x in SIZE.x:
			var h := world.get_height((x - SIZE.x / 2) * STRIDE, (y - SIZE.y / 2) * STRIDE)
			img.set_pixel(x, y, _color(h, sea))
		if Time.get_ticks_msec() - started > BUDGET_MS:
			break
	world.free()
	return ImageTexture.create_from_image(img)


static func _color(h: float, sea: int) -> Color:
	if h < sea:
		var deep := clampf((sea - h) / 40.0, 0.0, 1.0)
		return Color(0.15, 0.35, 0.7).lerp(Color(0.05, 0.12, 0.35), deep)
	if h < sea + 2:
		return Color(0.85, 0.8, 0.55)
	if h < sea + 40:
		return Color(0.3, 0.6, 0.25).lerp(Color(0.2, 0.42, 0.18), (h - sea) / 40.0)
	if h < sea + 90:
		return Color(0.45, 0.43, 0.42)
	return Color(0.95, 0.95, 0.97)
