//! AFL++ target `entity_record`: runs [`strata_fuzz::persist::entity_record`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::persist::entity_record(data));
}
