//! `StrataStructure` (Resource): a designer-made voxel model (a house, a tower, a dungeon) that a
//! world's `StrataStructureRule`s place; the Godot face of
//! `strata_core::gen3d::structures::StructureTemplate`. `StrataChunkWorld.structures` brings a world's
//! own structures; the world resolves them through its block library when it builds.
//!
//! A structure stores its cells by block name, not by id, so a `.tres`/`.res` file keeps its
//! meaning when a block library is reordered or grows: `blocks` is the table of names and
//! `cells` one byte per cell, 0 for a cell that keeps the world as it is and `k` for
//! `blocks[k - 1]` (`air` carves). Cells run x fastest, then z, then y, as in the core.
//!
//! Structures come from MagicaVoxel `.vox` files (`load_vox`, `from_vox`: colours are mapped to
//! the nearest block, magenta to air, empty voxels keep the world), from a region of a world
//! (`StrataChunkWorld.capture_structure`) or from scripts (`create`, `set_block_name`). Every failure
//! names the call, the file or property, the value and what is allowed, in `last_error()`.
//!
//! May use: `strata_core` (block library, structure templates, fingerprints), `block_library`,
//! `files`.

use crate::base::errors::LastError;
use crate::base::files::{GodotFile, locate_file, read_packed, writable};
use crate::resources::block_library::{BlockLibrary, core_or_default};
use godot::classes::{IResource, Resource};
use godot::global::Error;
use godot::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use strata_core::base::block::{AIR, BlockId};
use strata_core::base::block_library::{BlockLibrary as CoreLibrary, default_library};
use strata_core::base::coords::IVec3;
use strata_core::gen3d::structure_library::shipped_structures_with;
use strata_core::gen3d::structures::{
    KEEP, MAX_STRUCTURE_CELLS, MAX_STRUCTURE_EDGE, StructureError, StructureLibrary, StructureTemplate,
};
use strata_core::preset::fingerprint::fnv1a64;

/// The largest `.vox` file read, in bytes (a full 256³ model takes about 64 MiB).
pub const MAX_VOX_FILE_BYTES: u64 = 80 << 20;

/// The most block names a structure's table holds (one byte per cell, 0 for keep).
pub const MAX_STRUCTURE_BLOCKS: usize = 255;

/// A voxel model that `StrataStructureRule`s place in a world (through `StrataChunkWorld.structures`),
/// made from a MagicaVoxel `.vox` file, a region of a world, or a script. Its cells name
/// blocks, so it fits any block library that has them.
#[derive(GodotClass)]
#[class(tool, base = Resource, rename = StrataStructure)]
pub struct Structure {
    base: Base<Resource>,
    /// The name a `StrataStructureRule`'s `structure` gives; a world's structure of a shipped
    /// structure's name (`cottage`, `ruin`, `crypt`) replaces it. (`name` would clash with
    /// `Resource`'s `get_name`/`set_name`.)
    #[export]
    structure_name: GString,
    /// Its box in voxels (x, y, z), each edge 1 to 256 (storage; set by `load_vox`, `create` and
    /// `StrataChunkWorld.capture_structure`).
    #[export(storage)]
    size: Vector3i,
    /// The names of the blocks its cells use, at most 255 (storage): cell value `k` is
    /// `blocks[k - 1]`.
    #[export(storage)]
    blocks: PackedStringArray,
    /// One byte per cell, x fastest, then z, then y (storage): 0 keeps the world as it is there,
    /// `k` sets block `blocks[k - 1]`.
    #[export(storage)]
    cells: PackedByteArray,
    /// Message of the last failure, for `last_error()`.
    last_error: LastError,
}

#[godot_api]
impl IResource for Structure {
    fn init(base: Base<Resource>) -> Self {
        Self {
            base,
            structure_name: GString::new(),
            size: Vector3i::ZERO,
            blocks: PackedStringArray::new(),
            cells: PackedByteArray::new(),
            last_error: LastError::default(),
        }
    }
}

