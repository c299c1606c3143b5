//! Generation stage: caves — caverns and tunnels carved out of the ground ([`Caves`]).
//!
//! A voxel `p` in a column whose surface is `s` becomes cave air when
//! - it is a **cavern** voxel: its automaton cell is open in the infinite automaton after small
//!   pockets are filled ([`crate::gen3d::caverns`]), and `p.y < s - d_cavern`;
//! - or it is a **tunnel** voxel: it lies inside the noise tubes of [`crate::gen3d::tunnels`],
//!   and `p.y < s - d_tunnel`.
//!
//! Depths: with `allow_surface_breach == false`, `d_cavern = d_tunnel = max(min_depth, 1)`, so no
//! cave voxel lies within `min_depth` of the surface (and never in the top voxel): the ground stays
//! whole. With `allow_surface_breach == true`, caverns keep `min_depth` but tunnels may reach the
//! surface (`d_tunnel = 0`), making cave entrances. Bedrock is never carved; water is never carved
//! (it lies above the surface). Cave air touching water is sealed by the water stage.
//!
//! Every field is computed over the region with the halos it needs, so a region equals the same
//! box cut from the infinite world (law: Seamless). Work is skipped above the deepest allowed cave top
//! of the region's columns.
//!
//! May use: `base`, `preset`, `automata`, `gen3d::columns`, `gen3d::context`, and the fields it
//! carves, `gen3d::caverns` and `gen3d::tunnels`.

use crate::automata::cave_rules::{CaveRules, cave_stages};
use crate::automata::cellular::CaStage;
use crate::base::block::{self, AIR, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::IVec3;
use crate::gen3d::caverns::{CavernField, CavernScratch};
use crate::gen3d::columns::STONE_DEPTH;
use crate::gen3d::context::StageContext;
use crate::gen3d::tunnels::{TunnelBuffers, TunnelField, TunnelNoise};
use crate::preset::life_rule::LifeRuleError;
use crate::preset::model::{CaveMode, CaveSettings};

/// The cave stage of one preset: what it builds once (the automaton program, the tunnel noise)
/// and carves every region with.
#[derive(Debug)]
pub struct Caves {
    /// The cavern automaton's program; `None` when the mode makes no caverns.
    stages: Option<Vec<CaStage>>,
    tunnel_noise: TunnelNoise,
}

/// The buffers of the cave stage, reused from region to region by the thread that owns them.
#[derive(Debug, Default)]
pub struct CaveScratch {
    carve: CarveBuffers,
    caverns: CavernScratch,
    tunnels: TunnelBuffers,
}

impl Caves {
    /// The cave stage of a seed and cave settings: the automaton program is built here, once;
    /// an error when the Life rule does not parse.
    pub fn new(seed: u64, c: &CaveSettings) -> Result<Self, LifeRuleError> {
        Ok(Self { stages: cave_stages(&CaveRules::of_caves(c))?, tunnel_noise: TunnelNoise::new(seed) })
    }

    /// The noise fields of tunnels, built once for the seed.
    pub fn tunnel_noise(&self) -> &TunnelNoise {
        &self.tunnel_noise
    }

    /// Applies this stage to `out`, using only world coordinates and the settings of `ctx`
    /// (whose columns must cover `out`'s (x, z) rectangle); `scratch` holds the buffers.
    ///
    /// Per row of voxels (fixed y and z): a mask of the columns still below their cavern top,
    /// the cavern's open cells of that row spread over voxels, and the tunnel lattice cells that
    /// may open; only the voxels those masks leave are looked at, by their set bits.
    pub fn carve(&self, ctx: &StageContext, out: &mut VoxelBuffer, scratch: &mut CaveScratch) {
        carve_in(self, ctx, out, false, scratch);
    }

    /// [`Caves::carve`] of a buffer that holds exactly the ground layers of `ctx.columns` (what
    /// the layer stage writes): every voxel more than [`STONE_DEPTH`] below its column's surface
    /// is then stone, so where a depth is at least that the carvable test is known to pass and
    /// skipped.
    pub fn carve_layers(&self, ctx: &StageContext, out: &mut VoxelBuffer, scratch: &mut CaveScratch) {
        carve_in(self, ctx, out, true, scratch);
    }
}

/// How far below the surface caverns and tunnels start (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaveDepths {
    pub cavern: i32,
    pub tunnel: i32,
}

impl CaveDepths {
    pub fn of(c: &CaveSettings) -> Self {
        let whole = c.min_depth.min(1 << 20) as i32;
        if c.allow_surface_breach {
            Self { cavern: whole, tunnel: 0 }
        } else {
            Self { cavern: whole.max(1), tunnel: whole.max(1) }
        }
    }
}

