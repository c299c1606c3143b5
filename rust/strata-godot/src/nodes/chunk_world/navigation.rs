//! `StrataChunkWorld`'s navigation: one `NavigationServer3D` region per chunk within
//! `navigation_distance` of a viewer, on the world's default navigation map.
//!
//! Workers bake each chunk's polygons ([`strata_core::nav`], in the chunk's job); the main thread
//! only turns finished meshes into `NavigationMesh`es and hands them to the server, a queue
//! drained within the frame budget (law: Main thread never waits). A rebake (an edit) replaces
//! the region's mesh; a chunk that unloads or leaves the distance, a world that stops streaming
//! or turns navigation off frees its regions. Neighbouring chunks' border edges coincide exactly
//! (the core splits them per voxel), so the server joins regions by their shared edges and the
//! regions need no edge-connection margin (off: it costs the map a pass over every pair of free
//! edges).
//!
//! The crate's Godot bindings leave the navigation classes out (gdext's default class set), so
//! `NavigationServer3D` and `NavigationMesh` are reached through Godot's own calls by name
//! (`Object.call`, `ClassDB.instantiate`); a failed call is reported, never a panic.
//!
//! May use: `strata_core` (nav meshes, chunk coordinates), `host::navigation_server`.

use crate::host::navigation_server;
use godot::classes::{ClassDb, Object, Resource};
use godot::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;
use strata_core::ChunkCoord;
use strata_core::nav::NavMesh;
use strata_core::stream::scheduler::Samples;

/// The regions of one world and the baked meshes waiting for them.
#[derive(Default)]
pub struct WorldNavigation {
    /// Chunks baked: their region (`None`: nothing walkable, no region).
    regions: HashMap<ChunkCoord, Option<Rid>>,
    /// Baked meshes not yet handed to the server, oldest first.
    queue: VecDeque<(ChunkCoord, NavMesh)>,
    /// Bake time on the worker per chunk (µs).
    pub bake_us: Samples,
    /// Main-thread time to hand one chunk's mesh to the server (µs).
    pub register_us: Samples,
}

impl WorldNavigation {
    /// A chunk's freshly baked mesh: replaces what is queued for it.
    pub fn accept(&mut self, c: ChunkCoord, mesh: NavMesh, bake_us: u32) {
        self.bake_us.push(bake_us);
        self.queue.retain(|(q, _)| *q != c);
        self.queue.push_back((c, mesh));
    }

    /// Whether chunk `c` has a baked mesh, in a region or on its way to one.
    pub fn has(&self, c: ChunkCoord) -> bool {
        self.regions.contains_key(&c) || self.queue.iter().any(|(q, _)| *q == c)
    }

