## Voxel raycast (Amanatides–Woo DDA) through a StrataChunkWorld's voxels.
##
## Visits every cell the ray passes through, in order, and stops at the first cell whose block
## `is_target` accepts. Cell (x, y, z) is the world voxel [x, x+1) × [y, y+1) × [z, z+1). The
## walk runs in the world node's space (small numbers near the player, exact in `f32`) and names
## cells as world voxels: the origin's voxel plus the local cell (the origin is a whole voxel).
class_name VoxelRay
extends RefCounted


## Casts from global point `origin` along global `direction`. Returns { hit: bool, cell:
## Vector3i (a world voxel), previous: Vector3i (the empty cell before the hit, where a block
## would be placed), normal: Vector3i (face of `cell` the ray entered through), block: int,
## distance: float }.
static func cast(
	world: StrataChunkWorld,
	origin: Vector3,
	direction: Vector3,
	max_distance: float,
	is_target: Callable
) -> Dictionary:
	var miss: Dictionary = {
		"hit": false,
		"cell": Vector3i.ZERO,
		"previous": Vector3i.ZERO,
		"normal": Vector3i.ZERO,
		"block": 0,
		"distance": max_distance
	}
	if world == null or direction.length_squared() < 1e-12:
		return miss
	# In the world node's space from here on; `base` turns its cells into world voxels.
	var local := world.to_local(origin)
	var d := (world.global_basis.inverse() * direction).normalized()
	var base := world.get_origin()
	var cell := Vector3i(floori(local.x), floori(local.y), floori(local.z))
	var step := Vector3i(signi(_sgn(d.x)), signi(_sgn(d.y)), signi(_sgn(d.z)))
	var t_max := Vector3(
		_first_t(local.x, d.x, cell.x),
		_first_t(local.y, d.y, cell.y),
		_first_t(local.z, d.z, cell.z)
	)
	var t_delta := Vector3(_delta(d.x), _delta(d.y), _delta(d.z))
	var previous := cell
	var normal := Vector3i.ZERO
	var t := 0.0
	# A generous bound on the number of cells: every step crosses one face.
	var max_steps := int(ceil(max_distance)) * 3 + 3
	for _step in max_steps:
		if t > max_distance:
			break
		var id := world.get_voxel(base + cell)
		if bool(is_target.call(id)):
			return {
				"hit": true,
				"cell": base + cell,
				"previous": base + previous,
				"normal": normal,
				"block": id,
				"distance": t
			}
		previous = cell
		if t_max.x <= t_max.y and t_max.x <= t_max.z:
			t = t_max.x
			cell.x += step.x
			t_max.x += t_delta.x
			normal = Vector3i(-step.x, 0, 0)
		elif t_max.y <= t_max.z:
			t = t_max.y
			cell.y += step.y
			t_max.y += t_delta.y
			normal = Vector3i(0, -step.y, 0)
		else:
			t = t_max.z
			cell.z += step.z
			t_max.z += t_delta.z
			normal = Vector3i(0, 0, -step.z)
	return miss


static func _sgn(v: float) -> int:
	return 1 if v > 0.0 else (-1 if v < 0.0 else 0)


static func _first_t(o: float, d: float, c: int) -> float:
	if d > 0.0:
		return (float(c) + 1.0 - o) / d
	if d < 0.0:
		return (o - float(c)) / -d
	return INF


static func _delta(d: float) -> float:
	return INF if d == 0.0 else absf(1.0 / d)
