//! The seed corpus of every fuzz target: small valid inputs made by strata-core's own encoders
//! (and a few committed fixtures), written to `tests/fuzz_corpus/<target>/` by the
//! `fuzz-seeds` binary. AFL++ starts from these, so it begins past each format's magic,
//! checksums and fingerprints.
//!
//! May use: strata-core's public API, flate2 (to read a save's payload back), png (the PNG
//! seeds) and the framing helpers of the harness modules.

use crate::frame_ops;
use crate::net::STATE_WORLD;
use crate::persist::{JOURNAL_WORLD, RECORD_CHUNK, RECORD_SCENES};
use png::BitDepth;
use std::io::Read;
use strata_core::base::block_library::default_library;
use strata_core::base::edit_history::{PendingFlow, VoxelChange};
use strata_core::gen3d::structures::{KEEP, StructureTemplate};
use strata_core::net::protocol::{Message, PROTOCOL_VERSION, Pose, RejectReason, ViewRadius, pack_batches};
use strata_core::net::shared_state::{SharedState, SharedValue};
use strata_core::net::state_file::encode_state_file;
use strata_core::net::world_shape::{EditShape, WorldShape};
use strata_core::noise::pca::{Pca, PcaModel};
use strata_core::persist::entities::{EntityRecord, put_record};
use strata_core::persist::profile::Profile;
use strata_core::persist::save::{HEADER_BYTES, SaveOptions, WorldSave, encode_world_save};
use strata_core::preset::fingerprint::{fingerprint, preset_to_sparse_ron};
use strata_core::preset::ron::preset_to_ron;
use strata_core::preset::tres::preset_to_tres_text;
use strata_core::preset::world_code::encode_world_code;
use strata_core::{ChunkCoord, IVec3, WorldPreset};

/// One seed: its file name and bytes.
pub type Seed = (String, Vec<u8>);

fn seed(name: &str, bytes: impl Into<Vec<u8>>) -> Seed {
    (name.to_string(), bytes.into())
}

/// The seeds of the target called `name` (none for an unknown name).
pub fn seeds(name: &str) -> Vec<Seed> {
    match name {
        "net_message" => messages().into_iter().map(|(n, m)| seed(&n, m.encode())).collect(),
        "net_server" => server_sessions(),
        "net_client" => client_sessions(),
        "state_file" => vec![
            seed("every_kind.shared", encode_state_file(&shared_state(), STATE_WORLD)),
            seed("empty.shared", encode_state_file(&SharedState::default(), STATE_WORLD)),
            seed("payload.bin", shared_state_message().encode()),
        ],
        "shared_value" => vec![seed("every_kind.txt", shared_state_text())],
        "save" => saves().into_iter().map(|(n, s)| seed(&n, s)).chain(fixture_saves()).collect(),
        "save_payload" => saves().into_iter().chain(fixture_saves()).map(|(n, s)| seed(&n, payload_seed(&s))).collect(),
        "journal" => vec![seed("three.journal", journal(3, 40)), seed("empty.journal", journal(0, 0))],
        "entity_record" => records(),
        "profile" => vec![
            seed("default.toml", Profile::default().to_toml()),
            seed("good_full.toml", &include_bytes!("../../../tests/corpus/profile_toml/good_full.toml")[..]),
        ],
        "preset_ron" => presets().iter().map(|(n, p)| seed(&format!("{n}.ron"), preset_to_ron(p))).collect(),
        "preset_sparse_ron" => {
            presets().iter().map(|(n, p)| seed(&format!("{n}.ron"), preset_to_sparse_ron(p))).collect()
        }
        "preset_tres" => presets()
            .iter()
            .map(|(n, p)| seed(&format!("{n}.tres"), preset_to_tres_text(p)))
            .chain([seed(
                "godot_saved.tres",
                &include_bytes!("../../../tests/corpus/preset_tres/good_godot_saved.tres")[..],
            )])
            .collect(),
        "world_code" => world_codes(),
        "heightmap_asc" => vec![
            seed(
                "corner.asc",
                "ncols 4\nnrows 3\nxllcorner 0\nyllcorner 0\ncellsize 30\nNODATA_value -9999\n1 2 3 4\n5 -9999 7 8\n9 10 11 12\n",
            ),
            seed(
                "center.asc",
                "NCOLS 2\nNROWS 2\nXLLCENTER 15.0\nYLLCENTER 15.0\nCELLSIZE 30.0\n100.5 101\n99 98.25\n",
            ),
        ],
        "heightmap_hgt" => vec![
            // Heights 0, 100, 8848 and a void, repeated over the tile.
            seed("heights.hgt", [0u8, 0, 0, 100, 0x22, 0x90, 0x80, 0x00]),
            seed("below_sea.hgt", (-20i16..20).flat_map(i16::to_be_bytes).collect::<Vec<u8>>()),
        ],
        "heightmap_png" => vec![seed("gray16.png", png(BitDepth::Sixteen)), seed("gray8.png", png(BitDepth::Eight))],
        "heightmap_spca" => vec![seed("grid.spca", spca())],
        "vox" => vox(),
        _ => Vec::new(),
    }
}

