## The other players of a shared side view (`RemotePlayerList`), drawn as `RemotePlayer2D`s:
## `StrataWorldSync.get_player_position_2d` gives the top of each body in the world node's pixels,
## placed here through the world's transform. This node stands beside the world, not under it,
## so the world's origin shifts do not move it: the positions are read after the world's own
## `_process` (the world comes first in the scene) and already follow a shift.
##
## May use: `StrataWorldSync` (read only), the `StrataChunkWorld2D` it shares.
class_name RemotePlayers2D
extends RemotePlayerList

const REMOTE_PLAYER := preload("res://demo2d/remote_player_2d.tscn")

## The shared world whose pixels the positions are in.
@export var world: StrataChunkWorld2D


## The avatar of player `id`, or null.
func get_avatar(id: int) -> RemotePlayer2D:
	return _avatar_node(id) as RemotePlayer2D


func _new_avatar(id: int) -> Node:
	var avatar: RemotePlayer2D = REMOTE_PLAYER.instantiate()
	avatar.player_id = id
	avatar.visible = false
	return avatar


func _name_avatar(avatar: Node, player_name: String) -> void:
	(avatar as RemotePlayer2D).set_player_name(player_name)


func _place_avatar(node: Node, id: int) -> void:
	var avatar := node as RemotePlayer2D
	var top := sync.get_player_position_2d(id)
	avatar.visible = top != Vector2.ZERO and world != null
	if avatar.visible:
		avatar.global_position = world.to_global(top)
