//! `StrataChunkWorld2D`'s walker navigation on `NavigationServer2D`: per chunk within
//! `navigation_distance` of a viewer, one region (its strips and risers as a
//! `NavigationPolygon`) and one one-way link per drop, on the world's navigation map.
//!
//! Workers bake each chunk's navigation ([`strata_core::nav::bake_chunk_2d`], in the chunk's
//! job); the main thread only turns finished meshes into `NavigationPolygon`s and links and
//! hands them to the server, a queue drained within the frame budget (law: Main thread never
//! waits). A rebake (an edit) replaces the chunk's polygon and links; a chunk that unloads or
//! leaves the distance, a world that stops streaming or turns navigation off frees them.
//! Neighbouring chunks' polygons meet with exactly shared edges (the core's bake splits them),
//! so the server joins the regions by their edges and they need no edge-connection margin (off:
//! it costs the map a pass over every pair of free edges).
//!
//! The crate's Godot bindings leave the navigation classes out (gdext's default class set), so
//! `NavigationServer2D` and `NavigationPolygon` are reached through Godot's own calls by name;
//! a failed call is reported, never a panic.
//!
//! May use: `strata_core` (2D nav meshes, chunk coordinates, the floating origin),
//! `host::navigation_server`.

use crate::host::navigation_server;
use godot::classes::{ClassDb, Object, Resource};
use godot::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;
use strata_core::base::origin_2d::FloatingOrigin2D;
use strata_core::gen2d::ChunkCoord2D;
use strata_core::nav::{HALF_TILES, NavMesh2D};
use strata_core::stream::scheduler::Samples;

/// Where a world's chunks are in the engine's space: the node's global transform, its origin
/// (world tiles), the tile size in pixels and the chunk size in tiles.
pub struct Placement2D {
    pub global: Transform2D,
    pub origin: FloatingOrigin2D,
    pub tile_px: Vector2i,
    pub chunk_tiles: i32,
}

impl Placement2D {
    /// Chunk `c`'s top-left corner in the node's space (pixels).
    fn corner(&self, c: ChunkCoord2D) -> Vector2 {
        let (x, y) = c.min_tile(self.chunk_tiles);
        let l = self.origin.tile_to_local([x, y]);
        Vector2::new(
            (f64::from(l[0]) * f64::from(self.tile_px.x)) as f32,
            (f64::from(l[1]) * f64::from(self.tile_px.y)) as f32,
        )
    }

    /// Chunk `c`'s region transform: its corner through the node's global transform.
    fn chunk_transform(&self, c: ChunkCoord2D) -> Transform2D {
        self.global * Transform2D::from_angle_origin(0.0, self.corner(c))
    }

    /// A point of chunk `c` given in half tiles from its corner, in the node's space.
    pub fn local_point(&self, c: ChunkCoord2D, half_tiles: [i32; 2]) -> Vector2 {
        let h = HALF_TILES as f32;
        self.corner(c)
            + Vector2::new(
                half_tiles[0] as f32 * self.tile_px.x as f32 / h,
                half_tiles[1] as f32 * self.tile_px.y as f32 / h,
            )
    }

    /// A vertex of chunk `c` given in tiles from its corner, in the node's space.
    pub fn local_vertex(&self, c: ChunkCoord2D, v: [i32; 2]) -> Vector2 {
        self.local_point(c, [v[0] * HALF_TILES, v[1] * HALF_TILES])
    }
}

/// A chunk's baked navigation and what the server holds of it.
struct ChunkNavigation2D {
    mesh: NavMesh2D,
    /// Its region (`None`: no polygon).
    region: Option<Rid>,
    /// One link per drop, in the mesh's order.
    links: Vec<Rid>,
}

/// The regions and links of one world and the baked meshes waiting for them.
#[derive(Default)]
pub struct WorldNavigation2D {
    chunks: HashMap<ChunkCoord2D, ChunkNavigation2D>,
    /// Baked meshes not yet handed to the server, oldest first.
    queue: VecDeque<(ChunkCoord2D, NavMesh2D)>,
    /// Bake time on the worker per chunk (µs).
    pub bake_us: Samples,
    /// Main-thread time to hand one chunk's navigation to the server (µs).
    pub register_us: Samples,
    /// The viewers' chunks when the ring of chunks with navigation was last updated.
    pub viewers: Vec<ChunkCoord2D>,
    /// The map given with `set_navigation_map` (`None`: the world's default 2D map).
    pub map: Option<Rid>,
}

