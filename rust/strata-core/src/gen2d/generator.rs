//! The side-view generator: a pure function from (preset, world tile) to a block id.
//!
//! [`Generator2D::generate_region`] fills any rectangle of tiles. Stages, in order:
//! 1. **Layers** from the [`SurfaceProfile`]: air above the surface (water in pools), grass on top
//!    (sand on and beside pools), `dirt_depth` dirt tiles, stone below.
//! 2. **Caves**: the infinite 2D automaton of [`run_ca_2d`] running the program of
//!    [`cave_rules`](crate::automata::cave_rules) (rock is alive; the 4-5 rule
//!    `AtLeast(cave_threshold)` or the Life-like `cave_life_rule` for `cave_passes`, then
//!    `AtLeast(cave_final_threshold)` for `cave_final_passes`), forced to rock above `cave_depth`
//!    tiles below the surface so the surface stays whole; then pockets of fewer than
//!    `min_pocket_tiles` open tiles are filled ([`fill_pockets_2d`]). The automaton brings its
//!    own halo and the pocket fill needs [`PocketRule::halo`] more, so the result is the
//!    infinite field's. `GameOfLife` caves run exactly `cave_life_ticks` ticks of
//!    `cave_life_rule` instead, no pocket fill, and with `cave_life_flood_fill` every open region
//!    but the main one of its world-aligned region is filled ([`REGION_2D`]: 64 tiles and a
//!    16-tile margin; see [`life`](crate::automata::life)), computed over the boxes of the
//!    regions the window touches. `Classic` runs the side-view classic instead ([`ClassicCaves`]).
//! 3. **Ores**: per kind, clusters hashed from world-aligned 32×32 cells (`clusters_per_chunk`
//!    of the preset's ore table counts per cell): a 4-connected random walk of `cluster_size` steps
//!    from a hashed start, turning stone into ore only `max(kind depth, ore_depth)` tiles or more
//!    below the surface. Every cell whose clusters can reach the region is visited, in world
//!    order, and the first ore on a tile wins, so the outcome never depends on the region.
//! 4. **Structures**: the preset's structure rules resolved against a side-view structure
//!    library ([`crate::gen2d::structures`]); each placement meeting the region stamps its part
//!    of it. Placements read the surface line and, for cave rules, the terrain of stages 1-3
//!    ([`Generator2D::generate_terrain`]) at their centre column, never stage 4, so no region
//!    depends on another.
//!
//! Every stage reads only the preset and world coordinates (laws: Deterministic, Seamless).
//!
//! May use: `base`, `preset`, `noise` (through the surface line), `automata`, `gen2d`'s
//! surface line, tile grid and structures.

use crate::automata::cave_rules::{CaveCleanup, CaveRules, cave_stages};
use crate::automata::cellular::{BitGrid2D, CaStage, run_ca_2d};
use crate::automata::flood_fill::{PocketRule, PocketScratch, fill_pockets_2d};
use crate::automata::life::REGION_2D;
use crate::base::block::{self, AIR, BlockId, DIRT, GRASS, SAND, STONE, WATER};
use crate::base::block_library::default_library;
use crate::base::coords::IVec3;
use crate::base::rng::{hash3, mix64, salt};
use crate::gen2d::classic::ClassicCaves;
use crate::gen2d::spawns::{SpawnError2D, SpawnPoint2D, check_spawn_rules_2d, spawn_chunk_2d, structure_entities_2d};
use crate::gen2d::structure_library::shipped_structures_2d;
use crate::gen2d::structures::{Placement2D, StructureError2D, StructureLibrary2D, Structures2D, Terrain2D};
use crate::gen2d::surface::{SurfaceLine, SurfaceProfile};
use crate::gen2d::{ChunkCoord2D, TileGrid};
use crate::preset::fields::FieldError;
use crate::preset::model::WorldPreset;
use std::sync::Arc;
use thiserror::Error;

/// Edge of the world-aligned cells that seed ore clusters, in tiles.
pub const ORE_CELL: i32 = 32;

