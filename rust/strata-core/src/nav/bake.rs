//! The navigation bake of one chunk: walkable cells as bit columns, greedy rectangles per height,
//! risers for one-voxel steps, edges split so that neighbouring polygons share them exactly.
//!
//! May use: `base`.

use crate::base::block::{self, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use std::collections::HashMap;

/// The tallest agent a bake accepts, in voxels (the input box's columns fit one `u64`).
pub const MAX_AGENT_HEIGHT: u8 = 16;

/// Columns across the input box (the chunk and one voxel each side).
const SIDE: usize = CHUNK_SIZE as usize + 2;

/// What an agent is baked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NavSettings {
    /// Open voxels an agent needs above its floor, 1..=[`MAX_AGENT_HEIGHT`] (default 2, a
    /// player-sized agent). It climbs steps of one voxel.
    pub agent_height: u8,
}

impl Default for NavSettings {
    fn default() -> Self {
        Self { agent_height: 2 }
    }
}

impl NavSettings {
    /// The voxels [`bake_chunk`] reads for chunk `c` (minimum corner, size): the chunk, one voxel
    /// around it and below it (the floors of its lowest cells and its neighbours' cells), and
    /// `agent_height` voxels above it (the clearance of its highest cells and of the steps up
    /// from them).
    pub fn input_box(&self, c: ChunkCoord) -> (IVec3, IVec3) {
        let s = CHUNK_SIZE;
        (c.min_voxel() - IVec3::ONE, IVec3::new(s + 2, s + 1 + self.agent_height as i32, s + 2))
    }
}

/// What a block is to an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavBlock {
    /// Passable: air, plants, anything not solid.
    Open,
    /// Solid: an agent stands on it and does not pass through it.
    Floor,
    /// A liquid: neither stood on nor passed through (agents keep to the shore).
    Liquid,
}

/// [`NavBlock`] per block id; ids past the table are [`NavBlock::Floor`] (unknown blocks are
/// solid, as the mesher treats them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NavBlocks {
    kinds: Vec<NavBlock>,
}

impl NavBlocks {
    /// The table for ids `0..len`, from `kind`.
    pub fn from_fn(len: usize, mut kind: impl FnMut(BlockId) -> NavBlock) -> Self {
        Self { kinds: (0..len).map(|id| kind(id as BlockId)).collect() }
    }

    /// The built-in blocks ([`crate::base::block`]): solid ones floor, liquids liquid.
    pub fn builtin() -> Self {
        Self::from_fn(block::BLOCK_COUNT as usize, |id| {
            if block::is_solid(id) {
                NavBlock::Floor
            } else if block::is_liquid(id) {
                NavBlock::Liquid
            } else {
                NavBlock::Open
            }
        })
    }

    pub fn kind(&self, id: BlockId) -> NavBlock {
        self.kinds.get(id as usize).copied().unwrap_or(NavBlock::Floor)
    }
}

/// Inputs that do not fit together.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NavError {
    /// The voxels do not cover [`NavSettings::input_box`].
    #[error(
        "navigation bake of chunk {chunk:?} needs the voxels {needed_size:?} from {needed_min:?} \
         (NavSettings::input_box), the buffer covers {size:?} from {min:?}"
    )]
    InputBox { chunk: ChunkCoord, needed_min: IVec3, needed_size: IVec3, min: IVec3, size: IVec3 },
    /// `agent_height` is out of range.
    #[error("agent_height {value} is out of range: 1 to {max} voxels are allowed")]
    AgentHeight { value: u8, max: u8 },
}

/// Vertex coordinates are stored in quarters of a voxel (exact integers): the riser sides'
/// middle vertices lie a quarter voxel off the grid.
pub const UNITS_PER_VOXEL: i32 = 4;

/// Convex polygons over shared vertices (of type `V`: 3D or 2D integer positions); polygon `i`
/// is `indices[polygon_ends[i - 1]..polygon_ends[i]]` (from 0 for the first). The 3D bake's
/// [`NavMesh`] and the side view's walker polygons are this.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NavPolygons<V> {
    pub vertices: Vec<V>,
    pub indices: Vec<u32>,
    pub polygon_ends: Vec<u32>,
}

/// A chunk's navigation polygons. Vertices are in quarter voxels ([`UNITS_PER_VOXEL`]) relative
/// to the chunk's minimum corner.
pub type NavMesh = NavPolygons<[i32; 3]>;

