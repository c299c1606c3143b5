//! Why a preset could not be read or written: one error type for every preset format, naming
//! the file, the place in it, the field and what the field allows.
//!
//! May use: nothing of the crate (a leaf of `preset`).

use thiserror::Error;

/// Why a preset could not be read or written. Every variant names the file (`source_name`).
#[derive(Debug, Error)]
pub enum PresetError {
    #[error("{source_name}: cannot {action}: {error}")]
    Io {
        source_name: String,
        action: &'static str,
        #[source]
        error: std::io::Error,
    },
    /// Text that is not a well-formed preset, at `line:column` (1-based; 0 when unknown).
    #[error("{source_name}:{line}:{column}: {}{problem}; allowed: {allowed}", field_prefix(.field))]
    Parse {
        source_name: String,
        line: usize,
        column: usize,
        /// The field the error is in, or "" when it is not known.
        field: String,
        problem: String,
        allowed: String,
    },
    #[error(
        "{source_name}: made by a newer Strata (version {found}, this reads <= {supported}); update Strata to open it"
    )]
    NewerVersion { source_name: String, found: u64, supported: u32 },
    /// A well-formed preset with a value outside what its field allows.
    #[error("{source_name}{}: field `{field}`: {problem}; allowed: {allowed}", location(*.line, *.column))]
    Invalid { source_name: String, line: usize, column: usize, field: String, problem: String, allowed: String },
}

fn field_prefix(field: &str) -> String {
    if field.is_empty() { String::new() } else { format!("field `{field}`: ") }
}

fn location(line: usize, column: usize) -> String {
    if line == 0 { String::new() } else { format!(":{line}:{column}") }
}

impl PresetError {
    /// The field the error is about, or "" when none.
    pub fn field(&self) -> &str {
        match self {
            PresetError::Parse { field, .. } | PresetError::Invalid { field, .. } => field,
            _ => "",
        }
    }
}
