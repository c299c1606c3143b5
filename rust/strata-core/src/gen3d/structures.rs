//! Structures: designer-made voxel models (houses, ruins, dungeons) stamped into the world by
//! rules, seamlessly across chunk borders.
//!
//! A [`StructureTemplate`] is a box of cells, each a block id or [`KEEP`] (leave the world as it
//! is there); an `air` cell carves. Templates come from MagicaVoxel `.vox` files
//! ([`StructureTemplate::from_vox_bytes`], through the `dot_vox` crate) or from code, and a
//! world's [`StructureLibrary`] names them; the preset's [`StructureRule`]s say which stand
//! where.
//!
//! Trees of the world's blocks are structures too, grown rather than read from a template: the
//! preset's tree settings are one more rule (its index follows the structure rules') whose cells
//! of `trees.spacing` hold at most one tree each, its species drawn by the biome's weights at
//! the trunk, its box the species' ([`crate::gen3d::trees`]) and reaching past its cell, so a
//! region asks the cells within that reach too. Trees are stamped before the template
//! structures (a cottage wins over a tree), their logs replacing what is there and their leaves
//! filling only air, so overlapping crowns come out the same in any region.
//!
//! Placement is a pure function of (seed, rule, cell): the world is cut into square cells of the
//! rule's `spacing`; cell `(cx, cz)` holds one structure with probability `chance`, at a hashed
//! place and quarter turn wholly inside the cell, at a height read from the column at its
//! centre (the same column every region computes). A region asks for the placements whose boxes
//! meet it ([`Structures::placements_in`]) and stamps the part inside it
//! ([`Structures::stamp`]) after the other stages, so caves, ores and water never cut a structure
//! and a structure spanning four chunks is the same whichever is generated first (laws:
//! Deterministic, Seamless).
//!
//! May use: `base`, `preset`, `gen3d::context`, `gen3d::trees`.

use crate::base::block::{AIR, BlockId};
use crate::base::block_library::BlockLibrary;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::IVec3;
use crate::base::rng::{hash2, hash3, mix64, salt, unit_f64};
use crate::gen3d::context::{GroveNoise, StageContext};
use crate::gen3d::trees::{TreeCell, TreeShape, TreeSize};
use crate::preset::fingerprint::fnv1a64;
use crate::preset::model::{Biome, StructurePlacement, WorldPreset};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex};
use thiserror::Error;

/// A template cell that leaves the world's voxel as it is.
pub const KEEP: BlockId = BlockId::MAX;

/// The largest edge of a template, in voxels (MagicaVoxel's own limit).
pub const MAX_STRUCTURE_EDGE: i32 = 256;

/// The largest number of cells of a template.
pub const MAX_STRUCTURE_CELLS: usize = 1 << 21;

/// The palette colour that carves air in a `.vox` structure: magenta, `(255, 0, 255)`.
pub const VOX_AIR_COLOR: [u8; 3] = [255, 0, 255];

/// Why a structure or a structure rule could not be used.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum StructureError {
    #[error("structure `{name}`: not a MagicaVoxel .vox file ({problem}); allowed: a .vox file with one model")]
    Vox { name: String, problem: String },
    #[error("structure `{name}`: {problem}; allowed: {allowed}")]
    Shape { name: String, problem: String, allowed: String },
    #[error(
        "structure `{name}`: palette colour {index} maps to block `{block}`, which the world's block library lacks; allowed: {allowed}"
    )]
    UnknownBlock { name: String, index: u8, block: String, allowed: String },
    #[error(
        "structures.rules[{rule}].structure: no structure `{name}` in the world's structure library; allowed: {allowed}"
    )]
    UnknownStructure { rule: usize, name: String, allowed: String },
    #[error(
        "structures.rules[{rule}].spacing: {spacing} voxels is narrower than structure `{name}` ({width} voxels wide); allowed: at least {width}"
    )]
    SpacingTooSmall { rule: usize, name: String, spacing: i32, width: i32 },
    #[error(
        "structures.rules[{rule}].placement: Cave is for side-view worlds; allowed: Surface or Underground in a 3D world"
    )]
    CaveIn3D { rule: usize },
    #[error("trees.species[{species}].{field}: unknown block `{block}`; allowed: {allowed}")]
    TreeBlock { species: usize, field: &'static str, block: String, allowed: String },
}

/// A box of cells: block ids, [`KEEP`] where the world stays as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructureTemplate {
    name: String,
    size: IVec3,
    /// x fastest, then z, then y (the layout of [`VoxelBuffer`]).
    cells: Vec<BlockId>,
}

