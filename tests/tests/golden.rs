//! Golden test: a fingerprint of a fixed set of chunks of shipped presets, so that any change to
//! the world they generate fails loudly.
//!
//! **Updating.** When a change to generation is intended (a new stage, a retuned default), run
//! `cargo test -p strata-tests --test golden`, check the change is the one you meant (for example
//! with `strata_core::gen3d::preview::render_preview` before and after), then paste the value printed in
//! the failure message into the constant below and say in the commit message why the world
//! changed. Never update it to silence an unexplained change: that is exactly what it catches.

use strata_core::preset::model::WorldPreset;
use strata_tests::world_fingerprint as fingerprint;

/// Fingerprint of `strata_tests::GOLDEN_CHUNKS` of the default preset.
/// Since preset format 2 the default terrain is default hills' (issue 22 realism): the same
/// world as `default_hills` in `golden_presets.rs`. Preset format 3 (issue 48) warps biome
/// borders and dithers their transitions (it was 0x638e713d3699b10c with straight borders).
const DEFAULT_PRESET_FINGERPRINT: u64 = 0x3649b90948dc4964;

#[test]
fn default_preset_matches_its_golden_fingerprint() {
    let got = fingerprint(&WorldPreset::default());
    assert_eq!(
        got, DEFAULT_PRESET_FINGERPRINT,
        "the default world changed: new fingerprint {got:#018x}. If the change is intended, set \
         DEFAULT_PRESET_FINGERPRINT = {got:#018x} in tests/tests/golden.rs (see its module doc)"
    );
}

#[test]
fn the_fingerprint_is_stable_within_a_run_and_sees_the_seed() {
    let p = WorldPreset::default();
    assert_eq!(fingerprint(&p), fingerprint(&p));
    let mut other = p.clone();
    other.seed += 1;
    assert_ne!(fingerprint(&p), fingerprint(&other));
}
