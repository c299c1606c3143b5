//! Collision triangles from the greedy mesher: steps 1, 2 and 4 for solid faces only, merged by
//! solidity alone (block ids and AO ignored), so a physics shape gets far fewer triangles than
//! the render mesh while covering exactly its opaque faces.
//!
//! May use: `base` and the other `mesh` modules.

use crate::base::chunk::VoxelBuffer;
use crate::base::simd::PORTABLE;
#[cfg(target_arch = "x86_64")]
use crate::base::simd::{AVX2, AVX512};
use crate::mesh::culled::collision_faces_culled;
use crate::mesh::greedy::Mesher;
#[cfg(target_arch = "x86_64")]
use crate::mesh::greedy::wide_simd_available;
use crate::mesh::layout::{Dims, MAX_PADDED, QuadPlacement, SliceLayout};
use crate::mesh::merge::merge_faces;
use crate::mesh::types::{QUAD_TRIANGLES, counter_clockwise};

impl Mesher {
    /// Collision triangles of the interior of `padded` into `out` (cleared first): the corners of
    /// each triangle in turn (3 per triangle), wound clockwise seen from the front like the render
    /// mesh, positions relative to the chunk's minimum corner.
    ///
    /// Only solid faces count (liquids are not collidable), culled exactly as in the render mesh
    /// (never between two solids, the halo included), and merged greedily by solidity alone (block
    /// ids and AO ignored), so the triangles cover exactly the render mesh's opaque faces with far
    /// fewer of them.
    pub fn collision_faces(&mut self, padded: &VoxelBuffer, out: &mut Vec<[f32; 3]>) {
        #[cfg(target_arch = "x86_64")]
        if wide_simd_available() {
            if crate::base::simd::avx512() {
                // SAFETY: the CPU has every feature `collision_faces_avx512` is compiled for
                // (checked just above).
                unsafe { self.collision_faces_avx512(padded, out) };
            } else {
                // SAFETY: the CPU has every feature `collision_faces_wide` is compiled for
                // (checked just above).
                unsafe { self.collision_faces_wide(padded, out) };
            }
            return;
        }
        self.collision_faces_with::<PORTABLE>(padded, out);
    }

    /// [`Mesher::collision_faces`] compiled for AVX2 and BMI.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    fn collision_faces_wide(&mut self, padded: &VoxelBuffer, out: &mut Vec<[f32; 3]>) {
        self.collision_faces_with::<AVX2>(padded, out);
    }

    /// [`Mesher::collision_faces_wide`] with AVX-512 F and BW as well.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512bw,avx512vl,avx512dq")]
    fn collision_faces_avx512(&mut self, padded: &VoxelBuffer, out: &mut Vec<[f32; 3]>) {
        self.collision_faces_with::<AVX512>(padded, out);
    }

    /// Collision faces; `SIMD` as in [`Mesher::mesh_with`].
    #[inline(always)]
    pub(super) fn collision_faces_with<const SIMD: u8>(&mut self, padded: &VoxelBuffer, out: &mut Vec<[f32; 3]>) {
        out.clear();
        let p = padded.size();
        if p.x > MAX_PADDED || p.y > MAX_PADDED || p.z > MAX_PADDED {
            collision_faces_culled(padded, &self.materials().clone(), out);
            return;
        }
        let Some(dims) = self.prepare::<SIMD>(padded, false) else {
            return;
        };
        let data = padded.data();
        self.collision_direction::<0, SIMD>(data, dims, out);
        self.collision_direction::<1, SIMD>(data, dims, out);
        self.collision_direction::<2, SIMD>(data, dims, out);
        self.collision_direction::<3, SIMD>(data, dims, out);
        self.collision_direction::<4, SIMD>(data, dims, out);
        self.collision_direction::<5, SIMD>(data, dims, out);
    }

    /// Collision triangles of direction `D`: solid faces only, merged by solidity alone.
    #[inline(always)]
    fn collision_direction<const D: usize, const SIMD: u8>(
        &mut self,
        data: &[crate::base::block::BlockId],
        dims: Dims,
        out: &mut Vec<[f32; 3]>,
    ) {
        if !self.collect_faces::<D, SIMD, true>(data, dims).opaque {
            return;
        }
        let f = &mut self.faces;
        let t = QUAD_TRIANGLES[counter_clockwise::<D>() as usize][0].map(|t| t as usize);
        merge_faces::<true>(&mut f.solid, &[], &[], SliceLayout::of::<D>(dims), &f.slice_rows, &mut |quad| {
            let c = QuadPlacement::new::<D>(quad).corners::<D>();
            out.extend_from_slice(&[c[t[0]], c[t[1]], c[t[2]], c[t[3]], c[t[4]], c[t[5]]]);
        });
    }
}