impl StructureTemplate {
    /// A template of `size` cells (x fastest, then z, then y). Each edge must be 1..=256 and
    /// the cells exactly `size.x · size.y · size.z`.
    pub fn new(name: &str, size: IVec3, cells: Vec<BlockId>) -> Result<Self, StructureError> {
        let edges = [size.x, size.y, size.z];
        if edges.iter().any(|&e| !(1..=MAX_STRUCTURE_EDGE).contains(&e)) {
            return Err(StructureError::Shape {
                name: name.into(),
                problem: format!("size {}×{}×{}", size.x, size.y, size.z),
                allowed: format!("each edge 1..={MAX_STRUCTURE_EDGE} voxels"),
            });
        }
        let n = (size.x * size.y * size.z) as usize;
        if n > MAX_STRUCTURE_CELLS || cells.len() != n {
            return Err(StructureError::Shape {
                name: name.into(),
                problem: format!("{} cells for size {}×{}×{}", cells.len(), size.x, size.y, size.z),
                allowed: format!("exactly x·y·z cells, at most {MAX_STRUCTURE_CELLS}"),
            });
        }
        Ok(Self { name: name.into(), size, cells })
    }

    /// Reads the first model of a MagicaVoxel `.vox` file. MagicaVoxel's z is up: a voxel at
    /// `(x, y, z)` there is cell `(x, z, y)` here. Each palette colour becomes the block that
    /// `palette` names for its index (1..=255, as MagicaVoxel numbers them), else air for
    /// [`VOX_AIR_COLOR`], else the block of `library` whose colour is nearest; empty cells keep
    /// the world.
    pub fn from_vox_bytes(
        name: &str,
        bytes: &[u8],
        library: &BlockLibrary,
        palette: &[(u8, String)],
    ) -> Result<Self, StructureError> {
        let vox_err = |problem: String| StructureError::Vox { name: name.into(), problem };
        // The parser is third-party code fed user files: a panic inside it is a bad file.
        let data = std::panic::catch_unwind(|| dot_vox::load_bytes(bytes))
            .map_err(|_| vox_err("the parser failed on it".into()))?
            .map_err(|e| vox_err(e.to_string()))?;
        let model = data.models.first().ok_or_else(|| vox_err("it holds no model".into()))?;
        let edge = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
        let size = IVec3::new(edge(model.size.x), edge(model.size.z), edge(model.size.y));
        // Found by fuzzing (strata-fuzz `vox`): a model size of billions overflowed the cell
        // count (a panic in debug builds); an edge beyond the limit is refused before counting.
        let edges_fit = [size.x, size.y, size.z].iter().all(|e| (1..=MAX_STRUCTURE_EDGE).contains(e));
        let n = if edges_fit { size.volume() } else { 0 };
        if n == 0 || n > MAX_STRUCTURE_CELLS {
            // Refused with the size in the message.
            return Self::new(name, size, Vec::new());
        }
        let mut blocks = [None::<BlockId>; 256];
        let mut cells = vec![KEEP; n];
        for v in &model.voxels {
            let (x, y, z) = (v.x as i32, v.z as i32, v.y as i32);
            if x >= size.x || y >= size.y || z >= size.z {
                return Err(vox_err(format!("voxel ({}, {}, {}) outside the model's size", v.x, v.y, v.z)));
            }
            let index = v.i as usize;
            let id = match blocks[index] {
                Some(id) => id,
                None => {
                    let color = data.palette.get(index).map(|c| [c.r, c.g, c.b]).unwrap_or([255, 255, 255]);
                    let id = vox_block(name, (index + 1) as u8, color, library, palette)?;
                    blocks[index] = Some(id);
                    id
                }
            };
            cells[((y * size.z + z) * size.x + x) as usize] = id;
        }
        Self::new(name, size, cells)
    }

