//! The block library: the block types a game defines (name, textures per face, fallback colour,
//! how it is drawn, collision, light), checked once when built, with dense per-id tables for the
//! hot paths.
//!
//! A voxel stores a [`BlockId`], an index into a [`BlockLibrary`]. Ids belong to one library;
//! names are what stays stable across libraries, so saves store names
//! (`persist/save.rs` remaps by name on load) and a library's [`BlockLibrary::fingerprint`]
//! tells when a library changed.
//!
//! [`BlockLibrary::default`] is the built-in library: the blocks of [`crate::base::block`] at the
//! same ids `0..BLOCK_COUNT` (so every existing world, golden hash and save stays bit-identical),
//! then the demo's blocks (`torch`, `glass`, `leaves`, `log`, `planks`).
//!
//! May use: the other `base` modules, `std` and the crates in `Cargo.toml`; nothing else in this crate.

use crate::base::block::{AIR, BLOCK_COUNT, BlockId, block_info};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::OnceLock;
use thiserror::Error;

/// Most blocks in one library (ids `0..=65_534`).
pub const MAX_BLOCKS: usize = 65_535;
/// Longest block name, in bytes.
pub const MAX_BLOCK_NAME_BYTES: usize = 64;
/// Largest light level a block may emit, and the most light a block may remove.
pub const MAX_LIGHT: u8 = 15;

/// Ids of the demo blocks of [`BlockLibrary::default`], after the built-in blocks.
pub const TORCH: BlockId = BLOCK_COUNT;
pub const GLASS: BlockId = BLOCK_COUNT + 1;
pub const LEAVES: BlockId = BLOCK_COUNT + 2;
pub const LOG: BlockId = BLOCK_COUNT + 3;
pub const PLANKS: BlockId = BLOCK_COUNT + 4;

/// How a block is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RenderMode {
    /// Fully covers its faces (stone, dirt).
    Opaque,
    /// Alpha-tested (leaves, torch): faces between two cutout blocks of the same type are still
    /// drawn, because each shows through the other's holes, unless the block says
    /// [`BlockDef::hide_faces_between_same`].
    Cutout,
    /// Blended and sorted (glass, ice).
    Transparent,
    /// The liquid surface (water).
    Liquid,
}

/// One face of a block, in the mesher's direction order (`FACE_NORMALS`): `+x, -x, +y, -y, +z,
/// -z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Face {
    PosX,
    NegX,
    PosY,
    NegY,
    PosZ,
    NegZ,
}

impl Face {
    /// All six, in direction order.
    pub const ALL: [Face; 6] = [Face::PosX, Face::NegX, Face::PosY, Face::NegY, Face::PosZ, Face::NegZ];

    /// The face of direction index `d` (`0..6`, the mesher's order); `None` beyond.
    pub fn from_direction(d: usize) -> Option<Face> {
        Self::ALL.get(d).copied()
    }

    /// This face's direction index (`0..6`).
    pub fn direction(self) -> usize {
        self as usize
    }
}

/// The texture names of a block's faces. Names are plain strings; the engine layer maps them to
/// texture layers. An empty name means "no texture: use the block's colour".
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BlockFaces {
    /// One texture on every face.
    All(String),
    /// `top` on `+y`, `bottom` on `-y`, `side` on the four others (grass, logs).
    TopSideBottom { top: String, side: String, bottom: String },
    /// One texture per face, in [`Face::ALL`] order: `+x, -x, +y, -y, +z, -z`.
    Each([String; 6]),
}

impl BlockFaces {
    /// The texture name of `face`.
    pub fn texture_for_face(&self, face: Face) -> &str {
        match self {
            BlockFaces::All(t) => t,
            BlockFaces::TopSideBottom { top, side, bottom } => match face {
                Face::PosY => top,
                Face::NegY => bottom,
                _ => side,
            },
            BlockFaces::Each(t) => &t[face.direction()],
        }
    }
}

/// Which climate colour map tints a face ([`BlockDef::tint`]). A tinted face's texture (or
/// colour) is multiplied by the colour map's tint at its column's temperature and moisture
/// (`gen3d::climate_tint`), which is 1 at the reference climate, so a block looks as authored
/// where the climate is average.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tint {
    /// Drawn as authored.
    #[default]
    None,
    /// The grass colour map (grass tops, tall grass).
    Grass,
    /// The foliage colour map (leaves, bushes).
    Foliage,
}

