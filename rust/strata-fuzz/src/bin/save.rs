//! AFL++ target `save`: runs [`strata_fuzz::persist::save`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::persist::save(data));
}