    /// The template as a `.vox` file whose palette holds one colour per block it uses (the
    /// block's colour, [`VOX_AIR_COLOR`] for air): what [`StructureTemplate::from_vox_bytes`]
    /// reads back to the same cells, given the same names in `palette` order.
    pub fn to_vox_bytes(&self, library: &BlockLibrary) -> (Vec<u8>, Vec<(u8, String)>) {
        let mut used: Vec<BlockId> = self.cells.iter().copied().filter(|&c| c != KEEP).collect();
        used.sort_unstable();
        used.dedup();
        let used: Vec<BlockId> = used.into_iter().take(255).collect();
        let mut palette = vec![dot_vox::Color { r: 0, g: 0, b: 0, a: 255 }; 256];
        let mut names = Vec::new();
        for (k, &id) in used.iter().enumerate() {
            let rgb = if id == AIR {
                VOX_AIR_COLOR
            } else {
                library.get(id).map(|b| b.color.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)).unwrap_or([128; 3])
            };
            palette[k] = dot_vox::Color { r: rgb[0], g: rgb[1], b: rgb[2], a: 255 };
            let name = library.name_of(id).unwrap_or("air").to_string();
            names.push(((k + 1) as u8, name));
        }
        let mut voxels = Vec::new();
        for y in 0..self.size.y {
            for z in 0..self.size.z {
                for x in 0..self.size.x {
                    let c = self.get(IVec3::new(x, y, z));
                    if let Some(k) = used.iter().position(|&u| u == c) {
                        voxels.push(dot_vox::Voxel { x: x as u8, y: z as u8, z: y as u8, i: k as u8 });
                    }
                }
            }
        }
        let size = dot_vox::Size { x: self.size.x as u32, y: self.size.z as u32, z: self.size.y as u32 };
        let data = dot_vox::DotVoxData {
            version: 150,
            index_map: Vec::new(),
            models: vec![dot_vox::Model { size, voxels }],
            palette,
            materials: Vec::new(),
            scenes: Vec::new(),
            layers: Vec::new(),
        };
        let mut bytes = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = data.write_vox(&mut bytes);
        (bytes, names)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn size(&self) -> IVec3 {
        self.size
    }

    /// Every cell, x fastest, then z, then y: block ids and [`KEEP`].
    pub fn cells(&self) -> &[BlockId] {
        &self.cells
    }

    /// The cell at `l` (inside the size), a block id or [`KEEP`].
    pub fn get(&self, l: IVec3) -> BlockId {
        self.cells[((l.y * self.size.z + l.z) * self.size.x + l.x) as usize]
    }

    /// A hash of the name, size and cells.
    pub fn fingerprint(&self) -> u64 {
        let mut bytes = self.name.as_bytes().to_vec();
        for e in [self.size.x, self.size.y, self.size.z] {
            bytes.extend_from_slice(&e.to_le_bytes());
        }
        bytes.extend(self.cells.iter().flat_map(|c| c.to_le_bytes()));
        fnv1a64(&bytes)
    }
}

/// The block of palette entry `index` (1-based) of colour `color`.
fn vox_block(
    name: &str,
    index: u8,
    color: [u8; 3],
    library: &BlockLibrary,
    palette: &[(u8, String)],
) -> Result<BlockId, StructureError> {
    if let Some((_, block)) = palette.iter().find(|(i, _)| *i == index) {
        return library.id_of(block).ok_or_else(|| StructureError::UnknownBlock {
            name: name.into(),
            index,
            block: block.clone(),
            allowed: format!(
                "a block of the library ({})",
                library.blocks().iter().map(|b| b.name.as_str()).collect::<Vec<_>>().join(", ")
            ),
        });
    }
    if color == VOX_AIR_COLOR {
        return Ok(AIR);
    }
    let target = color.map(|c| c as f32 / 255.0);
    let nearest = library
        .blocks()
        .iter()
        .enumerate()
        .skip(1)
        .map(|(id, b)| (id, (0..3).map(|k| (b.color[k] - target[k]).powi(2)).sum::<f32>()))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(id, _)| id as BlockId);
    Ok(nearest.unwrap_or(AIR))
}

/// The structures a world may place, by name.
#[derive(Clone, Debug, Default)]
pub struct StructureLibrary {
    templates: Vec<Arc<StructureTemplate>>,
}

impl StructureLibrary {
    /// A library of `templates`; a later template of the same name replaces an earlier one.
    pub fn new(templates: Vec<StructureTemplate>) -> Self {
        let mut lib = Self::default();
        for t in templates {
            lib.insert(t);
        }
        lib
    }

