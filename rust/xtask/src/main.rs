//! `cargo xtask`: project automation for Strata (alias in `.cargo/config.toml`).
//!
//! Subcommands are dispatched by a `match` in [`run`]; to add one, add an arm and a
//! module. Reusable building blocks:
//! * [`godot_install::ensure_godot`] → [`godot_install::Godot`] (a runnable Godot >= 4.6,
//!   installed into `.tools/godot` when missing); `Godot::command()` / `xvfb_command()`.
//! * [`extension::build_and_install`]: build `strata-godot`, copy it into the project,
//!   import when needed; [`setup::prepare`] does Godot + extension in one call.
//! * [`godot_run::run_captured`]: run with a timeout, streaming and capturing output.
//!
//! Dependencies besides strata-core: `png` (the block textures), `zip` and `object` (the addon package),
//! strata-fuzz (the fuzz targets' list); errors are [`error::Error`] and are printed as a message with
//! causes and a hint, never as a panic.

#[macro_use]
mod error;
mod arm64;
mod bench;
mod class_reference;
mod crash;
mod demo;
mod doc_images;
mod doc_snippets;
mod editor_check;
mod editor_shots;
mod export_test;
mod extension;
mod fuzz;
mod fuzz_afl;
mod gdscript_lint;
mod godot_install;
mod godot_run;
mod layers;
mod lint;
mod loadtest;
mod mingw;
mod movement_soak;
mod net_test;
mod net_test_2d;
mod package;
mod paths;
mod pca;
mod platforms;
mod preview;
#[cfg(test)]
mod render_selftest;
mod renderer;
mod rustup;
mod screenshots;
mod setup;
mod structures;
mod test_project;
mod test_suite;
mod textures;
mod xvfb;

use error::Result;
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command> [args]

