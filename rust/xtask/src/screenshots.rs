//! `cargo xtask screenshots [--only NAME...] [--out-dir DIR] [--list]`: renders every image
//! README.md and docs/*.md show, from the current build, into `docs/images/` (or DIR), so that no
//! picture in the docs is older than the code that draws it.
//!
//! [`jobs`] is the table: each job names what makes its frames (a Godot scene or script under
//! Xvfb on llvmpipe, Compatibility or Forward+ as the rendered checks run them; the real editor;
//! the preset maps of `cargo xtask preview`; the block textures' contact sheet) and which
//! frame becomes which image (whole, or halved for the narrow table cells). [`images`] lists
//! every image the table makes; the static check [`crate::doc_images`] holds the docs and the
//! table to each other. A job writes its frames into `<target>/screenshots/docs/<job>/`; an
//! image is copied only from a frame written by this run, so a failed job never leaves an old
//! frame behind as new.
//!
//! May use: `renderer`, `setup` and `test_project` (Godot with the extension built, the test project),
//! `godot_run`, `xvfb`, `editor_shots` (the editor's frames), `preview`'s renderer (through
//! strata-core), `textures` (the contact sheet), `paths`, `error`.

use crate::error::{Context as _, Error, Result, tail};
use crate::godot_install::Godot;
use crate::godot_run::{self, Echo};
use crate::renderer::Renderer;
use crate::{paths, setup, test_project};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

const USAGE: &str = "usage: cargo xtask screenshots [--only NAME...] [--out-dir DIR] [--list]";

/// The folder the docs' images live in, relative to the repository root.
pub const IMAGES_DIR: &str = "docs/images";

/// The shipped presets whose maps the README's preset table shows, and the maps it shows.
pub const PRESET_MAPS: (&[&str], &[&str]) = (
    &["default_hills", "archipelago", "alpine_mountains", "desert_canyons", "deep_caverns", "olinda_river_valleys"],
    &["relief", "biomes", "caves"],
);

/// Which Godot project a scene runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Project {
    /// `godot_project/`: the demo and the addon, as a user has them.
    Demo,
    /// `tests/godot/`: the rendered checks and the docs' tools (linked to the demo's folders).
    Tests,
}

/// How a Godot run is told where to write its frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    /// `PREFIX<dir>`: the run writes its frames, under their own names, into the job's folder.
    Dir(&'static str),
    /// `PREFIX<dir>/<frame>`: the run writes its one frame to that file.
    File(&'static str),
}

/// What makes a job's frames.
#[derive(Clone, Debug)]
pub enum Source {
    /// `cargo xtask preview --shipped`'s maps of the shipped presets (no Godot), 256 px, 6 voxels a pixel.
    PresetMaps,
    /// The default block textures' contact sheets, one a shot: the 16 set, then the 32 set
    /// ([`crate::textures`], no Godot).
    TextureSheet,
    /// A Godot scene or script under Xvfb (1280×720).
    Godot {
        project: Project,
        /// What Godot runs: a scene path, or `-s` and a script path.
        launch: &'static [&'static str],
        /// User arguments (after `--`) besides the output one.
        args: &'static [&'static str],
        out: Out,
        renderer: Renderer,
    },
    /// The real editor (Compatibility, 1600×900) opened on the addon's example scene
    /// ([`crate::editor_shots`]).
    Editor,
}

/// One image of the docs and the frame it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shot {
    /// The image, relative to the repository root (`docs/images/...`).
    pub image: String,
    /// The frame the job writes, relative to its folder.
    pub frame: String,
    /// Whether the image is the frame at half its width and height (2×2 pixels averaged).
    pub half: bool,
}

/// One row of the table: a run and the images it makes.
#[derive(Clone, Debug)]
pub struct Job {
    /// The name `--only` takes.
    pub name: &'static str,
    pub source: Source,
    pub shots: Vec<Shot>,
}

