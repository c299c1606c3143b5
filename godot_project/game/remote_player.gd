## Another player in a shared world: a capsule body with a name tag floating above it. The
## node's origin is the player's eye (what `StrataWorldSync.get_player_position` gives).
class_name RemotePlayer
extends Node3D

var player_id := 0

@onready var name_tag: Label3D = $NameTag


func set_player_name(player_name: String) -> void:
	name_tag.text = player_name
