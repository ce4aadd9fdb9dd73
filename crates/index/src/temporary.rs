//! A file written under a temporary name beside its own and given its
//! name only once whole (`Temporary`): what the marks and segment writers
//! share, in a module of its own so that neither imports the other.

use priorart_files::FileError;
use std::path::{Path, PathBuf};

/// A file being written under a temporary name, removed when dropped
/// (once linked at its name, or after a failure).
pub(crate) struct Temporary {
    pub(crate) path: PathBuf,
}

impl Temporary {
    /// The temporary name beside `path` (as `priorart_files` names its own).
    pub(crate) fn beside(path: &Path) -> Temporary {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".tmp{}", std::process::id()));
        Temporary { path: PathBuf::from(name) }
    }

    /// Gives the file written (and synced) its name `path`, which must not
    /// exist; the temporary name goes when `self` is dropped.
    pub(crate) fn link(&self, path: &Path) -> Result<(), FileError> {
        std::fs::hard_link(&self.path, path).map_err(|source| match source.kind() {
            std::io::ErrorKind::AlreadyExists => FileError::Exists { path: path.to_owned() },
            _ => FileError::Io { path: path.to_owned(), action: "create", source },
        })
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
