//! Navigation for the side view's streamed chunks: which chunks a job bakes walker navigation for
//! ([`NavConfig2D`]: distance, walker, block table from a block library), the tiles the bake
//! reads (the chunk's generated grid, plus the rows above it a ledge's head room needs,
//! generated on the worker, edits applied), and which chunks an edit re-bakes.
//!
//! May use: `base`, `gen2d`, `nav`.

use crate::base::block::BlockId;
use crate::base::block_library::{BlockLibrary, RenderMode};
use crate::base::coords::IVec3;
use crate::base::edits::EditMap;
use crate::gen2d::{ChunkCoord2D, Generator2D, TileGrid};
use crate::nav::{NavBlock, NavBlocks, NavError2D, NavMesh2D, NavScratch2D, NavSettings2D, bake_chunk_2d};
use std::time::Instant;

/// The largest navigation distance of a side-view world, in chunks.
pub const MAX_NAVIGATION_DISTANCE_2D: i32 = 8;

/// Walker navigation for a side-view streamer: how far from a viewer, for which walker, what
/// each block is to it.
#[derive(Clone, Debug, PartialEq)]
pub struct NavConfig2D {
    /// Chunks within this many chunks of a viewer (per axis) get navigation:
    /// 0..=[`MAX_NAVIGATION_DISTANCE_2D`].
    pub distance: i32,
    pub settings: NavSettings2D,
    pub blocks: NavBlocks,
}

impl NavConfig2D {
    /// A config whose block table follows `library`: solid blocks are floor, liquid ones
    /// liquid, the rest open; the distance clamped into range.
    pub fn from_library(distance: i32, settings: NavSettings2D, library: &BlockLibrary) -> Self {
        let blocks = NavBlocks::from_fn(library.len(), |id| match library.get(id) {
            Some(b) if b.render_mode == RenderMode::Liquid => NavBlock::Liquid,
            Some(b) if b.solid => NavBlock::Floor,
            Some(_) => NavBlock::Open,
            None => NavBlock::Floor,
        });
        Self { distance: distance.clamp(0, MAX_NAVIGATION_DISTANCE_2D), settings, blocks }
    }

    /// Whether chunk `c` lies within the navigation distance of one of the viewers' chunks.
    pub fn wants(&self, mut viewers: impl Iterator<Item = ChunkCoord2D>, c: ChunkCoord2D) -> bool {
        viewers.any(|v| (c.x - v.x).abs().max((c.y - v.y).abs()) <= self.distance)
    }

    /// The tiles chunk `c`'s bake reads, in world tiles: `(x, y, width, height)`
    /// ([`NavSettings2D::input_box`]).
    pub fn input_box(&self, c: ChunkCoord2D, chunk_tiles: i32) -> (i32, i32, i32, i32) {
        let (x0, y0) = c.min_tile(chunk_tiles);
        let (x, y, w, h) = self.settings.input_box(chunk_tiles);
        (x0 + x, y0 + y, w, h)
    }

    /// The edits chunk `c`'s bake must apply: those in its input box.
    pub fn edits_for(&self, edits: &EditMap, c: ChunkCoord2D, chunk_tiles: i32) -> Vec<(IVec3, BlockId)> {
        let (x, y, w, h) = self.input_box(c, chunk_tiles);
        edits.edits_in_box(IVec3::new(x, y, 0), IVec3::new(w, h, 1))
    }

    /// The chunks whose bake reads tile `(x, y)` (their input box holds it): those to re-bake
    /// after an edit of it.
    pub fn chunks_touching(&self, x: i32, y: i32, chunk_tiles: i32) -> Vec<ChunkCoord2D> {
        let n = chunk_tiles.max(1);
        let (bx, by, w, h) = self.settings.input_box(n);
        let mut out = Vec::new();
        // Chunk corner x0 with x0 + bx <= x < x0 + bx + w, likewise for y.
        for cy in (y - by - h + 1).div_euclid(n)..=(y - by).div_euclid(n) {
            for cx in (x - bx - w + 1).div_euclid(n)..=(x - bx).div_euclid(n) {
                let (x0, y0) = (cx * n + bx, cy * n + by);
                if (x0..x0 + w).contains(&x) && (y0..y0 + h).contains(&y) {
                    out.push(ChunkCoord2D::new(cx, cy));
                }
            }
        }
        out
    }
}

/// A worker's buffers for the bake.
#[derive(Debug, Default)]
pub struct NavInput2D {
    tiles: Vec<BlockId>,
    scratch: NavScratch2D,
}

