//! The world generator: a pure function from (preset, world position) to block ids.
//!
//! [`Generator::generate_region`] fills any box of voxels. It runs the column pass over the
//! box's (x, z) rectangle ([`crate::gen3d::columns`]), then hands the stages, in order, a
//! [`StageContext`] of those columns: layers (ground and sea), caves, ores, water, structures,
//! then the user's generation hook when one is set ([`crate::gen3d::hook`]). Every stage
//! reads only the context and world coordinates (never neighbouring chunks' state or the order
//! of calls), so a chunk made alone equals the same box cut from a larger region (law: Seamless),
//! on any thread (law: Deterministic). Scatter ([`Generator::scatter_chunk_with_columns`]) reads
//! the same columns after a chunk is generated.
//!
//! The functions that generate take a [`GenScratch`] that the caller owns and reuses (a stream
//! worker keeps one); the ones without it make a fresh one, for tests and one-off calls.
//!
//! May use: `base`, `preset`, `noise`, and every other file of `gen3d`: this is the one file
//! that calls the stages; no stage imports it.

use crate::base::block::BlockId;
use crate::base::block_library::{BlockLibrary, default_library};
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::gen3d::caves::Caves;
use crate::gen3d::columns::{Column, ColumnGrid, ColumnPass, RingSurfaces, floor_to_i32};
use crate::gen3d::context::StageContext;
use crate::gen3d::hook::{HookRunner, HookStats};
use crate::gen3d::scatter::{self, ScatterInstance};
use crate::gen3d::scratch::GenScratch;
use crate::gen3d::structure_library::shipped_structures;
use crate::gen3d::structures::{Placement, StructureError, StructureLibrary, Structures};
use crate::gen3d::terrain::Terrain;
use crate::gen3d::trees::TreeSize;
use crate::gen3d::{layers, ores, spawns, water};
use crate::noise::heightmap::{Heightmap, HeightmapError};
use crate::preset::life_rule::LifeRuleError;
use crate::preset::model::{Biome, WorldPreset};
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;

/// Why a generator could not be built from a preset.
#[derive(Debug, Error)]
pub enum GeneratorError {
    #[error("invalid preset: {0}")]
    Preset(#[from] crate::preset::fields::FieldError),
    #[error("{0}")]
    Heightmap(#[from] HeightmapError),
    #[error("invalid preset: caves_life_rule: {0}")]
    LifeRule(#[from] LifeRuleError),
    #[error("invalid preset: {0}")]
    Structure(#[from] StructureError),
}

/// A generator built once per preset and shared by all workers (`Send + Sync`).
pub struct Generator {
    preset: Arc<WorldPreset>,
    terrain: Terrain,
    caves: Caves,
    /// The preset's structure rules resolved against the structure library.
    structures: Structures,
    /// User code that amends every generated box last, or None.
    hook: Option<Arc<HookRunner>>,
    /// Unique to this generator (a new one for each built or changed): the key of the column
    /// passes a [`GenScratch`] keeps.
    id: u64,
}

/// The identity of the next generator built.
fn next_generator_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator").field("seed", &self.preset.seed).finish()
    }
}

/// Asked for the heightmap by the preset's `heightmap_path` as written; see
/// [`GeneratorOptions::heightmap_loader`].
pub type HeightmapLoader<'a> = Box<dyn FnOnce(&str) -> Result<Arc<Heightmap>, HeightmapError> + 'a>;

/// How [`Generator::with_options`] and [`Generator::check_preset`] build a generator from a preset.
/// `GeneratorOptions::default()` is the built-in block library, the shipped structures and the
/// heightmap read from disk relative to the working directory; the builder methods change one
/// field: `GeneratorOptions::default().library(&lib).base_dir(Some(dir))`.
pub struct GeneratorOptions<'a> {
    /// The blocks the world is made of: the preset is validated against them (a biome's block
    /// name the library lacks is an error naming the row, field and the library's names) and the
    /// biome table's block names are resolved through them.
    pub library: &'a BlockLibrary,
    /// The structures the preset's structure rules name (the world's own, e.g. read from `.vox`
    /// files, with the shipped ones or without); `None`: the shipped structures made of
    /// `library`'s blocks ([`crate::gen3d::structure_library`]).
    pub structures: Option<&'a StructureLibrary>,
    /// The folder a relative heightmap path is resolved against (the preset file's folder);
    /// `None`: the working directory. Not read when `heightmap_loader` is set.
    pub base_dir: Option<&'a Path>,
    /// Asked for the heightmap (given the preset's `heightmap_path` as written) when the preset
    /// uses one, instead of reading the file: for hosts that read files their own way or keep
    /// loaded heightmaps (an engine's virtual file system, a cache). `None`: read from disk.
    pub heightmap_loader: Option<HeightmapLoader<'a>>,
    /// The height field's lattice step instead of the preset's (step 1 is the field without the
    /// lattice, at column centres). For benchmarks and comparisons only: its world is not the
    /// preset's. Not read by [`Generator::check_preset`].
    #[doc(hidden)]
    pub lattice_step: Option<i32>,
}

impl Default for GeneratorOptions<'_> {
    fn default() -> Self {
        GeneratorOptions {
            library: default_library(),
            structures: None,
            base_dir: None,
            heightmap_loader: None,
            lattice_step: None,
        }
    }
}

