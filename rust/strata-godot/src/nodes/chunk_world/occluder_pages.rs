//! The occluder bits of every chunk and far column whose AO the block shaders compute per
//! fragment, kept in shared texture arrays ("pages") instead of a texture of each mesh's own.
//!
//! A page is a `Texture2DArray` of [`PAGE_LAYERS`] layers of [`LAYER_ROWS`] padded rows
//! (`strata_core::mesh::occluders`' layout: 170 × 34 bytes, `R8`). A mesh with bits takes one
//! free layer (a far column taller than one layer: as many consecutive ones as it needs) and
//! its own copy of each of its block materials, which names the page (`strata_occluder_pages`)
//! and where its bits are in it (`strata_occluder_slot`: first layer, padded row of the first
//! kept row, rows kept, cell size). So a loaded chunk costs one layer upload instead of an
//! `Image` and an `ImageTexture` of its own (which Godot's headless renderer keeps in memory,
//! and a GPU renderer as one small texture each).
//!
//! A mesh taken out of the world leaves its material copies as spares of its page, and the next
//! mesh on that page takes them and only sets its slot: a copy made anew costs a duplicate of the
//! whole block material (most of a chunk's apply on the main thread, measured 85 µs of 170).
//!
//! The slot is a material uniform, not an instance uniform: Godot gives every instance with
//! instance uniforms 16 slots of a buffer that holds 4,096 under OpenGL, so no more than 256
//! chunks could have them.
//!
//! Architecture invariant: a slot is held exactly as long as its node is loaded; the world
//! releases it when it takes the node out of `nodes` / `far_nodes` (retired, replaced or
//! stopped), so the layers in use always equal the layers of the shown meshes.
//!
//! May use: `strata_core::mesh::occluders`, Godot's `Image`, `Texture2DArray`,
//! `ShaderMaterial`, `ArrayMesh`.

use godot::classes::image::Format;
use godot::classes::{ArrayMesh, Image, ShaderMaterial, Texture2DArray};
use godot::prelude::*;
use std::collections::HashMap;
use strata_core::mesh::occluders::{LAYER_ROWS, OccluderBits};

/// Layers in a page: the least count every OpenGL ES 3.0 device supports.
pub(super) const PAGE_LAYERS: usize = 256;
/// The padded box's width and depth the pages hold (a padded chunk, a far column's cells).
const SIDE: usize = 34;
/// Bytes of one layer row: a padded row along x, `SIDE` bits, for each of the `SIDE` rows
/// along z.
const LAYER_WIDTH: usize = SIDE.div_ceil(8) * SIDE;
/// The material uniform naming a mesh's layers.
const SLOT_UNIFORM: &str = "strata_occluder_slot";

/// Where one mesh's bits are: `count` layers of page `page` from layer `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct OccluderSlot {
    page: usize,
    first: usize,
    count: usize,
}

/// Which layers of a page are taken.
#[derive(Debug)]
struct LayerMap {
    taken: Vec<bool>,
    in_use: usize,
}

impl LayerMap {
    fn new(layers: usize) -> Self {
        Self { taken: vec![false; layers], in_use: 0 }
    }

    /// Takes the first run of `count` free layers; `None` when there is none.
    fn take(&mut self, count: usize) -> Option<usize> {
        if count == 0 || count > self.taken.len() - self.in_use {
            return None;
        }
        let mut run = 0;
        for i in 0..self.taken.len() {
            run = if self.taken[i] { 0 } else { run + 1 };
            if run == count {
                let first = i + 1 - count;
                self.taken[first..=i].fill(true);
                self.in_use += count;
                return Some(first);
            }
        }
        None
    }

    fn give_back(&mut self, first: usize, count: usize) {
        for t in &mut self.taken[first..first + count] {
            debug_assert!(*t, "a layer given back twice");
            self.in_use -= usize::from(*t);
            *t = false;
        }
    }
}

struct Page {
    texture: Gd<Texture2DArray>,
    layers: LayerMap,
}

/// The pages of one `StrataChunkWorld` (see the module doc).
#[derive(Default)]
pub(super) struct OccluderPages {
    pages: Vec<Page>,
    /// A layer's bytes, reused.
    layer: Vec<u8>,
    /// Material copies no shown mesh holds, by page and the shared material they copy.
    spares: HashMap<(usize, InstanceId), Vec<Gd<ShaderMaterial>>>,
    /// The page and shared material of every copy made.
    copied_from: HashMap<InstanceId, (usize, InstanceId)>,
}

