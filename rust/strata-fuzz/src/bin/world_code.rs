//! AFL++ target `world_code`: runs [`strata_fuzz::preset::world_code`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::preset::world_code(data));
}
