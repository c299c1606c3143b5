//! A tiny `anyhow`-style error type, so xtask has no dependencies.
//!
//! An [`Error`] is a chain of human-readable messages, outermost first. Failures are
//! reported as `xtask: error: <what failed>` followed by `caused by:` lines and, where
//! one was attached with [`Error::hint`], a `hint:` telling the user how to fix it.
//! [`tail`] quotes the last lines of a command's output in such a message. Every module
//! may use this one; it uses none of them.

use std::fmt;

/// An error: a chain of messages (outermost first) and an optional fix-it hint.
pub struct Error {
    chain: Vec<String>,
    hint: Option<String>,
}

/// `Result` with [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error with a single message.
    pub fn msg(message: impl fmt::Display) -> Self {
        Error { chain: vec![message.to_string()], hint: None }
    }

    /// Wraps this error in an outer message describing what was being attempted.
    pub fn context(mut self, message: impl fmt::Display) -> Self {
        self.chain.insert(0, message.to_string());
        self
    }

    /// Attaches (or replaces) a hint telling the user how to fix the problem.
    pub fn hint(mut self, hint: impl fmt::Display) -> Self {
        self.hint = Some(hint.to_string());
        self
    }
}

impl<E: std::error::Error> From<E> for Error {
    fn from(err: E) -> Self {
        let mut chain = vec![err.to_string()];
        let mut source = err.source();
        while let Some(s) = source {
            chain.push(s.to_string());
            source = s.source();
        }
        Error { chain, hint: None }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut iter = self.chain.iter();
        if let Some(first) = iter.next() {
            write!(f, "{first}")?;
        }
        for cause in iter {
            write!(f, "\n  caused by: {cause}")?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The last `n` lines, indented, for error messages.
pub fn tail(lines: &[String], n: usize) -> String {
    let start = lines.len().saturating_sub(n);
    lines[start..].iter().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

/// Adds context to `Result`s and `Option`s, like `anyhow::Context`.
pub trait Context<T> {
    /// Wraps the error (or a `None`) with `message`.
    fn context(self, message: impl fmt::Display) -> Result<T>;
    /// Like [`Context::context`], but builds the message lazily.
    fn with_context<M: fmt::Display>(self, f: impl FnOnce() -> M) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn context(self, message: impl fmt::Display) -> Result<T> {
        self.map_err(|e| e.into().context(message))
    }
    fn with_context<M: fmt::Display>(self, f: impl FnOnce() -> M) -> Result<T> {
        self.map_err(|e| e.into().context(f()))
    }
}

impl<T> Context<T> for Option<T> {
    fn context(self, message: impl fmt::Display) -> Result<T> {
        self.ok_or_else(|| Error::msg(message))
    }
    fn with_context<M: fmt::Display>(self, f: impl FnOnce() -> M) -> Result<T> {
        self.ok_or_else(|| Error::msg(f()))
    }
}

/// Returns early with an [`Error`] built from a format string.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::error::Error::msg(format!($($arg)*)))
    };
}
