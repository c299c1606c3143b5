//! `StrataChunkWorld` applying finished work on the main thread: chunk results and far columns as
//! mesh nodes, scatter, collision near the viewers, occluder pages released, retired nodes freed
//! once their replacement is in the tree (law: Main thread never waits).
//!
//! May use: its parent (`chunk_world.rs`), `meshes`, `materials`, `strata_core::stream`.

use super::{
    ApplyPhase, ChunkNode, ChunkWorld, CollisionBuild, CollisionStep, FarNode, free_chunk_node, near_any,
    nearest_distance_sq, set_daylight_on, stream_bytes, to_vector3i,
};
use crate::host::materials::block_materials;
use crate::host::meshes::{
    SCATTER_KINDS, SurfaceMaterials, array_mesh_from_bytes, as_vector3s, build_array_mesh, build_scatter_meshes,
    opaque_faces, scatter_multimesh, vertex_color_materials,
};
use crate::resources::block_library::BlockLibrary;
use godot::classes::node::InternalMode;
use godot::classes::{
    ArrayMesh, CollisionShape3D, ConcavePolygonShape3D, MeshInstance3D, MultiMeshInstance3D, Node3D, ShaderMaterial,
    StaticBody3D,
};
use godot::prelude::*;
use std::sync::Arc;
use strata_core::ChunkCoord;
use strata_core::base::block_library::BlockLibrary as CoreLibrary;
use strata_core::gen3d::scatter::ScatterInstance;
use strata_core::light::LightProps;
use strata_core::mesh::bytes::MeshBytes;
use strata_core::mesh::{ChunkMesh, MeshMaterials};
use strata_core::stream::far_mesh::FarMesh;
use strata_core::stream::streamer::{ChunkResult, StreamKey};

use super::occluder_pages::OccluderSlot;
use strata_core::mesh::{COLLISION_PART_TRIANGLES, CollisionParts};

impl ChunkWorld {
    /// Shows a finished far column (replacing an older mesh of it).
    pub(super) fn apply_far(&mut self, far: FarMesh, packed: Option<MeshBytes>) {
        if let Some(mut old) = self.far_nodes.remove(&far.column) {
            self.release_occluders(&mut old.occluders, &mut old.materials);
            old.mesh.free();
        }
        self.free_retired_now(StreamKey::Far(far.column));
        let f = far.column;
        let mut mi = MeshInstance3D::new_alloc();
        mi.set_name(&format!("far_{}_{}_{}", f.level, f.x, f.z));
        let (mut occluders, mut materials) = (None, Vec::new());
        if !far.mesh.is_empty() {
            let mesh = self.array_mesh(&far.mesh, packed.as_ref());
            if let Some(bits) = packed.as_ref().map(|p| &p.occluders).filter(|b| !b.is_empty())
                && let Some((slot, copies)) = self.occluder_pages.attach(&mesh, bits, f.stride())
            {
                occluders = Some(slot);
                materials = copies;
            }
            mi.set_mesh(&mesh);
        }
        self.set_mesh_bytes(StreamKey::Far(f), stream_bytes(&far.mesh, packed.as_ref()));
        // Far terrain casts sun shadows too by default (`cast_shadow`), so mountains shade
        // valleys at every distance (the demo's sun reaches its shadows to the horizon).
        self.render_settings().apply_far(&mut mi);
        mi.set_position(self.local_of_voxel(far.origin));
        self.base_mut().add_child_ex(&mi).internal(InternalMode::BACK).done();
        self.far_nodes.insert(f, FarNode { mesh: mi, occluders, materials });
        if let Some(s) = self.streamer.as_ref() {
            s.recycle(far.mesh, packed);
        }
    }

    /// The chunks' and far columns' own material copies (those naming occluder bits), and the
    /// spare ones kept for reuse: every copy a shared uniform (daylight, horizon) must reach.
    pub(super) fn occluder_materials(&self) -> impl Iterator<Item = &Gd<ShaderMaterial>> {
        self.shown_occluder_materials().chain(self.occluder_pages.spare_materials())
    }

