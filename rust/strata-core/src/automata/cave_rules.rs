//! The cave automaton's program: which automaton stages a cave preset runs, decided in one
//! place for the 3D caverns ([`CaveRules::of_caves`]) and the 2D side-view caves
//! ([`CaveRules::of_side_view`]).
//!
//! Rock is the alive state. Per [`CaveMode`]:
//! - `None`: no automaton, no caves ([`cave_stages`] gives `None`).
//! - `CellularAutomata`: `passes` of [`CaRule::AtLeast`]`(threshold)`, then `final_passes` of
//!   `AtLeast(final_threshold)`.
//! - `GameOfLife`: exactly `life_ticks` ticks of the Life-like `life_rule` ([`CaRule::Life`]:
//!   counts over the neighbours, the cell excluded: 26 in 3D, 8 in 2D), nothing else.
//!
//! What follows the automaton ([`CaveRules::cleanup`]): `CellularAutomata` fills small pockets
//! ([`crate::automata::flood_fill`]); `GameOfLife` fills every open region but the main one of
//! its world-aligned region when `life_flood_fill` is set ([`crate::automata::life`]), else
//! nothing.
//!
//! The rule string is parsed by [`parse_life_rule`] (counts 0..=26). A 2D neighbourhood never
//! counts more than 8, so a rule's bits above 8 never apply there: the same masks serve both.
//!
//! May use: `base`, `preset`, `automata::cellular`.

use crate::automata::cellular::{CaRule, CaStage};
use crate::preset::life_rule::{LifeRuleError, parse_life_rule};
use crate::preset::model::{CaveMode, CaveSettings, SideViewSettings};

/// The automaton settings of one kind of cave, whatever the preset section they come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaveRules<'a> {
    pub mode: CaveMode,
    /// Passes of `AtLeast(threshold)` in `CellularAutomata` mode (`GameOfLife` runs `life_ticks`).
    pub passes: u32,
    /// Threshold of the main rule in `CellularAutomata` mode.
    pub threshold: u32,
    /// Refining passes after the main rule in `CellularAutomata` mode.
    pub final_passes: u32,
    pub final_threshold: u32,
    /// "B…/S…" rule of `GameOfLife` mode.
    pub life_rule: &'a str,
    /// Ticks of the Life rule in `GameOfLife` mode.
    pub life_ticks: u32,
    /// `GameOfLife` mode: keep only the main open region of each world-aligned region.
    pub life_flood_fill: bool,
}

/// What runs on the automaton's result (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaveCleanup {
    /// Nothing: the automaton's cells as they are.
    Nothing,
    /// Open pockets smaller than the preset's minimum are filled.
    Pockets,
    /// Every open region but the main one of its world-aligned region is filled.
    MainRegion,
}

impl<'a> CaveRules<'a> {
    /// The 3D caverns' rules.
    pub fn of_caves(c: &'a CaveSettings) -> Self {
        Self {
            mode: c.mode,
            passes: c.passes,
            threshold: c.threshold,
            final_passes: c.final_passes,
            final_threshold: c.final_threshold,
            life_rule: &c.life_rule,
            life_ticks: c.life_ticks,
            life_flood_fill: c.life_flood_fill,
        }
    }

    /// The 2D side-view caves' rules.
    pub fn of_side_view(sv: &'a SideViewSettings) -> Self {
        Self {
            mode: sv.cave_mode,
            passes: sv.cave_passes,
            threshold: sv.cave_threshold,
            final_passes: sv.cave_final_passes,
            final_threshold: sv.cave_final_threshold,
            life_rule: &sv.cave_life_rule,
            life_ticks: sv.cave_life_ticks,
            life_flood_fill: sv.cave_life_flood_fill,
        }
    }

    /// What runs after the automaton.
    pub fn cleanup(&self) -> CaveCleanup {
        match self.mode {
            CaveMode::None => CaveCleanup::Nothing,
            CaveMode::CellularAutomata | CaveMode::Classic => CaveCleanup::Pockets,
            CaveMode::GameOfLife if self.life_flood_fill => CaveCleanup::MainRegion,
            CaveMode::GameOfLife => CaveCleanup::Nothing,
        }
    }
}

