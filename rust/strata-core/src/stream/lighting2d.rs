//! Light for the streamed side view: what [`crate::light::light2d`] needs to light a rectangle of
//! the world (its tiles with edits, and the sky exposure of its columns), the light of one
//! streamed chunk, the exposure of one column for an edit on the main thread, and the light of
//! one tile for queries.
//!
//! Both inputs come from the generator and the edits only, never from other loaded chunks, so a
//! chunk's light is the same whichever chunks were loaded first or at all (laws: Deterministic,
//! Seamless).
//!
//! * The exposure of a column is the first row, from the top, whose tile is not clear. Every
//!   generated tile above a column's topmost ground or water tile ([`Generator2D::profile`]'s
//!   `water_top`) is air, so the walk starts there, or higher at an edited tile that is not clear,
//!   and goes down through the tiles (edits first) a slab at a time ([`EXPOSURE_SLAB_2D`] rows,
//!   generated for the columns still open) until something stops the sky or the rectangle's
//!   tiles take over. Usually the first tile stops it (grass, sand, water).
//! * [`light_chunk_tiles`] lights a chunk from the chunk padded by [`LIGHT2D_MARGIN`] (what the
//!   worker generates), and gives the light it is drawn with ([`drawn_light_2d`]).
//! * [`column_exposure_2d`] answers one column, cheap enough for the main thread to tell which
//!   chunks an edit relights ([`crate::light::light2d::LightEdit2D`]); [`light_at_2d`] one tile.
//!
//! May use: `base`, `gen2d`, `light`.

use crate::base::block::{AIR, BlockId};
use crate::base::coords::{IVec3, clamp_to_world};
use crate::base::edits::EditMap;
use crate::gen2d::{ChunkCoord2D, Generator2D, TileGrid};
use crate::light::light2d::{
    LIGHT2D_MARGIN, LIGHT2D_SHELL, TileLight, TileLightScratch, drawn_light_2d, light_chunk_2d, light_tiles,
};
use crate::light::{LIGHT_REACH, Light, LightError, LightProps};
use std::collections::HashMap;

/// Height of the slabs generated above a rectangle to find where each column's sky ends, in tiles.
pub const EXPOSURE_SLAB_2D: i32 = 64;

/// How far down [`column_exposure_2d`] walks before it stops and answers where it got to.
pub const COLUMN_EXPOSURE_SEARCH_DEPTH_2D: i32 = 1024;

/// A streamed chunk's light: the chunk and its [`LIGHT2D_SHELL`] (`light`), and the light each
/// tile of the chunk and a one-tile ring is drawn with (`drawn`: `(n + 2)²` tiles, two bytes a
/// tile, sky and block, each level × 17; see [`drawn_light_2d`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkLight2D {
    pub light: TileLight,
    pub drawn: Vec<u8>,
}

impl ChunkLight2D {
    /// The light of world tile `(x, y)` when the chunk's light holds it.
    pub fn get(&self, x: i32, y: i32) -> Option<Light> {
        self.light.get(x, y)
    }
}

/// The exposure of every column of `tiles` (the world's tiles over that rectangle, edits
/// applied). `above` holds the edits of those columns above the rectangle (rows before its top).
/// Values at or above the rectangle's top mean "closed above it", at its bottom "open through it".
pub fn exposures(
    generator: &Generator2D,
    tiles: &TileGrid,
    above: &HashMap<(i32, i32), BlockId>,
    props: &LightProps,
) -> Vec<i32> {
    let (x0, w, top, bottom) = (tiles.min_x, tiles.width, tiles.min_y, tiles.min_y + tiles.height);
    if !props.is_clear(AIR) {
        // Generated air stops the sky: every column is closed far above.
        return vec![i32::MIN; w as usize];
    }
    let profile = generator.profile(x0, w);
    // Where each column's walk stands: the topmost tile that may stop the sky.
    let mut at: Vec<i32> = (x0..x0 + w).map(|x| profile.top_at(x)).collect();
    for (&(x, y), &id) in above {
        let c = (x - x0) as usize;
        if x >= x0 && x < x0 + w && y < top && !props.is_clear(id) && y < at[c] {
            at[c] = y;
        }
    }
    let mut done = vec![false; w as usize];
    // Above the rectangle: slabs of generated tiles for the columns still open.
    loop {
        let open: Vec<usize> = (0..w as usize).filter(|&c| !done[c] && at[c] < top).collect();
        let Some(&first) = open.iter().min_by_key(|&&c| at[c]) else { break };
        let y0 = at[first];
        let h = EXPOSURE_SLAB_2D.min(top - y0);
        let (ca, cb) = (open[0], open[open.len() - 1]);
        let slab = generator.generate_region(x0 + ca as i32, y0, (cb - ca + 1) as i32, h);
        for c in open {
            let x = x0 + c as i32;
            while at[c] < y0 + h {
                let y = at[c];
                let id = above.get(&(x, y)).copied().or_else(|| slab.get(x, y)).unwrap_or(AIR);
                if !props.is_clear(id) {
                    done[c] = true;
                    break;
                }
                at[c] += 1;
            }
        }
    }
    // Inside the rectangle: its own tiles (edits applied) decide.
    for c in 0..w as usize {
        if done[c] {
            continue;
        }
        // From the top row: the rectangle's own edits may stop the sky above `at[c]`.
        let x = x0 + c as i32;
        let mut y = top;
        while y < bottom && tiles.get(x, y).is_some_and(|id| props.is_clear(id)) {
            y += 1;
        }
        at[c] = y;
    }
    at
}