impl WorldNavigation2D {
    /// A chunk's freshly baked navigation: replaces what is queued for it.
    pub fn accept(&mut self, c: ChunkCoord2D, mesh: NavMesh2D, bake_us: u32) {
        self.bake_us.push(bake_us);
        self.queue.retain(|(q, _)| *q != c);
        self.queue.push_back((c, mesh));
    }

    /// Whether chunk `c` has baked navigation, on the server or on its way to it.
    pub fn has(&self, c: ChunkCoord2D) -> bool {
        self.chunks.contains_key(&c) || self.queue.iter().any(|(q, _)| *q == c)
    }

    /// Chunks with navigation (registered or queued), in order.
    pub fn chunks(&self) -> Vec<ChunkCoord2D> {
        let mut out: Vec<ChunkCoord2D> =
            self.chunks.keys().copied().chain(self.queue.iter().map(|(c, _)| *c)).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The registered mesh of chunk `c`.
    pub fn mesh(&self, c: ChunkCoord2D) -> Option<&NavMesh2D> {
        self.chunks.get(&c).map(|n| &n.mesh)
    }

    /// The regions of the chunks from `min` to `max` (inclusive on both axes), in chunk order.
    pub fn regions_in(&self, min: ChunkCoord2D, max: ChunkCoord2D) -> Vec<Rid> {
        let inside = |c: &ChunkCoord2D| (min.x..=max.x).contains(&c.x) && (min.y..=max.y).contains(&c.y);
        let mut found: Vec<(ChunkCoord2D, Rid)> =
            self.chunks.iter().filter(|(c, _)| inside(c)).filter_map(|(c, n)| n.region.map(|r| (*c, r))).collect();
        found.sort_unstable_by_key(|(c, _)| *c);
        found.into_iter().map(|(_, rid)| rid).collect()
    }

    /// Regions on the server now.
    pub fn region_count(&self) -> usize {
        self.chunks.values().filter(|n| n.region.is_some()).count()
    }

    /// Links on the server now.
    pub fn link_count(&self) -> usize {
        self.chunks.values().map(|n| n.links.len()).sum()
    }

    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Hands queued meshes to the server until `deadline` (at least one), on `map` with
    /// `layers`, placed by `place`.
    pub fn register_queued(&mut self, map: Rid, layers: u32, place: &Placement2D, deadline: Instant) {
        let Some(mut server) = server() else { return };
        let cell_size = call(&mut server, "map_get_cell_size", &[map.to_variant()]);
        let mut done = 0;
        while done == 0 || Instant::now() < deadline {
            let Some((c, mesh)) = self.queue.pop_front() else { break };
            let t = Instant::now();
            done += 1;
            let old = self.chunks.remove(&c);
            let (mut region, old_links) = old.map(|o| (o.region, o.links)).unwrap_or((None, Vec::new()));
            for link in old_links {
                call(&mut server, "free_rid", &[link.to_variant()]);
            }
            if mesh.polygons.is_empty() {
                if let Some(rid) = region.take() {
                    call(&mut server, "free_rid", &[rid.to_variant()]);
                }
            } else if let Some(polygon) = navigation_polygon(&mesh, place, &cell_size) {
                let rid = match region {
                    Some(rid) => rid,
                    None => {
                        let Ok(rid) = call(&mut server, "region_create", &[]).try_to::<Rid>() else { continue };
                        call(&mut server, "region_set_use_edge_connections", &[rid.to_variant(), false.to_variant()]);
                        call(&mut server, "region_set_map", &[rid.to_variant(), map.to_variant()]);
                        rid
                    }
                };
                call(&mut server, "region_set_navigation_layers", &[rid.to_variant(), layers.to_variant()]);
                call(&mut server, "region_set_transform", &[rid.to_variant(), place.chunk_transform(c).to_variant()]);
                call(&mut server, "region_set_navigation_polygon", &[rid.to_variant(), polygon.to_variant()]);
                region = Some(rid);
            }
            let mut links = Vec::with_capacity(mesh.links.len());
            for l in &mesh.links {
                let Ok(rid) = call(&mut server, "link_create", &[]).try_to::<Rid>() else { continue };
                call(&mut server, "link_set_bidirectional", &[rid.to_variant(), false.to_variant()]);
                call(&mut server, "link_set_navigation_layers", &[rid.to_variant(), layers.to_variant()]);
                place_link(&mut server, rid, place, c, l.from, l.to);
                call(&mut server, "link_set_map", &[rid.to_variant(), map.to_variant()]);
                links.push(rid);
            }
            self.chunks.insert(c, ChunkNavigation2D { mesh, region, links });
            self.register_us.push(t.elapsed().as_micros() as u32);
        }
    }

    /// Places every region and link again (the origin moved).
    pub fn place_all(&mut self, place: &Placement2D) {
        if self.chunks.is_empty() {
            return;
        }
        let Some(mut server) = server() else { return };
        for (&c, n) in &self.chunks {
            if let Some(rid) = n.region {
                call(&mut server, "region_set_transform", &[rid.to_variant(), place.chunk_transform(c).to_variant()]);
            }
            for (&rid, l) in n.links.iter().zip(&n.mesh.links) {
                place_link(&mut server, rid, place, c, l.from, l.to);
            }
        }
    }

    /// Gives every region and link the navigation layers `layers`.
    pub fn set_layers(&mut self, layers: u32) {
        self.set_on_all("navigation_layers", layers.to_variant());
    }

    /// Moves every region and link to `map`.
    pub fn set_map(&mut self, map: Rid) {
        self.set_on_all("map", map.to_variant());
    }

    /// `region_set_<what>` of every region and `link_set_<what>` of every link, to `value`.
    fn set_on_all(&mut self, what: &str, value: Variant) {
        if self.chunks.is_empty() {
            return;
        }
        let Some(mut server) = server() else { return };
        let (region, link) = (format!("region_set_{what}"), format!("link_set_{what}"));
        for n in self.chunks.values() {
            for (rid, method) in n.region.iter().map(|r| (r, &region)).chain(n.links.iter().map(|l| (l, &link))) {
                call(&mut server, method, &[rid.to_variant(), value.clone()]);
            }
        }
    }

    /// Frees chunk `c`'s region and links and drops its queued mesh.
    pub fn remove(&mut self, c: ChunkCoord2D) {
        self.queue.retain(|(q, _)| *q != c);
        if let Some(n) = self.chunks.remove(&c)
            && let Some(mut server) = server()
        {
            free(&mut server, n);
        }
    }

    /// Frees every region and link and forgets every mesh.
    pub fn clear(&mut self) {
        self.queue.clear();
        self.viewers.clear();
        if self.chunks.is_empty() {
            return;
        }
        let Some(mut server) = server() else {
            self.chunks.clear();
            return;
        };
        for (_, n) in self.chunks.drain() {
            free(&mut server, n);
        }
    }
}

fn free(server: &mut Gd<Object>, n: ChunkNavigation2D) {
    for rid in n.region.into_iter().chain(n.links) {
        call(server, "free_rid", &[rid.to_variant()]);
    }
}

/// Puts link `rid` from `from` to `to` (half tiles of chunk `c`) in global positions.
fn place_link(server: &mut Gd<Object>, rid: Rid, place: &Placement2D, c: ChunkCoord2D, from: [i32; 2], to: [i32; 2]) {
    let (a, b) = (place.global * place.local_point(c, from), place.global * place.local_point(c, to));
    call(server, "link_set_start_position", &[rid.to_variant(), a.to_variant()]);
    call(server, "link_set_end_position", &[rid.to_variant(), b.to_variant()]);
}

/// The `NavigationServer2D` singleton (absent only in a build without navigation).
fn server() -> Option<Gd<Object>> {
    navigation_server::server("NavigationServer2D", "StrataChunkWorld2D")
}

/// `object.method(args)` by name; a failure is reported and gives nil.
fn call(object: &mut Gd<Object>, method: &str, args: &[Variant]) -> Variant {
    navigation_server::call(object, "StrataChunkWorld2D", method, args)
}

/// A `NavigationPolygon` of a chunk's polygons (positions in pixels from the chunk's corner),
/// with the map's cell size so the server does not warn.
fn navigation_polygon(mesh: &NavMesh2D, place: &Placement2D, cell_size: &Variant) -> Option<Gd<Resource>> {
    let mut polygon = ClassDb::singleton().instantiate("NavigationPolygon").try_to::<Gd<Resource>>().ok()?;
    polygon.set("cell_size", cell_size);
    let px = place.tile_px;
    let vertices: PackedVector2Array =
        mesh.polygons.vertices.iter().map(|&v| Vector2::new((v[0] * px.x) as f32, (v[1] * px.y) as f32)).collect();
    polygon.set("vertices", &vertices.to_variant());
    let polygons: VarArray = mesh
        .polygons
        .polygons()
        .map(|p| p.iter().map(|&i| i as i32).collect::<PackedInt32Array>().to_variant())
        .collect();
    polygon.set("polygons", &polygons.to_variant());
    Some(polygon)
}
