//! Movement validation: whether a pose a player reports is one its body could have reached from
//! the last pose the server accepted, in the time between them.
//!
//! Speeds are checked with budgets, not per packet: each of horizontal, upward and downward
//! movement has a budget of voxels that fills at its speed limit as server time passes, up to a
//! cap ([`MovementLimits::slack_seconds`] of movement, plus a jump's height upward), and each
//! accepted move spends what it moved. An honest player never moves faster than the limits on
//! average, so its budget never runs out, however its packets bunch after a lag spike or jitter;
//! a player that goes faster for longer than the slack empties it and is refused. A small
//! tolerance covers rounding; a move may spend at most that below zero, so many tiny packets
//! gain nothing. Vertical movement is measured at the feet (the pose's eye less its eye height),
//! so standing up spends nothing.
//!
//! The body is swept through the voxels ([`SolidVoxels`], implemented by the host): the move's
//! segment at the eye, and at the feet (a little above them) and every voxel between, from the
//! old pose's body to the new one's. The longest run inside solid voxels, summed over
//! consecutive moves that end inside them, must stay within a tolerance, so nobody walks through
//! a wall, even one lower than the eye, in small steps either. Poses far apart (sends held back,
//! packets lost) cut corners the body went round: such a move still stands if a search finds the
//! body a way through open voxels between the two (no wider than the move, no higher than a
//! jump). A body that starts a move inside a solid voxel it did not move into (a block was placed
//! on the player) leaves it freely. A body
//! smaller than [`MovementLimits::min_eye_height`] is refused, so a claimed stance cannot shrink
//! the body to a point. A voxel the host has not loaded counts as passable.
//!
//! A side view (`WorldShape::Tiles`) is checked by the same rules in its own plane: its poses
//! are in world tiles with rows growing downwards (the feet `eye_height` rows below the
//! position) at z = 0, so [`Movement::check_in`] turns both poses upside down (row `r` is
//! height `-r - 1`: tile boundaries stay on whole numbers) and reads the tiles through
//! [`SideViewTiles`], which gives every z the tile of the layer, so no search finds a way round
//! a wall through z. Horizontal movement is then along x alone.
//!
//! May use: `base`, `net::protocol`, `net::world_shape`.

use crate::base::coords::{IVec3, WORLD_LIMIT_VOXELS};
use crate::net::protocol::{MAX_EYE_HEIGHT, Pose};
use crate::net::world_shape::WorldShape;
use thiserror::Error;

/// The host world's voxels, as far as movement is concerned.
pub trait SolidVoxels {
    /// Whether voxel `p` blocks a player's body: `Some(true)` solid, `Some(false)` passable (air,
    /// water, plants), `None` not loaded here (counted as passable).
    fn is_solid(&self, p: IVec3) -> Option<bool>;
}

/// A side view's tiles as the checks read them, upwards: voxel `(x, h, z)` is tile `(x, -h - 1)`
/// of the layer, whatever `z`.
pub struct SideViewTiles<'a>(pub &'a dyn SolidVoxels);

impl SolidVoxels for SideViewTiles<'_> {
    fn is_solid(&self, p: IVec3) -> Option<bool> {
        self.0.is_solid(IVec3::new(p.x, (-1i32).saturating_sub(p.y), 0))
    }
}

/// A side view's pose upside down (row `y` becomes height `-y`): the body stands on its feet.
fn upwards(pose: Pose) -> Pose {
    let [x, y, z] = pose.position;
    Pose { position: [x, -y, z], ..pose }
}

/// No world at all: every voxel unknown, so only speeds are checked.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoVoxels;

impl SolidVoxels for NoVoxels {
    fn is_solid(&self, _: IVec3) -> Option<bool> {
        None
    }
}

/// What a player's body may do. The defaults fit the demo's player (`game/player.gd`: walk 4.5
/// voxels a second, sprint 7.5, jump 7.2 up with gravity 22, so 1.18 voxels high, swim 0.6 × the
/// walking speed and 3 up, free fall up to a terminal speed of 78; the eye 1.62 above the feet
/// standing, 1.12 crouching, 0.42 lying down).
#[derive(Clone, Debug, PartialEq)]
pub struct MovementLimits {
    /// Off: every pose is accepted (a game with flying, vehicles or its own checks).
    pub enabled: bool,
    /// Horizontal speed, voxels a second: sprinting (7.5) and a fifth more for the physics
    /// engine's overshoot and the rounding of send times.
    pub max_horizontal_speed: f64,
    /// Sustained upward speed, voxels a second: swimming up (3) or climbing steps by jumping
    /// (about 2.6 gross), with room to spare.
    pub max_up_speed: f64,
    /// What the feet may rise at once beyond the sustained speed: a jump (1.18), with room.
    pub up_burst_voxels: f64,
    /// Falling speed, voxels a second: above the demo player's terminal speed (78), and what a
    /// body without one reaches after falling 300 voxels (a game whose bodies fall faster
    /// raises this).
    pub max_fall_speed: f64,
    /// Seconds of movement a player may save up: packets held back by a lag spike of up to
    /// this (less the jitter) and then arriving at once are still accepted.
    pub slack_seconds: f64,
    /// Voxels a move may exceed its budget by (rounding, the eye's height easing with stance).
    pub tolerance_voxels: f64,
    /// Voxels the body may run inside solid voxels along consecutive moves (grazing a corner:
    /// the sweep follows the body's centre line, a real body keeps its radius from walls).
    pub solid_tolerance_voxels: f64,
    /// The smallest eye height (voxels above the feet) a pose may claim: the lowest stance of
    /// the game's body (the demo's player lying down: 0.42).
    pub min_eye_height: f64,
    /// The largest eye height a pose may claim (the demo's player standing: 1.62).
    pub max_eye_height: f64,
}

