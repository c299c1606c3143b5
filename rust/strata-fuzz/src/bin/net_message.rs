//! AFL++ target `net_message`: runs [`strata_fuzz::net::message`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::net::message(data));
}
