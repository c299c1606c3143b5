## A suite of shared worlds in one Godot process over ENet on 127.0.0.1: a port of the test's own
## (parallel runs on one machine do not meet), and the worlds, viewers and StrataWorldSync nodes
## the test makes, kept until it ends (each sync leaves, then everything is freed).
class_name StrataNetTestCase
extends StrataTestCase

const HOST := "127.0.0.1"

var _nodes: Array[Node] = []
var _port := 0


func before_each() -> void:
	_port = 20000 + randi() % 20000


func after_each() -> void:
	for n in _nodes:
		if is_instance_valid(n) and n is StrataWorldSync:
			(n as StrataWorldSync).leave()
	for n in _nodes:
		if is_instance_valid(n):
			n.free()
	_nodes.clear()


## Adds `node` to this suite and frees it when the test ends.
func _keep(node: Node) -> Node:
	add_child(node)
	_nodes.append(node)
	return node


## A world of `preset` that streams the chunks next to a viewer of its own (none with
## `viewer_on_ground` false), with no far view. The viewer stands on the ground at the origin. A
## negative `frame_budget_ms` keeps the node's default.
func _small_world(
	preset: StrataWorldPreset, frame_budget_ms := 8.0, viewer_on_ground := true
) -> StrataChunkWorld:
	var viewer: Node3D = _keep(Node3D.new()) if viewer_on_ground else null
	var w := StrataChunkWorld.new()
	w.preset = preset
	w.view_distance = 1
	w.vertical_view_distance = 1
	w.far_view_levels = 0
	if frame_budget_ms >= 0.0:
		w.frame_budget_ms = frame_budget_ms
	_keep(w)
	if viewer != null:
		w.viewer = w.get_path_to(viewer)
		viewer.position = Vector3(0, w.get_height(0, 0), 0)
	return w


## A StrataWorldSync of `world`, kept until the test ends.
func _sync(world: StrataChunkWorld) -> StrataWorldSync:
	var s := StrataWorldSync.new()
	_keep(s)
	s.world = s.get_path_to(world)
	return s
