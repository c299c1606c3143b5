//! The last error of a Strata object, as every class keeps it: printed once to Godot's output
//! (`push_error`) when it happens and kept for the class's `last_error()` until the next call
//! that succeeds clears it (law: Clear errors, ARCHITECTURE.md).
//!
//! May use: godot only (a leaf: every module of the crate may use it).

use godot::global::Error;
use godot::prelude::*;

/// The message of the last failed call ("" after a call that succeeded).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct LastError {
    message: GString,
}

impl LastError {
    /// Prints `message` as an error and keeps it.
    pub(crate) fn record(&mut self, message: impl AsRef<str>) {
        let message = message.as_ref();
        godot_error!("{message}");
        self.message = GString::from(message);
    }

    /// Prints `message` as a warning and keeps it (a problem the caller works around).
    pub(crate) fn warn(&mut self, message: impl AsRef<str>) {
        let message = message.as_ref();
        godot_warn!("{message}");
        self.message = GString::from(message);
    }

    /// [`LastError::record`], then `code`: the end of a call that failed.
    pub(crate) fn fail(&mut self, message: impl AsRef<str>, code: Error) -> Error {
        self.record(message);
        code
    }

    /// Clears the message, then `OK`: the end of a call that succeeded.
    pub(crate) fn succeed(&mut self) -> Error {
        self.clear();
        Error::OK
    }

    /// Clears the message.
    pub(crate) fn clear(&mut self) {
        self.message = GString::new();
    }

    /// Clears the message if it is still `message` (a problem that has gone away).
    pub(crate) fn clear_if(&mut self, message: &str) {
        if self.message == message {
            self.clear();
        }
    }

    /// The message, for `last_error()`.
    pub(crate) fn get(&self) -> GString {
        self.message.clone()
    }

    /// The message as text.
    pub(crate) fn text(&self) -> String {
        self.message.to_string()
    }
}