/// Bakes chunk `c`'s walker navigation on a worker from `generated` (the grid the job generated
/// for it, edits applied: its padded chunk or its light box): the input box's rows above that
/// grid are generated here, and `edits` (the input box's, [`NavConfig2D::edits_for`]) applied
/// over the whole box. Returns the mesh and the microseconds it took.
pub fn bake_streamed_chunk_2d(
    generator: &Generator2D,
    c: ChunkCoord2D,
    generated: &TileGrid,
    edits: &[(IVec3, BlockId)],
    config: &NavConfig2D,
    work: &mut NavInput2D,
) -> (Result<NavMesh2D, NavError2D>, u32) {
    let t = Instant::now();
    let n = generator.chunk_tiles();
    let (x0, y0, w, h) = config.input_box(c, n);
    // Rows of the box the generated grid lacks (above it; it covers the box's columns and the
    // rows below).
    let missing = (generated.min_y - y0).clamp(0, h);
    let above = (missing > 0).then(|| generator.generate_region(x0, y0, w, missing));
    work.tiles.clear();
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let id = match &above {
                Some(a) if y < y0 + missing => a.get(x, y),
                _ => generated.get(x, y),
            };
            // A tile outside both grids cannot occur for a job's grid; read it generated.
            work.tiles.push(id.unwrap_or_else(|| generator.tile_at(x, y)));
        }
    }
    for &(p, id) in edits {
        if (x0..x0 + w).contains(&p.x) && (y0..y0 + h).contains(&p.y) {
            work.tiles[((p.y - y0) * w + (p.x - x0)) as usize] = id;
        }
    }
    let mut mesh = NavMesh2D::default();
    let result = bake_chunk_2d(&work.tiles, n, &config.settings, &config.blocks, &mut work.scratch, &mut mesh);
    (result.map(|()| mesh), t.elapsed().as_micros() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::block;
    use crate::base::block_library::default_library;
    use crate::nav::{HALF_TILES, NavLink2D};
    use crate::preset::model::WorldPreset;

    fn config() -> NavConfig2D {
        NavConfig2D::from_library(2, NavSettings2D::default(), default_library())
    }

    /// The bake of a whole input box, generated with edits, for comparison.
    fn expected(g: &Generator2D, c: ChunkCoord2D, config: &NavConfig2D, edits: &[(IVec3, BlockId)]) -> NavMesh2D {
        let (x0, y0, w, h) = config.input_box(c, g.chunk_tiles());
        let mut grid = g.generate_region(x0, y0, w, h);
        for &(p, id) in edits {
            grid.set(p.x, p.y, id);
        }
        let mut m = NavMesh2D::default();
        bake_chunk_2d(
            &grid.tiles,
            g.chunk_tiles(),
            &config.settings,
            &config.blocks,
            &mut NavScratch2D::default(),
            &mut m,
        )
        .unwrap();
        m
    }

    /// The streamed bake (the job's padded grid + the rows above it generated on the worker,
    /// edits applied) equals the bake of the box generated whole: on the ground, and in the sky
    /// where a ledge built in the rows above the padded grid drops onto a floor in the chunk.
    #[test]
    fn streamed_bake_equals_the_bake_of_the_whole_box_with_edits() {
        let g = Generator2D::new(&WorldPreset::default()).unwrap();
        let n = g.chunk_tiles();
        let config = config();
        let streamed = |c: ChunkCoord2D, edits: &[(IVec3, BlockId)]| {
            let mut padded = g.generate_padded_chunk(c);
            for &(p, id) in edits {
                padded.set(p.x, p.y, id);
            }
            let (got, _) = bake_streamed_chunk_2d(&g, c, &padded, edits, &config, &mut NavInput2D::default());
            got.unwrap()
        };
        let s = g.surface_row(10);
        let ground = ChunkCoord2D::containing(10, s, n);
        let dig = [(IVec3::new(10, s, 0), block::AIR)];
        assert!(!expected(&g, ground, &config, &[]).is_empty());
        assert_eq!(streamed(ground, &[]), expected(&g, ground, &config, &[]));
        assert_eq!(streamed(ground, &dig), expected(&g, ground, &config, &dig));
        assert_ne!(expected(&g, ground, &config, &dig), expected(&g, ground, &config, &[]), "the hole counts");
        // In the sky: a floor on the chunk's second row, and a ledge one column left of it on a
        // block in the row above the chunk; the ledge's walker stands two rows above the chunk.
        let sky = ChunkCoord2D::new(0, -40);
        let (x0, y0) = sky.min_tile(n);
        let mut edits: Vec<(IVec3, BlockId)> =
            (x0 + 2..x0 + 7).map(|x| (IVec3::new(x, y0 + 1, 0), block::STONE)).collect();
        edits.push((IVec3::new(x0 + 1, y0 - 1, 0), block::STONE));
        let dropping = expected(&g, sky, &config, &edits);
        let h = HALF_TILES;
        let drop = NavLink2D { from: [h + 1, -2 * h + 1], to: [2 * h + 1, 1] };
        assert!(dropping.links.contains(&drop), "{:?}", dropping.links);
        assert_eq!(streamed(sky, &edits), dropping);
        // A block in the ledge's drop column three rows above the chunk: no drop any more.
        edits.push((IVec3::new(x0 + 2, y0 - 3, 0), block::STONE));
        let blocked = expected(&g, sky, &config, &edits);
        assert!(!blocked.links.contains(&drop));
        assert_eq!(streamed(sky, &edits), blocked);
    }

    #[test]
    fn an_edit_rebakes_every_chunk_whose_box_holds_it() {
        let config = config();
        let n = 64;
        let (bx, by, w, h) = config.settings.input_box(n);
        for (x, y) in [(0, 0), (63, 63), (64, 64), (-1, -5), (10, 64 + 3), (-65, -130)] {
            let got = config.chunks_touching(x, y, n);
            let mut want = Vec::new();
            for cy in -4..=4 {
                for cx in -4..=4 {
                    let (x0, y0) = (cx * n + bx, cy * n + by);
                    if (x0..x0 + w).contains(&x) && (y0..y0 + h).contains(&y) {
                        want.push(ChunkCoord2D::new(cx, cy));
                    }
                }
            }
            assert_eq!(got, want, "tile ({x}, {y})");
        }
        // A tile a few rows above a chunk: that chunk's ledges' head room.
        assert!(config.chunks_touching(5, -3, n).contains(&ChunkCoord2D::new(0, 0)));
        assert!(config.wants([ChunkCoord2D::new(0, 0)].into_iter(), ChunkCoord2D::new(2, -2)));
        assert!(!config.wants([ChunkCoord2D::new(0, 0)].into_iter(), ChunkCoord2D::new(3, 0)));
    }

    /// Streamed chunks near the viewer come with navigation equal to the bake of their box; an
    /// edit (in the chunk, or in the rows above it its ledges read) brings a re-baked mesh; a
    /// chunk beyond the distance comes without, until asked for.
    #[test]
    fn a_streamer_bakes_near_chunks_rebakes_after_edits_and_on_request() {
        use crate::stream::stream2d::tests::drain_until_ready as drain;
        use crate::stream::stream2d::{StreamConfig2D, Streamer2D};
        use std::sync::Arc;
        let g = Arc::new(Generator2D::new(&WorldPreset::default()).unwrap());
        let config = Arc::new(NavConfig2D::from_library(0, NavSettings2D::default(), default_library()));
        let stream = StreamConfig2D {
            view_distance: 1,
            worker_threads: 2,
            navigation: Some(config.clone()),
            ..Default::default()
        };
        let mut s = Streamer2D::new(g.clone(), stream).unwrap();
        let n = g.chunk_tiles();
        let row = g.surface_row(10);
        s.set_viewer(10.5, row as f64 - 0.5);
        let viewer = ChunkCoord2D::containing(10, row - 1, n);
        let first = drain(&mut s);
        assert_eq!(first.len(), 9);
        for r in &first {
            assert_eq!(
                r.navigation.is_some(),
                r.coord == viewer,
                "only the viewer's chunk at distance 0: {:?}",
                r.coord
            );
            if let Some(m) = &r.navigation {
                assert_eq!(**m, expected(&g, r.coord, &config, &[]), "streamed bake of {:?}", r.coord);
            }
        }
        // Dig the ground under the viewer: its chunk comes back re-baked, its tiles rewritten.
        let mut edits = vec![(IVec3::new(10, row, 0), block::AIR)];
        s.set_tile(10, row, block::AIR);
        let again = drain(&mut s);
        let r = again.iter().rev().find(|r| r.coord == viewer).expect("the viewer's chunk is rebuilt");
        assert_eq!(r.navigation.as_deref(), Some(&expected(&g, viewer, &config, &edits)));
        assert_ne!(expected(&g, viewer, &config, &edits), expected(&g, viewer, &config, &[]));
        // A block two rows above the viewer's chunk, in no chunk's padded box that the chunk's
        // tiles need: the chunk is rebuilt for its navigation alone.
        let (_, y0) = viewer.min_tile(n);
        let above = (IVec3::new(30, y0 - 3, 0), block::STONE);
        assert!(!s.chunks_touching(30, y0 - 3).contains(&viewer));
        assert!(config.chunks_touching(30, y0 - 3, n).contains(&viewer));
        edits.push(above);
        s.set_tile(30, y0 - 3, block::STONE);
        let again = drain(&mut s);
        let r = again.iter().rev().find(|r| r.coord == viewer).expect("rebuilt for its navigation");
        assert!(!r.tiles_changed, "its tiles did not change");
        assert_eq!(r.navigation.as_deref(), Some(&expected(&g, viewer, &config, &edits)));
        // A loaded chunk beyond the distance, on request.
        let far = ChunkCoord2D::new(viewer.x + 1, viewer.y);
        assert!(!again.iter().any(|r| r.coord == far && r.navigation.is_some()));
        s.request_navigation(far);
        let asked = drain(&mut s);
        let r = asked.iter().rev().find(|r| r.coord == far).expect("rebuilt on request");
        assert_eq!(r.navigation.as_deref(), Some(&expected(&g, far, &config, &edits)));
    }

    #[test]
    fn the_block_table_follows_the_library() {
        let config = config();
        let lib = default_library();
        let water = lib.id_of("water").unwrap();
        assert_eq!(config.blocks.kind(block::AIR), NavBlock::Open);
        assert_eq!(config.blocks.kind(block::STONE), NavBlock::Floor);
        assert_eq!(config.blocks.kind(water), NavBlock::Liquid);
        assert_eq!(NavConfig2D::from_library(99, NavSettings2D::default(), lib).distance, MAX_NAVIGATION_DISTANCE_2D);
    }
}