/// Why a side-view generator could not be built from a preset.
#[derive(Debug, Error)]
pub enum Generator2DError {
    #[error("invalid preset: {0}")]
    Preset(#[from] FieldError),
    #[error("{0}")]
    Structures(#[from] StructureError2D),
    #[error("{0}")]
    Spawns(#[from] SpawnError2D),
}

/// One ore kind, resolved from the preset's ore table.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ore2D {
    block: BlockId,
    /// Tiles below the surface where the ore may start.
    min_depth: i32,
    clusters_min: u32,
    clusters_max: u32,
    cluster_size: u32,
}

/// A side-view generator built once per preset and shared by all workers (`Send + Sync`).
pub struct Generator2D {
    preset: Arc<WorldPreset>,
    line: SurfaceLine,
    /// `None` when caves are off.
    cave_stages: Option<Vec<CaStage>>,
    /// The side-view classic's caves (`cave_mode = Classic`), instead of `cave_stages`.
    classic: Option<ClassicCaves>,
    /// What follows the cave automaton.
    cleanup: CaveCleanup,
    pockets: PocketRule,
    ores: Vec<Ore2D>,
    /// The preset's structure rules, resolved.
    structures: Structures2D,
}

impl std::fmt::Debug for Generator2D {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator2D").field("seed", &self.preset.seed).finish()
    }
}

impl Generator2D {
    /// Builds a generator whose structure rules place the shipped side-view structures (made of
    /// the default block library's blocks); the preset is validated first.
    pub fn new(preset: &WorldPreset) -> Result<Self, Generator2DError> {
        if preset.structures.rules.is_empty() {
            return Self::with_structures(preset, &StructureLibrary2D::default());
        }
        Self::with_structures(preset, &shipped_structures_2d(default_library())?)
    }

