//! `StrataChunkWorld2D`'s `TileMapLayer`: binding the layer (`tile_map`, or one of its own with the
//! TileSet `tile_set_2d` draws), and writing the workers' finished chunks into it a row at a time
//! within the frame budget. Only the cells whose tile changed are set (the world keeps what it
//! wrote in each drawn chunk), and Godot's update of those cells (`TileMapLayer.update_internals`)
//! runs inside the budget: its cost per cell is learnt as a running mean and counted before each
//! row, so a big edit's layer work is spread over frames.
//!
//! A child module of `chunk_world_2d`, so it reaches the node's queue, layer and drawn cells
//! directly.
//!
//! May use: `strata_core` (stream results), the parent module.

use super::{ChunkWorld2D, LAYER_UPDATE_MEAN_WEIGHT, TileOp};
use godot::classes::node::InternalMode;
use godot::classes::{Engine, TileMapLayer};
use godot::prelude::*;
use std::time::Instant;

impl ChunkWorld2D {
    /// The layer to fill: `tile_map`, or a created child `TileMapLayer` with a generated TileSet.
    /// A freed layer is dropped; binding a layer other than the one the loaded chunks were
    /// written to sets `layer_changed`. When `tile_map` names no `TileMapLayer`, says so once
    /// (warning and `last_error()`) and returns None.
    pub(super) fn ensure_layer(&mut self) -> Option<Gd<TileMapLayer>> {
        if let Some(l) = &self.layer {
            if l.is_instance_valid() {
                return Some(l.clone());
            }
            self.layer = None;
        }
        let editor = Engine::singleton().is_editor_hint();
        let mut layer = if !self.tile_map.is_empty() && !editor {
            let found = if self.base().is_inside_tree() {
                self.base().get_node_or_null(&self.tile_map).and_then(|n| n.try_cast::<TileMapLayer>().ok())
            } else {
                None
            };
            let Some(found) = found else {
                if self.layer_missing.is_none() && self.base().is_inside_tree() {
                    let message = format!(
                        "StrataChunkWorld2D.tile_map: no TileMapLayer at {} (freed, moved or never there); allowed: the path of a TileMapLayer, or empty for a layer of its own; the world shows nothing until tile_map names one",
                        self.tile_map
                    );
                    self.host.warn(message.clone());
                    self.layer_missing = Some(message);
                }
                return None;
            };
            found
        } else {
            let mut l = TileMapLayer::new_alloc();
            l.set_name("Tiles");
            if editor && let Some(tile_set) = self.named_layer_tile_set() {
                l.set_tile_set(&tile_set);
            }
            self.base_mut().add_child_ex(&l).internal(InternalMode::BACK).done();
            l
        };
        if let Some(m) = self.layer_missing.take() {
            self.host.resolve(&m);
        }
        if layer.get_tile_set().is_none() {
            self.give_tile_set(&mut layer);
        }
        let id = layer.instance_id();
        if self.bound_layer.is_some_and(|b| b != id) {
            self.layer_changed = true;
        }
        if self.bound_layer != Some(id) {
            // Nothing of this world is in a newly bound layer yet: it stands where it was put.
            self.drawn.clear();
            self.layer_offset = Vector2::ZERO;
            self.layer_base = layer.get_position();
        }
        self.bound_layer = Some(id);
        self.layer = Some(layer.clone());
        Some(layer)
    }