impl Default for MovementLimits {
    fn default() -> Self {
        Self {
            enabled: true,
            max_horizontal_speed: 9.0,
            max_up_speed: 4.0,
            up_burst_voxels: 2.5,
            max_fall_speed: 120.0,
            slack_seconds: 1.0,
            tolerance_voxels: 0.5,
            solid_tolerance_voxels: 0.5,
            min_eye_height: 0.4,
            max_eye_height: 2.0,
        }
    }
}

/// Why a pose was not accepted.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum MoveRejection {
    #[error("moved {moved:.2} voxels horizontally; allowed now: {allowed:.2}")]
    TooFastHorizontal { moved: f64, allowed: f64 },
    #[error("rose {moved:.2} voxels; allowed now: {allowed:.2}")]
    TooFastUp { moved: f64, allowed: f64 },
    #[error("fell {moved:.2} voxels; allowed now: {allowed:.2}")]
    TooFastDown { moved: f64, allowed: f64 },
    #[error("went {inside:.2} voxels through solid voxels from {first:?}; allowed: {allowed:.2}")]
    ThroughSolid { inside: f64, first: IVec3, allowed: f64 },
    #[error("position {position:?} is outside the world's bounds")]
    OutsideWorld { position: [f64; 3] },
    #[error("eye height {eye_height} voxels; allowed: {min} to {max}")]
    BodySize { eye_height: f32, min: f64, max: f64 },
}

/// One player's movement as the server knows it: the accepted pose and the budgets.
#[derive(Clone, Debug)]
pub struct Movement {
    accepted: Option<Pose>,
    /// Server time the budgets were last filled (NaN: never).
    filled_s: f64,
    horizontal: f64,
    up: f64,
    down: f64,
    /// Voxels the body has run inside solid voxels along the moves that ended inside them.
    inside_solid: f64,
    /// Whether the last accepted move ended inside a solid voxel. If not, and the body now
    /// starts inside one, the world put it there (a block placed on the player): leaving that
    /// voxel is free.
    ended_inside: bool,
    /// Cells the way searches of this player may still visit: filled at [`SEARCH_CELLS_PER_S`]
    /// up to [`MAX_WAY_CELLS`], so a client sending poses that each need a search cannot make the
    /// server search without end.
    search_cells: f64,
}

impl Default for Movement {
    fn default() -> Self {
        Self {
            accepted: None,
            filled_s: f64::NAN,
            horizontal: 0.0,
            up: 0.0,
            down: 0.0,
            inside_solid: 0.0,
            ended_inside: false,
            search_cells: MAX_WAY_CELLS as f64,
        }
    }
}

impl Movement {
    /// The last accepted pose (none before the first).
    pub fn accepted(&self) -> Option<Pose> {
        self.accepted
    }

    /// Puts the player at `pose` with full budgets (its spawn, or the game moving it).
    pub fn place(&mut self, pose: Pose, limits: &MovementLimits, now_s: f64) {
        self.accepted = Some(pose);
        self.horizontal = limits.max_horizontal_speed * limits.slack_seconds;
        self.up = limits.max_up_speed * limits.slack_seconds + limits.up_burst_voxels;
        self.down = limits.max_fall_speed * limits.slack_seconds;
        self.inside_solid = 0.0;
        self.ended_inside = false;
        self.filled_s = if now_s.is_finite() { now_s } else { f64::NAN };
    }

    /// The game moved the player to `pose`: its budgets start empty, so a pose sent before the
    /// client heard of the move cannot pass as a move from here (it would be a fall).
    pub fn teleport(&mut self, pose: Pose, now_s: f64) {
        self.accepted = Some(pose);
        self.horizontal = 0.0;
        self.up = 0.0;
        self.down = 0.0;
        self.inside_solid = 0.0;
        self.ended_inside = false;
        self.filled_s = if now_s.is_finite() { now_s } else { f64::NAN };
    }

    /// Checks `pose`, received at `now_s`, against the accepted one; accepted, it becomes the
    /// accepted pose. The first pose is accepted as the spawn (if inside the world).
    pub fn check(
        &mut self,
        pose: Pose,
        now_s: f64,
        limits: &MovementLimits,
        world: &dyn SolidVoxels,
    ) -> Result<(), MoveRejection> {
        self.check_in(WorldShape::Voxels, pose, now_s, limits, world)
    }