    /// Sets uniforms `names` of every material copy ([`ChunkWorld::occluder_materials`]) to their
    /// values on `shared`, each value read once.
    pub(super) fn copies_follow(&self, shared: &Gd<godot::classes::Material>, names: &[&str]) {
        let Ok(shared) = shared.clone().try_cast::<ShaderMaterial>() else { return };
        let values: Vec<(&str, Variant)> =
            names.iter().map(|&name| (name, shared.get_shader_parameter(name))).collect();
        for mut copy in self.occluder_materials().cloned().collect::<Vec<_>>() {
            for (name, value) in &values {
                copy.set_shader_parameter(*name, value);
            }
        }
    }

    /// The shown chunks' and far columns' own material copies.
    pub(super) fn shown_occluder_materials(&self) -> impl Iterator<Item = &Gd<ShaderMaterial>> {
        let near = self.nodes.values().flat_map(|n| n.materials.iter());
        near.chain(self.far_nodes.values().flat_map(|n| n.materials.iter()))
    }

    /// Gives the layers of a mesh taken out of the world back to the pages, and its material
    /// copies to the spares the next meshes on the same page reuse.
    pub(super) fn release_occluders(&mut self, slot: &mut Option<OccluderSlot>, copies: &mut Vec<Gd<ShaderMaterial>>) {
        if let Some(slot) = slot.take() {
            self.occluder_pages.release(slot, std::mem::take(copies));
        }
    }

    /// A finished mesh as an `ArrayMesh`: from the worker-packed streams, or through Godot's
    /// conversion when there are none.
    pub(super) fn array_mesh(&mut self, mesh: &ChunkMesh, packed: Option<&MeshBytes>) -> Gd<ArrayMesh> {
        let materials = self.materials();
        match packed {
            Some(packed) => array_mesh_from_bytes(packed, &materials),
            None => build_array_mesh(mesh, &materials),
        }
    }

    /// The materials of the chunk surfaces: `material_override` on every surface, else the
    /// block shaders with the library's texture array, else (shaders missing) vertex colours.
    pub(super) fn materials(&mut self) -> SurfaceMaterials {
        if let Some(m) = &self.surface_materials {
            return m.clone();
        }
        let built = match &self.material_override {
            Some(m) => [m.clone(), m.clone(), m.clone(), m.clone()],
            None => {
                let library = self.block_library.clone().unwrap_or_else(BlockLibrary::create_default);
                match block_materials(&library) {
                    Some(b) => [b.opaque.upcast(), b.cutout.upcast(), b.transparent.upcast(), b.liquid.upcast()],
                    None => vertex_color_materials(),
                }
            }
        };
        set_daylight_on(&built, self.daylight);
        self.surface_materials = Some(built.clone());
        built
    }

    /// What light the workers bake: the library's opacity and emission, when `light_enabled`
    /// (an invalid library: none, as it meshes with the default materials).
    pub(super) fn light_props(&self) -> Option<Arc<LightProps>> {
        if !self.light_enabled {
            return None;
        }
        let library = self.library().ok()?;
        Some(Arc::new(LightProps::from_library(&library)))
    }

    /// What the workers mesh with: the library's blocks, each face's texture layer in
    /// `texture_order`, and white for a textured block (the texture gives its colour, so the
    /// vertex colour holds only the face shade and ambient occlusion).
    pub(super) fn mesh_materials(&self) -> Arc<MeshMaterials> {
        let Ok(library) = self.library() else { return MeshMaterials::shared_default() };
        let textured = |b: &strata_core::base::block_library::BlockDef| {
            strata_core::base::block_library::Face::ALL.iter().any(|&f| !b.faces.texture_for_face(f).is_empty())
        };
        let whitened: Vec<_> = library
            .blocks()
            .iter()
            .map(|b| {
                let mut b = b.clone();
                if textured(&b) {
                    b.color = [1.0; 3];
                }
                b
            })
            .collect();
        // Colours take no part in the texture order, so the whitened library's is the library's.
        let Ok(whitened) = CoreLibrary::new(whitened) else { return MeshMaterials::shared_default() };
        Arc::new(MeshMaterials::with_texture_order(&whitened))
    }

    /// Records the mesh stream bytes of `key`'s loaded mesh (0: none).
    pub(super) fn set_mesh_bytes(&mut self, key: StreamKey, bytes: usize) {
        let slot = usize::from(matches!(key, StreamKey::Far(_)));
        if let Some(old) = self.mesh_bytes.remove(&key) {
            self.mesh_bytes_total[slot] -= old;
        }
        if bytes > 0 {
            self.mesh_bytes.insert(key, bytes);
            self.mesh_bytes_total[slot] += bytes;
        }
    }

