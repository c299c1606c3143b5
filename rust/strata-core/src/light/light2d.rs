//! Light of the side view: sky light and block light, 0–15 each, per tile, as pure functions of
//! the tiles over buffers the caller owns. The 3D light's rules ([`crate::light`]'s layer doc)
//! in two dimensions, with tile `y` growing **down** (Godot's and `gen2d`'s convention).
//!
//! * **Sky light** is 15 in every tile above its column's exposure (the first row, from the top
//!   of the world down, whose tile is not clear: [`LightProps::is_clear`]), so full sky light
//!   goes straight down through clear tiles. From there it spreads sideways and down into caves
//!   and water, losing 1 per tile entered, plus the tile's opacity.
//! * **Block light** starts at each emissive tile's emission and spreads the same way.
//! * Opaque tiles take no light from neighbours; an emissive one keeps its own.
//!
//! Formally, with `cost(t) = 1 + opacity(t)`, each channel is the least function with
//! `L(t) = source(t)` for opaque `t` and `L(t) = max(source(t), max over the four neighbours n of
//! L(n) − cost(t))` otherwise: the 3D definition with four neighbours instead of six.
//!
//! ## Why a chunk lit alone equals any larger block (law: Seamless)
//!
//! A source is at most 15 and every step costs at least 1, so a path that gives a tile any light
//! has at most [`LIGHT_REACH`] = 14 steps. [`light_tiles`] takes a rectangle of tiles and the
//! exposure of its columns (a property of the world's column, the same whichever rectangle asks)
//! and returns the light of the rectangle shrunk by 14 on every side: exactly the world's light
//! there. A chunk's light ([`light_chunk_2d`]) covers the chunk and a [`LIGHT2D_SHELL`] of two
//! tiles (what drawing it needs: the light at each tile corner blends the four tiles around it,
//! and an opaque tile is drawn with the light of the tiles it borders) and reads the chunk padded
//! by [`LIGHT2D_MARGIN`] = 16. Nothing else is read: no other chunk's light, no order of calls,
//! no global (law: Deterministic).
//!
//! ## After an edit
//!
//! One changed tile changes light only within 14 steps of itself and of the part of its column
//! whose exposure moved ([`LightEdit2D::bounds`]); the chunks whose light box meets that are
//! [`LightEdit2D::chunks`], which the streamer lights again from scratch.
//!
//! May use: `base`, `light::buffer`, `light::error`, `light::props`, `light::propagate`.

use crate::base::block::BlockId;
use crate::light::buffer::Light;
use crate::light::error::LightError;
use crate::light::propagate::{LIGHT_MAX, LIGHT_REACH};
use crate::light::props::{LightProps, OPAQUE};

/// The tiles a chunk's light holds beyond the chunk on every side: one for the corners of its
/// border tiles, one more for the light an opaque shell tile borders ([`drawn_light_2d`]).
pub const LIGHT2D_SHELL: i32 = 2;
/// The margin of tiles [`light_chunk_2d`] reads around a chunk: shell plus reach.
pub const LIGHT2D_MARGIN: i32 = LIGHT2D_SHELL + LIGHT_REACH;
/// The widest rectangle [`light_tiles`] takes on either side, in tiles.
pub const MAX_TILE_REGION_SIDE: i32 = 8192;

/// The light of a rectangle of tiles, one byte a tile (`sky << 4 | block`, as [`Light`]), row by
/// row from the top-left tile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TileLight {
    pub min_x: i32,
    pub min_y: i32,
    pub width: i32,
    pub height: i32,
    /// `data[(y − min_y)·width + (x − min_x)]`.
    pub data: Vec<u8>,
}

