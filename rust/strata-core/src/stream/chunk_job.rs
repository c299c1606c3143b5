//! The worker's side of streaming: what one job is (its key, [`JobData`]), what it hands back
//! ([`StreamResult`]) and how it is built ([`build`]): generate the padded chunk (one column
//! pass, which also tells a sky chunk apart), apply edits, place scatter and spawns, light, mesh,
//! pack, build collision faces and bake navigation; or build one far column. Runs on worker
//! threads only; it reads nothing but the generator, the voxel cache and the job.
//!
//! [`crate::stream::streamer`] (the main thread's side) sends the jobs and takes the results; the
//! `StreamConfig` and `Streamer` settings named below are its.
//!
//! May use: `base`, `gen3d`, `light`, `mesh`, `nav` and the other `stream` modules but the streamer.

use crate::base::block::BlockId;
use crate::base::chunk::VoxelBuffer;
use crate::base::coords::{CHUNK_SIZE, ChunkCoord, IVec3};
use crate::base::edits::apply_edits;
use crate::gen3d::columns::ColumnGrid;
use crate::gen3d::pipeline::Generator;
use crate::gen3d::scatter::ScatterInstance;
use crate::gen3d::scratch::GenScratch;
use crate::gen3d::spawns::SpawnPoint;
use crate::light::LightProps;
use crate::mesh::bytes::MeshBytes;
use crate::mesh::{COLLISION_PART_TRIANGLES, ChunkMesh, CollisionParts, MeshMaterials, Mesher};
use crate::nav::NavMesh;
use crate::stream::buffer_pool::BufferPool;
use crate::stream::far_mesh::{FarMesh, FarScratch, build_far_column};
use crate::stream::far_policy::LodColumn;
use crate::stream::lighting::ChunkLighter;
use crate::stream::navigation::{NavConfig, NavInput, StreamedChunk, bake_streamed_chunk};
use crate::stream::scheduler::{Job, JobResult};
use crate::stream::voxel_cache::VoxelCache;
use std::sync::Arc;
use std::time::Instant;

/// What the streamer loads: a near chunk or a far column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StreamKey {
    Near(ChunkCoord),
    Far(LodColumn),
}

/// A finished near chunk, ready for the main thread to turn into a node.
#[derive(Debug)]
pub struct ChunkResult {
    pub coord: ChunkCoord,
    /// The chunk's vertex arrays. Empty when the chunk has no visible faces (sky, or buried
    /// solid), and whenever the workers pack (`StreamConfig::pack_surfaces`): the mesh is then
    /// `packed` alone.
    pub mesh: ChunkMesh,
    /// Decorations (trees, bushes, flowers, rocks) standing in this chunk, on ground that is
    /// still there after caves and edits.
    pub scatter: Vec<ScatterInstance>,
    /// Where the preset's spawn rules start objects in this chunk (from the generated voxels;
    /// empty for an update after an edit, whose spawns the first load gave).
    pub spawns: Vec<SpawnPoint>,
    /// Collision triangles (corners, relative to the chunk's minimum corner) split into parts a
    /// physics engine builds one at a time ([`COLLISION_PART_TRIANGLES`] at most each), when the
    /// job asked for them (`StreamConfig::collision_distance`, `Streamer::request_collision`).
    pub collision: Option<CollisionParts>,
    /// The mesh in Godot's stored form (`StreamConfig::pack_surfaces`).
    pub packed: Option<MeshBytes>,
    /// Generating the chunk, its light included.
    pub gen_us: u32,
    /// Of `gen_us`, lighting the chunk: generating its margin and the slabs above, and
    /// propagating (`StreamConfig::light`; 0 without).
    pub light_us: u32,
    pub mesh_us: u32,
    /// True when this replaces an already loaded chunk (an edit was made).
    pub is_update: bool,
    /// The chunk's navigation mesh, when the job baked one (`StreamConfig::navigation`,
    /// `Streamer::request_navigation`); empty where nothing is walkable.
    pub navigation: Option<NavMesh>,
    /// Baking `navigation` on the worker (0 without).
    pub nav_us: u32,
    pub(crate) job_id: u64,
}

impl ChunkResult {
    /// Whether the chunk has a face to show, in whichever form its mesh came.
    pub fn has_faces(&self) -> bool {
        !self.mesh.is_empty() || self.packed.as_ref().is_some_and(|p| !p.is_empty())
    }

