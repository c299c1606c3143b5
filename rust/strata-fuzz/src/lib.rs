//! Coverage-guided fuzz harnesses of every strata-core decoder of outside bytes: network
//! messages and the server's and client's packet handling, saves, edit journals, shared-state
//! files and values, entity records, presets (RON, sparse RON, `.tres`, world codes), user
//! profiles and heightmap and structure files (`.asc`, `.png`, `.spca`, `.vox`).
//!
//! Each harness is a plain function of the input bytes ([`Target::run`]): it decodes them, and
//! where the format has an encoder it encodes what decoded and decodes that again, asserting the
//! same value (a round trip). It panics only when an invariant breaks, so a panic is a bug: in
//! the decoder (a panic on input) or in the round trip. The AFL++ binaries (`src/bin/*.rs`,
//! feature `afl`, built by `cargo xtask fuzz --coverage`) each run one harness; the seed
//! generator ([`seeds`], `fuzz-seeds`) writes each target's seed corpus into
//! `tests/fuzz_corpus/<target>/`, and strata-tests replays the committed crash inputs of
//! `tests/fuzz_regressions/<target>/` through the same functions.
//!
//! May use: strata-core's public API, flate2 and crc32fast (to frame fuzzed payloads the way the
//! formats do, so the fuzzer reaches past their checksums).

pub mod files;
pub mod net;
pub mod persist;
pub mod preset;
pub mod seeds;

/// One fuzz target: a name (the AFL++ binary, the corpus folder) and its harness.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The binary's name and the folder of its seeds and regressions.
    pub name: &'static str,
    /// What it decodes, for the listing.
    pub what: &'static str,
    /// The harness: decode the bytes, round-trip what decodes; panics only on a bug.
    pub run: fn(&[u8]),
}

/// Every fuzz target, in the order `cargo xtask fuzz --coverage` runs them.
pub const TARGETS: &[Target] = &[
    Target { name: "net_message", what: "a network packet (Message::decode), round trip", run: net::message },
    Target { name: "net_server", what: "packets handled by the server (WorldServer::handle_packet)", run: net::server },
    Target { name: "net_client", what: "packets handled by a client (WorldClient::handle_packet)", run: net::client },
    Target {
        name: "state_file",
        what: "a shared-state file, raw and with its checksum fixed, round trip",
        run: net::state_file,
    },
    Target { name: "shared_value", what: "shared values in a save's text form, round trip", run: net::shared_value },
    Target { name: "save", what: "a save file (decode_world_save), round trip", run: persist::save },
    Target {
        name: "save_payload",
        what: "a save's payload behind a valid header and checksum, round trip",
        run: persist::save_payload,
    },
    Target { name: "journal", what: "an edit journal (decode_journal)", run: persist::journal },
    Target { name: "entity_record", what: "an entity record (read_record), round trip", run: persist::entity_record },
    Target { name: "profile", what: "a user profile (profile_from_file_bytes), round trip", run: persist::profile },
    Target { name: "preset_ron", what: "a RON preset (preset_from_file_bytes), round trip", run: preset::ron },
    Target { name: "preset_sparse_ron", what: "a welcome's sparse RON preset, round trip", run: preset::sparse_ron },
    Target { name: "preset_tres", what: "a .tres preset, round trip", run: preset::tres },
    Target { name: "world_code", what: "a world code, raw and with its checksum fixed", run: preset::world_code },
    Target { name: "heightmap_asc", what: "an ESRI ASCII elevation grid (.asc)", run: files::asc },
    Target { name: "heightmap_hgt", what: "an SRTM tile (.hgt), as given and repeated to a tile", run: files::hgt },
    Target { name: "heightmap_png", what: "a PNG heightmap", run: files::png },
    Target { name: "heightmap_spca", what: "a PCA heightmap (.spca), round trip", run: files::spca },
    Target { name: "vox", what: "a MagicaVoxel structure (.vox), round trip", run: files::vox },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Splits fuzz input into operations for the stateful harnesses: an op byte, a little-endian
/// u16 length, then that many bytes (fewer at the end of the input).
pub fn ops(mut data: &[u8]) -> Vec<(u8, &[u8])> {
    let mut out = Vec::new();
    while let Some((&op, rest)) = data.split_first() {
        let (len, rest) = match rest {
            [a, b, rest @ ..] => (u16::from_le_bytes([*a, *b]) as usize, rest),
            _ => (0, &[][..]),
        };
        let take = len.min(rest.len());
        out.push((op, &rest[..take]));
        data = &rest[take..];
    }
    out
}

/// The [`ops`] encoding of `items` (for seeds).
pub fn frame_ops(items: &[(u8, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (op, bytes) in items {
        out.push(*op);
        out.extend_from_slice(&(bytes.len().min(u16::MAX as usize) as u16).to_le_bytes());
        out.extend_from_slice(&bytes[..bytes.len().min(u16::MAX as usize)]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_ops_round_trip() {
        let mut names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TARGETS.len());
        let items: Vec<(u8, &[u8])> = vec![(1, b"abc"), (0, b""), (7, b"x")];
        assert_eq!(ops(&frame_ops(&items)), items);
        assert_eq!(ops(&[5]), vec![(5, &[][..])]);
        assert_eq!(ops(&[5, 9, 0, 1]), vec![(5, &[1][..])]);
    }
}