impl Tint {
    /// All three, in the order of their numbers (`None` = 0, `Grass` = 1, `Foliage` = 2: the
    /// block shaders' and the Godot enum's values).
    pub const ALL: [Tint; 3] = [Tint::None, Tint::Grass, Tint::Foliage];
    /// The allowed names, for messages.
    pub const NAMES: &'static str = "None, Grass, Foliage";

    /// The tint of number `n` (see [`Tint::ALL`]); `None` for another number.
    pub fn from_number(n: i64) -> Option<Tint> {
        usize::try_from(n).ok().and_then(|i| Self::ALL.get(i).copied())
    }

    /// This tint's number (see [`Tint::ALL`]).
    pub fn number(self) -> u8 {
        self as u8
    }
}

/// The tint of a block's faces by kind: `top` on `+y`, `bottom` on `-y`, `side` on the four
/// others. Each defaults to [`Tint::None`], so a library written before tints existed (no `tint`
/// field, or a `tint` naming only some faces) keeps its look. In RON: `tint: (top: Grass)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FaceTints {
    pub top: Tint,
    pub side: Tint,
    pub bottom: Tint,
}

impl FaceTints {
    /// No face tinted.
    pub const NONE: FaceTints = FaceTints { top: Tint::None, side: Tint::None, bottom: Tint::None };

    /// Every face tinted by `tint`.
    pub const fn all(tint: Tint) -> Self {
        FaceTints { top: tint, side: tint, bottom: tint }
    }

    /// The tint of `face`.
    pub fn for_face(self, face: Face) -> Tint {
        match face {
            Face::PosY => self.top,
            Face::NegY => self.bottom,
            _ => self.side,
        }
    }

    /// Whether no face is tinted.
    pub fn is_none(&self) -> bool {
        *self == Self::NONE
    }
}

/// One block type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockDef {
    /// Stable name, what saves store: `[a-z0-9_]+`, at most [`MAX_BLOCK_NAME_BYTES`] bytes,
    /// unique in its library (case-sensitive).
    pub name: String,
    pub faces: BlockFaces,
    /// Fallback colour (linear RGB), used where a face has no texture.
    pub color: [f32; 3],
    pub render_mode: RenderMode,
    /// Solid blocks stop the player and hide the faces of their neighbours.
    pub solid: bool,
    /// Light the block gives off, `0..=15`.
    pub light_emission: u8,
    /// Light levels the block removes from light passing through it, on top of the one level
    /// every step costs: `0` for air and glass, 1–2 for leaves and water, [`MAX_LIGHT`] stops
    /// light (opaque blocks).
    pub light_opacity: u8,
    /// Hide the faces between two voxels of this block ("fast leaves"): a crown is then drawn as
    /// its outer shell, not as every leaf cube. Matters for [`RenderMode::Cutout`] blocks only
    /// (transparent and liquid blocks always hide the faces between two of their own, solid
    /// opaque blocks hide every face against them). On for `leaves` in the default library.
    #[serde(default)]
    pub hide_faces_between_same: bool,
    /// Which faces the climate tints, and by which colour map ([`FaceTints`]); none when left
    /// out. In the default library: the grass top (grass map) and every face of leaves
    /// (foliage map).
    #[serde(default, skip_serializing_if = "FaceTints::is_none")]
    pub tint: FaceTints,
}

/// Why a list of blocks is not a valid library. Each names the block index, the field, the value
/// and what is allowed (law: Clear errors).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BlockLibraryError {
    #[error("block library: block {index} ({name}): {field} is {value}; allowed: {allowed}")]
    Field {
        /// The block's id.
        index: usize,
        /// The block's name as given, quoted (or `no name`).
        name: String,
        /// `name`, `light_emission`, `color`, …
        field: &'static str,
        value: String,
        allowed: String,
    },
    #[error(
        "block library: block {index}: name \"{name}\" is already the name of block {first}; allowed: each name once (names are case-sensitive)"
    )]
    DuplicateName { index: usize, first: usize, name: String },
    #[error("block library: {count} blocks; allowed: 1..={MAX_BLOCKS} blocks, block 0 being \"air\"")]
    Count { count: usize },
}

/// An ordered, validated set of block types: the block with id `i` is `blocks()[i]`; id 0 is
/// `air`. Built only through [`BlockLibrary::new`] (or serde, which calls it), so its lookup
/// tables always agree with its blocks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<BlockDef>", into = "Vec<BlockDef>")]
pub struct BlockLibrary {
    blocks: Vec<BlockDef>,
    by_name: HashMap<String, BlockId>,
    solid: Vec<bool>,
    emission: Vec<u8>,
    opacity: Vec<u8>,
}

