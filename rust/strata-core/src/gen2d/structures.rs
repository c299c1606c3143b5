//! Side-view structures: designer-made tile pictures (huts, ruins, buried rooms) stamped into a
//! side-view world by rules, seamlessly across chunk borders; the 2D face of
//! `gen3d::structures`, with the same rules (`WorldPreset::structures`) and the same laws.
//!
//! A [`StructureTemplate2D`] is a rectangle of cells, each a block id or [`KEEP`] (leave the
//! world as it is there); an `air` cell carves. Templates come from rows of text
//! ([`StructureTemplate2D::from_rows`]), from an image's pixels with a colour → tile-name map
//! ([`StructureTemplate2D::from_rgba`]) or from tile names ([`StructureTemplate2D::from_names`],
//! what a `TileMapLayer` gives); names are resolved through the world's block library, and a
//! name it lacks is an error naming the template, the cell, the name and the library's names.
//!
//! Placement is a pure function of (seed, rule, cell): the world's columns are cut into cells of
//! the rule's `spacing` tiles; cell `cx` holds one structure with probability `chance`, at a
//! hashed column wholly inside the cell, mirrored or not by the hash, at a row read from the
//! surface line at its centre column (the same every region computes):
//! - `Surface`: its bottom row `sink` tiles below the ground (`sink` 1: the bottom row replaces
//!   the grass); never on a pool, as 3D's never stand under the sea;
//! - `Underground`: buried, its top row `depth_min..=depth_max` tiles below the surface;
//! - `Cave`: on the floor of the first cave below `depth_min` (and above `depth_max`) tiles in
//!   the centre column of the generated terrain, its bottom row `sink` tiles into the floor; no
//!   cave there, no structure.
//!
//! A region asks for the placements whose boxes meet it ([`Structures2D::placements_in`]) and
//! stamps the part inside it ([`Structures2D::stamp`]) after layers, caves and ores, so every
//! stage that reads the generated tiles (autotiles, light, water flow, queries) sees them, and a
//! structure over a chunk corner is the same whichever chunk is generated first (laws:
//! Deterministic, Seamless). Side-view worlds have no biomes: a rule that names biomes is an
//! error here rather than a rule that silently places everywhere.
//!
//! May use: `base`, `preset` (rules and the fingerprint hash).

use crate::base::block::{AIR, BlockId};
use crate::base::block_library::BlockLibrary;
use crate::base::rng::{hash1, mix64, unit_f64};
use crate::preset::fingerprint::fnv1a64;
use crate::preset::model::{StructurePlacement, WorldPreset};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use thiserror::Error;

/// A template cell that leaves the world's tile as it is (the value 3D's `KEEP` has).
pub const KEEP: BlockId = BlockId::MAX;

/// The largest edge of a template, in tiles.
pub const MAX_STRUCTURE_EDGE_2D: i32 = 512;

/// The tile name of a cell that keeps the world (`""` does too).
pub const KEEP_NAME: &str = "keep";

/// Why a side-view structure or one of its rules could not be used.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum StructureError2D {
    #[error("structure `{name}`: {problem}; allowed: {allowed}")]
    Shape { name: String, problem: String, allowed: String },
    #[error(
        "structure `{name}`: cell ({x}, {y}) names tile `{tile}`, which the world's block library lacks; allowed: {allowed}"
    )]
    UnknownTile { name: String, x: i32, y: i32, tile: String, allowed: String },
    #[error("structure `{name}`: pixel ({x}, {y}) has colour {color}, which the colour map lacks; allowed: {allowed}")]
    UnknownColor { name: String, x: i32, y: i32, color: String, allowed: String },
    #[error("structure `{name}`: row {y}, column {x}: character `{ch}` is not in the legend; allowed: {allowed}")]
    UnknownChar { name: String, x: i32, y: i32, ch: char, allowed: String },
    #[error(
        "structures.rules[{rule}].structure: no side-view structure `{name}` in the world's structure library; allowed: {allowed}"
    )]
    UnknownStructure { rule: usize, name: String, allowed: String },
    #[error(
        "structures.rules[{rule}].spacing: {spacing} tiles is narrower than structure `{name}` ({width} tiles wide); allowed: at least {width}"
    )]
    SpacingTooSmall { rule: usize, name: String, spacing: i32, width: i32 },
    #[error(
        "structures.rules[{rule}].biomes: {biomes:?}, but side-view worlds have no biomes; allowed: an empty list (the rule then places in every column)"
    )]
    Biomes { rule: usize, biomes: Vec<String> },
}