/// The edits a light job for the rectangle of columns `[min_x, min_x + width)` down to row
/// `bottom` (exclusive) needs: those of its rows, then those above it.
pub fn edits_for_light_2d(edits: &EditMap, min_x: i32, width: i32, bottom: i32) -> Vec<(IVec3, BlockId)> {
    edits.edits_in_columns_to(min_x, width, 0, bottom)
}

/// The rectangle a chunk's light job generates: the chunk padded by [`LIGHT2D_MARGIN`], as
/// `(min_x, min_y, side)`.
pub fn light_box(c: ChunkCoord2D, chunk_tiles: i32) -> (i32, i32, i32) {
    let (x, y) = c.min_tile(chunk_tiles);
    (x - LIGHT2D_MARGIN, y - LIGHT2D_MARGIN, chunk_tiles + 2 * LIGHT2D_MARGIN)
}

/// The light of chunk `c` from `padded` (its [`light_box`], generated, edits applied) and the
/// edits above it (`above`, by tile).
pub fn light_chunk_tiles(
    generator: &Generator2D,
    c: ChunkCoord2D,
    padded: &TileGrid,
    above: &HashMap<(i32, i32), BlockId>,
    props: &LightProps,
    scratch: &mut TileLightScratch,
) -> Result<ChunkLight2D, LightError> {
    let n = generator.chunk_tiles();
    let exposure = exposures(generator, padded, above, props);
    let mut light = TileLight::default();
    light_chunk_2d(c.min_tile(n), n, &padded.tiles, &exposure, props, &mut light, scratch)?;
    let drawn = drawn_light_2d(&light, props, |x, y| padded.get(x, y).unwrap_or(AIR));
    debug_assert_eq!(light.width, n + 2 * LIGHT2D_SHELL);
    Ok(ChunkLight2D { light, drawn })
}

/// The exposure of column `x` with `edits` (the first row, from the top, whose tile is not
/// clear), by walking down from its ground, water or highest edited tile that is not clear; at
/// most [`COLUMN_EXPOSURE_SEARCH_DEPTH_2D`] tiles, answering the last one reached when the walk
/// goes deeper (a shaft into a vast cave).
pub fn column_exposure_2d(generator: &Generator2D, edits: Option<&EditMap>, props: &LightProps, x: i32) -> i32 {
    if !props.is_clear(AIR) {
        return i32::MIN;
    }
    let x = clamp_to_world(x);
    let mut y = generator.profile(x, 1).top_at(x);
    if let Some(e) = edits {
        for (p, id) in e.edits_in_column(x, 0) {
            if !props.is_clear(id) && p.y < y {
                y = p.y;
            }
        }
    }
    let floor = y.saturating_add(COLUMN_EXPOSURE_SEARCH_DEPTH_2D);
    while y < floor {
        let slab = generator.generate_region(x, y, 1, EXPOSURE_SLAB_2D);
        for _ in 0..EXPOSURE_SLAB_2D {
            let id = edits.and_then(|e| e.get(IVec3::new(x, y, 0))).or_else(|| slab.get(x, y)).unwrap_or(AIR);
            if !props.is_clear(id) {
                return y;
            }
            y += 1;
        }
    }
    y
}

