//! Which kind of world a shared world is, and how its chunks are cut: the one place where the
//! server, the client and the interest management tell a 3D world from a side view, so the
//! protocol and both state machines serve either.
//!
//! A 3D world ([`WorldShape::Voxels`]) is cut into chunks of 32³ voxels ([`ChunkCoord`]). A side
//! view ([`WorldShape::Tiles`]) keeps tile `(x, y)` as voxel `(x, y, 0)`, as its edits and saves
//! do (tile rows grow downwards, as the side view numbers them), and is cut into square chunks
//! of `chunk_tiles` tiles (the preset's `side_view_chunk_tiles`): side-view chunk `(x, y)` is the
//! [`ChunkCoord`] `(x, y, 0)` on the wire, its tiles `x·n .. x·n + n` by `y·n .. y·n + n` at
//! z = 0, numbered row by row (`local index = row · n + column`). In a side view every voxel,
//! chunk and pose lies at z = 0: the server refuses anything else.
//!
//! The side view's shape edits travel as shapes ([`EditShape`]), not as their tiles: a rectangle
//! or a circle of tiles, which every peer turns into the same tiles (`base::shapes`).
//!
//! May use: `base`.

use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3, voxel_in_world};
use crate::base::edits::{local_from_index, local_index};
use crate::base::shapes::{ShapeError, circle_tiles, rect_tiles};

/// The smallest and largest side-view chunk edge the wire accepts, in tiles (the preset's range
/// of `side_view_chunk_tiles`).
pub const MIN_CHUNK_TILES: u32 = 16;
pub const MAX_CHUNK_TILES: u32 = 128;

/// The most tiles one shape edit may set: a 64 × 64 rectangle.
pub const MAX_SHAPE_EDIT_TILES: usize = 4096;
/// A shape edit spends one edit of the rate limit for each this many tiles (at least one).
pub const SHAPE_EDIT_TILES_PER_TOKEN: usize = 128;

/// The kind of world shared, as the server's `Welcome` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WorldShape {
    /// A 3D `ChunkWorld`: chunks of 32³ voxels.
    #[default]
    Voxels,
    /// A side view (`ChunkWorld2D`): tile `(x, y)` is voxel `(x, y, 0)`, chunks of
    /// `chunk_tiles` × `chunk_tiles` tiles ([`MIN_CHUNK_TILES`] to [`MAX_CHUNK_TILES`]).
    Tiles { chunk_tiles: u32 },
}

impl WorldShape {
    /// A side view cut in chunks of `chunk_tiles` (clamped to the wire's range).
    pub fn tiles(chunk_tiles: u32) -> Self {
        Self::Tiles { chunk_tiles: chunk_tiles.clamp(MIN_CHUNK_TILES, MAX_CHUNK_TILES) }
    }

    /// Whether this is a side view.
    pub fn is_side_view(self) -> bool {
        matches!(self, Self::Tiles { .. })
    }

    /// The edge of a chunk: 32 voxels, or the side view's chunk tiles.
    fn edge(self) -> i32 {
        match self {
            Self::Voxels => CHUNK_SIZE,
            Self::Tiles { chunk_tiles } => chunk_tiles.clamp(MIN_CHUNK_TILES, MAX_CHUNK_TILES) as i32,
        }
    }

    /// The chunk holding voxel (or tile) `p`.
    pub fn chunk_of_voxel(self, p: IVec3) -> ChunkCoord {
        match self {
            Self::Voxels => ChunkCoord::containing(p),
            Self::Tiles { .. } => ChunkCoord::new(p.x.div_euclid(self.edge()), p.y.div_euclid(self.edge()), 0),
        }
    }

    /// The chunk holding point `p` (world voxels or tiles); positions past the world's bounds give
    /// the bound's chunk; a side view's z is not read.
    pub fn chunk_of_point(self, p: [f64; 3]) -> ChunkCoord {
        let v = |x: f64| x.floor().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
        self.chunk_of_voxel(IVec3::new(v(p[0]), v(p[1]), v(p[2])))
    }

    /// The chunk an object at `p` belongs to: that of its point, but in a side view that of
    /// the tile it stands in ([`crate::base::coords::standing_tile`]: an object on the floor
    /// below a chunk's bottom row is that chunk's), as the side-view world keys its objects.
    pub fn chunk_of_object(self, p: [f64; 3]) -> ChunkCoord {
        match self {
            Self::Voxels => self.chunk_of_point(p),
            Self::Tiles { .. } => {
                let [x, y] = crate::base::coords::standing_tile([p[0], p[1]]);
                self.chunk_of_voxel(IVec3::new(x, y, 0))
            }
        }
    }