/// A rectangle of cells: block ids, [`KEEP`] where the world stays as it is. Row 0 is the top
/// (tile y grows down, as in Godot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructureTemplate2D {
    name: String,
    width: i32,
    height: i32,
    /// Row by row from the top, x fastest.
    cells: Vec<BlockId>,
}

/// The id of tile name `tile` for a template: `air` carves, `""`/`keep` keeps, else the block of
/// `library` of that name.
fn tile_id(name: &str, (x, y): (i32, i32), tile: &str, library: &BlockLibrary) -> Result<BlockId, StructureError2D> {
    let tile = tile.trim();
    if tile.is_empty() || tile == KEEP_NAME {
        return Ok(KEEP);
    }
    if tile == "air" {
        return Ok(AIR);
    }
    library.id_of(tile).ok_or_else(|| StructureError2D::UnknownTile {
        name: name.into(),
        x,
        y,
        tile: tile.into(),
        allowed: format!("air, keep or a block of the library ({})", library_names(library)),
    })
}

/// The tile name of each pixel of an image (`rgba`: `width × height` pixels, 4 bytes each, row
/// by row from the top): `""` (keep) where its alpha is below 128, else the name `colors` gives
/// its colour; a colour the map lacks is an error naming the pixel, its colour and the map's
/// colours. What [`StructureTemplate2D::from_rgba`] resolves, and what a resource stores.
pub fn rgba_tile_names<'a>(
    name: &str,
    width: i32,
    height: i32,
    rgba: &[u8],
    colors: &'a [([u8; 3], String)],
) -> Result<Vec<&'a str>, StructureError2D> {
    if !(1..=MAX_STRUCTURE_EDGE_2D).contains(&width) || !(1..=MAX_STRUCTURE_EDGE_2D).contains(&height) {
        return Err(StructureError2D::Shape {
            name: name.into(),
            problem: format!("size {width}×{height}"),
            allowed: format!("each edge 1..={MAX_STRUCTURE_EDGE_2D} tiles"),
        });
    }
    if rgba.len() != 4 * (width as usize) * (height as usize) {
        return Err(StructureError2D::Shape {
            name: name.into(),
            problem: format!("{} bytes of pixels for an image of {width}×{height}", rgba.len()),
            allowed: format!("exactly {} bytes (4 a pixel, RGBA8)", 4 * width * height),
        });
    }
    let hex = |c: [u8; 3]| format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
    let mut names = Vec::with_capacity((width * height) as usize);
    for (i, px) in rgba.chunks_exact(4).enumerate() {
        if px[3] < 128 {
            names.push("");
            continue;
        }
        let c = [px[0], px[1], px[2]];
        let tile = colors.iter().find(|(k, _)| *k == c).map(|(_, t)| t.as_str()).ok_or_else(|| {
            StructureError2D::UnknownColor {
                name: name.into(),
                x: i as i32 % width,
                y: i as i32 / width,
                color: hex(c),
                allowed: if colors.is_empty() {
                    "a colour of the map (the map is empty), or a transparent pixel".into()
                } else {
                    let listed: Vec<String> = colors.iter().map(|(k, t)| format!("{} ({t})", hex(*k))).collect();
                    format!("a colour of the map ({}) or a transparent pixel", listed.join(", "))
                },
            }
        })?;
        names.push(tile);
    }
    Ok(names)
}

/// The names of `library`'s blocks, for messages.
fn library_names(library: &BlockLibrary) -> String {
    library.blocks().iter().map(|b| b.name.as_str()).collect::<Vec<_>>().join(", ")
}

