//! An end-to-end check (ignored by default, it needs Godot and Xvfb) that the resolved
//! Godot renders real frames under Xvfb with `--rendering-driver opengl3`: a throwaway
//! project in the temp dir draws an orange box on a blue background, saves the frame
//! as PNG and prints its average colour, which must not be black.
//!
//! Run with `cargo test -p xtask -- --ignored --nocapture`; the PNG path is printed.

use crate::godot_install;
use crate::godot_run::{self, Echo};
use std::fs;
use std::time::Duration;

const PROJECT: &str = r#"config_version=5

[application]
config/name="xtask render selftest"
run/main_scene="res://main.tscn"
config/features=PackedStringArray("4.6", "GL Compatibility")

[rendering]
renderer/rendering_method="gl_compatibility"
renderer/rendering_method.mobile="gl_compatibility"
"#;

const SCENE: &str = r#"[gd_scene load_steps=2 format=3]

[ext_resource type="Script" path="res://main.gd" id="1"]

[node name="Main" type="Node3D"]
script = ExtResource("1")
"#;

const SCRIPT: &str = r#"extends Node3D

func _ready() -> void:
	var cam := Camera3D.new()
	cam.position = Vector3(2.5, 2.0, 3.5)
	add_child(cam)
	cam.look_at(Vector3.ZERO)
	var mat := StandardMaterial3D.new()
	mat.albedo_color = Color(0.9, 0.3, 0.1)
	var box := BoxMesh.new()
	box.material = mat
	var mi := MeshInstance3D.new()
	mi.mesh = box
	add_child(mi)
	var light := DirectionalLight3D.new()
	light.rotation_degrees = Vector3(-50, 30, 0)
	add_child(light)
	var env := Environment.new()
	env.background_mode = Environment.BG_COLOR
	env.background_color = Color(0.2, 0.4, 0.8)
	var we := WorldEnvironment.new()
	we.environment = env
	add_child(we)
	for i in 5:
		await get_tree().process_frame
	await RenderingServer.frame_post_draw
	var img := get_viewport().get_texture().get_image()
	var out: String = OS.get_cmdline_user_args()[0]
	var err := img.save_png(out)
	var sum := Color(0, 0, 0)
	var center := img.get_pixel(img.get_width() / 2, img.get_height() / 2)
	for y in range(0, img.get_height(), 8):
		for x in range(0, img.get_width(), 8):
			sum += img.get_pixel(x, y)
	var n := float((img.get_height() / 8) * (img.get_width() / 8))
	print("SELFTEST adapter=%s size=%s saved=%d" % [RenderingServer.get_video_adapter_name(), img.get_size(), err])
	print("SELFTEST avg=%.3f,%.3f,%.3f center=%.3f,%.3f,%.3f" % [sum.r / n, sum.g / n, sum.b / n, center.r, center.g, center.b])
	get_tree().quit(0 if err == OK else 1)
"#;

#[test]
#[ignore = "needs Godot (installed on demand) and Xvfb; run with --ignored"]
fn renders_a_box_under_xvfb() {
    let dir = std::env::temp_dir().join(format!("xtask-render-selftest-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("project.godot"), PROJECT).unwrap();
    fs::write(dir.join("main.tscn"), SCENE).unwrap();
    fs::write(dir.join("main.gd"), SCRIPT).unwrap();
    let png = dir.join("frame.png");

    let godot = godot_install::ensure_godot().unwrap_or_else(|e| panic!("{e}"));
    let mut cmd = godot.xvfb_command("1280x720x24").unwrap_or_else(|e| panic!("{e}"));
    cmd.args(["--rendering-driver", "opengl3", "--audio-driver", "Dummy", "--path"]).arg(&dir).arg("--").arg(&png);
    let out = godot_run::run_captured(cmd, Duration::from_secs(180), Echo::Live).unwrap();
    assert!(out.success(), "Godot {}", out.describe_exit());
    assert!(png.is_file(), "no PNG written");
    println!("frame: {}", png.display());

    let avg_line = out.lines.iter().find_map(|l| l.strip_prefix("SELFTEST avg=")).expect("no avg line");
    let (avg, center) = avg_line.split_once(" center=").unwrap();
    let rgb = |s: &str| -> Vec<f32> { s.split(',').map(|v| v.parse().unwrap()).collect() };
    let (avg, center) = (rgb(avg), rgb(center));
    // Blue background dominates the average; the box (orange) is in the centre.
    assert!(avg[2] > 0.5 && avg[2] > avg[0], "background not blue: {avg:?}");
    assert!(center[0] > 0.3 && center[0] > center[2], "no orange box in the centre: {center:?}");
}