    /// The smallest voxel of chunk `c` and the chunk's size on each axis.
    pub fn chunk_box(self, c: ChunkCoord) -> (IVec3, IVec3) {
        let n = self.edge();
        match self {
            Self::Voxels => (c.min_voxel(), IVec3::splat(n)),
            Self::Tiles { .. } => (IVec3::new(c.x.saturating_mul(n), c.y.saturating_mul(n), 0), IVec3::new(n, n, 1)),
        }
    }

    /// How many voxels one chunk holds: the local indices are `0..chunk_volume()`.
    pub fn chunk_volume(self) -> usize {
        match self {
            Self::Voxels => (CHUNK_SIZE * CHUNK_SIZE * CHUNK_SIZE) as usize,
            Self::Tiles { .. } => (self.edge() * self.edge()) as usize,
        }
    }

    /// The local index of voxel `p` of a chunk whose smallest voxel is `min`.
    pub fn local_index(self, min: IVec3, p: IVec3) -> u16 {
        let l = IVec3::new(p.x - min.x, p.y - min.y, p.z - min.z);
        match self {
            Self::Voxels => local_index(l),
            Self::Tiles { .. } => (l.y * self.edge() + l.x) as u16,
        }
    }

    /// The voxel of local index `i` of chunk `c` (`i` below [`WorldShape::chunk_volume`]).
    pub fn voxel_at(self, c: ChunkCoord, i: u16) -> IVec3 {
        let (min, _) = self.chunk_box(c);
        let l = match self {
            Self::Voxels => local_from_index(i),
            Self::Tiles { .. } => IVec3::new(i as i32 % self.edge(), i as i32 / self.edge(), 0),
        };
        IVec3::new(min.x + l.x, min.y + l.y, min.z + l.z)
    }

    /// Whether chunk `c` is one of this world's: inside the bounds (every voxel of it), and at
    /// z = 0 in a side view.
    pub fn holds_chunk(self, c: ChunkCoord) -> bool {
        match self {
            Self::Voxels => c.in_world(),
            Self::Tiles { .. } => {
                let (min, size) = self.chunk_box(c);
                c.z == 0
                    && voxel_in_world(min)
                    && voxel_in_world(IVec3::new(min.x.saturating_add(size.x - 1), min.y.saturating_add(size.y - 1), 0))
            }
        }
    }

    /// Whether voxel (or tile) `p` may be edited: inside the bounds, and at z = 0 in a side view.
    pub fn holds_voxel(self, p: IVec3) -> bool {
        voxel_in_world(p) && (self == Self::Voxels || p.z == 0)
    }

    /// Whether a pose at `position` lies in this world's plane (any z in 3D; z = 0 in a side view).
    pub fn holds_position(self, position: [f64; 3]) -> bool {
        self == Self::Voxels || position[2] == 0.0
    }

    /// The point edits are measured from for a pose at `position`: the position itself, or in a
    /// side view the middle of the tile layer (the tiles' centres lie at z = 0.5).
    pub fn reach_origin(self, position: [f64; 3]) -> [f64; 3] {
        match self {
            Self::Voxels => position,
            Self::Tiles { .. } => [position[0], position[1], 0.5],
        }
    }
}

/// A shape edit of a side view: every tile of it is set to one block, as one edit (one batch on
/// every peer, its water flowed once).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EditShape {
    /// The rectangle of tiles with corners `a` and `b`, both included, in any order.
    Rect { a: [i32; 2], b: [i32; 2] },
    /// The tiles whose centres lie within `radius` (finite, 0 to 1,024) of tile `center`'s.
    Circle { center: [i32; 2], radius: f64 },
}

/// Why a shape edit cannot be made.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub enum ShapeEditError {
    #[error(transparent)]
    Shape(#[from] ShapeError),
    #[error("the shape has {tiles} tiles; allowed: at most {MAX_SHAPE_EDIT_TILES} in one shared edit")]
    TooLarge { tiles: usize },
}

impl EditShape {
    /// The shape's tiles as voxels `(x, y, 0)`, row by row: the same list on every peer. At most
    /// [`MAX_SHAPE_EDIT_TILES`], inside the world's bounds.
    pub fn tiles(&self) -> Result<Vec<IVec3>, ShapeEditError> {
        let tiles = match *self {
            Self::Rect { a, b } => {
                let count = (0..2).map(|i| (a[i] as i64 - b[i] as i64).unsigned_abs() + 1).product::<u64>();
                if count > MAX_SHAPE_EDIT_TILES as u64 {
                    return Err(ShapeEditError::TooLarge { tiles: count.min(usize::MAX as u64) as usize });
                }
                rect_tiles(a, b)?
            }
            Self::Circle { center, radius } => circle_tiles(center, radius)?,
        };
        if tiles.len() > MAX_SHAPE_EDIT_TILES {
            return Err(ShapeEditError::TooLarge { tiles: tiles.len() });
        }
        Ok(tiles)
    }