impl std::fmt::Debug for GeneratorOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeneratorOptions")
            .field("library_blocks", &self.library.len())
            .field("structures", &self.structures.is_some())
            .field("base_dir", &self.base_dir)
            .field("heightmap_loader", &self.heightmap_loader.is_some())
            .field("lattice_step", &self.lattice_step)
            .finish()
    }
}

impl<'a> GeneratorOptions<'a> {
    /// These options with the world made of the blocks of `library`.
    pub fn library(self, library: &'a BlockLibrary) -> Self {
        GeneratorOptions { library, ..self }
    }

    /// These options with the structure rules naming structures of `structures`.
    pub fn structures(self, structures: &'a StructureLibrary) -> Self {
        GeneratorOptions { structures: Some(structures), ..self }
    }

    /// These options resolving a relative heightmap path against `base_dir`.
    pub fn base_dir(self, base_dir: Option<&'a Path>) -> Self {
        GeneratorOptions { base_dir, ..self }
    }

    /// These options asking `load` for the heightmap.
    pub fn heightmap_loader(self, load: impl FnOnce(&str) -> Result<Arc<Heightmap>, HeightmapError> + 'a) -> Self {
        GeneratorOptions { heightmap_loader: Some(Box::new(load)), ..self }
    }

    /// These options with the height field's lattice step `step` (benchmarks only).
    #[doc(hidden)]
    pub fn lattice_step(self, step: i32) -> Self {
        GeneratorOptions { lattice_step: Some(step), ..self }
    }

    /// The heightmap loader: the one set, else the file at the path resolved against `base_dir`.
    fn into_loader(self) -> HeightmapLoader<'a> {
        let base_dir = self.base_dir;
        self.heightmap_loader.unwrap_or_else(|| {
            Box::new(move |path| {
                Heightmap::load(&crate::gen3d::terrain::heightmap_path_in(path, base_dir)).map(Arc::new)
            })
        })
    }
}

impl Generator {
    /// Builds a generator with the default options ([`GeneratorOptions::default`]): the preset
    /// is validated first, and a relative heightmap path is resolved against the working
    /// directory.
    pub fn new(preset: &WorldPreset) -> Result<Self, GeneratorError> {
        Self::with_options(preset, GeneratorOptions::default())
    }

    /// Builds a generator for `preset` as `options` say (block library, structures, where the
    /// heightmap comes from); the preset is validated against the library first.
    pub fn with_options(preset: &WorldPreset, options: GeneratorOptions<'_>) -> Result<Self, GeneratorError> {
        let (library, structures, step) = (options.library, options.structures, options.lattice_step);
        preset.validate_with_library(library)?;
        let mut terrain = Terrain::with_library_and_loader(preset, library, options.into_loader())?;
        if let Some(step) = step {
            terrain = terrain.with_lattice_step(step);
        }
        let structures = match structures {
            Some(own) => Structures::new(preset, terrain.biomes().table(), own)?,
            // Without rules no structure is built, so the shipped ones need not be.
            None if preset.structures.is_empty() => Structures::default(),
            None => Structures::new(preset, terrain.biomes().table(), &shipped_structures(library)?)?,
        }
        .with_trees(preset, terrain.biomes().table(), library)?;
        Ok(Self {
            preset: Arc::new(preset.clone()),
            terrain,
            caves: Caves::new(preset.seed, &preset.caves)?,
            structures,
            hook: None,
            id: next_generator_id(),
        })
    }

    /// Checks that `preset` builds a generator with `options` without building one: validation,
    /// then the heightmap when the preset uses one (loaded as the generator would load it), the
    /// cave rule and the structure rules. The error is the one [`Generator::with_options`] would
    /// report.
    pub fn check_preset(preset: &WorldPreset, options: GeneratorOptions<'_>) -> Result<(), GeneratorError> {
        let library = options.library;
        let shipped;
        let structures = match options.structures {
            Some(own) => own,
            None => {
                // Without rules no structure is built, so the shipped ones need not be.
                shipped = if preset.structures.is_empty() {
                    StructureLibrary::default()
                } else {
                    shipped_structures(library)?
                };
                &shipped
            }
        };
        preset.validate_with_library(library)?;
        if preset.height.heightmap_weight > 0.0 {
            (options.into_loader())(preset.height.heightmap_path.trim())?;
        }
        Caves::new(preset.seed, &preset.caves)?;
        let table = if preset.biomes.enabled { preset.biomes.table.as_slice() } else { &[] };
        Structures::new(preset, table, structures)?.with_trees(preset, table, library)?;
        Ok(())
    }

