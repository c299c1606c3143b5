//! AFL++ target `heightmap_asc`: runs [`strata_fuzz::files::asc`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::files::asc(data));
}
