//! Caverns: the cave automaton over world-aligned cells, small pockets filled ([`CavernField`]).
//!
//! A cell (`cell_size` voxels on each axis, world-aligned) starts as rock with probability
//! `1 - fill_probability` (a hash of seed and world cell), then runs the preset's automaton
//! program ([`cave_rules`](crate::automata::cave_rules): `passes` of the main rule and
//! `final_passes` of `AtLeast(final_threshold)` over the 3×3×3 neighbourhood; see
//! [`cellular`](crate::automata::cellular)). The defaults are four passes of the majority rule
//! (14 of 27) then one stricter pass (16 of 27) that opens and rounds the caverns: about 8% of
//! deep ground becomes cavern air (fill 0.45, cell size 2). The 3D majority rule is sharp around
//! fill 0.5: 0.42 gives under 1% air, 0.48 over 80%. Pockets: air components of the automaton of
//! fewer than `ceil(min_pocket_volume / cell_size³)` cells (see
//! [`flood_fill`](crate::automata::flood_fill) for the exact, seamless definition) are filled.
//!
//! `GameOfLife` mode runs exactly `life_ticks` ticks of the Life rule and no pocket fill; with
//! `life_flood_fill`, every open region but the main one of its world-aligned region
//! ([`REGION_3D`]: 32 cells and an 8-cell margin) is filled ([`life`](crate::automata::life)).
//!
//! A field is computed with the halo the pocket fill needs, or over the boxes of the regions it
//! touches (the automaton brings its own halo), so it equals the same cells of the infinite
//! field (law: Seamless).
//!
//! May use: `base`, `preset`, `automata`.

use crate::automata::cave_rules::{CaveCleanup, CaveRules};
use crate::automata::cellular::{BitGrid3D, CaScratch, CaStage, run_ca_3d_with};
use crate::automata::flood_fill::{PocketRule, PocketScratch, fill_pockets_3d};
use crate::automata::life::REGION_3D;
use crate::base::coords::IVec3;
use crate::base::rng::salt;
use crate::preset::model::CaveSettings;

/// The cavern automaton over the cells covering a box of voxels, pockets filled.
#[derive(Debug)]
pub struct CavernField {
    cell_size: i32,
    /// World cell at grid index (0, 0, 0).
    origin: IVec3,
    grid: BitGrid3D,
}

/// The buffers of the automaton and the pocket fill, reused from field to field; a field's
/// grid comes back here with [`CavernField::recycle`].
#[derive(Debug, Default)]
pub struct CavernScratch {
    automaton: CaScratch,
    pockets: PocketScratch,
}

impl CavernField {
    /// The caverns over voxels `[min, min + size)` after the automaton program `stages` (from
    /// [`cave_stages`](crate::automata::cave_rules::cave_stages) of `c`); `None` for an empty box.
    pub fn compute(
        seed: u64,
        c: &CaveSettings,
        stages: &[CaStage],
        min: IVec3,
        size: IVec3,
        scratch: &mut CavernScratch,
    ) -> Option<Self> {
        if size.volume() == 0 {
            return None;
        }
        let cs = c.cell_size.clamp(1, 64) as i32;
        let lo = IVec3::new(min.x.div_euclid(cs), min.y.div_euclid(cs), min.z.div_euclid(cs));
        let last = min + size - IVec3::ONE;
        let hi = IVec3::new(last.x.div_euclid(cs), last.y.div_euclid(cs), last.z.div_euclid(cs));
        let cells = hi - lo + IVec3::ONE;
        let cell_volume = (cs * cs * cs) as usize;
        let cleanup = CaveRules::of_caves(c).cleanup();
        let pockets = match cleanup {
            CaveCleanup::Pockets => PocketRule::new((c.min_pocket_volume as usize).div_ceil(cell_volume)),
            _ => PocketRule::new(0),
        };
        let halo = if pockets.is_active() { pockets.halo() as i32 } else { 0 };
        let (origin, window) = match cleanup {
            CaveCleanup::MainRegion => REGION_3D.window(lo, cells),
            _ => (lo - IVec3::splat(halo), cells + IVec3::splat(2 * halo)),
        };
        let rock = 1.0 - c.fill_probability;
        let mut grid = run_ca_3d_with(seed, salt::CAVE_FILL, rock, origin, window, stages, &mut scratch.automaton);
        if cleanup == CaveCleanup::MainRegion {
            REGION_3D.fill_secondary(&mut grid, origin, lo, cells);
        }
        if pockets.is_active() {
            let h = halo as usize;
            let roi_max = [h + cells.x as usize, h + cells.y as usize, h + cells.z as usize];
            fill_pockets_3d(&mut grid, false, pockets, [h; 3], roi_max, &mut scratch.pockets);
        }
        Some(Self { cell_size: cs, origin, grid })
    }

    /// Gives the grid's allocation back to `scratch` for the next field.
    pub fn recycle(self, scratch: &mut CavernScratch) {
        scratch.automaton.give_back(self.grid);
    }