    pub(super) fn apply_result(&mut self, mut r: ChunkResult, viewers: &[ChunkCoord], collision_r: i32) {
        let c = r.coord;
        let mut phases = PhaseClock::start(r.has_faces());
        self.entities.chunk_loaded(c, std::mem::take(&mut r.spawns), &r.scatter, r.is_update);
        r.scatter.retain(|s| !self.entities.is_harvested(s.base_voxel()));
        match r.navigation.take() {
            Some(nav) => self.accept_navigation(c, nav, r.nav_us),
            // Rebuilt without a bake (beyond the navigation distance): its old mesh is stale.
            None => self.navigation.remove(c),
        }
        // A rebuilt chunk keeps its collision body until the new one is built (or for good when
        // its faces did not change), so nothing standing on it falls through in between.
        let (mut old_body, mut old_faces) = (None, None);
        if let Some(mut old) = self.nodes.remove(&c) {
            self.release_occluders(&mut old.occluders, &mut old.materials);
            old_body = old.body.take();
            old_faces = old.faces.take();
            free_chunk_node(old);
        }
        self.free_retired_now(StreamKey::Near(c));
        let mut node = ChunkNode {
            mesh: None,
            body: None,
            faces: None,
            scatter: Vec::new(),
            occluders: None,
            materials: Vec::new(),
        };
        phases.lap(ApplyPhase::Bookkeeping);
        if !r.scatter.is_empty() && self.render_meshes {
            node.scatter = self.make_scatter(c, &r.scatter);
        }
        phases.lap(ApplyPhase::Scatter);
        if r.has_faces() {
            if self.render_meshes {
                let mesh = self.array_mesh(&r.mesh, r.packed.as_ref());
                phases.lap(ApplyPhase::Mesh);
                let mut mi = MeshInstance3D::new_alloc();
                mi.set_name(&format!("chunk_{}_{}_{}", c.x, c.y, c.z));
                mi.set_mesh(&mesh);
                self.render_settings().apply_near(&mut mi);
                mi.set_position(self.local_of_voxel(c.min_voxel()));
                phases.lap(ApplyPhase::Node);
                if let Some(bits) = r.packed.as_ref().map(|p| &p.occluders).filter(|b| !b.is_empty())
                    && let Some((slot, copies)) = self.occluder_pages.attach(&mesh, bits, 1)
                {
                    node.occluders = Some(slot);
                    node.materials = copies;
                }
                phases.lap(ApplyPhase::Occluders);
                self.base_mut().add_child_ex(&mi).internal(InternalMode::BACK).done();
                node.mesh = Some(mi);
                phases.lap(ApplyPhase::Node);
            }
            // Collision goes through the budgeted queue (a dense chunk's shape costs milliseconds
            // in Godot's physics server), nearest first.
            let near = near_any(c, viewers, collision_r);
            let has_opaque = !r.mesh.opaque.is_empty() || r.packed.as_ref().is_some_and(|p| p.opaque.is_some());
            if near && has_opaque {
                // Faces from the worker (solidity-only greedy, far fewer triangles, already in
                // parts), else the render mesh's triangles.
                let faces = match r.collision.take() {
                    Some(parts) => parts,
                    None => CollisionParts::split(&r.opaque_triangle_corners(), COLLISION_PART_TRIANGLES),
                };
                let unchanged = old_body.is_some() && old_faces.as_ref() == Some(&faces);
                node.body = old_body.take();
                node.faces = old_faces.take();
                if !unchanged {
                    self.pending_faces.insert(c, faces);
                    self.collision_queue.push(c);
                    self.collision_queue.sort_by_key(|q| std::cmp::Reverse(nearest_distance_sq(*q, viewers)));
                }
            }
        }
        phases.lap(ApplyPhase::Collision);
        if let Some(b) = old_body {
            b.free();
        }
        self.nodes.insert(c, node);
        self.set_mesh_bytes(StreamKey::Near(c), stream_bytes(&r.mesh, r.packed.as_ref()));
        if !r.is_update {
            self.signals().chunk_loaded().emit(to_vector3i(c));
        }
        // Godot holds its own copies now: the buffers go back to the workers.
        if let Some(s) = self.streamer.as_ref() {
            s.recycle(r.mesh, r.packed);
        }
        phases.lap(ApplyPhase::Bookkeeping);
        phases.record(&mut self.apply_phases_us);
    }

