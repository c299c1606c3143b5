//! Generation stage: ores — seeded clusters in world-aligned cells, free to cross chunk borders.
//!
//! For each ore kind `k` (in table order) and each world-aligned cell of [`ORE_CELL`]³ voxels, a
//! generator seeded from (seed, kind index, cell) draws the number of clusters, uniform in
//! `clusters_per_chunk_min ..= clusters_per_chunk_max`, and for each cluster a centre inside the
//! cell and a seed for its shape. A cluster grows from its centre as a blob: each step picks one
//! of the voxels placed so far and a random face direction, and adds that neighbour, until it has
//! `cluster_size` distinct voxels (or `4 · cluster_size` steps ran), so it stays within
//! `cluster_size - 1` voxels of its centre.
//!
//! A cluster voxel becomes ore only where the block is stone and the voxel lies at least the
//! kind's `min_depth` below its column's surface (`y < surface - min_depth`). A region considers
//! every cell within `cluster_size` voxels of it, in a fixed global order (kind, then cell y, z, x,
//! then cluster index; the first ore written wins), so a voxel's ore never depends on which
//! region computes it (law: Seamless).
//!
//! May use: `base`, `preset`, `gen3d::columns`, `gen3d::context`.

use crate::base::block::{self, BlockId};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::IVec3;
use crate::base::rng::{rng_at, salt};
use crate::gen3d::columns::ColumnGrid;
use crate::gen3d::context::StageContext;
use crate::preset::model::OreKind;
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// Edge of the world-aligned cells that ore cluster counts refer to (one chunk's volume).
pub const ORE_CELL: i32 = 32;

const FACE_STEPS: [IVec3; 6] = [
    IVec3::new(1, 0, 0),
    IVec3::new(-1, 0, 0),
    IVec3::new(0, 1, 0),
    IVec3::new(0, -1, 0),
    IVec3::new(0, 0, 1),
    IVec3::new(0, 0, -1),
];

/// One cluster: its centre and the shape's seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OreCluster {
    pub centre: IVec3,
    shape_seed: u64,
}

/// The clusters of ore kind `kind_index` whose centres lie in ore cell `cell` (cell coordinates:
/// voxel `p` lies in cell `p.div_euclid(ORE_CELL)`).
pub fn clusters_in_cell(seed: u64, kind_index: usize, kind: &OreKind, cell: IVec3) -> Vec<OreCluster> {
    cell_clusters(seed, kind_index, kind, cell).collect()
}

/// [`clusters_in_cell`], drawn as they are used (no list to allocate per cell).
fn cell_clusters(seed: u64, kind_index: usize, kind: &OreKind, cell: IVec3) -> impl Iterator<Item = OreCluster> {
    let mut rng = rng_at(seed, salt::ORE ^ ((kind_index as u64 + 1) << 32), cell.x, cell.y, cell.z);
    let (lo, hi) = (kind.clusters_per_chunk_min, kind.clusters_per_chunk_max.max(kind.clusters_per_chunk_min));
    let count = lo + (rng.next_u64() % (hi - lo + 1) as u64) as u32;
    let origin = cell * ORE_CELL;
    (0..count).map(move |_| {
        let h = rng.next_u64();
        let offset = IVec3::new((h & 31) as i32, ((h >> 5) & 31) as i32, ((h >> 10) & 31) as i32);
        OreCluster { centre: origin + offset, shape_seed: rng.next_u64() }
    })
}

/// The voxels of a cluster of `size` voxels (see the module docs), centre first.
pub fn cluster_voxels(cluster: &OreCluster, size: u32, out: &mut Vec<IVec3>) {
    out.clear();
    out.push(cluster.centre);
    let size = size.max(1) as usize;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(cluster.shape_seed);
    // Voxels stay within 4·size steps of the centre: below 2²⁰ on each axis their offsets pack
    // into one u64 each, so "already placed?" is one comparison per voxel instead of three
    // (whose outcomes the branch predictor cannot guess).
    let packed = size <= 1 << 18;
    let key = |p: IVec3| {
        let d = p - cluster.centre;
        let bits = |v: i32| v as u32 as u64 & ((1 << 21) - 1);
        (bits(d.x) << 42) | (bits(d.y) << 21) | bits(d.z)
    };
    let mut keys = Vec::with_capacity(if packed { size } else { 0 });
    if packed {
        keys.push(key(cluster.centre));
    }
    let mut steps = 0;
    while out.len() < size && steps < 4 * size {
        steps += 1;
        let h = rng.next_u64();
        let from = out[(h >> 8) as usize % out.len()];
        let next = from + FACE_STEPS[(h % 6) as usize];
        let placed = if packed { keys.contains(&key(next)) } else { out.contains(&next) };
        if !placed {
            out.push(next);
            if packed {
                keys.push(key(next));
            }
        }
    }
}

/// Applies this stage to `out`, using only world coordinates and the settings of `ctx`, whose
/// columns must cover `out`'s (x, z) rectangle.
pub fn place(ctx: &StageContext, out: &mut VoxelBuffer) {
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { place_avx2(ctx, out) };
    }
    place_body(ctx, out)
}

/// [`place`] built for AVX2 (the same code, so the same voxels).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn place_avx2(ctx: &StageContext, out: &mut VoxelBuffer) {
    place_body(ctx, out)
}

