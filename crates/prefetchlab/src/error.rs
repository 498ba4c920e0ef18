//! One error type for the whole engine: every message names the file, line or
//! key at fault and says what was expected, so the CLI and the Python API can
//! show it as one line.

use std::fmt;

/// An error reported to the user. The message is complete on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A configuration key or value is wrong (`key` is the dotted path).
    Config { key: String, msg: String },
    /// An input file could not be read or parsed (`line` is 1-based, 0 = whole file).
    Input { path: String, line: usize, msg: String },
    /// A request does not fit the simulated hardware (geometry, sizes).
    Geometry(String),
    /// A DiskSim parameter override (`name=value`) that cannot apply: the
    /// message starts with the override. Its caller says where it was given
    /// (`disk.overrides` in a configuration, `--override` on the drive commands).
    Override(String),
    /// The caller stopped the run (e.g. Ctrl-C).
    Cancelled,
    /// A bug: an invariant of the engine did not hold.
    Internal(String),
}

/// An I/O error's words without the OS's code: "Is a directory", not "Is a
/// directory (os error 21)".
pub fn io_words(e: &dyn fmt::Display) -> String {
    let s = e.to_string();
    match s.rfind(" (os error ") {
        Some(at) if s.ends_with(')') => s[..at].to_string(),
        _ => s,
    }
}

impl Error {
    /// An input file that could not be read or written: "`what`: <the I/O
    /// error's words>" (see [`io_words`]).
    pub fn io(path: impl Into<String>, line: usize, what: impl fmt::Display, e: &dyn fmt::Display) -> Self {
        Error::input(path, line, format!("{what}: {}", io_words(e)))
    }
    pub fn config(key: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::Config { key: key.into(), msg: msg.into() }
    }
    pub fn input(path: impl Into<String>, line: usize, msg: impl Into<String>) -> Self {
        Error::Input { path: path.into(), line, msg: msg.into() }
    }
    pub fn geometry(msg: impl Into<String>) -> Self {
        Error::Geometry(msg.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config { key, msg } if key.is_empty() => write!(f, "config: {msg}"),
            Error::Config { key, msg } => write!(f, "config key `{key}`: {msg}"),
            Error::Input { path, line: 0, msg } => write!(f, "{path}: {msg}"),
            Error::Input { path, line, msg } => write!(f, "{path}:{line}: {msg}"),
            Error::Geometry(msg) => write!(f, "geometry: {msg}"),
            Error::Override(msg) => write!(f, "DiskSim override {msg}"),
            Error::Cancelled => write!(f, "interrupted"),
            Error::Internal(msg) => write!(f, "internal error (please report): {msg}"),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    #[test]
    fn io_words_leave_out_the_os_code() {
        let e = std::io::Error::from_raw_os_error(21);
        assert!(e.to_string().contains("(os error 21)"));
        assert!(!super::io_words(&e).contains("os error"));
        assert_eq!(super::io_words(&"plain words"), "plain words");
    }
}
