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
//! gain nothing. The move's segment (eye to eye) is swept through the voxels ([`SolidVoxels`],
//! implemented by the host): the length it runs inside solid voxels, summed over consecutive
//! moves that end inside them, must stay within a tolerance, so nobody walks through a wall in
//! small steps either. A voxel the host has not loaded counts as passable.
//!
//! May use: `base`, `net::protocol`.

use crate::base::coords::{IVec3, WORLD_LIMIT_VOXELS};
use crate::net::protocol::Pose;
use thiserror::Error;

/// The host world's voxels, as far as movement is concerned.
pub trait SolidVoxels {
    /// Whether voxel `p` blocks a player's body: `Some(true)` solid, `Some(false)` passable (air,
    /// water, plants), `None` not loaded here (counted as passable).
    fn is_solid(&self, p: IVec3) -> Option<bool>;
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
/// walking speed and 3 up, free fall up to a terminal speed of 78).
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
    /// What may rise at once beyond the sustained speed: a jump (1.18) and standing up from
    /// prone (the eye rises 1.2), rounded up.
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
    /// Voxels the eye may run inside solid voxels along consecutive moves (grazing a corner,
    /// a block placed where the player stands).
    pub solid_tolerance_voxels: f64,
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
    OutsideWorld { position: [f32; 3] },
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
    /// Voxels the eye has run inside solid voxels along the moves that ended inside them.
    inside_solid: f64,
}

impl Default for Movement {
    fn default() -> Self {
        Self { accepted: None, filled_s: f64::NAN, horizontal: 0.0, up: 0.0, down: 0.0, inside_solid: 0.0 }
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
        let limit = WORLD_LIMIT_VOXELS as f32;
        if pose.position.iter().any(|v| !(-limit..limit).contains(v)) {
            return Err(MoveRejection::OutsideWorld { position: pose.position });
        }
        let Some(from) = self.accepted.filter(|_| limits.enabled) else {
            self.place(pose, limits, now_s);
            return Ok(());
        };
        self.fill(limits, now_s);
        let a = from.position.map(f64::from);
        let b = pose.position.map(f64::from);
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
        let (inside, first) = solid_length(a, b, world);
        let inside = self.inside_solid + inside;
        if let Some(first) = first
            && inside > limits.solid_tolerance_voxels
        {
            return Err(MoveRejection::ThroughSolid { inside, first, allowed: limits.solid_tolerance_voxels });
        }
        self.horizontal -= moved;
        self.up -= dy.max(0.0);
        self.down -= (-dy).max(0.0);
        self.inside_solid = if world.is_solid(voxel_at(b)) == Some(true) { inside } else { 0.0 };
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
        }
        if now_s.is_finite() && (self.filled_s.is_nan() || now_s >= self.filled_s) {
            self.filled_s = now_s;
        }
    }
}

/// The voxel holding point `p`.
fn voxel_at(p: [f64; 3]) -> IVec3 {
    let v = |x: f64| x.floor().clamp(i32::MIN as f64, i32::MAX as f64) as i32;
    IVec3::new(v(p[0]), v(p[1]), v(p[2]))
}

/// The most voxels one sweep visits: far more than any move the budgets let through.
const MAX_SWEEP_VOXELS: usize = 4096;

