## The game's one place for converting between node positions and world coordinates. The game's
## `StrataChunkWorld` has a floating origin: its nodes (and the player, in the world's
## `origin_shift_group`) stand at world − `get_origin()`, so a global position is not a world
## position. World voxels (`Vector3i`) go to `get_voxel`/`set_voxel`; world columns (64-bit
## floats) go to `get_height`/`get_biome`; a world position is kept as three 64-bit floats,
## exact anywhere within the world's bounds (a `Vector3` holds 32-bit floats).
##
## Every function takes global positions and works for a world node anywhere in the scene (the
## game's stands at the scene's origin, where global and the world's node space agree).
class_name WorldCoords
extends RefCounted


## The world position of global point `p`: [x, y, z] as 64-bit floats (the origin plus the
## point in the world's node space; exact).
static func world_position(world: StrataChunkWorld, p: Vector3) -> PackedFloat64Array:
	var local := world.to_local(p)
	var o := world.get_origin()
	return PackedFloat64Array([float(o.x) + local.x, float(o.y) + local.y, float(o.z) + local.z])


## The global point of world position `w` ([x, y, z]): exact within 2²⁴ voxels of the origin,
## which is everything near the player.
static func to_global(world: StrataChunkWorld, w: PackedFloat64Array) -> Vector3:
	var o := world.get_origin()
	return world.to_global(Vector3(w[0] - float(o.x), w[1] - float(o.y), w[2] - float(o.z)))


## The world voxel that global point `p` lies in.
static func voxel_at(world: StrataChunkWorld, p: Vector3) -> Vector3i:
	return world.local_to_voxel(world.to_local(p))


## The least corner of world voxel `v` as a global point.
static func voxel_corner(world: StrataChunkWorld, v: Vector3i) -> Vector3:
	return world.to_global(world.voxel_to_local(v))


## The centre of world voxel `v` as a global point.
static func voxel_center(world: StrataChunkWorld, v: Vector3i) -> Vector3:
	return world.to_global(world.voxel_to_local(v) + Vector3(0.5, 0.5, 0.5))


## The world y of the ground's top face in the column of global point `p`.
static func height_at(world: StrataChunkWorld, p: Vector3) -> float:
	var w := world_position(world, p)
	return world.get_height(w[0], w[2])


## The ground's top in the column of global point `p`, as a global y (to compare with `p.y`).
static func ground_y(world: StrataChunkWorld, p: Vector3) -> float:
	var o := world.get_origin()
	var local := world.to_local(p)
	var top := height_at(world, p) - float(o.y)
	return world.to_global(Vector3(local.x, top, local.z)).y


## The biome in the column of global point `p`.
static func biome_at(world: StrataChunkWorld, p: Vector3) -> String:
	var w := world_position(world, p)
	return world.get_biome(w[0], w[2])


## Moves the world's origin near world position `w` when `w` is farther from it than the world's
## `origin_shift_distance` on any axis (as a shift would once the player stood there), so a
## player placed at `w` (a save's position, a far destination) stands where `f32` is exact.
## Near the origin nothing changes. Returns whether the origin moved.
static func bring_origin_near(world: StrataChunkWorld, w: PackedFloat64Array) -> bool:
	var o := world.get_origin()
	var reach := world.origin_shift_distance
	if (
		absf(w[0] - float(o.x)) <= reach
		and absf(w[1] - float(o.y)) <= reach
		and absf(w[2] - float(o.z)) <= reach
	):
		return false
	world.set_origin(Vector3i(floori(w[0]), floori(w[1]), floori(w[2])))
	return true


## "x.x, y.y, z.z": world position `w` to one decimal (exact: 64-bit floats).
static func describe(w: PackedFloat64Array) -> String:
	return "%.1f, %.1f, %.1f" % [w[0], w[1], w[2]]