impl OccluderPages {
    /// Puts `bits` into free layers and gives `mesh`'s surfaces (all but the liquid one, and
    /// only shader materials) their own copies of their materials, naming the page and the
    /// slot; `cell` is a cell's size in the mesh's units (a far column's stride). Returns the
    /// slot and the copies; `None` (the mesh keeps its shared materials and shows without AO)
    /// when the bits are not a padded box of 34 × 34 columns or no page can be made.
    pub(super) fn attach(
        &mut self,
        mesh: &Gd<ArrayMesh>,
        bits: &OccluderBits,
        cell: i32,
    ) -> Option<(OccluderSlot, Vec<Gd<ShaderMaterial>>)> {
        if bits.size[0] != SIDE || bits.size[2] != SIDE || bits.is_empty() {
            return None;
        }
        let count = bits.layer_count();
        let slot = self.take(count)?;
        let page = &mut self.pages[slot.page];
        for k in 0..count {
            bits.write_layer(k, &mut self.layer);
            let data = PackedByteArray::from(self.layer.as_slice());
            let Some(image) = Image::create_from_data(LAYER_WIDTH as i32, LAYER_ROWS as i32, false, Format::R8, &data)
            else {
                page.layers.give_back(slot.first, slot.count);
                return None;
            };
            page.texture.update_layer(&image, (slot.first + k) as i32);
        }
        let rows = bits.image_size().1 as i32;
        let where_ = Vector4i::new(slot.first as i32, bits.first_row as i32, rows, cell).to_variant();
        let texture = page.texture.to_variant();
        let mut copies = Vec::new();
        let mut mesh = mesh.clone();
        for i in 0..mesh.get_surface_count() {
            if mesh.surface_get_name(i) == "liquid" {
                continue;
            }
            let Some(shared) = mesh.surface_get_material(i).and_then(|m| m.try_cast::<ShaderMaterial>().ok()) else {
                continue;
            };
            let key = (slot.page, shared.instance_id());
            let mut copy = match self.spares.get_mut(&key).and_then(Vec::pop) {
                Some(spare) => spare,
                None => {
                    let mut copy = shared.duplicate_resource();
                    copy.set_shader_parameter("strata_occlusion", &true.to_variant());
                    copy.set_shader_parameter("strata_occluder_pages", &texture);
                    self.copied_from.insert(copy.instance_id(), key);
                    copy
                }
            };
            copy.set_shader_parameter(SLOT_UNIFORM, &where_);
            mesh.surface_set_material(i, &copy);
            copies.push(copy);
        }
        Some((slot, copies))
    }

    /// Frees the layers of `slot` and keeps `copies`, the material copies [`Self::attach`] gave
    /// its mesh, as spares (its mesh was taken out of the world: hidden or freed, so a copy set
    /// to another slot changes nothing on screen).
    pub(super) fn release(&mut self, slot: OccluderSlot, copies: Vec<Gd<ShaderMaterial>>) {
        if let Some(page) = self.pages.get_mut(slot.page) {
            page.layers.give_back(slot.first, slot.count);
        }
        for copy in copies {
            if let Some(&key) = self.copied_from.get(&copy.instance_id()) {
                self.spares.entry(key).or_default().push(copy);
            }
        }
    }

    /// The spare material copies (which still follow the shared uniforms, as the shown ones do).
    pub(super) fn spare_materials(&self) -> impl Iterator<Item = &Gd<ShaderMaterial>> {
        self.spares.values().flatten()
    }

    /// Frees every layer, page and spare (the world stopped streaming: no mesh holds a slot).
    pub(super) fn clear(&mut self) {
        self.pages.clear();
        self.spares.clear();
        self.copied_from.clear();
    }

    /// `(pages, layers in use)`.
    pub(super) fn usage(&self) -> (usize, usize) {
        (self.pages.len(), self.pages.iter().map(|p| p.layers.in_use).sum())
    }

    /// A run of `count` free layers: in the first page that has one, else in a new page.
    fn take(&mut self, count: usize) -> Option<OccluderSlot> {
        for (page, p) in self.pages.iter_mut().enumerate() {
            if let Some(first) = p.layers.take(count) {
                return Some(OccluderSlot { page, first, count });
            }
        }
        if count > PAGE_LAYERS {
            return None;
        }
        let texture = blank_page()?;
        let mut layers = LayerMap::new(PAGE_LAYERS);
        let first = layers.take(count)?;
        self.pages.push(Page { texture, layers });
        Some(OccluderSlot { page: self.pages.len() - 1, first, count })
    }
}

/// A page of [`PAGE_LAYERS`] open layers.
fn blank_page() -> Option<Gd<Texture2DArray>> {
    let blank = vec![0u8; LAYER_WIDTH * LAYER_ROWS];
    let image = Image::create_from_data(
        LAYER_WIDTH as i32,
        LAYER_ROWS as i32,
        false,
        Format::R8,
        &PackedByteArray::from(blank),
    )?;
    crate::host::materials::texture_array_of(&image, PAGE_LAYERS, "a page of occluder bits", "chunks show without AO")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of layers are taken first-fit, given back, and taken again; a run never overlaps
    /// another and a page never hands out more than it has.
    #[test]
    fn layer_runs_are_taken_and_given_back_without_overlap() {
        let mut map = LayerMap::new(8);
        assert_eq!(map.take(3), Some(0));
        assert_eq!(map.take(1), Some(3));
        assert_eq!(map.take(4), Some(4));
        assert_eq!(map.take(1), None, "full");
        map.give_back(0, 3);
        assert_eq!(map.in_use, 5);
        assert_eq!(map.take(4), None, "three free, not four");
        assert_eq!(map.take(2), Some(0));
        map.give_back(3, 1);
        assert_eq!(map.take(2), Some(2), "the run across the freed layer");
        assert_eq!(map.in_use, 8);
        assert_eq!(map.take(1), None, "full again");
        assert_eq!(map.take(0), None, "an empty run is no slot");
    }
}
