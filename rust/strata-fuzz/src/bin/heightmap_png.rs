//! AFL++ target `heightmap_png`: runs [`strata_fuzz::files::png`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::files::png(data));
}
