//! Interest management: what one player is sent of the world, so the bytes each player gets stay
//! flat however far the players spread.
//!
//! A player sees the chunks within its view radius ([`ViewRadius`]) of the chunk of its accepted
//! pose. It is sent an edit when the edit's chunk is in its view or is one it subscribed to (a
//! chunk that streamed in on its side: the subscription's snapshot brought every edit before it,
//! so every later one must follow). Subscriptions are kept within the view and a margin of
//! [`SUBSCRIPTION_MARGIN_CHUNKS`]; when the player moves on, those left behind are released and
//! the client is told (`ChunkReleased`), so no edit is ever skipped in a chunk a client holds as
//! synced: a released chunk is subscribed again, and its snapshot brings what it missed. A
//! subscription asked for from farther is released at once. A player's entity deltas follow its
//! subscriptions. Another player's pose is sent when that player stands in the view, else at
//! most every `far_pose_interval_s` (the player list and a map still know where everyone is).
//! Before its first pose a player's view is unknown: it is sent its subscriptions' edits and
//! every pose. The host's own player sees everything (its world is the server's). Chunks are
//! the world's own ([`WorldShape`]): a side view's are its square chunks of tiles at z = 0, the
//! view's horizontal radius along x and its vertical one along the rows.
//!
//! May use: `base`, `net::protocol`, `net::world_shape`.

use crate::base::coords::ChunkCoord;
use crate::net::protocol::{PlayerId, ViewRadius};
use crate::net::world_shape::WorldShape;
use std::collections::{BTreeMap, HashSet};

/// Chunks past the view radius a subscription is kept for, so that a player walking along a
/// chunk border does not release and subscribe again at every step, and a client whose pose
/// the server has a moment late is not refused a chunk that just came into view.
pub const SUBSCRIPTION_MARGIN_CHUNKS: u32 = 1;

/// What one player is sent: see the module docs.
#[derive(Clone, Debug)]
pub struct Interest {
    view: ViewRadius,
    /// The chunk of the accepted pose (none before the first pose).
    center: Option<ChunkCoord>,
    /// The chunks subscribed to.
    chunks: HashSet<ChunkCoord>,
    /// Sees everything (the host's own player).
    everything: bool,
    /// When each other player's pose was last sent while out of view.
    far_sent: BTreeMap<PlayerId, f64>,
    /// How the world is cut into chunks.
    shape: WorldShape,
}

impl Interest {
    /// A player of a 3D world.
    pub fn new(view: ViewRadius) -> Self {
        Self::in_shape(view, WorldShape::Voxels)
    }

    /// A player of a world of `shape`.
    pub fn in_shape(view: ViewRadius, shape: WorldShape) -> Self {
        Self { view, center: None, chunks: HashSet::new(), everything: false, far_sent: BTreeMap::new(), shape }
    }

    pub fn view(&self) -> ViewRadius {
        self.view
    }

    /// Sets the view radius; returns the subscriptions it releases.
    pub fn set_view(&mut self, view: ViewRadius) -> Vec<ChunkCoord> {
        self.view = view;
        self.release_far()
    }

    /// Makes this the host's own player, which sees everything (or not).
    pub fn set_everything(&mut self, on: bool) {
        self.everything = on;
    }

    pub fn sees_everything(&self) -> bool {
        self.everything
    }

    /// The player's accepted pose is at `position`: returns the subscriptions that left its view.
    pub fn moved_to(&mut self, position: [f64; 3]) -> Vec<ChunkCoord> {
        let center = self.shape.chunk_of_point(position);
        if self.center == Some(center) {
            return Vec::new();
        }
        self.center = Some(center);
        self.release_far()
    }

    /// Whether `chunk` is within the view (always, for the host; never before the first pose).
    pub fn in_view(&self, chunk: ChunkCoord) -> bool {
        self.everything || self.center.is_some_and(|c| self.view.contains(c, chunk, 0))
    }

    /// Whether the player is subscribed to `chunk`.
    pub fn is_subscribed(&self, chunk: ChunkCoord) -> bool {
        self.chunks.contains(&chunk)
    }

    /// Whether an edit of `chunk` goes to this player.
    pub fn wants_edit(&self, chunk: ChunkCoord) -> bool {
        self.chunks.contains(&chunk) || self.in_view(chunk)
    }

    /// Whether a subscription to `chunk` may be served now (within the view and the margin, or
    /// before the first pose).
    pub fn may_subscribe(&self, chunk: ChunkCoord) -> bool {
        self.everything || self.center.is_none_or(|c| self.view.contains(c, chunk, SUBSCRIPTION_MARGIN_CHUNKS))
    }

    /// Subscribes to `chunk` (its snapshot is on its way).
    pub fn subscribe(&mut self, chunk: ChunkCoord) {
        self.chunks.insert(chunk);
    }

    /// Whether `other`'s pose at `position` goes to this player at `now_s`: in view, before this
    /// player's first pose, or out of view once every `far_interval_s` (0 or less: never).
    pub fn wants_pose(&mut self, other: PlayerId, position: [f64; 3], now_s: f64, far_interval_s: f64) -> bool {
        if self.center.is_none() || self.in_view(self.shape.chunk_of_point(position)) {
            self.far_sent.remove(&other);
            return true;
        }
        if far_interval_s <= 0.0 {
            return false;
        }
        let due = self.far_sent.get(&other).is_none_or(|&t| now_s - t >= far_interval_s);
        if due {
            self.far_sent.insert(other, now_s);
        }
        due
    }