/// Whether `name` is a valid block name: `[a-z0-9_]+`, at most [`MAX_BLOCK_NAME_BYTES`] bytes.
pub fn is_valid_block_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_BLOCK_NAME_BYTES
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// At most 40 characters of `s`, quoted, for messages.
fn quoted(s: &str) -> String {
    let mut t: String = s.chars().take(40).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    format!("{t:?}")
}

fn validate(blocks: &[BlockDef]) -> Result<(), BlockLibraryError> {
    if blocks.is_empty() || blocks.len() > MAX_BLOCKS {
        return Err(BlockLibraryError::Count { count: blocks.len() });
    }
    let mut first_of: HashMap<&str, usize> = HashMap::with_capacity(blocks.len());
    for (index, b) in blocks.iter().enumerate() {
        let field = |field: &'static str, value: String, allowed: String| BlockLibraryError::Field {
            index,
            name: if b.name.is_empty() { "no name".into() } else { quoted(&b.name) },
            field,
            value,
            allowed,
        };
        if !is_valid_block_name(&b.name) {
            let value = if b.name.is_empty() {
                "empty".into()
            } else if b.name.len() > MAX_BLOCK_NAME_BYTES {
                format!("{} bytes long", b.name.len())
            } else {
                quoted(&b.name)
            };
            return Err(field("name", value, format!("1..={MAX_BLOCK_NAME_BYTES} characters of a-z, 0-9 and _")));
        }
        if let Some(&first) = first_of.get(b.name.as_str()) {
            return Err(BlockLibraryError::DuplicateName { index, first, name: b.name.clone() });
        }
        first_of.insert(&b.name, index);
        if b.light_emission > MAX_LIGHT {
            return Err(field("light_emission", b.light_emission.to_string(), format!("0..={MAX_LIGHT}")));
        }
        if b.light_opacity > MAX_LIGHT {
            return Err(field(
                "light_opacity",
                b.light_opacity.to_string(),
                format!("0..={MAX_LIGHT} ({MAX_LIGHT} stops light)"),
            ));
        }
        if let Some(c) = b.color.iter().position(|v| !v.is_finite()) {
            return Err(field(
                "color",
                format!("{:?} (channel {c} is {})", b.color, b.color[c]),
                "finite numbers (linear RGB)".into(),
            ));
        }
        if index == AIR as usize {
            let air = |field_name, value: String| {
                field(field_name, value, "block 0 is \"air\": not solid, light_emission 0, light_opacity 0".into())
            };
            if b.name != "air" {
                return Err(air("name", quoted(&b.name)));
            }
            if b.solid {
                return Err(air("solid", "true".into()));
            }
            if b.light_emission != 0 {
                return Err(air("light_emission", b.light_emission.to_string()));
            }
            if b.light_opacity != 0 {
                return Err(air("light_opacity", b.light_opacity.to_string()));
            }
        }
    }
    Ok(())
}

impl BlockLibrary {
    /// A library of `blocks` (block `i` gets id `i`), after [`BlockLibrary::validate`]'s checks.
    pub fn new(blocks: Vec<BlockDef>) -> Result<Self, BlockLibraryError> {
        validate(&blocks)?;
        let by_name = blocks.iter().enumerate().map(|(i, b)| (b.name.clone(), i as BlockId)).collect();
        let solid = blocks.iter().map(|b| b.solid).collect();
        let emission = blocks.iter().map(|b| b.light_emission).collect();
        let opacity = blocks.iter().map(|b| b.light_opacity).collect();
        Ok(Self { blocks, by_name, solid, emission, opacity })
    }

    /// Checks a list of blocks as [`BlockLibrary::new`] does: 1..=[`MAX_BLOCKS`] blocks; names
    /// `[a-z0-9_]+`, at most [`MAX_BLOCK_NAME_BYTES`] bytes, unique; `light_emission` and
    /// `light_opacity` at most [`MAX_LIGHT`]; finite colours; block 0 is `air` (not solid, no
    /// light emitted or removed). The first problem found is returned.
    pub fn validate(blocks: &[BlockDef]) -> Result<(), BlockLibraryError> {
        validate(blocks)
    }

    /// The blocks, in id order.
    pub fn blocks(&self) -> &[BlockDef] {
        &self.blocks
    }

