//! AFL++ target `preset_tres`: runs [`strata_fuzz::preset::tres`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::preset::tres(data));
}
