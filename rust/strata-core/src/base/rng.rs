//! Position-keyed randomness: every random value is a pure function of (seed, salt, position).
//!
//! Nothing here keeps state between calls, so the world never depends on the order in which
//! chunks are generated or on the number of worker threads (law: Deterministic).
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::SeedableRng;

/// SplitMix64 finaliser: a fast, well-mixed 64-bit bijection.
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Hash of (seed, salt, x, y, z) to 64 well-mixed bits.
#[inline]
pub const fn hash3(seed: u64, salt: u64, x: i32, y: i32, z: i32) -> u64 {
    let mut h = mix64(seed ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    h = mix64(h ^ (x as u32 as u64).wrapping_mul(0xd6e8_feb8_6659_fd93));
    h = mix64(h ^ (y as u32 as u64).wrapping_mul(0xa076_1d64_78bd_642f));
    mix64(h ^ (z as u32 as u64).wrapping_mul(0xe703_7ed1_a0b4_28db))
}

/// Hash of (seed, salt, x, y) for 2D lattices.
#[inline]
pub const fn hash2(seed: u64, salt: u64, x: i32, y: i32) -> u64 {
    hash3(seed, salt, x, y, 0x5bd1_e995)
}

/// Hash of (seed, salt, x) for 1D lattices.
#[inline]
pub const fn hash1(seed: u64, salt: u64, x: i32) -> u64 {
    hash3(seed, salt, x, 0x2545_f491, 0x5bd1_e995)
}

/// The top 24 bits of `h` as a float in `[0, 1)`; exact in `f32` on every machine.
#[inline]
pub fn unit_f32(h: u64) -> f32 {
    (h >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
}

/// The top 53 bits of `h` as a float in `[0, 1)`.
#[inline]
pub fn unit_f64(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A `rand_xoshiro` generator seeded from (seed, salt, position): for a burst of values at one place
/// (an ore cluster's shape, a tree's parameters).
pub fn rng_at(seed: u64, salt: u64, x: i32, y: i32, z: i32) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(hash3(seed, salt, x, y, z))
}

/// Well-known salts, so that independent features never share a random stream.
pub mod salt {
    pub const HEIGHT: u64 = 1;
    pub const BIOME: u64 = 2;
    pub const CAVE_FILL: u64 = 3;
    pub const CAVE_TUNNEL: u64 = 4;
    pub const ORE: u64 = 5;
    pub const SCATTER: u64 = 6;
    pub const DIAMOND_SQUARE: u64 = 7;
    pub const MIDPOINT: u64 = 8;
    pub const VALUE_NOISE: u64 = 9;
    pub const TEMPERATURE: u64 = 10;
    pub const MOISTURE: u64 = 11;
    pub const DETAIL: u64 = 12;
    pub const RIVER: u64 = 13;
    pub const EVENTS: u64 = 14;
    pub const SPAWN: u64 = 15;
    pub const TREES: u64 = 16;
    pub const BIOME_WARP_X: u64 = 17;
    pub const BIOME_WARP_Z: u64 = 18;
    pub const BIOME_DITHER: u64 = 19;
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_xoshiro::rand_core::Rng;

    #[test]
    fn hashes_are_pure_and_position_sensitive() {
        assert_eq!(hash3(7, 1, -5, 3, 9), hash3(7, 1, -5, 3, 9));
        assert_ne!(hash3(7, 1, -5, 3, 9), hash3(7, 1, -5, 3, 10));
        assert_ne!(hash3(7, 1, -5, 3, 9), hash3(8, 1, -5, 3, 9));
        assert_ne!(hash3(7, 1, -5, 3, 9), hash3(7, 2, -5, 3, 9));
        let mut a = rng_at(1, 2, 3, 4, 5);
        let mut b = rng_at(1, 2, 3, 4, 5);
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn unit_floats_are_in_range_and_roughly_uniform() {
        let n = 100_000;
        let mean: f64 = (0..n).map(|i| unit_f32(hash1(3, 4, i)) as f64).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.01, "mean {mean}");
        assert!((0..n).all(|i| (0.0..1.0).contains(&unit_f64(hash1(3, 5, i)))));
    }
}
