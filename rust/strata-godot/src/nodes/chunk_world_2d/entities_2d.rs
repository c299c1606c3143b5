//! The objects of a `StrataChunkWorld2D`, engine-light bookkeeping ([`Entities2D`]): the spawn
//! points of each loaded chunk (from the workers), the chunks whose objects stand in the world,
//! a queue of objects to instance, the live entities with how they started, and the deltas of
//! everything not standing ([`EntityDeltas`]: removed spawns and kept records). The node side,
//! `entity_nodes_2d`, drives it each frame and answers the game's calls.
//!
//! Positions: how an entity started and every record are kept in world tiles (`f64`), so an
//! origin shift changes nothing kept. Records are the core's [`EntityRecord`]s with the position
//! `(x, y, 0)` in tiles, the rotation a quaternion about z and the scale `(x, y, 1)`, in the
//! 32-tile cell of their position ([`EntityRecord::chunk`]); removed spawns are keyed by the
//! side-view chunk ([`delta_key`]). So a 2D save keeps them in the 3D save's entity section.
//!
//! May use: `host::entity_scenes`, `strata_core::persist::entities`, `strata_core::gen2d`;
//! nothing of the node.

use crate::host::entity_scenes::{SceneCache, state_of};
use crate::host::replicas::{Blend, Glides};
use godot::classes::Node2D;
use godot::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use strata_core::ChunkCoord;
use strata_core::base::coords::CHUNK_SIZE;
use strata_core::gen2d::ChunkCoord2D;
use strata_core::gen2d::spawns::SpawnPoint2D;
use strata_core::persist::entities::{EntityDeltas, EntityRecord};
use strata_core::stream::scheduler::Samples;

/// How an entity stands: world tiles (`f64`), rotation (radians) and scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Pose2D {
    pub(super) position: [f64; 2],
    pub(super) rotation: f32,
    pub(super) scale: Vector2,
}

impl Pose2D {
    /// Whether `other` stands elsewhere, turned or scaled otherwise (beyond float noise).
    pub(super) fn differs(&self, other: &Pose2D) -> bool {
        const EPS: f64 = 1e-4;
        let d = (self.position[0] - other.position[0]).abs().max((self.position[1] - other.position[1]).abs());
        d > EPS || (self.rotation - other.rotation).abs() > 1e-4 || (self.scale - other.scale).length() > 1e-4
    }

    /// The pose as a record of `scene` with `state` holds it (position `(x, y, 0)`, rotation a
    /// quaternion about z, scale `(x, y, 1)`).
    pub(super) fn record(&self, scene: String, state: Vec<u8>) -> EntityRecord {
        let half = self.rotation / 2.0;
        EntityRecord {
            scene,
            position: [self.position[0], self.position[1], 0.0],
            rotation: [0.0, 0.0, half.sin(), half.cos()],
            scale: [self.scale.x, self.scale.y, 1.0],
            state,
        }
    }

    pub(super) fn of_record(r: &EntityRecord) -> Self {
        let [_, _, z, w] = r.rotation;
        Pose2D {
            position: [r.position[0], r.position[1]],
            rotation: 2.0 * z.atan2(w),
            scale: Vector2::new(r.scale[0], r.scale[1]),
        }
    }
}

impl Blend for Pose2D {
    /// Position and scale linear, rotation along the shorter way round.
    fn blend(&self, to: &Self, f: f32) -> Self {
        let t = f64::from(f);
        let at = |i: usize| self.position[i] + (to.position[i] - self.position[i]) * t;
        let tau = std::f32::consts::TAU;
        let turn = (to.rotation - self.rotation).rem_euclid(tau);
        let turn = if turn > tau / 2.0 { turn - tau } else { turn };
        Pose2D { position: [at(0), at(1)], rotation: self.rotation + turn * f, scale: self.scale.lerp(to.scale, f) }
    }
}

/// Where a queued object comes from.
pub(super) enum Source2D {
    Spawn(SpawnPoint2D),
    Record(EntityRecord),
}

/// An object waiting for its turn (and its scene) to be instanced.
pub(crate) struct Pending2D {
    pub(super) chunk: ChunkCoord2D,
    pub(super) source: Source2D,
}

/// An entity standing in the world.
pub(super) struct Live2D {
    pub(super) node: Gd<Node2D>,
    pub(super) scene: String,
    /// The spawn it came from (chunk and key), for a spawned entity.
    pub(super) spawn: Option<(ChunkCoord2D, u32)>,
    /// How it stood and its state bytes when it was instanced: unchanged spawned ones are not
    /// kept.
    pub(super) start: Pose2D,
    pub(super) start_state: PackedByteArray,
}