impl TileLight {
    /// Whether world tile `(x, y)` lies inside.
    #[inline]
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.min_x && y >= self.min_y && x - self.min_x < self.width && y - self.min_y < self.height
    }

    /// The light of world tile `(x, y)`, or `None` outside.
    #[inline]
    pub fn get(&self, x: i32, y: i32) -> Option<Light> {
        self.contains(x, y).then(|| Light(self.data[((y - self.min_y) * self.width + (x - self.min_x)) as usize]))
    }

    /// The part `[min_x, min_x + width) × [min_y, min_y + height)`, which must lie inside; `None`
    /// otherwise.
    pub fn crop(&self, min_x: i32, min_y: i32, width: i32, height: i32) -> Option<TileLight> {
        let inside = width >= 0
            && height >= 0
            && self.contains(min_x, min_y)
            && self.contains(min_x + width - 1, min_y + height - 1);
        if !inside {
            return None;
        }
        let mut data = Vec::with_capacity((width * height) as usize);
        for y in min_y..min_y + height {
            let row = ((y - self.min_y) * self.width + (min_x - self.min_x)) as usize;
            data.extend_from_slice(&self.data[row..row + width as usize]);
        }
        Some(TileLight { min_x, min_y, width, height, data })
    }
}

/// Reusable buffers of [`light_tiles`], owned by the worker.
#[derive(Clone, Debug, Default)]
pub struct TileLightScratch {
    level: Vec<u8>,
    buckets: [Vec<u32>; 16],
}

/// The light of the tiles `tiles` (row by row, `width × height` from `(min_x, min_y)`) shrunk
/// by [`LIGHT_REACH`] on every side, into `out`. `exposure` holds one row per column of the
/// rectangle (x from `min_x`): the first row, from the top, whose tile is not clear (sky 15 in
/// every tile above it); any value at or below the rectangle's top row means "closed above the
/// rectangle", any at or beyond its bottom "open through it". Every output tile gets the light it
/// has in the whole world, as long as `tiles` and `exposure` are the world's.
#[allow(clippy::too_many_arguments)]
pub fn light_tiles(
    tiles: &[BlockId],
    min_x: i32,
    min_y: i32,
    width: i32,
    height: i32,
    exposure: &[i32],
    props: &LightProps,
    out: &mut TileLight,
    scratch: &mut TileLightScratch,
) -> Result<(), LightError> {
    let min_side = 2 * LIGHT_REACH + 1;
    if !(min_side..=MAX_TILE_REGION_SIDE).contains(&width) || !(min_side..=MAX_TILE_REGION_SIDE).contains(&height) {
        return Err(LightError::TileRegionSize { width, height, min: min_side, max: MAX_TILE_REGION_SIDE });
    }
    let count = (width * height) as usize;
    if tiles.len() != count {
        return Err(LightError::ColumnCount { what: "tiles", got: tiles.len(), want: count });
    }
    if exposure.len() != width as usize {
        return Err(LightError::ColumnCount { what: "exposure", got: exposure.len(), want: width as usize });
    }
    let r = LIGHT_REACH;
    let (ow, oh) = (width - 2 * r, height - 2 * r);
    *out = TileLight { min_x: min_x + r, min_y: min_y + r, width: ow, height: oh, data: std::mem::take(&mut out.data) };
    out.data.clear();
    out.data.resize((ow * oh) as usize, 0);
    // Local row of each column's exposure, clamped to 0..=height.
    let local_exposure: Vec<i32> =
        exposure.iter().map(|&e| (e as i64 - min_y as i64).clamp(0, height as i64) as i32).collect();
    spread(tiles, width, height, props, scratch, out, 4, |level, buckets| {
        for (x, &e) in local_exposure.iter().enumerate() {
            for y in 0..e {
                let i = (y * width) as usize + x;
                level[i] = LIGHT_MAX;
                buckets[LIGHT_MAX as usize].push(i as u32);
            }
        }
    });
    if props.has_emitters() {
        spread(tiles, width, height, props, scratch, out, 0, |level, buckets| {
            for (i, &id) in tiles.iter().enumerate() {
                let e = props.emission(id);
                if e > 0 {
                    level[i] = e;
                    buckets[e as usize].push(i as u32);
                }
            }
        });
    }
    Ok(())
}

