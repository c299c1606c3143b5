//! AFL++ target `net_client`: runs [`strata_fuzz::net::client`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::net::client(data));
}
