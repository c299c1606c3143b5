## Pixel statistics of rendered frames for the sky and water checks: the share of cloud pixels
## in a region, the spread of its brightness, how colourful it is, the stars (isolated bright
## pixels) in a dark sky, and the mean colour around a point. Regions are `Rect2i`s in pixels;
## the counting functions skip pixels within `exclude_radius` of `exclude` (the sun's or the
## moon's disc).
extends RefCounted

## A cloud pixel: bright and grey-white (little spread between its channels), where the clear
## sky is clearly blue.
const CLOUD_LUMA := 0.55
const CLOUD_SPREAD := 0.16
## A star: brighter than this, and than the mean of its ring of neighbours by STAR_CONTRAST.
const STAR_LUMA := 0.16
const STAR_CONTRAST := 0.08


## The share of pixels (every 2nd row and column) of `rect` that are cloud.
static func cloud_fraction(
	img: Image, rect: Rect2i, exclude := Vector2i(-1000, -1000), exclude_radius := 0
) -> float:
	var clouds := 0
	var n := 0
	for y in range(rect.position.y, rect.end.y, 2):
		for x in range(rect.position.x, rect.end.x, 2):
			if Vector2i(x, y).distance_to(exclude) < exclude_radius:
				continue
			var c := img.get_pixel(x, y)
			var spread := maxf(c.r, maxf(c.g, c.b)) - minf(c.r, minf(c.g, c.b))
			if RenderedChecks.luma(c) > CLOUD_LUMA and spread < CLOUD_SPREAD:
				clouds += 1
			n += 1
	return float(clouds) / maxf(1.0, n)


## The mean spread between the strongest and the weakest channel over `rect` (every 2nd row
## and column): 0 for greys, high for a saturated colour.
static func mean_saturation(img: Image, rect: Rect2i) -> float:
	var sum := 0.0
	var n := 0
	for y in range(rect.position.y, rect.end.y, 2):
		for x in range(rect.position.x, rect.end.x, 2):
			var c := img.get_pixel(x, y)
			sum += maxf(c.r, maxf(c.g, c.b)) - minf(c.r, minf(c.g, c.b))
			n += 1
	return sum / maxf(1.0, n)


## The standard deviation of luma over `rect` (every 2nd row and column).
static func luma_spread(img: Image, rect: Rect2i) -> float:
	var sum := 0.0
	var sum_sq := 0.0
	var n := 0
	for y in range(rect.position.y, rect.end.y, 2):
		for x in range(rect.position.x, rect.end.x, 2):
			var l := RenderedChecks.luma(img.get_pixel(x, y))
			sum += l
			sum_sq += l * l
			n += 1
	var mean := sum / maxf(1.0, n)
	return sqrt(maxf(sum_sq / maxf(1.0, n) - mean * mean, 0.0))


## The stars in `rect`: pixels brighter than STAR_LUMA and than their ring of neighbours (3
## pixels away) by STAR_CONTRAST, each star counted once (its brightest pixel's 3×3 block).
static func count_stars(
	img: Image, rect: Rect2i, exclude := Vector2i(-1000, -1000), exclude_radius := 0
) -> int:
	var stars := 0
	var r := 3
	for y in range(rect.position.y + r, rect.end.y - r):
		for x in range(rect.position.x + r, rect.end.x - r):
			var l := RenderedChecks.luma(img.get_pixel(x, y))
			if l < STAR_LUMA or Vector2i(x, y).distance_to(exclude) < exclude_radius:
				continue
			if not _is_local_peak(img, x, y, l):
				continue
			var ring := 0.0
			for d: Vector2i in [
				Vector2i(r, 0),
				Vector2i(-r, 0),
				Vector2i(0, r),
				Vector2i(0, -r),
				Vector2i(r, r),
				Vector2i(-r, -r),
				Vector2i(r, -r),
				Vector2i(-r, r)
			]:
				ring += RenderedChecks.luma(img.get_pixel(x + d.x, y + d.y))
			if l > ring / 8.0 + STAR_CONTRAST:
				stars += 1
	return stars


## Whether (x, y), of luma `l`, is the brightest of its 3×3 block (ties: the first in reading
## order wins).
static func _is_local_peak(img: Image, x: int, y: int, l: float) -> bool:
	for dy in range(-1, 2):
		for dx in range(-1, 2):
			if dx == 0 and dy == 0:
				continue
			var other := RenderedChecks.luma(img.get_pixel(x + dx, y + dy))
			var before := dy < 0 or (dy == 0 and dx < 0)
			if other > l or (other == l and before):
				return false
	return true


## The mean colour of the pixels within `radius` of `at` (clipped to the image).
static func mean_color(img: Image, at: Vector2i, radius: int) -> Color:
	var sum := Color(0, 0, 0, 0)
	var n := 0
	for y in range(at.y - radius, at.y + radius + 1):
		for x in range(at.x - radius, at.x + radius + 1):
			if x < 0 or y < 0 or x >= img.get_width() or y >= img.get_height():
				continue
			sum += img.get_pixel(x, y)
			n += 1
	return sum / maxf(1.0, n)