/// One channel: seeds from `seed`, then a breadth-first search over level buckets, brightest
/// first (a tile's first, highest level is final), written into `out` at `shift`.
#[allow(clippy::too_many_arguments)]
fn spread(
    tiles: &[BlockId],
    width: i32,
    height: i32,
    props: &LightProps,
    scratch: &mut TileLightScratch,
    out: &mut TileLight,
    shift: u32,
    seed: impl FnOnce(&mut [u8], &mut [Vec<u32>; 16]),
) {
    let TileLightScratch { level, buckets } = scratch;
    level.clear();
    level.resize(tiles.len(), 0);
    seed(level, buckets);
    let (w, r) = (width as usize, LIGHT_REACH);
    for l in (1..=LIGHT_MAX).rev() {
        let mut k = 0;
        while k < buckets[l as usize].len() {
            let i = buckets[l as usize][k] as usize;
            k += 1;
            if level[i] != l {
                continue; // reached brighter since
            }
            let (x, y) = ((i % w) as i32, (i / w) as i32);
            let (ox, oy) = (x - r, y - r);
            if ox >= 0 && oy >= 0 && ox < out.width && oy < out.height {
                out.data[(oy * out.width + ox) as usize] |= l << shift;
            }
            if l == 1 {
                continue;
            }
            let neighbours = [
                (x > 0, i.wrapping_sub(1)),
                (x + 1 < width, i + 1),
                (y > 0, i.wrapping_sub(w)),
                (y + 1 < height, i + w),
            ];
            for (ok, n) in neighbours {
                if !ok {
                    continue;
                }
                let opacity = props.opacity(tiles[n]);
                if opacity >= OPAQUE || opacity + 1 >= l {
                    continue;
                }
                let v = l - 1 - opacity;
                if v > level[n] {
                    level[n] = v;
                    buckets[v as usize].push(n as u32);
                }
            }
        }
        buckets[l as usize].clear();
    }
}

/// The light of chunk `(chunk_x, chunk_y)` of `chunk_tiles` tiles a side and its
/// [`LIGHT2D_SHELL`], from `tiles`: the chunk padded by [`LIGHT2D_MARGIN`] on every side (edits
/// applied), row by row, and `exposure`, one row per padded column. Equal to the same tiles' light
/// in any larger rectangle (law: Seamless).
pub fn light_chunk_2d(
    chunk_min: (i32, i32),
    chunk_tiles: i32,
    tiles: &[BlockId],
    exposure: &[i32],
    props: &LightProps,
    out: &mut TileLight,
    scratch: &mut TileLightScratch,
) -> Result<(), LightError> {
    let side = chunk_tiles + 2 * LIGHT2D_MARGIN;
    let (x, y) = (chunk_min.0 - LIGHT2D_MARGIN, chunk_min.1 - LIGHT2D_MARGIN);
    light_tiles(tiles, x, y, side, side, exposure, props, out, scratch)
}

/// The light each tile of `light` shrunk by one tile on every side is drawn with, as two bytes a
/// tile (sky, block: each level × 17, so 15 is 255), row by row: a tile that light passes shows
/// its own light; an opaque tile shows, per channel, the brightest of its own and its four
/// neighbours' (the light that falls on its sides, as a 3D face shows the light of the voxel it
/// looks into), so the ground's edge is lit where the air beside it is. `tile` answers the block
/// of every tile of `light`.
pub fn drawn_light_2d(light: &TileLight, props: &LightProps, tile: impl Fn(i32, i32) -> BlockId) -> Vec<u8> {
    let (w, h) = ((light.width - 2).max(0), (light.height - 2).max(0));
    let mut out = Vec::with_capacity((w * h * 2) as usize);
    let at = |x: i32, y: i32| light.get(x, y).unwrap_or(Light::DARK);
    for y in light.min_y + 1..light.min_y + 1 + h {
        for x in light.min_x + 1..light.min_x + 1 + w {
            let own = at(x, y);
            let (mut sky, mut block) = (own.sky(), own.block());
            if props.opacity(tile(x, y)) >= OPAQUE {
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] {
                    let n = at(nx, ny);
                    sky = sky.max(n.sky());
                    block = block.max(n.block());
                }
            }
            out.push(sky * 17);
            out.push(block * 17);
        }
    }
    out
}

