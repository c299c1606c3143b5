//! Side-view spawns: where the objects of the game's own library start in a side-view world, per
//! chunk, as a pure function of seed, rule and chunk (laws: Deterministic, Seamless).
//!
//! The preset's spawn rules are the 3D world's (`spawns.rules`), read in tiles. For rule `i` and
//! chunk `c` the clusters are those of [`crate::base::clusters`] for the key `(c.x, c.y, 0)`: a
//! cluster's centre is a hashed column of the chunk and a member stands `cluster_spread · √u ·
//! cos θ` tiles beside it (the disc of the 3D draw seen from the side). A member is dropped when
//! its column lies outside the chunk, its habitat has no place in the column inside the chunk
//! (so a spawn belongs to exactly one chunk), its light is outside the rule's range, or it is
//! closer than `min_spacing` tiles to a member of the same rule already placed in the chunk. A
//! member keeps the index `32k + m` whether or not earlier ones were dropped, so a point's
//! [`SpawnKey`] names the same object in every run.
//!
//! Side-view worlds have no biomes: a rule that names biomes is refused
//! ([`check_spawn_rules_2d`], when the generator is built). The habitats, read in the generated
//! tiles (y down; edits are never read, so digging does not renumber the spawns a save names):
//! - `Surface`: the tile above the column's ground (`surface_row − 1`), when it lies in the
//!   chunk, is open (neither solid nor liquid) with solid ground under it;
//! - `Cave`: an open tile with an open tile above and a solid floor below, `depth_min..=depth_max`
//!   (at least 1) tiles below the column's surface row; among those in the chunk, one by hash;
//! - `Underground`: a solid tile (a buried object) in the same depth range, one by hash;
//! - `Water`: a liquid tile of the column inside the chunk, one by hash.
//!
//! A member's position (world tiles, `f64`) is its fractional x and the bottom edge of its tile
//! (where it stands; for water the tile's centre).
//!
//! A structure rule with an `entity` adds one object per structure ([`structure_entities_2d`]):
//! on the highest floor (an open tile over a solid one, inside the structure's box) of the box's
//! centre column, as spawn rule [`FIRST_STRUCTURE_SPAWN_RULE`] + the structure rule's index.
//!
//! May use: `base`, `preset`, `gen2d`'s tile grid, chunk coordinates and placements.

use crate::base::block::{is_liquid, is_solid};
use crate::base::clusters::{SpawnKey, cluster_members, spawn_key};
use crate::base::rng::{mix64, salt};
use crate::gen2d::structures::Placement2D;
use crate::gen2d::{ChunkCoord2D, TileGrid};
use crate::preset::model::{FIRST_STRUCTURE_SPAWN_RULE, SpawnHabitat, SpawnRule, WorldPreset};
use thiserror::Error;

/// One object to start in a side-view world: rule, member index and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpawnPoint2D {
    /// Index of the rule in the preset's `spawns.rules` (or [`FIRST_STRUCTURE_SPAWN_RULE`] + a
    /// structure rule's index).
    pub rule: u16,
    /// The member's index in its chunk and rule (`32 · cluster + member`).
    pub index: u16,
    /// World position in tiles (y down): the member's x, the bottom edge of its tile (centre for
    /// water). `f64`: exact anywhere in the world.
    pub position: [f64; 2],
}

impl SpawnPoint2D {
    /// The point's name within its chunk.
    pub fn key(&self) -> SpawnKey {
        spawn_key(self.rule, self.index)
    }

    /// The tile the object stands in.
    pub fn tile(&self) -> [i32; 2] {
        crate::base::coords::standing_tile(self.position)
    }
}

/// Why a preset's spawn rules cannot start objects in a side-view world.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SpawnError2D {
    #[error(
        "spawns.rules[{rule}].biomes: {biomes:?}, but side-view worlds have no biomes; allowed: an empty list (the rule then spawns in every column, by habitat and depth)"
    )]
    Biomes { rule: usize, biomes: Vec<String> },
}

/// Checks that every spawn rule of `preset` (validated) can start objects in a side view.
pub fn check_spawn_rules_2d(preset: &WorldPreset) -> Result<(), SpawnError2D> {
    match preset.spawns.rules.iter().position(|r| !r.biomes.is_empty()) {
        Some(rule) => Err(SpawnError2D::Biomes { rule, biomes: preset.spawns.rules[rule].biomes.clone() }),
        None => Ok(()),
    }
}

