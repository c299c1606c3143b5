//! Scatter: where trees, bushes, flowers and rocks stand, decided per world position.
//!
//! Candidates form a jittered grid: one per world-aligned cell of [`SCATTER_SPACING`]² columns, at
//! a hashed point inside the cell. A candidate at column (x, z) with surface `s` and biome `b`
//! (from [`StageContext::column`]) tries the entries of `b`'s scatter set in order (data of the
//! biome's row, [`crate::preset::model::Biome::scatter_rules`]); entry `r` has probability
//! - `q · density` placed `Anywhere`,
//! - `q · density · 2g` placed in `Groves`,
//! - `q · density · 2(1 − g)` placed in `Clearings`,
//!
//! where `q` is the entry's `density`, or its `bare_rock_density` on bare rock (a column whose
//! top block is the biome's cliff block: steep slopes, or a biome of bare stone), `density` is
//! the preset's scatter density, and `g ∈ [0, 1]` is grove noise (2D Perlin of wavelength
//! `density_scale`). The classic set (no `scatter` in the row) is trees in groves, bushes
//! anywhere, flowers in clearings and rocks anywhere, more often on bare rock. One hashed uniform
//! `u` picks the first entry whose cumulative probability exceeds it (probabilities are scaled
//! down if they sum past 1); kinds the preset turns off have probability 0. Nothing stands under
//! water (`s < sea_level` with water on). With `allow_surface_breach`, a tunnel mouth under a
//! candidate is not checked.
//!
//! An instance's base is the top face of its column's ground, `(x, s, z)`; it belongs to the chunk
//! holding voxel `(⌊x⌋, s, ⌊z⌋)`, so every instance belongs to exactly one chunk and each chunk can
//! be decorated alone, in any order (laws: Deterministic, Seamless).
//!
//! The pipeline calls it after generating a chunk, with the chunk's columns
//! ([`crate::gen3d::pipeline::Generator::scatter_chunk_with_columns`]).
//!
//! May use: `base`, `preset`, `gen3d::context`.

use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::base::rng::{hash2, mix64, salt, unit_f32};
use crate::gen3d::context::{GroveNoise, StageContext};
pub use crate::preset::model::ScatterKind;
use crate::preset::model::ScatterPlacement;

/// Edge, in columns, of the cells of the candidate grid (one candidate per cell).
pub const SCATTER_SPACING: i32 = 4;

/// One placed decoration, in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScatterInstance {
    pub kind: ScatterKind,
    /// World position of the base: on the top face of the ground (`f64`: exact anywhere in the
    /// world).
    pub position: [f64; 3],
    /// Rotation about +y, radians in `[0, 2π)`.
    pub rotation_y: f32,
    /// Uniform scale in `[0.75, 1.25)`.
    pub scale: f32,
}

impl ScatterInstance {
    /// The voxel the instance stands in (the one above its ground voxel).
    pub fn base_voxel(&self) -> IVec3 {
        IVec3::new(self.position[0].floor() as i32, self.position[1].floor() as i32, self.position[2].floor() as i32)
    }
}

/// The decorations whose base lies in chunk `c`, with the columns of `ctx` where it covers
/// them (e.g. the padded chunk's grid that generating the chunk made) and the column pass
/// elsewhere: the same result either way.
pub fn scatter_chunk(ctx: &StageContext, c: ChunkCoord) -> Vec<ScatterInstance> {
    let m = c.min_voxel();
    let mut out = scatter_columns(ctx, m.x, m.z, CHUNK_SIZE, CHUNK_SIZE);
    out.retain(|i| ChunkCoord::containing(i.base_voxel()) == c);
    out
}