/// Bit `i` of `cells` copied to bits `cell_size·i .. cell_size·(i + 1)` (cell size 1, 2 or 4; the
/// cells that fit in 64 bits).
#[inline]
fn spread_cells(cells: u64, cell_size: i32) -> u64 {
    match cell_size {
        1 => cells,
        2 => {
            let mut x = cells & 0xffff_ffff;
            x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
            x = (x | (x << 8)) & 0x00ff_00ff_00ff_00ff;
            x = (x | (x << 4)) & 0x0f0f_0f0f_0f0f_0f0f;
            x = (x | (x << 2)) & 0x3333_3333_3333_3333;
            x = (x | (x << 1)) & 0x5555_5555_5555_5555;
            x * 0b11
        }
        4 => {
            let mut x = cells & 0xffff;
            x = (x | (x << 24)) & 0x0000_00ff_0000_00ff;
            x = (x | (x << 12)) & 0x000f_000f_000f_000f;
            x = (x | (x << 6)) & 0x0303_0303_0303_0303;
            x = (x | (x << 3)) & 0x1111_1111_1111_1111;
            x * 0b1111
        }
        _ => unreachable!("cell size {cell_size} is not spread"),
    }
}

/// Whether the cave stage may turn block `id` into air.
#[inline]
fn carvable(id: BlockId) -> bool {
    id != AIR && id != block::BEDROCK && !block::is_liquid(id)
}

/// [`carvable`] for ids below 64 as bits of one word, so the carve loop tests a bit.
fn carvable_ids() -> u64 {
    (0..64).filter(|&id| carvable(id)).fold(0, |bits, id| bits | (1 << id))
}

/// [`carvable`] through the word of [`carvable_ids`].
#[inline(always)]
fn carvable_in(ids: u64, id: BlockId) -> bool {
    if id < 64 { (ids >> id) & 1 == 1 } else { carvable(id) }
}

/// The columns of the box still below their tops, layer by layer upwards: one mask per row of
/// columns (fixed z), from which each layer drops the columns whose top it reaches.
struct BelowMasks<'a> {
    words: usize,
    layers: usize,
    /// Per row, per layer `0..=layers` (the last collects tops above the work box), per word: the
    /// columns whose top is that layer.
    drops: &'a [u64],
    /// Per row, per word: the columns still below their top.
    masks: &'a mut [u64],
    /// Layers from 0 below which some column is still below its top.
    highest: usize,
}

impl BelowMasks<'_> {
    /// Masks for columns with `tops` (world y; `sx` per row, x fastest), for layers `0..layers`
    /// from world y `y0`; no columns at all when `tops` is `None`. The masks live in `buffers`
    /// (`drops`, `masks`), whose allocations are reused.
    fn new<'a>(
        tops: Option<&[i32]>,
        sx: usize,
        y0: i32,
        layers: usize,
        buffers: &'a mut (Vec<u64>, Vec<u64>),
    ) -> BelowMasks<'a> {
        let words = sx.div_ceil(64);
        let (drops, masks) = (&mut buffers.0, &mut buffers.1);
        drops.clear();
        masks.clear();
        let Some(tops) = tops else { return BelowMasks { words, layers, drops, masks, highest: 0 } };
        let rows = tops.len().checked_div(sx).unwrap_or(0);
        let stride = (layers + 1) * words;
        drops.resize(rows * stride, 0);
        masks.resize(rows * words, 0);
        let mut highest = 0;
        let last_layer = layers.min(i32::MAX as usize) as i32;
        for ((row, row_drops), row_mask) in tops
            .chunks_exact(sx.max(1))
            .zip(drops.chunks_exact_mut(stride.max(1)))
            .zip(masks.chunks_exact_mut(words.max(1)))
        {
            if words == 1 {
                // One word per layer (the common case): no word index to compute.
                for (x, &t) in row.iter().enumerate() {
                    let below = t.saturating_sub(y0).clamp(0, last_layer) as usize;
                    highest = highest.max(below);
                    row_drops[below] |= 1 << x;
                }
            } else {
                for (x, &t) in row.iter().enumerate() {
                    let below = t.saturating_sub(y0).clamp(0, last_layer) as usize;
                    highest = highest.max(below);
                    row_drops[below * words + x / 64] |= 1 << (x % 64);
                }
            }
            row_mask.fill(!0);
            if !sx.is_multiple_of(64) {
                row_mask[words - 1] = (1 << (sx % 64)) - 1;
            }
        }
        BelowMasks { words, layers, drops, masks, highest }
    }

    /// Moves every row to layer `ly` (called with 0, 1, 2, …): drops the columns whose top it
    /// reaches.
    fn advance(&mut self, ly: usize) {
        let (words, stride) = (self.words, (self.layers + 1) * self.words);
        for (z, mask) in self.masks.chunks_exact_mut(words.max(1)).enumerate() {
            let drops = &self.drops[z * stride + ly * words..z * stride + (ly + 1) * words];
            for (m, &d) in mask.iter_mut().zip(drops) {
                *m &= !d;
            }
        }
    }

    /// Word `w` of row `z`'s mask (no columns when built without tops).
    #[inline]
    fn word(&self, z: usize, w: usize) -> u64 {
        self.masks.get(z * self.words + w).copied().unwrap_or(0)
    }
}