    /// What the shape spends of a player's edit rate: one edit for each
    /// [`SHAPE_EDIT_TILES_PER_TOKEN`] tiles, at least one.
    pub fn cost(tiles: usize) -> f64 {
        tiles.div_ceil(SHAPE_EDIT_TILES_PER_TOKEN).max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_view_chunks_cut_tiles_row_by_row_at_z_0() {
        let s = WorldShape::tiles(64);
        assert_eq!(s.chunk_of_voxel(IVec3::new(-1, 64, 0)), ChunkCoord::new(-1, 1, 0));
        assert_eq!(s.chunk_of_point([3e6, -0.5, 0.0]), ChunkCoord::new(46875, -1, 0));
        // An object on the floor below a chunk's bottom row (y = 0) is that chunk's; its point
        // is the next chunk's. In 3D both are the point's.
        assert_eq!(s.chunk_of_point([3e6, 0.0, 0.0]), ChunkCoord::new(46875, 0, 0));
        assert_eq!(s.chunk_of_object([3e6, 0.0, 0.0]), ChunkCoord::new(46875, -1, 0));
        assert_eq!(s.chunk_of_object([3e6, 0.25, 0.0]), ChunkCoord::new(46875, 0, 0));
        assert_eq!(WorldShape::Voxels.chunk_of_object([0.5, 32.0, 0.5]), ChunkCoord::new(0, 1, 0));
        let c = ChunkCoord::new(-2, 3, 0);
        let (min, size) = s.chunk_box(c);
        assert_eq!((min, size), (IVec3::new(-128, 192, 0), IVec3::new(64, 64, 1)));
        assert_eq!(s.chunk_volume(), 4096);
        for i in [0u16, 1, 63, 64, 4095] {
            let p = s.voxel_at(c, i);
            assert_eq!(s.chunk_of_voxel(p), c);
            assert_eq!(s.local_index(min, p), i);
        }
        assert!(s.holds_chunk(c) && !s.holds_chunk(ChunkCoord::new(0, 0, 1)));
        assert!(!s.holds_voxel(IVec3::new(0, 0, 1)) && s.holds_voxel(IVec3::new(5, -5, 0)));
        assert!(!s.holds_position([0.0, 0.0, 0.5]) && s.holds_position([1.0, 2.0, 0.0]));
        // The wire's chunk range: a chunk at the bounds' edge is out.
        assert!(!s.holds_chunk(ChunkCoord::new(i32::MAX / 64, 0, 0)));
    }

    #[test]
    fn voxel_chunks_are_the_3d_chunks() {
        let s = WorldShape::Voxels;
        let p = IVec3::new(-33, 70, 5);
        assert_eq!(s.chunk_of_voxel(p), ChunkCoord::containing(p));
        let c = s.chunk_of_voxel(p);
        let (min, _) = s.chunk_box(c);
        assert_eq!(s.voxel_at(c, s.local_index(min, p)), p);
        assert!(s.holds_position([0.0, 0.0, 7.5]));
    }

    #[test]
    fn shapes_name_the_same_tiles_everywhere_and_are_bounded() {
        let r = EditShape::Rect { a: [3, 5], b: [0, 4] };
        assert_eq!(r.tiles().unwrap().len(), 8);
        let c = EditShape::Circle { center: [0, 0], radius: 1.0 };
        assert_eq!(c.tiles().unwrap().len(), 5);
        assert!(matches!(
            EditShape::Rect { a: [0, 0], b: [64, 63] }.tiles(),
            Err(ShapeEditError::TooLarge { tiles: 4160 })
        ));
        assert!(EditShape::Rect { a: [i32::MIN, 0], b: [i32::MAX, 0] }.tiles().is_err());
        assert!(EditShape::Circle { center: [0, 0], radius: f64::NAN }.tiles().is_err());
        assert!(matches!(
            EditShape::Circle { center: [0, 0], radius: 40.0 }.tiles(),
            Err(ShapeEditError::TooLarge { .. })
        ));
        assert_eq!(EditShape::cost(1), 1.0);
        assert_eq!(EditShape::cost(129), 2.0);
    }
}
