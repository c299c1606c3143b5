//! What both world nodes' replicas share: the entities of a shared world's client, instances of
//! the server's entity records. A replica glides to the server's newest pose over [`GLIDE_S`],
//! the server's publication interval ([`Glides`], over any pose that [`Blend`]s: a 3D transform,
//! a side view's pose). An update of some chunks first sets aside the live entities those chunks
//! no longer account for ([`Orphan`]s); each record of the update then takes the nearest of them
//! with the same scene within [`MATCH_RADIUS`] ([`take_nearest`]), which glides to the record and
//! takes its state; records left over are instanced, orphans left over are freed. So an object
//! walking on the server stays one node on every client, across chunk borders and from its spawn
//! on. A client's game may not add or remove replicas ([`replica_refusal`]).
//!
//! May use: Godot's types, `strata_core::net::server` (the publication interval).

use godot::prelude::*;
use std::collections::HashMap;
use std::time::Instant;
use strata_core::net::server::ENTITY_PUBLISH_INTERVAL_S;

/// How far a live entity may be from a record of an update to be taken as that object: metres in
/// 3D, tiles in a side view (a tile is a metre).
pub(crate) const MATCH_RADIUS: f64 = 4.0;
/// Seconds a replica takes to reach the server's newest pose.
pub(crate) const GLIDE_S: f64 = ENTITY_PUBLISH_INTERVAL_S;

/// A pose a replica glides through.
pub(crate) trait Blend: Copy {
    /// `self` to `to` by `f` (0 to 1).
    fn blend(&self, to: &Self, f: f32) -> Self;
}

impl Blend for Transform3D {
    /// Position and scale linear, rotation along the shorter arc.
    fn blend(&self, to: &Self, f: f32) -> Self {
        let (qa, qb) = (self.basis.get_quaternion(), to.basis.get_quaternion());
        let scale = self.basis.get_scale().lerp(to.basis.get_scale(), f);
        let basis = Basis::from_quaternion(qa.slerp(qb, f)).scaled(scale);
        Transform3D::new(basis, self.origin.lerp(to.origin, f))
    }
}

/// A replica on its way to the server's newest pose.
pub(crate) struct Motion<P> {
    pub(crate) from: P,
    pub(crate) to: P,
    since: Instant,
}

/// The replicas of a world on their way, by instance id.
pub(crate) struct Glides<P> {
    motions: HashMap<i64, Motion<P>>,
}

impl<P> Default for Glides<P> {
    fn default() -> Self {
        Self { motions: HashMap::new() }
    }
}

impl<P: Blend> Glides<P> {
    /// Replica `id` glides from `from` to `to`, starting now (a glide it was on ends).
    pub(crate) fn start(&mut self, id: i64, from: P, to: P) {
        self.motions.insert(id, Motion { from, to, since: Instant::now() });
    }

    /// Replica `id` glides no more (it went).
    pub(crate) fn stop(&mut self, id: i64) {
        self.motions.remove(&id);
    }

    pub(crate) fn clear(&mut self) {
        self.motions.clear();
    }

    /// Where replica `id` is heading, while it glides.
    pub(crate) fn target(&self, id: i64) -> Option<&P> {
        self.motions.get(&id).map(|m| &m.to)
    }

    /// Applies `f` to both ends of every glide (the space they are in moved: an origin shift).
    pub(crate) fn move_all(&mut self, f: impl Fn(&mut P)) {
        for m in self.motions.values_mut() {
            f(&mut m.from);
            f(&mut m.to);
        }
    }

    /// Moves every glide on: `place(id, pose)` stands replica `id` at `pose` and says whether it
    /// is still there. A glide ends when it arrived or its replica is gone.
    pub(crate) fn step(&mut self, mut place: impl FnMut(i64, P) -> bool) {
        self.motions.retain(|&id, m| {
            let f = (m.since.elapsed().as_secs_f64() / GLIDE_S).clamp(0.0, 1.0);
            let pose = if f >= 1.0 { m.to } else { m.from.blend(&m.to, f as f32) };
            place(id, pose) && f < 1.0
        });
    }