    /// Applies queued writes and erasures a row at a time until the budget is spent, one row
    /// at least.
    pub(super) fn apply_ops(&mut self, frame_start: Instant, budget: std::time::Duration) {
        let Some(mut layer) = self.ensure_layer() else { return };
        let n = self.streamer.as_ref().map(|s| s.chunk_tiles()).unwrap_or(64);
        let source = self.tile_source_id.clamp(0, i32::MAX as i64) as i32;
        let mut loaded = Vec::new();
        let mut unloaded = Vec::new();
        // At least one row a frame, so the queue drains even when the work before it used the
        // budget (the smallest budget, slow frames).
        let mut rows = 0;
        let mut cells_set: u32 = 0;
        let mut redraw = false;
        while let Some(op) = self.ops.front() {
            let update_due = std::time::Duration::from_nanos((cells_set as f64 * self.layer_update_ns_per_cell) as u64);
            if rows > 0 && frame_start.elapsed() + update_due >= budget {
                break;
            }
            let (c, writes) = (op.coord(), matches!(op, TileOp::Write { .. }));
            // A chunk's first cells: written relative to the cell origin (`origin_2d`); an
            // erasure of a chunk with no cells in the layer has nothing to do.
            if !self.drawn.contains_key(&c) {
                if !writes {
                    unloaded.push(c);
                    self.ops.pop_front();
                    continue;
                }
                if !self.cells_ready_for(c, n) {
                    redraw = true;
                    break;
                }
                self.drawn.insert(c, vec![None; (n * n) as usize]);
            }
            let Some(op) = self.ops.front_mut() else { break };
            let Some(shown) = self.drawn.get_mut(&c) else { break };
            rows += 1;
            let (x0, y0) = op.coord().min_tile(n);
            // Cells are world tiles less the cell origin (the layer node carries the rest).
            let (x0, y0) = (x0.wrapping_sub(self.cell_origin[0]), y0.wrapping_sub(self.cell_origin[1]));
            let done = match op {
                TileOp::Write { result, next_row } => {
                    let row = *next_row;
                    let at = (row * n) as usize..((row + 1) * n) as usize;
                    // Only the cells that change are set: an update after a small edit leaves
                    // most rows as they are (each cell set is a call into Godot and a cell
                    // Godot updates again at the end of the frame).
                    if let (Some(new), Some(old)) = (result.atlas.get(at.clone()), shown.get_mut(at))
                        && new != old
                    {
                        for (col, (new, old)) in new.iter().zip(old.iter_mut()).enumerate() {
                            if new == old {
                                continue;
                            }
                            let coords = Vector2i::new(x0 + col as i32, y0 + row);
                            match new {
                                Some(a) => layer
                                    .set_cell_ex(coords)
                                    .source_id(source)
                                    .atlas_coords(Vector2i::new(a.column as i32, a.row as i32))
                                    .done(),
                                None => layer.erase_cell(coords),
                            }
                            *old = *new;
                            cells_set += 1;
                        }
                    }
                    *next_row += 1;
                    let finished = *next_row >= n;
                    if finished && !result.is_update {
                        loaded.push(result.coord);
                    }
                    finished
                }
                TileOp::Erase { coord, next_row } => {
                    for col in 0..n {
                        layer.erase_cell(Vector2i::new(x0 + col, y0 + *next_row));
                    }
                    cells_set += n as u32;
                    *next_row += 1;
                    let finished = *next_row >= n;
                    if finished {
                        unloaded.push(*coord);
                        self.drawn.remove(coord);
                    }
                    finished
                }
            };
            if done {
                self.ops.pop_front();
            }
        }

        self.layer_update_ms_last_frame = 0.0;
        if cells_set > 0 {
            // Godot would update these cells' rendering and physics at the end of the frame,
            // outside the budget; here their cost counts, and teaches the next frame's stop.
            let update_start = Instant::now();
            layer.update_internals();
            let update = update_start.elapsed();
            self.layer_update_ms_last_frame = update.as_secs_f64() * 1000.0;
            let per_cell = update.as_nanos() as f64 / f64::from(cells_set);
            self.layer_update_ns_per_cell += (per_cell - self.layer_update_ns_per_cell) * LAYER_UPDATE_MEAN_WEIGHT;
        }

        for c in unloaded {
            self.signals().chunk_unloaded().emit(Vector2i::new(c.x, c.y));
        }
        for c in loaded {
            self.signals().chunk_loaded().emit(Vector2i::new(c.x, c.y));
        }
        if redraw {
            // A chunk past the exact range of the cells while others are drawn: draw it all again.
            self.redraw_at_origin();
        }
    }
}