impl StructureTemplate2D {
    /// A template of `width × height` cells (row by row from the top). Each edge must be
    /// 1..=[`MAX_STRUCTURE_EDGE_2D`] and the cells exactly `width · height`.
    pub fn new(name: &str, width: i32, height: i32, cells: Vec<BlockId>) -> Result<Self, StructureError2D> {
        let shape = |problem: String, allowed: String| StructureError2D::Shape { name: name.into(), problem, allowed };
        if name.trim().is_empty() {
            return Err(shape("the name is empty".into(), "a name, what a rule's `structure` gives".into()));
        }
        if !(1..=MAX_STRUCTURE_EDGE_2D).contains(&width) || !(1..=MAX_STRUCTURE_EDGE_2D).contains(&height) {
            return Err(shape(
                format!("size {width}×{height}"),
                format!("each edge 1..={MAX_STRUCTURE_EDGE_2D} tiles"),
            ));
        }
        if cells.len() != (width * height) as usize {
            return Err(shape(
                format!("{} cells for size {width}×{height}", cells.len()),
                format!("exactly {} cells (width · height)", width * height),
            ));
        }
        Ok(Self { name: name.trim().into(), width, height, cells })
    }

    /// A template from tile names, row by row from the top (`names.len() == width · height`):
    /// `air` carves, `""` or `keep` keeps the world, any other name is a block of `library`.
    pub fn from_names(
        name: &str,
        width: i32,
        height: i32,
        names: &[&str],
        library: &BlockLibrary,
    ) -> Result<Self, StructureError2D> {
        if width < 1 || height < 1 || names.len() != (width.max(0) as usize) * (height.max(0) as usize) {
            return Self::new(name, width, height, vec![KEEP; names.len()])
                .and_then(|_| Self::new(name, width, height, Vec::new()));
        }
        let mut cells = Vec::with_capacity(names.len());
        for (i, tile) in names.iter().enumerate() {
            let at = (i as i32 % width, i as i32 / width);
            cells.push(tile_id(name, at, tile, library)?);
        }
        Self::new(name, width, height, cells)
    }

    /// A template drawn as text: one string per row from the top, one character per cell,
    /// every row as long as the first; `legend` gives each character's tile name (`air`,
    /// `keep`/`""`, or a block of `library`). A character outside the legend is an error naming
    /// its row and column.
    pub fn from_rows(
        name: &str,
        rows: &[&str],
        legend: &[(char, &str)],
        library: &BlockLibrary,
    ) -> Result<Self, StructureError2D> {
        let width = rows.first().map_or(0, |r| r.chars().count()) as i32;
        let height = rows.len() as i32;
        let mut names = Vec::with_capacity((width.max(0) * height) as usize);
        for (y, row) in rows.iter().enumerate() {
            if row.chars().count() as i32 != width {
                return Err(StructureError2D::Shape {
                    name: name.into(),
                    problem: format!("row {y} is {} characters long, row 0 {width}", row.chars().count()),
                    allowed: "rows of equal length".into(),
                });
            }
            for (x, ch) in row.chars().enumerate() {
                let tile = legend.iter().find(|(c, _)| *c == ch).map(|(_, t)| *t).ok_or_else(|| {
                    StructureError2D::UnknownChar {
                        name: name.into(),
                        x: x as i32,
                        y: y as i32,
                        ch,
                        allowed: legend.iter().map(|(c, t)| format!("`{c}` ({t})")).collect::<Vec<_>>().join(", "),
                    }
                })?;
                names.push(tile);
            }
        }
        Self::from_names(name, width, height, &names, library)
    }