    /// One MultiMeshInstance3D per decoration kind, placed at the chunk's origin.
    pub(super) fn make_scatter(&mut self, c: ChunkCoord, items: &[ScatterInstance]) -> Vec<Gd<MultiMeshInstance3D>> {
        let meshes = self.scatter_meshes.get_or_insert_with(build_scatter_meshes).clone();
        let origin = c.min_voxel();
        let mut out = Vec::new();
        for (mesh, kind) in meshes.iter().zip(SCATTER_KINDS) {
            let Some(mm) = scatter_multimesh(mesh, kind, items, origin) else { continue };
            let mut mmi = MultiMeshInstance3D::new_alloc();
            mmi.set_name(&format!("scatter_{kind:?}_{}_{}_{}", c.x, c.y, c.z));
            mmi.set_multimesh(&mm);
            self.render_settings().apply_near(&mut mmi);
            mmi.set_position(self.local_of_voxel(origin));
            self.base_mut().add_child_ex(&mmi).internal(InternalMode::BACK).done();
            out.push(mmi);
        }
        out
    }

    /// Queues collision for loaded chunks that came near the viewer (built within the frame
    /// budget, nearest first) and frees it on chunks that moved away.
    pub(super) fn update_collision_ring(&mut self, viewers: &[ChunkCoord], r: i32) {
        let mut queue = Vec::new();
        let mut requests = Vec::new();
        for (c, n) in self.nodes.iter_mut() {
            let near = near_any(*c, viewers, r);
            // Faces waiting: a body to build, or a rebuilt chunk's new body to replace its old.
            let waiting = self.pending_faces.contains_key(c);
            if near && n.mesh.is_some() && (n.body.is_none() || waiting) {
                if waiting {
                    queue.push(*c);
                } else {
                    // Built before it came near: a worker rebuilds it with collision faces.
                    requests.push(*c);
                }
            } else if !near && let Some(b) = n.body.take() {
                n.faces = None;
                b.free();
            }
        }
        if let Some(s) = self.streamer.as_mut() {
            for c in requests {
                s.request_collision(c);
            }
        }
        queue.sort_by_key(|c| std::cmp::Reverse(nearest_distance_sq(*c, viewers)));
        self.pending_faces.retain(|c, _| queue.contains(c));
        self.collision_queue = queue;
    }

    /// Takes an unloaded chunk's nodes out of the world at once (hidden; its collision body
    /// freed, as a hidden body still collides) and queues the rest to be freed within the
    /// coming frames' budgets.
    pub(super) fn retire_chunk_node(&mut self, c: ChunkCoord, n: ChunkNode) {
        if let Some(b) = n.body {
            b.free();
        }
        for s in n.scatter {
            self.retire_node(StreamKey::Near(c), s.upcast());
        }
        if let Some(m) = n.mesh {
            self.retire_node(StreamKey::Near(c), m.upcast());
        }
    }

    /// Hides `n` and queues it to be freed.
    pub(super) fn retire_node(&mut self, key: StreamKey, mut n: Gd<Node3D>) {
        n.set_visible(false);
        self.nodes_to_free.push_back((key, n));
        *self.retired_keys.entry(key).or_insert(0) += 1;
    }

    /// Frees at once the retired nodes of `key`, which is loading again (so its new nodes get
    /// their names).
    pub(super) fn free_retired_now(&mut self, key: StreamKey) {
        if self.retired_keys.remove(&key).is_some() {
            self.nodes_to_free.retain(|(k, n)| {
                if *k == key {
                    n.clone().free();
                }
                *k != key
            });
        }
    }

