## The other players of a shared world, one avatar each: an avatar is added when a player joins
## and removed when they leave; every frame each is placed where `StrataWorldSync` says (already
## interpolated), hidden until its first pose arrives. The 3D game's `RemotePlayers` and the side
## view's `RemotePlayers2D` make and place the avatars.
##
## May use: `StrataWorldSync` (read only).
class_name RemotePlayerList
extends Node

var sync: StrataWorldSync
var _avatars: Dictionary[int, Node] = {}
var _names: Dictionary[int, String] = {}


## Follows the players of `world_sync` from now on (the avatars of an earlier one go).
func follow(world_sync: StrataWorldSync) -> void:
	for id in _avatars:
		_avatars[id].queue_free()
	_avatars.clear()
	_names.clear()
	sync = world_sync
	sync.player_joined.connect(_on_player_joined)
	sync.player_left.connect(_on_player_left)


func _process(_delta: float) -> void:
	if sync == null:
		return
	for id in _avatars:
		_place_avatar(_avatars[id], id)


## A new avatar for player `id`, not yet in the tree (each kind of world has its own).
func _new_avatar(_id: int) -> Node:
	return null


## Shows player `id`'s `avatar` where the sync has it now, named `player_name`.
func _place_avatar(_avatar: Node, _id: int) -> void:
	pass


## Puts `player_name` on `avatar`'s name tag.
func _name_avatar(_avatar: Node, _player_name: String) -> void:
	pass


func _avatar_node(id: int) -> Node:
	return _avatars.get(id)


func _on_player_joined(id: int, player_name: String) -> void:
	if id == sync.get_local_player_id():
		return
	var avatar := _avatar_node(id)
	if avatar == null:
		avatar = _new_avatar(id)
		avatar.name = "Player%d" % id
		add_child(avatar)
		_avatars[id] = avatar
	_names[id] = player_name
	_name_avatar(avatar, player_name)
	print("Strata: %s joined" % player_name)


func _on_player_left(id: int) -> void:
	var avatar := _avatar_node(id)
	if avatar != null:
		print("Strata: %s left" % _names.get(id, "player %d" % id))
		_avatars.erase(id)
		_names.erase(id)
		avatar.queue_free()
