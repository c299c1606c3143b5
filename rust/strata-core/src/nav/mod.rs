//! Navigation meshes for streamed chunks: where an agent can stand and walk, as convex polygons
//! that a navigation server (Godot's `NavigationServer3D`) joins into one walkable world.
//!
//! [`bake_chunk`] is a pure function over caller-owned buffers: a chunk's voxels with a halo
//! ([`NavSettings::input_box`]: one voxel around, one below, `agent_height` above), a table of
//! what each block is to an agent ([`NavBlocks`]) and a reusable [`NavScratch`] → a [`NavMesh`].
//!
//! * A *cell* is a column position whose floor voxel is solid with `agent_height` open voxels
//!   above it (the feet voxel and the clearance). Water is neither floor nor open: agents do not
//!   wade or swim, and the shore is walkable. A chunk owns the cells whose feet voxel lies in it.
//! * Cells of one height are greedy-merged into rectangles (rows along x, then across z).
//! * A step of one voxel between neighbouring cells (the agent's climb) is a *riser*: a vertical
//!   quad on the line between the two columns, from the lower surface to the upper one, merged
//!   along that line, with head room over the lower cell (one more open voxel). A riser belongs to
//!   the chunk owning its lower cell.
//! * Polygons meet edge to edge, vertex to vertex (Godot connects the polygons of one region only
//!   through exactly shared edges): every edge is split at every polygon corner lying on it, and
//!   edges lying in one of the chunk's six border planes at every voxel. A chunk's border edges
//!   so coincide exactly with its neighbour's, whatever the neighbour holds, and regions join by
//!   their edges' exact positions (law: Seamless).
//!
//! A riser's two vertical sides are bent a quarter voxel outwards at mid-height, so no side is
//! shared: where three or four steps meet at one column corner, Godot would otherwise see an edge
//! held by more than two polygons, which it refuses.
//!
//! Vertices are exact integers in quarter voxels, relative to the chunk's minimum corner; every polygon's
//! corner list starts one vertex before a corner, so its first three vertices are never collinear
//! (Godot takes a polygon's plane from them), and flat polygons are wound with their normal up.
//! The output depends on the voxels alone, in a fixed order (law: Deterministic).
//!
//! The side view's walkers have their own bake ([`bake_chunk_2d`], `bake2d.rs`): strips of
//! standable cells along the ground, risers up to ledges within a step, one-way drops as links;
//! polygons meet by exact shared edges as here, with the 3D bake's block table.
//!
//! May use: `base`.

mod bake;
mod bake2d;

pub use bake::{
    MAX_AGENT_HEIGHT, NavBlock, NavBlocks, NavError, NavMesh, NavPolygons, NavScratch, NavSettings, UNITS_PER_VOXEL,
    bake_chunk,
};

pub use bake2d::{
    HALF_TILES, MAX_AGENT_HEIGHT_2D, MAX_CHUNK_TILES_2D, MAX_DROP_2D, MAX_STEP_UP_2D, NavError2D, NavLink2D, NavMesh2D,
    NavScratch2D, NavSettings2D, bake_chunk_2d,
};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests2d;
