//! The multi-process check of shared side views (`cargo xtask test`, or alone
//! `cargo xtask net-check-2d`): the dedicated server serving a `StrataChunkWorld2D`
//! (`--side-view`) and headless clients running `tests/godot/tools/net_client_2d.gd`, over
//! 127.0.0.1, as [`crate::net_test`] checks the 3D world.
//!
//! Two players edit at once (single tiles and a rectangle, which travels as one shape edit) and
//! both end with the same chunks (`StrataChunkWorld2D.debug_chunk_hash`); a late joiner catches
//! up; the server is killed with SIGKILL and its save and journal hold every acknowledged tile; a
//! restarted server serves exactly that world and numbers on; SIGTERM saves and stops it.
//!
//! May use: the other xtask modules (`net_test`'s processes), strata-core, serde_json.

use crate::error::{Error, Result};
use crate::net_test::{CheckReport, Run, edits_on_disk, report_line};
use crate::{setup, test_project};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use strata_core::gen2d::Generator2D;
use strata_core::persist::save::{SaveOptions, read_world_save};

const CLIENT_SCRIPT: &str = "res://tools/net_client_2d.gd";

/// An acknowledged tile: (order, x, y, block).
type Tile = (u64, i32, i32, u16);

fn acked(answer: &Value) -> Vec<Tile> {
    answer["acked"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| {
                    let v: Vec<i64> = e.as_array()?.iter().filter_map(Value::as_i64).collect();
                    (v.len() == 4).then(|| (v[0] as u64, v[1] as i32, v[2] as i32, v[3] as u16))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn rejected(answer: &Value) -> usize {
    answer["rejected"].as_array().map_or(0, Vec::len) + answer["unanswered"].as_u64().unwrap_or(0) as usize
}

/// The acknowledged tiles (the last edit of each) that the world on disk (the save's edits with
/// the journal replayed, over the generated side view) does not hold: `(x, y, acknowledged, on
/// disk)`. A save keeps the world's edits, which leave out a tile set to what it already was and
/// add the water that flowed, so each tile is compared as the world shows it.
fn tiles_not_on_disk(save: &std::path::Path, tiles: &mut [Tile]) -> Result<Vec<(i32, i32, u16, u16)>> {
    let world = read_world_save(save, SaveOptions::default()).map_err(|e| Error::msg(e.to_string()))?;
    let generator = Generator2D::new(&world.preset).map_err(|e| Error::msg(e.to_string()))?;
    let on_disk = edits_on_disk(save)?;
    tiles.sort();
    let mut last = BTreeMap::new();
    for (_, x, y, block) in tiles.iter() {
        last.insert((*x, *y), *block);
    }
    Ok(last
        .into_iter()
        .filter_map(|((x, y), block)| {
            let shown = on_disk.get(&(x, y, 0)).copied().unwrap_or_else(|| generator.tile_at(x, y));
            (shown != block).then_some((x, y, block, shown))
        })
        .collect())
}

/// The server's status as the failure of a check shows it.
fn server_status_line(run: &Run) -> String {
    run.server_status().map_or_else(|e| e.to_string(), |s| s.to_string())
}

/// The check (see the module docs).
pub fn run_check() -> Result<CheckReport> {
    let godot = setup::prepare(crate::extension::BuildProfile::Dev)?;
    test_project::prepare(&godot)?;
    let run = Run::new(godot, "net2d")?;
    crate::step(format!(
        "Shared side views across processes: a dedicated side-view server and headless clients on 127.0.0.1:{}",
        run.port
    ));
    let mut report = CheckReport::default();
    let mut server = run.server(&["--autosave", "5", "--side-view"])?;
    let client = |name: &str| run.client_running(name, run.port, CLIENT_SCRIPT);
    let mut a = client("ada")?;
    let mut b = client("bo")?;
    for (c, name) in [(&mut a, "ada"), (&mut b, "bo")] {
        let joined = c.ask(&format!("join {name}"), "joined")?;
        report.check(&format!("{name} joins the side view"), joined["player"].as_i64().unwrap_or(0) > 0, || {
            joined.to_string()
        });
    }
    let stood = a.ask("stand 0", "stood")?;
    b.ask("stand 4", "stood")?;
    let row = stood["row"].as_i64().unwrap_or(0) as i32;
    let chunk_y = |y: i32| y.div_euclid(64);
    let hash_box = format!("hash -1 {} 0 {}", chunk_y(row - 8), chunk_y(row + 8));

    // Single tiles and a rectangle from two players at once.
    a.send("tiles 20 1")?;
    b.send("rect -2 -4 2 -3 2")?;
    let ta = a.answer("tiles")?;
    let rb = b.answer("rect")?;
    let mut tiles: Vec<Tile> = acked(&ta);
    tiles.extend(acked(&rb));
    report.check(
        "20 tiles and a rectangle of 10 from two players at once are all acknowledged",
        tiles.len() == 30 && rejected(&ta) + rejected(&rb) == 0,
        || format!("ada {ta}, bo {rb}"),
    );
    a.ask("wait_order 30", "order")?;
    b.ask("wait_order 30", "order")?;
    let ha = a.ask(&hash_box, "hash")?;
    let hb = b.ask(&hash_box, "hash")?;
    report.check(
        "both players hold the same side-view chunks",
        ha["synced"] == true && ha["hashes"] == hb["hashes"],
        || format!("ada {ha}, bo {hb}"),
    );

    // A late joiner.
    let mut c = client("cy")?;
    c.ask("join cy", "joined")?;
    c.ask("stand 1", "stood")?;
    let hc = c.ask(&hash_box, "hash")?;
    report.check("a late joiner gets every earlier tile", hc["synced"] == true && hc["hashes"] == ha["hashes"], || {
        format!("cy {hc}, ada {ha}; server {}", server_status_line(&run))
    });

    // SIGKILL: every acknowledged tile is on disk, and a restarted server serves it.
    server.kill();
    match tiles_not_on_disk(&run.save(), &mut tiles) {
        Ok(missing) => report.check(
            "after SIGKILL the side view's save and journal hold every acknowledged tile",
            missing.is_empty() && tiles.len() == 30,
            || format!("{} of {} acknowledged tiles differ on disk: {missing:?}", missing.len(), tiles.len()),
        ),
        Err(e) => report.check("after SIGKILL the save and journal read", false, || e.to_string()),
    }
    let mut server = run.server(&["--autosave", "5", "--side-view"])?;
    let mut d = client("dee")?;
    d.ask("join dee", "joined")?;
    d.ask("stand 0", "stood")?;
    let hd = d.ask(&hash_box, "hash")?;
    report.check(
        "a side-view server restarted after SIGKILL replays its journal and serves every acknowledged tile",
        hd["synced"] == true && hd["hashes"] == hb["hashes"],
        || format!("dee {hd}, bo before the kill {hb}; server {}", server_status_line(&run)),
    );
    let status = run.server_status()?;
    report.check("the restarted server numbers on from edit 30", status["next_order"] == 30, || status.to_string());
    for p in [&mut a, &mut b, &mut c, &mut d] {
        p.quit();
    }
    let stopped = server.terminate(Duration::from_secs(20));
    report.check(
        "SIGTERM saves the side view and stops the server with exit code 0",
        matches!(stopped, Ok(Some(0))),
        || format!("exit {stopped:?}"),
    );
    let mut errors = Vec::new();
    for p in [&mut a, &mut b, &mut c, &mut d, &mut server] {
        errors.extend(p.errors());
    }
    report.check("no script error or panic in any side-view process", errors.is_empty(), || errors.join("\n"));
    Ok(report)
}

/// `cargo xtask test`'s line for the check, and whether it passed.
pub fn check_line() -> (String, bool) {
    let t = Instant::now();
    let name = "Shared side views across processes (side-view server + 4 headless clients, a rectangle, SIGKILL, journal replay)";
    report_line(name, t, run_check())
}

/// `cargo xtask net-check-2d`: the check alone.
pub fn check(args: &[String]) -> Result<bool> {
    if !args.is_empty() {
        bail!("usage: cargo xtask net-check-2d");
    }
    let (line, ok) = check_line();
    eprintln!("{line}");
    Ok(ok)
}