/// The most triangles of one collision part. A physics engine's build of a triangle shape grows
/// faster than its triangles (Godot's of 1,400 measured 1.2 ms), so a main thread that builds one
/// part a step keeps each step near 0.1 ms ([`CollisionParts::split`]).
pub const COLLISION_PART_TRIANGLES: usize = 600;

/// A chunk's collision triangles in parts of a bounded size, ready for a physics engine to build
/// one at a time: every part's corners in one buffer, part after part.
///
/// Made on the workers ([`CollisionParts::split`]), so the main thread copies each part into its
/// shape as it is, and compares a rebuilt chunk's parts with its old ones in one `memcmp`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollisionParts {
    /// Triangle corners (3 a triangle, relative to the chunk's minimum corner), grouped by part.
    corners: Vec<[f32; 3]>,
    /// The end of each part in `corners` (a multiple of 3), ascending.
    ends: Vec<u32>,
}

impl CollisionParts {
    /// Splits collision triangles (3 corners each, positions relative to the chunk's minimum
    /// corner, as [`Mesher::collision_faces`] makes them) into parts of at most `max_triangles`:
    /// the chunk's octants by each triangle's centroid, and an octant still past the limit into
    /// its own octants, down to 2 voxels (so a part may exceed the limit only there). Every
    /// triangle is in exactly one part, in its original order; empty octants make no part; parts
    /// come in octant order, depth first. A trailing corner that makes no whole triangle is
    /// dropped.
    pub fn split(corners: &[[f32; 3]], max_triangles: usize) -> Self {
        let whole = corners.len() / 3 * 3;
        let mut parts = Self { corners: corners[..whole].to_vec(), ends: Vec::new() };
        if whole > 0 {
            let mut scratch = Vec::with_capacity(whole);
            let cube = Cube { min: [0.0; 3], size: crate::base::coords::CHUNK_SIZE as f32 };
            parts.split_range(0, whole, cube, max_triangles.max(1), &mut scratch);
        }
        parts
    }

    /// Splits `corners[start..end]` (sorting it by octant in place, stably) and records its parts.
    fn split_range(&mut self, start: usize, end: usize, cube: Cube, max: usize, scratch: &mut Vec<[f32; 3]>) {
        if (end - start) / 3 <= max || cube.size <= 2.0 {
            self.ends.push(end as u32);
            return;
        }
        let half = cube.size / 2.0;
        let octant = |t: &[[f32; 3]]| {
            let high = |axis: usize| (t[0][axis] + t[1][axis] + t[2][axis]) / 3.0 >= cube.min[axis] + half;
            usize::from(high(0)) | usize::from(high(1)) << 1 | usize::from(high(2)) << 2
        };
        // A stable counting sort of the range's triangles by octant, through `scratch`.
        let mut counts = [0usize; 8];
        for t in self.corners[start..end].chunks_exact(3) {
            counts[octant(t)] += 3;
        }
        let mut offsets = [0usize; 8];
        for i in 1..8 {
            offsets[i] = offsets[i - 1] + counts[i - 1];
        }
        scratch.clear();
        scratch.resize(end - start, [0.0; 3]);
        let mut at = offsets;
        for t in self.corners[start..end].chunks_exact(3) {
            let o = octant(t);
            scratch[at[o]..at[o] + 3].copy_from_slice(t);
            at[o] += 3;
        }
        self.corners[start..end].copy_from_slice(scratch);
        for i in 0..8 {
            if counts[i] == 0 {
                continue;
            }
            let corner = |axis: usize| cube.min[axis] + if i >> axis & 1 == 1 { half } else { 0.0 };
            let sub = Cube { min: [corner(0), corner(1), corner(2)], size: half };
            self.split_range(start + offsets[i], start + offsets[i] + counts[i], sub, max, scratch);
        }
    }