    /// The triangles of the opaque surface as a flat list of corners (3 a triangle, relative to
    /// the chunk's minimum corner), from whichever form the mesh came in: e.g. a collision shape
    /// for a chunk whose job built no collision faces.
    pub fn opaque_triangle_corners(&self) -> Vec<[f32; 3]> {
        match self.packed.as_ref().and_then(|p| p.opaque.as_ref()) {
            Some(opaque) => opaque.triangle_corners(),
            None => self.mesh.opaque.triangle_corners(),
        }
    }
}

/// A finished far column.
#[derive(Debug)]
pub struct FarResult {
    pub far: FarMesh,
    /// The mesh in Godot's stored form (`StreamConfig::pack_surfaces`).
    pub packed: Option<MeshBytes>,
    pub gen_us: u32,
    pub mesh_us: u32,
    pub(crate) job_id: u64,
}

/// What a worker hands back.
#[derive(Debug)]
pub enum StreamResult {
    Near(ChunkResult),
    Far(FarResult),
}

impl JobResult<StreamKey> for StreamResult {
    fn coord(&self) -> StreamKey {
        match self {
            StreamResult::Near(r) => StreamKey::Near(r.coord),
            StreamResult::Far(r) => StreamKey::Far(r.far.column),
        }
    }
    fn job_id(&self) -> u64 {
        match self {
            StreamResult::Near(r) => r.job_id,
            StreamResult::Far(r) => r.job_id,
        }
    }
    fn timings_us(&self) -> (u32, u32) {
        match self {
            StreamResult::Near(r) => (r.gen_us, r.mesh_us),
            StreamResult::Far(r) => (r.gen_us, r.mesh_us),
        }
    }
    fn timing_class(&self) -> usize {
        matches!(self, StreamResult::Far(_)) as usize
    }
}

/// The edits inside a chunk's padded box.
pub(crate) type Edits = Vec<(IVec3, BlockId)>;

/// What a worker needs besides the generator and the key.
#[derive(Debug)]
pub struct JobData {
    /// Edits inside the chunk's padded box (near chunks).
    pub(crate) edits: Edits,
    /// Build collision faces too (the chunk is near the viewer).
    pub(crate) collision: bool,
    /// Mesh with ambient occlusion (`StreamConfig::ambient_occlusion` when the job was sent).
    pub(crate) ambient_occlusion: bool,
    /// `StreamConfig::shader_occlusion`.
    pub(crate) shader_occlusion: bool,
    /// Mesh with these materials (`StreamConfig::mesh_materials` when the job was sent).
    pub(crate) materials: Arc<MeshMaterials>,
    /// Light the chunk with these properties (`StreamConfig::light` when the job was sent);
    /// then `edits` holds every edit the light box needs
    /// ([`crate::stream::lighting::edits_for_light`]).
    pub(crate) light: Option<Arc<LightProps>>,
    /// `StreamConfig::spawn_light` when the job was sent.
    pub(crate) spawn_light: Option<Arc<LightProps>>,
    /// Bake a navigation mesh with this config; then `edits` also covers the bake's input box.
    pub(crate) navigation: Option<Arc<NavConfig>>,
}

impl JobData {
    /// Whether this job's AO goes to the shader: meshed without it, the occluder bits beside
    /// (only with packed streams, which carry the bits).
    fn shader_ao(&self, pack: bool) -> bool {
        pack && self.ambient_occlusion && self.shader_occlusion
    }
}

impl Default for JobData {
    fn default() -> Self {
        Self {
            edits: Edits::default(),
            collision: false,
            ambient_occlusion: true,
            shader_occlusion: false,
            materials: MeshMaterials::shared_default(),
            light: None,
            spawn_light: None,
            navigation: None,
        }
    }
}

/// A result's mesh buffers, emptied and reused by the next job (no allocation, no fresh pages).
#[derive(Default)]
pub(crate) struct MeshBuffers {
    pub(crate) mesh: ChunkMesh,
    pub(crate) packed: MeshBytes,
}

/// A worker's reusable buffers (no allocation per job beyond the results): made by each worker
/// when it starts and handed to every job it runs.
pub(crate) struct Scratch {
    padded: VoxelBuffer,
    columns: ColumnGrid,
    generation: GenScratch,
    far: FarScratch,
    mesher: Mesher,
    lighter: ChunkLighter,
    nav: NavInput,
    /// The collision triangles before they are split into parts.
    collision_faces: Vec<[f32; 3]>,
}