fn shot(image: &str, frame: &str) -> Shot {
    Shot { image: format!("{IMAGES_DIR}/{image}"), frame: frame.to_string(), half: false }
}

fn half(image: &str, frame: &str) -> Shot {
    Shot { half: true, ..shot(image, frame) }
}

fn godot(project: Project, launch: &'static [&'static str], args: &'static [&'static str], out: Out) -> Source {
    Source::Godot { project, launch, args, out, renderer: Renderer::Compatibility }
}

/// The table: every job, in the order a full run takes them (the quick ones first).
pub fn jobs() -> Vec<Job> {
    use Project::{Demo, Tests};
    let (presets, maps) = PRESET_MAPS;
    let preset_shots = presets
        .iter()
        .flat_map(|p| maps.iter().map(move |m| shot(&format!("presets/{p}/{m}.png"), &format!("{p}/{m}.png"))))
        .collect();
    let side_view = &["res://demo2d/side_view.tscn"];
    let game = &["res://game/world.tscn"];
    vec![
        Job { name: "presets", source: Source::PresetMaps, shots: preset_shots },
        Job {
            name: "block_textures",
            source: Source::TextureSheet,
            shots: vec![shot("block_textures.png", "sheet.png"), shot("block_textures_32.png", "sheet_32.png")],
        },
        Job {
            name: "side_view",
            source: godot(Demo, side_view, &[], Out::File("--screenshot=")),
            shots: vec![shot("side_view_2d.png", "side_view.png")],
        },
        Job {
            name: "side_view_textured",
            source: godot(Demo, side_view, &["--zoom=1.5", "--showcase"], Out::File("--screenshot=")),
            shots: vec![shot("side_view_textured.png", "side_view_textured.png")],
        },
        Job {
            name: "side_view_torch",
            source: godot(Demo, side_view, &["--zoom=1.5", "--cave", "--time=0.0"], Out::File("--screenshot=")),
            shots: vec![shot("side_view_torch.png", "side_view_torch.png")],
        },
        Job {
            name: "side_view_structures",
            source: godot(
                Demo,
                side_view,
                &["--zoom=1.5", "--structure=hut", "--time=0.45"],
                Out::File("--screenshot="),
            ),
            shots: vec![shot("side_view_structures.png", "side_view_structures.png")],
        },
        Job {
            name: "side_view_creatures",
            source: godot(Tests, &["res://rendered/creature_shots_2d.tscn"], &[], Out::Dir("--out-dir=")),
            shots: vec![shot("side_view_creatures.png", "side_view_creatures.png")],
        },
        Job {
            name: "side_view_shared",
            source: godot(Tests, &["res://rendered/shared_side_view_shot.tscn"], &[], Out::Dir("--out-dir=")),
            shots: vec![shot("side_view_shared.png", "side_view_shared.png")],
        },
        Job {
            name: "side_view_classic",
            source: godot(
                Demo,
                side_view,
                &["--preset=res://addons/strata/presets/side_view_classic.tres"],
                Out::File("--screenshot="),
            ),
            shots: vec![shot("side_view_classic.png", "side_view_classic.png")],
        },
        Job {
            name: "side_view_navigation",
            source: godot(Tests, &["res://rendered/navigation_shots_2d.tscn"], &[], Out::Dir("--out-dir=")),
            shots: vec![shot("side_view_navigation.png", "side_view_navigation.png")],
        },
        Job {
            name: "getting_started",
            source: godot(Tests, &["-s", "res://tools/getting_started_shot.gd"], &[], Out::File("--out=")),
            shots: vec![shot("getting_started_game.png", "getting_started_game.png")],
        },
        Job {
            name: "editor",
            source: Source::Editor,
            shots: vec![shot("editor_first_sight.png", "first_sight.png"), shot("editor_orbit.png", "orbit.png")],
        },
        Job {
            name: "ui",
            source: godot(
                Tests,
                &["res://rendered/ui_shots.tscn"],
                &["--view-distance=3", "--far-view=1"],
                Out::Dir("--out-dir="),
            ),
            shots: vec![
                half("main_menu.png", "main_menu.png"),
                half("settings_menu.png", "settings_menu.png"),
                shot("customize_world.png", "customize_world.png"),
            ],
        },
        Job {
            name: "blocks",
            source: godot(Tests, &["res://tools/blocks_shot.tscn"], &[], Out::File("--out=")),
            shots: vec![shot("blocks_new.png", "blocks_new.png")],
        },
        Job {
            name: "day_night",
            source: godot(Tests, &["res://rendered/day_night_shots.tscn"], &[], Out::Dir("--out-dir=")),
            shots: vec![
                shot("blocks_textured_noon.png", "noon.png"),
                shot("sky_day.png", "sky_day.png"),
                shot("sky_dusk.png", "sky_dusk.png"),
                shot("sky_night.png", "sky_night.png"),
                shot("water_shore.png", "water_shore.png"),
            ],
        },
        Job {
            name: "game_day",
            source: godot(Demo, game, &GAME_DAY, Out::File("--shot=")),
            shots: vec![half("game_day.png", "game_day.png")],
        },
        Job {
            name: "game_night",
            source: godot(Demo, game, &GAME_NIGHT, Out::File("--shot=")),
            shots: vec![half("game_night.png", "game_night.png")],
        },
        Job {
            name: "game_cave",
            source: godot(Demo, game, &GAME_CAVE, Out::File("--shot=")),
            shots: vec![half("game_cave.png", "game_cave.png")],
        },
        // Full size: the HUD's world coordinates are the point.
        Job {
            name: "game_far",
            source: godot(Demo, game, &GAME_FAR, Out::File("--shot=")),
            shots: vec![shot("game_far.png", "game_far.png")],
        },
        Job {
            name: "multiplayer",
            source: godot(
                Tests,
                &["res://tools/multiplayer_shot.tscn"],
                &["--view-distance=4", "--far-view=1", "--auto-time=0.35"],
                Out::File("--out="),
            ),
            shots: vec![shot("multiplayer.png", "multiplayer.png")],
        },
        Job {
            name: "demo_overview",
            source: godot(
                Demo,
                &["res://demo/flythrough.tscn"],
                &["--view-distance=6", "--seconds=0.1"],
                Out::Dir("--screenshot-dir="),
            ),
            shots: vec![shot("demo_overview.png", "demo_overview.png")],
        },
        Job {
            name: "light",
            source: godot(Tests, &["res://rendered/light_shots.tscn"], &[], Out::Dir("--out-dir=")),
            shots: vec![
                shot("light_sunset.png", "sunset.png"),
                shot("light_torches_midnight.png", "torches_midnight.png"),
                shot("light_cave_dark.png", "cave_dark.png"),
                shot("light_cave_torches.png", "cave_torches.png"),
            ],
        },
        Job {
            name: "light_forward_plus",
            source: Source::Godot {
                project: Tests,
                launch: &["res://rendered/light_shots.tscn"],
                args: &[],
                out: Out::Dir("--out-dir="),
                renderer: Renderer::ForwardPlus,
            },
            shots: vec![
                shot("forward_plus_sunset.png", "sunset.png"),
                shot("forward_plus_torches_midnight.png", "torches_midnight.png"),
                shot("forward_plus_cave_torches.png", "cave_torches.png"),
            ],
        },
        Job {
            name: "horizon",
            source: godot(Tests, &["res://rendered/horizon_shadow_shots.tscn"], &[], Out::Dir("--out-dir=")),
            shots: vec![shot("horizon_shadow_map.png", "horizon_shadow_map.png")],
        },
        Job {
            name: "horizon_maps250",
            source: godot(
                Tests,
                &["res://rendered/horizon_shadow_shots.tscn"],
                &["--shadow-distance=250"],
                Out::Dir("--out-dir="),
            ),
            shots: vec![shot("horizon_maps250_far_shadow_map.png", "horizon_maps250_far_shadow_map.png")],
        },
    ]
}