    /// Forgets player `other` (it left).
    pub fn forget(&mut self, other: PlayerId) {
        self.far_sent.remove(&other);
    }

    /// Releases the subscriptions beyond the view and the margin, in a fixed order.
    fn release_far(&mut self) -> Vec<ChunkCoord> {
        if self.everything {
            return Vec::new();
        }
        let Some(center) = self.center else { return Vec::new() };
        let view = self.view;
        let mut far: Vec<ChunkCoord> =
            self.chunks.iter().copied().filter(|c| !view.contains(center, *c, SUBSCRIPTION_MARGIN_CHUNKS)).collect();
        far.sort_unstable_by_key(|c| (c.x, c.y, c.z));
        for c in &far {
            self.chunks.remove(c);
        }
        far
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscriptions_follow_the_view_and_are_released_behind_the_player() {
        let mut i = Interest::new(ViewRadius { horizontal: 2, vertical: 1 });
        // Before the first pose: subscriptions are served, only they get edits.
        assert!(i.may_subscribe(ChunkCoord::new(50, 0, 0)));
        i.subscribe(ChunkCoord::new(0, 0, 0));
        i.subscribe(ChunkCoord::new(3, 0, 0));
        assert!(i.wants_edit(ChunkCoord::new(3, 0, 0)) && !i.wants_edit(ChunkCoord::new(1, 0, 0)));
        // The first pose: chunk (3,0,0) is within the margin, kept.
        assert_eq!(i.moved_to([10.0, 5.0, 10.0]), vec![]);
        assert!(i.wants_edit(ChunkCoord::new(1, 0, 0)) && i.wants_edit(ChunkCoord::new(3, 0, 0)));
        assert!(!i.wants_edit(ChunkCoord::new(0, 2, 0)) && !i.may_subscribe(ChunkCoord::new(4, 0, 0)));
        // Walking west two chunks: (3,0,0) is left behind.
        assert_eq!(i.moved_to([-40.0, 5.0, 10.0]), vec![ChunkCoord::new(3, 0, 0)]);
        assert!(!i.wants_edit(ChunkCoord::new(3, 0, 0)) && i.is_subscribed(ChunkCoord::new(0, 0, 0)));
        // Within the same chunk nothing changes; a smaller view releases.
        assert_eq!(i.moved_to([-33.0, 6.0, 1.0]), vec![]);
        i.subscribe(ChunkCoord::new(-5, 0, 0));
        assert_eq!(i.set_view(ViewRadius { horizontal: 1, vertical: 0 }), vec![ChunkCoord::new(-5, 0, 0)]);
        // The host's player sees everything and keeps everything.
        i.set_everything(true);
        assert!(i.wants_edit(ChunkCoord::new(1000, 9, 0)) && i.may_subscribe(ChunkCoord::new(1000, 0, 0)));
    }

    #[test]
    fn a_side_view_sees_its_own_chunks_along_x_and_the_rows() {
        let mut i = Interest::in_shape(ViewRadius { horizontal: 2, vertical: 1 }, WorldShape::tiles(64));
        i.subscribe(ChunkCoord::new(3, 0, 0));
        // Tile (10, 5) is in chunk (0, 0); tile x = 200 in chunk 3, within the margin.
        assert_eq!(i.moved_to([10.0, 5.0, 0.0]), vec![]);
        assert!(i.wants_edit(ChunkCoord::new(2, 1, 0)) && !i.wants_edit(ChunkCoord::new(0, 2, 0)));
        // Three chunks of 64 tiles west: chunk 3 is left behind.
        assert_eq!(i.moved_to([-150.0, 5.0, 0.0]), vec![ChunkCoord::new(3, 0, 0)]);
        assert!(i.wants_pose(9, [-100.0, 60.0, 0.0], 0.0, 0.0), "one chunk away: in view");
        assert!(!i.wants_pose(9, [-100.0, 200.0, 0.0], 0.0, 0.0), "three rows of chunks down: out of view");
    }

    #[test]
    fn far_poses_go_at_the_low_rate_or_never() {
        let mut i = Interest::new(ViewRadius { horizontal: 2, vertical: 1 });
        assert!(i.wants_pose(7, [5000.0, 0.0, 0.0], 0.0, 5.0), "no view yet: everything");
        i.moved_to([0.0, 0.0, 0.0]);
        assert!(i.wants_pose(7, [10.0, 0.0, 0.0], 0.0, 5.0));
        let sent: Vec<bool> = (0..12).map(|s| i.wants_pose(7, [5000.0, 0.0, 0.0], s as f64, 5.0)).collect();
        assert_eq!(sent.iter().filter(|s| **s).count(), 3, "at 0, 5 and 10 s: {sent:?}");
        assert!(!i.wants_pose(8, [5000.0, 0.0, 0.0], 0.0, 0.0));
    }
}
