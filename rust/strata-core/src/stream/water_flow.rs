//! Water flow after an edit: a pure, bounded function from the world (a voxel lookup: generator
//! and edits) and the voxels an edit changed to the water voxels to add or remove, as ordinary
//! edits. One implementation serves 3D worlds and side views ([`FlowGrid`]: which way is down,
//! which ways are sideways).
//!
//! The rules, in the spirit of classic voxel games with lakes as sources:
//!
//! 1. **Sources and loose water.** A body of face-connected water of more than
//!    [`FlowLimits::loose_max`] voxels (a lake, the sea, water that flowed) is a *source*: it keeps
//!    its water and feeds flows. A smaller body (a lone voxel, a puddle) is *loose*.
//! 2. **Loose water falls.** When a loose body has a voxel with air directly below, every voxel of
//!    the body drops straight down its column onto ground or onto the water dropped below it (the
//!    lowest first), keeping its volume; it does not spread.
//! 3. **Water enters opened air.** Source water enters an air voxel directly below it, and an air
//!    voxel beside it at the same height when the source voxel rests on something that is not air.
//!    Only voxels the edit changed (or source water directly above them) start a flow, so a
//!    settled world stays as it is.
//! 4. **Down first, then sideways over a floor.** Water that enters an air voxel falls at once to
//!    the first voxel that is not air below it: the whole fall is placed together, so placed water
//!    never hangs. Each placed voxel then spreads to the air beside it (same height) with a budget
//!    of sideways steps: [`FlowLimits::spread`] where water landed or fell, one less per sideways
//!    step. Water never rises: a dug hole beside a lake fills up to the lake's level, no higher.
//! 5. **Order.** Pending entries run highest budget first, then lowest, then by position
//!    (a total order), so the result is one function of the world and the edit.
//! 6. **Bounded.** One flow changes at most [`FlowLimits::cap`] voxels. A fall that would not fit
//!    under the cap is not placed, and the flow stops there ([`FlowOutcome::stopped_at_cap`]):
//!    what it placed still never hangs; a source whose fall was cut keeps air below it until a
//!    later edit there starts a new flow. A large cave under a sea thus costs one bounded flow.
//!
//! Afterwards no water voxel the flow touched has air directly below it (unless the flow stopped
//! at the cap), and no water stands higher than the water it came from.
//!
//! May use: `base`.

use crate::base::block::{AIR, BlockId, WATER};
use crate::base::coords::IVec3;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Voxels one flow may change ([`FlowLimits::cap`] by default).
pub const FLOW_CAP: usize = 4096;
/// Sideways steps water may take from where it entered or landed.
pub const FLOW_SPREAD: i32 = 8;
/// The largest body of water that is loose (falls as a whole) rather than a source.
pub const LOOSE_MAX: usize = 8;

/// Which way is down and which ways are sideways.
#[derive(Clone, Copy, Debug)]
pub struct FlowGrid {
    pub down: IVec3,
    pub sides: &'static [IVec3],
}

/// A 3D world: down is −y, sideways ±x and ±z.
pub const GRID_3D: FlowGrid = FlowGrid {
    down: IVec3::new(0, -1, 0),
    sides: &[IVec3::new(-1, 0, 0), IVec3::new(1, 0, 0), IVec3::new(0, 0, -1), IVec3::new(0, 0, 1)],
};

/// A side view, tile `(x, y)` at voxel `(x, y, 0)`: rows grow downwards, so down is +y;
/// sideways ±x.
pub const GRID_2D: FlowGrid =
    FlowGrid { down: IVec3::new(0, 1, 0), sides: &[IVec3::new(-1, 0, 0), IVec3::new(1, 0, 0)] };

/// The bounds of one flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowLimits {
    /// Voxels one flow may change.
    pub cap: usize,
    /// Sideways steps from where water entered or landed.
    pub spread: i32,
    /// Bodies of at most this many voxels are loose.
    pub loose_max: usize,
}

impl Default for FlowLimits {
    fn default() -> Self {
        Self { cap: FLOW_CAP, spread: FLOW_SPREAD, loose_max: LOOSE_MAX }
    }
}

/// What one flow changes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowOutcome {
    /// Voxels and their new blocks (water or air), sorted by position; each differs from the
    /// world the flow started from.
    pub changes: Vec<(IVec3, BlockId)>,
    /// The flow stopped at [`FlowLimits::cap`].
    pub stopped_at_cap: bool,
}

/// The world as the flow changes it: its own changes over the caller's lookup.
struct FlowWorld<'a> {
    lookup: &'a mut dyn FnMut(IVec3) -> BlockId,
    changed: BTreeMap<IVec3, BlockId>,
}