/// One of each message, with typical values.
fn messages() -> Vec<(String, Message)> {
    let preset = WorldPreset::default();
    let record = EntityRecord {
        scene: RECORD_SCENES[0].into(),
        position: [3.5, 10.0, 7.25],
        rotation: [0.0, 0.6, 0.0, 0.8],
        scale: [1.0, 2.0, 1.0],
        state: vec![1, 2, 3],
    };
    let pose = Pose { position: [1.5, 70.0, -3.0], yaw: 1.2, pitch: -0.3, eye_height: 1.12 };
    let chunk = ChunkCoord { x: 1, y: 2, z: -3 };
    let value = Some(SharedValue::Vector3([1.0, 64.0, -9.5]));
    let all = vec![
        ("hello", Message::Hello { protocol: PROTOCOL_VERSION, name: "alice".into() }),
        ("welcome", welcome(&preset)),
        ("refused", Message::Refused { reason: "the server is full".into() }),
        ("edit_request", Message::EditRequest { request: 7, pos: IVec3::new(10, 64, -20), block: 3 }),
        (
            "edit_applied",
            Message::EditApplied { order: 0, player: 1, request: 7, pos: IVec3::new(10, 64, -20), block: 3 },
        ),
        ("edit_rejected", Message::EditRejected { request: 8, reason: RejectReason::OutOfReach }),
        (
            "shape_edit_request",
            Message::ShapeEditRequest { request: 9, shape: EditShape::Rect { a: [3, 40], b: [-2, 44] }, block: 3 },
        ),
        (
            "shape_edit_applied",
            Message::ShapeEditApplied {
                order: 4,
                player: 1,
                request: 9,
                shape: EditShape::Circle { center: [3_000_000, 12], radius: 2.5 },
                block: 0,
            },
        ),
        ("subscribe", Message::SubscribeChunk { chunk }),
        ("chunk_edits", Message::ChunkEdits { chunk, order: 2, edits: vec![(0, 1), (5, 2), (32767, 4)] }),
        ("player_state", Message::PlayerState { player: 2, tick: 40, pose }),
        ("pose_correction", Message::PoseCorrection { tick: 41, pose }),
        ("chunk_released", Message::ChunkReleased { chunk: ChunkCoord::new(1, 2, -3) }),
        ("player_joined", Message::PlayerJoined { player: 2, name: "bob".into() }),
        ("player_left", Message::PlayerLeft { player: 2 }),
        ("chat", Message::Chat { player: 2, text: "hello there".into() }),
        (
            "chunk_entities",
            Message::ChunkEntities {
                chunk: ChunkCoord::default(),
                removed_spawns: vec![1, 5, 9],
                records: vec![record],
            },
        ),
        ("shared_state", shared_state_message()),
        ("shared_state_set", Message::SharedStateSet { key: "gate".into(), value: value.clone() }),
        ("shared_state_erase", Message::SharedStateSet { key: "gate".into(), value: None }),
        ("shared_state_request", Message::SharedStateRequest { key: "weather".into(), value }),
        ("shared_state_refused", Message::SharedStateRefused { key: "weather".into(), reason: "host only".into() }),
    ];
    all.into_iter().map(|(n, m)| (format!("{n}.bin"), m)).collect()
}

fn welcome(preset: &WorldPreset) -> Message {
    Message::Welcome {
        protocol: PROTOCOL_VERSION,
        player: 1,
        preset: preset_to_sparse_ron(preset),
        fingerprint: fingerprint(preset),
        structures: String::new(),
        next_order: 0,
        block_count: default_library().len() as u32,
        view: ViewRadius::default(),
        shape: WorldShape::Voxels,
    }
}

fn shared_state() -> SharedState {
    let entries = [
        ("door", SharedValue::Bool(true)),
        ("score", SharedValue::Int(-42)),
        ("time_of_day", SharedValue::Float(0.625)),
        ("weather", SharedValue::Text("storm".into())),
        ("wind", SharedValue::Vector2([0.5, -1.0])),
        ("gate", SharedValue::Vector3([1.0, 64.0, -9.5])),
        ("blob", SharedValue::Bytes(vec![0, 255, 7])),
    ];
    SharedState::from_entries(entries.into_iter().map(|(k, v)| (k.to_string(), v))).unwrap_or_default()
}

fn shared_state_message() -> Message {
    Message::SharedState { entries: shared_state().iter().map(|(k, v)| (k.to_string(), v.clone())).collect() }
}

