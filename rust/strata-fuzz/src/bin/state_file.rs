//! AFL++ target `state_file`: runs [`strata_fuzz::net::state_file`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::net::state_file(data));
}