/// The automaton program of `rules` (see the module docs): `None` when the mode makes no caves,
/// an error when the Life rule of `GameOfLife` mode does not parse.
pub fn cave_stages(rules: &CaveRules) -> Result<Option<Vec<CaStage>>, LifeRuleError> {
    match rules.mode {
        CaveMode::None => Ok(None),
        // The side-view classic runs its own program (`gen2d::classic`); 3D presets refuse it.
        CaveMode::Classic => Ok(None),
        CaveMode::CellularAutomata => Ok(Some(vec![
            CaStage { rule: CaRule::AtLeast(rules.threshold), passes: rules.passes },
            CaStage { rule: CaRule::AtLeast(rules.final_threshold), passes: rules.final_passes },
        ])),
        CaveMode::GameOfLife => {
            let (birth, survival) = parse_life_rule(rules.life_rule)?;
            Ok(Some(vec![CaStage { rule: CaRule::Life { birth, survival }, passes: rules.life_ticks }]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automata::cellular::run_ca_2d;
    use crate::preset::model::WorldPreset;

    #[test]
    fn each_mode_builds_its_stages() {
        let c = CaveSettings { mode: CaveMode::GameOfLife, life_rule: "B3/S23".into(), ..CaveSettings::default() };
        let stages = cave_stages(&CaveRules::of_caves(&c)).unwrap().unwrap();
        // Exactly the Life rule for its ticks: no smoothing or refining passes.
        assert_eq!(stages, vec![CaStage { rule: CaRule::CONWAY, passes: c.life_ticks }]);
        assert_eq!(CaveRules::of_caves(&c).cleanup(), CaveCleanup::MainRegion);
        let no_fill = CaveSettings { life_flood_fill: false, ..c.clone() };
        assert_eq!(CaveRules::of_caves(&no_fill).cleanup(), CaveCleanup::Nothing);
        let ca = CaveSettings { mode: CaveMode::CellularAutomata, ..c.clone() };
        assert_eq!(
            cave_stages(&CaveRules::of_caves(&ca)).unwrap().unwrap(),
            vec![
                CaStage { rule: CaRule::AtLeast(ca.threshold), passes: ca.passes },
                CaStage { rule: CaRule::AtLeast(ca.final_threshold), passes: ca.final_passes }
            ]
        );
        assert_eq!(CaveRules::of_caves(&ca).cleanup(), CaveCleanup::Pockets);
        assert_eq!(cave_stages(&CaveRules::of_caves(&CaveSettings { mode: CaveMode::None, ..c.clone() })), Ok(None));
        assert!(cave_stages(&CaveRules::of_caves(&CaveSettings { life_rule: "nonsense".into(), ..c })).is_err());
    }

    #[test]
    fn side_view_rules_read_the_side_view_fields() {
        let mut sv = WorldPreset::default().side_view;
        sv.cave_mode = CaveMode::GameOfLife;
        let stages = cave_stages(&CaveRules::of_side_view(&sv)).unwrap().unwrap();
        let (birth, survival) = parse_life_rule(&sv.cave_life_rule).unwrap();
        assert_eq!(stages, vec![CaStage { rule: CaRule::Life { birth, survival }, passes: sv.cave_life_ticks }]);
        sv.cave_life_flood_fill = false;
        assert_eq!(CaveRules::of_side_view(&sv).cleanup(), CaveCleanup::Nothing);
    }

    #[test]
    fn rule_bits_above_eight_never_apply_in_2d() {
        for (birth, survival) in [(0b1_1100_0000, 0b1_1111_1000), (1 << 3, 0b1100), (0x7ff_c1c0, 0x7ff_e1f8)] {
            let run = |b: u32, s: u32| {
                run_ca_2d(
                    7,
                    3,
                    0.56,
                    (-40, 25),
                    (90, 70),
                    &[CaStage { rule: CaRule::Life { birth: b, survival: s }, passes: 4 }],
                )
            };
            assert_eq!(run(birth, survival), run(birth & 0x1ff, survival & 0x1ff), "B {birth:#x} / S {survival:#x}");
        }
    }
}