    /// Edge of a cell in voxels.
    #[inline]
    pub fn cell_size(&self) -> i32 {
        self.cell_size
    }

    /// The automaton's grid (alive = rock), indexed by [`CavernField::cell_index`].
    #[inline]
    pub fn grid(&self) -> &BitGrid3D {
        &self.grid
    }

    /// Whether voxel `p` (inside the box given to [`CavernField::compute`]) is cavern air.
    #[inline]
    pub fn is_open(&self, p: IVec3) -> bool {
        self.is_open_cell(self.cell_index(0, p.x), self.cell_index(1, p.y), self.cell_index(2, p.z))
    }

    /// Grid index along `axis` (0 = x, 1 = y, 2 = z) of the cell holding world coordinate `v`.
    #[inline]
    pub fn cell_index(&self, axis: usize, v: i32) -> usize {
        let o = [self.origin.x, self.origin.y, self.origin.z][axis];
        (v.div_euclid(self.cell_size) - o) as usize
    }

    #[inline]
    fn is_open_cell(&self, ix: usize, iy: usize, iz: usize) -> bool {
        !self.grid.get(ix, iy, iz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automata::cave_rules::cave_stages;
    use crate::preset::model::CaveMode;

    fn life_settings(rule: &str, fill: f32, ticks: u32, flood_fill: bool) -> CaveSettings {
        CaveSettings {
            mode: CaveMode::GameOfLife,
            life_rule: rule.into(),
            fill_probability: fill,
            life_ticks: ticks,
            life_flood_fill: flood_fill,
            ..CaveSettings::default()
        }
    }

    fn open_cells(f: &CavernField, min: IVec3, size: IVec3) -> Vec<bool> {
        let mut out = Vec::new();
        for y in 0..size.y {
            for z in 0..size.z {
                for x in 0..size.x {
                    out.push(f.is_open(min + IVec3::new(x, y, z)));
                }
            }
        }
        out
    }

    #[test]
    fn life_caverns_are_seamless_and_deterministic() {
        let scratch = &mut CavernScratch::default();
        for (rule, fill, flood_fill) in
            [("B14-19/S13-26", 0.45, true), ("B3/S23", 0.9, true), ("B14-19/S13-26", 0.45, false)]
        {
            let c = life_settings(rule, fill, 3, flood_fill);
            let stages = cave_stages(&CaveRules::of_caves(&c)).unwrap().unwrap();
            // A chunk of 32 voxels (16 cells) alone, and inside a block of 3×2×3 chunks.
            let (big_min, big_size) = (IVec3::new(-32, -64, -32), IVec3::new(96, 64, 96));
            let big = CavernField::compute(7, &c, &stages, big_min, big_size, scratch).unwrap();
            let (min, size) = (IVec3::new(0, -32, 0), IVec3::splat(32));
            let alone = CavernField::compute(7, &c, &stages, min, size, scratch).unwrap();
            let got = open_cells(&alone, min, size);
            assert_same(got.clone(), open_cells(&big, min, size), rule);
            assert!(got.iter().any(|&o| o) && got.iter().any(|&o| !o), "{rule}: caverns and rock");
            let again = CavernField::compute(7, &c, &stages, min, size, scratch).unwrap();
            assert_eq!(open_cells(&again, min, size), got, "{rule}: deterministic");
            let other = CavernField::compute(8, &c, &stages, min, size, scratch).unwrap();
            assert_ne!(open_cells(&other, min, size), got, "{rule}: the seed matters");
        }
    }

    fn assert_same(a: Vec<bool>, b: Vec<bool>, what: &str) {
        let diff = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        assert_eq!(diff, 0, "{what}: {diff} cells differ");
    }

    /// Prints Life caverns of a few rules (run with `--ignored --nocapture` to choose a preset).
    #[test]
    #[ignore]
    fn print_life_caverns() {
        let spec = std::env::var("LIFE_3D").unwrap_or("B3/S23,0.45,8".into());
        for one in spec.split(';') {
            let parts: Vec<&str> = one.split(',').collect();
            let c = CaveSettings {
                mode: CaveMode::GameOfLife,
                life_rule: parts[0].into(),
                fill_probability: parts[1].parse().unwrap(),
                life_ticks: parts[2].parse().unwrap(),
                ..CaveSettings::default()
            };
            let stages = cave_stages(&CaveRules::of_caves(&c)).unwrap().unwrap();
            let n = 64;
            let f = CavernField::compute(1, &c, &stages, IVec3::ZERO, IVec3::splat(n), &mut CavernScratch::default())
                .unwrap();
            let mut open = 0;
            for y in 0..n {
                for z in 0..n {
                    for x in 0..n {
                        open += f.is_open(IVec3::new(x, y, z)) as usize;
                    }
                }
            }
            println!("{one}: open {:.3}", open as f64 / (n * n * n) as f64);
            for z in 0..n {
                let row: String = (0..n).map(|x| if f.is_open(IVec3::new(x, 20, z)) { '.' } else { '#' }).collect();
                println!("{row}");
            }
        }
    }
}
