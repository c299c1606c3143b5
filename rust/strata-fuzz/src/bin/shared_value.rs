//! AFL++ target `shared_value`: runs [`strata_fuzz::net::shared_value`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::net::shared_value(data));
}
