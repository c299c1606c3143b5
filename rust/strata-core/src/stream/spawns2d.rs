//! The side-view worker's spawns: where a streamed chunk's objects start, taken from its
//! generated tiles before any edit is applied (so digging never renumbers the spawns a save
//! names), with the light of those generated tiles for rules that filter by light.
//!
//! May use: `gen2d` (the generator and its spawns), `light`, `stream::lighting2d`.

use crate::gen2d::spawns::SpawnPoint2D;
use crate::gen2d::{ChunkCoord2D, Generator2D, TileGrid};
use crate::light::LightProps;
use crate::light::light2d::TileLightScratch;
use crate::stream::lighting2d::light_chunk_tiles;
use std::collections::HashMap;

/// The spawn points of chunk `c` from `generated` (its padded box or light box as generated, no
/// edits). With `light` (the world's light table and the worker's scratch) the rules that
/// filter by light get the generated tiles' light (computed only when a rule asks); without it
/// they place nothing.
pub(crate) fn chunk_spawns_2d(
    generator: &Generator2D,
    c: ChunkCoord2D,
    generated: &TileGrid,
    light: Option<(&LightProps, &mut TileLightScratch)>,
) -> Vec<SpawnPoint2D> {
    let rules = &generator.preset().spawns.rules;
    if rules.is_empty() && generator.preset().structures.rules.iter().all(|r| r.entity.is_empty()) {
        return Vec::new();
    }
    let lit = match light {
        Some((props, scratch)) if rules.iter().any(|r| r.filters_light()) => {
            light_chunk_tiles(generator, c, generated, &HashMap::new(), props, scratch).ok()
        }
        _ => None,
    };
    let lookup = lit.map(|l| move |x: i32, y: i32| l.get(x, y).map_or(0, |v| v.combined()));
    generator.spawn_chunk(c, generated, lookup.as_ref().map(|f| f as &dyn Fn(i32, i32) -> u8))
}