/// The spawn points of chunk `c` (chunks of `chunk_tiles` tiles): every rule of `preset`, in
/// rule order, then member order. `tiles` must hold the chunk's generated tiles with at least one
/// tile of margin above and below; `surface_row` gives a column's topmost generated ground row.
/// `light` gives the combined light of a tile and is asked only for rules that filter by light
/// ([`SpawnRule::filters_light`]); without it, such rules place nothing.
pub fn spawn_chunk_2d(
    preset: &WorldPreset,
    c: ChunkCoord2D,
    chunk_tiles: i32,
    tiles: &TileGrid,
    surface_row: &dyn Fn(i32) -> i32,
    light: Option<&dyn Fn(i32, i32) -> u8>,
) -> Vec<SpawnPoint2D> {
    let n = chunk_tiles;
    let (x0, y0) = c.min_tile(n);
    let mut out: Vec<SpawnPoint2D> = Vec::new();
    for (i, rule) in preset.spawns.rules.iter().enumerate() {
        if rule.filters_light() && light.is_none() {
            continue;
        }
        let start = out.len();
        let spacing_sq = f64::from(rule.min_spacing) * f64::from(rule.min_spacing);
        for member in cluster_members(preset.seed, salt::SPAWN, i, rule.density, rule.cluster_size, [c.x, c.y, 0]) {
            let lx = member.offset(n as f32, rule.cluster_spread)[0];
            if !(0.0..n as f32).contains(&lx) {
                continue;
            }
            let x = f64::from(x0) + f64::from(lx);
            let column = x.floor() as i32;
            let rows = (y0, y0 + n);
            let Some(row) = habitat_row(rule, tiles, column, rows, surface_row(column), mix64(member.hash ^ 0x5eed))
            else {
                continue;
            };
            if rule.filters_light() {
                let l = light.map_or(0, |f| f(column, row));
                if l < rule.light_min || l > rule.light_max {
                    continue;
                }
            }
            let lift = if rule.habitat == SpawnHabitat::Water { 0.5 } else { 1.0 };
            let position = [x, f64::from(row) + lift];
            let near = |p: &SpawnPoint2D| (p.position[0] - x).powi(2) + (p.position[1] - position[1]).powi(2);
            if out[start..].iter().any(|p| near(p) < spacing_sq) {
                continue;
            }
            out.push(SpawnPoint2D { rule: i as u16, index: member.index, position });
        }
    }
    out
}

/// The row of the tile a member of `rule` stands in at `column`, if the column has a place of
/// the rule's habitat within `rows` (the chunk's, `[top, bottom)`); `surface` is the column's
/// topmost ground row.
fn habitat_row(
    rule: &SpawnRule,
    tiles: &TileGrid,
    column: i32,
    rows: (i32, i32),
    surface: i32,
    pick: u64,
) -> Option<i32> {
    let at = |y: i32| tiles.get(column, y);
    let open = |y: i32| at(y).is_some_and(|b| !is_solid(b) && !is_liquid(b));
    let solid = |y: i32| at(y).is_some_and(is_solid);
    // The rows `depth_min..=depth_max` (at least 1) below the surface, within the chunk.
    let depths = || {
        let lo = surface.saturating_add(rule.depth_min.max(1)).max(rows.0);
        let hi = surface.saturating_add(rule.depth_max).min(rows.1 - 1);
        lo..=hi
    };
    let places: Vec<i32> = match rule.habitat {
        SpawnHabitat::Surface => {
            let y = surface.saturating_sub(1);
            return ((rows.0..rows.1).contains(&y) && open(y) && solid(y + 1)).then_some(y);
        }
        SpawnHabitat::Cave => depths().filter(|&y| open(y) && open(y - 1) && solid(y + 1)).collect(),
        SpawnHabitat::Underground => depths().filter(|&y| solid(y)).collect(),
        SpawnHabitat::Water => (rows.0..rows.1).filter(|&y| at(y).is_some_and(is_liquid)).collect(),
    };
    (!places.is_empty()).then(|| places[(pick % places.len() as u64) as usize])
}

/// The objects of structure rules with an `entity` whose floor point lies in chunk `c`:
/// `placements` are the structures over the chunk's columns (in stamping order), `tiles` the
/// chunk's generated tiles with a tile of margin. Numbered per rule in placement order.
pub fn structure_entities_2d(
    preset: &WorldPreset,
    placements: &[Placement2D],
    c: ChunkCoord2D,
    chunk_tiles: i32,
    tiles: &TileGrid,
) -> Vec<SpawnPoint2D> {
    let (x0, y0) = c.min_tile(chunk_tiles);
    let (columns, rows) = (x0..x0 + chunk_tiles, y0..y0 + chunk_tiles);
    let mut out = Vec::new();
    let mut counts = vec![0u16; preset.structures.rules.len()];
    for p in placements {
        let Some(rule) = preset.structures.rules.get(p.rule as usize) else { continue };
        let x = p.min_x + p.width / 2;
        if rule.entity.is_empty() || !columns.contains(&x) {
            continue;
        }
        let at = |y: i32| tiles.get(x, y);
        let floor = (p.min_y..p.max_y() - 1)
            .find(|&y| at(y).is_some_and(|b| !is_solid(b) && !is_liquid(b)) && at(y + 1).is_some_and(is_solid));
        let Some(y) = floor.filter(|y| rows.contains(y)) else { continue };
        let n = &mut counts[p.rule as usize];
        out.push(SpawnPoint2D {
            rule: FIRST_STRUCTURE_SPAWN_RULE + p.rule,
            index: *n,
            position: [f64::from(x) + 0.5, f64::from(y) + 1.0],
        });
        *n += 1;
    }
    out
}

#[cfg(test)]
#[path = "spawn_tests.rs"]
mod tests;