/// The demo game's scripted shots (`godot_project/game/run_args.gd`): the default world, the
/// HUD hidden (F3), the clock stopped at a time of day.
const GAME_DAY: [&str; 5] = ["--no-save-load", "--view-distance=4", "--far-view=2", "--hide-hud", "--auto-time=0.42"];
const GAME_NIGHT: [&str; 6] =
    ["--no-save-load", "--view-distance=4", "--far-view=2", "--hide-hud", "--auto-time=0.95", "--torches"];
const GAME_CAVE: [&str; 7] =
    ["--no-save-load", "--view-distance=3", "--far-view=1", "--hide-hud", "--auto-time=0.5", "--cave", "--torches"];
/// A billion voxels out (Go to…'s far spot), in the evening, the HUD showing where.
const GAME_FAR: [&str; 5] =
    ["--no-save-load", "--view-distance=4", "--far-view=2", "--auto-time=0.72", "--go-to=1000000000,1000000000"];

/// Every image the table makes, relative to the repository root.
pub fn images() -> BTreeSet<String> {
    jobs().into_iter().flat_map(|j| j.shots.into_iter().map(|s| s.image)).collect()
}

/// `cargo xtask screenshots`.
pub fn run(args: &[String]) -> Result<std::process::ExitCode> {
    let mut only: Vec<String> = Vec::new();
    let mut out_dir = paths::repo_root().join(IMAGES_DIR);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--only" => {
                let mut any = false;
                while let Some(name) = it.as_slice().first().filter(|n| !n.starts_with("--")) {
                    only.push(name.clone());
                    it.next();
                    any = true;
                }
                if !any {
                    bail!("--only needs one or more job names\n{USAGE}");
                }
            }
            "--out-dir" => {
                out_dir = PathBuf::from(it.next().with_context(|| format!("--out-dir needs a folder\n{USAGE}"))?);
            }
            "--list" => {
                for job in jobs() {
                    let images: Vec<&str> = job.shots.iter().map(|s| s.image.as_str()).collect();
                    println!("{:<20} {}", job.name, images.join(" "));
                }
                return Ok(std::process::ExitCode::SUCCESS);
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(std::process::ExitCode::SUCCESS);
            }
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let all = jobs();
    for name in &only {
        if !all.iter().any(|j| j.name == name) {
            let names: Vec<&str> = all.iter().map(|j| j.name).collect();
            bail!("no screenshot job `{name}`; the jobs: {}", names.join(", "));
        }
    }
    let selected: Vec<Job> =
        all.into_iter().filter(|j| only.is_empty() || only.contains(&j.name.to_string())).collect();
    let started = Instant::now();
    let mut lines = Vec::new();
    let mut failed = 0;
    for job in &selected {
        let t = Instant::now();
        crate::step(format!("screenshots: {} ({} image(s))", job.name, job.shots.len()));
        match run_job(job, &out_dir) {
            Ok(written) => lines.push(format!(
                "{:<20} ok in {:>4.0} s: {}",
                job.name,
                t.elapsed().as_secs_f64(),
                written.join(", ")
            )),
            Err(e) => {
                failed += 1;
                lines.push(format!("{:<20} FAILED in {:>4.0} s: {e}", job.name, t.elapsed().as_secs_f64()));
            }
        }
    }
    eprintln!();
    eprintln!("==================== xtask screenshots summary ====================");
    for line in &lines {
        eprintln!("{line}");
    }
    eprintln!(
        "{} of {} job(s) done in {:.0} s → {}",
        selected.len() - failed,
        selected.len(),
        started.elapsed().as_secs_f64(),
        out_dir.display()
    );
    Ok(if failed == 0 { std::process::ExitCode::SUCCESS } else { std::process::ExitCode::FAILURE })
}

