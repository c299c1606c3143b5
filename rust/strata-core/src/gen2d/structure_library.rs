//! The side-view structures Strata ships, named as the 3D ones so that one preset's rules place
//! the matching structure in either kind of world: a cottage, a ruin and a crypt, drawn as rows
//! of text and resolved through the world's block library (a library lacking one of their blocks
//! gets an error naming it).
//!
//! - `cottage` (9 × 8): a plank roof, log walls with a glass window, a door on the left, a torch
//!   inside, on a stone foundation. For the surface with `sink: 1` (the foundation replaces the
//!   grass row).
//! - `ruin` (11 × 6): broken stone and gravel walls and a pillar on a stone floor; what stands is
//!   chosen by a fixed hash, so it is the same everywhere. Surface, `sink: 1`.
//! - `crypt` (13 × 7): a buried stone room, its air carved out of the rock, two pillars with
//!   torches and a block of gold ore on the floor in the middle. Underground or in caves.
//!
//! May use: `base`, `gen2d::structures`.

use crate::base::block_library::BlockLibrary;
use crate::base::rng::hash2;
use crate::gen2d::structures::{StructureError2D, StructureLibrary2D, StructureTemplate2D};

/// The names of the shipped side-view structures, in library order.
pub const SHIPPED_STRUCTURES_2D: [&str; 3] = ["cottage", "ruin", "crypt"];

/// The characters the shipped structures are drawn with.
const LEGEND: [(char, &str); 9] = [
    ('.', "keep"),
    ('_', "air"),
    ('S', "stone"),
    ('G', "gravel"),
    ('P', "planks"),
    ('L', "log"),
    ('W', "glass"),
    ('T', "torch"),
    ('O', "gold_ore"),
];

/// The shipped side-view structures with the ids of `library`.
pub fn shipped_structures_2d(library: &BlockLibrary) -> Result<StructureLibrary2D, StructureError2D> {
    Ok(StructureLibrary2D::new(vec![cottage(library)?, ruin(library)?, crypt(library)?]))
}

/// The side-view structure library of a world that brings its own structures: the shipped ones
/// made of `library`'s blocks (left out when `library` lacks one of their blocks), then `own` in
/// order, a structure of a shipped one's name replacing it.
pub fn shipped_structures_2d_with(library: &BlockLibrary, own: Vec<StructureTemplate2D>) -> StructureLibrary2D {
    let mut all = shipped_structures_2d(library).unwrap_or_default();
    for t in own {
        all.insert(t);
    }
    all
}

fn cottage(library: &BlockLibrary) -> Result<StructureTemplate2D, StructureError2D> {
    let rows = [
        "...PPP...", //
        "..PPPPP..",
        ".PPPPPPP.",
        "LLLLLLLLL",
        "L_______W",
        "__T_____L",
        "________L",
        "SSSSSSSSS",
    ];
    StructureTemplate2D::from_rows("cottage", &rows, &LEGEND, library)
}

fn ruin(library: &BlockLibrary) -> Result<StructureTemplate2D, StructureError2D> {
    let (w, h) = (11usize, 6usize);
    let mut rows: Vec<Vec<char>> = vec![vec!['.'; w]; h];
    for (x, c) in rows[h - 1].iter_mut().enumerate() {
        *c = if x == 0 || x == w - 1 { 'G' } else { 'S' };
    }
    for (y, row) in rows.iter_mut().enumerate().take(h - 1) {
        // Rows counted up from the floor: fewer blocks stand the higher the row.
        let up = (h - 1 - y) as u64;
        for (x, c) in row.iter_mut().enumerate() {
            let wall = x == 0 || x == w - 1 || x == w / 2;
            if !wall {
                continue;
            }
            let roll = hash2(0x5275_696e, 0, x as i32, y as i32) % 100;
            if roll < 100 - 17 * up {
                *c = if roll.is_multiple_of(5) { 'G' } else { 'S' };
            }
        }
    }
    let rows: Vec<String> = rows.into_iter().map(|r| r.into_iter().collect()).collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    StructureTemplate2D::from_rows("ruin", &rows, &LEGEND, library)
}

fn crypt(library: &BlockLibrary) -> Result<StructureTemplate2D, StructureError2D> {
    let rows = [
        "SSSSSSSSSSSSS", //
        "S___________S",
        "S__S_____S__S",
        "S__ST___TS__S",
        "S__S_____S__S",
        "S__S__O__S__S",
        "SSSSSSSSSSSSS",
    ];
    StructureTemplate2D::from_rows("crypt", &rows, &LEGEND, library)
}
