## Where the multiplayer workers (`net_client.gd`, `net_load.gd`) edit: a pure function of a
## seeded generator, the world and where the player stands, so every run edits the same voxels.
extends RefCounted

## Stone, dirt and air of the default library, looked up once (a load process makes a thousand
## edits a second).
static var _blocks: Array[int] = []


## A voxel within reach of a player whose eye is at `stand`, 1.6 above the ground it stands on
## (at most 3 across, from 1 below that ground to 2 above it: within 6 of the eye however many
## edits came before), and a block for it (stone, dirt or air).
static func edit_spot(rng: RandomNumberGenerator, stand: Vector3) -> Array:
	var x := int(floor(stand.x)) + rng.randi_range(-3, 3)
	var z := int(floor(stand.z)) + rng.randi_range(-3, 3)
	var y := int(floor(stand.y - 1.6)) + rng.randi_range(-1, 2)
	if _blocks.is_empty():
		var library := StrataBlockLibrary.create_default()
		_blocks = [library.get_block_id("stone"), library.get_block_id("dirt"), 0]
	return [Vector3i(x, y, z), _blocks[rng.randi_range(0, _blocks.size() - 1)]]
