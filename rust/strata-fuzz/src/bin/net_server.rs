//! AFL++ target `net_server`: runs [`strata_fuzz::net::server`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::net::server(data));
}
