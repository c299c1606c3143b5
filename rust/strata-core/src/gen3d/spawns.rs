//! Spawns: where the objects of the game's own library start, per chunk, as a pure function of
//! seed, rule and chunk (laws: Deterministic, Seamless).
//!
//! For rule `i` and chunk `c`, the clusters of [`crate::base::clusters`] (drawn from seed, rule
//! and chunk; the side view's spawns draw theirs the same way): cluster `k` has a hashed centre
//! in the chunk's columns; member `m` of it stands at a hashed angle and distance
//! `cluster_spread · √u` from the centre (uniform over the disc). A member is dropped when its
//! column lies outside the chunk, its column's biome is not one of the rule's, its habitat has no
//! place in the column inside the chunk, its light is outside the rule's range, or it is closer
//! than `min_spacing` to a member of the same rule already placed in the chunk. A member keeps the
//! index `32k + m` whether or not earlier members were dropped, so a point's [`SpawnKey`] names
//! the same object in every run.
//!
//! The habitats, in the generated voxels (edits are not read: a spawn is a fact of the generated
//! world, and the player's later digging does not renumber it):
//! - `Surface`: the voxel above the column's ground (`surface`), when it lies in the chunk, is
//!   open (neither solid nor liquid) with solid ground under it (no cave mouth);
//! - `Cave`: an open voxel with an open voxel above and solid floor below, `depth_min..=depth_max`
//!   (at least 1) voxels below the column's surface; among those in the chunk's part of the
//!   column, one by hash;
//! - `Underground`: a solid voxel (a buried object) `depth_min..=depth_max` (at least 1) voxels
//!   below the column's surface; among those in the chunk's part of the column, one by hash;
//! - `Water`: a liquid voxel of the column inside the chunk, one by hash.
//!
//! A member's position is its voxel's floor (the voxel's bottom face; for water the voxel's
//! centre) at the member's fractional (x, z); its yaw is hashed.
//!
//! A structure rule with an `entity` adds one object per structure: on the highest floor (an open
//! voxel over a solid one, inside the structure's box) of the box's centre column, facing the
//! structure's turn, as spawn rule [`FIRST_STRUCTURE_SPAWN_RULE`] + the structure rule's index.
//!
//! May use: `base`, `preset`, `gen3d::context`.

use crate::base::block::{is_liquid, is_solid};
use crate::base::chunk::VoxelBuffer;
use crate::base::clusters::{cluster_members, spawn_key};
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::base::rng::{mix64, salt, unit_f32};
use crate::gen3d::context::StageContext;
use crate::preset::model::{FIRST_STRUCTURE_SPAWN_RULE, SpawnHabitat, SpawnRule, WorldPreset};

/// One object to start: rule, member index and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpawnPoint {
    /// Index of the rule in the preset's `spawns.rules`.
    pub rule: u16,
    /// The member's index in its chunk and rule (`32 · cluster + member`).
    pub index: u16,
    /// World position: the bottom of its voxel (centre for water) at the member's (x, z) (`f64`:
    /// exact anywhere in the world).
    pub position: [f64; 3],
    /// Rotation about +y, radians in `[0, 2π)`.
    pub yaw: f32,
}

pub use crate::base::clusters::SpawnKey;

impl SpawnPoint {
    /// The point's name within its chunk.
    pub fn key(&self) -> SpawnKey {
        spawn_key(self.rule, self.index)
    }

    /// The voxel the point stands in.
    pub fn voxel(&self) -> IVec3 {
        IVec3::new(self.position[0].floor() as i32, self.position[1].floor() as i32, self.position[2].floor() as i32)
    }
}

/// The spawn points of chunk `c`: every rule of `ctx.preset`, in rule order, then member order.
/// `voxels` must hold the chunk's generated voxels with at least one voxel of margin above and
/// below (the streamer's padded chunk). `light` gives the combined light of a world voxel, and is
/// asked only for rules that filter by light ([`SpawnRule::filters_light`]); without it, such
/// rules place nothing.
pub fn spawn_chunk(
    ctx: &StageContext,
    c: ChunkCoord,
    voxels: &VoxelBuffer,
    light: Option<&dyn Fn(IVec3) -> u8>,
) -> Vec<SpawnPoint> {
    let mut out = Vec::new();
    for (i, rule) in ctx.preset.spawns.rules.iter().enumerate() {
        if rule.filters_light() && light.is_none() {
            continue;
        }
        let start = out.len();
        let key = [c.x, c.y, c.z];
        for member in cluster_members(ctx.seed, salt::SPAWN, i, rule.density, rule.cluster_size, key) {
            let hm = member.hash;
            let [lx, lz] = member.offset(CHUNK_SIZE as f32, rule.cluster_spread);
            if !(0.0..CHUNK_SIZE as f32).contains(&lx) || !(0.0..CHUNK_SIZE as f32).contains(&lz) {
                continue;
            }
            let min = c.min_voxel();
            let (x, z) = (f64::from(min.x) + f64::from(lx), f64::from(min.z) + f64::from(lz));
            let (vx, vz) = (x.floor() as i32, z.floor() as i32);
            let Some(y) = habitat_y(ctx, rule, c, voxels, vx, vz, mix64(hm ^ 0x5eed)) else { continue };
            if rule.filters_light() {
                let l = light.map_or(0, |f| f(IVec3::new(vx, y, vz)));
                if l < rule.light_min || l > rule.light_max {
                    continue;
                }
            }
            let fy = if rule.habitat == SpawnHabitat::Water { f64::from(y) + 0.5 } else { f64::from(y) };
            let position = [x, fy, z];
            let spacing_sq = f64::from(rule.min_spacing) * f64::from(rule.min_spacing);
            if out[start..].iter().any(|p: &SpawnPoint| dist_sq(p.position, position) < spacing_sq) {
                continue;
            }
            out.push(SpawnPoint {
                rule: i as u16,
                index: member.index,
                position,
                yaw: unit_f32(hm << 40) * std::f32::consts::TAU,
            });
        }
    }
    out
}

