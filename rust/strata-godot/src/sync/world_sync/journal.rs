//! `StrataWorldSync`'s journal: the save and edit journal beside it (`<save_path>.journal`),
//! replayed when hosting again, and the snapshot that saves and starts a fresh journal.
//!
//! May use: its parent (`world_sync.rs`), `strata_core::persist::journal`, the world shared
//! (`synced_world.rs`).

use super::synced_world::SyncedWorld;
use super::{NEXT_ORDER_KEY, Role, WorldSync, journal_world_hash};
use crate::base::files;
use godot::prelude::*;
use std::time::Instant;
use strata_core::net::shared_state::SharedState;
use strata_core::net::state_file::read_state_file;
use strata_core::persist::journal::{EditJournal, read_journal};

impl WorldSync {
    pub(super) fn journal_path(&self) -> GString {
        GString::from(format!("{}.journal", self.save_path).as_str())
    }

    pub(super) fn state_file_path(&self) -> GString {
        GString::from(format!("{}.shared", self.save_path).as_str())
    }

    /// Loads `save_path` and replays its journal into `world`; the next edit's number and the
    /// shared game state (the save's, or the newer `<save_path>.shared`).
    pub(super) fn resume(&mut self, world: &mut SyncedWorld) -> Result<(u64, SharedState), String> {
        let next_order = self.resume_edits(world)?;
        let mut shared = world.shared_game_state().map_err(|e| {
            let from = if self.save_path.is_empty() {
                "the world's game state".to_string()
            } else {
                format!("save {}", self.save_path)
            };
            format!("StrataWorldSync.host: {from}: {e}")
        })?;
        if !self.save_path.is_empty() {
            let file = files::globalize(&self.state_file_path());
            if file.exists() {
                let (preset, _, _) = world.shared_world_state();
                shared = read_state_file(&file, journal_world_hash(&preset))
                    .map_err(|e| format!("StrataWorldSync.host: {e}"))?;
            }
        }
        Ok((next_order, shared))
    }

    /// Loads `save_path` and replays its journal into `world`; the next edit's number.
    pub(super) fn resume_edits(&mut self, world: &mut SyncedWorld) -> Result<u64, String> {
        if self.save_path.is_empty() {
            let next = world.raw_state(NEXT_ORDER_KEY).unwrap_or_else(|| "0".into());
            return Ok(next.parse().unwrap_or(0));
        }
        let save = files::globalize(&self.save_path);
        if save.exists() {
            world.load_world(self.save_path.clone()).map_err(|e| format!("StrataWorldSync.host: {e}"))?;
        }
        let base = world.raw_state(NEXT_ORDER_KEY).unwrap_or_else(|| "0".into());
        let base: u64 = base.parse().map_err(|_| {
            format!("StrataWorldSync.host: save {} holds edit number {base:?}; allowed: a whole number", self.save_path)
        })?;
        let journal = files::globalize(&self.journal_path());
        if !journal.exists() {
            return Ok(base);
        }
        let (preset, _, _) = world.shared_world_state();
        let hash = journal_world_hash(&preset);
        let contents = read_journal(&journal, hash).map_err(|e| format!("StrataWorldSync.host: {e}"))?;
        if contents.torn_bytes > 0 {
            godot_warn!(
                "StrataWorldSync.host: {} ended in a partly written edit ({} bytes), never acknowledged; dropped",
                journal.display(),
                contents.torn_bytes
            );
        }
        // Each record is written as an edit of its own (a shape edit's tiles one by one: its
        // water may settle otherwise than it did, the edits themselves are exact).
        for (p, b) in contents.edits_from(base) {
            world.apply_edit(&[*p], *b);
        }
        Ok(base.max(contents.next_order()))
    }

    /// Saves the world with its edit number and starts a fresh journal from it.
    pub(super) fn snapshot(&mut self) {
        self.last_save = Instant::now();
        if self.save_path.is_empty() {
            return;
        }
        let Role::Server(s) = &self.role else { return };
        let next = s.next_order();
        let shared = s.shared_state().clone();
        let Some(mut world) = self.world_node() else { return };
        world.set_raw_state(NEXT_ORDER_KEY, Some(next.to_string()));
        world.keep_shared_game_state(&shared);
        if let Err(message) = world.save_world(self.save_path.clone()) {
            // The old journal stays: nothing acknowledged is lost.
            self.fail(format!("StrataWorldSync: autosave failed: {message}"));
            return;
        }
        match EditJournal::create(&files::globalize(&self.journal_path()), next, self.journal_hash) {
            Ok(j) => self.journal = Some(j),
            Err(e) => {
                self.fail(format!("StrataWorldSync: {e}"));
            }
        }
        // The save holds the shared state now: the file of newer changes starts again at the next one.
        let state_file = files::globalize(&self.state_file_path());
        if state_file.exists()
            && let Err(e) = std::fs::remove_file(&state_file)
        {
            self.fail(format!("StrataWorldSync: cannot remove {}: {e}", state_file.display()));
        }
    }
}
