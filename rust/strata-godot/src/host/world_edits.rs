//! `StrataChunkWorld`'s raycast and shape edits, as plain functions over the core: the ray walks the
//! world's voxels (edits over the generated world, the same lookup as `get_voxel`) with the core's
//! exact [`raycast`]; a shape edit lists its voxels with the core's [`shapes`], finds which of
//! them change and hands those to the streamer as one batch.
//!
//! Both run on the main thread and generate the voxels they look at (nothing here reads loaded
//! chunks: the main thread keeps none of their voxels), so their cost is bounded: a ray walks at
//! most [`GODOT_MAX_RAY_DISTANCE`] voxels, a shape names at most
//! [`shapes::MAX_SHAPE_VOXELS`] and generates its bounding box once.
//!
//! May use: `strata_core`, `godot` (the result dictionary).

use godot::prelude::*;
use strata_core::IVec3;
use strata_core::base::block::BlockId;
use strata_core::base::coords::ChunkCoord;
use strata_core::base::edit_history::voxel_bounds;
use strata_core::base::edits::{EditMap, local_from_index};
use strata_core::base::origin::FloatingOrigin;
use strata_core::base::raycast::{RayError, raycast};
use strata_core::base::shapes;
use strata_core::gen3d::pipeline::Generator;
use strata_core::stream::query::WorldVoxels;
use strata_core::stream::voxel_cache::VoxelCache;

/// The longest ray `StrataChunkWorld.raycast` walks, in voxels: each voxel it passes is generated on
/// the main thread when no edit covers it.
pub const GODOT_MAX_RAY_DISTANCE: f64 = 512.0;

/// Casts a ray through the world (edits over the generated world) and returns the hit as the
/// dictionary `StrataChunkWorld.raycast` documents, `{}` when nothing solid is hit.
pub fn raycast_dictionary(
    generator: &Generator,
    edits: Option<&EditMap>,
    cache: Option<&VoxelCache>,
    solid: &[bool],
    (origin, from): (FloatingOrigin, Vector3),
    direction: Vector3,
    max_distance: f64,
) -> Result<VarDictionary, RayError> {
    let max = if max_distance.is_nan() { max_distance } else { max_distance.min(GODOT_MAX_RAY_DISTANCE) };
    let mut voxels = WorldVoxels::new(generator, edits, cache);
    let hit = raycast(
        |p| voxels.get(p),
        |b| solid.get(b as usize).copied().unwrap_or(false),
        origin.to_world([from.x as f64, from.y as f64, from.z as f64]),
        [direction.x as f64, direction.y as f64, direction.z as f64],
        max,
    )?;
    let mut d = VarDictionary::new();
    if let Some(h) = hit {
        d.set("hit", true);
        d.set("position", Vector3i::new(h.voxel.x, h.voxel.y, h.voxel.z));
        d.set("normal", Vector3i::new(h.normal.x, h.normal.y, h.normal.z));
        let point = origin.to_local(h.point);
        d.set("point", Vector3::new(point[0] as f32, point[1] as f32, point[2] as f32));
        d.set("distance", h.distance);
        d.set("block", h.block as i64);
    }
    Ok(d)
}

/// Of `voxels`, those whose block (edits over the generated world) is not `block`: what a fill
/// with `block` changes. The generated blocks come from one box generated over the shape's
/// bounds, not voxel by voxel.
pub fn voxels_that_change(
    generator: &Generator,
    edits: Option<&EditMap>,
    voxels: &[IVec3],
    block: BlockId,
) -> Vec<(IVec3, BlockId)> {
    let Some(&first) = voxels.first() else { return Vec::new() };
    let (mut lo, mut hi) = (first, first);
    for p in voxels {
        lo = IVec3::new(lo.x.min(p.x), lo.y.min(p.y), lo.z.min(p.z));
        hi = IVec3::new(hi.x.max(p.x), hi.y.max(p.y), hi.z.max(p.z));
    }
    let generated = generator.generate_box(lo, hi - lo + IVec3::ONE);
    voxels
        .iter()
        .filter(|&&p| {
            let current = edits.and_then(|e| e.get(p)).or_else(|| generated.get(p)).unwrap_or(0);
            current != block
        })
        .map(|&p| (p, block))
        .collect()
}

/// The voxels of a shape edit, or the message `last_error()` shows (naming the method).
pub fn shape_voxels(method: &str, voxels: Result<Vec<IVec3>, shapes::ShapeError>) -> Result<Vec<IVec3>, String> {
    voxels.map_err(|e| format!("StrataChunkWorld.{method}: {e}; nothing changed"))
}

/// The box of every edit of `edits`.
pub(crate) fn edit_bounds(edits: &EditMap) -> Option<(IVec3, IVec3)> {
    let mut all = Vec::with_capacity(edits.len());
    for (c, m) in edits.chunks_sorted() {
        all.extend(m.keys().map(|&i| c.min_voxel() + local_from_index(i)));
    }
    voxel_bounds(all)
}

/// The box of every edit of `edits` (tiles are voxels with z = 0).
pub(crate) fn tile_edit_bounds(edits: Option<&EditMap>) -> Option<(IVec3, IVec3)> {
    let edits = edits?;
    let mut all = Vec::with_capacity(edits.len());
    for (c, m) in edits.chunks_sorted() {
        all.extend(m.keys().map(|&i| c.min_voxel() + local_from_index(i)));
    }
    voxel_bounds(all)
}

/// The bounds of two optional boxes together.
pub(crate) fn union(a: Option<(IVec3, IVec3)>, b: Option<(IVec3, IVec3)>) -> Option<(IVec3, IVec3)> {
    voxel_bounds(a.into_iter().chain(b).flat_map(|(lo, hi)| [lo, hi]))
}

/// The host world's voxels as the server's movement checks see them
/// ([`strata_core::net::movement::SolidVoxels`]): a block is solid when the library says so
/// (water and plants are passable); a voxel of a chunk the world has not loaded is unknown
/// (`None`, passable). Looked up like a raycast (edits, then the workers' cache, then the
/// generator), each chunk's edits, cache entry and loaded state once per chunk walked.
pub struct LoadedSolids<'a, L: Fn(ChunkCoord) -> bool> {
    voxels: std::cell::RefCell<WorldVoxels<'a>>,
    solid: &'a [bool],
    loaded: L,
    last: std::cell::Cell<Option<(ChunkCoord, bool)>>,
}

impl<'a, L: Fn(ChunkCoord) -> bool> LoadedSolids<'a, L> {
    pub fn new(
        generator: &'a Generator,
        edits: Option<&'a EditMap>,
        cache: Option<&'a VoxelCache>,
        solid: &'a [bool],
        loaded: L,
    ) -> Self {
        Self {
            voxels: std::cell::RefCell::new(WorldVoxels::new(generator, edits, cache)),
            solid,
            loaded,
            last: std::cell::Cell::new(None),
        }
    }
}

impl<L: Fn(ChunkCoord) -> bool> strata_core::net::movement::SolidVoxels for LoadedSolids<'_, L> {
    fn is_solid(&self, p: IVec3) -> Option<bool> {
        let c = ChunkCoord::containing(p);
        let loaded = match self.last.get() {
            Some((at, l)) if at == c => l,
            _ => {
                let l = (self.loaded)(c);
                self.last.set(Some((c, l)));
                l
            }
        };
        if !loaded {
            return None;
        }
        let block = self.voxels.borrow_mut().get(p);
        Some(self.solid.get(block as usize).copied().unwrap_or(false))
    }
}