fn shared_state_text() -> String {
    shared_state().iter().map(|(k, v)| format!("{k}={}\n", v.to_text())).collect()
}

/// A server's sessions: two players join, edit, move, chat, subscribe and ask for state.
fn server_sessions() -> Vec<Seed> {
    let hello = |name: &str| Message::Hello { protocol: PROTOCOL_VERSION, name: name.into() }.encode();
    let pose = Message::PlayerState { player: 0, tick: 1, pose: Pose::standing([0.0, 70.0, 0.0], 0.0, 0.0) };
    let packets = [
        hello("alice"),
        pose.encode(),
        Message::EditRequest { request: 1, pos: IVec3::new(1, 68, 1), block: 1 }.encode(),
        Message::SubscribeChunk { chunk: ChunkCoord::default() }.encode(),
        Message::Chat { player: 0, text: "hi".into() }.encode(),
        Message::SharedStateRequest { key: "weather".into(), value: Some(SharedValue::Text("rain".into())) }.encode(),
    ];
    let mut one: Vec<(u8, &[u8])> = packets.iter().map(|p| (0u8, p.as_slice())).collect();
    let bob = hello("bob");
    let two_extra: [(u8, &[u8]); 5] = [(8, &bob), (8, &packets[2]), (5, &[]), (6, &[1, 2]), (4 | 8, &[])];
    let mut two = one.clone();
    two.extend_from_slice(&two_extra);
    one.push((7, &[1]));
    one.push((5, &[]));
    vec![seed("one_player.ops", frame_ops(&one)), seed("two_players.ops", frame_ops(&two))]
}

/// A client's session: welcome, state, then what a server sends in play.
fn client_sessions() -> Vec<Seed> {
    let msgs = messages();
    let welcome = welcome(&WorldPreset::default()).encode();
    let mut session: Vec<Vec<u8>> = vec![welcome.clone()];
    session.extend(
        msgs.iter()
            .filter(|(_, m)| !m.is_from_client() && !matches!(m, Message::Welcome { .. } | Message::Refused { .. }))
            .map(|(_, m)| m.encode()),
    );
    let ops: Vec<(u8, &[u8])> = session.iter().enumerate().map(|(i, p)| ((i as u8) << 1 | 1, p.as_slice())).collect();
    let refused = Message::Refused { reason: "full".into() }.encode();
    // The same session as the server sends it: batches of at most 256 bytes.
    let batches = pack_batches(session.clone(), 256);
    let batched: Vec<(u8, &[u8])> = batches.iter().map(|p| (1, p.as_slice())).collect();
    vec![
        seed("session.ops", frame_ops(&ops)),
        seed("batched.ops", frame_ops(&batched)),
        seed("refused.ops", frame_ops(&[(0, &welcome), (0, &refused)])),
    ]
}

/// Saves in each format the writer makes: bare, with edits and state, with entities, and with
/// pending water flows (format 4).
fn saves() -> Vec<Seed> {
    let mut edited = WorldSave::default();
    for (i, p) in [IVec3::new(0, 64, 0), IVec3::new(1, 64, 0), IVec3::new(-40, 3, 90)].into_iter().enumerate() {
        edited.edits.set(p, (i + 1) as u16);
    }
    edited.state.insert("time_of_day".into(), "0.25".into());
    edited.state.extend(shared_state().to_save_entries());
    let mut entities = edited.clone();
    let c = ChunkCoord::default();
    entities.entities.remove_spawn(c, 4);
    entities.entities.remove_scatter(c, 17);
    entities.entities.push_record(EntityRecord {
        scene: RECORD_SCENES[1].into(),
        position: [3.0, 4.0, 5.0],
        rotation: EntityRecord::NO_ROTATION,
        scale: EntityRecord::NO_SCALE,
        state: vec![9],
    });
    let mut flows = entities.clone();
    flows.pending_flows.push(PendingFlow {
        flows: true,
        changes: vec![VoxelChange { pos: IVec3::new(0, 64, 0), before: None, after: Some(1) }],
    });
    [("bare", WorldSave::default()), ("edits", edited), ("entities", entities), ("flows", flows)]
        .into_iter()
        .filter_map(|(n, s)| Some(seed(&format!("{n}.strata"), encode_world_save(&s, n, SaveOptions::default()).ok()?)))
        .collect()
}

/// The committed save fixtures of older formats.
fn fixture_saves() -> Vec<Seed> {
    vec![
        seed("v1_default.strata", &include_bytes!("../../../tests/fixtures/format1/default_world.strata")[..]),
        seed("v1_life.strata", &include_bytes!("../../../tests/fixtures/format1/life_world.strata")[..]),
        seed("good_small.strata", &include_bytes!("../../../tests/corpus/save/good_small.strata")[..]),
    ]
}