/// The entity bookkeeping of one side-view world.
#[derive(Default)]
pub(super) struct Entities2D {
    /// What is not standing in the world: removed spawns and kept records.
    pub(super) deltas: EntityDeltas,
    /// Spawn points of every loaded chunk (an entry per loaded chunk, maybe empty).
    pub(super) spawns: HashMap<ChunkCoord2D, Vec<SpawnPoint2D>>,
    /// Chunks whose objects stand (or are queued to stand) in the world.
    pub(super) active: HashSet<ChunkCoord2D>,
    pub(super) queue: VecDeque<Pending2D>,
    /// Live entities by instance id.
    pub(super) live: BTreeMap<i64, Live2D>,
    pub(super) scenes: SceneCache,
    /// Main-thread time to instance one entity (µs).
    pub(super) spawn_us: Samples,
    /// True on a shared world's client: the deltas are the server's, the entities its replicas
    /// (`replica_2d`).
    pub(super) replica: bool,
    /// Replicas on their way to the server's newest pose (world tiles).
    pub(super) glides: Glides<Pose2D>,
}

/// The key of side-view chunk `c` in [`EntityDeltas::removed_spawns`]: `(x div 2, y div 2,
/// x mod 2 + 2 · (y mod 2))`, one key per chunk. Halved, every chunk of the world (chunks of 16
/// tiles or more, out to 2³¹ tiles) is within the chunk coordinates a save holds (`i32 / 32`).
pub(crate) fn delta_key(c: ChunkCoord2D) -> ChunkCoord {
    ChunkCoord::new(c.x.div_euclid(2), c.y.div_euclid(2), c.x.rem_euclid(2) + 2 * c.y.rem_euclid(2))
}

/// The side-view chunk whose key is `k` ([`delta_key`]); `None` for a key no chunk has.
pub(crate) fn chunk_of_delta_key(k: ChunkCoord) -> Option<ChunkCoord2D> {
    if !(0..4).contains(&k.z) {
        return None;
    }
    let x = k.x.checked_mul(2)?.checked_add(k.z % 2)?;
    let y = k.y.checked_mul(2)?.checked_add(k.z / 2)?;
    Some(ChunkCoord2D::new(x, y))
}

/// `v` as a tile index, clamped within `i32`.
#[cfg(test)]
fn tile_of(v: f64) -> i32 {
    if v.is_finite() { v.floor().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32 } else { 0 }
}

/// The side-view chunk (of `n` tiles) a world point stands in: that of its standing tile, so an
/// object on the floor of a chunk's bottom row (its feet on the chunk's lower edge) stays with
/// the chunk that spawned it.
pub(super) fn chunk_of(p: [f64; 2], n: i32) -> ChunkCoord2D {
    let [x, y] = strata_core::base::coords::standing_tile(p);
    ChunkCoord2D::containing(x, y, n)
}

impl Entities2D {
    /// A chunk's first load: its spawn points (an update after an edit keeps the first load's).
    pub(super) fn chunk_loaded(&mut self, c: ChunkCoord2D, spawns: Vec<SpawnPoint2D>, update: bool) {
        if !update || !self.spawns.contains_key(&c) {
            self.spawns.insert(c, spawns);
        }
    }

    /// A chunk left the streamer: its objects go (their entities are parked by the next frame).
    pub(super) fn chunk_unloaded(&mut self, c: ChunkCoord2D) {
        self.spawns.remove(&c);
    }

    /// Takes the records standing in chunk `c` (of `n` tiles) out of the deltas.
    pub(super) fn take_records(&mut self, c: ChunkCoord2D, n: i32) -> Vec<EntityRecord> {
        let mut out = Vec::new();
        for cell in cells_of(c, n) {
            let Some(list) = self.deltas.records.get_mut(&cell) else { continue };
            let (mine, rest): (Vec<_>, Vec<_>) =
                std::mem::take(list).into_iter().partition(|r| chunk_of([r.position[0], r.position[1]], n) == c);
            *list = rest;
            out.extend(mine);
        }
        self.deltas.compact();
        out
    }

