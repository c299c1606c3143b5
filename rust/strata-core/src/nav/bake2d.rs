//! The side view's navigation bake of one chunk: where a walker stands (an open tile over a
//! solid one, with head room), as strips of polygons along the ground; *risers* joining ledges a
//! walker can step or jump up to; one-way *drops* from ledges down to deeper ground.
//!
//! [`bake_chunk_2d`] is a pure function over caller-owned buffers: a chunk's tiles with a halo
//! ([`NavSettings2D::input_box`]: one column each side, one row below, and above it the rows a
//! ledge over the chunk's ground needs), a block table ([`NavBlocks`], shared with the 3D bake)
//! and a reusable [`NavScratch2D`] → a [`NavMesh2D`]. Tile `y` grows down, as everywhere in the
//! side view.
//!
//! * A *cell* `(x, y)` is standable when tile `(x, y)` and the `agent_height − 1` tiles above it
//!   are open and tile `(x, y + 1)` is floor. Water is neither: walkers keep to the shore. A chunk
//!   owns the cells inside it.
//! * Each run of standable cells along a row is one *strip*: the rectangle of the cells' tiles,
//!   `[x0, x1] × [y, y + 1]`, so a path runs at the walker's feet.
//! * A *landing* is a standable cell `(x, b)`; a *ledge* of it is a standable cell in a column
//!   beside it, `d` rows higher (`1 ≤ d`), whose walker can move sideways into column `x` and
//!   fall to `b`: column `x` open from the ledge's head (`b − d − agent_height + 1`) down to `b`.
//!   The same open column is what a walker at `b` needs to jump `d` rows up to the ledge.
//!   - `d ≤ max_step_up`: both ways. The landing gets one riser, the rectangle of column `x`
//!     from its highest such ledge's row down to `b`, sitting on the landing's strip and touching
//!     each such ledge's strip along the ledge's side edge.
//!   - `max_step_up < d ≤ max_drop`: down only, a [`NavLink2D`] from the ledge cell's centre to
//!     the landing cell's centre (a navigation server's one-way link).
//!
//!   Risers and links belong to the chunk owning their landing.
//! * Polygons never overlap, meet edge to edge and vertex to vertex: a strip's top edge is split
//!   at the sides of every riser on it, a riser's sides at the top and bottom of every ledge
//!   strip beside it. Every other edge is one tile long or touches nothing, so the edges along a
//!   chunk's border coincide exactly with its neighbours' whatever they hold, and a navigation
//!   server joins the chunks' regions by their shared edges (laws: Seamless, Deterministic).
//!
//! Vertices are exact integers in tiles relative to the chunk's top-left tile; each polygon is
//! wound clockwise on screen (y down) and starts at a corner whose two neighbours are not
//! collinear with it.
//!
//! May use: `base`, and the block table of `nav/bake.rs`.

use crate::base::block::BlockId;
use crate::nav::bake::{NavBlock, NavBlocks, NavPolygons};
use std::collections::HashMap;

/// The tallest walker a bake accepts, in tiles.
pub const MAX_AGENT_HEIGHT_2D: u8 = 16;
/// The highest step up (a jump) a bake accepts, in tiles.
pub const MAX_STEP_UP_2D: u8 = 16;
/// The deepest drop a bake accepts, in tiles.
pub const MAX_DROP_2D: u8 = 32;
/// The largest chunk a bake accepts, in tiles a side (the side view's chunks are at most this).
pub const MAX_CHUNK_TILES_2D: i32 = 4096;

/// What a side-view walker is baked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NavSettings2D {
    /// Open tiles a walker needs, its feet tile included: 1..=[`MAX_AGENT_HEIGHT_2D`] (default 2).
    pub agent_height: u8,
    /// The most rows a walker climbs to a ledge beside it (a step or a jump), both ways:
    /// 0..=[`MAX_STEP_UP_2D`] (default 1).
    pub max_step_up: u8,
    /// The most rows a walker drops from a ledge, one way where it is more than `max_step_up`:
    /// 0..=[`MAX_DROP_2D`] (default 4).
    pub max_drop: u8,
}

impl Default for NavSettings2D {
    fn default() -> Self {
        Self { agent_height: 2, max_step_up: 1, max_drop: 4 }
    }
}

impl NavSettings2D {
    /// How many rows above a landing its ledges may lie.
    pub fn reach(&self) -> i32 {
        self.max_step_up.max(self.max_drop) as i32
    }