    /// How many parts.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no triangle.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Part `i`'s triangle corners (empty past the last part).
    pub fn part(&self, i: usize) -> &[[f32; 3]] {
        let Some(&end) = self.ends.get(i) else { return &[] };
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.corners[start..end as usize]
    }

    /// The parts in order.
    pub fn parts(&self) -> impl Iterator<Item = &[[f32; 3]]> {
        (0..self.len()).map(|i| self.part(i))
    }

    /// Every triangle's corners, part after part.
    pub fn corners(&self) -> &[[f32; 3]] {
        &self.corners
    }

    /// How many triangles in all.
    pub fn triangles(&self) -> usize {
        self.corners.len() / 3
    }
}

/// An axis-aligned cube of the chunk: its minimum corner and side.
#[derive(Clone, Copy)]
struct Cube {
    min: [f32; 3],
    size: f32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::{self, BlockId};
    use crate::base::coords::{ChunkCoord, IVec3};
    use crate::base::rng::hash3;
    use crate::gen3d::pipeline::Generator;
    use crate::mesh::test_support::{padded_with, random_box, to_f, unit_faces};
    use crate::mesh::types::{FACES, cross, dot, sub};
    use crate::mesh::{ChunkMesh, mesh_padded_chunk_culled};
    use crate::preset::model::WorldPreset;

    /// The unit faces (voxel local to the chunk interior, direction) covered by collision
    /// triangles: each quad is two triangles over a rectangle of whole units, clockwise from the
    /// front.
    fn collision_unit_faces(corners: &[[f32; 3]]) -> Vec<([i32; 3], usize)> {
        assert_eq!(corners.len() % 6, 0, "two triangles a quad");
        let mut out = Vec::new();
        for quad in corners.chunks(6) {
            // The front is where the clockwise triangles' normals point away from.
            let n = cross(sub(quad[1], quad[0]), sub(quad[2], quad[0]));
            let d = FACES
                .iter()
                .position(|(f, _, _)| dot(to_f(*f), n) < 0.0 && dot(to_f(*f), n).abs() == dot(n, n).sqrt())
                .expect("an axis-aligned quad");
            let (normal, u, v) = FACES[d];
            let second = cross(sub(quad[4], quad[3]), sub(quad[5], quad[3]));
            assert!(dot(to_f(normal), second) < 0.0, "both triangles clockwise from the front");
            let (lo, hi) = quad.iter().fold(([f32::MAX; 3], [f32::MIN; 3]), |(lo, hi), p| {
                (std::array::from_fn(|k| lo[k].min(p[k])), std::array::from_fn(|k| hi[k].max(p[k])))
            });
            // The two triangles share a diagonal and together use the rectangle's four corners.
            let mut distinct: Vec<[f32; 3]> = quad.to_vec();
            distinct.sort_by(|a, b| a.partial_cmp(b).unwrap());
            distinct.dedup();
            assert_eq!(distinct.len(), 4, "a quad's triangles share two corners");
            assert!(distinct.iter().all(|p| (0..3).all(|k| p[k] == lo[k] || p[k] == hi[k])));
            let extent = sub(hi, lo);
            let (eu, ev) = (dot(extent, to_f(u)) as i32, dot(extent, to_f(v)) as i32);
            assert!(eu >= 1 && ev >= 1 && dot(extent, to_f(normal)) == 0.0);
            let lift = IVec3::new(normal.x.max(0), normal.y.max(0), normal.z.max(0));
            let plane = IVec3::new(lo[0] as i32, lo[1] as i32, lo[2] as i32);
            for i in 0..eu {
                for j in 0..ev {
                    let voxel = plane - lift + u * i + v * j;
                    out.push(([voxel.x, voxel.y, voxel.z], d));
                }
            }
        }
        out.sort();
        out
    }