    /// [`Movement::check`] in a world of `shape`: a side view's poses and tiles are checked in
    /// its plane (see the module docs).
    pub fn check_in(
        &mut self,
        shape: WorldShape,
        pose: Pose,
        now_s: f64,
        limits: &MovementLimits,
        world: &dyn SolidVoxels,
    ) -> Result<(), MoveRejection> {
        let limit = f64::from(WORLD_LIMIT_VOXELS);
        if pose.position.iter().any(|v| !(-limit..limit).contains(v)) {
            return Err(MoveRejection::OutsideWorld { position: pose.position });
        }
        let Some(from) = self.accepted.filter(|_| limits.enabled) else {
            self.place(pose, limits, now_s);
            return Ok(());
        };
        let eye_height = f64::from(pose.eye_height);
        if !(limits.min_eye_height..=limits.max_eye_height).contains(&eye_height) {
            return Err(MoveRejection::BodySize {
                eye_height: pose.eye_height,
                min: limits.min_eye_height,
                max: limits.max_eye_height,
            });
        }
        self.fill(limits, now_s);
        let tiles;
        let (from, checked, world): (Pose, Pose, &dyn SolidVoxels) = if shape.is_side_view() {
            tiles = SideViewTiles(world);
            (upwards(from), upwards(pose), &tiles)
        } else {
            (from, pose, world)
        };
        let (a, b) = (feet(&from), feet(&checked));
        let (dx, dy, dz) = (b[0] - a[0], b[1] - a[1], b[2] - a[2]);
        let moved = dx.hypot(dz);
        let tol = limits.tolerance_voxels;
        if moved > self.horizontal + tol {
            return Err(MoveRejection::TooFastHorizontal { moved, allowed: self.horizontal.max(0.0) + tol });
        }
        if dy > self.up + tol {
            return Err(MoveRejection::TooFastUp { moved: dy, allowed: self.up.max(0.0) + tol });
        }
        if -dy > self.down + tol {
            return Err(MoveRejection::TooFastDown { moved: -dy, allowed: self.down.max(0.0) + tol });
        }
        let (mut deepest, mut first, mut ends_inside) = (0.0f64, None, false);
        for (from_point, to_point) in body_lines(&from, &checked) {
            let (inside, hit) = solid_length(from_point, to_point, world, !self.ended_inside);
            if hit.is_some() && (first.is_none() || inside > deepest) {
                (deepest, first) = (inside, hit);
            }
            ends_inside |= world.is_solid(voxel_at(to_point)) == Some(true);
        }
        let mut inside = self.inside_solid + deepest;
        if let Some(first) = first
            && inside > limits.solid_tolerance_voxels
        {
            // Poses far apart (sends held back, packets lost) cut corners a body went round:
            // the move stands if the body has a way through open voxels between the two.
            if !open_way(&from, &checked, world, &mut self.search_cells) {
                // Named as the world names it: a side view's tile.
                let first =
                    if shape.is_side_view() { IVec3::new(first.x, (-1i32).saturating_sub(first.y), 0) } else { first };
                return Err(MoveRejection::ThroughSolid { inside, first, allowed: limits.solid_tolerance_voxels });
            }
            (inside, ends_inside) = (0.0, false);
        }
        self.horizontal -= moved;
        self.up -= dy.max(0.0);
        self.down -= (-dy).max(0.0);
        self.inside_solid = if ends_inside { inside } else { 0.0 };
        self.ended_inside = ends_inside;
        self.accepted = Some(pose);
        Ok(())
    }

    /// Fills the budgets for the time since the last fill (a clock going backwards fills none).
    fn fill(&mut self, limits: &MovementLimits, now_s: f64) {
        if self.filled_s.is_finite() && now_s > self.filled_s {
            let dt = now_s - self.filled_s;
            let fill = |budget: &mut f64, rate: f64, cap: f64| *budget = (*budget + rate * dt).min(cap);
            let slack = limits.slack_seconds;
            fill(&mut self.horizontal, limits.max_horizontal_speed, limits.max_horizontal_speed * slack);
            fill(&mut self.up, limits.max_up_speed, limits.max_up_speed * slack + limits.up_burst_voxels);
            fill(&mut self.down, limits.max_fall_speed, limits.max_fall_speed * slack);
            fill(&mut self.search_cells, SEARCH_CELLS_PER_S, MAX_WAY_CELLS as f64);
        }
        if now_s.is_finite() && (self.filled_s.is_nan() || now_s >= self.filled_s) {
            self.filled_s = now_s;
        }
    }
}

/// Where a pose's feet are.
fn feet(pose: &Pose) -> [f64; 3] {
    let [x, y, z] = pose.position;
    [x, y - f64::from(pose.eye_height), z]
}

/// How far above the feet the lowest swept segment runs: clear of the floor the body stands on.
const FEET_CLEARANCE: f64 = 0.1;

/// The segments a move from body `from` to body `to` sweeps: at the eye, and from just above the
/// feet up every voxel while below both eyes (the points at the same height above the feet in
/// both poses), so no solid voxel fits between two of them.
fn body_lines(from: &Pose, to: &Pose) -> impl Iterator<Item = ([f64; 3], [f64; 3])> {
    let (a, b) = (feet(from), feet(to));
    let lowest_eye = f64::from(from.eye_height.min(to.eye_height));
    let eyes = (from.position.map(f64::from), to.position.map(f64::from));
    let body = (0..=MAX_EYE_HEIGHT as usize)
        .map(|k| FEET_CLEARANCE + k as f64)
        .take_while(move |&h| h < lowest_eye)
        .map(move |h| (above(a, h), above(b, h)));
    std::iter::once(eyes).chain(body)
}

/// The most cells [`open_way`] searches: a fall at the whole falling budget fits.
const MAX_WAY_CELLS: usize = 1 << 16;
/// Cells a second a player's way searches may visit: a few searches a second at most (an honest
/// player needs one when its poses come far apart, rarely).
const SEARCH_CELLS_PER_S: f64 = 16_384.0;