#[inline(always)]
fn place_body(ctx: &StageContext, out: &mut VoxelBuffer) {
    let (ores, columns) = (&ctx.preset.ores, ctx.columns);
    if !ores.enabled || ores.kinds.is_empty() {
        return;
    }
    let (min, size) = (out.min(), out.size());
    let max = min + size;
    let mut highest_surface = i32::MIN;
    if (columns.min_x, columns.min_z, columns.size_x, columns.size_z) == (min.x, min.z, size.x, size.z) {
        // The grid is the box's: all its columns.
        highest_surface = columns.columns.iter().fold(highest_surface, |h, c| h.max(c.surface));
    } else {
        for z in min.z..max.z {
            for x in min.x..max.x {
                highest_surface = highest_surface.max(columns.get(x, z).surface);
            }
        }
    }
    let mut voxels = Vec::new();
    for (k, kind) in ores.kinds.iter().enumerate() {
        let Some(id) = block::block_by_name(&kind.block) else { continue };
        let depth = kind.min_depth.min(1 << 20) as i32;
        if min.y >= highest_surface.saturating_sub(depth) {
            continue;
        }
        let reach = kind.cluster_size.clamp(1, 1024) as i32;
        let cell_lo = (min - IVec3::splat(reach)).map_div(ORE_CELL);
        let cell_hi = (max + IVec3::splat(reach - 1)).map_div(ORE_CELL);
        for cy in cell_lo.y..=cell_hi.y {
            for cz in cell_lo.z..=cell_hi.z {
                for cx in cell_lo.x..=cell_hi.x {
                    for cluster in cell_clusters(ctx.seed, k, kind, IVec3::new(cx, cy, cz)) {
                        let c = cluster.centre;
                        let near = |lo: i32, hi: i32, v: i32| v > lo - reach && v < hi + reach;
                        if !(near(min.x, max.x, c.x) && near(min.y, max.y, c.y) && near(min.z, max.z, c.z)) {
                            continue;
                        }
                        // Its voxels lie within `cluster_size - 1` of the centre: none can be
                        // deep enough when even the lowest would be above every column's limit.
                        if kind.cluster_size <= 1024 && c.y - (reach - 1) >= highest_surface.saturating_sub(depth) {
                            continue;
                        }
                        cluster_voxels(&cluster, kind.cluster_size, &mut voxels);
                        for &p in &voxels {
                            place_one(out, columns, p, depth, id);
                        }
                    }
                }
            }
        }
    }
}

#[inline]
fn place_one(out: &mut VoxelBuffer, columns: &ColumnGrid, p: IVec3, depth: i32, id: BlockId) {
    if !out.contains(p) || p.y >= columns.get(p.x, p.z).surface.saturating_sub(depth) {
        return;
    }
    if out.get(p) == Some(block::STONE) {
        out.set(p, id);
    }
}

trait MapDiv {
    fn map_div(self, d: i32) -> IVec3;
}

impl MapDiv for IVec3 {
    fn map_div(self, d: i32) -> IVec3 {
        IVec3::new(self.x.div_euclid(d), self.y.div_euclid(d), self.z.div_euclid(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_counts_stay_in_range_and_average_the_middle() {
        let kind = OreKind { clusters_per_chunk_min: 2, clusters_per_chunk_max: 6, ..OreKind::default() };
        let mut total = 0usize;
        let n = 4000;
        for i in 0..n {
            let c = clusters_in_cell(9, 0, &kind, IVec3::new(i % 20 - 10, i / 400 - 5, (i / 20) % 20));
            assert!((2..=6).contains(&c.len()), "{}", c.len());
            total += c.len();
            for cl in &c {
                let cell = IVec3::new(i % 20 - 10, i / 400 - 5, (i / 20) % 20) * ORE_CELL;
                let off = cl.centre - cell;
                assert!(off.x >= 0 && off.x < 32 && off.y >= 0 && off.y < 32 && off.z >= 0 && off.z < 32);
            }
        }
        let mean = total as f64 / n as f64;
        assert!((mean - 4.0).abs() < 0.1, "mean {mean}");
        let fixed = OreKind { clusters_per_chunk_min: 3, clusters_per_chunk_max: 3, ..OreKind::default() };
        assert_eq!(clusters_in_cell(1, 2, &fixed, IVec3::ZERO).len(), 3);
    }

    #[test]
    fn clusters_are_connected_blobs_of_their_size() {
        let kind = OreKind::default();
        let mut v = Vec::new();
        for (i, cl) in clusters_in_cell(4, 0, &kind, IVec3::new(3, -2, 1)).iter().enumerate() {
            cluster_voxels(cl, 10, &mut v);
            assert_eq!(v.len(), 10, "cluster {i}");
            assert_eq!(v[0], cl.centre);
            for (j, p) in v.iter().enumerate().skip(1) {
                assert!(
                    v[..j].iter().any(|q| {
                        let d = *p - *q;
                        d.x.abs() + d.y.abs() + d.z.abs() == 1
                    }),
                    "voxel {j} is detached"
                );
                let d = *p - cl.centre;
                assert!(d.x.abs().max(d.y.abs()).max(d.z.abs()) < 10);
            }
        }
        assert_ne!(
            clusters_in_cell(4, 0, &kind, IVec3::ZERO),
            clusters_in_cell(4, 1, &kind, IVec3::ZERO),
            "kinds draw independent clusters"
        );
    }
}
