//! AFL++ target `profile`: runs [`strata_fuzz::persist::profile`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::persist::profile(data));
}