#[godot_api]
impl Structure {
    /// A new structure named `name` of `size` voxels (each edge 1 to 256) whose every cell keeps
    /// the world, for `set_block_name` to draw in; null on a bad size (the message is pushed to
    /// the console).
    #[func]
    fn create(name: GString, size: Vector3i) -> Option<Gd<Structure>> {
        if let Err(e) = check_size(&name.to_string(), size) {
            godot_error!("StrataStructure.create: {e}");
            return None;
        }
        let mut gd = Structure::new_gd();
        {
            let mut s = gd.bind_mut();
            s.structure_name = name;
            s.size = size;
            s.cells = PackedByteArray::from(vec![0u8; (size.x * size.y * size.z) as usize]);
        }
        Some(gd)
    }

    /// A new structure named `name` from the MagicaVoxel `.vox` file at `path` (see `load_vox`);
    /// null on error (the message, naming the file, is pushed to the console).
    #[func]
    fn from_vox(path: GString, name: GString) -> Option<Gd<Structure>> {
        let mut gd = Structure::new_gd();
        gd.bind_mut().structure_name = name;
        let code = gd.bind_mut().read_vox(&path, None, &PackedStringArray::new(), "StrataStructure.from_vox");
        (code == Error::OK).then_some(gd)
    }

    /// Replaces the cells with the first model of the MagicaVoxel `.vox` file at `path`
    /// (`res://`, `user://` or absolute). MagicaVoxel's z is up. Each colour becomes the block
    /// of the default library whose colour is nearest, magenta (255, 0, 255) becomes air, and
    /// an empty voxel keeps the world. `structure_name` is the file's name when empty. On error
    /// nothing changes; the message is in `last_error()`.
    #[func]
    fn load_vox(&mut self, path: GString) -> Error {
        self.read_vox(&path, None, &PackedStringArray::new(), "StrataStructure.load_vox")
    }

    /// `load_vox` mapping colours to the blocks of `library` (null: the default library);
    /// `palette[i]`, when not empty, names the block of the file's palette index `i + 1`
    /// (MagicaVoxel numbers its colours from 1) instead of the nearest colour.
    #[func]
    fn load_vox_with(&mut self, path: GString, library: Option<Gd<BlockLibrary>>, palette: PackedStringArray) -> Error {
        self.read_vox(&path, library.as_ref(), &palette, "StrataStructure.load_vox_with")
    }

    /// Writes the structure to `path` as a MagicaVoxel `.vox` file: each block in its colour in
    /// the default library, air in magenta, kept cells empty (what `load_vox` reads back to the
    /// same cells). A block the default library lacks, or a failed write, is an error code with
    /// the message in `last_error()`.
    #[func]
    fn save_vox(&mut self, path: GString) -> Error {
        let what = "StrataStructure.save_vox";
        let template = match self.template(default_library()) {
            Ok(t) => t,
            Err(e) => return self.last_error.fail(format!("{what}: {e}"), Error::ERR_INVALID_DATA),
        };
        let target = match writable(&path) {
            Ok(p) => p,
            Err(e) => return self.last_error.fail(format!("{what}: {e}"), Error::ERR_FILE_CANT_WRITE),
        };
        let (bytes, _) = template.to_vox_bytes(default_library());
        let tmp = target.with_extension("vox.tmp");
        let written = std::fs::write(&tmp, &bytes).and_then(|()| std::fs::rename(&tmp, &target));
        match written {
            Ok(()) => self.last_error.succeed(),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                self.last_error.fail(format!("{what}: `{path}`: cannot write it ({e})"), Error::ERR_FILE_CANT_WRITE)
            }
        }
    }

    /// The name of the block of cell (x, y, z): a block name, "air", or "" where the cell keeps
    /// the world. "" also outside the box, with the message in `last_error()`.
    #[func]
    fn get_block_name(&mut self, x: i64, y: i64, z: i64) -> GString {
        let Some(i) = self.index_of(x, y, z, "StrataStructure.get_block_name") else { return GString::new() };
        let k = self.cells.as_slice().get(i).copied().unwrap_or(0) as usize;
        if k == 0 {
            return GString::new();
        }
        self.blocks.as_slice().get(k - 1).cloned().unwrap_or_default()
    }

    /// Sets cell (x, y, z) to the block named `block` ("air" carves; "" keeps the world). The
    /// name is looked up in the world's block library when the world builds. Outside the box,
    /// or a 256th distinct block name, changes nothing and returns an error code with the
    /// message in `last_error()`.
    #[func]
    fn set_block_name(&mut self, x: i64, y: i64, z: i64, block: GString) -> Error {
        let what = "StrataStructure.set_block_name";
        let Some(i) = self.index_of(x, y, z, what) else { return Error::ERR_PARAMETER_RANGE_ERROR };
        let value = if block.is_empty() {
            0
        } else if let Some(k) = self.blocks.as_slice().iter().position(|b| *b == block) {
            k + 1
        } else if self.blocks.len() < MAX_STRUCTURE_BLOCKS {
            self.blocks.push(&block);
            self.blocks.len()
        } else {
            return self.last_error.fail(
                format!(
                    "{what}: block `{block}` would be the structure's 256th block name; allowed: at most {MAX_STRUCTURE_BLOCKS}"
                ),
                Error::ERR_OUT_OF_MEMORY,
            );
        };
        if self.cells.len() != self.cell_count() {
            self.cells.resize(self.cell_count());
        }
        self.cells[i] = value as u8;
        self.last_error.succeed()
    }

    /// The message of the last failure, or "" after a later success.
    #[func]
    fn last_error(&self) -> GString {
        self.last_error.get()
    }
}