/// Runs one job into its own emptied folder, then copies its frames to their images under
/// `out_dir` (the image's path below `docs/images`); returns the images written.
fn run_job(job: &Job, out_dir: &Path) -> Result<Vec<String>> {
    let work = paths::target_dir()?.join("screenshots/docs").join(job.name);
    if work.exists() {
        fs::remove_dir_all(&work).with_context(|| format!("could not empty {}", work.display()))?;
    }
    fs::create_dir_all(&work).with_context(|| format!("could not create {}", work.display()))?;
    let since = SystemTime::now();
    match &job.source {
        Source::PresetMaps => {
            let mut args: Vec<String> =
                ["--shipped", "--size", "256", "--cell", "6", "--out"].iter().map(|s| s.to_string()).collect();
            args.push(work.display().to_string());
            crate::preview::run(&args)?;
        }
        Source::TextureSheet => {
            // One shot a texture set, in `TextureSet::ALL` order.
            for (shot, set) in job.shots.iter().zip(crate::textures::TextureSet::ALL) {
                let frame = work.join(&shot.frame);
                fs::write(&frame, crate::textures::contact_sheet_png(set)?)
                    .with_context(|| format!("could not write {}", frame.display()))?;
            }
        }
        Source::Godot { project, launch, args, out, renderer } => {
            let godot = setup::prepare(crate::extension::BuildProfile::Dev)?;
            let project_dir = match project {
                Project::Demo => paths::godot_project(),
                Project::Tests => {
                    test_project::prepare(&godot)?;
                    paths::godot_tests()
                }
            };
            let out_arg = match out {
                Out::Dir(prefix) => format!("{prefix}{}", work.display()),
                Out::File(prefix) => format!("{prefix}{}", work.join(&job.shots[0].frame).display()),
            };
            run_godot(&godot, job.name, &project_dir, launch, args, &out_arg, *renderer, &work)?;
        }
        Source::Editor => {
            let godot = setup::prepare(crate::extension::BuildProfile::Dev)?;
            crate::editor_shots::run(&godot, &work)?;
        }
    }
    let mut written = Vec::new();
    for s in &job.shots {
        let frame = work.join(&s.frame);
        let fresh = fs::metadata(&frame).and_then(|m| m.modified()).is_ok_and(|t| t >= since);
        if !fresh {
            bail!("the run wrote no frame {} (for {})", frame.display(), s.image);
        }
        let bytes = fs::read(&frame).with_context(|| format!("could not read {}", frame.display()))?;
        let bytes = if s.half {
            halve_png(&bytes).with_context(|| format!("could not halve {}", frame.display()))?
        } else {
            bytes
        };
        let rel = s.image.strip_prefix(IMAGES_DIR).unwrap_or(&s.image).trim_start_matches('/');
        let to = out_dir.join(rel);
        if let Some(dir) = to.parent() {
            fs::create_dir_all(dir).with_context(|| format!("could not create {}", dir.display()))?;
        }
        fs::write(&to, &bytes).with_context(|| format!("could not write {}", to.display()))?;
        written.push(rel.to_string());
    }
    Ok(written)
}