/// The buffers of the carve loop, reused from chunk to chunk so that a chunk allocates none.
#[derive(Debug, Default)]
struct CarveBuffers {
    surfaces: Vec<i32>,
    tunnel_top: Vec<i32>,
    cavern_top: Vec<i32>,
    cavern_masks: Vec<u64>,
    cell_x: Vec<usize>,
    row_y: Vec<usize>,
    row_z: Vec<usize>,
    tunnel_masks: Vec<u64>,
    ax: Vec<(usize, f32)>,
    ay: Vec<(usize, f32)>,
    az: Vec<(usize, f32)>,
    /// `drops` and `masks` of the caverns' and the tunnels' [`BelowMasks`].
    below: [(Vec<u64>, Vec<u64>); 2],
}

/// `v` cleared and refilled from `items`.
fn refill<T>(v: &mut Vec<T>, items: impl Iterator<Item = T>) -> &[T] {
    v.clear();
    v.extend(items);
    v
}

fn carve_in(caves: &Caves, ctx: &StageContext, out: &mut VoxelBuffer, layers: bool, scratch: &mut CaveScratch) {
    let CaveScratch { carve: b, caverns: cavern_scratch, tunnels: tunnel_scratch } = scratch;
    let columns = ctx.columns;
    let c = &ctx.preset.caves;
    let caverns_on = c.mode != CaveMode::None;
    let tunnels_on = c.tunnels_active();
    if !caverns_on && !tunnels_on {
        return;
    }
    let depths = CaveDepths::of(c);
    let shallowest = match (caverns_on, tunnels_on) {
        (true, true) => depths.cavern.min(depths.tunnel),
        (true, false) => depths.cavern,
        _ => depths.tunnel,
    };
    let (min, size) = (out.min(), out.size());
    let (sx, sz) = (size.x as usize, size.z as usize);
    let mut highest_surface = i32::MIN;
    let surfaces = &mut b.surfaces;
    surfaces.clear();
    if (columns.min_x, columns.min_z, columns.size_x, columns.size_z) == (min.x, min.z, size.x, size.z) {
        // The grid is the box's: its columns in the same order.
        surfaces.extend(columns.columns.iter().map(|c| c.surface));
        highest_surface = surfaces.iter().copied().fold(highest_surface, i32::max);
    } else {
        for z in min.z..min.z + size.z {
            for x in min.x..min.x + size.x {
                let s = columns.get(x, z).surface;
                highest_surface = highest_surface.max(s);
                surfaces.push(s);
            }
        }
    }
    // Caves only at y < surface - depth: nothing to do above the highest such y.
    let y_end = (min.y + size.y).min(highest_surface.saturating_sub(shallowest));
    if y_end <= min.y {
        return;
    }
    let work = IVec3::new(size.x, y_end - min.y, size.z);
    let caverns = match (&caves.stages, caverns_on) {
        (Some(stages), true) => CavernField::compute(ctx.seed, c, stages, min, work, cavern_scratch),
        _ => None,
    };
    let tunnel_top = refill(&mut b.tunnel_top, surfaces.iter().map(|s| s.saturating_sub(depths.tunnel)));
    let tunnels = if tunnels_on {
        TunnelField::compute_below(&caves.tunnel_noise, c, min, work, Some(tunnel_top), tunnel_scratch)
    } else {
        None
    };
    if caverns.is_none() && tunnels.is_none() {
        return;
    }
    let cavern_top = refill(&mut b.cavern_top, surfaces.iter().map(|s| s.saturating_sub(depths.cavern)));
    let words = sx.div_ceil(64);
    let work_y = work.y as usize;
    // Caverns: per cell row (y, z) of the field, the voxels of the box's x range that are open.
    let cavern_rows = caverns.as_ref().map(|f| {
        let cell_x = refill(&mut b.cell_x, (min.x..min.x + size.x).map(|x| f.cell_index(0, x)));
        let (iy0, iy1) = (f.cell_index(1, min.y), f.cell_index(1, y_end - 1));
        let (iz0, iz1) = (f.cell_index(2, min.z), f.cell_index(2, min.z + size.z - 1));
        let (ny, nz) = (iy1 - iy0 + 1, iz1 - iz0 + 1);
        let masks = &mut b.cavern_masks;
        masks.clear();
        masks.resize(ny * nz * words, 0);
        // Voxel x of the box starts `phase` voxels into cell cell_x[0].
        let (cell_size, grid) = (f.cell_size(), f.grid());
        let phase = min.x.rem_euclid(cell_size) as u32;
        let spread = words == 1 && grid.size()[0] <= 64 && sx as u32 + phase <= 64 && matches!(cell_size, 1 | 2 | 4);
        let box_mask = if sx >= 64 { !0 } else { (1u64 << sx) - 1 };
        for jy in 0..ny {
            for jz in 0..nz {
                let row = grid.row(iy0 + jy, iz0 + jz);
                let dst = &mut masks[(jy * nz + jz) * words..][..words];
                if spread {
                    let open = !row[0] >> cell_x[0];
                    dst[0] = (spread_cells(open, cell_size) >> phase) & box_mask;
                    continue;
                }
                for (lx, &ix) in cell_x.iter().enumerate() {
                    let open = (row[ix / 64] >> (ix % 64)) & 1 == 0;
                    dst[lx / 64] |= (open as u64) << (lx % 64);
                }
            }
        }
        let row_y = refill(&mut b.row_y, (min.y..y_end).map(|y| f.cell_index(1, y) - iy0));
        let row_z = refill(&mut b.row_z, (min.z..min.z + size.z).map(|z| f.cell_index(2, z) - iz0));
        (&*masks, nz, row_y, row_z)
    });
    // Tunnels: per lattice row (y, z), the voxels of the box's x range whose lattice cell may
    // open; and each voxel's lattice coordinates.
    let tunnel_rows = tunnels.as_ref().map(|f| {
        let ax = refill(&mut b.ax, (min.x..min.x + size.x).map(|x| f.axis(0, x)));
        let ay = refill(&mut b.ay, (min.y..y_end).map(|y| f.axis(1, y)));
        let az = refill(&mut b.az, (min.z..min.z + size.z).map(|z| f.axis(2, z)));
        let [_, cy, cz] = f.cell_dims();
        let masks = &mut b.tunnel_masks;
        masks.clear();
        masks.resize(cy * cz * words, 0);
        for j in 0..cy {
            for k in 0..cz {
                let dst = &mut masks[(j * cz + k) * words..][..words];
                for (lx, &(i, _)) in ax.iter().enumerate() {
                    dst[lx / 64] |= (f.may_open_cell(i, j, k) as u64) << (lx % 64);
                }
            }
        }
        (&*masks, cz, ax, ay, az)
    });
    let data = out.data_mut();
    let carvable_bits = carvable_ids();
    // Whether every voxel a kind of cave may open is stone, hence carvable.
    let (cavern_in_stone, tunnel_in_stone) =
        (layers && depths.cavern >= STONE_DEPTH, layers && depths.tunnel >= STONE_DEPTH);
    // Layer by layer upwards (the buffer's order), up to the highest top.
    // With equal depths (the default) both kinds of cave share one set of masks.
    let shared = caverns.is_some() && tunnels.is_some() && depths.cavern == depths.tunnel;
    let [cavern_buffers, tunnel_buffers] = &mut b.below;
    let mut cavern_below = BelowMasks::new(caverns.is_some().then_some(cavern_top), sx, min.y, work_y, cavern_buffers);
    let mut tunnel_below =
        BelowMasks::new((tunnels.is_some() && !shared).then_some(tunnel_top), sx, min.y, work_y, tunnel_buffers);
    for ly in 0..work_y.min(cavern_below.highest.max(tunnel_below.highest)) {
        cavern_below.advance(ly);
        tunnel_below.advance(ly);
        let tunnel_below = if shared { &cavern_below } else { &tunnel_below };
        for lz in 0..sz {
            let row_start = (ly * sz + lz) * sx;
            for w in 0..words {
                let cavern_open = match &cavern_rows {
                    Some((masks, nz, row_y, row_z)) => {
                        masks[(row_y[ly] * nz + row_z[lz]) * words + w] & cavern_below.word(lz, w)
                    }
                    None => 0,
                };
                let mut bits = cavern_open;
                if cavern_in_stone {
                    // Every voxel left is stone: each run of set bits becomes a run of air.
                    while bits != 0 {
                        let start = bits.trailing_zeros();
                        let len = (!(bits >> start)).trailing_zeros() as usize;
                        let at = row_start + 64 * w + start as usize;
                        data[at..at + len].fill(AIR);
                        // Adding the lowest set bit clears the lowest run.
                        bits &= bits.wrapping_add(bits & bits.wrapping_neg());
                    }
                }
                while bits != 0 {
                    let i = row_start + 64 * w + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if carvable_in(carvable_bits, data[i]) {
                        data[i] = AIR;
                    }
                }
                let (Some(f), Some((masks, cz, ax, ay, az))) = (&tunnels, &tunnel_rows) else { continue };
                let (j, _) = ay[ly];
                let (k, _) = az[lz];
                let mut bits = masks[(j * cz + k) * words + w] & tunnel_below.word(lz, w) & !cavern_open;
                while bits != 0 {
                    let lx = 64 * w + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let i = row_start + lx;
                    if (tunnel_in_stone || carvable_in(carvable_bits, data[i])) && f.is_open_at(ax[lx], ay[ly], az[lz])
                    {
                        data[i] = AIR;
                    }
                }
            }
        }
    }
    if let Some(f) = caverns {
        f.recycle(cavern_scratch);
    }
    if let Some(f) = tunnels {
        f.recycle(tunnel_scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::model::WorldPreset;

    #[test]
    fn cavern_and_tunnel_fields_are_seamless() {
        let c = CaveSettings { min_pocket_volume: 40, cell_size: 1, tunnel_strength: 1.0, ..CaveSettings::default() };
        let stages = cave_stages(&CaveRules::of_caves(&c)).unwrap().unwrap();
        let scratch = &mut CavernScratch::default();
        let big_min = IVec3::new(-40, -70, -20);
        let big_size = IVec3::new(80, 50, 60);
        let big = CavernField::compute(5, &c, &stages, big_min, big_size, scratch).unwrap();
        let big_t = TunnelField::compute(5, &c, big_min, big_size).unwrap();
        let small_min = IVec3::new(-7, -50, 3);
        let small_size = IVec3::new(19, 13, 21);
        let small = CavernField::compute(5, &c, &stages, small_min, small_size, scratch).unwrap();
        let small_t = TunnelField::compute(5, &c, small_min, small_size).unwrap();
        let (mut open, mut tunnel) = (0, 0);
        for y in 0..small_size.y {
            for z in 0..small_size.z {
                for x in 0..small_size.x {
                    let p = small_min + IVec3::new(x, y, z);
                    assert_eq!(small.is_open(p), big.is_open(p), "{p:?}");
                    assert_eq!(small_t.is_open(p), big_t.is_open(p), "{p:?}");
                    open += small.is_open(p) as usize;
                    tunnel += small_t.is_open(p) as usize;
                }
            }
        }
        assert!(open > 0, "no cavern in the compared box");
        let big_tunnels = (0..big_size.y)
            .flat_map(|y| {
                (0..big_size.z).flat_map(move |z| (0..big_size.x).map(move |x| big_min + IVec3::new(x, y, z)))
            })
            .filter(|&p| big_t.is_open(p))
            .count();
        assert!(big_tunnels > 0 && tunnel <= big_tunnels);
    }

    #[test]
    fn breach_setting_sets_depths() {
        let mut c = WorldPreset::default().caves;
        c.min_depth = 0;
        assert_eq!(CaveDepths::of(&c), CaveDepths { cavern: 1, tunnel: 1 });
        c.allow_surface_breach = true;
        c.min_depth = 5;
        assert_eq!(CaveDepths::of(&c), CaveDepths { cavern: 5, tunnel: 0 });
    }

    #[test]
    fn spread_cells_repeats_each_bit_cell_size_times() {
        for (n, cells) in [0u64, !0, 0x8000_0001_0000_0001, 0x1234_5678_9abc_def0, 0xdead_beef].into_iter().enumerate()
        {
            for cs in [1, 2, 4] {
                let mut expect = 0u64;
                for bit in 0..64 / cs {
                    for k in 0..cs {
                        expect |= ((cells >> bit) & 1) << (cs * bit + k);
                    }
                }
                assert_eq!(spread_cells(cells, cs), expect, "case {n}, cell size {cs}");
            }
        }
    }
}
