## Another player in a shared side view: a body the size of the demo's character with a name tag
## above it. The node's origin is the top of the body (what
## `StrataWorldSync.get_player_position_2d` gives); the body reaches down to the feet.
class_name RemotePlayer2D
extends Node2D

var player_id := 0

@onready var name_tag: Label = $NameTag


func set_player_name(player_name: String) -> void:
	name_tag.text = player_name