/// Runs a Godot scene or script under Xvfb on `renderer`; fails when Godot fails, runs on
/// another renderer, or prints a script error. The log goes to `work/godot.log`.
#[allow(clippy::too_many_arguments)]
fn run_godot(
    godot: &Godot,
    name: &str,
    project: &Path,
    launch: &[&str],
    args: &[&str],
    out_arg: &str,
    renderer: Renderer,
    work: &Path,
) -> Result<()> {
    let mut cmd = godot.xvfb_command("1280x720x24")?;
    cmd.args(renderer.args()).args(["--audio-driver", "Dummy", "--path"]).arg(project);
    cmd.args(launch).arg("--").args(args).arg(out_arg);
    crate::note(godot_run::display_command(&cmd));
    let out = godot_run::run_captured(cmd, Duration::from_secs(600), Echo::Quiet)?;
    let log = work.join("godot.log");
    fs::write(&log, out.text()).with_context(|| format!("could not write {}", log.display()))?;
    let mut problems = renderer.check_output(&out.lines);
    if !out.success() {
        problems.push(format!("Godot {}", out.describe_exit()));
    }
    for pat in ["SCRIPT ERROR", "Parse Error", "[panic"] {
        if let Some(first) = out.lines.iter().find(|l| l.contains(pat)) {
            problems.push(format!("the output has `{pat}`: {}", first.trim()));
        }
    }
    if !problems.is_empty() {
        return Err(Error::msg(format!(
            "{name}: {} (log: {}); last lines:\n{}",
            problems.join("; "),
            log.display(),
            tail(&out.lines, 15)
        )));
    }
    Ok(())
}