    /// The records standing in chunk `c` (of `n` tiles), left in the deltas.
    pub(super) fn records_in(&self, c: ChunkCoord2D, n: i32) -> Vec<EntityRecord> {
        cells_of(c, n)
            .filter_map(|cell| self.deltas.records.get(&cell))
            .flatten()
            .filter(|r| chunk_of([r.position[0], r.position[1]], n) == c)
            .cloned()
            .collect()
    }

    /// The deltas as a save must hold them now: the kept ones plus every live entity that moved
    /// or changed, and the queued records.
    /// A replica world's deltas are the server's as they came.
    pub(super) fn snapshot(&self, pose: impl Fn(&Gd<Node2D>) -> Pose2D) -> EntityDeltas {
        let mut d = self.deltas.clone();
        if self.replica {
            return d;
        }
        for e in self.live.values() {
            if let Some(record) = record_if_changed(e, &pose) {
                if let Some((c, key)) = e.spawn {
                    d.remove_spawn(delta_key(c), key);
                }
                d.push_record(record);
            } else if !e.node.is_instance_valid()
                && let Some((c, key)) = e.spawn
            {
                d.remove_spawn(delta_key(c), key);
            }
        }
        for p in &self.queue {
            if let Source2D::Record(r) = &p.source {
                d.push_record(r.clone());
            }
        }
        d.compact();
        d
    }
}

/// The entity as a record when it is no longer as it started (always for one the game added);
/// `None` for an unchanged spawned one or a freed node.
pub(super) fn record_if_changed(e: &Live2D, pose: impl Fn(&Gd<Node2D>) -> Pose2D) -> Option<EntityRecord> {
    if !e.node.is_instance_valid() {
        return None;
    }
    let now = pose(&e.node);
    let state = state_of(&e.node);
    if e.spawn.is_some() && !now.differs(&e.start) && state == e.start_state {
        return None;
    }
    Some(now.record(e.scene.clone(), state.to_vec()))
}

/// The 32-tile cells (the keys of records in [`EntityDeltas::records`]) that chunk `c` of `n`
/// tiles overlaps, down to its lower edge: an object standing on the floor below the bottom row
/// is the chunk's ([`chunk_of`]) but its record's cell is that of the edge.
fn cells_of(c: ChunkCoord2D, n: i32) -> impl Iterator<Item = ChunkCoord> {
    let (x0, y0) = c.min_tile(n);
    let cell = |v: i32| v.div_euclid(CHUNK_SIZE);
    let (xs, ys) = (cell(x0)..=cell(x0.saturating_add(n - 1)), cell(y0)..=cell(y0.saturating_add(n)));
    ys.flat_map(move |cy| xs.clone().map(move |cx| ChunkCoord::new(cx, cy, 0)))
}