/// The light of tile `(x, y)` of the world with `edits`: the tiles within [`LIGHT_REACH`] of it
/// generated, edits applied, and their columns' exposure walked. Exact wherever it is asked.
pub fn light_at_2d(
    generator: &Generator2D,
    edits: Option<&EditMap>,
    props: &LightProps,
    x: i32,
    y: i32,
) -> Result<Light, LightError> {
    let r = LIGHT_REACH;
    let side = 2 * r + 1;
    let (x0, y0) = (x.saturating_sub(r), y.saturating_sub(r));
    let mut tiles = generator.generate_region(x0, y0, side, side);
    let mut above = HashMap::new();
    if let Some(e) = edits {
        for (p, id) in edits_for_light_2d(e, x0, side, y0 + side) {
            if p.y >= y0 {
                tiles.set(p.x, p.y, id);
            } else {
                above.insert((p.x, p.y), id);
            }
        }
    }
    let exposure = exposures(generator, &tiles, &above, props);
    let mut out = TileLight::default();
    light_tiles(&tiles.tiles, x0, y0, side, side, &exposure, props, &mut out, &mut TileLightScratch::default())?;
    Ok(out.get(x, y).unwrap_or(Light::DARK))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::STONE;
    use crate::preset::model::WorldPreset;
    use crate::stream::stream2d::{ChunkResult2D, StreamConfig2D, Streamer2D};
    use std::collections::BTreeMap;
    use std::ops::Not;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn torch() -> BlockId {
        crate::base::block_library::default_library().id_of("torch").expect("the default library has a torch")
    }

    fn streamer(g: &Arc<Generator2D>, workers: usize, edits: &EditMap) -> Streamer2D {
        let config = StreamConfig2D {
            view_distance: 1,
            worker_threads: workers,
            light: Some(Arc::new(LightProps::default_blocks())),
            ..Default::default()
        };
        let mut s = Streamer2D::new(g.clone(), config).unwrap();
        s.replace_edits(edits.clone());
        s
    }

    /// Streams until ready, keeping each chunk's latest light.
    fn drain(s: &mut Streamer2D, lights: &mut BTreeMap<ChunkCoord2D, ChunkLight2D>) -> Vec<ChunkResult2D> {
        let start = Instant::now();
        let mut got = Vec::new();
        while !s.is_area_ready() {
            assert!(start.elapsed() < Duration::from_secs(120), "stream never became ready");
            s.pump();
            match s.try_recv() {
                Some(mut r) => {
                    lights.insert(r.coord, r.light.take().expect("light on: every result has light"));
                    got.push(r);
                }
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        got
    }

    fn light_of(lights: &BTreeMap<ChunkCoord2D, ChunkLight2D>, n: i32, x: i32, y: i32) -> Light {
        lights[&ChunkCoord2D::containing(x, y, n)].get(x, y).expect("the chunk holds its tiles")
    }

    #[test]
    fn streamed_light_is_seamless_and_the_same_in_any_order() {
        let g = Arc::new(Generator2D::new(&WorldPreset::default()).unwrap());
        let n = g.chunk_tiles();
        let props = LightProps::default_blocks();
        let (x, row) = (20, g.surface_row(20));
        let mut edits = EditMap::new();
        // A torch in a cave of the world, a shaft, some placed stone in the sky.
        edits.set(IVec3::new(x + 3, row - 4, 0), STONE);
        for y in row..row + 30 {
            edits.set(IVec3::new(x, y, 0), AIR);
        }
        edits.set(IVec3::new(x + 1, row + 29, 0), torch());
        let mut lights = Vec::new();
        for (workers, viewers) in [(1, [(x, row), (x + 3 * n, row + 2 * n)]), (3, [(x + 3 * n, row + 2 * n), (x, row)])]
        {
            let mut s = streamer(&g, workers, &edits);
            let mut l = BTreeMap::new();
            for (vx, vy) in viewers {
                s.set_viewer(vx as f64, vy as f64);
                drain(&mut s, &mut l);
            }
            lights.push(l);
        }
        let (a, b) = (&lights[0], &lights[1]);
        let common: Vec<_> = a.keys().filter(|c| b.contains_key(c)).collect();
        assert!(common.len() >= 9, "the viewer's chunks");
        for c in common {
            assert_eq!(a[c], b[c], "chunk {c:?} in another order and thread count (law: Deterministic)");
        }
        // A chunk's light (shell included) equals the world's light of each tile, queried alone.
        let c = ChunkCoord2D::containing(x, row, n);
        let light = &a[&c].light;
        for (dx, dy) in [(0, 0), (1, 29), (2, 27), (-2, -1), (n + 1, 5), (-2, n + 1), (3, -4), (x % n, 1)] {
            let (tx, ty) = (light.min_x + dx.clamp(0, light.width - 1), light.min_y + dy.clamp(0, light.height - 1));
            let alone = light_at_2d(&g, Some(&edits), &props, tx, ty).unwrap();
            assert_eq!(light.get(tx, ty), Some(alone), "tile ({tx}, {ty}) (law: Seamless)");
        }
        assert_eq!(light_of(a, n, x, row + 10).sky(), 15, "the shaft lets the sky down");
        assert_eq!(light_of(a, n, x + 1, row + 29).block(), 14, "the torch");
    }

    #[test]
    fn edits_relight_a_sealed_cave_exactly() {
        let g = Arc::new(Generator2D::new(&WorldPreset::default()).unwrap());
        let n = g.chunk_tiles();
        // A dry column for the shaft (x + 3): no pool above it.
        let x = (-40..200).find(|&x| g.profile(x + 3, 1).is_wet(x + 3).not()).expect("a dry column");
        let row = g.surface_row(x + 3);
        // A sealed room 40 tiles under the ground: stone around, air inside.
        let (top, bottom) = (row + 40, row + 44);
        let mut edits = EditMap::new();
        for y in top - 1..=bottom + 1 {
            for tx in x - 5..=x + 5 {
                let inside = y >= top && y <= bottom && tx > x - 5 && tx < x + 5;
                edits.set(IVec3::new(tx, y, 0), if inside { AIR } else { STONE });
            }
        }
        let mut s = streamer(&g, 2, &edits);
        s.set_viewer(x as f64, top as f64);
        let mut lights = BTreeMap::new();
        drain(&mut s, &mut lights);
        assert_eq!(light_of(&lights, n, x, top + 2), Light::DARK, "a sealed cave is dark");
        // A torch lights it; only the chunks its light reaches come back, with their tiles unchanged
        // unless they show the torch.
        s.set_tile(x - 2, bottom, torch());
        let relit = drain(&mut s, &mut lights);
        assert!(!relit.is_empty() && relit.iter().all(|r| r.is_update));
        assert_eq!(light_of(&lights, n, x - 2, bottom).block(), 14, "the torch");
        assert_eq!(light_of(&lights, n, x + 2, top + 1).block(), 14 - 4 - 3, "seven tiles from it");
        // A shaft from the surface down into it lets the sky in.
        for y in row..top {
            s.set_tile(x + 3, y, AIR);
        }
        drain(&mut s, &mut lights);
        assert_eq!(light_of(&lights, n, x + 3, bottom).sky(), 15, "the sky straight down the shaft");
        assert_eq!(light_of(&lights, n, x, bottom).sky(), 12, "three tiles aside");
        // Every loaded chunk equals a fresh world's light with the same edits (no chunk missed).
        let mut fresh = streamer(&g, 2, s.edits());
        fresh.set_viewer(x as f64, top as f64);
        let mut again = BTreeMap::new();
        drain(&mut fresh, &mut again);
        for (c, l) in &again {
            assert_eq!(lights.get(c), Some(l), "chunk {c:?} relit as lit from scratch");
        }
        // Closing the shaft at the top makes it dark to the sky again.
        s.set_tile(x + 3, row, STONE);
        drain(&mut s, &mut lights);
        assert_eq!(light_of(&lights, n, x + 3, bottom).sky(), 0, "closed: no sky");
    }

    #[test]
    fn the_exposure_walks_past_dug_tiles_and_stops_at_placed_ones() {
        let g = Generator2D::new(&WorldPreset::default()).unwrap();
        let props = LightProps::default_blocks();
        let x = 5;
        let top = g.profile(x, 1).water_top_at(x);
        assert_eq!(column_exposure_2d(&g, None, &props, x), top, "the ground's top tile");
        let mut edits = EditMap::new();
        for y in top..top + 3 {
            edits.set(IVec3::new(x, y, 0), AIR);
        }
        let dug = column_exposure_2d(&g, Some(&edits), &props, x);
        assert!(dug >= top + 3, "three dug: {dug}");
        edits.set(IVec3::new(x, top - 50, 0), STONE);
        assert_eq!(column_exposure_2d(&g, Some(&edits), &props, x), top - 50, "a block placed in the sky");
    }
}