    /// Adds `t`, replacing a template of the same name.
    pub fn insert(&mut self, t: StructureTemplate) {
        match self.templates.iter().position(|o| o.name == t.name) {
            Some(i) => self.templates[i] = Arc::new(t),
            None => self.templates.push(Arc::new(t)),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Arc<StructureTemplate>> {
        self.templates.iter().find(|t| t.name == name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.templates.iter().map(|t| t.name.as_str()).collect()
    }

    pub fn templates(&self) -> &[Arc<StructureTemplate>] {
        &self.templates
    }

    /// A hash of every template, in order.
    pub fn fingerprint(&self) -> u64 {
        let bytes: Vec<u8> = self.templates.iter().flat_map(|t| t.fingerprint().to_le_bytes()).collect();
        fnv1a64(&bytes)
    }
}

/// One structure standing in the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    /// Index of its rule in the preset.
    pub rule: u16,
    /// Quarter turns about +y, 0..4.
    pub turns: u8,
    /// World position of its minimum corner.
    pub min: IVec3,
    /// Its box in the world (x and z swapped from the template's after an odd turn).
    pub size: IVec3,
    /// A tree's species (its index in the preset's `trees.species`); 0 for a template.
    pub variant: u16,
}

impl Placement {
    /// One past its maximum corner.
    pub fn max(&self) -> IVec3 {
        self.min + self.size
    }

    /// A tree's trunk base (the first voxel above the ground): the centre column of its box, on
    /// its floor.
    pub fn trunk(&self) -> IVec3 {
        IVec3::new(self.min.x + self.size.x / 2, self.min.y, self.min.z + self.size.z / 2)
    }

    /// The template cell behind world-box cell `(u, y, v)` (its local coordinates).
    fn template_cell(&self, t: &StructureTemplate, u: i32, y: i32, v: i32) -> IVec3 {
        let s = t.size;
        match self.turns & 3 {
            0 => IVec3::new(u, y, v),
            1 => IVec3::new(v, y, s.z - 1 - u),
            2 => IVec3::new(s.x - 1 - u, y, s.z - 1 - v),
            _ => IVec3::new(s.x - 1 - v, y, u),
        }
    }
}

/// A rule with its template and biomes resolved.
#[derive(Debug)]
struct ResolvedRule {
    template: Arc<StructureTemplate>,
    /// Per biome index: may it stand there. Empty: everywhere.
    biomes: Vec<bool>,
    placement: StructurePlacement,
    spacing: i32,
    chance: f64,
    sink: i32,
    depth_min: i32,
    depth_max: i32,
    salt: u64,
}

/// The preset's tree settings resolved: the rule that grows trees of blocks.
#[derive(Debug)]
struct TreeRule {
    seed: u64,
    spacing: i32,
    /// The farthest a tree's box reaches past its trunk's column, over all species.
    reach: i32,
    species: Vec<TreeShape>,
    /// Per biome index: each species' weight there, and their sum.
    weights: Vec<(Vec<f32>, f32)>,
    /// Per biome index: its `tree_density` times the preset's `trees.density`.
    density: Vec<f64>,
    /// The largest of `density` (0 for none, infinite when one is not finite).
    max_density: f64,
    dry: f64,
    wet: f64,
    grove: GroveNoise,
}

/// Placements already worked out, by (rule, cell): each costs a column (height and biome) and
/// every chunk of a cell asks for it. A pure function's answers, so whichever worker filled an
/// entry, the value is the same; emptied when it grows past its limit.
#[derive(Debug)]
struct PlacementCache {
    map: Mutex<FxHashMap<(u16, i32, i32), Option<Placement>>>,
    limit: usize,
}

impl PlacementCache {
    fn new(limit: usize) -> Self {
        Self { map: Mutex::default(), limit }
    }

    /// The placement of `key`, worked out by `compute` unless remembered.
    fn get_or(&self, key: (u16, i32, i32), compute: impl FnOnce() -> Option<Placement>) -> Option<Placement> {
        // A poisoned lock only means another worker panicked mid-insert: the map is still valid.
        if let Some(p) = self.map.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return *p;
        }
        let p = compute();
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= self.limit {
            map.clear();
        }
        map.insert(key, p);
        p
    }
}

/// The cells `(cx, cz)` of edge `spacing` whose placements, reaching at most `reach` voxels
/// past their cell, may meet the columns `[min, max)`, z then x.
fn cells_meeting(
    (min_x, min_z): (i32, i32),
    (max_x, max_z): (i32, i32),
    spacing: i32,
    reach: i32,
) -> impl Iterator<Item = (i32, i32)> {
    let (x0, x1) = ((min_x - reach).div_euclid(spacing), (max_x - 1 + reach).div_euclid(spacing));
    let (z0, z1) = ((min_z - reach).div_euclid(spacing), (max_z - 1 + reach).div_euclid(spacing));
    (z0..=z1).flat_map(move |cz| (x0..=x1).map(move |cx| (cx, cz)))
}

/// The preset's structure rules, resolved against a structure library, and its tree rule:
/// answers which structures and trees meet a region and stamps them.
#[derive(Debug)]
pub struct Structures {
    rules: Vec<ResolvedRule>,
    /// The tree rule, when trees are on; its placements' `rule` is `rules.len()`.
    trees: Option<TreeRule>,
    cache: PlacementCache,
    /// The tree rule's cells (many more than the structures', so apart from them).
    tree_cache: PlacementCache,
}

impl Default for Structures {
    fn default() -> Self {
        Self {
            rules: Vec::new(),
            trees: None,
            cache: PlacementCache::new(PLACEMENT_CACHE_ENTRIES),
            tree_cache: PlacementCache::new(TREE_CACHE_ENTRIES),
        }
    }
}

/// The most structure cells [`Structures`] remembers (about 1.5 MiB).
pub const PLACEMENT_CACHE_ENTRIES: usize = 1 << 16;

/// The most tree cells [`Structures`] remembers (about 6 MiB: every cell of a square of about
/// 2,500 voxels at the default spacing).
pub const TREE_CACHE_ENTRIES: usize = 1 << 18;

impl Structures {
    /// Resolves the rules of `preset` (validated) against `library` and `biomes` (the
    /// generator's biome table, which [`crate::gen3d::columns::Column::biome`] indexes).
    pub fn new(preset: &WorldPreset, biomes: &[Biome], library: &StructureLibrary) -> Result<Self, StructureError> {
        let mut rules = Vec::with_capacity(preset.structures.rules.len());
        for (i, r) in preset.structures.rules.iter().enumerate() {
            let template =
                library.get(r.structure.trim()).cloned().ok_or_else(|| StructureError::UnknownStructure {
                    rule: i,
                    name: r.structure.clone(),
                    allowed: format!("a structure of the library ({})", library.names().join(", ")),
                })?;
            if r.placement == StructurePlacement::Cave {
                return Err(StructureError::CaveIn3D { rule: i });
            }
            let width = template.size.x.max(template.size.z);
            if r.spacing < width {
                return Err(StructureError::SpacingTooSmall {
                    rule: i,
                    name: template.name.clone(),
                    spacing: r.spacing,
                    width,
                });
            }
            let allowed: Vec<bool> = if r.biomes.is_empty() || !preset.biomes.enabled {
                Vec::new()
            } else {
                biomes.iter().map(|b| r.biomes.iter().any(|n| n == &b.name)).collect()
            };
            rules.push(ResolvedRule {
                template,
                biomes: allowed,
                placement: r.placement,
                spacing: r.spacing,
                chance: r.chance as f64,
                sink: r.sink,
                depth_min: r.depth_min,
                depth_max: r.depth_max,
                salt: mix64(fnv1a64(r.structure.trim().as_bytes()) ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            });
        }
        Ok(Self { rules, ..Self::default() })
    }

    /// These rules with the preset's tree rule when trees are on (`preset.trees`), species'
    /// blocks looked up in `blocks` and weights over `biomes` (the generator's biome table).
    pub fn with_trees(
        mut self,
        preset: &WorldPreset,
        biomes: &[Biome],
        blocks: &BlockLibrary,
    ) -> Result<Self, StructureError> {
        let t = &preset.trees;
        if !t.enabled || t.species.is_empty() {
            self.trees = None;
            return Ok(self);
        }
        let species = t
            .species
            .iter()
            .enumerate()
            .map(|(i, s)| {
                TreeShape::resolve(s, blocks).map_err(|(field, block)| StructureError::TreeBlock {
                    species: i,
                    field,
                    block,
                    allowed: format!(
                        "a block of the library ({})",
                        blocks.blocks().iter().map(|b| b.name.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let weights = biomes
            .iter()
            .map(|b| {
                let w: Vec<f32> = t.species.iter().map(|s| s.weight_in(&b.name).max(0.0)).collect();
                let sum = w.iter().sum();
                (w, sum)
            })
            .collect();
        let density: Vec<f64> = biomes.iter().map(|b| (b.tree_density * t.density) as f64).collect();
        // Infinite for a density that is not finite: then no bound holds.
        let max_density = if density.iter().all(|d| d.is_finite()) {
            density.iter().copied().fold(0.0, f64::max)
        } else {
            f64::INFINITY
        };
        self.trees = Some(TreeRule {
            seed: preset.seed,
            spacing: t.spacing.max(1),
            reach: species.iter().map(TreeShape::reach).max().unwrap_or(0),
            species,
            weights,
            density,
            max_density,
            dry: t.dry_moisture as f64,
            wet: t.wet_moisture as f64,
            grove: GroveNoise::new(preset),
        });
        Ok(self)
    }

    /// No rules and no trees: nothing to place.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.trees.is_none()
    }

    /// Whether placement `p` is a tree.
    pub fn is_tree(&self, p: &Placement) -> bool {
        self.trees.is_some() && p.rule as usize == self.rules.len()
    }

    /// The name of tree species `variant`, for a tree placement.
    pub fn species_name(&self, variant: u16) -> Option<&str> {
        Some(self.trees.as_ref()?.species.get(variant as usize)?.name.as_str())
    }

    /// Appends to `out` every placement whose box meets the box `[min, max)` (x and z; any y
    /// when `y_range` is `None`, else the placements meeting `y_range.0..y_range.1` too), in
    /// stamping order: the trees, then the structures rule by rule, cells in order: the same
    /// list for the same box whatever was asked before.
    pub fn placements_in(
        &self,
        ctx: &StageContext,
        min: (i32, i32),
        max: (i32, i32),
        y_range: Option<(i32, i32)>,
        out: &mut Vec<Placement>,
    ) {
        self.tree_placements_in(ctx, min, max, y_range, out);
        self.template_placements_in(ctx, min, max, y_range, out);
    }

    /// [`Structures::placements_in`], the template structures alone.
    pub fn template_placements_in(
        &self,
        ctx: &StageContext,
        min: (i32, i32),
        max: (i32, i32),
        y_range: Option<(i32, i32)>,
        out: &mut Vec<Placement>,
    ) {
        if max.0 <= min.0 || max.1 <= min.1 {
            return;
        }
        for (ri, rule) in self.rules.iter().enumerate() {
            for (cx, cz) in cells_meeting(min, max, rule.spacing, 0) {
                let p = self.cache.get_or((ri as u16, cx, cz), || self.placement_in_cell(ctx, ri, cx, cz));
                push_meeting(p, min, max, y_range, out);
            }
        }
    }

    /// [`Structures::placements_in`], the trees alone.
    pub fn tree_placements_in(
        &self,
        ctx: &StageContext,
        min: (i32, i32),
        max: (i32, i32),
        y_range: Option<(i32, i32)>,
        out: &mut Vec<Placement>,
    ) {
        let Some(trees) = &self.trees else { return };
        if max.0 <= min.0 || max.1 <= min.1 {
            return;
        }
        let rule = self.rules.len() as u16;
        for (cx, cz) in cells_meeting(min, max, trees.spacing, trees.reach) {
            let p = self.tree_cache.get_or((rule, cx, cz), || self.tree_in_cell(ctx, trees, cx, cz));
            push_meeting(p, min, max, y_range, out);
        }
    }

    /// The tree of cell `(cx, cz)`, if the cell holds one (see [`crate::preset::model::TreeSettings`]).
    fn tree_in_cell(&self, ctx: &StageContext, trees: &TreeRule, cx: i32, cz: i32) -> Option<Placement> {
        let h = hash2(trees.seed, salt::TREES, cx, cz);
        let s = trees.spacing;
        let (x, z) = (cx * s + (mix64(h ^ 2) % s as u64) as i32, cz * s + (mix64(h ^ 3) % s as u64) as i32);
        let (xf, zf) = (x as f64 + 0.5, z as f64 + 0.5);
        let moisture = ctx.column_pass().climate_at(xf, zf).1;
        let fade = if moisture < trees.dry {
            0.0
        } else if moisture >= trees.wet {
            1.0
        } else {
            let u = (moisture - trees.dry) / (trees.wet - trees.dry);
            u * u * (3.0 - 2.0 * u)
        };
        let g = trees.grove.at(xf, zf) as f64;
        let roll = unit_f64(mix64(h ^ 5));
        // The chance in the densest biome bounds the chance in the column's (the factors are
        // not negative and rounding keeps the order): a roll above it grows no tree whatever
        // the column, so most empty cells are told without the column (heights and slope).
        let bound = (trees.max_density * 2.0 * g * fade).clamp(0.0, 1.0);
        if g >= 0.0 && fade >= 0.0 && roll >= bound {
            return None;
        }
        let column = ctx.column(x, z);
        let b = column.biome as usize;
        let (weights, total) = trees.weights.get(b)?;
        if *total <= 0.0 {
            return None;
        }
        let water = &ctx.preset.water;
        if water.enabled && column.surface < water.sea_level {
            return None;
        }
        // Nothing grows on bare rock (steep slopes, a biome of stone).
        if ctx.biome_params.get(b).is_some_and(|p| column.surface_block == p.cliff_block) {
            return None;
        }
        let chance = (trees.density.get(b).copied().unwrap_or(0.0) * 2.0 * g * fade).clamp(0.0, 1.0);
        if roll >= chance {
            return None;
        }
        let mut pick = unit_f64(mix64(h ^ 6)) as f32 * total;
        let species = weights.iter().position(|&w| {
            pick -= w;
            w > 0.0 && pick < 0.0
        });
        let species = species.or_else(|| weights.iter().rposition(|&w| w > 0.0))?;
        let shape = &trees.species[species];
        let r = shape.reach();
        Some(Placement {
            rule: self.rules.len() as u16,
            turns: 0,
            min: IVec3::new(x - r, column.surface, z - r),
            size: IVec3::new(2 * r + 1, shape.height(), 2 * r + 1),
            variant: species as u16,
        })
    }

    /// The measures of tree `p` (`None` for a structure).
    pub fn tree_size(&self, p: &Placement) -> Option<TreeSize> {
        if !self.is_tree(p) {
            return None;
        }
        let trees = self.trees.as_ref()?;
        Some(trees.species.get(p.variant as usize)?.size(tree_hash(trees.seed, p)))
    }

    /// Grows tree `p`: each cell in world coordinates, inside its box, handed to `emit`.
    fn grow_tree(&self, p: &Placement, emit: &mut impl FnMut(IVec3, BlockId, TreeCell)) {
        let Some(trees) = &self.trees else { return };
        let Some(shape) = trees.species.get(p.variant as usize) else { return };
        let base = p.trunk();
        let h = tree_hash(trees.seed, p);
        let (lo, hi) = (p.min, p.max());
        shape.grow(h, &mut |l, cell| {
            let w = base + l;
            let inside = w.x >= lo.x && w.y >= lo.y && w.z >= lo.z && w.x < hi.x && w.y < hi.y && w.z < hi.z;
            if inside {
                emit(w, if cell == TreeCell::Log { shape.log } else { shape.leaves }, cell);
            }
        });
    }

    /// The structure of rule `ri` in cell `(cx, cz)`, if the cell holds one.
    fn placement_in_cell(&self, ctx: &StageContext, ri: usize, cx: i32, cz: i32) -> Option<Placement> {
        let rule = &self.rules[ri];
        let h = hash2(ctx.seed, rule.salt, cx, cz);
        if unit_f64(h) >= rule.chance {
            return None;
        }
        let turns = (mix64(h ^ 1) & 3) as u8;
        let t = rule.template.size;
        let (fx, fz) = if turns & 1 == 1 { (t.z, t.x) } else { (t.x, t.z) };
        let s = rule.spacing;
        let ox = cx * s + (mix64(h ^ 2) % (s - fx + 1) as u64) as i32;
        let oz = cz * s + (mix64(h ^ 3) % (s - fz + 1) as u64) as i32;
        let centre = ctx.column(ox + fx / 2, oz + fz / 2);
        if !rule.biomes.is_empty() && !rule.biomes.get(centre.biome as usize).copied().unwrap_or(false) {
            return None;
        }
        let y = match rule.placement {
            StructurePlacement::Surface => {
                let water = &ctx.preset.water;
                if water.enabled && centre.surface < water.sea_level {
                    return None;
                }
                centre.surface - rule.sink
            }
            StructurePlacement::Underground | StructurePlacement::Cave => {
                let span = (rule.depth_max - rule.depth_min + 1) as u64;
                let depth = rule.depth_min + (mix64(h ^ 4) % span) as i32;
                centre.surface - depth - t.y
            }
        };
        Some(Placement {
            rule: ri as u16,
            turns,
            min: IVec3::new(ox, y, oz),
            size: IVec3::new(fx, t.y, fz),
            variant: 0,
        })
    }

    /// Writes the cells of `placements` that fall inside `out`, in order (a later placement
    /// wins where two overlap); [`KEEP`] cells leave `out` as it is.
    pub fn stamp(&self, placements: &[Placement], out: &mut VoxelBuffer) {
        let (bmin, bmax) = (out.min(), out.min() + out.size());
        for p in placements {
            if self.is_tree(p) {
                self.grow_tree(p, &mut |w, block, cell| {
                    let inside = w.x >= bmin.x && w.y >= bmin.y && w.z >= bmin.z;
                    let inside = inside && w.x < bmax.x && w.y < bmax.y && w.z < bmax.z;
                    // Logs replace what is there; leaves fill only air.
                    if inside && (cell == TreeCell::Log || out.get(w) == Some(AIR)) {
                        out.set(w, block);
                    }
                });
                continue;
            }
            let Some(rule) = self.rules.get(p.rule as usize) else { continue };
            let t = &rule.template;
            let (lo, hi) = (p.min.max(bmin), p.max().min(bmax));
            for y in lo.y..hi.y {
                for z in lo.z..hi.z {
                    for x in lo.x..hi.x {
                        let cell = t.get(p.template_cell(t, x - p.min.x, y - p.min.y, z - p.min.z));
                        if cell != KEEP {
                            out.set(IVec3::new(x, y, z), cell);
                        }
                    }
                }
            }
        }
    }

    /// The top of placement `p` in world column `(x, z)`: one past its highest cell there that
    /// sets a block other than air, and that block; `None` outside it or where it sets none.
    /// What the far view draws of a structure.
    pub fn column_top(&self, p: &Placement, x: i32, z: i32) -> Option<(i32, BlockId)> {
        let (u, v) = (x - p.min.x, z - p.min.z);
        if u < 0 || v < 0 || u >= p.size.x || v >= p.size.z {
            return None;
        }
        if self.is_tree(p) {
            let mut top: Option<(i32, BlockId)> = None;
            self.grow_tree(p, &mut |w, block, cell| {
                // The highest cell; at one height a log wins over leaves, as when stamped.
                let higher = top.is_none_or(|(y, _)| w.y + 1 > y || (w.y + 1 == y && cell == TreeCell::Log));
                if w.x == x && w.z == z && higher {
                    top = Some((w.y + 1, block));
                }
            });
            return top;
        }
        let t = &self.rules.get(p.rule as usize)?.template;
        (0..p.size.y).rev().find_map(|y| {
            let cell = t.get(p.template_cell(t, u, y, v));
            (cell != KEEP && cell != AIR).then_some((p.min.y + y + 1, cell))
        })
    }

    /// [`Structures::column_top`] of every column of `p`'s box, into `tops` (cleared; the column
    /// `(p.min.x + u, p.min.z + v)` at `v · p.size.x + u`): a tree grown once for all its
    /// columns.
    pub fn column_tops(&self, p: &Placement, tops: &mut Vec<Option<(i32, BlockId)>>) {
        tops.clear();
        let (w, d) = (p.size.x.max(0) as usize, p.size.z.max(0) as usize);
        if !self.is_tree(p) {
            tops.extend((0..d * w).map(|i| self.column_top(p, p.min.x + (i % w) as i32, p.min.z + (i / w) as i32)));
            return;
        }
        tops.resize(w * d, None);
        self.grow_tree(p, &mut |c, block, cell| {
            // Inside the box (grow_tree clips to it); the same rule as `column_top`.
            let top = &mut tops[(c.z - p.min.z) as usize * w + (c.x - p.min.x) as usize];
            if top.is_none_or(|(y, _)| c.y + 1 > y || (c.y + 1 == y && cell == TreeCell::Log)) {
                *top = Some((c.y + 1, block));
            }
        });
    }

    /// Whether world column `(x, z)` at height `y` lies inside a placement's box (a tree's: in
    /// its trunk's column): scatter is not placed there.
    pub fn covers(&self, placements: &[Placement], p: IVec3) -> bool {
        placements.iter().any(|q| {
            let in_y = p.y >= q.min.y && p.y <= q.max().y;
            if self.is_tree(q) {
                let t = q.trunk();
                return in_y && p.x == t.x && p.z == t.z;
            }
            p.x >= q.min.x && p.x < q.max().x && p.z >= q.min.z && p.z < q.max().z && in_y
        })
    }
}

/// The hash tree `p` grows from: of the seed, its species and its trunk base.
fn tree_hash(seed: u64, p: &Placement) -> u64 {
    let base = p.trunk();
    hash3(seed, salt::TREES ^ (u64::from(p.variant) << 32), base.x, base.y, base.z)
}

/// Appends `p` to `out` when its box meets the columns `[min, max)` and `y_range`.
fn push_meeting(
    p: Option<Placement>,
    (min_x, min_z): (i32, i32),
    (max_x, max_z): (i32, i32),
    y_range: Option<(i32, i32)>,
    out: &mut Vec<Placement>,
) {
    let Some(p) = p else { return };
    let meets_xz = p.min.x < max_x && p.max().x > min_x && p.min.z < max_z && p.max().z > min_z;
    let meets_y = y_range.is_none_or(|(lo, hi)| p.min.y < hi && p.max().y > lo);
    if meets_xz && meets_y {
        out.push(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block_library::default_library;
    use crate::gen3d::structure_library::shipped_structures;
    use crate::preset::model::StructureRule;

    #[test]
    fn a_3d_world_refuses_cave_rules_by_name() {
        let mut p = WorldPreset::default();
        p.structures.rules = vec![StructureRule {
            structure: "crypt".into(),
            placement: StructurePlacement::Cave,
            spacing: 64,
            ..StructureRule::default()
        }];
        let lib = shipped_structures(default_library()).unwrap();
        let e = Structures::new(&p, &[], &lib).unwrap_err();
        assert_eq!(e, StructureError::CaveIn3D { rule: 0 });
        let text = e.to_string();
        assert!(text.contains("rules[0].placement") && text.contains("side-view"), "{text}");
    }
}