/// One tile edit as light sees it: where, and the exposure of its column before and after (the
/// exact world values, which differ only when the edit opened or closed the column to the sky).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LightEdit2D {
    pub x: i32,
    pub y: i32,
    pub exposure_before: i32,
    pub exposure_after: i32,
}

impl LightEdit2D {
    /// The rectangle `[lo, hi)` (x, y) of tiles whose light the edit can change: those within
    /// [`LIGHT_REACH`] steps of a tile that changed as a light source or a light path (the edited
    /// tile, and the part of its column that entered or left the open sky).
    pub fn bounds(&self) -> ((i32, i32), (i32, i32)) {
        let (mut y0, mut y1) = (self.y, self.y.saturating_add(1));
        if self.exposure_before != self.exposure_after {
            y0 = y0.min(self.exposure_before.min(self.exposure_after));
            y1 = y1.max(self.exposure_before.max(self.exposure_after));
        }
        let r = LIGHT_REACH;
        ((self.x - r, y0.saturating_sub(r)), (self.x + r + 1, y1.saturating_add(r)))
    }

    /// The chunks of `chunk_tiles` tiles whose light (chunk plus [`LIGHT2D_SHELL`]) meets the
    /// bounds, row by row: every chunk whose light or drawn light the edit can change.
    pub fn chunks(&self, chunk_tiles: i32) -> Vec<(i32, i32)> {
        let ((x0, y0), (x1, y1)) = self.bounds();
        let n = chunk_tiles.max(1);
        let s = LIGHT2D_SHELL;
        let (cx0, cx1) = ((x0 - s).div_euclid(n), (x1 - 1 + s).div_euclid(n));
        let (cy0, cy1) = (y0.saturating_sub(s).div_euclid(n), y1.saturating_sub(1).saturating_add(s).div_euclid(n));
        (cy0..=cy1).flat_map(|cy| (cx0..=cx1).map(move |cx| (cx, cy))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::{AIR, STONE, WATER};
    use crate::base::rng::hash3;

    const TORCH: BlockId = 900;

    fn props() -> LightProps {
        let mut p = LightProps::default_blocks();
        p.set(TORCH, 0, 14).unwrap();
        p
    }

    /// A rectangle of tiles from `f(x, y)`, and its columns' exposure (first non-clear row from
    /// `top`, the row above which the world is open sky).
    fn world(
        min: (i32, i32),
        size: (i32, i32),
        top: i32,
        props: &LightProps,
        f: impl Fn(i32, i32) -> BlockId,
    ) -> (Vec<BlockId>, Vec<i32>) {
        let mut tiles = Vec::new();
        for y in min.1..min.1 + size.1 {
            for x in min.0..min.0 + size.0 {
                tiles.push(f(x, y));
            }
        }
        let exposure = (min.0..min.0 + size.0)
            .map(|x| {
                let mut y = top;
                while y < min.1 + size.1 && props.is_clear(f(x, y)) {
                    y += 1;
                }
                y
            })
            .collect();
        (tiles, exposure)
    }

    /// The definition the slow way: relax every tile against its neighbours until nothing
    /// changes. Light of the whole rectangle.
    fn reference(tiles: &[BlockId], w: i32, h: i32, min_y: i32, exposure: &[i32], props: &LightProps) -> Vec<u8> {
        let n = (w * h) as usize;
        let (mut s, mut b) = (vec![0u8; n], vec![0u8; n]);
        for y in 0..h {
            for x in 0..w {
                let i = (y * w + x) as usize;
                if min_y + y < exposure[x as usize] {
                    s[i] = 15;
                }
                b[i] = props.emission(tiles[i]);
            }
        }
        loop {
            let mut changed = false;
            for y in 0..h {
                for x in 0..w {
                    let i = (y * w + x) as usize;
                    let op = props.opacity(tiles[i]);
                    if op >= OPAQUE {
                        continue;
                    }
                    for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] {
                        if nx < 0 || ny < 0 || nx >= w || ny >= h {
                            continue;
                        }
                        let j = (ny * w + nx) as usize;
                        let cost = 1 + op;
                        let (vs, vb) = (s[j].saturating_sub(cost), b[j].saturating_sub(cost));
                        if vs > s[i] {
                            s[i] = vs;
                            changed = true;
                        }
                        if vb > b[i] {
                            b[i] = vb;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        s.iter().zip(&b).map(|(s, b)| (s << 4) | b).collect()
    }

    fn lit(tiles: &[BlockId], min: (i32, i32), size: (i32, i32), exposure: &[i32], props: &LightProps) -> TileLight {
        let mut out = TileLight::default();
        light_tiles(tiles, min.0, min.1, size.0, size.1, exposure, props, &mut out, &mut TileLightScratch::default())
            .unwrap();
        out
    }

    /// Ground from row 0 down, with a sealed room, a torch room, an open shaft into a third and a
    /// pool: sky above the ground.
    fn scene(x: i32, y: i32) -> BlockId {
        let room = |x0: i32| (x0..x0 + 10).contains(&x) && (20..26).contains(&y);
        if y < 0 {
            return AIR;
        }
        if room(0) || room(30) || room(60) {
            return if x == 34 && y == 23 { TORCH } else { AIR };
        }
        if (64..66).contains(&x) && y < 20 {
            return AIR; // the shaft down into the third room
        }
        if (90..100).contains(&x) && y < 8 {
            return WATER;
        }
        STONE
    }

    #[test]
    fn matches_the_definition_and_the_cases_it_names() {
        let p = props();
        let (min, size) = ((-20, -20), (140, 70));
        let (tiles, exposure) = world(min, size, min.1, &p, scene);
        let out = lit(&tiles, min, size, &exposure, &p);
        let want = reference(&tiles, size.0, size.1, min.1, &exposure, &p);
        for y in out.min_y..out.min_y + out.height {
            for x in out.min_x..out.min_x + out.width {
                let i = ((y - min.1) * size.0 + (x - min.0)) as usize;
                assert_eq!(out.get(x, y), Some(Light(want[i])), "tile ({x}, {y})");
            }
        }
        // A sealed cave is dark; a torch lights its room, one level less a tile.
        assert_eq!(out.get(5, 22), Some(Light::DARK), "sealed room");
        assert_eq!(out.get(34, 23).map(|l| l.block()), Some(14), "the torch");
        assert_eq!(out.get(37, 23).map(|l| l.block()), Some(11), "three tiles on");
        assert_eq!(out.get(34, 23).map(|l| l.sky()), Some(0), "no sky in the torch room");
        // The shaft lets the sky straight down, and it spreads into the room below.
        assert_eq!(out.get(64, 19).map(|l| l.sky()), Some(15), "the shaft's floor");
        assert_eq!(out.get(64, 21).map(|l| l.sky()), Some(15), "straight down into the room");
        assert_eq!(out.get(61, 21).map(|l| l.sky()), Some(12), "three tiles aside");
        // Water dims the sky by 1 + its opacity a tile.
        let op = p.opacity(WATER);
        assert_eq!(out.get(95, 0).map(|l| l.sky()), Some(15 - 1 - op), "the pool's top");
        assert_eq!(out.get(95, 3).map(|l| l.sky()), Some(15 - 4 * (1 + op)), "four tiles down");
        // Opaque tiles are dark unless they glow.
        assert_eq!(out.get(20, 10), Some(Light::DARK));
    }

    #[test]
    fn a_chunk_lit_alone_equals_it_inside_a_larger_block() {
        let p = props();
        let n = 32;
        // Random caves with torches and water, and a sky above row −40.
        let f = |x: i32, y: i32| {
            if y < -40 {
                return AIR;
            }
            match hash3(7, 3, x, y, 0) % 100 {
                0 => TORCH,
                1..=40 => AIR,
                41..=45 => WATER,
                _ => STONE,
            }
        };
        let big_min = (-3 * n, -3 * n);
        let big_size = (6 * n, 6 * n);
        let (tiles, exposure) = world(big_min, big_size, -1000, &p, f);
        let big = lit(&tiles, big_min, big_size, &exposure, &p);
        for (cx, cy) in [(-1, -2), (0, -1), (1, 0), (-2, 1)] {
            let side = n + 2 * LIGHT2D_MARGIN;
            let min = (cx * n - LIGHT2D_MARGIN, cy * n - LIGHT2D_MARGIN);
            let (tiles, exposure) = world(min, (side, side), -1000, &p, f);
            let mut alone = TileLight::default();
            light_chunk_2d((cx * n, cy * n), n, &tiles, &exposure, &p, &mut alone, &mut TileLightScratch::default())
                .unwrap();
            let s = LIGHT2D_SHELL;
            assert_eq!((alone.width, alone.height), (n + 2 * s, n + 2 * s));
            assert_eq!(Some(alone.clone()), big.crop(cx * n - s, cy * n - s, n + 2 * s, n + 2 * s), "chunk {cx} {cy}");
        }
    }

    #[test]
    fn drawn_light_lights_the_sides_of_opaque_tiles() {
        let p = props();
        let (min, size) = ((-20, -20), (41, 41));
        // Air above row 0, stone below: the surface row shows the sky of the air above it.
        let f = |_x: i32, y: i32| if y < 0 { AIR } else { STONE };
        let (tiles, exposure) = world(min, size, min.1, &p, f);
        let light = lit(&tiles, min, size, &exposure, &p);
        let drawn = drawn_light_2d(&light, &p, f);
        let w = light.width - 2;
        let at = |x: i32, y: i32| {
            let i = (((y - light.min_y - 1) * w + (x - light.min_x - 1)) * 2) as usize;
            (drawn[i], drawn[i + 1])
        };
        assert_eq!(at(0, -1), (255, 0), "air under the sky");
        assert_eq!(at(0, 0), (255, 0), "the ground's top tile shows the sky above it");
        assert_eq!(at(0, 1), (0, 0), "the tile below is dark");
    }

    #[test]
    fn an_edit_names_the_chunks_it_can_relight() {
        // A tile in the middle of chunk (0, 0) of 64: only that chunk.
        let e = LightEdit2D { x: 32, y: 32, exposure_before: -100, exposure_after: -100 };
        assert_eq!(e.chunks(64), vec![(0, 0)]);
        // Near a corner: the four chunks around it.
        let e = LightEdit2D { x: 1, y: 62, exposure_before: -100, exposure_after: -100 };
        assert_eq!(e.chunks(64), vec![(-1, 0), (0, 0), (-1, 1), (0, 1)]);
        // Digging the column's top tile opens it down to row 200: every chunk on the way, and the
        // one above, whose bottom rows lie within reach of the tile.
        let e = LightEdit2D { x: 32, y: 10, exposure_before: 10, exposure_after: 200 };
        assert_eq!(e.chunks(64), (-1..=3).map(|cy| (0, cy)).collect::<Vec<_>>());
    }

    #[test]
    fn bad_input_is_refused_with_what_is_allowed() {
        let p = props();
        let mut out = TileLight::default();
        let mut s = TileLightScratch::default();
        let e = light_tiles(&[AIR; 20 * 40], 0, 0, 20, 40, &[0; 20], &p, &mut out, &mut s).unwrap_err();
        assert!(e.to_string().contains("20 × 40") && e.to_string().contains("29..=8192"), "{e}");
        let e = light_tiles(&[AIR; 10], 0, 0, 30, 30, &[0; 30], &p, &mut out, &mut s).unwrap_err();
        assert!(e.to_string().contains("tiles") && e.to_string().contains("900"), "{e}");
        let e = light_tiles(&[AIR; 900], 0, 0, 30, 30, &[0; 29], &p, &mut out, &mut s).unwrap_err();
        assert!(e.to_string().contains("exposure") && e.to_string().contains("30"), "{e}");
    }
}
