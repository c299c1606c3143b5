//! AFL++ target `heightmap_spca`: runs [`strata_fuzz::files::spca`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::files::spca(data));
}
