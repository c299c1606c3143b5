//! Shared helpers for Strata's cross-crate integration tests (`tests/tests/*.rs`).

use std::path::PathBuf;
use strata_core::base::coords::ChunkCoord;
use strata_core::gen3d::pipeline::Generator;
use strata_core::preset::model::WorldPreset;

/// Chunks spread over surface, underground, sky, negative coordinates and far from the origin.
pub const GOLDEN_CHUNKS: [(i32, i32, i32); 10] = [
    (0, 0, 0),
    (0, -1, 0),
    (1, 0, -1),
    (-1, 0, 1),
    (-3, -2, 2),
    (5, 1, -4),
    (0, 3, 0),
    (37, 0, -21),
    (-250, -1, 400),
    (1000, 0, 1000),
];

/// A fingerprint of the voxels of [`GOLDEN_CHUNKS`] in `preset`'s world.
pub fn world_fingerprint(preset: &WorldPreset) -> u64 {
    let g = Generator::new(preset).expect("preset is valid");
    GOLDEN_CHUNKS.iter().fold(0xcbf2_9ce4_8422_2325u64, |acc, &(x, y, z)| {
        let h = g.generate_chunk(ChunkCoord::new(x, y, z)).content_hash();
        (acc ^ h).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(17)
    })
}

/// `godot_project/addons/strata/presets/` in this checkout.
pub fn shipped_presets_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../godot_project/addons/strata/presets")
}

/// The 27 chunks of the 3×3×3 block `[corner, corner + 3)`, x fastest, then z, then y.
pub fn block_chunks(corner: ChunkCoord) -> Vec<ChunkCoord> {
    let mut v = Vec::with_capacity(27);
    for y in 0..3 {
        for z in 0..3 {
            for x in 0..3 {
                v.push(ChunkCoord::new(corner.x + x, corner.y + y, corner.z + z));
            }
        }
    }
    v
}
pub mod loopback;