/// The cell of a world tile point (the key of its records in [`EntityDeltas::records`]).
#[cfg(test)]
fn record_cell(p: [f64; 2]) -> ChunkCoord {
    ChunkCoord::containing(strata_core::IVec3::new(tile_of(p[0]), tile_of(p[1]), 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(x: f64, y: f64) -> EntityRecord {
        EntityRecord {
            scene: "res://a.tscn".into(),
            position: [x, y, 0.0],
            rotation: EntityRecord::NO_ROTATION,
            scale: EntityRecord::NO_SCALE,
            state: Vec::new(),
        }
    }

    #[test]
    fn a_chunk_takes_exactly_the_records_standing_in_it() {
        let mut e = Entities2D::default();
        // Chunks of 48 tiles: cells of 32 straddle their borders.
        for (x, y) in [(1.5, 2.0), (47.9, 47.9), (48.0, 3.0), (-0.25, 5.0), (40.0, 50.0)] {
            e.deltas.push_record(record(x, y));
        }
        assert_eq!(record_cell([47.9, 47.9]), ChunkCoord::new(1, 1, 0));
        let mine = e.take_records(ChunkCoord2D::new(0, 0), 48);
        let mut xs: Vec<f64> = mine.iter().map(|r| r.position[0]).collect();
        xs.sort_by(f64::total_cmp);
        assert_eq!(xs.len(), 2, "{xs:?}");
        assert!((xs[0] - 1.5).abs() < 1e-6 && (xs[1] - 47.9).abs() < 1e-5, "{xs:?}");
        assert_eq!(e.deltas.record_count(), 3, "the others stay kept");
        assert_eq!(e.take_records(ChunkCoord2D::new(1, 0), 48).len(), 1);
        assert_eq!(e.take_records(ChunkCoord2D::new(-1, 0), 48).len(), 1);
        assert_eq!(e.take_records(ChunkCoord2D::new(0, 1), 48).len(), 1);
        assert!(e.deltas.is_empty());
    }

    #[test]
    fn an_object_on_the_floor_below_a_chunks_bottom_row_is_that_chunks() {
        // Chunks of 64 tiles: row 63 is chunk (0, 0)'s bottom row, its floor edge y = 64 also the
        // lower edge of a record cell.
        assert_eq!(chunk_of([20.5, 64.0], 64), ChunkCoord2D::new(0, 0));
        assert_eq!(chunk_of([20.5, 64.25], 64), ChunkCoord2D::new(0, 1));
        assert_eq!(chunk_of([20.5, 0.0], 64), ChunkCoord2D::new(0, -1));
        let mut e = Entities2D::default();
        for (x, y) in [(20.5, 64.0), (20.5, 64.25), (3.5, 128.0)] {
            e.deltas.push_record(record(x, y));
        }
        let top: Vec<[f64; 3]> = e.take_records(ChunkCoord2D::new(0, 0), 64).iter().map(|r| r.position).collect();
        assert_eq!(top, vec![[20.5, 64.0, 0.0]]);
        let mut below: Vec<f64> = e.take_records(ChunkCoord2D::new(0, 1), 64).iter().map(|r| r.position[1]).collect();
        below.sort_by(f64::total_cmp);
        assert_eq!(below, vec![64.25, 128.0]);
        assert!(e.deltas.is_empty());
    }

    #[test]
    fn every_chunk_has_its_own_delta_key_within_a_saves_range() {
        let mut seen = std::collections::HashSet::new();
        for x in -3..3 {
            for y in -3..3 {
                assert!(seen.insert(delta_key(ChunkCoord2D::new(x, y))), "({x}, {y})");
            }
        }
        let far = i32::MAX / 16;
        for c in [ChunkCoord2D::new(far, -far - 1), ChunkCoord2D::new(-far - 1, far)] {
            let k = delta_key(c);
            let limit = (i32::MIN / CHUNK_SIZE)..=(i32::MAX / CHUNK_SIZE);
            assert!([k.x, k.y, k.z].iter().all(|v| limit.contains(v)), "{c:?} → {k:?}");
        }
    }

    #[test]
    fn a_delta_key_names_its_chunk_back() {
        for (x, y) in [(0, 0), (1, -1), (-3, 2), (i32::MAX / 16, -(i32::MAX / 16) - 1)] {
            let c = ChunkCoord2D::new(x, y);
            assert_eq!(chunk_of_delta_key(delta_key(c)), Some(c), "({x}, {y})");
        }
        assert_eq!(chunk_of_delta_key(ChunkCoord::new(0, 0, 4)), None);
        assert_eq!(chunk_of_delta_key(ChunkCoord::new(i32::MAX, 0, 0)), None);
    }

    #[test]
    fn a_chunk_reads_its_records_without_taking_them() {
        let mut e = Entities2D::default();
        for (x, y) in [(1.5, 2.0), (47.9, 47.9), (48.0, 3.0)] {
            e.deltas.push_record(record(x, y));
        }
        assert_eq!(e.records_in(ChunkCoord2D::new(0, 0), 48).len(), 2);
        assert_eq!(e.deltas.record_count(), 3, "all still kept");
    }

    #[test]
    fn a_glide_turns_the_short_way_round() {
        let a = Pose2D { position: [0.0, 10.0], rotation: 3.0, scale: Vector2::ONE };
        let b = Pose2D { position: [4.0, 10.0], rotation: -3.0, scale: Vector2::new(3.0, 1.0) };
        let mid = a.blend(&b, 0.5);
        assert_eq!(mid.position, [2.0, 10.0]);
        assert!((mid.rotation - std::f32::consts::PI).abs() < 1e-3, "through π, not 0: {}", mid.rotation);
        assert_eq!(mid.scale, Vector2::new(2.0, 1.0));
        assert_eq!(a.blend(&b, 1.0).position, b.position);
    }

    #[test]
    fn a_pose_survives_its_record() {
        let half = 0.7f32 / 2.0;
        let r = EntityRecord {
            rotation: [0.0, 0.0, half.sin(), half.cos()],
            scale: [-1.0, 2.0, 1.0],
            ..record(3.25, -9.5)
        };
        let p = Pose2D::of_record(&r);
        assert!((p.rotation - 0.7).abs() < 1e-6 && p.scale == Vector2::new(-1.0, 2.0) && p.position == [3.25, -9.5]);
    }
}
