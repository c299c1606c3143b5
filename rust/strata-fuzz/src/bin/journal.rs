//! AFL++ target `journal`: runs [`strata_fuzz::persist::journal`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::persist::journal(data));
}
