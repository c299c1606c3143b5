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
//! A field is computed with the halo the pocket fill needs (the automaton brings its own), so
//! it equals the same cells of the infinite field (law: Seamless).
//!
//! May use: `base`, `preset`, `automata`.

use crate::automata::cellular::{BitGrid3D, CaScratch, CaStage, run_ca_3d_with};
use crate::automata::flood_fill::{PocketRule, PocketScratch, fill_pockets_3d};
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
        let pockets = PocketRule::new((c.min_pocket_volume as usize).div_ceil(cell_volume));
        let halo = if pockets.is_active() { pockets.halo() as i32 } else { 0 };
        let origin = lo - IVec3::splat(halo);
        let rock = 1.0 - c.fill_probability;
        let mut grid = run_ca_3d_with(
            seed,
            salt::CAVE_FILL,
            rock,
            origin,
            cells + IVec3::splat(2 * halo),
            stages,
            &mut scratch.automaton,
        );
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