    /// The generator with (or with None without) the generation hook, which then amends every
    /// box it fills ([`crate::gen3d::hook`]).
    pub fn with_hook(mut self, hook: Option<Arc<HookRunner>>) -> Self {
        self.hook = hook;
        self.id = next_generator_id();
        self
    }

    /// What the generation hook has cost so far, or None without one.
    pub fn hook_stats(&self) -> Option<HookStats> {
        self.hook.as_ref().map(|h| h.stats())
    }

    pub fn preset(&self) -> &WorldPreset {
        &self.preset
    }

    pub fn seed(&self) -> u64 {
        self.preset.seed
    }

    /// The height field (sources, biomes, ravines).
    pub fn terrain(&self) -> &Terrain {
        &self.terrain
    }

    /// The cave stage (its automaton program and tunnel noise).
    pub fn caves(&self) -> &Caves {
        &self.caves
    }

    /// The column pass over this generator's height field.
    pub fn column_pass(&self) -> ColumnPass<'_> {
        ColumnPass::new(&self.terrain, &self.preset)
    }

    /// The biome table columns index into.
    pub fn biomes(&self) -> &[Biome] {
        self.terrain.biomes().table()
    }

    /// Continuous terrain height at world (x, z), before rounding to voxels.
    pub fn height_f(&self, x: f64, z: f64) -> f64 {
        self.terrain.sample(x, z).height
    }

    /// Index into [`Generator::biomes`] of the biome of column (x, z).
    pub fn biome_index_at(&self, x: i32, z: i32) -> u8 {
        self.terrain.biomes().biome_index_at(x as f64 + 0.5, z as f64 + 0.5)
    }

    /// The biome of column (x, z).
    pub fn biome_at(&self, x: i32, z: i32) -> &Biome {
        &self.biomes()[self.biome_index_at(x, z) as usize]
    }

    /// The column at integer world (x, z).
    pub fn column(&self, x: i32, z: i32) -> Column {
        self.column_pass().column(x, z)
    }

    /// The column pass: columns of `[min_x, min_x + size_x) × [min_z, min_z + size_z)` appended to
    /// `out` (x fastest); see [`crate::gen3d::columns`].
    pub fn columns_into(&self, min_x: i32, min_z: i32, size_x: usize, size_z: usize, out: &mut Vec<Column>) {
        self.column_pass().columns_into(min_x, min_z, size_x, size_z, out);
    }

    /// [`Generator::columns_into`] over the exact height field ([`Terrain::sample_grid_exact`]):
    /// the column pass without the lattice, the benchmark baseline.
    #[doc(hidden)]
    pub fn columns_into_exact(&self, min_x: i32, min_z: i32, size_x: usize, size_z: usize, out: &mut Vec<Column>) {
        self.column_pass().columns_into_exact(min_x, min_z, size_x, size_z, out);
    }

    /// The columns of `size_x × size_z` from (`min_x`, `min_z`) as a grid.
    pub fn column_grid(&self, min_x: i32, min_z: i32, size_x: i32, size_z: i32) -> ColumnGrid {
        let mut columns = Vec::with_capacity((size_x.max(0) * size_z.max(0)) as usize);
        self.columns_into(min_x, min_z, size_x.max(0) as usize, size_z.max(0) as usize, &mut columns);
        ColumnGrid { min_x, min_z, size_x, size_z, columns }
    }

    /// Surface and subsurface blocks of a column (see [`ColumnPass::column_blocks`]); for the
    /// far view's columns.
    #[inline]
    pub(crate) fn column_blocks(&self, biome: u8, surface: i32, slope: f64) -> (BlockId, BlockId) {
        self.column_pass().column_blocks(biome, surface, slope)
    }

    /// World y of the top face of the ground at (x, z).
    pub fn surface_height(&self, x: i32, z: i32) -> i32 {
        self.terrain.sample(x as f64 + 0.5, z as f64 + 0.5).height.floor() as i32
    }

    /// What the stages are handed for a region of columns `columns`, with the surfaces `ring`
    /// around them when known.
    fn context<'a>(&'a self, columns: &'a ColumnGrid, ring: Option<&'a RingSurfaces>) -> StageContext<'a> {
        StageContext::new(
            &self.preset,
            self.biomes(),
            self.terrain.biomes().all_params(),
            self.column_pass(),
            columns,
            ring,
        )
    }

    /// Fills `out` (its own box) with the world's voxels: the stages in order. Uses a fresh
    /// scratch; see [`Generator::generate_region_with`].
    pub fn generate_region(&self, out: &mut VoxelBuffer) {
        self.generate_region_with(out, &mut GenScratch::default());
    }

    /// [`Generator::generate_region`] reusing the buffers of `scratch`. Voxels of `out` beyond
    /// the world's bounds ([`crate::base::coords::voxel_in_world`]) are air, as
    /// [`Generator::voxel_at`] answers, so a box reaching past them (even one whose far corner
    /// would overflow `i32`) never makes a coordinate wrap.
    pub fn generate_region_with(&self, out: &mut VoxelBuffer, scratch: &mut GenScratch) {
        match inside_world(out.min(), out.size()) {
            Some((min, size)) if (min, size) == (out.min(), out.size()) => self.generate_inside_world(out, scratch),
            Some((min, size)) => {
                let mut inside = VoxelBuffer::new(min, size);
                self.generate_inside_world(&mut inside, scratch);
                out.data_mut().fill(crate::base::block::AIR);
                out.paste(&inside);
            }
            None => out.data_mut().fill(crate::base::block::AIR),
        }
    }

    /// [`Generator::generate_region_with`] for a box inside the world's bounds.
    fn generate_inside_world(&self, out: &mut VoxelBuffer, scratch: &mut GenScratch) {
        let (min, size) = (out.min(), out.size());
        let (nx, nz) = (size.x.max(0) as usize, size.z.max(0) as usize);
        let mut columns = ColumnGrid {
            min_x: min.x,
            min_z: min.z,
            size_x: size.x,
            size_z: size.z,
            columns: Vec::with_capacity(nx * nz),
        };
        if nx > 0 && nz > 0 {
            let pass = self.column_pass();
            pass.samples(min.x, min.z, nx, nz, false, &mut scratch.samples);
            pass.columns_from_samples(&scratch.samples, nx, nz, &mut columns.columns);
            scratch.ring.fill_from_samples(&scratch.samples, min.x, min.z, nx, nz);
        } else {
            scratch.ring.clear();
        }
        self.generate_from_columns(&columns, out, scratch);
    }

    /// The stages after the column pass; `columns` covers `out`'s (x, z) rectangle exactly, and
    /// `scratch.ring` holds the surfaces of the columns around it. Every voxel of `out` is
    /// written, so what it held before does not matter.
    fn generate_from_columns(&self, columns: &ColumnGrid, out: &mut VoxelBuffer, scratch: &mut GenScratch) {
        let ctx = self.context(columns, Some(&scratch.ring));
        layers::fill(&ctx, out);
        self.caves.carve_layers(&ctx, out, &mut scratch.caves);
        ores::place(&ctx, out);
        water::settle(&ctx, out);
        if !self.structures.is_empty() {
            let (min, max) = (out.min(), out.min() + out.size());
            let mut placements = Vec::new();
            self.structures.placements_in(&ctx, (min.x, min.z), (max.x, max.z), Some((min.y, max.y)), &mut placements);
            self.structures.stamp(&placements, out);
        }
        if let Some(hook) = &self.hook {
            hook.amend(out);
        }
    }

    /// Generates a new buffer covering `[min, min + size)`.
    pub fn generate_box(&self, min: IVec3, size: IVec3) -> VoxelBuffer {
        let mut b = VoxelBuffer::new(min, size);
        self.generate_region(&mut b);
        b
    }

    /// Generates exactly chunk `c`.
    pub fn generate_chunk(&self, c: ChunkCoord) -> VoxelBuffer {
        self.generate_box(c.min_voxel(), IVec3::splat(CHUNK_SIZE))
    }

    /// Generates chunk `c` with a one-voxel halo on every side (what the mesher needs). Uses a
    /// fresh scratch; see [`Generator::generate_padded_chunk_with`].
    pub fn generate_padded_chunk(&self, c: ChunkCoord, out: &mut VoxelBuffer) {
        self.generate_padded_chunk_with(c, out, &mut GenScratch::default());
    }

    /// [`Generator::generate_padded_chunk`] reusing the buffers of `scratch`.
    /// A chunk beyond the world's bounds ([`ChunkCoord::in_world`]) is air: `out` becomes the
    /// all-air padded box of [`ChunkCoord::clamped_to_world`], so no coordinate wraps.
    pub fn generate_padded_chunk_with(&self, c: ChunkCoord, out: &mut VoxelBuffer, scratch: &mut GenScratch) {
        if !c.in_world() {
            out.reset(c.clamped_to_world().min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2));
            return;
        }
        // Every voxel is written (the layer stage, or air beyond the world's bounds), so the
        // buffer is not cleared first.
        out.reshape_for_overwrite(c.min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2));
        self.generate_region_with(out, scratch);
    }

    /// [`Generator::generate_padded_chunk_with`] that stops after the column pass's heights
    /// when the chunk is sky ([`Generator::chunk_is_sky`], from the same heights): then it
    /// returns `true` and `out` is the padded box all air, which is exactly what generating it
    /// would give. A sky chunk so costs one height pass and nothing else, and a chunk that is not
    /// sky costs no extra pass for the test. `columns` receives the padded chunk's columns
    /// (34 × 34 from `min_voxel − 1`) when it is not sky, for later stages that need them
    /// (scatter), and keeps its allocation across calls, as `scratch` does.
    pub fn generate_padded_chunk_unless_sky(
        &self,
        c: ChunkCoord,
        out: &mut VoxelBuffer,
        columns: &mut ColumnGrid,
        scratch: &mut GenScratch,
    ) -> bool {
        if !c.in_world() {
            // Beyond the world's bounds: sky, as [`Generator::generate_padded_chunk_with`] says.
            out.reset(c.clamped_to_world().min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2));
            return true;
        }
        let (min, n) = (c.min_voxel() - IVec3::ONE, CHUNK_SIZE + 2);
        let (nu, gx) = (n as usize, n as usize + 2);
        let pass = self.column_pass();
        let samples = &mut scratch.samples;
        // The chunks of a column share its pass (a pure function of the generator and columns).
        let key = (self.id, min.x, min.z, nu);
        if !scratch.passes.take(key, samples) {
            pass.samples(min.x, min.z, nu, nu, false, samples);
            scratch.passes.keep(key, samples);
        }
        // The highest surface, from the highest height: flooring is monotonic, so only a NaN
        // height (surface 0) is not covered by the maximum (which skips it).
        let (highest, nan) = (1..=nu)
            .flat_map(|k| &samples[k * gx + 1..k * gx + 1 + nu])
            .fold((f64::NEG_INFINITY, false), |(m, nan), s| (m.max(s.height), nan | s.height.is_nan()));
        let hi = if nu == 0 { i32::MIN } else { floor_to_i32(highest).max(if nan { 0 } else { i32::MIN }) };
        columns.columns.clear();
        (columns.min_x, columns.min_z, columns.size_x, columns.size_z) = (min.x, min.z, n, n);
        if self.sky_above(c, hi) && self.sky_above(c, self.structure_top_over_chunk(c)) {
            out.reset(min, IVec3::splat(n));
            // Generating would give air: the hook amends that air, and only what it adds
            // makes the chunk more than sky.
            let Some(hook) = &self.hook else { return true };
            hook.amend(out);
            if out.uniform_block() == Some(crate::base::block::AIR) {
                return true;
            }
            pass.columns_from_samples(samples, nu, nu, &mut columns.columns);
        } else {
            pass.columns_from_samples(samples, nu, nu, &mut columns.columns);
            scratch.ring.fill_from_samples(samples, min.x, min.z, nu, nu);
            // The layer stage writes every voxel, so the buffer is not cleared first.
            out.reshape_for_overwrite(min, IVec3::splat(n));
            self.generate_from_columns(columns, out, scratch);
        }
        // The halo of a chunk at the limit reaches past it: air there, as everywhere beyond.
        if let Some((min, size)) = inside_world(out.min(), out.size())
            && (min, size) != (out.min(), out.size())
        {
            let inside = out.sub_buffer(min, size);
            out.data_mut().fill(crate::base::block::AIR);
            out.paste(&inside);
        }
        false
    }

    /// The decorations whose base lies in chunk `c` ([`crate::gen3d::scatter`]).
    pub fn scatter_chunk(&self, c: ChunkCoord) -> Vec<ScatterInstance> {
        self.without_structures(scatter::scatter_chunk(&self.context(&ColumnGrid::default(), None), c))
    }

    /// [`Generator::scatter_chunk`] reading columns from `columns` (e.g. the padded chunk's grid
    /// from [`Generator::generate_padded_chunk_unless_sky`]) where it covers them: same result,
    /// no per-point column work.
    pub fn scatter_chunk_with_columns(&self, c: ChunkCoord, columns: &ColumnGrid) -> Vec<ScatterInstance> {
        self.without_structures(scatter::scatter_chunk(&self.context(columns, None), c))
    }

    /// Where the preset's spawn rules start objects in chunk `c` ([`spawns::spawn_chunk`]):
    /// `voxels` is the chunk's generated padded box (before edits), `columns` its column grid
    /// (as for [`Generator::scatter_chunk_with_columns`]), `light` the combined light of a voxel
    /// for rules that filter by light.
    pub fn spawn_chunk_with_columns(
        &self,
        c: ChunkCoord,
        columns: &ColumnGrid,
        voxels: &VoxelBuffer,
        light: Option<&dyn Fn(IVec3) -> u8>,
    ) -> Vec<spawns::SpawnPoint> {
        let with_entities = self.preset.structures.rules.iter().any(|r| !r.entity.is_empty());
        if self.preset.spawns.is_empty() && !with_entities {
            return Vec::new();
        }
        let mut out = spawns::spawn_chunk(&self.context(columns, None), c, voxels, light);
        if with_entities {
            let m = c.min_voxel();
            let boxes: Vec<spawns::StructureBox> = self
                .structures_in((m.x, m.z), (m.x + CHUNK_SIZE, m.z + CHUNK_SIZE))
                .iter()
                .map(|p| spawns::StructureBox { rule: p.rule, turns: p.turns, min: p.min, size: p.size })
                .collect();
            out.extend(spawns::structure_entities(&self.preset, &boxes, c, voxels));
        }
        out
    }

    /// The decorations whose base column lies in `[min_x, min_x + size_x) × [min_z, min_z +
    /// size_z)` ([`scatter::scatter_columns`]).
    pub fn scatter_columns(&self, min_x: i32, min_z: i32, size_x: i32, size_z: i32) -> Vec<ScatterInstance> {
        self.without_structures(scatter::scatter_columns(
            &self.context(&ColumnGrid::default(), None),
            min_x,
            min_z,
            size_x,
            size_z,
        ))
    }

    /// The structures of the preset's structure rules (not the trees) whose boxes meet the
    /// columns `[min, max)` (x, z), in stamping order.
    pub fn structures_in(&self, min: (i32, i32), max: (i32, i32)) -> Vec<Placement> {
        let mut out = Vec::new();
        let none = ColumnGrid::default();
        self.structures.template_placements_in(&self.context(&none, None), min, max, None, &mut out);
        out
    }

    /// The trees of blocks whose boxes meet the columns `[min, max)` (x, z), in stamping order
    /// (none while `trees` is off); a tree's `variant` is its species' index in the preset's
    /// `trees.species` ([`Generator::tree_species_name`]).
    pub fn trees_in(&self, min: (i32, i32), max: (i32, i32)) -> Vec<Placement> {
        let mut out = Vec::new();
        let none = ColumnGrid::default();
        self.structures.tree_placements_in(&self.context(&none, None), min, max, None, &mut out);
        out
    }

    /// Everything stamped over the columns `[min, max)`: the trees, then the structures, in
    /// stamping order.
    pub fn placements_in(&self, min: (i32, i32), max: (i32, i32)) -> Vec<Placement> {
        let mut out = Vec::new();
        if !self.structures.is_empty() {
            let none = ColumnGrid::default();
            self.structures.placements_in(&self.context(&none, None), min, max, None, &mut out);
        }
        out
    }

    /// The name of the species of tree `p` (from [`Generator::trees_in`]); `None` for a
    /// structure.
    pub fn tree_species_name(&self, p: &Placement) -> Option<&str> {
        if !self.structures.is_tree(p) {
            return None;
        }
        self.structures.species_name(p.variant)
    }

    /// The measures of tree `p` (from [`Generator::trees_in`]): trunk height, crown radius and
    /// height; `None` for a structure.
    pub fn tree_size(&self, p: &Placement) -> Option<TreeSize> {
        self.structures.tree_size(p)
    }

    /// One past the top of the highest structure or tree over the columns `[min, max)`, or
    /// `None` where none stands: above it, the ground and the sea the generated world is air.
    pub fn structure_top(&self, min: (i32, i32), max: (i32, i32)) -> Option<i32> {
        self.placements_in(min, max).iter().map(|p| p.max().y).max()
    }

    /// The top of structure or tree `p` in world column `(x, z)` (one past its highest block
    /// there) and that block ([`Structures::column_top`]).
    pub fn structure_column_top(&self, p: &Placement, x: i32, z: i32) -> Option<(i32, BlockId)> {
        self.structures.column_top(p, x, z)
    }

    /// [`Generator::structure_column_top`] of every column of `p`'s box, into `tops` (the column
    /// `(p.min.x + u, p.min.z + v)` at `v · p.size.x + u`; [`Structures::column_tops`]).
    pub fn structure_column_tops(&self, p: &Placement, tops: &mut Vec<Option<(i32, BlockId)>>) {
        self.structures.column_tops(p, tops);
    }

    /// [`Generator::structure_top`] over padded chunk `c`'s columns, `i32::MIN` for none.
    fn structure_top_over_chunk(&self, c: ChunkCoord) -> i32 {
        let m = c.min_voxel();
        let n = CHUNK_SIZE + 1;
        self.structure_top((m.x - 1, m.z - 1), (m.x + n, m.z + n)).unwrap_or(i32::MIN)
    }

    /// `instances` less those standing inside a structure's box.
    fn without_structures(&self, mut instances: Vec<ScatterInstance>) -> Vec<ScatterInstance> {
        if self.structures.is_empty() || instances.is_empty() {
            return instances;
        }
        let (mut lo, mut hi) = ((i32::MAX, i32::MAX), (i32::MIN, i32::MIN));
        for i in &instances {
            let b = i.base_voxel();
            (lo, hi) = ((lo.0.min(b.x), lo.1.min(b.z)), (hi.0.max(b.x + 1), hi.1.max(b.z + 1)));
        }
        let placements = self.placements_in(lo, hi);
        instances.retain(|i| !self.structures.covers(&placements, i.base_voxel()));
        instances
    }

    /// The block at one world position (generates a 1×1×1 box); air beyond the world's bounds
    /// ([`crate::base::coords::voxel_in_world`]).
    pub fn voxel_at(&self, p: IVec3) -> BlockId {
        if !crate::base::coords::voxel_in_world(p) {
            return crate::base::block::AIR;
        }
        self.generate_box(p, IVec3::ONE).data()[0]
    }

    /// Lowest and highest surface over the columns of chunk `c` (plus a one-voxel halo), so the
    /// streamer can skip chunks that are all air without generating them.
    pub fn surface_range(&self, c: ChunkCoord) -> (i32, i32) {
        let m = c.min_voxel();
        let n = (CHUNK_SIZE + 2) as usize;
        let mut samples = Vec::with_capacity(n * n);
        self.terrain.sample_grid(m.x as f64 - 0.5, m.z as f64 - 0.5, 1.0, n, n, &mut samples);
        samples.iter().fold((i32::MAX, i32::MIN), |(lo, hi), s| {
            let y = s.height.floor() as i32;
            (lo.min(y), hi.max(y))
        })
    }

    /// True when chunk `c` (with its halo) is certainly all air, so it needs no mesh. When the
    /// chunk is generated anyway unless sky, [`Generator::generate_padded_chunk_unless_sky`]
    /// shares the column pass. With a generation hook, the hook is handed the padded chunk's
    /// air and the chunk is sky only when it adds nothing.
    pub fn chunk_is_sky(&self, c: ChunkCoord) -> bool {
        let (_, hi) = self.surface_range(c);
        self.sky_above(c, hi) && self.sky_above(c, self.structure_top_over_chunk(c)) && self.hook_leaves_air(c)
    }

    /// True without a hook, or when the hook adds nothing to the air of padded chunk `c`.
    fn hook_leaves_air(&self, c: ChunkCoord) -> bool {
        let Some(hook) = &self.hook else { return true };
        let mut air = VoxelBuffer::new(c.min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2));
        hook.amend(&mut air);
        air.uniform_block() == Some(crate::base::block::AIR)
    }

    /// Whether the padded chunk `c` lies above ground whose highest surface is `hi`, and above
    /// the sea.
    fn sky_above(&self, c: ChunkCoord, hi: i32) -> bool {
        let bottom = c.min_voxel().y - 1;
        let water_top = if self.preset.water.enabled { self.preset.water.sea_level } else { i32::MIN };
        bottom >= hi && bottom >= water_top
    }
}