    /// Builds a generator whose structure rules name structures of `library` (a rule naming
    /// another is an error naming the rule, the name and the library's names).
    pub fn with_structures(preset: &WorldPreset, library: &StructureLibrary2D) -> Result<Self, Generator2DError> {
        preset.validate()?;
        check_spawn_rules_2d(preset)?;
        let structures = Structures2D::new(preset, library)?;
        let sv = &preset.side_view;
        let cave_stages = cave_stages(&CaveRules::of_side_view(sv)).map_err(|e| FieldError {
            field: "side_view_cave_life_rule".into(),
            problem: e.to_string(),
            allowed: "a rule like B3/S23 or B3678/S34678 (neighbour counts 0-8)".into(),
        })?;
        let cleanup = CaveRules::of_side_view(sv).cleanup();
        let ores = if preset.ores.enabled {
            preset
                .ores
                .kinds
                .iter()
                .filter_map(|k| {
                    Some(Ore2D {
                        block: block::block_by_name(&k.block)?,
                        min_depth: k.min_depth.max(sv.ore_depth) as i32,
                        clusters_min: k.clusters_per_chunk_min,
                        clusters_max: k.clusters_per_chunk_max,
                        cluster_size: k.cluster_size,
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(Self {
            line: SurfaceLine::new(preset.seed, sv),
            cave_stages,
            classic: (sv.cave_mode == crate::preset::model::CaveMode::Classic).then(|| ClassicCaves::of_side_view(sv)),
            cleanup,
            pockets: PocketRule::new(if cleanup == CaveCleanup::Pockets { sv.min_pocket_tiles as usize } else { 0 }),
            ores,
            structures,
            preset: Arc::new(preset.clone()),
        })
    }

    pub fn preset(&self) -> &WorldPreset {
        &self.preset
    }

    /// Edge of a chunk, in tiles.
    pub fn chunk_tiles(&self) -> i32 {
        self.preset.side_view.chunk_tiles.clamp(1, 4096) as i32
    }

    pub fn surface_line(&self) -> &SurfaceLine {
        &self.line
    }

    /// Height of the surface line above row 0 at world x, in tiles (up), before rounding.
    pub fn surface_height(&self, x: f64) -> f64 {
        self.line.height(x)
    }

    /// Row (y down) of the topmost generated ground tile of column `x`.
    pub fn surface_row(&self, x: i32) -> i32 {
        self.line.surface_row(crate::base::coords::clamp_to_world(x))
    }

    /// Surface rows, water levels and tops (structures included) of `width` columns from
    /// `min_x`.
    pub fn profile(&self, min_x: i32, width: i32) -> SurfaceProfile {
        let mut profile = self.terrain_profile(min_x, width);
        if self.structures.is_empty() || profile.top.is_empty() {
            return profile;
        }
        let max_x = min_x + profile.top.len() as i32;
        for p in self.structures_in(min_x, max_x) {
            for x in p.min_x.max(min_x)..p.max_x().min(max_x) {
                if let Some(y) = self.structures.column_top(&p, x) {
                    let i = (x - min_x) as usize;
                    profile.top[i] = profile.top[i].min(y);
                }
            }
        }
        profile
    }

    /// The profile of the terrain alone (no structures).
    fn terrain_profile(&self, min_x: i32, width: i32) -> SurfaceProfile {
        let sv = &self.preset.side_view;
        SurfaceProfile::compute(&self.line, min_x, width, sv.water_enabled.then_some(sv.max_pool_width))
    }

    /// The structures whose boxes meet columns `[min_x, max_x)`, in stamping order (rule by
    /// rule, cells left to right): the same answer on every machine, before any chunk loads.
    pub fn structures_in(&self, min_x: i32, max_x: i32) -> Vec<Placement2D> {
        let mut out = Vec::new();
        self.structures.placements_in(self, self.preset.seed, (min_x, max_x), None, &mut out);
        out
    }

    /// The resolved structure rules (templates by rule, cells of a placement).
    pub fn structures(&self) -> &Structures2D {
        &self.structures
    }

    /// Where the preset's spawn rules, and its structure rules with an `entity`, start objects in
    /// chunk `c` ([`crate::gen2d::spawns`]): `tiles` holds the chunk's generated tiles (no edits)
    /// with a tile of margin or more; `light` the combined light of a generated tile, for rules
    /// that filter by light.
    pub fn spawn_chunk(
        &self,
        c: ChunkCoord2D,
        tiles: &TileGrid,
        light: Option<&dyn Fn(i32, i32) -> u8>,
    ) -> Vec<SpawnPoint2D> {
        let n = self.chunk_tiles();
        let mut out = spawn_chunk_2d(&self.preset, c, n, tiles, &|x| self.surface_row(x), light);
        if self.preset.structures.rules.iter().any(|r| !r.entity.is_empty()) {
            let (x0, _) = c.min_tile(n);
            out.extend(structure_entities_2d(&self.preset, &self.structures_in(x0, x0 + n), c, n, tiles));
        }
        out
    }

    /// Generates the tiles of `[min_x, min_x + width) × [min_y, min_y + height)`: the terrain
    /// ([`Generator2D::generate_terrain`]) with the structures that meet it stamped over it.
    pub fn generate_region(&self, min_x: i32, min_y: i32, width: i32, height: i32) -> TileGrid {
        let mut out = self.generate_terrain(min_x, min_y, width, height);
        if out.width == 0 || out.height == 0 || self.structures.is_empty() {
            return out;
        }
        let mut placements = Vec::new();
        self.structures.placements_in(
            self,
            self.preset.seed,
            (min_x, min_x + out.width),
            Some((min_y, min_y + out.height)),
            &mut placements,
        );
        self.structures.stamp(&placements, &mut out);
        out
    }

    /// Generates the terrain of `[min_x, min_x + width) × [min_y, min_y + height)`: layers,
    /// caves and ores, without structures.
    pub fn generate_terrain(&self, min_x: i32, min_y: i32, width: i32, height: i32) -> TileGrid {
        let mut out = TileGrid::new(min_x, min_y, width, height);
        if out.width == 0 || out.height == 0 {
            return out;
        }
        // One column of context on each side: sand beside pools.
        let profile = self.terrain_profile(min_x - 1, out.width + 2);
        let top = (min_x..min_x + out.width).map(|x| profile.water_top_at(x)).min().unwrap_or(i32::MAX);
        if min_y + out.height <= top {
            return out; // all sky
        }
        self.fill_layers(&profile, &mut out);
        self.carve_caves(&mut out);
        self.place_ores(&profile, &mut out);
        out
    }

    /// Generates exactly chunk `c`.
    pub fn generate_chunk(&self, c: ChunkCoord2D) -> TileGrid {
        let n = self.chunk_tiles();
        let (x, y) = c.min_tile(n);
        self.generate_region(x, y, n, n)
    }

    /// Generates chunk `c` with a one-tile halo on every side (what the autotiler needs).
    pub fn generate_padded_chunk(&self, c: ChunkCoord2D) -> TileGrid {
        let n = self.chunk_tiles();
        let (x, y) = c.min_tile(n);
        self.generate_region(x - 1, y - 1, n + 2, n + 2)
    }

    /// The generated tile at world `(x, y)` (a 1×1 region); air beyond the world's bounds
    /// ([`crate::base::coords::voxel_in_world`]).
    pub fn tile_at(&self, x: i32, y: i32) -> BlockId {
        if !crate::base::coords::voxel_in_world(IVec3::new(x, y, 0)) {
            return AIR;
        }
        self.generate_region(x, y, 1, 1).tiles[0]
    }

    /// Stage 1: layers and pools.
    fn fill_layers(&self, profile: &SurfaceProfile, out: &mut TileGrid) {
        let dirt = self.preset.side_view.dirt_depth as i32;
        for x in out.min_x..out.min_x + out.width {
            let s = profile.surface_at(x);
            let water_top = profile.water_top_at(x);
            let beach = profile.is_wet(x) || profile.is_wet(x - 1) || profile.is_wet(x + 1);
            for y in out.min_y..out.min_y + out.height {
                let id = if y < s {
                    if y >= water_top { WATER } else { AIR }
                } else if y == s {
                    if beach { SAND } else { GRASS }
                } else if y <= s + dirt {
                    if beach && y <= s + 1 { SAND } else { DIRT }
                } else {
                    STONE
                };
                if id != AIR {
                    out.set(x, y, id);
                }
            }
        }
    }

    /// Stage 2: caves below the cave depth, small pockets or secondary regions filled.
    fn carve_caves(&self, out: &mut TileGrid) {
        if let Some(classic) = &self.classic {
            classic.carve(self.preset.seed, |x| self.line.surface_row(x), self.pockets, out);
            return;
        }
        let Some(stages) = &self.cave_stages else { return };
        let sv = &self.preset.side_view;
        let depth = sv.cave_depth as i32;
        let halo = if self.pockets.is_active() { self.pockets.halo() as i32 } else { 0 };
        let (wx, wy, ww, wh) = if self.cleanup == CaveCleanup::MainRegion {
            let (min, size) =
                REGION_2D.window(IVec3::new(out.min_x, 0, out.min_y), IVec3::new(out.width, 1, out.height));
            (min.x, min.z, size.x, size.z)
        } else {
            (out.min_x - halo, out.min_y - halo, out.width + 2 * halo, out.height + 2 * halo)
        };
        // Offset of the output in the window.
        let (ox, oy) = (out.min_x - wx, out.min_y - wy);
        let surface: Vec<i32> = (wx..wx + ww).map(|x| self.line.surface_row(x)).collect();
        let shallowest_cave = surface.iter().min().copied().unwrap_or(i32::MAX).saturating_add(depth);
        if wy + wh <= shallowest_cave {
            return; // the whole window lies above the cave depth
        }
        let mut rock: BitGrid2D =
            run_ca_2d(self.preset.seed, salt::CAVE_FILL, sv.cave_rock_probability, (wx, wy), (ww, wh), stages);
        for (i, s) in surface.iter().enumerate() {
            let solid_to = (s.saturating_add(depth) - wy).clamp(0, wh);
            for y in 0..solid_to {
                rock.set(i, y as usize, true);
            }
        }
        if self.pockets.is_active() {
            let h = halo as usize;
            let roi_max = [h + out.width as usize, h + out.height as usize];
            fill_pockets_2d(&mut rock, false, self.pockets, [h, h], roi_max, &mut PocketScratch::default());
        }
        if self.cleanup == CaveCleanup::MainRegion {
            REGION_2D.fill_secondary(
                rock.as_3d_mut(),
                IVec3::new(wx, 0, wy),
                IVec3::new(out.min_x, 0, out.min_y),
                IVec3::new(out.width, 1, out.height),
            );
        }
        for y in 0..out.height {
            for x in 0..out.width {
                if !rock.get((x + ox) as usize, (y + oy) as usize) {
                    let i = (y * out.width + x) as usize;
                    if block::is_solid(out.tiles[i]) {
                        out.tiles[i] = AIR;
                    }
                }
            }
        }
    }

    /// Stage 3: ore clusters in stone, below their depth.
    fn place_ores(&self, profile: &SurfaceProfile, out: &mut TileGrid) {
        if self.ores.is_empty() {
            return;
        }
        let shallowest = (out.min_x..out.min_x + out.width).map(|x| profile.surface_at(x)).min().unwrap_or(i32::MAX);
        let seed = self.preset.seed;
        // Tiles that were stone before any ore: ores never overwrite each other or other blocks.
        let was_stone: Vec<bool> = out.tiles.iter().map(|&t| t == STONE).collect();
        let mut taken = vec![false; out.tiles.len()];
        for (k, ore) in self.ores.iter().enumerate() {
            if out.min_y + out.height <= shallowest.saturating_add(ore.min_depth) {
                continue;
            }
            let reach = ore.cluster_size as i32;
            let cell = |v: i32| v.div_euclid(ORE_CELL);
            let (cx0, cx1) = (cell(out.min_x - reach), cell(out.min_x + out.width - 1 + reach));
            let (cy0, cy1) = (cell(out.min_y - reach), cell(out.min_y + out.height - 1 + reach));
            let ore_salt = salt::ORE ^ ((k as u64 + 1) << 32) ^ 0x2d;
            for cy in cy0..=cy1 {
                for cx in cx0..=cx1 {
                    let spread = (ore.clusters_max - ore.clusters_min + 1) as u64;
                    let count = ore.clusters_min + (hash3(seed, ore_salt, cx, cy, -1) % spread) as u32;
                    for i in 0..count as i32 {
                        let mut h = hash3(seed, ore_salt, cx, cy, i);
                        let (mut x, mut y) = (
                            cx * ORE_CELL + (h % ORE_CELL as u64) as i32,
                            cy * ORE_CELL + ((h >> 8) % ORE_CELL as u64) as i32,
                        );
                        h = mix64(h);
                        for step in 0..ore.cluster_size {
                            if out.contains(x, y) {
                                let idx = ((y - out.min_y) * out.width + (x - out.min_x)) as usize;
                                if was_stone[idx] && !taken[idx] && y - profile.surface_at(x) >= ore.min_depth {
                                    out.tiles[idx] = ore.block;
                                    taken[idx] = true;
                                }
                            }
                            // Two bits per step choose the direction; refresh the bits every 32 steps.
                            if step % 32 == 31 {
                                h = mix64(h);
                            }
                            // Saturating: a walk at the ends of i32 (the world's bounds) stays there.
                            match (h >> (2 * (step % 32))) & 3 {
                                0 => x = x.saturating_add(1),
                                1 => x = x.saturating_sub(1),
                                2 => y = y.saturating_add(1),
                                _ => y = y.saturating_sub(1),
                            }
                        }
                    }
                }
            }
        }
    }
}

/// What structure placement reads of the terrain: the surface line, pools, and columns of
/// stages 1-3 (never the structures themselves).
impl Terrain2D for Generator2D {
    fn surface_row(&self, x: i32) -> i32 {
        Generator2D::surface_row(self, x)
    }

    fn is_wet(&self, x: i32) -> bool {
        self.terrain_profile(x, 1).is_wet(x)
    }

    fn column(&self, x: i32, y0: i32, count: i32) -> Vec<BlockId> {
        self.generate_terrain(x, y0, 1, count.clamp(0, 4096)).tiles
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_from_top_to_bottom() {
        let mut p = WorldPreset::default();
        p.side_view.cave_mode = crate::preset::model::CaveMode::None;
        p.ores.enabled = false;
        p.side_view.water_enabled = false;
        let g = Generator2D::new(&p).unwrap();
        for x in [-100, 0, 7, 3000] {
            let s = g.surface_row(x);
            assert_eq!(g.tile_at(x, s - 1), AIR);
            assert_eq!(g.tile_at(x, s), GRASS);
            assert_eq!(g.tile_at(x, s + 1), DIRT);
            assert_eq!(g.tile_at(x, s + 4), DIRT);
            assert_eq!(g.tile_at(x, s + 5), STONE);
            assert_eq!(g.tile_at(x, s + 500), STONE);
        }
    }

    #[test]
    fn a_bad_life_rule_is_a_clear_error() {
        let mut p = WorldPreset::default();
        p.side_view.cave_mode = crate::preset::model::CaveMode::GameOfLife;
        p.side_view.cave_life_rule = "B3S23".into();
        let e = Generator2D::new(&p).unwrap_err().to_string();
        assert!(e.contains("side_view_cave_life_rule"), "{e}");
    }

    fn life_preset(rule: &str, rock: f32, ticks: u32, flood_fill: bool) -> WorldPreset {
        let mut p = WorldPreset::default();
        p.side_view.cave_mode = crate::preset::model::CaveMode::GameOfLife;
        p.side_view.cave_life_rule = rule.into();
        p.side_view.cave_rock_probability = rock;
        p.side_view.cave_life_ticks = ticks;
        p.side_view.cave_life_flood_fill = flood_fill;
        p
    }

    #[test]
    fn life_caves_are_seamless_and_deterministic() {
        for (rule, rock, flood_fill) in
            [("B3678/S34678", 0.55, true), ("B3/S23", 0.5, true), ("B3678/S34678", 0.55, false)]
        {
            let p = life_preset(rule, rock, 12, flood_fill);
            let g = Generator2D::new(&p).unwrap();
            let c = ChunkCoord2D::new(1, 2);
            let n = g.chunk_tiles();
            let alone = g.generate_chunk(c);
            let (x, y) = c.min_tile(n);
            // The chunk inside a block of 3×3 chunks, and a padded chunk's inner tiles.
            let big = g.generate_region(x - n, y - n, 3 * n, 3 * n);
            let padded = g.generate_padded_chunk(c);
            let mut open = 0;
            for ty in y..y + n {
                for tx in x..x + n {
                    assert_eq!(alone.get(tx, ty), big.get(tx, ty), "{rule} at {tx} {ty}");
                    assert_eq!(alone.get(tx, ty), padded.get(tx, ty), "{rule} at {tx} {ty}");
                    open += (alone.get(tx, ty) == Some(AIR)) as usize;
                }
            }
            assert!(open > 0 && open < (n * n) as usize, "{rule}: {open} open tiles");
            assert_eq!(Generator2D::new(&p).unwrap().generate_chunk(c), alone, "{rule}: deterministic");
            let other = Generator2D::new(&WorldPreset { seed: p.seed + 1, ..p.clone() }).unwrap();
            assert_ne!(other.generate_chunk(c), alone, "{rule}: the seed matters");
        }
    }

    #[test]
    fn bad_life_ticks_are_a_clear_error() {
        let mut p = life_preset("B3/S23", 0.5, 65, true);
        let e = Generator2D::new(&p).unwrap_err().to_string();
        assert!(e.contains("side_view_cave_life_ticks") && e.contains("65") && e.contains("64"), "{e}");
        p.side_view.cave_life_ticks = 64;
        p.caves.life_ticks = 1000;
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains("caves_life_ticks") && e.contains("1000"), "{e}");
    }

    /// Prints Life caves of a few rules (run with `--ignored --nocapture` to choose a preset).
    #[test]
    #[ignore]
    fn print_life_caves() {
        let spec = std::env::var("LIFE_2D").unwrap_or("B3/S23,0.5,8".into());
        for one in spec.split(';') {
            let parts: Vec<&str> = one.split(',').collect();
            let mut p = WorldPreset::default();
            p.side_view.cave_mode = crate::preset::model::CaveMode::GameOfLife;
            p.side_view.cave_life_rule = parts[0].into();
            p.side_view.cave_rock_probability = parts[1].parse().unwrap();
            p.side_view.cave_life_ticks = parts[2].parse().unwrap();
            p.ores.enabled = false;
            let g = Generator2D::new(&p).unwrap();
            let region = g.generate_region(0, 40, 160, 70);
            let open = region.tiles.iter().filter(|&&t| t == AIR).count();
            println!("{one}: open {:.3}", open as f64 / region.tiles.len() as f64);
            for y in 0..70 {
                let row: String =
                    (0..160).map(|x| if region.tiles[(y * 160 + x) as usize] == AIR { '.' } else { '#' }).collect();
                println!("{row}");
            }
        }
    }
}