    /// The tiles [`bake_chunk_2d`] reads for a chunk of `chunk_tiles` tiles a side, relative to
    /// its top-left tile, as `(x, y, width, height)`: the chunk, one column each side (the ledges
    /// and landings beside its border), one row below (the floor of its lowest cells) and
    /// [`NavSettings2D::reach`] `+ agent_height − 1` rows above (its highest ledges' head room).
    pub fn input_box(&self, chunk_tiles: i32) -> (i32, i32, i32, i32) {
        let above = self.rows_above();
        (-1, -above, chunk_tiles + 2, chunk_tiles + above + 1)
    }

    fn rows_above(&self) -> i32 {
        self.reach() + self.agent_height as i32 - 1
    }

    /// Whether every field is in range.
    pub fn validate(&self) -> Result<(), NavError2D> {
        let check = |name: &'static str, value: u8, min: u8, max: u8| {
            if (min..=max).contains(&value) { Ok(()) } else { Err(NavError2D::Setting { name, value, min, max }) }
        };
        check("agent_height", self.agent_height, 1, MAX_AGENT_HEIGHT_2D)?;
        check("max_step_up", self.max_step_up, 0, MAX_STEP_UP_2D)?;
        check("max_drop", self.max_drop, 0, MAX_DROP_2D)
    }
}

/// Inputs that do not fit together.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NavError2D {
    /// The tiles do not cover [`NavSettings2D::input_box`].
    #[error(
        "side-view navigation bake of a {chunk_tiles}-tile chunk needs {needed} tiles \
         (NavSettings2D::input_box, {width} × {height}), got {got}"
    )]
    InputSize { chunk_tiles: i32, width: i32, height: i32, needed: usize, got: usize },
    /// The chunk size is out of range.
    #[error("chunk_tiles {value} is out of range: 1 to {max} tiles are allowed")]
    ChunkTiles { value: i32, max: i32 },
    /// A setting is out of range.
    #[error("navigation setting {name} {value} is out of range: {min} to {max} tiles are allowed")]
    Setting { name: &'static str, value: u8, min: u8, max: u8 },
}

/// A one-way link: a walker drops from the cell centred at `from` to the cell centred at `to`,
/// both in half tiles ([`HALF_TILES`]) relative to the chunk's top-left tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NavLink2D {
    pub from: [i32; 2],
    pub to: [i32; 2],
}

/// Link positions are in half tiles: cell centres are exact integers.
pub const HALF_TILES: i32 = 2;

/// A chunk's side-view navigation: convex polygons (vertices in tiles relative to the chunk's
/// top-left tile) and one-way drops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NavMesh2D {
    pub polygons: NavPolygons<[i32; 2]>,
    pub links: Vec<NavLink2D>,
}

impl NavMesh2D {
    pub fn clear(&mut self) {
        self.polygons.clear();
        self.links.clear();
    }

    /// Nothing to stand on and no drop: no region is needed.
    pub fn is_empty(&self) -> bool {
        self.polygons.is_empty() && self.links.is_empty()
    }
}

/// A worker's reusable buffers for [`bake_chunk_2d`].
#[derive(Debug, Default)]
pub struct NavScratch2D {
    /// Per tile of the input box (row by row): open tiles ending here, counted upwards.
    open_up: Vec<u16>,
    /// Per tile of the input box: floor.
    floor: Vec<bool>,
    /// Per owned cell (row by row): the riser on it, as its top row, or `i32::MAX` for none.
    riser_top: Vec<i32>,
    /// Per owned cell and side (left, right): the ledge rows beside its riser.
    ledges: HashMap<(i32, i32, i8), Vec<i32>>,
    vertex_index: HashMap<[i32; 2], u32>,
    ring: Vec<[i32; 2]>,
}

/// The input box's tiles as a walker sees them, with the chunk's geometry.
struct Grid<'a> {
    width: i32,
    /// Rows of the box above the chunk.
    above: i32,
    h: i32,
    open_up: &'a [u16],
    floor: &'a [bool],
}

impl Grid<'_> {
    fn index(&self, x: i32, y: i32) -> usize {
        ((y + self.above) * self.width + (x + 1)) as usize
    }

    /// Open tiles counted upwards from `(x, y)`, itself included.
    fn open_up(&self, x: i32, y: i32) -> i32 {
        self.open_up[self.index(x, y)] as i32
    }

    /// Whether cell `(x, y)` (chunk-relative; `x` from -1 to the chunk size, `y` from the first
    /// row with a whole head room in the box to the chunk's last row) is standable.
    fn standable(&self, x: i32, y: i32) -> bool {
        self.floor[self.index(x, y + 1)] && self.open_up(x, y) >= self.h
    }
}

