## The other players of a shared world, drawn as `RemotePlayer`s: one is added when a player
## joins and removed when they leave; every frame each stands where `StrataWorldSync` says (already
## interpolated), hidden until its first pose arrives. `StrataWorldSync` gives positions in the
## world node's space (world − its floating origin), read after the world's own `_process` (the
## world comes first in the game scene), so in the frame of an origin shift the avatars already
## stand at their new places: they need not be in the shift group.
##
## May use: `StrataWorldSync` (read only).
class_name RemotePlayers
extends Node3D

const REMOTE_PLAYER := preload("res://game/remote_player.tscn")

var sync: StrataWorldSync
var _avatars: Dictionary[int, RemotePlayer] = {}


## Follows the players of `world_sync` from now on.
func follow(world_sync: StrataWorldSync) -> void:
	sync = world_sync
	sync.player_joined.connect(_on_player_joined)
	sync.player_left.connect(_on_player_left)


## The avatar of player `id`, or null.
func get_avatar(id: int) -> RemotePlayer:
	return _avatars.get(id)


func _process(_delta: float) -> void:
	if sync == null:
		return
	for id in _avatars:
		var at := sync.get_player_position(id)
		var avatar := _avatars[id]
		avatar.visible = at != Vector3.ZERO
		if avatar.visible:
			avatar.position = at
			avatar.rotation.y = sync.get_player_yaw(id)
			avatar.set_eye_height(sync.get_player_eye_height(id))


func _on_player_joined(id: int, player_name: String) -> void:
	if id == sync.get_local_player_id():
		return
	var avatar := get_avatar(id)
	if avatar == null:
		avatar = REMOTE_PLAYER.instantiate()
		avatar.player_id = id
		avatar.name = "Player%d" % id
		avatar.visible = false
		add_child(avatar)
		_avatars[id] = avatar
	avatar.set_player_name(player_name)
	print("Strata: %s joined" % player_name)


func _on_player_left(id: int) -> void:
	var avatar := get_avatar(id)
	if avatar != null:
		print("Strata: %s left" % avatar.name_tag.text)
		_avatars.erase(id)
		avatar.queue_free()