impl<V: Copy + Eq + std::hash::Hash> NavPolygons<V> {
    pub fn clear(&mut self) {
        self.vertices.clear();
        self.indices.clear();
        self.polygon_ends.clear();
    }

    /// No polygon.
    pub fn is_empty(&self) -> bool {
        self.polygon_ends.is_empty()
    }

    pub fn polygon_count(&self) -> usize {
        self.polygon_ends.len()
    }

    /// Each polygon's vertex indices, in order.
    pub fn polygons(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let starts = std::iter::once(0).chain(self.polygon_ends.iter().copied());
        starts.zip(self.polygon_ends.iter()).map(|(a, &b)| &self.indices[a as usize..b as usize])
    }

    /// Each polygon's vertex positions.
    pub fn polygon_points(&self) -> impl Iterator<Item = Vec<V>> + '_ {
        self.polygons().map(|p| p.iter().map(|&i| self.vertices[i as usize]).collect())
    }

    /// Appends the polygon with corners `ring`, a vertex already there (found in `index`, which
    /// the caller keeps for one mesh) shared rather than added again.
    pub fn push_polygon(&mut self, ring: &[V], index: &mut HashMap<V, u32>) {
        for &p in ring {
            let next = self.vertices.len() as u32;
            let i = *index.entry(p).or_insert_with(|| {
                self.vertices.push(p);
                next
            });
            self.indices.push(i);
        }
        self.polygon_ends.push(self.indices.len() as u32);
    }
}

impl NavMesh {
    /// Vertex `i` in voxels, relative to the chunk's minimum corner.
    pub fn vertex_voxels(&self, i: usize) -> [f32; 3] {
        self.vertices[i].map(|v| v as f32 / UNITS_PER_VOXEL as f32)
    }
}

/// A polygon before its edges are split: four corners (a rectangle or a riser).
type Quad = [[i32; 3]; 4];

/// A line through the chunk along x (`axis` 0, at `(y, z)`) or along z (`axis` 2, at `(y, x)`).
type LineKey = (u8, i32, i32);

/// A worker's reusable buffers for [`bake_chunk`].
#[derive(Debug, Default)]
pub struct NavScratch {
    /// Per column of the input box (x fastest): bit `k` = the voxel at local `y = k − 1`.
    open: Vec<u64>,
    floor: Vec<u64>,
    walk: Vec<u64>,
    quads: Vec<Quad>,
    /// Corners lying on each line, sorted.
    corners: HashMap<LineKey, Vec<i32>>,
    vertex_index: HashMap<[i32; 3], u32>,
    ring: Vec<[i32; 3]>,
}

/// The four step directions: (dx, dz).
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

/// Bakes chunk `c`'s navigation polygons into `out` from `voxels` (which must cover
/// [`NavSettings::input_box`]; it may be larger). See the module documentation for what is
/// walkable and how polygons meet.
pub fn bake_chunk(
    voxels: &VoxelBuffer,
    c: ChunkCoord,
    settings: &NavSettings,
    blocks: &NavBlocks,
    scratch: &mut NavScratch,
    out: &mut NavMesh,
) -> Result<(), NavError> {
    out.clear();
    let h = settings.agent_height;
    if h == 0 || h > MAX_AGENT_HEIGHT {
        return Err(NavError::AgentHeight { value: h, max: MAX_AGENT_HEIGHT });
    }
    let (min, size) = settings.input_box(c);
    let (vmin, vmax) = (voxels.min(), voxels.max());
    let max = min + size;
    if min.x < vmin.x || min.y < vmin.y || min.z < vmin.z || max.x > vmax.x || max.y > vmax.y || max.z > vmax.z {
        return Err(NavError::InputBox {
            chunk: c,
            needed_min: min,
            needed_size: size,
            min: vmin,
            size: voxels.size(),
        });
    }
    // One block everywhere: no floor with open voxels above it.
    if voxels.uniform_block().is_some() {
        return Ok(());
    }
    column_masks(voxels, min, size.y as usize, blocks, scratch);
    let h = h as u32;
    for (walk, (&open, &floor)) in scratch.walk.iter_mut().zip(scratch.open.iter().zip(&scratch.floor)) {
        let mut clear = open;
        for j in 1..h {
            clear &= open >> j;
        }
        *walk = (floor << 1) & clear;
    }
    scratch.quads.clear();
    flat_rectangles(&scratch.walk, &mut scratch.quads);
    risers(&scratch.walk, &scratch.open, h, &mut scratch.quads);
    split_and_emit(scratch, out);
    Ok(())
}

