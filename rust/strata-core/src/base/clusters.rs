//! The hashed clusters that spawn rules draw their objects from, shared by the 3D world's spawns
//! (`gen3d::spawns`) and the side view's (`gen2d::spawns`), and the key that names one spawned
//! object within its chunk.
//!
//! For rule `rule` in the chunk `key` (a 3D chunk, or a side-view chunk as `(x, y, 0)`), one hash
//! of (seed, rule, chunk) draws the number of clusters: `⌊density⌋`, plus one with probability
//! `density − ⌊density⌋`. Cluster `k` has a hashed centre (two fractions of the chunk's side);
//! member `m` of it a hashed angle and a reach `√u` (uniform over the unit disc), and a hash of
//! its own for whatever the caller draws next (the habitat's pick, a facing). A member's index is
//! `32k + m` whether or not the caller keeps earlier ones, so a (chunk, rule, index) names the same
//! object in every run (laws: Deterministic, Seamless: nothing but the chunk's own key is read).
//!
//! May use: `base::rng`.

use crate::base::rng::{hash3, mix64, unit_f32};

/// Most members of one cluster, and the stride of cluster indices in a member's index.
pub const CLUSTER_STRIDE: u32 = 32;

/// A spawned object's name within its chunk: its rule in the high 16 bits and its member index
/// in the low 16. With the chunk it names one object of the generated world.
pub type SpawnKey = u32;

/// The key of member `index` of rule `rule`.
pub const fn spawn_key(rule: u16, index: u16) -> SpawnKey {
    ((rule as u32) << 16) | index as u32
}

/// One member of a drawn cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterMember {
    /// `32 · cluster + member`.
    pub index: u16,
    /// The cluster's centre as fractions `[0, 1)` of the chunk's side.
    pub centre: [f32; 2],
    /// Direction from the centre, radians in `[0, 2π)`.
    pub angle: f32,
    /// Distance from the centre as a fraction of the rule's spread (`√u`, `[0, 1)`).
    pub reach: f32,
    /// The member's own hash, for the caller's next draws.
    pub hash: u64,
}

impl ClusterMember {
    /// Where the member stands in its chunk, in the chunk's units: the centre at `side` and the
    /// offset at `spread` (components may fall outside `[0, side)`: the caller drops those).
    pub fn offset(&self, side: f32, spread: f32) -> [f32; 2] {
        let centre = [self.centre[0] * side, self.centre[1] * side];
        let dist = spread * self.reach;
        [centre[0] + dist * self.angle.cos(), centre[1] + dist * self.angle.sin()]
    }
}

/// The members of rule `rule`'s clusters in chunk `key`: `density` clusters on average, each of
/// `cluster_size` members (at most [`CLUSTER_STRIDE`]), cluster by cluster, member by member.
/// `salt` keeps the streams of different worlds' spawns apart.
pub fn cluster_members(
    seed: u64,
    salt: u64,
    rule: usize,
    density: f32,
    cluster_size: u32,
    key: [i32; 3],
) -> impl Iterator<Item = ClusterMember> {
    let h = hash3(seed ^ mix64(rule as u64 + 1), salt, key[0], key[1], key[2]);
    let whole = density.floor();
    let clusters = whole as u32 + u32::from(unit_f32(h) < density - whole);
    (0..clusters).flat_map(move |k| {
        let hk = mix64(h ^ mix64(u64::from(k) + 1));
        let centre = [unit_f32(hk), unit_f32(hk << 24)];
        (0..cluster_size.min(CLUSTER_STRIDE)).map(move |m| {
            let hm = mix64(hk ^ mix64(u64::from(m) + 0x9e37));
            ClusterMember {
                index: (k * CLUSTER_STRIDE + m) as u16,
                centre,
                angle: unit_f32(hm) * std::f32::consts::TAU,
                reach: unit_f32(hm << 20).sqrt(),
                hash: hm,
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_a_pure_function_of_their_key() {
        let a: Vec<_> = cluster_members(5, 15, 2, 2.5, 4, [3, -1, 7]).collect();
        let b: Vec<_> = cluster_members(5, 15, 2, 2.5, 4, [3, -1, 7]).collect();
        assert_eq!(a, b);
        assert!(a.len() == 8 || a.len() == 12, "2 or 3 clusters of 4: {}", a.len());
        let other: Vec<_> = cluster_members(5, 15, 2, 2.5, 4, [3, -1, 8]).collect();
        assert_ne!(a, other, "another chunk draws other members");
        for m in &a {
            assert!(m.centre.iter().all(|c| (0.0..1.0).contains(c)) && (0.0..1.0).contains(&m.reach));
            let [x, y] = m.offset(64.0, 0.0);
            assert_eq!([x, y], [m.centre[0] * 64.0, m.centre[1] * 64.0], "no spread: at the centre");
        }
        assert_eq!(a[5].index, 32 + 1, "cluster 1, member 1");
    }

    #[test]
    fn spawn_keys_hold_rule_and_index() {
        assert_eq!(spawn_key(3, 65), (3 << 16) | 65);
        assert_eq!(spawn_key(u16::MAX, u16::MAX), u32::MAX);
    }
}