    /// Chunks with a mesh (registered or queued).
    pub fn chunks(&self) -> Vec<ChunkCoord> {
        let mut out: Vec<ChunkCoord> = self.regions.keys().copied().chain(self.queue.iter().map(|(c, _)| *c)).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The regions of the chunks from `min` to `max` (inclusive on every axis), in chunk order.
    pub fn regions_in(&self, min: ChunkCoord, max: ChunkCoord) -> Vec<Rid> {
        let inside = |c: &ChunkCoord| {
            (min.x..=max.x).contains(&c.x) && (min.y..=max.y).contains(&c.y) && (min.z..=max.z).contains(&c.z)
        };
        let mut found: Vec<(ChunkCoord, Rid)> =
            self.regions.iter().filter(|(c, _)| inside(c)).filter_map(|(c, rid)| rid.map(|r| (*c, r))).collect();
        found.sort_unstable_by_key(|(c, _)| *c);
        found.into_iter().map(|(_, rid)| rid).collect()
    }

    /// Regions on the server now.
    pub fn region_count(&self) -> usize {
        self.regions.values().filter(|r| r.is_some()).count()
    }

    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Hands queued meshes to the server until `deadline` (at least one), each as a region of
    /// `map` placed by `chunk_transform`.
    pub fn register_queued(
        &mut self,
        map: Rid,
        chunk_transform: impl Fn(ChunkCoord) -> Transform3D,
        deadline: Instant,
    ) {
        let Some(mut server) = server() else { return };
        let cell_size = call(&mut server, "map_get_cell_size", &[map.to_variant()]);
        let cell_height = call(&mut server, "map_get_cell_height", &[map.to_variant()]);
        let mut done = 0;
        while done == 0 || Instant::now() < deadline {
            let Some((c, mesh)) = self.queue.pop_front() else { break };
            let t = Instant::now();
            done += 1;
            if mesh.is_empty() {
                if let Some(Some(rid)) = self.regions.insert(c, None) {
                    call(&mut server, "free_rid", &[rid.to_variant()]);
                }
                continue;
            }
            let Some(navmesh) = navigation_mesh(&mesh, &cell_size, &cell_height) else { continue };
            let rid = match self.regions.get(&c) {
                Some(Some(rid)) => *rid,
                _ => {
                    let Ok(rid) = call(&mut server, "region_create", &[]).try_to::<Rid>() else { continue };
                    call(&mut server, "region_set_use_edge_connections", &[rid.to_variant(), false.to_variant()]);
                    call(&mut server, "region_set_map", &[rid.to_variant(), map.to_variant()]);
                    rid
                }
            };
            call(&mut server, "region_set_transform", &[rid.to_variant(), chunk_transform(c).to_variant()]);
            call(&mut server, "region_set_navigation_mesh", &[rid.to_variant(), navmesh.to_variant()]);
            self.regions.insert(c, Some(rid));
            self.register_us.push(t.elapsed().as_micros() as u32);
        }
    }

    /// Places every region again (the world's origin moved): one transform call a region.
    pub fn place_all(&mut self, chunk_transform: impl Fn(ChunkCoord) -> Transform3D) {
        let Some(mut server) = server() else { return };
        for (c, rid) in self.regions.iter().filter_map(|(c, rid)| rid.map(|r| (*c, r))) {
            call(&mut server, "region_set_transform", &[rid.to_variant(), chunk_transform(c).to_variant()]);
        }
    }

    /// Frees chunk `c`'s region and drops its queued mesh.
    pub fn remove(&mut self, c: ChunkCoord) {
        self.queue.retain(|(q, _)| *q != c);
        if let Some(Some(rid)) = self.regions.remove(&c)
            && let Some(mut server) = server()
        {
            call(&mut server, "free_rid", &[rid.to_variant()]);
        }
    }

    /// Frees every region and forgets every mesh.
    pub fn clear(&mut self) {
        self.queue.clear();
        let Some(mut server) = server() else {
            self.regions.clear();
            return;
        };
        for rid in self.regions.drain().filter_map(|(_, rid)| rid) {
            call(&mut server, "free_rid", &[rid.to_variant()]);
        }
    }
}

/// The `NavigationServer3D` singleton (absent only in a build without navigation).
fn server() -> Option<Gd<Object>> {
    navigation_server::server("NavigationServer3D", "StrataChunkWorld")
}

/// `object.method(args)` by name; a failure is reported and gives nil.
fn call(object: &mut Gd<Object>, method: &str, args: &[Variant]) -> Variant {
    navigation_server::call(object, "StrataChunkWorld", method, args)
}

/// A `NavigationMesh` of a chunk's polygons (positions in voxels from the chunk's corner), with
/// the map's cell size and height so the server does not warn.
fn navigation_mesh(mesh: &NavMesh, cell_size: &Variant, cell_height: &Variant) -> Option<Gd<Resource>> {
    let mut navmesh = ClassDb::singleton().instantiate("NavigationMesh").try_to::<Gd<Resource>>().ok()?;
    navmesh.set("cell_size", cell_size);
    navmesh.set("cell_height", cell_height);
    let vertices: PackedVector3Array = (0..mesh.vertices.len())
        .map(|i| {
            let [x, y, z] = mesh.vertex_voxels(i);
            Vector3::new(x, y, z)
        })
        .collect();
    navmesh.set("vertices", &vertices.to_variant());
    let polygons: VarArray =
        mesh.polygons().map(|p| p.iter().map(|&i| i as i32).collect::<PackedInt32Array>().to_variant()).collect();
    navmesh.set("polygons", &polygons.to_variant());
    Some(navmesh)
}