/// A PNG at half its width and height: each pixel the mean of a 2×2 block (8-bit RGB or RGBA;
/// an odd last row or column is dropped).
pub fn halve_png(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| Error::msg(format!("not a PNG: {e}")))?;
    let mut buf = vec![0; reader.output_buffer_size().context("the PNG is too large")?];
    let info = reader.next_frame(&mut buf).map_err(|e| Error::msg(format!("unreadable PNG: {e}")))?;
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => bail!("a {other:?} PNG; expected RGB or RGBA"),
    };
    let (w, h) = (info.width as usize, info.height as usize);
    let (hw, hh) = (w / 2, h / 2);
    if hw == 0 || hh == 0 {
        bail!("a {w}×{h} PNG is too small to halve");
    }
    let line = info.line_size;
    let mut out = vec![0u8; hw * hh * channels];
    for y in 0..hh {
        for x in 0..hw {
            for c in 0..channels {
                let at = |dx: usize, dy: usize| u32::from(buf[(2 * y + dy) * line + (2 * x + dx) * channels + c]);
                let sum = at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1);
                out[(y * hw + x) * channels + c] = ((sum + 2) / 4) as u8;
            }
        }
    }
    let mut png_out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png_out, hw as u32, hh as u32);
        enc.set_color(info.color_type);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| Error::msg(format!("png header: {e}")))?;
        w.write_image_data(&out).map_err(|e| Error::msg(format!("png data: {e}")))?;
    }
    Ok(png_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_each_job_and_image_once() {
        let jobs = jobs();
        let names: BTreeSet<&str> = jobs.iter().map(|j| j.name).collect();
        assert_eq!(names.len(), jobs.len(), "job names are unique");
        let count: usize = jobs.iter().map(|j| j.shots.len()).sum();
        assert_eq!(images().len(), count, "no image is made twice");
        for job in &jobs {
            assert!(!job.shots.is_empty(), "{} makes an image", job.name);
            if let Source::Godot { out: Out::File(_), .. } = job.source {
                assert_eq!(job.shots.len(), 1, "{}: a run that writes one file makes one image", job.name);
            }
            for s in &job.shots {
                assert!(s.image.starts_with("docs/images/") && s.image.ends_with(".png"), "{}", s.image);
            }
        }
        assert_eq!(images().iter().filter(|i| i.contains("/presets/")).count(), 18);
    }

    #[test]
    fn halving_averages_two_by_two_blocks() {
        let mut src = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut src, 3, 2);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().unwrap();
            // Row 0: (0,0,0) (100,0,0) (9,9,9); row 1: (0,0,0) (100,0,0) (9,9,9).
            w.write_image_data(&[0, 0, 0, 100, 0, 0, 9, 9, 9, 0, 200, 0, 100, 0, 0, 9, 9, 9]).unwrap();
        }
        let out = halve_png(&src).unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(out)).read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (1, 1));
        assert_eq!(&buf[..3], &[50, 50, 0]);
        assert!(halve_png(b"not a png").is_err());
    }
}
