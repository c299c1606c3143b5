//! `StrataChunkWorld2D`'s `TileMapLayer`: binding the layer (`tile_map`, or one of its own with the
//! TileSet `tile_set_2d` draws), and writing the workers' finished chunks into it within the frame
//! budget. Only the cells whose tile changed are set (the world keeps what it wrote in each drawn
//! chunk), and Godot's update of those cells (`TileMapLayer.update_internals`) runs inside the
//! budget.
//!
//! Godot rebuilds every quadrant of the layer that has a changed cell whole (its drawing, and the
//! merged collision polygons of all its cells, the costly part), so a chunk is written a block
//! of one quadrant at a time: each frame finishes the quadrants it touches and touches as few
//! as it can. Before each block the update it adds is predicted with the learnt cost per call,
//! per quadrant and per cell in a touched quadrant (`layer_cost_2d`), and the frame stops where
//! the next block would pass the budget; a big edit's layer work is spread over frames.
//!
//! A child module of `chunk_world_2d`, so it reaches the node's queue, layer and drawn cells
//! directly.
//!
//! May use: `strata_core` (stream results), the parent module.

use super::layer_cost_2d::LayerWork;
use super::{ChunkWorld2D, TileOp};
use godot::classes::node::InternalMode;
use godot::classes::{Engine, TileMapLayer};
use godot::prelude::*;
use std::time::{Duration, Instant};
use strata_core::gen2d::autotile::AtlasCoords;

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

    /// Applies queued writes and erasures a block (one quadrant of the layer) at a time until
    /// the budget is spent, one block at least.
    pub(super) fn apply_ops(&mut self, frame_start: Instant, budget: Duration) {
        let Some(mut layer) = self.ensure_layer() else { return };
        let n = self.streamer.as_ref().map(|s| s.chunk_tiles()).unwrap_or(64).max(1);
        let source = self.tile_source_id.clamp(0, i32::MAX as i64) as i32;
        let side = block_side(&layer, n);
        let per_row = (n + side - 1) / side;
        let blocks = per_row * per_row;
        let mut loaded = Vec::new();
        let mut unloaded = Vec::new();
        // At least one block a frame, so the queue drains even when the work before it used the
        // budget (the smallest budget, slow frames).
        let mut done_blocks = 0u32;
        let mut work = LayerWork::default();
        let mut touched: Vec<(i32, i32)> = Vec::new();
        let mut changes: Vec<(i32, i32, Option<AtlasCoords>)> = Vec::new();
        let mut cells_set = 0u32;
        let mut set_time = Duration::ZERO;
        let mut redraw = false;
        while let Some(op) = self.ops.front() {
            let (c, writes) = (op.coord(), matches!(op, TileOp::Write { .. }));
            // A chunk's first cells: written relative to the cell origin (`origin_2d`); an
            // erasure of a chunk with no cells in the layer has nothing to do.
            if !self.drawn.contains_key(&c) {
                if !writes {
                    if self.announced.remove(&c) {
                        unloaded.push(c);
                    }
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
            let block = match op {
                TileOp::Write { next_block, .. } | TileOp::Erase { next_block, .. } => *next_block,
            };
            let (bx, by) = ((block % per_row) * side, (block / per_row) * side);
            let (w, h) = (side.min(n - bx), side.min(n - by));
            // Cells are world tiles less the cell origin (the layer node carries the rest).
            let (x0, y0) = op.coord().min_tile(n);
            let (x0, y0) = (x0.wrapping_sub(self.cell_origin[0]), y0.wrapping_sub(self.cell_origin[1]));
            // The block's changes, and the cells its quadrant will hold (Godot draws them all
            // again and merges the collision of them all).
            changes.clear();
            let mut filled = 0u32;
            for row in by..by + h {
                for col in bx..bx + w {
                    let i = (row * n + col) as usize;
                    let old = shown.get(i).copied().flatten();
                    let new = match op {
                        TileOp::Write { result, .. } => result.atlas.get(i).copied().flatten(),
                        TileOp::Erase { .. } => None,
                    };
                    filled += u32::from(new.is_some());
                    // An erasure clears every cell of the chunk, also those this world never
                    // wrote; only those it wrote are work for Godot.
                    if new != old || matches!(op, TileOp::Erase { .. }) {
                        changes.push((col, row, new));
                    }
                }
            }
            let godot_cells = changes
                .iter()
                .filter(|(col, row, new)| {
                    new.is_some() || shown.get((row * n + col) as usize).is_some_and(|o| o.is_some())
                })
                .count() as u32;
            if godot_cells > 0 {
                // The quadrants the block touches (one when the cells are aligned to quadrants,
                // as a chunk corner is).
                let mut more = work;
                for (col, row, _) in &changes {
                    let q = ((x0 + col).div_euclid(side), (y0 + row).div_euclid(side));
                    if !touched.contains(&q) {
                        touched.push(q);
                        more.quadrants += 1;
                    }
                }
                more.cells += filled + godot_cells;
                let set_per_cell = if cells_set > 0 { set_time / cells_set } else { Duration::from_micros(1) };
                let planned =
                    Duration::from_nanos(self.layer_cost.planned_ns(more) as u64) + set_per_cell * changes.len() as u32;
                if done_blocks > 0 && frame_start.elapsed() + planned >= budget {
                    touched.truncate(touched.len() - (more.quadrants - work.quadrants) as usize);
                    break;
                }
                work = more;
            }
            let set_start = Instant::now();
            for &(col, row, new) in &changes {
                let coords = Vector2i::new(x0 + col, y0 + row);
                match new {
                    Some(a) => layer
                        .set_cell_ex(coords)
                        .source_id(source)
                        .atlas_coords(Vector2i::new(a.column as i32, a.row as i32))
                        .done(),
                    None => layer.erase_cell(coords),
                }
                if let Some(old) = shown.get_mut((row * n + col) as usize) {
                    *old = new;
                }
            }
            set_time += set_start.elapsed();
            cells_set += changes.len() as u32;
            done_blocks += 1;
            let finished = match op {
                TileOp::Write { result, next_block } => {
                    *next_block += 1;
                    let finished = *next_block >= blocks;
                    // A chunk's first write may be replaced by a newer result (an update)
                    // before it finishes: the chunk is announced by whichever finishes first.
                    if finished && self.announced.insert(result.coord) {
                        loaded.push(result.coord);
                    }
                    finished
                }
                TileOp::Erase { coord, next_block } => {
                    *next_block += 1;
                    let finished = *next_block >= blocks;
                    if finished {
                        if self.announced.remove(coord) {
                            unloaded.push(*coord);
                        }
                        self.drawn.remove(coord);
                    }
                    finished
                }
            };
            if finished {
                self.ops.pop_front();
            }
        }

        self.layer_update_ms_last_frame = 0.0;
        if work != LayerWork::default() {
            // Godot would update these cells' rendering and physics at the end of the frame,
            // outside the budget; here their cost counts, and teaches the next frame's stop.
            let (update_start, cpu_start) = (Instant::now(), crate::base::thread_clock::thread_cpu_time());
            layer.update_internals();
            let update = update_start.elapsed();
            self.layer_update_ms_last_frame = update.as_secs_f64() * 1000.0;
            // Learnt from the thread's own CPU time where there is a thread clock: on a busy
            // machine the wall time also holds the time the thread waited for a core, which is
            // no cost of the update and would make every later frame write less.
            let cost = crate::base::thread_clock::thread_cpu_time()
                .zip(cpu_start)
                .map_or(update, |(end, start)| end.saturating_sub(start));
            self.layer_cost.learn(work, cost.as_nanos() as f64);
        }

        let restarted = std::mem::take(&mut self.unannounced_by_restart);
        for c in restarted.into_iter().chain(unloaded) {
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

/// The side of the blocks a chunk is written in: the layer's quadrant (the larger of its
/// rendering and physics quadrants), at most the chunk.
fn block_side(layer: &Gd<TileMapLayer>, n: i32) -> i32 {
    let rendering = layer.get_rendering_quadrant_size();
    let physics = layer.get_physics_quadrant_size();
    rendering.max(physics).clamp(1, n)
}