impl Scratch {
    pub(crate) fn new() -> Self {
        Self {
            padded: VoxelBuffer::new(IVec3::ZERO, IVec3::ONE),
            columns: ColumnGrid { min_x: 0, min_z: 0, size_x: 0, size_z: 0, columns: Vec::new() },
            generation: GenScratch::default(),
            far: FarScratch::default(),
            mesher: Mesher::new(),
            lighter: ChunkLighter::default(),
            nav: NavInput::default(),
            collision_faces: Vec::new(),
        }
    }
}

/// Builds one job's result.
pub(crate) fn build(
    generator: &Generator,
    cache: &VoxelCache,
    job: Job<StreamKey, JobData>,
    scratch: &mut Scratch,
    pack: bool,
    recycled: &BufferPool<MeshBuffers>,
) -> Option<StreamResult> {
    let buffers = recycled.take().unwrap_or_default();
    match job.coord {
        StreamKey::Near(c) => {
            let job = Job { id: job.id, coord: c, cancel: job.cancel, is_update: job.is_update, payload: job.payload };
            build_chunk(generator, cache, job, scratch, pack, buffers).map(StreamResult::Near)
        }
        StreamKey::Far(f) => {
            let t0 = Instant::now();
            let MeshBuffers { mesh, packed: mut bytes } = buffers;
            let mut far = FarMesh { mesh, ..FarMesh::default() };
            let shader_ao = job.payload.shader_ao(pack);
            scratch.far.set_ambient_occlusion(job.payload.ambient_occlusion && !shader_ao);
            scratch.far.set_occluder_bits(shader_ao);
            scratch.far.set_shade_in_shader(shader_ao);
            scratch.far.set_materials(job.payload.materials.clone());
            build_far_column(generator, f, &mut scratch.far, &mut far);
            let packed = pack.then(|| {
                bytes.pack(&far.mesh);
                std::mem::swap(&mut bytes.occluders, &mut far.occluders);
                bytes
            });
            // One pass does both stages; the split is not worth a second timer here.
            let gen_us = t0.elapsed().as_micros() as u32;
            Some(StreamResult::Far(FarResult { far, packed, gen_us, mesh_us: 0, job_id: job.id }))
        }
    }
}

