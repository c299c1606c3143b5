//! [`GenScratch`]: the buffers a generating thread reuses from chunk to chunk, so that a chunk
//! allocates almost nothing.
//!
//! The caller owns it (a stream worker keeps one per thread) and lends it to the generator's
//! chunk functions. The only thing a later call reads from it is the column passes of recent
//! chunk columns ([`ColumnPasses`]), keyed by the generator that computed them and the columns
//! they cover: a column pass is a pure function of those, so a pass taken from the scratch is
//! the pass the call would compute, and any scratch, fresh or used, gives the same world.
//!
//! May use: `gen3d::columns`, `gen3d::terrain`, and the stages whose buffers it holds
//! (`gen3d::caves`).

use crate::gen3d::caves::CaveScratch;
use crate::gen3d::columns::RingSurfaces;
use crate::gen3d::terrain::TerrainSample;

/// Reusable buffers of [`Generator`](crate::gen3d::pipeline::Generator)'s chunk functions.
#[derive(Debug, Default)]
pub struct GenScratch {
    /// The column pass's height samples.
    pub(crate) samples: Vec<TerrainSample>,
    /// The surfaces around the region, for the water stage.
    pub(crate) ring: RingSurfaces,
    /// The cave stage's fields and masks.
    pub(crate) caves: CaveScratch,
    /// Column passes of recent chunk columns.
    pub(crate) passes: ColumnPasses,
}

impl GenScratch {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the column passes kept from earlier calls, so the next chunk of every column
    /// computes its own: for benchmarks that time a chunk from nothing.
    pub fn forget_column_passes(&mut self) {
        self.passes.entries.clear();
    }
}

/// Column passes kept for reuse: the chunks of one column (sky tests included) share the
/// padded chunk's 36 × 36 height samples, a third of a surface chunk's generation. At most
/// [`ColumnPasses::CAPACITY`] (about 21 KB each), the least recently used replaced.
#[derive(Debug, Default)]
pub(crate) struct ColumnPasses {
    entries: Vec<KeptPass>,
    clock: u64,
}

/// What a column pass is a function of: the generator ([`Generator`]'s identity, unique per
/// built generator) and the columns, `(min_x, min_z, size)`.
///
/// [`Generator`]: crate::gen3d::pipeline::Generator
pub(crate) type PassKey = (u64, i32, i32, usize);

#[derive(Debug)]
struct KeptPass {
    key: PassKey,
    samples: Vec<TerrainSample>,
    used: u64,
}

impl ColumnPasses {
    /// Passes kept: a worker's recent chunk columns, and the 3 × 3 columns of a light box.
    pub(crate) const CAPACITY: usize = 16;

    /// Copies the pass kept for `key` into `samples`; `false` (and `samples` untouched) when
    /// none is kept.
    pub(crate) fn take(&mut self, key: PassKey, samples: &mut Vec<TerrainSample>) -> bool {
        self.clock += 1;
        let Some(kept) = self.entries.iter_mut().find(|e| e.key == key) else { return false };
        kept.used = self.clock;
        samples.clear();
        samples.extend_from_slice(&kept.samples);
        true
    }

    /// Keeps a copy of `samples`, the pass for `key`, in place of the least recently used.
    pub(crate) fn keep(&mut self, key: PassKey, samples: &[TerrainSample]) {
        self.clock += 1;
        let slot = if self.entries.len() < Self::CAPACITY {
            self.entries.push(KeptPass { key, samples: Vec::with_capacity(samples.len()), used: 0 });
            self.entries.len() - 1
        } else {
            self.entries.iter().enumerate().min_by_key(|(_, e)| e.used).map_or(0, |(i, _)| i)
        };
        let kept = &mut self.entries[slot];
        (kept.key, kept.used) = (key, self.clock);
        kept.samples.clear();
        kept.samples.extend_from_slice(samples);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_are_found_by_key_and_the_least_recently_used_goes() {
        let mut passes = ColumnPasses::default();
        let sample = |h: f64| TerrainSample { height: h, biome: 0 };
        for i in 0..ColumnPasses::CAPACITY as i32 {
            passes.keep((1, i, 0, 34), &[sample(i as f64)]);
        }
        let mut out = Vec::new();
        assert!(passes.take((1, 0, 0, 34), &mut out), "kept");
        assert_eq!(out, [sample(0.0)]);
        assert!(!passes.take((2, 0, 0, 34), &mut out), "another generator's columns are other columns");
        assert!(!passes.take((1, 0, 0, 36), &mut out), "another size");
        // One more: the least recently used (column 1; column 0 was just taken) goes.
        passes.keep((1, 99, 0, 34), &[sample(99.0)]);
        assert!(!passes.take((1, 1, 0, 34), &mut out));
        assert!(passes.take((1, 0, 0, 34), &mut out) && passes.take((1, 99, 0, 34), &mut out));
        assert_eq!(out, [sample(99.0)]);
    }
}