/// The part of the box `[min, min + size)` inside the world's bounds, as (min, size), or None
/// when no voxel of it is inside. Worked out in `i64`, so a box whose far corner lies past
/// `i32::MAX` is handled too.
fn inside_world(min: IVec3, size: IVec3) -> Option<(IVec3, IVec3)> {
    let limit = crate::base::coords::WORLD_LIMIT_VOXELS as i64;
    let axis = |m: i32, s: i32| -> Option<(i32, i32)> {
        let lo = (m as i64).max(-limit);
        let hi = (m as i64 + s as i64).min(limit);
        (hi > lo).then_some((lo as i32, (hi - lo) as i32))
    };
    let (x, sx) = axis(min.x, size.x)?;
    let (y, sy) = axis(min.y, size.y)?;
    let (z, sz) = axis(min.z, size.z)?;
    Some((IVec3::new(x, y, z), IVec3::new(sx, sy, sz)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block::{self, AIR};

    #[test]
    fn the_sky_shortcut_gives_the_padded_chunk_and_the_sky_test() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        let (mut a, mut b, mut columns) = (
            VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
            VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
            ColumnGrid::default(),
        );
        let mut scratch = GenScratch::default();
        let mut skies = 0;
        for (cx, cz) in [(0, 0), (3, -2), (-7, 5), (40, 41)] {
            for cy in -3..5 {
                let c = ChunkCoord::new(cx, cy, cz);
                let sky = g.generate_padded_chunk_unless_sky(c, &mut a, &mut columns, &mut scratch);
                g.generate_padded_chunk(c, &mut b);
                assert_eq!(sky, g.chunk_is_sky(c), "{c:?}");
                assert_eq!(a, b, "{c:?}");
                if sky {
                    skies += 1;
                    assert!(columns.columns.is_empty());
                } else {
                    let m = c.min_voxel() - IVec3::ONE;
                    assert_eq!(columns.columns, g.column_grid(m.x, m.z, CHUNK_SIZE + 2, CHUNK_SIZE + 2).columns);
                }
            }
        }
        assert!(skies > 4 && skies < 28, "{skies}");
    }

    #[test]
    fn column_passes_kept_in_a_scratch_serve_only_their_own_generator_and_columns() {
        // Two worlds alike but for the seed, and one with a hook (a changed generator), through
        // one scratch in turns, over more columns than it keeps: each chunk is what a fresh
        // scratch gives for its own generator.
        let a = Generator::new(&WorldPreset::default()).unwrap();
        let b = Generator::new(&WorldPreset { seed: 99, ..WorldPreset::default() }).unwrap();
        let hooked = Generator::new(&WorldPreset::default()).unwrap().with_hook(None);
        let mut scratch = GenScratch::default();
        let (mut out, mut fresh, mut columns) = (
            VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
            VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
            ColumnGrid::default(),
        );
        let mut fresh_columns = ColumnGrid::default();
        for round in 0..2 {
            for i in 0..(crate::gen3d::scratch::ColumnPasses::CAPACITY as i32 + 3) {
                for (g, cy) in [(&a, -1), (&b, -1), (&hooked, 0), (&a, 0), (&b, -2)] {
                    let c = ChunkCoord::new(i * 3 - 20, cy, round - i);
                    let sky = g.generate_padded_chunk_unless_sky(c, &mut out, &mut columns, &mut scratch);
                    let fresh_sky = g.generate_padded_chunk_unless_sky(
                        c,
                        &mut fresh,
                        &mut fresh_columns,
                        &mut GenScratch::default(),
                    );
                    assert_eq!((sky, &out, &columns.columns), (fresh_sky, &fresh, &fresh_columns.columns), "{c:?}");
                }
            }
        }
    }

    #[test]
    fn a_used_scratch_gives_what_a_fresh_one_gives() {
        let mut preset = WorldPreset::default();
        (preset.caves.tunnel_strength, preset.caves.tunnel_width) = (1.0, 0.2);
        let g = Generator::new(&preset).unwrap();
        let mut scratch = GenScratch::default();
        let (mut used, mut fresh) =
            (VoxelBuffer::new(IVec3::ZERO, IVec3::ONE), VoxelBuffer::new(IVec3::ZERO, IVec3::ONE));
        for c in [
            ChunkCoord::new(0, -1, 0),
            ChunkCoord::new(5, -3, -2),
            ChunkCoord::new(0, -1, 0),
            ChunkCoord::new(-9, 0, 4),
            ChunkCoord::new(2, -6, 2),
        ] {
            g.generate_padded_chunk_with(c, &mut used, &mut scratch);
            g.generate_padded_chunk(c, &mut fresh);
            assert_eq!(used, fresh, "{c:?}");
            // The buffer is not cleared first: whatever it held, every voxel is the generator's.
            let (pmin, psize) = (c.min_voxel() - IVec3::ONE, IVec3::splat(CHUNK_SIZE + 2));
            let mut dirty = VoxelBuffer::new(pmin, psize);
            dirty.data_mut().fill(crate::base::block::STONE);
            g.generate_padded_chunk_with(c, &mut dirty, &mut scratch);
            assert_eq!(dirty, g.generate_box(pmin, psize), "{c:?} over a buffer of stone");
        }
        let (min, size) = (IVec3::new(-30, -50, 7), IVec3::new(11, 20, 9));
        let mut region = VoxelBuffer::new(min, size);
        g.generate_region_with(&mut region, &mut scratch);
        assert_eq!(region, g.generate_box(min, size));
    }

    #[test]
    fn ground_below_surface_air_above() {
        let g = Generator::new(&WorldPreset::default()).unwrap();
        for (x, z) in [(0, 0), (100, -37), (-5000, 12345)] {
            let s = g.surface_height(x, z);
            assert!(block::is_solid(g.voxel_at(IVec3::new(x, s - 1, z))));
            let above = g.voxel_at(IVec3::new(x, s, z));
            assert!(above == AIR || above == block::WATER);
        }
    }

    #[test]
    fn water_seals_alike_with_and_without_the_ring() {
        let mut preset = WorldPreset::default();
        preset.water.sea_level = 12;
        preset.caves.fill_probability = 0.5;
        preset.caves.min_depth = 1;
        (preset.caves.allow_surface_breach, preset.caves.tunnel_strength, preset.caves.tunnel_width) = (true, 1.0, 0.2);
        let g = Generator::new(&preset).unwrap();
        let pass = g.column_pass();
        let mut scratch = GenScratch::default();
        let mut sealed = 0;
        for (min, size) in [
            (IVec3::new(-64, -20, -64), IVec3::new(128, 34, 128)),
            (IVec3::new(61, -30, 95), IVec3::new(40, 45, 23)),
            (IVec3::new(-300, 0, 7), IVec3::new(1, 13, 5)),
        ] {
            let (nx, nz) = (size.x as usize, size.z as usize);
            let mut samples = Vec::new();
            pass.samples(min.x, min.z, nx, nz, false, &mut samples);
            let mut columns =
                ColumnGrid { min_x: min.x, min_z: min.z, size_x: size.x, size_z: size.z, columns: Vec::new() };
            pass.columns_from_samples(&samples, nx, nz, &mut columns.columns);
            let mut ring = RingSurfaces::default();
            ring.fill_from_samples(&samples, min.x, min.z, nx, nz);
            let mut before = VoxelBuffer::new(min, size);
            let (with, without) = (g.context(&columns, Some(&ring)), g.context(&columns, None));
            layers::fill(&with, &mut before);
            g.caves.carve(&with, &mut before, &mut scratch.caves);
            let (mut with_ring, mut without_ring) = (before.clone(), before.clone());
            water::settle(&with, &mut with_ring);
            water::settle(&without, &mut without_ring);
            assert_eq!(with_ring, without_ring, "{min:?}");
            sealed += with_ring.data().iter().zip(before.data()).filter(|(a, b)| a != b).count();
        }
        assert!(sealed > 0, "no water sealed in the test boxes");
    }
}