/// Feet bits a chunk owns: local y 0..32, bits 1..=32.
const OWNED: u64 = ((1u64 << CHUNK_SIZE) - 1) << 1;

fn column(x: usize, z: usize) -> usize {
    z * SIDE + x
}

/// Fills `scratch.open` and `scratch.floor`: one `u64` per column of the input box.
fn column_masks(voxels: &VoxelBuffer, min: IVec3, height: usize, blocks: &NavBlocks, scratch: &mut NavScratch) {
    let n = SIDE * SIDE;
    for v in [&mut scratch.open, &mut scratch.floor, &mut scratch.walk] {
        v.clear();
        v.resize(n, 0);
    }
    let (vs, l0) = (voxels.size(), min - voxels.min());
    let data = voxels.data();
    let (sx, sxz) = (vs.x as usize, (vs.x * vs.z) as usize);
    // Block kinds looked up once per id of the run (a row of one block is common).
    let mut last: Option<(BlockId, NavBlock)> = None;
    for k in 0..height {
        let row_y = (l0.y as usize + k) * sxz;
        for z in 0..SIDE {
            let row = row_y + (l0.z as usize + z) * sx + l0.x as usize;
            for (x, &id) in data[row..row + SIDE].iter().enumerate() {
                let kind = match last {
                    Some((b, kind)) if b == id => kind,
                    _ => {
                        let kind = blocks.kind(id);
                        last = Some((id, kind));
                        kind
                    }
                };
                let i = column(x, z);
                match kind {
                    NavBlock::Open => scratch.open[i] |= 1 << k,
                    NavBlock::Floor => scratch.floor[i] |= 1 << k,
                    NavBlock::Liquid => {}
                }
            }
        }
    }
}

/// The owned cells of each height greedy-merged into rectangles: runs along x, grown along z.
fn flat_rectangles(walk: &[u64], quads: &mut Vec<Quad>) {
    let s = CHUNK_SIZE as usize;
    let mut rows = [0u32; CHUNK_SIZE as usize];
    for k in 1..=CHUNK_SIZE as u32 {
        let y = k as i32 - 1;
        let mut any = 0;
        for (z, row) in rows.iter_mut().enumerate() {
            *row = 0;
            for x in 0..s {
                *row |= (((walk[column(x + 1, z + 1)] >> k) & 1) as u32) << x;
            }
            any |= *row;
        }
        if any == 0 {
            continue;
        }
        for z0 in 0..s {
            while rows[z0] != 0 {
                let x0 = rows[z0].trailing_zeros();
                let len = (rows[z0] >> x0).trailing_ones();
                let run = if len == 32 { u32::MAX } else { ((1u32 << len) - 1) << x0 };
                let mut z1 = z0 + 1;
                while z1 < s && rows[z1] & run == run {
                    rows[z1] &= !run;
                    z1 += 1;
                }
                rows[z0] &= !run;
                let (x0, x1, z0, z1) = (x0 as i32, (x0 + len) as i32, z0 as i32, z1 as i32);
                // Normal up: (x0, z0) → (x0, z1) → (x1, z1) → (x1, z0).
                quads.push([[x0, y, z0], [x0, y, z1], [x1, y, z1], [x1, y, z0]]);
            }
        }
    }
}