    /// A template from an image: `rgba` holds `width × height` pixels, 4 bytes each, row by
    /// row from the top. A pixel whose alpha is below 128 keeps the world; any other pixel's
    /// colour (red, green, blue) must be one of `colors`, whose tile name it takes (`air`,
    /// `keep`, or a block of `library`). A colour the map lacks is an error naming the pixel,
    /// its colour and the map's colours ([`rgba_tile_names`]).
    pub fn from_rgba(
        name: &str,
        width: i32,
        height: i32,
        rgba: &[u8],
        colors: &[([u8; 3], String)],
        library: &BlockLibrary,
    ) -> Result<Self, StructureError2D> {
        let names = rgba_tile_names(name, width, height, rgba, colors)?;
        Self::from_names(name, width, height, &names, library)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn width(&self) -> i32 {
        self.width
    }

    pub fn height(&self) -> i32 {
        self.height
    }

    /// Every cell, row by row from the top: block ids and [`KEEP`].
    pub fn cells(&self) -> &[BlockId] {
        &self.cells
    }

    /// The cell at `(x, y)` (inside the size), a block id or [`KEEP`].
    pub fn get(&self, x: i32, y: i32) -> BlockId {
        self.cells[(y * self.width + x) as usize]
    }

    /// A hash of the name, size and cells.
    pub fn fingerprint(&self) -> u64 {
        let mut bytes = self.name.as_bytes().to_vec();
        bytes.push(0);
        for e in [self.width, self.height] {
            bytes.extend_from_slice(&e.to_le_bytes());
        }
        bytes.extend(self.cells.iter().flat_map(|c| c.to_le_bytes()));
        fnv1a64(&bytes)
    }
}

/// The side-view structures a world may place, by name.
#[derive(Clone, Debug, Default)]
pub struct StructureLibrary2D {
    templates: Vec<Arc<StructureTemplate2D>>,
}

impl StructureLibrary2D {
    /// A library of `templates`; a later template of the same name replaces an earlier one.
    pub fn new(templates: Vec<StructureTemplate2D>) -> Self {
        let mut lib = Self::default();
        for t in templates {
            lib.insert(t);
        }
        lib
    }