impl FlowWorld<'_> {
    fn get(&mut self, p: IVec3) -> BlockId {
        match self.changed.get(&p) {
            Some(&id) => id,
            None => (self.lookup)(p),
        }
    }

    fn set(&mut self, p: IVec3, id: BlockId) {
        self.changed.insert(p, id);
    }
}

/// The water voxels to add and remove after an edit changed the voxels `changed` of the world
/// that `lookup` answers (the world after the edit). Pure and bounded: see the module's rules.
pub fn flow(
    grid: FlowGrid,
    limits: FlowLimits,
    lookup: &mut dyn FnMut(IVec3) -> BlockId,
    changed: &[IVec3],
) -> FlowOutcome {
    let mut world = FlowWorld { lookup, changed: BTreeMap::new() };
    let mut originals: BTreeMap<IVec3, BlockId> = BTreeMap::new();
    let mut stopped = false;
    let up = IVec3::ZERO - grid.down;
    // A total order: lowest first (against `down`), then by position.
    let height = |p: IVec3| -(p.x * grid.down.x + p.y * grid.down.y + p.z * grid.down.z);

    let mut edited: Vec<IVec3> = changed.to_vec();
    edited.sort_unstable_by_key(|&p| (height(p), p));
    edited.dedup();
    let mut around: Vec<IVec3> = edited.iter().flat_map(|&p| [p, p + up]).collect();
    around.sort_unstable_by_key(|&p| (height(p), p));
    around.dedup();

    // Entries: (−budget, height, position) → budget; popped smallest first.
    let mut queue: BTreeSet<(i32, i32, IVec3)> = BTreeSet::new();
    let remember = |world: &mut FlowWorld, originals: &mut BTreeMap<IVec3, BlockId>, p: IVec3, id: BlockId| {
        let before = world.get(p);
        originals.entry(p).or_insert(before);
        world.set(p, id);
    };

    // Rule 2 and the falls of rule 3: water at or right above an edited voxel with air below.
    for &w in &around {
        if stopped {
            break;
        }
        if world.get(w) != WATER || world.get(w + grid.down) != AIR {
            continue;
        }
        match loose_body(grid, limits.loose_max, &mut world, w) {
            Some(mut body) => {
                body.sort_unstable_by_key(|&p| (height(p), p));
                if originals.len() + 2 * body.len() > limits.cap {
                    stopped = true;
                    break;
                }
                for v in body {
                    if world.get(v + grid.down) != AIR {
                        continue;
                    }
                    let Some(landing) = fall_end(grid, &mut world, v + grid.down, limits.cap) else {
                        stopped = true;
                        break;
                    };
                    remember(&mut world, &mut originals, v, AIR);
                    remember(&mut world, &mut originals, landing, WATER);
                }
            }
            None => {
                queue.insert((-limits.spread, height(w + grid.down), w + grid.down));
            }
        }
    }
    // Rule 3 sideways: an edited air voxel beside resting source water.
    for &p in &edited {
        if world.get(p) != AIR {
            continue;
        }
        let fed = grid.sides.iter().any(|&s| {
            let w = p + s;
            world.get(w) == WATER
                && world.get(w + grid.down) != AIR
                && loose_body(grid, limits.loose_max, &mut world, w).is_none()
        });
        if fed {
            queue.insert((-(limits.spread - 1), height(p), p));
        }
    }

    // Rule 4: down first, then sideways over a floor.
    while !stopped {
        let Some((neg_budget, _, n)) = queue.pop_first() else { break };
        if world.get(n) != AIR {
            continue;
        }
        let room = limits.cap.saturating_sub(originals.len());
        let mut column = vec![n];
        loop {
            let below = *column.last().unwrap_or(&n) + grid.down;
            if world.get(below) != AIR {
                break;
            }
            if column.len() >= room {
                break;
            }
            column.push(below);
        }
        let last = *column.last().unwrap_or(&n);
        if column.len() > room || world.get(last + grid.down) == AIR {
            stopped = true;
            break;
        }
        for &c in &column {
            remember(&mut world, &mut originals, c, WATER);
        }
        for (i, &c) in column.iter().enumerate() {
            let budget = if i == 0 { -neg_budget } else { limits.spread };
            if budget <= 0 {
                continue;
            }
            for &s in grid.sides {
                let m = c + s;
                if world.get(m) == AIR {
                    queue.insert((-(budget - 1), height(m), m));
                }
            }
        }
    }

    let changes =
        world.changed.iter().filter(|&(p, id)| originals.get(p) != Some(id)).map(|(&p, &id)| (p, id)).collect();
    FlowOutcome { changes, stopped_at_cap: stopped }
}