    /// Ends every glide where it was heading (`place` as for [`Glides::step`]).
    pub(crate) fn finish(&mut self, mut place: impl FnMut(i64, P) -> bool) {
        for (id, m) in self.motions.drain() {
            place(id, m.to);
        }
    }
}

/// A live entity an update of its chunk no longer accounts for: it may turn out to be one of the
/// update's records, else it goes.
pub(crate) struct Orphan {
    pub(crate) id: i64,
    pub(crate) scene: String,
    /// Where it stands, or is heading while it glides (one space for all the update's points).
    pub(crate) at: [f64; 3],
}

/// The orphan of `scene` nearest `at`, within [`MATCH_RADIUS`], taken out of `orphans`; `None`
/// when there is none (the record is an object the client does not have yet).
pub(crate) fn take_nearest(orphans: &mut Vec<Orphan>, scene: &str, at: [f64; 3]) -> Option<i64> {
    let dist_sq = |p: &[f64; 3]| (0..3).map(|i| (p[i] - at[i]).powi(2)).sum::<f64>();
    let (i, _) = orphans
        .iter()
        .enumerate()
        .filter(|(_, o)| o.scene == scene)
        .map(|(i, o)| (i, dist_sq(&o.at)))
        .filter(|&(_, d)| d <= MATCH_RADIUS * MATCH_RADIUS)
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    Some(orphans.swap_remove(i).id)
}

/// The error of a game's call that would change a replica world's entities (`method` of
/// `class`: `add_entity`, `remove_entity`).
pub(crate) fn replica_refusal(class: &str, method: &str) -> String {
    format!(
        "{class}.{method}: this world's entities are replicas of a shared world's server (a StrataWorldSync client; is_entity_authority() is false): the host adds, changes and removes them; allowed: on the host, or after the client left"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orphan(id: i64, scene: &str, x: f64) -> Orphan {
        Orphan { id, scene: scene.into(), at: [x, 0.0, 0.0] }
    }

    #[test]
    fn a_record_takes_the_nearest_orphan_of_its_scene_within_reach() {
        let mut orphans = vec![orphan(1, "a", 0.0), orphan(2, "b", 1.0), orphan(3, "a", 3.0), orphan(4, "a", 9.0)];
        assert_eq!(take_nearest(&mut orphans, "a", [2.5, 0.0, 0.0]), Some(3), "nearest of its scene");
        assert_eq!(take_nearest(&mut orphans, "a", [2.5, 0.0, 0.0]), Some(1), "the next nearest, 2.5 away");
        assert_eq!(take_nearest(&mut orphans, "a", [2.5, 0.0, 0.0]), None, "9 is beyond reach");
        assert_eq!(take_nearest(&mut orphans, "c", [1.0, 0.0, 0.0]), None, "no orphan of that scene");
        let left: Vec<i64> = orphans.iter().map(|o| o.id).collect();
        assert_eq!(left.len(), 2);
        assert!(left.contains(&2) && left.contains(&4), "{left:?}");
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct X(f32);

    impl Blend for X {
        fn blend(&self, to: &Self, f: f32) -> Self {
            X(self.0 + (to.0 - self.0) * f)
        }
    }

    #[test]
    fn a_glide_ends_at_its_target_or_with_its_replica() {
        let mut g = Glides::default();
        g.start(1, X(0.0), X(10.0));
        g.start(2, X(0.0), X(4.0));
        assert_eq!(g.target(1), Some(&X(10.0)));
        let mut seen = Vec::new();
        // Replica 2 is gone: its glide ends; replica 1 is placed between the ends.
        g.step(|id, p| {
            seen.push((id, p));
            id == 1
        });
        assert!(seen.iter().any(|&(id, p)| id == 1 && (0.0..=10.0).contains(&p.0)), "{seen:?}");
        assert_eq!(g.target(2), None);
        g.move_all(|p| p.0 -= 1.0);
        assert_eq!(g.target(1), Some(&X(9.0)), "both ends move with the space");
        let mut last = Vec::new();
        g.finish(|id, p| {
            last.push((id, p));
            true
        });
        assert_eq!(last, vec![(1, X(9.0))], "finished where it was heading");
        assert_eq!(g.target(1), None);
    }
}