/// A save's version and decompressed payload, as [`crate::persist::save_payload`] reads them.
fn payload_seed(file: &[u8]) -> Vec<u8> {
    let version = file.get(8).copied().unwrap_or(1);
    let mut out = vec![version.wrapping_sub(1)];
    let _ = flate2::read::DeflateDecoder::new(file.get(HEADER_BYTES..).unwrap_or_default()).read_to_end(&mut out);
    out
}

/// A journal of `n` records for [`JOURNAL_WORLD`], the first numbered `first`.
fn journal(n: i32, first: u64) -> Vec<u8> {
    let mut out = b"STRATAJL".to_vec();
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&first.to_le_bytes());
    out.extend_from_slice(&JOURNAL_WORLD.to_le_bytes());
    for i in 0..n {
        let start = out.len();
        for v in [i, 64 - i, -i * 1000] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(i as u16 + 1).to_le_bytes());
        let crc = crc32fast::hash(&out[start..]);
        out.extend_from_slice(&crc.to_le_bytes());
    }
    out
}

fn records() -> Vec<Seed> {
    let plain = EntityRecord {
        scene: RECORD_SCENES[0].into(),
        position: [1.0, 2.0, 3.0],
        rotation: EntityRecord::NO_ROTATION,
        scale: EntityRecord::NO_SCALE,
        state: Vec::new(),
    };
    let full = EntityRecord {
        scene: RECORD_SCENES[2].into(),
        position: [31.5, 0.0, 16.0],
        rotation: [0.0, 0.0, 0.8, 0.6],
        scale: [0.5, 0.5, 0.5],
        state: b"\x02\x00\x00\x00\x05\x00\x00\x00".to_vec(),
    };
    [("plain.rec", plain), ("full.rec", full)]
        .into_iter()
        .map(|(n, r)| {
            let mut out = Vec::new();
            put_record(&mut out, &RECORD_SCENES, RECORD_CHUNK, &r);
            seed(n, out)
        })
        .collect()
}

fn presets() -> Vec<(String, WorldPreset)> {
    let default = WorldPreset::default();
    let mut seeded = default.clone();
    seeded.seed = 123_456_789;
    seeded.name = "seeded".into();
    vec![("default".into(), default), ("format1".into(), WorldPreset::format1_default()), ("seeded".into(), seeded)]
}

/// World codes as typed, and the body of one (what the harness frames with a checksum).
fn world_codes() -> Vec<Seed> {
    let base = WorldPreset::default();
    let mut out = Vec::new();
    for (n, p) in presets() {
        if let Ok(code) = encode_world_code(&p, "", &base) {
            out.push(seed(&format!("{n}.txt"), code.as_bytes()));
            if let Some(body) = base64url_decode(code.trim_start_matches("strata2-")).get(4..) {
                out.push(seed(&format!("{n}.body"), body));
            }
        }
    }
    out.push(seed("v1_fixture.txt", &include_bytes!("../../../tests/fixtures/format1/world_codes.txt")[..]));
    out
}

fn base64url_decode(text: &str) -> Vec<u8> {
    let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            _ => 63,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// A small grayscale PNG of `depth` bits.
fn png(depth: BitDepth) -> Vec<u8> {
    let (w, h) = (5u32, 4u32);
    let data: Vec<u8> = match depth {
        BitDepth::Sixteen => (0..w * h).flat_map(|i| ((i * 3000) as u16).to_be_bytes()).collect(),
        _ => (0..w * h).map(|i| (i * 12) as u8).collect(),
    };
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(depth);
    if let Ok(mut writer) = enc.write_header() {
        let _ = writer.write_image_data(&data);
        let _ = writer.finish();
    }
    out
}

/// A 6 × 4 grid in two components.
fn spca() -> Vec<u8> {
    let (rows, cols) = (6, 4);
    let data: Vec<f64> = (0..rows * cols).map(|i| 100.0 + ((i * 7) % 11) as f64 * 1.5 + (i / cols) as f64).collect();
    let model = Pca::fit(rows, cols, &data).ok().and_then(|pca| PcaModel::new(&pca, &data, 2, 30.0).ok());
    model.map(|m| m.to_bytes()).unwrap_or_default()
}

/// A small structure of a few blocks, air and kept cells, and the demo's watchtower.
fn vox() -> Vec<Seed> {
    let size = IVec3::new(3, 4, 2);
    let cells: Vec<u16> = (0..24).map(|i| [1, 2, 0, KEEP, 3][i % 5]).collect();
    let mut out = Vec::new();
    if let Ok(t) = StructureTemplate::new("small", size, cells) {
        out.push(seed("small.vox", t.to_vox_bytes(default_library()).0));
    }
    out.push(seed("watchtower.vox", &include_bytes!("../../../godot_project/game/structures/watchtower.vox")[..]));
    out
}