/// The voxels of the water body holding `w` when it has at most `loose_max` voxels (loose
/// water), else None (a source). Face-connected: sideways, up and down.
fn loose_body(grid: FlowGrid, loose_max: usize, world: &mut FlowWorld, w: IVec3) -> Option<Vec<IVec3>> {
    let up = IVec3::ZERO - grid.down;
    let mut seen: HashSet<IVec3> = HashSet::from([w]);
    let mut body = vec![w];
    let mut i = 0;
    while i < body.len() {
        let p = body[i];
        i += 1;
        for d in grid.sides.iter().copied().chain([grid.down, up]) {
            let q = p + d;
            if seen.insert(q) && world.get(q) == WATER {
                body.push(q);
                if body.len() > loose_max {
                    return None;
                }
            }
        }
    }
    Some(body)
}

/// The lowest air voxel of the fall starting at air voxel `start` (the voxel below it is not
/// air), or None when the fall is longer than `limit` voxels.
fn fall_end(grid: FlowGrid, world: &mut FlowWorld, start: IVec3, limit: usize) -> Option<IVec3> {
    let mut p = start;
    for _ in 0..limit {
        if world.get(p + grid.down) != AIR {
            return Some(p);
        }
        p = p + grid.down;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::STONE;
    use std::collections::HashMap;

    /// A small test world: `blocks` over a default by position.
    struct Scene {
        blocks: HashMap<IVec3, BlockId>,
        default: fn(IVec3) -> BlockId,
    }

    impl Scene {
        fn new(default: fn(IVec3) -> BlockId) -> Self {
            Self { blocks: HashMap::new(), default }
        }
        fn get(&self, p: IVec3) -> BlockId {
            self.blocks.get(&p).copied().unwrap_or_else(|| (self.default)(p))
        }
        fn fill(&mut self, min: IVec3, max: IVec3, id: BlockId) -> Vec<IVec3> {
            let mut out = Vec::new();
            for y in min.y..=max.y {
                for z in min.z..=max.z {
                    for x in min.x..=max.x {
                        let p = IVec3::new(x, y, z);
                        self.blocks.insert(p, id);
                        out.push(p);
                    }
                }
            }
            out
        }
        /// Applies `changed` (already set) and its flow; returns the outcome.
        fn flow(&mut self, grid: FlowGrid, limits: FlowLimits, changed: &[IVec3]) -> FlowOutcome {
            let outcome = {
                let mut lookup = |p: IVec3| self.get(p);
                flow(grid, limits, &mut lookup, changed)
            };
            for &(p, id) in &outcome.changes {
                self.blocks.insert(p, id);
            }
            outcome
        }
        /// Water voxels in the box with air right below them.
        fn hanging(&self, grid: FlowGrid, min: IVec3, max: IVec3) -> Vec<IVec3> {
            let mut out = Vec::new();
            for y in min.y..=max.y {
                for z in min.z..=max.z {
                    for x in min.x..=max.x {
                        let p = IVec3::new(x, y, z);
                        if self.get(p) == WATER && self.get(p + grid.down) == AIR {
                            out.push(p);
                        }
                    }
                }
            }
            out
        }
    }

    /// Stone below y = 6, air above; a 10 × 10 lake of water at y = 1..=4 with air at y = 5.
    fn lake_scene() -> Scene {
        let mut s = Scene::new(|p| if p.y < 6 { STONE } else { AIR });
        s.fill(IVec3::new(0, 1, 0), IVec3::new(9, 4, 9), WATER);
        s.fill(IVec3::new(0, 5, 0), IVec3::new(9, 5, 9), AIR);
        s
    }

    #[test]
    fn a_hole_dug_beside_a_lake_fills_to_the_lake_level_and_no_higher() {
        let mut s = lake_scene();
        let dug = s.fill(IVec3::new(10, 2, 3), IVec3::new(12, 5, 5), AIR);
        let out = s.flow(GRID_3D, FlowLimits::default(), &dug);
        assert!(!out.stopped_at_cap);
        for p in dug {
            let want = if p.y <= 4 { WATER } else { AIR };
            assert_eq!(s.get(p), want, "voxel {p:?} of the hole (lake top at y = 4)");
        }
        // The lake keeps its water; nothing else changed.
        assert_eq!(s.get(IVec3::new(9, 4, 4)), WATER);
        assert_eq!(out.changes.len(), 3 * 3 * 3);
        assert!(s.hanging(GRID_3D, IVec3::new(-2, 0, -2), IVec3::new(14, 8, 12)).is_empty());
    }

    #[test]
    fn a_hole_dug_away_from_water_stays_dry() {
        let mut s = lake_scene();
        let dug = s.fill(IVec3::new(12, 2, 3), IVec3::new(13, 5, 5), AIR);
        let out = s.flow(GRID_3D, FlowLimits::default(), &dug);
        assert!(out.changes.is_empty(), "{:?}", out.changes);
    }

    #[test]
    fn ground_removed_under_a_lake_lets_water_fall_to_the_ground_below() {
        // A lake (4 × 4 × 2 = 32 voxels: a source) on a stone slab at y = 9, ground below y = 0.
        let mut s = Scene::new(|p| if p.y < 0 { STONE } else { AIR });
        s.fill(IVec3::new(-1, 9, -1), IVec3::new(4, 11, 4), STONE);
        s.fill(IVec3::new(0, 10, 0), IVec3::new(3, 11, 3), WATER);
        let removed = s.fill(IVec3::new(1, 9, 1), IVec3::new(2, 9, 2), AIR);
        let out = s.flow(GRID_3D, FlowLimits::default(), &removed);
        assert!(!out.stopped_at_cap);
        for p in &removed {
            for y in 0..=9 {
                assert_eq!(s.get(IVec3::new(p.x, y, p.z)), WATER, "the fall under {p:?} at y = {y}");
            }
        }
        // It spread over the ground; the lake stays a source.
        assert_eq!(s.get(IVec3::new(1 + FLOW_SPREAD, 0, 1)), WATER);
        assert_eq!(s.get(IVec3::new(2 + FLOW_SPREAD + 1, 0, 2)), AIR);
        assert_eq!(s.get(IVec3::new(0, 11, 0)), WATER);
        assert!(s.hanging(GRID_3D, IVec3::new(-12, 0, -12), IVec3::new(16, 12, 16)).is_empty());
    }

    #[test]
    fn a_lone_water_voxel_whose_support_is_removed_falls() {
        let mut s = Scene::new(|p| if p.y < 0 { STONE } else { AIR });
        s.fill(IVec3::new(0, 5, 0), IVec3::new(0, 5, 0), STONE);
        s.fill(IVec3::new(0, 6, 0), IVec3::new(0, 6, 0), WATER);
        let removed = s.fill(IVec3::new(0, 5, 0), IVec3::new(0, 5, 0), AIR);
        let out = s.flow(GRID_3D, FlowLimits::default(), &removed);
        assert_eq!(out.changes, vec![(IVec3::new(0, 0, 0), WATER), (IVec3::new(0, 6, 0), AIR)]);
        assert!(s.hanging(GRID_3D, IVec3::new(-2, 0, -2), IVec3::new(2, 8, 2)).is_empty());
    }

    #[test]
    fn a_small_puddle_falls_as_a_whole_and_keeps_its_volume() {
        let mut s = Scene::new(|p| if p.y < 0 { STONE } else { AIR });
        s.fill(IVec3::new(0, 4, 0), IVec3::new(1, 4, 1), STONE);
        s.fill(IVec3::new(0, 5, 0), IVec3::new(1, 6, 0), WATER);
        // Only one voxel of the floor goes: the whole puddle (4 voxels) drops, each down its column.
        let removed = s.fill(IVec3::new(0, 4, 0), IVec3::new(0, 4, 0), AIR);
        s.flow(GRID_3D, FlowLimits::default(), &removed);
        assert_eq!(s.get(IVec3::new(0, 0, 0)), WATER);
        assert_eq!(s.get(IVec3::new(0, 1, 0)), WATER);
        // The column over the kept floor voxel still rests on it.
        assert_eq!(s.get(IVec3::new(1, 5, 0)), WATER);
        assert_eq!(s.get(IVec3::new(1, 6, 0)), WATER);
        assert_eq!(s.get(IVec3::new(0, 5, 0)), AIR);
        assert_eq!(s.get(IVec3::new(0, 6, 0)), AIR);
        assert!(s.hanging(GRID_3D, IVec3::new(-2, 0, -2), IVec3::new(3, 8, 3)).is_empty());
    }

    #[test]
    fn the_cap_bounds_one_flow_and_what_it_placed_never_hangs() {
        // A sea (y = 100..110) over a stone roof at y = 99 and a cave down to y = 0.
        let mut s = Scene::new(|p| match p.y {
            ..0 => STONE,
            99 => STONE,
            100..110 => WATER,
            _ => AIR,
        });
        let removed = s.fill(IVec3::new(0, 99, 0), IVec3::new(0, 99, 0), AIR);
        let limits = FlowLimits { cap: 500, ..FlowLimits::default() };
        let out = s.flow(GRID_3D, limits, &removed);
        assert!(out.stopped_at_cap);
        assert!(out.changes.len() <= 500 && out.changes.len() > 100, "{}", out.changes.len());
        for &(p, _) in &out.changes {
            assert_ne!(s.get(p + GRID_3D.down), AIR, "{p:?} hangs");
        }
        // The same with the default cap: still bounded.
        let mut s2 = Scene::new(s.default);
        let removed = s2.fill(IVec3::new(0, 99, 0), IVec3::new(0, 99, 0), AIR);
        let out = s2.flow(GRID_3D, FlowLimits::default(), &removed);
        assert!(out.changes.len() <= FLOW_CAP);
    }

    #[test]
    fn a_fall_longer_than_the_cap_is_not_placed() {
        let mut s = Scene::new(|p| {
            if p.y == 10 {
                WATER
            } else if p.y == 9 {
                STONE
            } else {
                AIR
            }
        });
        let removed = s.fill(IVec3::new(0, 9, 0), IVec3::new(0, 9, 0), AIR);
        let out = s.flow(GRID_3D, FlowLimits { cap: 64, ..FlowLimits::default() }, &removed);
        assert!(out.stopped_at_cap);
        assert!(out.changes.is_empty());
    }

    #[test]
    fn the_outcome_is_the_same_whatever_order_the_changed_voxels_come_in() {
        let mut a = lake_scene();
        let mut b = lake_scene();
        let dug = a.fill(IVec3::new(10, 1, 0), IVec3::new(14, 5, 9), AIR);
        b.fill(IVec3::new(10, 1, 0), IVec3::new(14, 5, 9), AIR);
        let mut reversed = dug.clone();
        reversed.reverse();
        assert_eq!(a.flow(GRID_3D, FlowLimits::default(), &dug), b.flow(GRID_3D, FlowLimits::default(), &reversed));
    }

    /// Side view: rows grow downwards; stone from row 6 down, a pool in rows 2..=5 of x 0..=9.
    fn pool_2d() -> Scene {
        let mut s = Scene::new(|p| if p.y >= 6 { STONE } else { AIR });
        s.fill(IVec3::new(0, 6, 0), IVec3::new(9, 9, 0), WATER);
        s.fill(IVec3::new(10, 5, 0), IVec3::new(30, 5, 0), STONE);
        s
    }

    #[test]
    fn side_view_a_hole_dug_beside_a_pool_fills_to_its_level() {
        let mut s = pool_2d();
        // Pool surface at row 6 (rows 6..=9); the ground beside it starts at row 5.
        let dug = s.fill(IVec3::new(10, 5, 0), IVec3::new(12, 8, 0), AIR);
        s.flow(GRID_2D, FlowLimits::default(), &dug);
        for p in dug {
            let want = if p.y >= 6 { WATER } else { AIR };
            assert_eq!(s.get(p), want, "tile {p:?}");
        }
        assert!(s.hanging(GRID_2D, IVec3::new(-2, 0, 0), IVec3::new(20, 12, 0)).is_empty());
    }

    #[test]
    fn side_view_water_falls_when_the_ground_under_it_goes() {
        // A pool on a ledge at row 10, open air below it down to row 30.
        let mut s = Scene::new(|p| if p.y >= 30 { STONE } else { AIR });
        s.fill(IVec3::new(-1, 10, 0), IVec3::new(12, 10, 0), STONE);
        s.fill(IVec3::new(0, 7, 0), IVec3::new(11, 9, 0), WATER);
        let removed = s.fill(IVec3::new(5, 10, 0), IVec3::new(5, 10, 0), AIR);
        s.flow(GRID_2D, FlowLimits::default(), &removed);
        for y in 10..30 {
            assert_eq!(s.get(IVec3::new(5, y, 0)), WATER, "row {y}");
        }
        assert!(s.hanging(GRID_2D, IVec3::new(-12, 0, 0), IVec3::new(24, 30, 0)).is_empty());
        // A lone tile falls to the floor.
        let mut lone = Scene::new(|p| if p.y >= 30 { STONE } else { AIR });
        lone.fill(IVec3::new(3, 4, 0), IVec3::new(3, 4, 0), WATER);
        lone.fill(IVec3::new(3, 5, 0), IVec3::new(3, 5, 0), STONE);
        let removed = lone.fill(IVec3::new(3, 5, 0), IVec3::new(3, 5, 0), AIR);
        let out = lone.flow(GRID_2D, FlowLimits::default(), &removed);
        assert_eq!(out.changes, vec![(IVec3::new(3, 4, 0), AIR), (IVec3::new(3, 29, 0), WATER)]);
    }
}