/// Whether a body could have gone from `from` to `to` through open voxels: a breadth-first search
/// over the cells its feet may stand in (a cell is open when every voxel from it up to the eye
/// of the smaller of the two bodies is not solid; the end cell must be open to the end body's
/// eye), stepping to the six face neighbours, within
/// the box around both feet widened by 2 voxels on x and z, one voxel below the lower feet and
/// one above the higher (a jump's reach: no climbing over a wall a body cannot jump). The start
/// cell counts as open (the server accepted the body there). Unknown voxels are open. A search
/// spends its box's cells from `budget`; one that does not fit in what is left finds no way.
fn open_way(from: &Pose, to: &Pose, world: &dyn SolidVoxels, budget: &mut f64) -> bool {
    let cell = |p: &Pose| voxel_at(above(feet(p), FEET_CLEARANCE));
    let (a, b) = (cell(from), cell(to));
    let cells_up = |eye_height: f32| f64::from(eye_height).ceil().max(1.0) as i32;
    let height = cells_up(from.eye_height.min(to.eye_height));
    let lo = IVec3::new(a.x.min(b.x).saturating_sub(2), a.y.min(b.y).saturating_sub(1), a.z.min(b.z).saturating_sub(2));
    let hi = IVec3::new(a.x.max(b.x).saturating_add(2), a.y.max(b.y).saturating_add(1), a.z.max(b.z).saturating_add(2));
    let size = [(hi.x - lo.x + 1) as usize, (hi.y - lo.y + 1) as usize, (hi.z - lo.z + 1) as usize];
    let cells = size[0].saturating_mul(size[1]).saturating_mul(size[2]);
    if cells > MAX_WAY_CELLS || cells as f64 > *budget {
        return false;
    }
    *budget -= cells as f64;
    let index = |p: IVec3| ((p.y - lo.y) as usize * size[2] + (p.z - lo.z) as usize) * size[0] + (p.x - lo.x) as usize;
    let open_for =
        |p: IVec3, h: i32| (0..h).all(|dy| world.is_solid(IVec3::new(p.x, p.y.saturating_add(dy), p.z)) != Some(true));
    let open = |p: IVec3| open_for(p, height);
    if !open_for(b, cells_up(to.eye_height)) {
        return false;
    }
    if a == b {
        return true;
    }
    let mut seen = vec![false; cells];
    let mut queue = std::collections::VecDeque::from([a]);
    seen[index(a)] = true;
    while let Some(p) = queue.pop_front() {
        for (dx, dy, dz) in [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)] {
            let n = IVec3::new(p.x + dx, p.y + dy, p.z + dz);
            if n.x < lo.x || n.y < lo.y || n.z < lo.z || n.x > hi.x || n.y > hi.y || n.z > hi.z {
                continue;
            }
            let i = index(n);
            if seen[i] {
                continue;
            }
            seen[i] = true;
            if !open(n) {
                continue;
            }
            if n == b {
                return true;
            }
            queue.push_back(n);
        }
    }
    false
}

/// `p` raised by `h`.
fn above(p: [f64; 3], h: f64) -> [f64; 3] {
    [p[0], p[1] + h, p[2]]
}

/// The voxel holding point `p`.
fn voxel_at(p: [f64; 3]) -> IVec3 {
    let v = |x: f64| x.floor().clamp(i32::MIN as f64, i32::MAX as f64) as i32;
    IVec3::new(v(p[0]), v(p[1]), v(p[2]))
}

/// The most voxels one sweep visits: far more than any move the budgets let through.
const MAX_SWEEP_VOXELS: usize = 4096;