    /// Collision triangles of `b` cover exactly the reference's opaque unit faces, once each;
    /// returns (collision quads, render opaque quads).
    fn check_collision_against_reference(b: &VoxelBuffer, mesher: &mut Mesher) -> (usize, usize) {
        let mut corners = Vec::new();
        mesher.collision_faces(b, &mut corners);
        let (mut reference, mut render) = (ChunkMesh::default(), ChunkMesh::default());
        mesh_padded_chunk_culled(b, &mut reference);
        mesher.mesh(b, &mut render);
        let solid: Vec<([i32; 3], usize)> =
            unit_faces(&reference).into_iter().filter(|f| f.2 == 0).map(|f| (f.0, f.1)).collect();
        let covered = collision_unit_faces(&corners);
        assert!(covered.windows(2).all(|w| w[0] != w[1]), "overlapping collision quads");
        if covered != solid {
            let missing: Vec<_> = solid.iter().filter(|f| !covered.contains(f)).take(3).collect();
            let extra: Vec<_> = covered.iter().filter(|f| !solid.contains(f)).take(3).collect();
            panic!(
                "collision faces differ: {} vs {} unit faces; missing {missing:?}; extra {extra:?}",
                covered.len(),
                solid.len()
            );
        }
        let quads = corners.len() / 6;
        assert!(
            quads <= render.opaque.quad_count(),
            "{quads} collision quads vs {} rendered",
            render.opaque.quad_count()
        );
        (quads, render.opaque.quad_count())
    }

    #[test]
    fn collision_faces_cover_exactly_the_solid_faces() {
        let mut mesher = Mesher::new();
        // Hand-made boxes: a lone block, a pair against the halo, water next to stone.
        for b in [
            padded_with(&[(1, 1, 1, block::STONE)]),
            padded_with(&[
                (1, 1, 1, block::STONE),
                (2, 1, 1, block::DIRT),
                (0, 3, 3, block::STONE),
                (-1, 3, 3, block::STONE),
            ]),
            padded_with(&[(1, 1, 1, block::WATER), (1, 0, 1, block::STONE), (2, 1, 1, block::WATER)]),
        ] {
            check_collision_against_reference(&b, &mut mesher);
        }
        // A lone block: one quad a side, whatever its AO.
        let mut corners = Vec::new();
        Mesher::new().collision_faces(&padded_with(&[(1, 1, 1, block::STONE)]), &mut corners);
        assert_eq!(corners.len(), 6 * 6);
        let palettes: [&[BlockId]; 3] = [
            &[block::STONE, block::DIRT],
            &[block::STONE, block::WATER, block::GRASS],
            &[block::WATER, block::SAND, 200, block::AIR],
        ];
        for (i, ids) in palettes.iter().enumerate() {
            for (j, fill) in [0.1f32, 0.5, 0.9].into_iter().enumerate() {
                for size in [3, 7, 18, 34] {
                    check_collision_against_reference(&random_box((i * 10 + j) as u64, size, ids, fill), &mut mesher);
                }
            }
        }
        // The widest box the bit rows hold, and one wider than that (the reference's faces).
        for size in [IVec3::new(10, 40, 64), IVec3::new(66, 5, 4)] {
            let mut b = random_box(99, 1, &[block::STONE], 0.0);
            b.reset(IVec3::splat(-1), size);
            for (k, id) in b.data_mut().iter_mut().enumerate() {
                *id = [block::AIR, block::STONE, block::WATER, block::DIRT][(hash3(5, 1, k as i32, 0, 0) % 4) as usize];
            }
            check_collision_against_reference(&b, &mut mesher);
        }
    }