    /// The blocks, in id order, for editing and building a new library.
    pub fn into_blocks(self) -> Vec<BlockDef> {
        self.blocks
    }

    /// Number of blocks (ids are `0..len()`).
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Always false: a library holds at least air.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The id of the block named `name` (case-sensitive).
    pub fn id_of(&self, name: &str) -> Option<BlockId> {
        self.by_name.get(name).copied()
    }

    /// The name of block `id`.
    pub fn name_of(&self, id: BlockId) -> Option<&str> {
        self.get(id).map(|b| b.name.as_str())
    }

    /// The block with id `id`.
    pub fn get(&self, id: BlockId) -> Option<&BlockDef> {
        self.blocks.get(id as usize)
    }

    /// `solid` of every id, indexed by id.
    pub fn solid_table(&self) -> &[bool] {
        &self.solid
    }

    /// `light_emission` of every id, indexed by id.
    pub fn emission_table(&self) -> &[u8] {
        &self.emission
    }

    /// `light_opacity` of every id, indexed by id.
    pub fn opacity_table(&self) -> &[u8] {
        &self.opacity
    }

    /// A stable 64-bit FNV-1a hash of every block in id order (every field: name, faces,
    /// colour bits, render mode, solidity, light, face hiding, tints where any face has one), so that a preset or save can tell that the
    /// library it was made with has changed. The same blocks give the same value on every
    /// machine and in every build.
    pub fn fingerprint(&self) -> u64 {
        let mut h = Fnv::new();
        h.u64(self.blocks.len() as u64);
        for b in &self.blocks {
            h.str(&b.name);
            match &b.faces {
                BlockFaces::All(t) => {
                    h.u8(0);
                    h.str(t);
                }
                BlockFaces::TopSideBottom { top, side, bottom } => {
                    h.u8(1);
                    for t in [top, side, bottom] {
                        h.str(t);
                    }
                }
                BlockFaces::Each(ts) => {
                    h.u8(2);
                    for t in ts {
                        h.str(t);
                    }
                }
            }
            for c in b.color {
                h.u64(c.to_bits() as u64);
            }
            h.u8(match b.render_mode {
                RenderMode::Opaque => 0,
                RenderMode::Cutout => 1,
                RenderMode::Transparent => 2,
                RenderMode::Liquid => 3,
            });
            h.u8(b.solid as u8);
            h.u8(b.light_emission);
            h.u8(b.light_opacity);
            h.u8(b.hide_faces_between_same as u8);
            // Hashed only when set, so libraries without tints keep their fingerprints.
            if !b.tint.is_none() {
                h.u8(0x7a);
                for t in [b.tint.top, b.tint.side, b.tint.bottom] {
                    h.u8(t.number());
                }
            }
        }
        h.0
    }
}

/// FNV-1a, 64-bit; strings are length-prefixed so that field boundaries are part of the hash.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn u8(&mut self, v: u8) {
        self.bytes(&[v]);
    }

    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }
}

impl TryFrom<Vec<BlockDef>> for BlockLibrary {
    type Error = BlockLibraryError;

    fn try_from(blocks: Vec<BlockDef>) -> Result<Self, Self::Error> {
        Self::new(blocks)
    }
}

impl From<BlockLibrary> for Vec<BlockDef> {
    fn from(library: BlockLibrary) -> Self {
        library.blocks
    }
}