    /// Starts building chunk `c`'s collision body (its new faces, or its mesh's when it has no
    /// body yet) if it is still near a viewer: the body's node alone, outside the tree; its parts
    /// come a step each ([`ChunkWorld::step_collision_build`]).
    pub(super) fn start_collision_build(&mut self, c: ChunkCoord, viewers: &[ChunkCoord], r: i32) -> CollisionStep {
        if !near_any(c, viewers, r) {
            return CollisionStep::Start;
        }
        let kept = self.pending_faces.remove(&c);
        let (faces, kind) = match self.nodes.get(&c) {
            // A rebuilt chunk's new faces replace its old body.
            Some(_) if kept.is_some() => (kept, CollisionStep::Start),
            Some(n) if n.body.is_none() => {
                let from_mesh = n.mesh.as_ref().and_then(opaque_faces).map(|faces| {
                    let corners: Vec<[f32; 3]> = faces.as_slice().iter().map(|v| [v.x, v.y, v.z]).collect();
                    CollisionParts::split(&corners, COLLISION_PART_TRIANGLES)
                });
                (from_mesh, CollisionStep::StartFromMesh)
            }
            _ => (None, CollisionStep::Start),
        };
        let Some(parts) = faces else { return kind };
        let mut body = StaticBody3D::new_alloc();
        body.set_name(&format!("collision_{}_{}_{}", c.x, c.y, c.z));
        body.set_position(self.local_of_voxel(c.min_voxel()));
        self.body_settings().apply(&mut body);
        self.collision_build = Some(CollisionBuild { chunk: c, body, parts, next: 0 });
        kind
    }

    /// One step of the collision build: the body gets one part's `CollisionShape3D`, whose shape
    /// then gets the part's faces (the physics server builds its tree; the shape is set while
    /// still empty, as Godot's debug builds rebuild a set shape's tree for its debug colour:
    /// measured 1.1 ms for 1,400 triangles). The step after the last part, the body goes into
    /// the tree in place of the chunk's old one. A chunk that went out of reach or unloaded
    /// meanwhile is dropped (no step: `None`).
    pub(super) fn step_collision_build(&mut self, viewers: &[ChunkCoord], r: i32) -> Option<CollisionStep> {
        let build = self.collision_build.as_mut()?;
        let c = build.chunk;
        if !near_any(c, viewers, r) || !self.nodes.contains_key(&c) {
            self.abort_collision_build();
            return None;
        }
        if build.next < build.parts.len() {
            let mut shape = ConcavePolygonShape3D::new_gd();
            let mut cs = CollisionShape3D::new_alloc();
            cs.set_shape(&shape);
            build.body.add_child(&cs);
            shape.set_faces(&PackedVector3Array::from(as_vector3s(build.parts.part(build.next))));
            build.next += 1;
            return Some(CollisionStep::Part);
        }
        let build = self.collision_build.take()?;
        // The old body goes first, in the same step, so the new one takes its name.
        if let Some(old) = self.nodes.get_mut(&c).and_then(|n| n.body.take()) {
            old.free();
        }
        self.base_mut().add_child_ex(&build.body).internal(InternalMode::BACK).done();
        if let Some(n) = self.nodes.get_mut(&c) {
            n.body = Some(build.body);
            n.faces = Some(build.parts);
        }
        Some(CollisionStep::Swap)
    }

    /// Drops the collision body being built (never in the tree).
    pub(super) fn abort_collision_build(&mut self) {
        if let Some(build) = self.collision_build.take() {
            build.body.free();
        }
    }
}

/// Times the parts of one chunk's apply: each lap adds the time since the last to a part.
struct PhaseClock {
    /// Only meshed chunks are recorded (an empty one's apply is bookkeeping alone).
    recorded: bool,
    last: std::time::Instant,
    spent_ns: [u64; ApplyPhase::COUNT],
}

impl PhaseClock {
    fn start(recorded: bool) -> Self {
        Self { recorded, last: std::time::Instant::now(), spent_ns: [0; ApplyPhase::COUNT] }
    }

    fn lap(&mut self, phase: ApplyPhase) {
        let now = std::time::Instant::now();
        self.spent_ns[phase as usize] += (now - self.last).as_nanos() as u64;
        self.last = now;
    }

    fn record(self, into: &mut [strata_core::stream::scheduler::Samples; ApplyPhase::COUNT]) {
        if self.recorded {
            for (samples, ns) in into.iter_mut().zip(self.spent_ns) {
                samples.push((ns / 1000) as u32);
            }
        }
    }
}