commands:
  setup [--release]           install Godot 4.6 if needed, build the extension (dev, or release), import the project
  godot [--xvfb] [--] ARGS... run the project's Godot with ARGS (exit code passes through);
                              --xvfb renders without a display (Xvfb + llvmpipe, OpenGL 3)
  test [--rust-only|--godot-only|--docs-only] [--no-lint] [--no-rendered] [-- ARGS]
                              static checks (import layers, docs' images, cargo fmt --check, clippy -D warnings),
                              Rust tests, then the GDScript lint, the headless Godot suite
                              (tests/godot) and the rendered checks under Xvfb; --no-lint skips the
                              static checks and the GDScript lint, --godot-only runs only the Godot part,
                              --docs-only only the docs' GDScript snippets (README.md, docs/*.md)
  lint [layers] [images] [fmt] [clippy]
                              only the static checks (all four, or the named ones); images: every
                              image README.md and docs/*.md show is made by `screenshots`, and exists
  screenshots [--only NAME...] [--out-dir DIR] [--list]
                              render every image the docs show from the current build (Xvfb, llvmpipe;
                              the editor; preset maps) into docs/images (or DIR); --list: the table
  gdscript [--fix]            gdlint and gdformat --check over the GDScript (--fix: reformat)
  preview (PRESET | --shipped) --out DIR [--size PX] [--cell UNITS] [--center X,Z]
                              render a preset (.tres/.ron) to height/relief/biome/cave PNGs, with the
                              land's power-spectrum slope and slope angles in height.json; --shipped:
                              every shipped preset into DIR/<name>/ and their figures in realism.json
  pca FILE.asc [--components 1,2,4,8,16,32] [--out DIR] [--json]
                              principal components of an elevation grid: detail lost, RMSE and largest
                              error per k, PNGs of each reconstruction and its error in DIR;
                              --save-components K --out FILE.spca writes a k-component heightmap
  demo [--view-distance N] [--seconds S] [-- ARGS]
                              windowed demo with a display; else headless + Xvfb-rendered flythrough
  server --world FILE [--port N] [--preset FILE] [--seed N] [--autosave S] [--max-players N] [--status FILE]
                              the dedicated multiplayer server (headless Godot); resumes from FILE and its
                              journal, saves every S seconds and on SIGTERM/Ctrl+C
  loadtest [--clients 8] [--processes 1] [--layout cluster|spread] [--rate 20] [--seconds 60] [--view 2]
           [--max-players N] [--bots-nice 10]
                              a dedicated server and N players (over P processes at that niceness, near
                              one spot or far apart) editing RATE times a second each: edits acknowledged
                              and lost, latency p50/p99, server frame (wall and CPU), bytes each player
                              receives, join time
  net-check                   the multi-process multiplayer check of `test` alone (server, 4 clients, SIGKILL)
  net-check-2d                the same for a shared side view (side-view server, 4 clients, SIGKILL, journal)
  movement-soak [--minutes N] [--no-build]
                              one server and a bot per honest move of the demo's player (walk, sprint, jump,
                              crouch, fall, swim, lag) for N minutes (default 5): seconds, poses and
                              corrections per move; fails on any correction (--no-build: the installed extension)
  crash [--kills N] [--seed S] SIGKILL Godot N times (default 200) while it saves a world; every
                              time the file must load and hold the last completed save or the next
  bench [NAME...]             strata-core's benchmarks → target/bench/summary.json
  fuzz [--minutes N] [--cases N]
                              strata-tests' fuzz tests (tests/tests/fuzz*.rs) with N cases per property
                              (STRATA_FUZZ_CASES, default 20000), round after round for N minutes (default 10)
  fuzz --coverage [--minutes N] [--jobs N] [--target NAME]...
                              coverage-guided fuzzing (AFL++ via cargo-afl, installed when missing) of every
                              decoder of outside bytes (rust/strata-fuzz), N minutes per target (default 10);
                              prints executions, corpus, crashes and hangs per target and copies every crash
                              or hang into tests/fuzz_regressions/<target>/
  package [--windows|--arm64|--all] [--check-fresh]
                              the addon zip: release libraries (profile dist: stripped, thin LTO),
                              <target>/package/strata-<version>.zip holding addons/strata/;
                              --windows also cross-builds Windows x86_64 (MinGW-w64 into .tools/mingw);
                              --arm64 also Linux arm64 (Debian's aarch64 gcc into .tools/arm64);
                              --check-fresh unpacks it into an empty project and streams a world
  platforms [windows|arm64|macos|all] [--no-suite] [--filter TEXT]
                              the platforms this machine cannot boot, as far as each goes: arm64 built,
                              loaded by Debian's arm64 Godot under qemu-aarch64, its suite, golden tests
                              and fingerprints against x86_64; the Windows DLL built (no Windows Godot
                              here); macOS checked and built up to Apple's SDK; prints the table
  textures [--check]          draw the default block textures (16x16 and 32x32 PNGs from seeded
                              noise) into godot_project/addons/strata/textures/blocks/ and
                              blocks_32/ (--check: fail if stale)
  structures [--check]        write the demo's structures (built in code) as MagicaVoxel .vox files into
                              godot_project/game/structures/ (--check: fail if stale)

environment:
  GODOT=/path/to/godot        use this Godot (must be >= 4.6) instead of PATH / .tools/godot
  STRATA_GODOT_TEST_TIMEOUT   seconds allowed for the Godot suite (default 600)
  STRATA_DEBIAN_MIRROR        Debian mirror for the Godot install (default: the system's)";

/// Prints a major step (`==> ...`) to stderr.
pub fn step(msg: impl std::fmt::Display) {
    eprintln!("[xtask] ==> {msg}");
}

/// Prints a detail line to stderr.
pub fn note(msg: impl std::fmt::Display) {
    eprintln!("[xtask]     {msg}");
}

/// Prints a warning to stderr.
pub fn warn(msg: impl std::fmt::Display) {
    eprintln!("[xtask] warning: {msg}");
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("[xtask] error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode> {
    let Some((cmd, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return Ok(ExitCode::from(2));
    };
    match cmd.as_str() {
        "setup" => setup::run(rest).map(|()| ExitCode::SUCCESS),
        "godot" => {
            // `--xvfb`: render for real without a display (Xvfb + Mesa llvmpipe, OpenGL 3).
            let (xvfb, rest) = match rest.split_first() {
                Some((first, tail)) if first == "--xvfb" => (true, tail),
                _ => (false, rest),
            };
            let rest = rest.strip_prefix(&["--".to_string()]).unwrap_or(rest);
            let godot = godot_install::ensure_godot()?;
            let mut cmd = if xvfb {
                let mut c = godot.xvfb_command("1280x720x24")?;
                c.args([
                    "--rendering-driver",
                    "opengl3",
                    "--rendering-method",
                    "gl_compatibility",
                    "--audio-driver",
                    "Dummy",
                ]);
                c
            } else {
                godot.command()
            };
            // Keep the caller's working directory so relative paths in ARGS work.
            cmd.current_dir(std::env::current_dir()?);
            cmd.args(rest);
            Err(godot_run::exec(cmd))
        }
        "test" => test_suite::run(rest).map(|ok| if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }),
        "lint" => lint::run(rest).map(|ok| if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }),
        "demo" => demo::run(rest),
        "gdscript" => gdscript_lint::run(rest).map(|ok| if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }),
        "preview" => preview::run(rest).map(|()| ExitCode::SUCCESS),
        "pca" => pca::run(rest).map(|()| ExitCode::SUCCESS),
        "server" => net_test::server(rest).map(|ok| if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }),
        "loadtest" => loadtest::loadtest(rest).map(|ok| if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }),
        "net-check" => net_test::check(rest).map(|ok| if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }),
        "net-check-2d" => net_test_2d::check(rest).map(|ok| if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }),
        "movement-soak" => movement_soak::run(rest).map(|ok| if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }),
        "crash" => crash::run(rest).map(|ok| if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }),
        "bench" => bench::run(rest).map_err(error::Error::msg),
        "fuzz" => fuzz::run(rest),
        "textures" => textures::run(rest),
        "screenshots" => screenshots::run(rest),
        "structures" => structures::run(rest),
        "package" => package::run(rest).map(|()| ExitCode::SUCCESS),
        "platforms" => platforms::run(rest),
        "help" | "-h" | "--help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => bail!("unknown command `{other}`\n{USAGE}"),
    }
}