impl Structure {
    /// The number of cells of `size` (0 when an edge is out of range).
    fn cell_count(&self) -> usize {
        let s = self.size;
        if [s.x, s.y, s.z].iter().all(|e| (1..=MAX_STRUCTURE_EDGE).contains(e)) {
            (s.x * s.y * s.z) as usize
        } else {
            0
        }
    }

    /// The index of cell (x, y, z), or None (the error kept) outside the box.
    fn index_of(&mut self, x: i64, y: i64, z: i64, what: &str) -> Option<usize> {
        let s = self.size;
        let inside = (0..s.x as i64).contains(&x) && (0..s.y as i64).contains(&y) && (0..s.z as i64).contains(&z);
        if !inside {
            self.last_error.record(format!(
                "{what}: cell ({x}, {y}, {z}) is outside the structure; allowed: 0..{} × 0..{} × 0..{}",
                s.x, s.y, s.z
            ));
            return None;
        }
        Some(((y * s.z as i64 + z) * s.x as i64 + x) as usize)
    }

    /// Reads a `.vox` file into the cells (see `load_vox`); `what` names the call in messages.
    fn read_vox(
        &mut self,
        path: &GString,
        library: Option<&Gd<BlockLibrary>>,
        palette: &PackedStringArray,
        what: &str,
    ) -> Error {
        let library = match core_or_default(library) {
            Ok(l) => l,
            Err(e) => {
                return self
                    .last_error
                    .fail(format!("{what}: the block library is invalid: {e}"), Error::ERR_INVALID_PARAMETER);
            }
        };
        let located = locate_file(&path.to_string());
        let shown = located.shown();
        let bytes = match located {
            GodotFile::Disk(p) => match std::fs::metadata(&p) {
                Ok(m) if m.len() > MAX_VOX_FILE_BYTES => Err((
                    format!("{} bytes is too large; allowed: at most {MAX_VOX_FILE_BYTES} bytes", m.len()),
                    Error::ERR_FILE_CORRUPT,
                )),
                _ => std::fs::read(&p).map_err(|e| (format!("cannot read it ({e})"), io_code(&e))),
            },
            GodotFile::Packed(p) => read_packed(
                &p,
                |len| {
                    if len > MAX_VOX_FILE_BYTES {
                        Err((
                            format!("{len} bytes is too large; allowed: at most {MAX_VOX_FILE_BYTES} bytes"),
                            Error::ERR_FILE_CORRUPT,
                        ))
                    } else {
                        Ok(())
                    }
                },
                |e| (format!("cannot read it ({e})"), io_code(&e)),
            ),
        };
        let bytes = match bytes {
            Ok(b) => b,
            Err((problem, code)) => {
                return self
                    .last_error
                    .fail(format!("{what}: `{path}` ({shown}): {problem}; allowed: a MagicaVoxel .vox file"), code);
            }
        };
        let mut name = self.structure_name.to_string().trim().to_string();
        if name.is_empty() {
            name = path.to_string().rsplit(['/', '\\']).next().unwrap_or("").trim_end_matches(".vox").to_string();
        }
        let palette: Vec<(u8, String)> = palette
            .as_slice()
            .iter()
            .enumerate()
            .filter(|(i, b)| *i < 255 && !b.is_empty())
            .map(|(i, b)| ((i + 1) as u8, b.to_string()))
            .collect();
        match StructureTemplate::from_vox_bytes(&name, &bytes, &library, &palette) {
            Ok(t) => match self.set_template(&t, &library) {
                Ok(()) => {
                    self.structure_name = GString::from(name.as_str());
                    self.last_error.succeed()
                }
                Err(e) => self.last_error.fail(format!("{what}: `{path}`: {e}"), Error::ERR_INVALID_DATA),
            },
            Err(e) => {
                let code = match e {
                    StructureError::Vox { .. } => Error::ERR_FILE_CORRUPT,
                    _ => Error::ERR_INVALID_DATA,
                };
                self.last_error.fail(format!("{what}: `{path}`: {e}"), code)
            }
        }
    }

