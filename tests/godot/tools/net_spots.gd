## Where the multiplayer workers (`net_client.gd`, `net_load.gd`) edit: a pure function of a
## seeded generator, the world and where the player stands, so every run edits the same voxels.
extends RefCounted


## A voxel within reach of a player standing at `stand` (at most 3 across, 0 to 2 above the
## ground), and a block for it (stone, dirt or air).
static func edit_spot(rng: RandomNumberGenerator, world: ChunkWorld, stand: Vector3) -> Array:
	var x := int(floor(stand.x)) + rng.randi_range(-3, 3)
	var z := int(floor(stand.z)) + rng.randi_range(-3, 3)
	var y := int(world.get_height(x, z)) + rng.randi_range(0, 2)
	var blocks := [ChunkWorld.block_id("stone"), ChunkWorld.block_id("dirt"), 0]
	return [Vector3i(x, y, z), blocks[rng.randi_range(0, blocks.size() - 1)]]
