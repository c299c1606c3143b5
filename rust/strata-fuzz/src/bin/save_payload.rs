//! AFL++ target `save_payload`: runs [`strata_fuzz::persist::save_payload`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::persist::save_payload(data));
}
