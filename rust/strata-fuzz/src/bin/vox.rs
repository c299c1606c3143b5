//! AFL++ target `vox`: runs [`strata_fuzz::files::vox`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::files::vox(data));
}
