## StrataNoise in real headless Godot: every noise of the generator from a script, the values
## the core computes (pinned by the core's test
## `noise::sampler::tests::pinned_values_for_the_godot_suite`), the dimensions each noise has,
## images and clear errors.
extends StrataTestCase

## The core's simplex fBm (seed 1234, frequency 1/64, 5 octaves, persistence 0.5, lacunarity 2,
## r² = 0.5) at (10.5, -20.25) and (10.5, -20.25, 3), as `sampler.rs` pins them.
const PINNED_SIMPLEX_2D := -0.22880840649640877
const PINNED_SIMPLEX_3D := 0.5243522671812351

## Noise types, in the order of the `noise_type` enum.
const TYPES := ["Value", "Perlin", "Simplex", "OpenSimplex", "Worley", "Ridged"]
## The dimensions of get_noise_nd each type has.
const DIMENSIONS := [[2], [2, 3, 4], [2, 3, 4, 5], [2, 3, 4], [2], [2, 3, 4]]


func _noise(type: int) -> StrataNoise:
	var n := StrataNoise.new()
	n.noise_type = type
	n.seed = 1234
	return n


func test_values_are_the_cores() -> void:
	var n := _noise(2)
	assert_eq(n.frequency, 1.0 / 64.0, "default frequency")
	assert_eq(n.fractal_octaves, 5, "default octaves")
	assert_eq(
		n.get_noise_2d(10.5, -20.25), PINNED_SIMPLEX_2D, "simplex 2D is the core's, bit for bit"
	)
	assert_eq(n.get_noise_3d(10.5, -20.25, 3.0), PINNED_SIMPLEX_3D, "simplex 3D is the core's")
	assert_eq(
		n.get_noise_nd(PackedFloat64Array([10.5, -20.25])), PINNED_SIMPLEX_2D, "nd with two is 2D"
	)
	assert_eq(n.get_noise_1d(10.5), n.get_noise_2d(10.5, 0.0), "1D reads 2D along y = 0")


func test_every_type_answers_its_dimensions_in_range() -> void:
	for t in TYPES.size():
		var n := _noise(t)
		var values := {}
		for i in 40:
			var x := i * 7.31 - 100.0
			var v := n.get_noise_2d(x, i * -3.7)
			assert_true(v >= -1.5 and v <= 1.5, "%s 2D in range: %f" % [TYPES[t], v])
			values[v] = true
			assert_eq(n.get_noise_2d(x, i * -3.7), v, "%s is deterministic" % TYPES[t])
		assert_gt(values.size(), 20, "%s varies" % TYPES[t])
		for d in range(2, 6):
			var p := PackedFloat64Array()
			for i in d:
				p.append(3.25 * i - 1.5)
			n.clear_error()
			n.get_noise_nd(p)
			if d in DIMENSIONS[t]:
				assert_eq(n.last_error(), "", "%s %dD" % [TYPES[t], d])
			else:
				var e := n.last_error()
				assert_true(e.contains("has no %dD" % d) and e.contains("allowed"), e)


func test_simplex_has_five_dimensions_and_seeds_differ() -> void:
	var a := _noise(2)
	var b := _noise(2)
	b.seed = 1235
	var differ := 0
	for i in 50:
		var p := PackedFloat64Array([i * 1.7, -i * 0.3, 2.0, i * 0.11, 5.5])
		var v := a.get_noise_nd(p)
		assert_true(v >= -1.0 and v <= 1.0, "5D simplex in [-1, 1]: %f" % v)
		if v != b.get_noise_nd(p):
			differ += 1
	assert_gt(differ, 45, "another seed, another noise")
	assert_eq(a.last_error(), "", "5D is allowed for simplex")


func test_radius_is_exactly_half_or_six_tenths() -> void:
	var n := _noise(2)
	var half := n.get_noise_2d(3.3, 4.4)
	n.simplex_radius_squared = 0.6
	assert_eq(n.simplex_radius_squared, 0.6)
	assert_ne(n.get_noise_2d(3.3, 4.4), half, "r² changes the noise")
	n.simplex_radius_squared = 0.55
	assert_eq(n.simplex_radius_squared, 0.6, "0.55 is refused and 0.6 kept")
	assert_true(n.last_error().contains("allowed: exactly 0.5 or 0.6"), n.last_error())


func test_bad_points_and_images_say_what_is_allowed() -> void:
	var n := _noise(1)
	for length in [0, 1, 6, 9]:
		var p := PackedFloat64Array()
		p.resize(length)
		n.clear_error()
		assert_eq(n.get_noise_nd(p), 0.0, "%d coordinates" % length)
		var e := n.last_error()
		assert_true(e.contains("%d coordinates" % length) and e.contains("allowed: 2 to 5"), e)
	n.clear_error()
	assert_eq(n.get_noise_2d(NAN, 1.0), 0.0, "NaN")
	assert_true(n.last_error().contains("allowed: a finite number"), n.last_error())
	for size: Vector2i in [
		Vector2i(0, 4), Vector2i(4, -1), Vector2i(5000, 2), Vector2i(2, 1 << 40)
	]:
		n.clear_error()
		assert_eq(n.get_image(size.x, size.y), null, "image %s" % size)
		assert_true(n.last_error().contains("allowed: each edge 1 to 4096"), n.last_error())


func test_image_is_the_2d_noise() -> void:
	var n := _noise(2)
	n.frequency = 0.05
	var img := n.get_image(32, 16)
	assert_true(img != null, "image")
	assert_eq(img.get_size(), Vector2i(32, 16))
	assert_eq(img.get_format(), Image.FORMAT_L8)
	for p: Vector2i in [Vector2i(0, 0), Vector2i(5, 9), Vector2i(31, 15)]:
		var v := n.get_noise_2d(p.x, p.y)
		assert_near(img.get_pixel(p.x, p.y).r, (v + 1.0) * 0.5, 1.0 / 255.0, "pixel %s" % p)


func test_value_noise_interpolations_and_settings_clamp() -> void:
	var n := _noise(0)
	n.value_interpolation = StrataNoise.VALUE_INTERPOLATION_LINEAR
	var linear := n.get_noise_1d(10.3)
	n.value_interpolation = StrataNoise.VALUE_INTERPOLATION_COSINE
	assert_ne(n.get_noise_1d(10.3), linear, "cosine differs from linear")
	n.fractal_octaves = 99
	assert_eq(n.fractal_octaves, 12, "octaves clamp to 12")
	n.frequency = -1.0
	assert_gt(n.frequency, 0.0, "frequency clamps above 0")
	n.seed = -5
	assert_eq(n.seed, 0, "seed clamps to 0")
	n.fractal_persistence = NAN
	assert_eq(n.fractal_persistence, 0.5, "NaN keeps the old persistence")
	n.noise_type = 17
	assert_eq(n.noise_type, StrataNoise.NOISE_TYPE_RIDGED, "noise_type clamps to the last type")
