## The "Multiplayer" screen: the player name (kept on the profile), hosting a world on a port, or
## joining another player's world at an address and port. It checks what was typed and asks its
## owner to start: the main menu's game hosts or joins (and shows what went wrong on its loading
## screen); the side view hosts the world it plays, or joins, and says here what went wrong.
class_name MultiplayerMenu
extends Control

signal host_requested(port: int, player_name: String)
signal join_requested(address: String, port: int, player_name: String)
signal closed

const DEFAULT_ADDRESS := "127.0.0.1"

## What hosting shares, over the host row.
@export var host_title := "Host the world chosen in the main menu (you play too)"

@onready var _name: LineEdit = %PlayerName
@onready var _host_port: SpinBox = %HostPort
@onready var _address: LineEdit = %Address
@onready var _join_port: SpinBox = %JoinPort
@onready var _status: Label = %MultiplayerStatus
@onready var _host_title: Label = %HostTitle


func _ready() -> void:
	_name.text = GameState.get_player_name()
	_host_port.value = NetSession.DEFAULT_PORT
	_join_port.value = NetSession.DEFAULT_PORT
	_address.text = DEFAULT_ADDRESS
	_host_title.text = host_title
	_name.grab_focus.call_deferred()


func get_status() -> String:
	return _status.text


## Shows `message` (what went wrong, or what is happening) under the fields.
func show_status(message: String) -> void:
	_status.text = message


## Hosts the main menu's chosen world (if the name is fine).
func host() -> void:
	var player_name := _checked_name()
	if player_name != "":
		host_requested.emit(int(_host_port.value), player_name)


## Joins the typed address (if the name and address are fine).
func join() -> void:
	var player_name := _checked_name()
	if player_name == "":
		return
	var address := _address.text.strip_edges()
	if address == "":
		_status.text = "Type the host's address (an IP address or a host name)."
		return
	join_requested.emit(address, int(_join_port.value), player_name)


## The typed name, stored on the profile; "" (and the reason shown) when it cannot be used.
func _checked_name() -> String:
	var problem := GameState.set_player_name(_name.text)
	if problem != "":
		_status.text = problem
		return ""
	_status.text = ""
	return _name.text.strip_edges()


func close() -> void:
	closed.emit()
	queue_free()


func _unhandled_input(event: InputEvent) -> void:
	if event.is_action_pressed("ui_cancel"):
		close()
		get_viewport().set_input_as_handled()
