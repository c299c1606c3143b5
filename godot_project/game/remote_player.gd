## Another player in a shared world: a capsule body with a name tag floating above it. The
## node's origin is the player's eye (what `StrataWorldSync.get_player_position` gives); the body
## reaches down to the feet, `eye_height` below (lower when the player crouches or lies down).
class_name RemotePlayer
extends Node3D

## The capsule's height over the eye (the demo's player: 1.8 tall, the eye at 1.62).
const HEAD_ABOVE_EYE := 0.18
const BODY_HEIGHT := 1.8

var player_id := 0

@onready var body: MeshInstance3D = $Body
@onready var name_tag: Label3D = $NameTag


func set_player_name(player_name: String) -> void:
	name_tag.text = player_name


## Stretches the body from the feet, `eye_height` below the eye, to just over the eye.
func set_eye_height(eye_height: float) -> void:
	var height := maxf(eye_height, 0.1) + HEAD_ABOVE_EYE
	body.scale = Vector3(1.0, height / BODY_HEIGHT, 1.0)
	body.position.y = HEAD_ABOVE_EYE - height * 0.5