/// The worker's job: generate the padded chunk (one column pass, which also tells a sky chunk
/// apart), apply edits, place scatter from the same columns, mesh.
fn build_chunk(
    generator: &Generator,
    cache: &VoxelCache,
    job: Job<ChunkCoord, JobData>,
    scratch: &mut Scratch,
    pack: bool,
    buffers: MeshBuffers,
) -> Option<ChunkResult> {
    let Scratch { padded, columns, generation, mesher, lighter, nav, collision_faces, .. } = scratch;
    let MeshBuffers { mut mesh, packed: mut bytes } = buffers;
    mesh.clear();
    let t0 = Instant::now();
    // A padded chunk above the ground tiles the cache keeps is sky without a column pass: the
    // generator's sky test would say so too, and leave the buffers as set here.
    let (padded_min, n) = (job.coord.min_voxel() - IVec3::ONE, CHUNK_SIZE + 2);
    let sky = if job.coord.in_world() && cache.above_ground(generator, padded_min, IVec3::splat(n)) {
        padded.reset(padded_min, IVec3::splat(n));
        columns.columns.clear();
        (columns.min_x, columns.min_z, columns.size_x, columns.size_z) = (padded_min.x, padded_min.z, n, n);
        true
    } else {
        generator.generate_padded_chunk_unless_sky(job.coord, padded, columns, generation)
    };
    if job.payload.light.is_some() && !job.is_update {
        // Lit neighbours' light boxes read this chunk: they find it instead of generating it.
        cache.insert_padded(job.coord, padded, sky);
        if !sky {
            cache.note_columns(columns);
        }
    }
    if sky && job.payload.edits.is_empty() {
        let gen_us = t0.elapsed().as_micros() as u32;
        return Some(ChunkResult {
            coord: job.coord,
            mesh,
            scatter: Vec::new(),
            spawns: Vec::new(),
            collision: job.payload.collision.then(CollisionParts::default),
            packed: None,
            gen_us,
            light_us: 0,
            mesh_us: 0,
            is_update: job.is_update,
            navigation: job.payload.navigation.as_ref().map(|_| NavMesh::default()),
            nav_us: 0,
            job_id: job.id,
        });
    }
    let spawns = if job.is_update {
        Vec::new()
    } else {
        spawn_points(generator, cache, job.coord, padded, columns, lighter, job.payload.spawn_light.as_deref())
    };
    // A sky chunk's buffer is all air, exactly the generated box: edits (a tower) apply on top.
    apply_edits(padded, &job.payload.edits);
    let mut scatter = if sky { Vec::new() } else { generator.scatter_chunk_with_columns(job.coord, columns) };
    scatter.retain(|s| standing_on_ground(padded, s));
    if job.is_cancelled() {
        return None;
    }
    // A box of one block shows no face: nothing to light.
    let t_light = Instant::now();
    let light = match &job.payload.light {
        Some(props) if padded.uniform_block().is_none() => {
            lighter.light_chunk(generator, Some(cache), job.coord, &job.payload.edits, props).ok()
        }
        _ => None,
    };
    let light_us = if job.payload.light.is_some() { t_light.elapsed().as_micros() as u32 } else { 0 };
    let gen_us = t0.elapsed().as_micros() as u32;
    if job.is_cancelled() {
        return None;
    }
    let t1 = Instant::now();
    // AO in the shader: the quads merge without it, the occluder bits go with the streams, and
    // the shaders add the face shade too (a textured surface then needs no colour stream).
    let shader_ao = job.payload.shader_ao(pack);
    mesher.set_ambient_occlusion(job.payload.ambient_occlusion && !shader_ao);
    mesher.set_occluder_bits(shader_ao);
    mesher.set_shade_in_shader(shader_ao);
    mesher.set_materials(job.payload.materials.clone());
    // The light covers exactly the padded box (both are the chunk and its shell). Packing, the
    // mesher writes Godot's streams as it goes and the vertex arrays stay empty.
    if pack {
        if light.is_none_or(|l| mesher.mesh_lit_bytes(padded, l, &mut bytes).is_err()) {
            mesher.mesh_bytes(padded, &mut bytes);
        }
    } else if light.is_none_or(|l| mesher.mesh_lit(padded, l, &mut mesh).is_err()) {
        mesher.mesh(padded, &mut mesh);
    }
    let collision = job.payload.collision.then(|| {
        mesher.collision_faces(padded, collision_faces);
        CollisionParts::split(collision_faces, COLLISION_PART_TRIANGLES)
    });
    let packed = (pack && !bytes.is_empty()).then_some(bytes);
    let mesh_us = t1.elapsed().as_micros() as u32;
    // A chunk whose bake fails (it cannot for a streamed chunk) has no navigation mesh.
    let (navigation, nav_us) = match &job.payload.navigation {
        Some(config) => {
            let chunk = StreamedChunk { coord: job.coord, padded, sky, edits: &job.payload.edits };
            let (baked, us) = bake_streamed_chunk(generator, chunk, config, generation, nav);
            (Some(baked.unwrap_or_default()), us)
        }
        None => (None, 0),
    };
    Some(ChunkResult {
        coord: job.coord,
        mesh,
        scatter,
        spawns,
        collision,
        packed,
        gen_us,
        light_us,
        mesh_us,
        is_update: job.is_update,
        navigation,
        nav_us,
        job_id: job.id,
    })
}

/// The spawn points of chunk `c` from its generated padded voxels (before edits) and columns;
/// light, for the rules that ask for it, from the generated voxels alone.
fn spawn_points(
    generator: &Generator,
    cache: &VoxelCache,
    c: ChunkCoord,
    padded: &VoxelBuffer,
    columns: &ColumnGrid,
    lighter: &mut ChunkLighter,
    props: Option<&LightProps>,
) -> Vec<SpawnPoint> {
    let wants_light = generator.preset().spawns.rules.iter().any(|r| r.filters_light());
    let light = match props {
        Some(props) if wants_light => lighter.light_chunk(generator, Some(cache), c, &[], props).ok(),
        _ => None,
    };
    let lookup = light.map(|l| move |p: IVec3| l.get(p).map_or(0, |v| v.combined()));
    generator.spawn_chunk_with_columns(c, columns, padded, lookup.as_ref().map(|f| f as &dyn Fn(IVec3) -> u8))
}

/// A decoration stays only where its base voxel is open and the voxel below is solid ground
/// (a cave or a player may have removed it).
fn standing_on_ground(padded: &VoxelBuffer, s: &ScatterInstance) -> bool {
    let base = s.base_voxel();
    let open = padded.get(base).is_some_and(|b| !crate::base::block::is_solid(b) && !crate::base::block::is_liquid(b));
    let ground = padded.get(base - IVec3::new(0, 1, 0)).is_some_and(crate::base::block::is_solid);
    open && ground
}
