//! AFL++ target `heightmap_hgt`: runs [`strata_fuzz::files::hgt`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::files::hgt(data));
}