/// The built-in blocks (ids `0..BLOCK_COUNT`, exactly [`block_info`]'s) and then the demo's.
fn default_blocks() -> Vec<BlockDef> {
    let mut blocks: Vec<BlockDef> = (0..BLOCK_COUNT)
        .map(|id| {
            let info = block_info(id);
            let faces = match info.name {
                "air" => BlockFaces::All(String::new()),
                "grass" => BlockFaces::TopSideBottom {
                    top: "grass_top".into(),
                    side: "grass_side".into(),
                    bottom: "dirt".into(),
                },
                name => BlockFaces::All(name.into()),
            };
            let render_mode = match () {
                _ if info.liquid => RenderMode::Liquid,
                _ if id == AIR => RenderMode::Transparent,
                _ => RenderMode::Opaque,
            };
            let light_opacity = match () {
                _ if info.solid => MAX_LIGHT,
                // Water dims light one extra step a voxel (Minecraft's water).
                _ if info.liquid => 1,
                _ => 0,
            };
            BlockDef {
                name: info.name.into(),
                faces,
                color: info.color,
                render_mode,
                solid: info.solid,
                light_emission: 0,
                light_opacity,
                hide_faces_between_same: false,
                // Grass tops follow the climate (the grass side's green edge stays as drawn: the
                // tint would colour its dirt too).
                tint: if info.name == "grass" {
                    FaceTints { top: Tint::Grass, ..FaceTints::NONE }
                } else {
                    FaceTints::NONE
                },
            }
        })
        .collect();
    let def = |name: &str, faces: BlockFaces, color, render_mode, solid, light_emission, light_opacity| BlockDef {
        name: name.into(),
        faces,
        color,
        render_mode,
        solid,
        light_emission,
        light_opacity,
        hide_faces_between_same: false,
        tint: FaceTints::NONE,
    };
    let all = |t: &str| BlockFaces::All(t.into());
    blocks.extend([
        // A torch is drawn alpha-tested and walked through.
        def("torch", all("torch"), [1.0, 0.78, 0.35], RenderMode::Cutout, false, 14, 0),
        def("glass", all("glass"), [0.85, 0.92, 0.95], RenderMode::Transparent, true, 0, 0),
        // Leaves hide the faces between two leaves: a crown is drawn as its shell.
        BlockDef {
            hide_faces_between_same: true,
            tint: FaceTints::all(Tint::Foliage),
            ..def("leaves", all("leaves"), [0.20, 0.50, 0.15], RenderMode::Cutout, true, 0, 1)
        },
        def(
            "log",
            BlockFaces::TopSideBottom { top: "log_top".into(), side: "log_side".into(), bottom: "log_top".into() },
            [0.42, 0.30, 0.17],
            RenderMode::Opaque,
            true,
            0,
            MAX_LIGHT,
        ),
        def("planks", all("planks"), [0.70, 0.55, 0.33], RenderMode::Opaque, true, 0, MAX_LIGHT),
    ]);
    blocks
}

impl Default for BlockLibrary {
    /// The built-in library: the blocks of [`crate::base::block`] at ids `0..BLOCK_COUNT`, then
    /// `torch`, `glass`, `leaves`, `log` and `planks` ([`TORCH`]…[`PLANKS`]).
    fn default() -> Self {
        default_library().clone()
    }
}

