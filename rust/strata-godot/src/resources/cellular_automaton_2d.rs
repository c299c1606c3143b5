//! `StrataCellularAutomaton2D` (RefCounted): the world's Life-like automaton and its flood fill of
//! secondary regions on a script's own grid of bytes; the Godot face of
//! `strata_core::automata::life`. Bad input is refused with `push_error` naming the value and
//! what is allowed (kept for `last_error()`), and the state is left as it was.
//!
//! May use: `strata_core::automata` (the automaton, the fill and their checks).

use crate::base::errors::LastError;
use godot::prelude::*;
use strata_core::automata::cellular::CaRule;
use strata_core::automata::life::{self, LifeGridError};

/// Runs a Life-like cellular automaton ("B…/S…", Conway's Game of Life by default) on a grid of
/// bytes, with the same bit-parallel code as the caves of the worlds. A grid is a
/// `PackedByteArray` of `width × height` bytes, row by row from the top left: a nonzero byte is an
/// alive cell (rock, in caves), 0 a dead one (open); results hold 1 and 0. Cells outside the grid
/// are dead. Widths and heights are 1–4096, ticks 0–4096.
#[derive(GodotClass)]
#[class(base = RefCounted, rename = StrataCellularAutomaton2D)]
pub struct CellularAutomaton2D {
    base: Base<RefCounted>,
    /// The rule as "B…/S…": a dead cell with a count of alive neighbours (of the 8 around it)
    /// listed after B is born, an alive cell with a count listed after S survives, every other
    /// cell is dead next. Counts are single digits (B3/S23) or comma lists and ranges (B3/S1-5),
    /// 0–8. Default "B3/S23", Conway's Game of Life. A bad rule is refused with an error and the
    /// previous rule is kept.
    #[var(set)]
    rule: GString,
    parsed: CaRule,
    last_error: LastError,
}

#[godot_api]
impl IRefCounted for CellularAutomaton2D {
    fn init(base: Base<RefCounted>) -> Self {
        Self { base, rule: GString::from("B3/S23"), parsed: CaRule::CONWAY, last_error: LastError::default() }
    }
}

#[godot_api]
impl CellularAutomaton2D {
    /// Sets `rule` (see the property); a bad rule is refused with an error and the old one kept.
    #[func]
    fn set_rule(&mut self, rule: GString) {
        match life::parse_rule_2d(&rule.to_string()) {
            Ok(parsed) => {
                self.rule = rule;
                self.parsed = parsed;
                self.last_error.clear();
            }
            Err(e) => self.fail("rule", e),
        }
    }

    /// The grid `cells` (`width × height` bytes, nonzero alive) after `ticks` ticks of the rule,
    /// each computed from the previous one only (cells outside the grid are dead), as bytes of 1
    /// (alive) and 0 (dead). Wrong sizes, a length other than `width × height` or ticks outside
    /// 0–4096 give an empty array and an error.
    #[func]
    fn step(&mut self, cells: PackedByteArray, width: i64, height: i64, ticks: i64) -> PackedByteArray {
        match life::life_cells_2d(cells.as_slice(), width, height, self.parsed, ticks) {
            Ok(out) => {
                self.last_error.clear();
                PackedByteArray::from(out.as_slice())
            }
            Err(e) => {
                self.fail("step", e);
                PackedByteArray::new()
            }
        }
    }

    /// The grid `cells` (`width × height` bytes; 0 open, nonzero rock) with every open region
    /// (4-connected: left, right, up, down) but the largest filled with rock, as bytes of 1 (rock)
    /// and 0 (open). Among equally large regions the one reached first row by row from the top
    /// left stays. Bad sizes give an empty array and an error.
    #[func]
    fn flood_fill_secondary(&mut self, cells: PackedByteArray, width: i64, height: i64) -> PackedByteArray {
        match life::fill_secondary_cells_2d(cells.as_slice(), width, height) {
            Ok(out) => {
                self.last_error.clear();
                PackedByteArray::from(out.as_slice())
            }
            Err(e) => {
                self.fail("flood_fill_secondary", e);
                PackedByteArray::new()
            }
        }
    }

    /// The message of the last refused call or rule; empty after a call that succeeded.
    #[func]
    fn last_error(&self) -> GString {
        self.last_error.get()
    }
}

impl CellularAutomaton2D {
    fn fail(&mut self, what: &str, e: LifeGridError) {
        let message = match e {
            LifeGridError::Rule { .. } => format!("StrataCellularAutomaton2D.{what}: {e} (kept \"{}\")", self.rule),
            _ => format!("StrataCellularAutomaton2D.{what}(): {e}"),
        };
        self.last_error.record(&message);
    }
}