/// The length of segment `a`–`b` inside solid voxels, and the first solid voxel it meets (a
/// voxel walk: every voxel the segment passes through, in order). With `start_free` the voxel
/// it starts in does not count (a body a block was placed on may leave it).
fn solid_length(a: [f64; 3], b: [f64; 3], world: &dyn SolidVoxels, start_free: bool) -> (f64, Option<IVec3>) {
    let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    let start = voxel_at(a);
    let mut v = [start.x, start.y, start.z];
    let mut step = [0i32; 3];
    let mut t_max = [f64::INFINITY; 3];
    let mut t_delta = [f64::INFINITY; 3];
    for i in 0..3 {
        if d[i] > 0.0 {
            step[i] = 1;
            t_max[i] = ((v[i] as f64 + 1.0) - a[i]) / d[i];
            t_delta[i] = 1.0 / d[i];
        } else if d[i] < 0.0 {
            step[i] = -1;
            t_max[i] = (v[i] as f64 - a[i]) / d[i];
            t_delta[i] = -1.0 / d[i];
        }
    }
    let (mut inside, mut first) = (0.0, None);
    let mut t = 0.0f64;
    for _ in 0..MAX_SWEEP_VOXELS {
        let axis = if t_max[0] <= t_max[1] && t_max[0] <= t_max[2] {
            0
        } else if t_max[1] <= t_max[2] {
            1
        } else {
            2
        };
        let t_end = t_max[axis].min(1.0);
        let here = IVec3::new(v[0], v[1], v[2]);
        if !(start_free && here == start) && world.is_solid(here) == Some(true) {
            inside += (t_end - t).max(0.0) * len;
            first.get_or_insert(here);
        }
        if t_max[axis] >= 1.0 {
            return (inside, first);
        }
        t = t_max[axis];
        v[axis] = v[axis].saturating_add(step[axis]);
        t_max[axis] += t_delta[axis];
    }
    // Longer than any move the speeds allow: count the rest as solid.
    (inside + (1.0 - t) * len, first.or(Some(IVec3::new(v[0], v[1], v[2]))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};

    /// The demo player's constants (`godot_project/game/player.gd`).
    const WALK: f64 = 4.5;
    const SPRINT: f64 = 7.5;
    const JUMP_VELOCITY: f64 = 7.2;
    const GRAVITY: f64 = 22.0;
    const TERMINAL_FALL: f64 = 78.0;
    const EYE: f64 = 1.62;
    const CROUCH_EYE: f64 = 1.12;
    const PRONE_EYE: f64 = 0.42;
    /// The capsule's height standing (`HEIGHTS`): standing up needs this much room.
    const STAND_HEIGHT: f64 = 1.8;
    const PRONE_SPEED: f64 = 0.9;
    /// Godot's physics rate and `StrataWorldSync`'s pose rate.
    const PHYSICS_HZ: f64 = 60.0;
    const POSE_HZ: f64 = 15.0;

    /// Ground: solid below `floor(x)` and from `ceiling(x)` up; water between `water.0` and
    /// `water.1` (passable).
    struct Terrain {
        floor: fn(f64) -> f64,
        ceiling: fn(f64) -> f64,
        water: Option<(f64, f64)>,
    }

    /// The capsule's radius (`RADIUS`): the body's centre keeps this far from walls.
    const RADIUS: f64 = 0.3;

    impl Terrain {
        /// The highest floor under a body centred at `x` (the terrains' steps are wider than it).
        fn floor_under(&self, x: f64) -> f64 {
            (self.floor)(x - RADIUS).max((self.floor)(x + RADIUS))
        }

        /// The lowest ceiling over a body centred at `x`.
        fn ceiling_over(&self, x: f64) -> f64 {
            (self.ceiling)(x - RADIUS).min((self.ceiling)(x + RADIUS))
        }
    }

    fn open_sky(_: f64) -> f64 {
        f64::INFINITY
    }

    fn ground(floor: fn(f64) -> f64) -> Terrain {
        Terrain { floor, ceiling: open_sky, water: None }
    }

    impl SolidVoxels for Terrain {
        fn is_solid(&self, p: IVec3) -> Option<bool> {
            let (x, y) = (p.x as f64 + 0.5, p.y as f64);
            Some(y < (self.floor)(x).floor() || y >= (self.ceiling)(x).floor())
        }
    }

    /// What the player does at time `t`: horizontal direction (unit or zero) and speed, jump held,
    /// and the stance's eye height.
    type Input = fn(f64) -> ([f64; 2], f64, bool, f64);

    /// The demo player's physics (`_physics_process`) as a box of the capsule's width: eyes at each pose
    /// send, with their send times, as the game sends them. The eye eases towards the stance's
    /// height at 6 voxels a second (`head.position.y`), and only stands up where there is room.
    fn trace(terrain: &Terrain, start: [f64; 3], seconds: f64, input: Input) -> Vec<(f64, Pose)> {
        let dt = 1.0 / PHYSICS_HZ;
        let (mut p, mut vel, mut eye) = (start, [0.0f64; 3], EYE);
        let mut out = Vec::new();
        let steps = (seconds * PHYSICS_HZ) as usize;
        for i in 0..steps {
            let t = i as f64 * dt;
            let (dir, speed, jump, stance_eye) = input(t);
            let room = terrain.ceiling_over(p[0]) - p[1];
            let target = if stance_eye > eye && room < STAND_HEIGHT { eye } else { stance_eye };
            eye += (target - eye).clamp(-6.0 * dt, 6.0 * dt);
            let on_floor = p[1] <= terrain.floor_under(p[0]) + 1e-6;
            let in_water = terrain.water.is_some_and(|(lo, hi)| p[1] >= lo && p[1] < hi);
            if in_water {
                vel[1] = (vel[1] - GRAVITY * 0.25 * dt).max(-3.0);
                vel[0] = dir[0] * speed * 0.6;
                vel[2] = dir[1] * speed * 0.6;
                if jump {
                    vel[1] = 3.0;
                }
            } else if on_floor {
                vel[0] = dir[0] * speed;
                vel[2] = dir[1] * speed;
                vel[1] = if jump { JUMP_VELOCITY } else { 0.0 };
            } else {
                vel[1] = (vel[1] - GRAVITY * dt).max(-TERMINAL_FALL);
            }
            // A step higher than the feet, or a ceiling lower than the head, blocks horizontal
            // movement (move_and_slide).
            let nx = p[0] + vel[0] * dt;
            if terrain.floor_under(nx) <= p[1] + 1e-6 && terrain.ceiling_over(nx) >= p[1] + eye + 0.18 {
                p[0] = nx;
            }
            p[2] += vel[2] * dt;
            p[1] += vel[1] * dt;
            let floor = terrain.floor_under(p[0]);
            if p[1] < floor {
                p[1] = floor;
                vel[1] = 0.0;
            }
            if i % (PHYSICS_HZ / POSE_HZ) as usize == 0 {
                let position = [p[0], p[1] + eye, p[2]];
                out.push((t, Pose { position, yaw: 0.0, pitch: 0.0, eye_height: eye as f32 }));
            }
        }
        out
    }

    /// Feeds `poses` (with their send times) to a server that receives each `latency(i)` seconds
    /// after it was sent, older ticks dropped as the server does; returns the refusals.
    fn replay(poses: &[(f64, Pose)], world: &dyn SolidVoxels, latency: &mut dyn FnMut(usize) -> f64) -> Vec<String> {
        let limits = MovementLimits::default();
        let mut arrivals: Vec<(f64, usize)> = poses.iter().enumerate().map(|(i, (t, _))| (t + latency(i), i)).collect();
        arrivals.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut m = Movement::default();
        let mut newest = None;
        let mut refused = Vec::new();
        for (at, i) in arrivals {
            if newest.is_some_and(|n| i < n) {
                continue;
            }
            newest = Some(i);
            if let Err(e) = m.check(poses[i].1, at, &limits, world) {
                refused.push(format!("pose {i} at {at:.3}: {e}"));
            }
        }
        refused
    }

    fn flat(_: f64) -> f64 {
        64.0
    }

    fn ledge(x: f64) -> f64 {
        if x < 10.0 { 96.0 } else { 64.0 }
    }

    fn stairs(x: f64) -> f64 {
        64.0 + (x / 2.0).floor().max(0.0)
    }

    fn deep(_: f64) -> f64 {
        20.0
    }

    /// A one-voxel-high gap from x = 5 to 15, two voxels above the floor elsewhere to x = 20.
    fn low_gap(x: f64) -> f64 {
        if (5.0..15.0).contains(&x) {
            65.0
        } else if x < 20.0 {
            66.0
        } else {
            f64::INFINITY
        }
    }

    fn steady(_: usize) -> f64 {
        0.05
    }

    const EAST: [f64; 2] = [1.0, 0.0];
    const DIAGONAL: [f64; 2] = [std::f64::consts::FRAC_1_SQRT_2, std::f64::consts::FRAC_1_SQRT_2];

    #[test]
    fn honest_movement_of_the_demo_player_is_never_refused() {
        let flat_ground = ground(flat);
        let cases: Vec<(&str, Terrain, [f64; 3], f64, Input)> = vec![
            ("walk", ground(flat), [0.0, 64.0, 0.0], 20.0, |t| ([(t * 0.3).cos(), (t * 0.3).sin()], WALK, false, EYE)),
            ("sprint", ground(flat), [0.0, 64.0, 0.0], 20.0, |_| (DIAGONAL, SPRINT, false, EYE)),
            ("sprint jumping", ground(flat), [0.0, 64.0, 0.0], 20.0, |_| (EAST, SPRINT, true, EYE)),
            ("fall 32 voxels", ground(ledge), [0.0, 96.0, 0.0], 6.0, |_| (EAST, SPRINT, false, EYE)),
            ("fall 1,000 voxels", ground(flat), [0.0, 1064.0, 0.0], 20.0, |_| (EAST, WALK, false, EYE)),
            ("climb steps", ground(stairs), [0.0, 64.0, 0.0], 20.0, |_| (EAST, SPRINT, true, EYE)),
            (
                "swim up",
                Terrain { floor: deep, ceiling: open_sky, water: Some((20.0, 64.0)) },
                [0.0, 20.0, 0.0],
                20.0,
                |_| (EAST, SPRINT, true, EYE),
            ),
            (
                "sink",
                Terrain { floor: deep, ceiling: open_sky, water: Some((20.0, 64.0)) },
                [0.0, 63.0, 0.0],
                20.0,
                |_| (EAST, SPRINT, false, EYE),
            ),
            // Lies down before a one-voxel gap, crawls through, stands up under the two-voxel
            // ceiling after it and walks out into the open.
            (
                "crawl under a ledge",
                Terrain { floor: flat, ceiling: low_gap, water: None },
                [0.0, 64.0, 0.5],
                30.0,
                |t| {
                    if t < 1.0 {
                        (EAST, WALK, false, EYE)
                    } else if t < 18.0 {
                        (EAST, PRONE_SPEED, false, PRONE_EYE)
                    } else {
                        (EAST, WALK, false, EYE)
                    }
                },
            ),
            ("crouch and stand by turns", ground(stairs), [0.0, 64.0, 0.0], 20.0, |t| {
                let eye = [EYE, CROUCH_EYE, PRONE_EYE][(t as usize) % 3];
                (EAST, if eye == EYE { SPRINT } else { PRONE_SPEED }, eye == EYE, eye)
            }),
        ];
        for (name, terrain, start, seconds, input) in &cases {
            let poses = trace(terrain, *start, *seconds, *input);
            assert!(poses.len() > 50, "{name}");
            let refused = replay(&poses, terrain, &mut steady);
            assert!(refused.is_empty(), "{name}: {refused:?}");
        }
        // The fall did fall 32 voxels, the climb climbed, the swimmer rose to the surface.
        let eye_y = |poses: &[(f64, Pose)]| poses.last().unwrap().1.position[1];
        let fall = trace(&cases[3].1, [0.0, 96.0, 0.0], 6.0, cases[3].4);
        assert!((eye_y(&fall) - (64.0 + EYE)).abs() < 1e-4);
        let deep_fall = trace(&cases[4].1, [0.0, 1064.0, 0.0], 20.0, cases[4].4);
        assert!((eye_y(&deep_fall) - (64.0 + EYE)).abs() < 1e-4);
        let climb = trace(&cases[5].1, [0.0, 64.0, 0.0], 20.0, cases[5].4);
        assert!(eye_y(&climb) > 64.0 + 20.0, "{:?}", climb.last());
        // The crawler passed the gap lying down and stood up after it.
        let crawl = trace(&cases[8].1, [0.0, 64.0, 0.5], 30.0, cases[8].4);
        let under_gap = crawl.iter().filter(|(_, p)| (6.0..14.0).contains(&p.position[0])).count();
        assert!(under_gap > 100, "{under_gap} poses under the gap");
        let last = crawl.last().unwrap().1;
        assert!(last.position[0] > 22.0 && (f64::from(last.eye_height) - EYE).abs() < 1e-4, "{last:?}");
        // Sprinting with packets held back 500 ms by a lag spike, then arriving at once.
        let poses = trace(&flat_ground, [0.0, 64.0, 0.0], 10.0, |_| (EAST, SPRINT, true, EYE));
        let mut spike = |i: usize| {
            let t = poses[i].0;
            if (3.0..3.5).contains(&t) { 3.5 - t + 0.05 } else { 0.05 }
        };
        let spiked = replay(&poses, &flat_ground, &mut spike);
        assert!(spiked.is_empty(), "{spiked:?}");
        // Jitter: each packet 20 to 200 ms late, some overtaking others.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(46);
        for (name, terrain, start, seconds, input) in &cases {
            let poses = trace(terrain, *start, *seconds, *input);
            let mut jitter = |_| 0.02 + (rng.next_u32() % 1000) as f64 * 0.00018;
            let refused = replay(&poses, terrain, &mut jitter);
            assert!(refused.is_empty(), "{name} with jitter: {refused:?}");
        }
        // Sends held back (the bots' `lag`: none for 0.4 s of every 1.2 s, then the newest) or
        // lost: poses far apart, whose straight lines cut the corners of steps and bumps the
        // body went over.
        for (name, terrain, start, seconds, input) in cases.iter().chain([&(
            "sprint jumping over bumps",
            ground(bumps),
            [0.0, 64.0, 0.0],
            20.0,
            (|_| (EAST, SPRINT, true, EYE)) as Input,
        )]) {
            let poses = trace(terrain, *start, *seconds, *input);
            let held: Vec<(f64, Pose)> = poses.iter().copied().filter(|(t, _)| t % 1.2 >= 0.4).collect();
            let refused = replay(&held, terrain, &mut steady);
            assert!(refused.is_empty(), "{name} with sends held back: {refused:?}");
            let lost: Vec<(f64, Pose)> = poses.iter().copied().step_by(7).collect();
            let refused = replay(&lost, terrain, &mut steady);
            assert!(refused.is_empty(), "{name} with 6 of 7 poses lost: {refused:?}");
        }
    }

    /// One-voxel bumps, one voxel wide, every four voxels.
    fn bumps(x: f64) -> f64 {
        if x.rem_euclid(4.0) >= 3.0 { 65.0 } else { 64.0 }
    }

    #[test]
    fn speed_fly_and_wall_hacks_are_refused() {
        let world = ground(flat);
        let limits = MovementLimits::default();
        let at = |x: f64, y: f64| Pose::standing([x, y, 0.0], 0.0, 0.0);
        // Twice the sprinting speed: accepted while the slack lasts, then refused.
        let mut m = Movement::default();
        let mut refused_at = None;
        for i in 0..150 {
            let t = i as f64 / POSE_HZ;
            if m.check(at(t * 2.0 * SPRINT, 65.62), t, &limits, &world).is_err() {
                refused_at.get_or_insert(t);
            }
        }
        let t = refused_at.expect("a speed hack is refused");
        assert!(t < 2.0, "refused only after {t} s");
        // Rising 6 voxels a second: a fly hack.
        let mut m = Movement::default();
        let refused = (0..150).any(|i| {
            let t = i as f64 / POSE_HZ;
            m.check(at(0.0, 65.62 + 6.0 * t), t, &limits, &world).is_err()
        });
        assert!(refused);
        // A teleport.
        let mut m = Movement::default();
        m.check(at(0.0, 65.62), 0.0, &limits, &world).expect("spawn");
        let e = m.check(at(3000.0, 65.62), 0.1, &limits, &world).unwrap_err();
        assert!(matches!(e, MoveRejection::TooFastHorizontal { .. }), "{e}");
        assert_eq!(m.accepted(), Some(at(0.0, 65.62)), "the accepted pose stays");
        // Through the ground in one move, or in small steps.
        let e = m.check(at(0.0, 62.0), 0.5, &limits, &world).unwrap_err();
        assert!(matches!(e, MoveRejection::ThroughSolid { first: IVec3 { x: 0, y: 63, z: 0 }, .. }), "{e}");
        let mut m = Movement::default();
        m.check(at(0.0, 64.1), 0.0, &limits, &world).expect("spawn");
        let refused = (1..20).any(|i| m.check(at(0.0, 64.1 - 0.2 * i as f64), i as f64, &limits, &world).is_err());
        assert!(refused, "creeping through the floor 0.2 voxels at a time");
        assert!(m.accepted().unwrap().position[1] > 63.4);
        // Outside the world; off: anything goes.
        let e = m.check(at(f64::from(WORLD_LIMIT_VOXELS) * 2.0, 70.0), 30.0, &limits, &world).unwrap_err();
        assert!(matches!(e, MoveRejection::OutsideWorld { .. }));
        let off = MovementLimits { enabled: false, ..MovementLimits::default() };
        assert!(m.check(at(3000.0, -5.0), 31.0, &off, &world).is_ok());
    }

    /// A wall one voxel high at x = 10.
    fn low_wall(x: f64) -> f64 {
        if (10.0..11.0).contains(&x) { 65.0 } else { 64.0 }
    }

    #[test]
    fn the_whole_body_is_swept_not_just_the_eye() {
        let limits = MovementLimits::default();
        let at = |x: f64, eye_height: f64| Pose {
            position: [x, 64.0 + eye_height, 0.5],
            yaw: 0.0,
            pitch: 0.0,
            eye_height: eye_height as f32,
        };
        // Walking through a wall below the eye, at walking speed: the feet hit it.
        let wall = ground(low_wall);
        let mut m = Movement::default();
        m.check(at(8.0, EYE), 0.0, &limits, &wall).expect("spawn");
        let refused =
            (1..20).find_map(|i| m.check(at(8.0 + 0.3 * i as f64, EYE), i as f64 / POSE_HZ, &limits, &wall).err());
        assert!(
            matches!(refused, Some(MoveRejection::ThroughSolid { first: IVec3 { x: 10, y: 64, z: 0 }, .. })),
            "{refused:?}"
        );
        assert!(m.accepted().unwrap().position[0] < 10.5);
        // A ledge at chest height (solid from 65 up at x 10): the eye and the body between hit it.
        let chest = Terrain {
            floor: flat,
            ceiling: |x| if (10.0..11.0).contains(&x) { 65.0 } else { f64::INFINITY },
            water: None,
        };
        let mut m = Movement::default();
        m.check(at(8.0, EYE), 0.0, &limits, &chest).expect("spawn");
        assert!((1..20).any(|i| m.check(at(8.0 + 0.3 * i as f64, EYE), i as f64 / POSE_HZ, &limits, &chest).is_err()));
        // Lying down the same body passes under it, and cannot stand up inside it.
        let mut m = Movement::default();
        m.check(at(8.0, PRONE_EYE), 0.0, &limits, &chest).expect("spawn");
        for i in 1..=5 {
            m.check(at(8.0 + 0.5 * i as f64, PRONE_EYE), i as f64, &limits, &chest).expect("crawling under the ledge");
        }
        let e = m.check(at(10.5, EYE), 6.0, &limits, &chest).unwrap_err();
        assert!(matches!(e, MoveRejection::ThroughSolid { first: IVec3 { x: 10, y: 65, z: 0 }, .. }), "{e}");
        // A body smaller than the smallest stance, or taller than the tallest, is refused.
        for eye_height in [0.1, 3.0] {
            let e = m.check(at(10.5, eye_height), 7.0, &limits, &chest).unwrap_err();
            assert!(matches!(e, MoveRejection::BodySize { .. }), "{e}");
        }
        assert_eq!(
            MoveRejection::BodySize { eye_height: 0.1, min: 0.4, max: 2.0 }.to_string(),
            "eye height 0.1 voxels; allowed: 0.4 to 2"
        );
    }

    #[test]
    fn a_player_a_block_was_placed_on_walks_out_of_it() {
        let limits = MovementLimits::default();
        let at = |x: f64| Pose::standing([x, 65.62, 0.5], 0.0, 0.0);
        let wall = ground(low_wall);
        // Standing at x 10.5, then the wall appears under the feet (the spawn there stands for the
        // last accepted move, which ended in the open).
        let mut m = Movement::default();
        m.check(at(10.5), 0.0, &limits, &ground(flat)).expect("spawn");
        m.check(at(10.6), 0.1, &limits, &ground(flat)).expect("a step");
        for i in 1..=4 {
            m.check(at(10.6 + 0.2 * i as f64), 0.1 + i as f64 / POSE_HZ, &limits, &wall).expect("walking out");
        }
        // But one that walked into a wall pays for every voxel of it, however small its steps.
        let mut m = Movement::default();
        m.check(at(9.5), 0.0, &limits, &wall).expect("spawn");
        let refused = (1..40).any(|i| m.check(at(9.5 + 0.05 * i as f64), i as f64, &limits, &wall).is_err());
        assert!(refused, "creeping into a wall 0.05 voxels at a time");
        assert!(m.accepted().unwrap().position[0] < 10.6);
    }

    #[test]
    fn poses_far_apart_pass_only_where_the_body_has_a_way() {
        let limits = MovementLimits::default();
        let at = |x: f64, z: f64| Pose::standing([x, 65.62, z], 0.0, 0.0);
        // A wall two voxels high (no jump clears it) at x = 10, from z = -3 to 3.
        struct Wall;
        impl SolidVoxels for Wall {
            fn is_solid(&self, p: IVec3) -> Option<bool> {
                Some(p.y < 64 || (p.x == 10 && (64..66).contains(&p.y) && (-3..=3).contains(&p.z)))
            }
        }
        // Straight through it in one pose a second apart: no way round within the move's box.
        let mut m = Movement::default();
        m.check(at(7.5, 0.5), 0.0, &limits, &Wall).expect("spawn");
        let e = m.check(at(12.5, 0.5), 1.0, &limits, &Wall).unwrap_err();
        assert!(matches!(e, MoveRejection::ThroughSolid { .. }), "{e}");
        // Round its end (z = 4 is open), 9 voxels a second apart: the way is there.
        let mut m = Movement::default();
        m.check(at(8.5, 3.5), 0.0, &limits, &Wall).expect("spawn");
        m.check(at(11.5, 3.5), 1.0, &limits, &Wall).expect("round the wall's end");
        // Over it: the box reaches one voxel above the feet, the wall is two high.
        let mut m = Movement::default();
        m.check(at(8.5, 0.5), 0.0, &limits, &Wall).expect("spawn");
        assert!(m.check(at(11.5, 0.5), 1.0, &limits, &Wall).is_err());
        // A flood of poses that each need a search spends the player's search budget: the
        // server searches at most what fills in the time, then finds no way.
        // (Speeds off, so only the searches limit it.)
        let fast = MovementLimits { max_horizontal_speed: 1e6, ..MovementLimits::default() };
        let mut m = Movement::default();
        m.check(at(8.5, 3.5), 0.0, &fast, &Wall).expect("spawn");
        let round = |i: usize| if i.is_multiple_of(2) { at(11.5, 3.5) } else { at(8.5, 3.5) };
        let mut passed = 0;
        for i in 0..10_000 {
            let before = m.accepted();
            if m.check(round(i), 1.0 + i as f64 * 1e-4, &fast, &Wall).is_ok() && m.accepted() != before {
                passed += 1;
            }
        }
        // Each search's box: x 6 to 13, y 63 to 65, z 1 to 5.
        let searches_allowed = (MAX_WAY_CELLS as f64 + SEARCH_CELLS_PER_S) / (8.0 * 3.0 * 5.0);
        assert!(passed > 10 && (passed as f64) < searches_allowed, "{passed} moves round the wall in one second");
    }

    #[test]
    fn the_sweep_measures_the_length_inside_solid_voxels() {
        let world = ground(flat);
        // Straight down from 66 to 62: two voxels (63 and 62) of the ground.
        let (inside, first) = solid_length([0.5, 66.0, 0.5], [0.5, 62.0, 0.5], &world, true);
        assert!((inside - 2.0).abs() < 1e-9, "{inside}");
        assert_eq!(first, Some(IVec3::new(0, 63, 0)));
        // From inside the ground: its start voxel counts unless it is free.
        let (inside, _) = solid_length([0.5, 63.5, 0.5], [0.5, 62.0, 0.5], &world, false);
        assert!((inside - 1.5).abs() < 1e-9, "{inside}");
        let (inside, first) = solid_length([0.5, 63.5, 0.5], [0.5, 62.0, 0.5], &world, true);
        assert!((inside - 1.0).abs() < 1e-9 && first == Some(IVec3::new(0, 62, 0)), "{inside}");
        // Along the surface: nothing.
        assert_eq!(solid_length([0.0, 64.0, 0.0], [100.0, 64.5, -30.0], &world, false), (0.0, None));
        assert_eq!(solid_length([0.0, 70.0, 0.0], [0.0, 70.0, 0.0], &world, false), (0.0, None));
        // Unknown voxels are passable.
        assert_eq!(solid_length([0.5, 66.0, 0.5], [0.5, 0.0, 0.5], &NoVoxels, false), (0.0, None));
        // A body's segments: the eye, then every voxel up from just above the feet.
        let from = Pose { position: [0.0, 66.0, 0.0], yaw: 0.0, pitch: 0.0, eye_height: 2.0 };
        let to = Pose { position: [1.0, 66.0, 0.0], eye_height: 1.5, ..from };
        let heights: Vec<f64> = body_lines(&from, &to).map(|(a, _)| a[1]).collect();
        assert_eq!(heights, [66.0, 64.1, 65.1]);
    }
}
