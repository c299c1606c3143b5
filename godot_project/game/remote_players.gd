## The other players of a shared 3D world (`RemotePlayerList`), drawn as `RemotePlayer`s at their
## eyes. `StrataWorldSync` gives positions in the world node's space (world − its floating origin),
## read after the world's own `_process` (the world comes first in the game scene), so in the
## frame of an origin shift the avatars already stand at their new places: they need not be in
## the shift group.
##
## May use: `StrataWorldSync` (read only).
class_name RemotePlayers
extends RemotePlayerList

const REMOTE_PLAYER := preload("res://game/remote_player.tscn")


## The avatar of player `id`, or null.
func get_avatar(id: int) -> RemotePlayer:
	return _avatar_node(id) as RemotePlayer


func _new_avatar(id: int) -> Node:
	var avatar: RemotePlayer = REMOTE_PLAYER.instantiate()
	avatar.player_id = id
	avatar.visible = false
	return avatar


func _name_avatar(avatar: Node, player_name: String) -> void:
	(avatar as RemotePlayer).set_player_name(player_name)


func _place_avatar(node: Node, id: int) -> void:
	var avatar := node as RemotePlayer
	var at := sync.get_player_position(id)
	avatar.visible = at != Vector3.ZERO
	if avatar.visible:
		avatar.position = at
		avatar.rotation.y = sync.get_player_yaw(id)
		avatar.set_eye_height(sync.get_player_eye_height(id))