fn dist_sq(a: [f64; 3], b: [f64; 3]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)
}

/// The y of the voxel a member of `rule` stands in at column (x, z) of chunk `c`, if the column
/// has a place of the rule's habitat inside the chunk.
fn habitat_y(
    ctx: &StageContext,
    rule: &SpawnRule,
    c: ChunkCoord,
    voxels: &VoxelBuffer,
    x: i32,
    z: i32,
    pick: u64,
) -> Option<i32> {
    let col = ctx.column(x, z);
    if !rule.biomes.is_empty() {
        let name = ctx.biomes.get(col.biome as usize).map(|b| b.name.as_str())?;
        if !rule.biomes.iter().any(|b| b == name) {
            return None;
        }
    }
    let (y0, y1) = (c.min_voxel().y, c.min_voxel().y + CHUNK_SIZE);
    let at = |y: i32| voxels.get(IVec3::new(x, y, z));
    let open = |y: i32| at(y).is_some_and(|b| !is_solid(b) && !is_liquid(b));
    let solid = |y: i32| at(y).is_some_and(is_solid);
    match rule.habitat {
        SpawnHabitat::Surface => {
            let y = col.surface;
            ((y0..y1).contains(&y) && open(y) && solid(y - 1)).then_some(y)
        }
        SpawnHabitat::Cave => {
            let lo = col.surface.saturating_sub(rule.depth_max).max(y0);
            let hi = col.surface.saturating_sub(rule.depth_min.max(1)).min(y1 - 1);
            let places: Vec<i32> = (lo..=hi).filter(|&y| open(y) && open(y + 1) && solid(y - 1)).collect();
            pick_one(&places, pick)
        }
        SpawnHabitat::Underground => {
            let lo = col.surface.saturating_sub(rule.depth_max).max(y0);
            let hi = col.surface.saturating_sub(rule.depth_min.max(1)).min(y1 - 1);
            let places: Vec<i32> = (lo..=hi).filter(|&y| solid(y)).collect();
            pick_one(&places, pick)
        }
        SpawnHabitat::Water => {
            let places: Vec<i32> = (y0..y1).filter(|&y| at(y).is_some_and(is_liquid)).collect();
            pick_one(&places, pick)
        }
    }
}

/// A placed structure as the spawns see it: its rule, quarter turns and box (the pipeline hands
/// these over from the structure stage's placements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StructureBox {
    pub rule: u16,
    pub turns: u8,
    pub min: IVec3,
    pub size: IVec3,
}

/// The objects of structure rules with an `entity` whose floor point lies in chunk `c`:
/// `placements` are the structures over the chunk's columns (in stamping order), `voxels` the
/// chunk's generated padded box. Numbered per rule in placement order.
pub fn structure_entities(
    preset: &WorldPreset,
    placements: &[StructureBox],
    c: ChunkCoord,
    voxels: &VoxelBuffer,
) -> Vec<SpawnPoint> {
    let mut out = Vec::new();
    let (y0, y1) = (c.min_voxel().y, c.min_voxel().y + CHUNK_SIZE);
    let mut counts = vec![0u16; preset.structures.rules.len()];
    for p in placements {
        let Some(rule) = preset.structures.rules.get(p.rule as usize) else { continue };
        if rule.entity.is_empty() {
            continue;
        }
        let (x, z) = (p.min.x + p.size.x / 2, p.min.z + p.size.z / 2);
        if ChunkCoord::containing(IVec3::new(x, y0, z)) != c {
            continue;
        }
        let at = |y: i32| voxels.get(IVec3::new(x, y, z));
        let floor = (p.min.y + 1..p.min.y + p.size.y)
            .rev()
            .find(|&y| at(y).is_some_and(|b| !is_solid(b) && !is_liquid(b)) && at(y - 1).is_some_and(is_solid));
        let Some(y) = floor.filter(|y| (y0..y1).contains(y)) else { continue };
        let n = &mut counts[p.rule as usize];
        out.push(SpawnPoint {
            rule: FIRST_STRUCTURE_SPAWN_RULE + p.rule,
            index: *n,
            position: [f64::from(x) + 0.5, f64::from(y), f64::from(z) + 0.5],
            yaw: f32::from(p.turns) * std::f32::consts::FRAC_PI_2,
        });
        *n += 1;
    }
    out
}

fn pick_one(places: &[i32], pick: u64) -> Option<i32> {
    (!places.is_empty()).then(|| places[(pick % places.len() as u64) as usize])
}