/// The decorations whose base column lies in `[min_x, min_x + size_x) × [min_z, min_z + size_z)`,
/// at any height, with columns from `ctx` ([`StageContext::column`]). Candidate cells are whole
/// inside the rectangle when it is aligned to [`SCATTER_SPACING`] (chunks are); otherwise only
/// candidates inside it are returned.
pub fn scatter_columns(ctx: &StageContext, min_x: i32, min_z: i32, size_x: i32, size_z: i32) -> Vec<ScatterInstance> {
    let preset = ctx.preset;
    let sc = &preset.scatter;
    let mut out = Vec::new();
    if !sc.enabled || sc.density <= 0.0 || size_x <= 0 || size_z <= 0 {
        return out;
    }
    let grove = GroveNoise::new(preset);
    let (max_x, max_z) = (min_x.saturating_add(size_x), min_z.saturating_add(size_z));
    let g0 = (min_x.div_euclid(SCATTER_SPACING), min_z.div_euclid(SCATTER_SPACING));
    let g1 = ((max_x - 1).div_euclid(SCATTER_SPACING), (max_z - 1).div_euclid(SCATTER_SPACING));
    let enabled = |k: ScatterKind| match k {
        ScatterKind::Tree => sc.trees,
        ScatterKind::Bush => sc.bushes,
        ScatterKind::Flower => sc.flowers,
        ScatterKind::Rock => sc.rocks,
    };
    let mut p: Vec<f32> = Vec::new();
    for gz in g0.1..=g1.1 {
        for gx in g0.0..=g1.0 {
            let h = hash2(preset.seed, salt::SCATTER, gx, gz);
            let jx = unit_f32(h) * SCATTER_SPACING as f32;
            let jz = unit_f32(h << 24) * SCATTER_SPACING as f32;
            let x = f64::from(gx * SCATTER_SPACING) + f64::from(jx);
            let z = f64::from(gz * SCATTER_SPACING) + f64::from(jz);
            let (cx, cz) = (x.floor() as i32, z.floor() as i32);
            if cx < min_x || cx >= max_x || cz < min_z || cz >= max_z {
                continue;
            }
            let col = ctx.column(cx, cz);
            if preset.water.enabled && col.surface < preset.water.sea_level {
                continue;
            }
            let Some(biome) = ctx.biome_params.get(col.biome as usize) else { continue };
            let g = grove.at(x, z);
            let bare = col.surface_block == biome.cliff_block;
            let d = sc.density;
            p.clear();
            p.extend(biome.scatter.iter().map(|r| {
                let q = if bare { r.bare_rock_density } else { r.density };
                match r.placement {
                    _ if !enabled(r.kind) => 0.0,
                    // Trees of blocks grow here instead ([`crate::gen3d::trees`]).
                    _ if r.kind == ScatterKind::Tree && biome.block_trees => 0.0,
                    ScatterPlacement::Anywhere => q * d,
                    ScatterPlacement::Groves => q * d * 2.0 * g,
                    ScatterPlacement::Clearings => q * d * 2.0 * (1.0 - g),
                }
            }));
            let total: f32 = p.iter().sum();
            if total > 1.0 {
                p.iter_mut().for_each(|v| *v /= total);
            }
            let h2 = hash2(preset.seed, salt::SCATTER ^ 0x5ca7, gx, gz);
            let u = unit_f32(h2);
            let mut acc = 0.0;
            let mut kind = None;
            for (r, &pk) in biome.scatter.iter().zip(&p) {
                acc += pk;
                if u < acc {
                    kind = Some(r.kind);
                    break;
                }
            }
            let Some(kind) = kind else { continue };
            out.push(ScatterInstance {
                kind,
                position: [x, f64::from(col.surface), z],
                rotation_y: unit_f32(h2 << 24) * std::f32::consts::TAU,
                scale: 0.75 + 0.5 * unit_f32(mix64(h2)),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen3d::columns::ColumnGrid;
    use crate::gen3d::pipeline::Generator;
    use crate::gen3d::scratch::GenScratch;
    use crate::preset::model::WorldPreset;

    #[test]
    fn scatter_from_a_column_grid_equals_scatter_from_point_columns() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut padded = crate::base::chunk::VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        let (mut grid, mut scratch) = (ColumnGrid::default(), GenScratch::default());
        let mut compared = 0;
        for c in
            [ChunkCoord::new(0, 0, 0), ChunkCoord::new(3, 0, -2), ChunkCoord::new(-5, 1, 7), ChunkCoord::new(2, -1, 2)]
        {
            if !g.generate_padded_chunk_unless_sky(c, &mut padded, &mut grid, &mut scratch) {
                assert_eq!(g.scatter_chunk_with_columns(c, &grid), g.scatter_chunk(c), "{c:?}");
                compared += 1;
            }
        }
        assert!(compared >= 2);
    }

    /// Every decoration of a 12×12-chunk square of surface chunks.
    fn scatter_square(p: &WorldPreset) -> Vec<ScatterInstance> {
        let g = Generator::new(p).unwrap();
        let ctx_grid = ColumnGrid::default();
        let ctx = StageContext::new(
            g.preset(),
            g.biomes(),
            g.terrain().biomes().all_params(),
            g.column_pass(),
            &ctx_grid,
            None,
        );
        scatter_columns(&ctx, -6 * CHUNK_SIZE, -6 * CHUNK_SIZE, 12 * CHUNK_SIZE, 12 * CHUNK_SIZE)
    }

    #[test]
    fn a_scatter_set_without_trees_places_no_trees() {
        use crate::preset::model::ScatterRule;
        let mut p = WorldPreset::default();
        let classic = scatter_square(&p);
        let count = |all: &[ScatterInstance], k: ScatterKind| all.iter().filter(|i| i.kind == k).count();
        assert!(count(&classic, ScatterKind::Tree) > 0 && count(&classic, ScatterKind::Flower) > 0);
        let rule = |kind: &str, density: f32, placement: ScatterPlacement| ScatterRule {
            kind: kind.into(),
            density,
            placement,
            bare_rock_density: 0.0,
        };
        for b in &mut p.biomes.table {
            b.tree_density = 0.9;
            b.scatter = Some(vec![
                rule("tree", 0.0, ScatterPlacement::Groves),
                rule("flower", 0.4, ScatterPlacement::Anywhere),
            ]);
        }
        let custom = scatter_square(&p);
        assert_eq!(count(&custom, ScatterKind::Tree), 0, "the set's 0 trees win over tree_density");
        assert_eq!(count(&custom, ScatterKind::Bush) + count(&custom, ScatterKind::Rock), 0, "only listed kinds");
        assert!(count(&custom, ScatterKind::Flower) > count(&classic, ScatterKind::Flower));
        for b in &mut p.biomes.table {
            b.scatter = Some(Vec::new());
        }
        assert!(scatter_square(&p).is_empty(), "an empty set places nothing");
    }

    #[test]
    fn the_classic_set_is_what_an_absent_scatter_means() {
        let p = WorldPreset::default();
        let mut q = p.clone();
        for b in &mut q.biomes.table {
            b.scatter = Some(b.scatter_rules());
        }
        assert_ne!(p, q);
        assert_eq!(scatter_square(&p), scatter_square(&q));
    }
}