    /// Replaces name-less cells with those of `t`, whose ids are blocks of `library`.
    pub(crate) fn set_template(&mut self, t: &StructureTemplate, library: &CoreLibrary) -> Result<(), String> {
        let mut table: Vec<String> = Vec::new();
        let mut index: HashMap<BlockId, u8> = HashMap::new();
        let mut cells = Vec::with_capacity(t.cells().len());
        for &id in t.cells() {
            if id == KEEP {
                cells.push(0);
                continue;
            }
            let k = match index.get(&id) {
                Some(&k) => k,
                None => {
                    if table.len() >= MAX_STRUCTURE_BLOCKS {
                        return Err(format!(
                            "structure `{}` uses more than {MAX_STRUCTURE_BLOCKS} blocks; allowed: at most {MAX_STRUCTURE_BLOCKS}",
                            t.name()
                        ));
                    }
                    let name = if id == AIR { "air" } else { library.name_of(id).unwrap_or("air") };
                    table.push(name.to_string());
                    let k = table.len() as u8;
                    index.insert(id, k);
                    k
                }
            };
            cells.push(k);
        }
        let s = t.size();
        self.structure_name = GString::from(t.name());
        self.size = Vector3i::new(s.x, s.y, s.z);
        self.blocks = table.iter().map(|n| GString::from(n.as_str())).collect();
        self.cells = PackedByteArray::from(cells);
        Ok(())
    }

    /// A new structure holding `t`, whose ids are blocks of `library`.
    pub(crate) fn from_template(t: &StructureTemplate, library: &CoreLibrary) -> Result<Gd<Structure>, String> {
        let mut gd = Structure::new_gd();
        gd.bind_mut().set_template(t, library)?;
        Ok(gd)
    }

    /// The structure as a core template of the blocks of `library`: an error naming the
    /// structure (and its file), the property, the value and what is allowed when its name is
    /// empty, its size or cells are out of shape, or it names a block the library lacks.
    pub(crate) fn template(&self, library: &CoreLibrary) -> Result<StructureTemplate, String> {
        let name = self.structure_name.to_string().trim().to_string();
        let path = self.base().get_path().to_string();
        let shown = if path.is_empty() { format!("`{name}`") } else { format!("`{name}` ({path})") };
        if name.is_empty() {
            let at = if path.is_empty() { String::new() } else { format!(" ({path})") };
            return Err(format!(
                "StrataStructure{at}.structure_name is empty; allowed: a name, what a StrataStructureRule's `structure` gives"
            ));
        }
        check_size(&name, self.size).map_err(|e| format!("StrataStructure {shown}.size: {e}"))?;
        let n = self.cell_count();
        if self.cells.len() != n {
            return Err(format!(
                "StrataStructure {shown}.cells: {} cells for size {}×{}×{}; allowed: exactly {n} (one per voxel)",
                self.cells.len(),
                self.size.x,
                self.size.y,
                self.size.z
            ));
        }
        let mut ids = Vec::with_capacity(self.blocks.len());
        for block in self.blocks.as_slice() {
            let b = block.to_string();
            let id = if b == "air" {
                AIR
            } else {
                library.id_of(&b).ok_or_else(|| {
                    let names: Vec<&str> = library.blocks().iter().map(|d| d.name.as_str()).collect();
                    format!(
                        "StrataStructure {shown}.blocks: block `{b}` is not in the world's block library; allowed: {}",
                        names.join(", ")
                    )
                })?
            };
            ids.push(id);
        }
        let mut cells = Vec::with_capacity(n);
        for (i, &k) in self.cells.as_slice().iter().enumerate() {
            let id = match k {
                0 => KEEP,
                k => *ids.get(k as usize - 1).ok_or_else(|| {
                    format!(
                        "StrataStructure {shown}.cells[{i}]: {k} names no block; allowed: 0 (keep) or 1..={}",
                        self.blocks.len()
                    )
                })?,
            };
            cells.push(id);
        }
        StructureTemplate::new(&name, IVec3::new(self.size.x, self.size.y, self.size.z), cells)
            .map_err(|e| format!("StrataStructure {shown}: {e}"))
    }