/// The built-in library ([`BlockLibrary::default`]), built once.
pub fn default_library() -> &'static BlockLibrary {
    static DEFAULT: OnceLock<BlockLibrary> = OnceLock::new();
    DEFAULT.get_or_init(|| {
        // A constant list, checked by the tests below: it cannot fail.
        BlockLibrary::new(default_blocks()).expect("the built-in blocks form a valid library")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::{is_liquid, is_solid};

    fn block(name: &str) -> BlockDef {
        BlockDef {
            name: name.into(),
            faces: BlockFaces::All(name.into()),
            color: [0.5, 0.5, 0.5],
            render_mode: RenderMode::Opaque,
            solid: true,
            light_emission: 0,
            light_opacity: MAX_LIGHT,
            hide_faces_between_same: false,
            tint: FaceTints::NONE,
        }
    }

    fn air() -> BlockDef {
        BlockDef { solid: false, light_opacity: 0, render_mode: RenderMode::Transparent, ..block("air") }
    }

    /// The error of `blocks`, as text, after checking it names every `needles`.
    fn refused(blocks: Vec<BlockDef>, needles: &[&str]) -> BlockLibraryError {
        let e = BlockLibrary::new(blocks).unwrap_err();
        let m = e.to_string();
        for n in needles {
            assert!(m.contains(n), "missing {n:?} in: {m}");
        }
        assert!(m.contains("allowed"), "{m}");
        e
    }

    #[test]
    fn default_library_keeps_the_built_in_blocks_at_their_ids() {
        let lib = BlockLibrary::default();
        assert!(lib.len() == BLOCK_COUNT as usize + 5);
        for id in 0..BLOCK_COUNT {
            let (info, def) = (block_info(id), lib.get(id).unwrap());
            assert_eq!(def.name, info.name);
            assert_eq!(def.color, info.color, "{}", info.name);
            assert_eq!(def.solid, is_solid(id), "{}", info.name);
            assert_eq!(def.render_mode == RenderMode::Liquid, is_liquid(id), "{}", info.name);
            assert_eq!(lib.id_of(info.name), Some(id));
            assert_eq!(lib.solid_table()[id as usize], is_solid(id));
            assert_eq!(def.light_emission, 0);
        }
        for (id, name) in [(TORCH, "torch"), (GLASS, "glass"), (LEAVES, "leaves"), (LOG, "log"), (PLANKS, "planks")] {
            assert_eq!(lib.name_of(id), Some(name));
            assert_eq!(lib.id_of(name), Some(id));
        }
        let torch = lib.get(TORCH).unwrap();
        assert!(!torch.solid && torch.render_mode == RenderMode::Cutout && torch.light_emission == 14);
        assert_eq!(lib.get(GLASS).unwrap().render_mode, RenderMode::Transparent);
        assert_eq!(lib.opacity_table()[GLASS as usize], 0);
        assert_eq!(lib.get(LEAVES).unwrap().render_mode, RenderMode::Cutout);
        assert_eq!(lib.emission_table()[TORCH as usize], 14);
        assert_eq!(lib.opacity_table()[crate::base::block::STONE as usize], MAX_LIGHT);
        assert_eq!(lib.opacity_table()[AIR as usize], 0);
        assert_eq!(lib.solid_table().len(), lib.len());
        assert_eq!(lib.emission_table().len(), lib.len());
        assert_eq!(lib.opacity_table().len(), lib.len());
        assert_eq!(lib, *default_library());
    }

    #[test]
    fn textures_per_face() {
        let lib = BlockLibrary::default();
        let grass = &lib.get(crate::base::block::GRASS).unwrap().faces;
        assert_eq!(grass.texture_for_face(Face::PosY), "grass_top");
        assert_eq!(grass.texture_for_face(Face::NegY), "dirt");
        for f in [Face::PosX, Face::NegX, Face::PosZ, Face::NegZ] {
            assert_eq!(grass.texture_for_face(f), "grass_side");
        }
        let log = &lib.get(LOG).unwrap().faces;
        assert_eq!((log.texture_for_face(Face::PosY), log.texture_for_face(Face::PosZ)), ("log_top", "log_side"));
        for f in Face::ALL {
            assert_eq!(lib.get(crate::base::block::STONE).unwrap().faces.texture_for_face(f), "stone");
        }
        let each = BlockFaces::Each(["px", "nx", "py", "ny", "pz", "nz"].map(String::from));
        let got: Vec<&str> = Face::ALL.iter().map(|&f| each.texture_for_face(f)).collect();
        assert_eq!(got, ["px", "nx", "py", "ny", "pz", "nz"]);
        for d in 0..6 {
            assert_eq!(Face::from_direction(d).map(Face::direction), Some(d));
        }
        assert_eq!(Face::from_direction(6), None);
    }

    #[test]
    fn lookups() {
        let lib = BlockLibrary::new(vec![air(), block("marble"), block("basalt_2")]).unwrap();
        assert_eq!(lib.len(), 3);
        assert!(!lib.is_empty());
        assert_eq!(lib.id_of("basalt_2"), Some(2));
        assert_eq!(lib.id_of("Marble"), None, "names are case-sensitive");
        assert_eq!(lib.id_of("stone"), None);
        assert_eq!(lib.name_of(1), Some("marble"));
        assert_eq!(lib.name_of(3), None);
        assert!(lib.get(3).is_none());
        assert_eq!(lib.solid_table(), &[false, true, true]);
        assert_eq!(lib.blocks()[2].name, "basalt_2");
    }

    #[test]
    fn validation_names_the_index_field_value_and_what_is_allowed() {
        refused(vec![air(), block("")], &["block 1", "name is empty", "a-z, 0-9 and _"]);
        refused(vec![air(), block("Stone")], &["block 1", "name", "\"Stone\"", "a-z, 0-9 and _"]);
        refused(vec![air(), block("red sand")], &["block 1", "\"red sand\""]);
        refused(vec![air(), block(&"a".repeat(65))], &["block 1", "name", "65 bytes long", "1..=64"]);
        assert!(BlockLibrary::new(vec![air(), block(&"a".repeat(64))]).is_ok());
        let e =
            refused(vec![air(), block("stone"), block("dirt"), block("stone")], &["block 3", "\"stone\"", "block 1"]);
        assert_eq!(e, BlockLibraryError::DuplicateName { index: 3, first: 1, name: "stone".into() });
        assert!(BlockLibrary::new(vec![air(), block("stone"), block("stone_2")]).is_ok());
        refused(
            vec![air(), BlockDef { light_emission: 16, ..block("lamp") }],
            &["block 1", "\"lamp\"", "light_emission is 16", "0..=15"],
        );
        refused(
            vec![air(), BlockDef { light_opacity: 200, ..block("fog") }],
            &["block 1", "light_opacity is 200", "0..=15"],
        );
        refused(
            vec![air(), BlockDef { color: [0.1, f32::NAN, 0.3], ..block("odd") }],
            &["block 1", "color", "NaN", "finite"],
        );
        refused(
            vec![air(), block("a"), BlockDef { color: [f32::INFINITY, 0.0, 0.0], ..block("b") }],
            &["block 2", "color", "inf"],
        );
        // Block 0 is air.
        refused(vec![block("stone"), air()], &["block 0", "name", "\"stone\"", "block 0 is \"air\""]);
        refused(vec![BlockDef { solid: true, ..air() }], &["block 0", "solid is true", "not solid"]);
        refused(vec![BlockDef { light_emission: 3, ..air() }], &["block 0", "light_emission is 3"]);
        refused(vec![BlockDef { light_opacity: 1, ..air() }], &["block 0", "light_opacity is 1"]);
        // Counts.
        refused(vec![], &["0 blocks", "1..=65535"]);
        let many: Vec<BlockDef> =
            std::iter::once(air()).chain((1..=MAX_BLOCKS).map(|i| block(&format!("b{i}")))).collect();
        refused(many, &["65536 blocks", "1..=65535"]);
        let most: Vec<BlockDef> =
            std::iter::once(air()).chain((1..MAX_BLOCKS).map(|i| block(&format!("b{i}")))).collect();
        let lib = BlockLibrary::new(most).unwrap();
        assert_eq!(lib.id_of("b65534"), Some(65_534));
        assert_eq!(BlockLibrary::validate(lib.blocks()), Ok(()));
    }

    #[test]
    fn fingerprint_changes_with_every_field_and_only_then() {
        let base = BlockLibrary::default();
        let fp = base.fingerprint();
        assert_eq!(fp, BlockLibrary::new(default_blocks()).unwrap().fingerprint(), "stable");
        // Pinned: the hash is the same in every build and on every machine.
        assert_eq!(fp, 0xd3bf_f683_3b15_8e57, "{fp:#018x}");
        // Tints are hashed only where set: without them, the library hashes as it did before
        // tints existed.
        let untinted: Vec<BlockDef> =
            base.clone().into_blocks().into_iter().map(|b| BlockDef { tint: FaceTints::NONE, ..b }).collect();
        assert_eq!(BlockLibrary::new(untinted).unwrap().fingerprint(), 0x05d1_2c01_3e28_d5e4);
        let changed = |f: &dyn Fn(&mut Vec<BlockDef>)| {
            let mut blocks = base.clone().into_blocks();
            f(&mut blocks);
            BlockLibrary::new(blocks).unwrap().fingerprint()
        };
        let variants: Vec<(&str, u64)> = vec![
            ("name", changed(&|b| b[1].name = "stone_2".into())),
            ("faces", changed(&|b| b[1].faces = BlockFaces::All("stone_2".into()))),
            (
                "faces kind",
                changed(&|b| {
                    b[1].faces =
                        BlockFaces::TopSideBottom { top: "stone".into(), side: "stone".into(), bottom: "stone".into() }
                }),
            ),
            ("color", changed(&|b| b[1].color[2] += 0.001)),
            ("render_mode", changed(&|b| b[1].render_mode = RenderMode::Cutout)),
            ("solid", changed(&|b| b[1].solid = false)),
            ("light_emission", changed(&|b| b[1].light_emission = 1)),
            ("light_opacity", changed(&|b| b[1].light_opacity = 3)),
            ("hide_faces_between_same", changed(&|b| b[1].hide_faces_between_same = true)),
            ("tint", changed(&|b| b[1].tint.side = Tint::Foliage)),
            ("tint kind", changed(&|b| b[1].tint.side = Tint::Grass)),
            ("tint off", changed(&|b| b[crate::base::block::GRASS as usize].tint = FaceTints::NONE)),
            ("order", changed(&|b| b.swap(1, 2))),
            ("one more", changed(&|b| b.push(block("marble")))),
            ("one less", changed(&|b| drop(b.pop()))),
        ];
        let mut seen = std::collections::HashSet::from([fp]);
        for (what, v) in variants {
            assert!(seen.insert(v), "changing {what} gives a fingerprint already seen");
        }
        // Rebuilding the same blocks does not change it.
        assert_eq!(changed(&|_| {}), fp);
        // Texture boundaries count: "ab" + "c" differs from "a" + "bc".
        let split = |a: &str, b: &str| {
            let mut blocks = vec![air()];
            blocks.push(BlockDef {
                faces: BlockFaces::TopSideBottom { top: a.into(), side: b.into(), bottom: String::new() },
                ..block("x")
            });
            BlockLibrary::new(blocks).unwrap().fingerprint()
        };
        assert_ne!(split("ab", "c"), split("a", "bc"));
    }

    /// `block("x")` in RON with `extra` fields after its others.
    fn ron_block(extra: &str) -> String {
        format!(
            "[(name: \"air\", faces: All(\"\"), color: (0.0, 0.0, 0.0), render_mode: Transparent, solid: false, \
             light_emission: 0, light_opacity: 0), (name: \"moss\", faces: All(\"moss\"), color: (0.2, 0.5, 0.2), \
             render_mode: Opaque, solid: true, light_emission: 0, light_opacity: 15{extra})]"
        )
    }

    #[test]
    fn tints_parse_per_face_kind_and_old_files_without_them_keep_no_tint() {
        let old: BlockLibrary = ron::from_str(&ron_block("")).unwrap();
        assert_eq!(old.get(1).unwrap().tint, FaceTints::NONE);
        let top: BlockLibrary = ron::from_str(&ron_block(", tint: (top: Grass)")).unwrap();
        assert_eq!(top.get(1).unwrap().tint, FaceTints { top: Tint::Grass, side: Tint::None, bottom: Tint::None });
        let all: BlockLibrary =
            ron::from_str(&ron_block(", tint: (top: Foliage, side: Foliage, bottom: Foliage)")).unwrap();
        assert_eq!(all.get(1).unwrap().tint, FaceTints::all(Tint::Foliage));
        assert_eq!(all.get(1).unwrap().tint.for_face(Face::NegZ), Tint::Foliage);
        // A library without tints writes none, so its text is what it was before tints existed.
        assert!(!ron::to_string(&old).unwrap().contains("tint"));
        // Unknown values and face kinds are refused, naming the value, where it is and what is
        // allowed.
        let e = ron::from_str::<BlockLibrary>(&ron_block(", tint: (top: Grasss)")).unwrap_err().to_string();
        for needle in ["Grasss", "None", "Grass", "Foliage", "1:"] {
            assert!(e.contains(needle), "missing {needle:?} in: {e}");
        }
        let e = ron::from_str::<BlockLibrary>(&ron_block(", tint: (tops: Grass)")).unwrap_err().to_string();
        for needle in ["tops", "top", "side", "bottom"] {
            assert!(e.contains(needle), "missing {needle:?} in: {e}");
        }
        assert_eq!(Tint::from_number(2), Some(Tint::Foliage));
        assert_eq!(Tint::from_number(3), None);
        assert_eq!(Tint::from_number(-1), None);
        assert_eq!(Tint::ALL.map(Tint::number), [0, 1, 2]);
    }

    #[test]
    fn the_default_library_tints_grass_tops_and_leaves() {
        let lib = BlockLibrary::default();
        let grass = lib.get(crate::base::block::GRASS).unwrap().tint;
        assert_eq!((grass.top, grass.side, grass.bottom), (Tint::Grass, Tint::None, Tint::None));
        assert_eq!(lib.get(LEAVES).unwrap().tint, FaceTints::all(Tint::Foliage));
        let tinted: Vec<&str> = lib.blocks().iter().filter(|b| !b.tint.is_none()).map(|b| b.name.as_str()).collect();
        assert_eq!(tinted, ["grass", "leaves"]);
    }

    #[test]
    fn serde_round_trips_and_validates() {
        let lib = BlockLibrary::default();
        let text = ron::to_string(&lib).unwrap();
        let back: BlockLibrary = ron::from_str(&text).unwrap();
        assert_eq!(back, lib);
        assert_eq!(back.id_of("torch"), Some(TORCH));
        assert!(text.contains("tint:(top:Grass"), "the grass top's tint is written: {text}");
        let bad = text.replacen("\"stone\"", "\"Stone\"", 1);
        let e = ron::from_str::<BlockLibrary>(&bad).unwrap_err().to_string();
        assert!(e.contains("block 1") && e.contains("\"Stone\""), "{e}");
    }
}