    /// Adds `t`, replacing a template of the same name.
    pub fn insert(&mut self, t: StructureTemplate2D) {
        match self.templates.iter().position(|o| o.name == t.name) {
            Some(i) => self.templates[i] = Arc::new(t),
            None => self.templates.push(Arc::new(t)),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Arc<StructureTemplate2D>> {
        self.templates.iter().find(|t| t.name == name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.templates.iter().map(|t| t.name.as_str()).collect()
    }

    pub fn templates(&self) -> &[Arc<StructureTemplate2D>] {
        &self.templates
    }

    /// A hash of every template, in order.
    pub fn fingerprint(&self) -> u64 {
        let bytes: Vec<u8> = self.templates.iter().flat_map(|t| t.fingerprint().to_le_bytes()).collect();
        fnv1a64(&bytes)
    }
}

/// One structure standing in a side-view world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement2D {
    /// Index of its rule in the preset.
    pub rule: u16,
    /// Mirrored left to right.
    pub flipped: bool,
    /// World tile of its top-left corner.
    pub min_x: i32,
    pub min_y: i32,
    pub width: i32,
    pub height: i32,
}

impl Placement2D {
    /// One past its right column.
    pub fn max_x(&self) -> i32 {
        self.min_x + self.width
    }

    /// One past its bottom row.
    pub fn max_y(&self) -> i32 {
        self.min_y + self.height
    }

    /// Whether world tile `(x, y)` lies in its box.
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.min_x && x < self.max_x() && y >= self.min_y && y < self.max_y()
    }

    /// The template column behind world column `x` (inside the box).
    fn template_x(&self, x: i32) -> i32 {
        let u = x - self.min_x;
        if self.flipped { self.width - 1 - u } else { u }
    }
}

/// A rule with its template resolved.
#[derive(Debug)]
struct ResolvedRule {
    template: Arc<StructureTemplate2D>,
    placement: StructurePlacement,
    spacing: i32,
    chance: f64,
    sink: i32,
    depth_min: i32,
    depth_max: i32,
    salt: u64,
}

/// What a placement needs of the terrain at its centre column, supplied by the generator: the
/// surface row, whether a pool covers it, and the rows of the generated terrain (before
/// structures) in a span of the column, for cave floors.
pub trait Terrain2D {
    /// Row of the topmost ground tile of column `x`.
    fn surface_row(&self, x: i32) -> i32;
    /// Whether column `x` holds a pool.
    fn is_wet(&self, x: i32) -> bool;
    /// The terrain's tiles (before structures) of column `x`, rows `y0..y0 + count`.
    fn column(&self, x: i32, y0: i32, count: i32) -> Vec<BlockId>;
}

/// The preset's structure rules resolved against a side-view structure library: answers which
/// structures meet a region and stamps them.
#[derive(Debug, Default)]
pub struct Structures2D {
    rules: Vec<ResolvedRule>,
    /// Placements already worked out, by (rule, cell): each costs a surface lookup (a cave
    /// rule's a column of terrain) and every chunk of a cell asks for it. A pure function's
    /// answers, so whichever worker filled an entry, the value is the same; emptied when it
    /// grows past [`PLACEMENT_CACHE_ENTRIES_2D`].
    cache: Mutex<HashMap<(u16, i32), Option<Placement2D>>>,
}

/// The most cells [`Structures2D`] remembers.
pub const PLACEMENT_CACHE_ENTRIES_2D: usize = 1 << 16;

impl Structures2D {
    /// Resolves the rules of `preset` (validated) against `library`.
    pub fn new(preset: &WorldPreset, library: &StructureLibrary2D) -> Result<Self, StructureError2D> {
        let mut rules = Vec::with_capacity(preset.structures.rules.len());
        for (i, r) in preset.structures.rules.iter().enumerate() {
            let template =
                library.get(r.structure.trim()).cloned().ok_or_else(|| StructureError2D::UnknownStructure {
                    rule: i,
                    name: r.structure.clone(),
                    allowed: format!("a side-view structure of the library ({})", library.names().join(", ")),
                })?;
            if r.spacing < template.width {
                return Err(StructureError2D::SpacingTooSmall {
                    rule: i,
                    name: template.name.clone(),
                    spacing: r.spacing,
                    width: template.width,
                });
            }
            if !r.biomes.is_empty() {
                return Err(StructureError2D::Biomes { rule: i, biomes: r.biomes.clone() });
            }
            rules.push(ResolvedRule {
                template,
                placement: r.placement,
                spacing: r.spacing.max(1),
                chance: r.chance as f64,
                sink: r.sink,
                depth_min: r.depth_min,
                depth_max: r.depth_max.max(r.depth_min),
                salt: mix64(fnv1a64(r.structure.trim().as_bytes()) ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            });
        }
        Ok(Self { rules, cache: Mutex::default() })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The template of rule `rule`.
    pub fn template(&self, rule: u16) -> Option<&Arc<StructureTemplate2D>> {
        self.rules.get(rule as usize).map(|r| &r.template)
    }

    /// Appends to `out` every placement whose box meets columns `[min_x, max_x)` (and rows
    /// `y_range.0..y_range.1` when given), rule by rule, cells in order: the same list for the
    /// same box whatever was asked before.
    pub fn placements_in(
        &self,
        terrain: &dyn Terrain2D,
        seed: u64,
        (min_x, max_x): (i32, i32),
        y_range: Option<(i32, i32)>,
        out: &mut Vec<Placement2D>,
    ) {
        if max_x <= min_x {
            return;
        }
        for (ri, rule) in self.rules.iter().enumerate() {
            let s = rule.spacing;
            for cx in min_x.div_euclid(s)..=(max_x - 1).div_euclid(s) {
                let Some(p) = self.cached_placement(terrain, seed, ri, cx) else { continue };
                let meets_x = p.min_x < max_x && p.max_x() > min_x;
                let meets_y = y_range.is_none_or(|(lo, hi)| p.min_y < hi && p.max_y() > lo);
                if meets_x && meets_y {
                    out.push(p);
                }
            }
        }
    }

    /// [`Structures2D::placement_in_cell`], remembered.
    fn cached_placement(&self, terrain: &dyn Terrain2D, seed: u64, ri: usize, cx: i32) -> Option<Placement2D> {
        let key = (ri as u16, cx);
        // A poisoned lock only means another worker panicked mid-insert: the map is still valid.
        if let Some(p) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return *p;
        }
        let p = self.placement_in_cell(terrain, seed, ri, cx);
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= PLACEMENT_CACHE_ENTRIES_2D {
            cache.clear();
        }
        cache.insert(key, p);
        p
    }

    /// The structure of rule `ri` in cell `cx`, if the cell holds one: a pure function of
    /// (seed, rule, cell) and the terrain's centre column.
    pub fn placement_in_cell(&self, terrain: &dyn Terrain2D, seed: u64, ri: usize, cx: i32) -> Option<Placement2D> {
        let rule = self.rules.get(ri)?;
        let h = hash1(seed, rule.salt, cx);
        if unit_f64(h) >= rule.chance {
            return None;
        }
        let flipped = mix64(h ^ 1) & 1 == 1;
        let (w, th) = (rule.template.width, rule.template.height);
        let s = rule.spacing;
        let ox = cx.checked_mul(s)?.checked_add((mix64(h ^ 2) % (s - w + 1) as u64) as i32)?;
        let centre = ox + w / 2;
        let surface = terrain.surface_row(centre);
        let min_y = match rule.placement {
            StructurePlacement::Surface => {
                if terrain.is_wet(centre) {
                    return None;
                }
                // The bottom row `sink` tiles below the first open row above the ground.
                surface.saturating_add(rule.sink).saturating_sub(th)
            }
            StructurePlacement::Underground => {
                let span = (rule.depth_max - rule.depth_min + 1).max(1) as u64;
                surface.saturating_add(rule.depth_min + (mix64(h ^ 4) % span) as i32)
            }
            StructurePlacement::Cave => {
                let y0 = surface.saturating_add(rule.depth_min);
                let count = rule.depth_max - rule.depth_min + 2;
                let column = terrain.column(centre, y0, count);
                let floor = (0..column.len().saturating_sub(1)).find(|&i| {
                    !crate::base::block::is_solid(column[i]) && crate::base::block::is_solid(column[i + 1])
                })?;
                // The floor is row `y0 + floor + 1`; the bottom row sits `sink` tiles into it.
                (y0 + floor as i32 + rule.sink).saturating_sub(th - 1)
            }
        };
        Some(Placement2D { rule: ri as u16, flipped, min_x: ox, min_y, width: w, height: th })
    }

    /// Writes the cells of `placements` that fall inside the rectangle `tiles` (`min_x`, `min_y`,
    /// `width`, row by row), in order (a later placement wins where two overlap); [`KEEP`]
    /// cells leave the tile as it is.
    pub fn stamp(&self, placements: &[Placement2D], grid: &mut crate::gen2d::TileGrid) {
        let (bx0, by0, bx1, by1) = (grid.min_x, grid.min_y, grid.min_x + grid.width, grid.min_y + grid.height);
        for p in placements {
            let Some(rule) = self.rules.get(p.rule as usize) else { continue };
            let t = &rule.template;
            for y in p.min_y.max(by0)..p.max_y().min(by1) {
                for x in p.min_x.max(bx0)..p.max_x().min(bx1) {
                    let cell = t.get(p.template_x(x), y - p.min_y);
                    if cell != KEEP {
                        grid.set(x, y, cell);
                    }
                }
            }
        }
    }

    /// The cell placement `p` sets at world tile `(x, y)`: a block id, or `None` where it keeps
    /// the world or `(x, y)` lies outside it.
    pub fn cell_at(&self, p: &Placement2D, x: i32, y: i32) -> Option<BlockId> {
        if !p.contains(x, y) {
            return None;
        }
        let t = &self.rules.get(p.rule as usize)?.template;
        let cell = t.get(p.template_x(x), y - p.min_y);
        (cell != KEEP).then_some(cell)
    }

    /// The highest row placement `p` sets a tile other than air in column `x` (air carves, so
    /// the sky passes it), or `None`.
    pub fn column_top(&self, p: &Placement2D, x: i32) -> Option<i32> {
        (p.min_y..p.max_y()).find(|&y| self.cell_at(p, x, y).is_some_and(|c| c != AIR))
    }
}