/// One-voxel steps from owned cells up to a neighbouring column's cell, with head room over the
/// lower cell; merged along the line between the two columns.
fn risers(walk: &[u64], open: &[u64], h: u32, quads: &mut Vec<Quad>) {
    let s = CHUNK_SIZE as usize;
    // Per direction and lower feet bit k: per line (the lower column's x for ±x steps, its z for
    // ±z steps) the positions along it (z, resp. x) that step.
    let mut lines = vec![[0u32; CHUNK_SIZE as usize]; 4 * (CHUNK_SIZE as usize + 1)];
    let mut any = false;
    for z in 0..s {
        for x in 0..s {
            let a = column(x + 1, z + 1);
            let low = walk[a] & (open[a] >> h) & OWNED;
            if low == 0 {
                continue;
            }
            for (d, (dx, dz)) in DIRECTIONS.iter().enumerate() {
                let b = column((x as i32 + 1 + dx) as usize, (z as i32 + 1 + dz) as usize);
                let mut steps = low & (walk[b] >> 1);
                while steps != 0 {
                    let k = steps.trailing_zeros() as usize;
                    steps &= steps - 1;
                    let (line, along) = if *dz == 0 { (x, z) } else { (z, x) };
                    lines[d * (s + 1) + k][line] |= 1 << along;
                    any = true;
                }
            }
        }
    }
    if !any {
        return;
    }
    for (d, &(dx, dz)) in DIRECTIONS.iter().enumerate() {
        for k in 1..=s {
            let (lo, hi) = (k as i32 - 1, k as i32);
            for (line, &bits) in lines[d * (s + 1) + k].iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    let a0 = bits.trailing_zeros();
                    let len = (bits >> a0).trailing_ones();
                    bits &= if len == 32 { 0 } else { !(((1u32 << len) - 1) << a0) };
                    let (a0, a1) = (a0 as i32, (a0 + len) as i32);
                    let line = line as i32;
                    // The plane between the two columns; normals face the lower cell.
                    let q = match (dx, dz) {
                        (1, _) => {
                            let p = line + 1;
                            [[p, lo, a0], [p, lo, a1], [p, hi, a1], [p, hi, a0]]
                        }
                        (-1, _) => {
                            let p = line;
                            [[p, lo, a1], [p, lo, a0], [p, hi, a0], [p, hi, a1]]
                        }
                        (_, 1) => {
                            let p = line + 1;
                            [[a1, lo, p], [a0, lo, p], [a0, hi, p], [a1, hi, p]]
                        }
                        _ => {
                            let p = line;
                            [[a0, lo, p], [a1, lo, p], [a1, hi, p], [a0, hi, p]]
                        }
                    };
                    quads.push(q);
                }
            }
        }
    }
}

/// Whether a horizontal edge along `axis` (0: x, 2: z) at the other coordinates lies in one of
/// the chunk's border planes (split at every voxel there).
fn on_border(axis: u8, p: [i32; 3]) -> bool {
    let s = CHUNK_SIZE;
    let across = if axis == 0 { p[2] } else { p[0] };
    p[1] == 0 || p[1] == s || across == 0 || across == s
}

/// Splits every quad's edges at the corners on them (and at every voxel on the border planes),
/// and writes the polygons with shared vertices.
fn split_and_emit(scratch: &mut NavScratch, out: &mut NavMesh) {
    let NavScratch { quads, corners, vertex_index, ring, .. } = scratch;
    corners.clear();
    vertex_index.clear();
    for q in quads.iter() {
        for p in q {
            corners.entry((0, p[1], p[2])).or_default().push(p[0]);
            corners.entry((2, p[1], p[0])).or_default().push(p[2]);
        }
    }
    for v in corners.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    for q in quads.iter() {
        ring.clear();
        for i in 0..4 {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            ring.push(a.map(|v| v * UNITS_PER_VOXEL));
            let axis = if a[0] != b[0] {
                0
            } else if a[2] != b[2] {
                2
            } else {
                // A riser's side: bent outwards by a quarter voxel at mid-height, so that no two
                // risers share a side (where three or four steps meet at a column corner Godot
                // would refuse an edge held by more than two polygons).
                let along = if q[0][0] != q[1][0] || q[0][0] != q[2][0] { 0 } else { 2 };
                let far = q.iter().map(|p| p[along]).max().unwrap_or(a[along]);
                let mut mid = a.map(|v| v * UNITS_PER_VOXEL);
                mid[1] = (a[1] + b[1]) * UNITS_PER_VOXEL / 2;
                mid[along] += if a[along] == far { 1 } else { -1 };
                ring.push(mid);
                continue;
            };
            let (from, to) = (a[axis as usize], b[axis as usize]);
            let at = |t: i32| {
                let mut p = a;
                p[axis as usize] = t;
                p.map(|v| v * UNITS_PER_VOXEL)
            };
            let (lo, hi) = (from.min(to), from.max(to));
            let start = ring.len();
            if on_border(axis, a) {
                ring.extend((lo + 1..hi).map(at));
            } else {
                let key = if axis == 0 { (0, a[1], a[2]) } else { (2, a[1], a[0]) };
                let line = &corners[&key];
                let first = line.partition_point(|&t| t <= lo);
                let last = line.partition_point(|&t| t < hi);
                ring.extend(line[first..last].iter().map(|&t| at(t)));
            }
            if from > to {
                ring[start..].reverse();
            }
        }
        // Start one vertex before the first corner: the first three are never collinear.
        ring.rotate_right(1);
        out.push_polygon(ring, vertex_index);
    }
}
