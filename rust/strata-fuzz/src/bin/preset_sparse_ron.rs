//! AFL++ target `preset_sparse_ron`: runs [`strata_fuzz::preset::sparse_ron`] on each input (a panic is a crash).

fn main() {
    afl::fuzz_nohook!(|data: &[u8]| strata_fuzz::preset::sparse_ron(data));
}