    #[test]
    fn collision_faces_of_generated_chunks_need_fewer_triangles_than_the_render_mesh() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut mesher = Mesher::new();
        let mut padded = VoxelBuffer::new(IVec3::ZERO, IVec3::ONE);
        let (mut collision, mut render) = (0, 0);
        for c in [(0, 0, 0), (1, 0, 1), (-1, 0, 2), (0, -1, 0), (3, 0, -2), (-2, -1, -3), (5, 0, 5)] {
            g.generate_padded_chunk(ChunkCoord::new(c.0, c.1, c.2), &mut padded);
            let (cq, rq) = check_collision_against_reference(&padded, &mut mesher);
            assert!(rq == 0 || cq < rq, "chunk {c:?}: {cq} collision quads vs {rq} rendered");
            collision += cq;
            render += rq;
        }
        // Merged by solidity alone, the terrain's steps and AO no longer split it.
        assert!(render > 1000 && collision * 2 < render, "collision {collision} vs render {render}");
    }

    #[test]
    fn split_faces_keep_every_triangle_once_in_octants() {
        // A triangle near each corner of the chunk, and one across the middle.
        let mut corners = Vec::new();
        for &(x, y, z) in
            &[(1.0, 1.0, 1.0), (30.0, 1.0, 1.0), (1.0, 30.0, 30.0), (30.0, 30.0, 30.0), (15.0, 15.0, 15.0)]
        {
            corners.extend_from_slice(&[[x, y, z], [x + 1.0, y, z], [x, y, z + 1.0]]);
        }
        let split = |c: &[[f32; 3]], max| -> Vec<Vec<[f32; 3]>> {
            CollisionParts::split(c, max).parts().map(<[_]>::to_vec).collect()
        };
        assert_eq!(split(&corners, 5), vec![corners.clone()], "few enough: one part");
        assert!(CollisionParts::split(&[], 0).is_empty());
        let parts = split(&corners, 2);
        assert_eq!(parts.len(), 4, "four octants hold triangles: {parts:?}");
        let mut all: Vec<[f32; 3]> = parts.concat();
        let mut want = corners.clone();
        let key = |v: &[f32; 3]| (v[0].to_bits(), v[1].to_bits(), v[2].to_bits());
        all.sort_by_key(key);
        want.sort_by_key(key);
        assert_eq!(all, want, "every corner once");
        // The triangle across the middle (centroid below 16 on every axis) is with the corner one.
        assert_eq!(parts[0].len(), 6);
        for p in &parts {
            assert_eq!(p.len() % 3, 0);
        }
        // 100 triangles in one octant, a limit of 10: split again until each part holds 10 or
        // fewer, every triangle kept.
        let dense: Vec<[f32; 3]> = (0..100)
            .flat_map(|i| {
                let (x, z) = ((i % 10) as f32 * 1.5, (i / 10) as f32 * 1.5);
                [[x, 3.0, z], [x + 1.0, 3.0, z], [x, 3.0, z + 1.0]]
            })
            .collect();
        let parts = split(&dense, 10);
        assert!(parts.iter().all(|p| p.len() / 3 <= 10), "{:?}", parts.iter().map(Vec::len).collect::<Vec<_>>());
        assert_eq!(parts.iter().map(Vec::len).sum::<usize>(), dense.len());
    }

    /// The split as its definition reads, one vector an octant, recursively.
    fn split_by_definition(corners: Vec<[f32; 3]>, min: [f32; 3], size: f32, max: usize, out: &mut Vec<Vec<[f32; 3]>>) {
        if corners.len() / 3 <= max || size <= 2.0 {
            out.push(corners);
            return;
        }
        let half = size / 2.0;
        let mut octants: [Vec<[f32; 3]>; 8] = Default::default();
        for t in corners.chunks_exact(3) {
            let high = |axis: usize| (t[0][axis] + t[1][axis] + t[2][axis]) / 3.0 >= min[axis] + half;
            octants[usize::from(high(0)) | usize::from(high(1)) << 1 | usize::from(high(2)) << 2].extend_from_slice(t);
        }
        for (i, part) in octants.into_iter().enumerate() {
            if !part.is_empty() {
                let corner = |axis: usize| min[axis] + if i >> axis & 1 == 1 { half } else { 0.0 };
                split_by_definition(part, [corner(0), corner(1), corner(2)], half, max, out);
            }
        }
    }

    #[test]
    fn split_parts_of_real_chunks_are_the_definitions() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let mut mesher = Mesher::new();
        let (mut tested, mut padded) = (0, VoxelBuffer::new(IVec3::ZERO, IVec3::ONE));
        for y in -2..3 {
            for x in 0..4 {
                g.generate_padded_chunk(ChunkCoord::new(x, y, x - 1), &mut padded);
                let mut faces = Vec::new();
                mesher.collision_faces(&padded, &mut faces);
                for max in [1, 7, 60, COLLISION_PART_TRIANGLES, usize::MAX] {
                    let parts = CollisionParts::split(&faces, max);
                    let mut want = Vec::new();
                    if !faces.is_empty() {
                        split_by_definition(faces.clone(), [0.0; 3], 32.0, max, &mut want);
                    }
                    let got: Vec<Vec<[f32; 3]>> = parts.parts().map(<[_]>::to_vec).collect();
                    assert_eq!(got, want, "chunk ({x}, {y}), at most {max}");
                    assert_eq!(parts.triangles(), faces.len() / 3);
                    assert_eq!(parts.part(parts.len()), &[] as &[[f32; 3]], "past the last part");
                }
                tested += usize::from(!faces.is_empty());
            }
        }
        assert!(tested >= 4, "the surface chunks have faces");
    }
}