/// The length of segment `a`–`b` inside solid voxels, and the first solid voxel it meets
/// (a voxel walk: every voxel the segment passes through, in order).
fn solid_length(a: [f64; 3], b: [f64; 3], world: &dyn SolidVoxels) -> (f64, Option<IVec3>) {
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
        if world.is_solid(here) == Some(true) {
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
    /// Godot's physics rate and `StrataWorldSync`'s pose rate.
    const PHYSICS_HZ: f64 = 60.0;
    const POSE_HZ: f64 = 15.0;

    /// Ground: solid below `floor(x)`; water between `water.0` and `water.1` (passable).
    struct Terrain {
        floor: fn(f64) -> f64,
        water: Option<(f64, f64)>,
    }

    impl SolidVoxels for Terrain {
        fn is_solid(&self, p: IVec3) -> Option<bool> {
            Some((p.y as f64) < (self.floor)(p.x as f64 + 0.5).floor())
        }
    }

    /// What the player does at time `t`: horizontal direction (unit or zero) and speed, jump held.
    type Input = fn(f64) -> ([f64; 2], f64, bool);

    /// The demo player's physics (`_physics_process`) as a point at the feet: eye positions at
    /// each pose send, with their send times.
    fn trace(terrain: &Terrain, start: [f64; 3], seconds: f64, input: Input) -> Vec<(f64, [f64; 3])> {
        let dt = 1.0 / PHYSICS_HZ;
        let (mut p, mut vel) = (start, [0.0f64; 3]);
        let mut out = Vec::new();
        let steps = (seconds * PHYSICS_HZ) as usize;
        for i in 0..steps {
            let t = i as f64 * dt;
            let (dir, speed, jump) = input(t);
            let floor = (terrain.floor)(p[0]);
            let on_floor = p[1] <= floor + 1e-6;
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
            // A step higher than the feet blocks horizontal movement (move_and_slide).
            let nx = p[0] + vel[0] * dt;
            if (terrain.floor)(nx) <= p[1] + 1e-6 {
                p[0] = nx;
            }
            p[2] += vel[2] * dt;
            p[1] += vel[1] * dt;
            let floor = (terrain.floor)(p[0]);
            if p[1] < floor {
                p[1] = floor;
                vel[1] = 0.0;
            }
            if i % (PHYSICS_HZ / POSE_HZ) as usize == 0 {
                out.push((t, [p[0], p[1] + EYE, p[2]]));
            }
        }
        out
    }

    /// Feeds `poses` (send time, eye) to a server that receives each `latency(i)` seconds after
    /// it was sent, older ticks dropped as the server does; returns the refusals.
    fn replay(
        poses: &[(f64, [f64; 3])],
        world: &dyn SolidVoxels,
        latency: &mut dyn FnMut(usize) -> f64,
    ) -> Vec<String> {
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
            let p = poses[i].1;
            let pose = Pose { position: [p[0] as f32, p[1] as f32, p[2] as f32], yaw: 0.0, pitch: 0.0 };
            if let Err(e) = m.check(pose, at, &limits, world) {
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

    fn steady(_: usize) -> f64 {
        0.05
    }

    const EAST: [f64; 2] = [1.0, 0.0];
    const DIAGONAL: [f64; 2] = [std::f64::consts::FRAC_1_SQRT_2, std::f64::consts::FRAC_1_SQRT_2];

    #[test]
    fn honest_movement_of_the_demo_player_is_never_refused() {
        let flat_ground = Terrain { floor: flat, water: None };
        let cases: Vec<(&str, Terrain, [f64; 3], f64, Input)> = vec![
            ("walk", Terrain { floor: flat, water: None }, [0.0, 64.0, 0.0], 20.0, |t| {
                ([(t * 0.3).cos(), (t * 0.3).sin()], WALK, false)
            }),
            ("sprint", Terrain { floor: flat, water: None }, [0.0, 64.0, 0.0], 20.0, |_| (DIAGONAL, SPRINT, false)),
            ("sprint jumping", Terrain { floor: flat, water: None }, [0.0, 64.0, 0.0], 20.0, |_| (EAST, SPRINT, true)),
            ("fall 32 voxels", Terrain { floor: ledge, water: None }, [0.0, 96.0, 0.0], 6.0, |_| (EAST, SPRINT, false)),
            ("fall 1,000 voxels", Terrain { floor: flat, water: None }, [0.0, 1064.0, 0.0], 20.0, |_| {
                (EAST, WALK, false)
            }),
            ("climb steps", Terrain { floor: stairs, water: None }, [0.0, 64.0, 0.0], 20.0, |_| (EAST, SPRINT, true)),
            ("swim up", Terrain { floor: deep, water: Some((20.0, 64.0)) }, [0.0, 20.0, 0.0], 20.0, |_| {
                (EAST, SPRINT, true)
            }),
            ("sink", Terrain { floor: deep, water: Some((20.0, 64.0)) }, [0.0, 63.0, 0.0], 20.0, |_| {
                (EAST, SPRINT, false)
            }),
        ];
        for (name, terrain, start, seconds, input) in &cases {
            let poses = trace(terrain, *start, *seconds, *input);
            assert!(poses.len() > 50, "{name}");
            let refused = replay(&poses, terrain, &mut steady);
            assert!(refused.is_empty(), "{name}: {refused:?}");
        }
        // The fall did fall 32 voxels, the climb climbed, the swimmer rose to the surface.
        let fall = trace(&cases[3].1, [0.0, 96.0, 0.0], 6.0, cases[3].4);
        assert!((fall.last().unwrap().1[1] - (64.0 + EYE)).abs() < 1e-6);
        let deep_fall = trace(&cases[4].1, [0.0, 1064.0, 0.0], 20.0, cases[4].4);
        assert!((deep_fall.last().unwrap().1[1] - (64.0 + EYE)).abs() < 1e-6);
        let climb = trace(&cases[5].1, [0.0, 64.0, 0.0], 20.0, cases[5].4);
        assert!(climb.last().unwrap().1[1] > 64.0 + 20.0, "{:?}", climb.last());
        // Sprinting with packets held back 500 ms by a lag spike, then arriving at once.
        let poses = trace(&flat_ground, [0.0, 64.0, 0.0], 10.0, |_| (EAST, SPRINT, true));
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
    }

    #[test]
    fn speed_fly_and_wall_hacks_are_refused() {
        let world = Terrain { floor: flat, water: None };
        let limits = MovementLimits::default();
        let at = |x: f64, y: f64| Pose { position: [x as f32, y as f32, 0.0], yaw: 0.0, pitch: 0.0 };
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

    #[test]
    fn the_sweep_measures_the_length_inside_solid_voxels() {
        let world = Terrain { floor: flat, water: None };
        // Straight down from 66 to 62: two voxels (63 and 62) of the ground.
        let (inside, first) = solid_length([0.5, 66.0, 0.5], [0.5, 62.0, 0.5], &world);
        assert!((inside - 2.0).abs() < 1e-9, "{inside}");
        assert_eq!(first, Some(IVec3::new(0, 63, 0)));
        // Along the surface: nothing.
        assert_eq!(solid_length([0.0, 64.0, 0.0], [100.0, 64.5, -30.0], &world), (0.0, None));
        assert_eq!(solid_length([0.0, 70.0, 0.0], [0.0, 70.0, 0.0], &world), (0.0, None));
        // Unknown voxels are passable.
        assert_eq!(solid_length([0.5, 66.0, 0.5], [0.5, 0.0, 0.5], &NoVoxels), (0.0, None));
    }
}