    /// A hash of the name, size, block names and cells: two structures place the same blocks
    /// in any library exactly when their fingerprints agree.
    pub(crate) fn content_fingerprint(&self) -> u64 {
        let mut bytes = self.structure_name.to_string().trim().as_bytes().to_vec();
        bytes.push(0);
        for e in [self.size.x, self.size.y, self.size.z] {
            bytes.extend_from_slice(&e.to_le_bytes());
        }
        for b in self.blocks.as_slice() {
            bytes.extend_from_slice(b.to_string().as_bytes());
            bytes.push(0);
        }
        bytes.extend_from_slice(self.cells.as_slice());
        fnv1a64(&bytes)
    }
}

/// A world's own structures as last resolved: None when there are none, or the error that
/// keeps the world from building.
pub(crate) type ResolvedStructures = Result<Option<std::sync::Arc<WorldStructures>>, String>;

/// Checks a structure's size: each edge 1..=256, at most [`MAX_STRUCTURE_CELLS`] cells.
pub(crate) fn check_size(name: &str, size: Vector3i) -> Result<(), String> {
    let edges = [size.x, size.y, size.z];
    let cells = edges.iter().map(|&e| e.max(0) as u64).product::<u64>();
    if edges.iter().any(|e| !(1..=MAX_STRUCTURE_EDGE).contains(e)) || cells > MAX_STRUCTURE_CELLS as u64 {
        return Err(format!(
            "structure `{name}`: size {}×{}×{}; allowed: each edge 1..={MAX_STRUCTURE_EDGE} voxels, at most {MAX_STRUCTURE_CELLS} cells",
            size.x, size.y, size.z
        ));
    }
    Ok(())
}

/// The error code of a failed read.
fn io_code(e: &std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::NotFound { Error::ERR_FILE_NOT_FOUND } else { Error::ERR_FILE_CANT_OPEN }
}

/// A world's own structures resolved through its block library.
pub(crate) struct WorldStructures {
    /// The shipped structures and the world's own (which replace shipped ones of their name):
    /// what the world's generator places.
    pub(crate) library: Arc<StructureLibrary>,
    /// The fingerprint of `library` (by block id): a generator is built again when it changes.
    pub(crate) build_key: u64,
    /// A hash of the world's own structures by block name ([`StrataStructure::content_fingerprint`],
    /// in order): what saves keep to tell whether they load into the same structures.
    pub(crate) fingerprint: u64,
    /// The names of the world's own structures, in order, for messages.
    pub(crate) names: Vec<String>,
}

/// Resolves `structures` (a world's `structures` property; null entries are skipped) through
/// `library`: None when there are none, else the world's structure library; an error naming
/// `class.structures[i]` and the problem when one does not resolve.
pub(crate) fn resolve_world_structures(
    class: &str,
    structures: &Array<Option<Gd<Structure>>>,
    library: &CoreLibrary,
) -> Result<Option<WorldStructures>, String> {
    let mut own = Vec::new();
    let mut hashes = Vec::new();
    for (i, s) in structures.iter_shared().enumerate() {
        let Some(s) = s else { continue };
        let s = s.bind();
        own.push(s.template(library).map_err(|e| format!("{class}.structures[{i}]: {e}"))?);
        hashes.extend_from_slice(&s.content_fingerprint().to_le_bytes());
    }
    if own.is_empty() {
        return Ok(None);
    }
    let names = own.iter().map(|t| t.name().to_string()).collect();
    let all = shipped_structures_with(library, own);
    Ok(Some(WorldStructures {
        build_key: all.fingerprint(),
        library: Arc::new(all),
        fingerprint: fnv1a64(&hashes),
        names,
    }))
}