/// Bakes a chunk's side-view navigation into `out` from `tiles`: the block ids of its
/// [`NavSettings2D::input_box`], row by row from the top-left. See the module documentation for
/// what is walkable and how polygons meet.
pub fn bake_chunk_2d(
    tiles: &[BlockId],
    chunk_tiles: i32,
    settings: &NavSettings2D,
    blocks: &NavBlocks,
    scratch: &mut NavScratch2D,
    out: &mut NavMesh2D,
) -> Result<(), NavError2D> {
    out.clear();
    settings.validate()?;
    let n = chunk_tiles;
    if !(1..=MAX_CHUNK_TILES_2D).contains(&n) {
        return Err(NavError2D::ChunkTiles { value: n, max: MAX_CHUNK_TILES_2D });
    }
    let (_, _, width, height) = settings.input_box(n);
    let needed = (width * height) as usize;
    if tiles.len() != needed {
        return Err(NavError2D::InputSize { chunk_tiles: n, width, height, needed, got: tiles.len() });
    }
    // One block everywhere: no floor with open tiles above it.
    if tiles.iter().all(|&t| t == tiles[0]) {
        return Ok(());
    }
    let NavScratch2D { open_up, floor, riser_top, ledges, vertex_index, ring } = scratch;
    open_up.clear();
    open_up.resize(needed, 0);
    floor.clear();
    floor.resize(needed, false);
    let w = width as usize;
    let mut last: Option<(BlockId, NavBlock)> = None;
    for (i, &id) in tiles.iter().enumerate() {
        let kind = match last {
            Some((b, kind)) if b == id => kind,
            _ => {
                let kind = blocks.kind(id);
                last = Some((id, kind));
                kind
            }
        };
        match kind {
            NavBlock::Open => open_up[i] = if i >= w { open_up[i - w].saturating_add(1) } else { 1 },
            NavBlock::Floor => floor[i] = true,
            NavBlock::Liquid => {}
        }
    }
    let grid = Grid { width, above: settings.rows_above(), h: settings.agent_height as i32, open_up, floor };
    let (step, drop) = (settings.max_step_up as i32, settings.max_drop as i32);
    let reach = settings.reach();

    // Risers and drops of every owned landing.
    riser_top.clear();
    riser_top.resize((n * n) as usize, i32::MAX);
    ledges.clear();
    for b in 0..n {
        for x in 0..n {
            if !grid.standable(x, b) {
                continue;
            }
            let space = grid.open_up(x, b);
            for side in [-1i8, 1] {
                let u = x + side as i32;
                for d in 1..=reach {
                    if space < d + grid.h {
                        break;
                    }
                    let y = b - d;
                    if !grid.standable(u, y) {
                        continue;
                    }
                    if d <= step {
                        let top = &mut riser_top[(b * n + x) as usize];
                        *top = (*top).min(y);
                        ledges.entry((x, b, side)).or_default().push(y);
                    } else if d <= drop {
                        let h = HALF_TILES;
                        out.links.push(NavLink2D { from: [u * h + 1, y * h + 1], to: [x * h + 1, b * h + 1] });
                    }
                }
            }
        }
    }

    // Strips, row by row, then risers; vertices shared through their positions.
    vertex_index.clear();
    for y in 0..n {
        let mut x = 0;
        while x < n {
            if !grid.standable(x, y) {
                x += 1;
                continue;
            }
            let x0 = x;
            while x < n && grid.standable(x, y) {
                x += 1;
            }
            // Bottom-left, up, along the top (split at the risers' sides), down the right.
            ring.clear();
            ring.push([x0, y + 1]);
            ring.push([x0, y]);
            for c in x0..x {
                if riser_top[(y * n + c) as usize] != i32::MAX {
                    for s in [c, c + 1] {
                        if ring.last() != Some(&[s, y]) {
                            ring.push([s, y]);
                        }
                    }
                }
            }
            if ring.last() != Some(&[x, y]) {
                ring.push([x, y]);
            }
            ring.push([x, y + 1]);
            out.polygons.push_polygon(ring, vertex_index);
        }
    }
    for b in 0..n {
        for x in 0..n {
            let t = riser_top[(b * n + x) as usize];
            if t == i32::MAX {
                continue;
            }
            // Top-left, top-right, down the right side, bottom-right, bottom-left, up the left.
            let splits = |side: i8| {
                let mut rows: Vec<i32> = ledges
                    .get(&(x, b, side))
                    .map(|v| v.iter().flat_map(|&y| [y, y + 1]).filter(|&r| r > t && r < b).collect())
                    .unwrap_or_default();
                rows.sort_unstable();
                rows.dedup();
                rows
            };
            ring.clear();
            ring.push([x, t]);
            ring.push([x + 1, t]);
            ring.extend(splits(1).into_iter().map(|r| [x + 1, r]));
            ring.push([x + 1, b]);
            ring.push([x, b]);
            ring.extend(splits(-1).into_iter().rev().map(|r| [x, r]));
            out.polygons.push_polygon(ring, vertex_index);
        }
    }
    Ok(())
}
