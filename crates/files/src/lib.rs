//! Files written whole or not at all, and read under a size limit: the one
//! home of priorart's file transactions, so every crate that writes a proof,
//! a header, a key or an index gets the same guarantees.
//!
//! Every write goes to a temporary file in the destination's directory
//! first (same file system, so the final step is atomic), is flushed to
//! disk, and only then takes the destination's name: a reader, or a process
//! killed half-way, never sees half a file.
//!
//! Secrets (nostr keys) go through [`write_new_private`] or
//! [`write_private`]: the temporary file is created owner-only (mode 0600
//! on Unix) and exclusively, so the secret is never readable by others,
//! not even for an instant, and never written through a planted symlink.

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Why a file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// The operating system refused (the path says which file).
    #[error("{path}: cannot {action}")]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// What was attempted: "read", "write", "create", "rename".
        action: &'static str,
        /// The operating system's error, with its kind.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than the reader accepts.
    #[error("{path}: larger than {limit} bytes")]
    TooLarge {
        /// The file concerned.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The destination exists and the write must not replace it.
    #[error("{path}: already exists; not overwriting it")]
    Exists {
        /// The file concerned.
        path: PathBuf,
    },
}

reason_names!(FileError {
    Io => "io",
    TooLarge => "too_large",
    Exists => "exists",
});

impl FileError {
    fn io<'a>(path: &'a Path, action: &'static str) -> impl FnOnce(std::io::Error) -> FileError + 'a {
        move |source| FileError::Io { path: path.to_owned(), action, source }
    }
}

/// Reads `path` whole, refusing files over `limit` bytes without reading
/// more than `limit + 1` of them.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let file = File::open(path).map_err(FileError::io(path, "open"))?;
    read_stream_limited(file, path, limit)
}

/// Reads a stream whole under `limit`; `name` is what errors call it.
pub fn read_stream_limited(reader: impl Read, name: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let mut bytes = Vec::new();
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(FileError::io(name, "read"))?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge { path: name.to_owned(), limit });
    }
    Ok(bytes)
}

/// Writes `bytes` to `path`, replacing it if it exists, atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(FileError::io(dir, "create"))?;
    }
    let temporary = write_temporary(path, bytes)?;
    std::fs::rename(&temporary, path).map_err(|source| {
        let _ = std::fs::remove_file(&temporary);
        FileError::Io { path: path.to_owned(), action: "rename", source }
    })
}

/// Writes `bytes` to `path`, which must not exist: the complete file is
/// linked into place, which fails rather than replace anything.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    link_new(&write_temporary(path, bytes)?, path)
}

/// Links the complete `temporary` file at `path`, which must not exist,
/// then removes the temporary name (whether or not the link was made).
fn link_new(temporary: &Path, path: &Path) -> Result<(), FileError> {
    let linked = std::fs::hard_link(temporary, path);
    let _ = std::fs::remove_file(temporary);
    linked.map_err(|source| match source.kind() {
        std::io::ErrorKind::AlreadyExists => FileError::Exists { path: path.to_owned() },
        _ => FileError::Io { path: path.to_owned(), action: "create", source },
    })
}

/// Writes `bytes` to `path`, which must not exist, as a file only its owner
/// may read or write (mode 0600 on Unix; elsewhere the directory's access
/// rules apply): for secrets. As [`write_new`], the complete file is linked
/// into place, which fails with [`FileError::Exists`] rather than replace anything.
pub fn write_new_private(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    link_new(&write_private_temporary(path, bytes)?, path)
}

/// As [`write_new_private`], replacing `path` if it exists, atomically: the
/// old file stays whole until the new one, complete and owner-only, takes
/// its name.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let temporary = write_private_temporary(path, bytes)?;
    std::fs::rename(&temporary, path).map_err(|source| {
        let _ = std::fs::remove_file(&temporary);
        FileError::Io { path: path.to_owned(), action: "rename", source }
    })
}

/// Writes every `(path, bytes)` with [`write_new`], or none: on the first
/// failure the files already placed are removed again.
pub fn write_all_new(outputs: &[(PathBuf, Vec<u8>)]) -> Result<(), FileError> {
    let mut placed: Vec<&Path> = Vec::new();
    let result = outputs.iter().try_for_each(|(path, bytes)| {
        write_new(path, bytes)?;
        placed.push(path);
        Ok(())
    });
    if result.is_err() {
        for path in placed {
            let _ = std::fs::remove_file(path);
        }
    }
    result
}

/// Writes every `(path, bytes)` as [`write_atomic`] does, replacing what
/// exists, but only once every new file is complete: all are written to
/// temporaries first ([`stage_all`]), so a failure while writing leaves
/// every destination as it was; then each takes its name (one rename each).
pub fn replace_all(outputs: &[(PathBuf, Vec<u8>)]) -> Result<(), FileError> {
    stage_all(outputs)?.place()
}

/// Files written whole and synced under temporary names beside their
/// destinations, none in place yet: [`Staged::place`] gives each its name.
/// Dropped before, they are removed, and the destinations stay as they
/// were.
pub struct Staged {
    /// `(destination, temporary)`, those not yet renamed.
    files: Vec<(PathBuf, PathBuf)>,
}

/// Writes every `(path, bytes)` to a temporary beside `path` (creating
/// its directory), or none: on the first failure those written are
/// removed. A caller with a file of its own to put in place too (one
/// written as it was computed) stages the others first, so that no
/// failure to write them comes after its own file took its name.
pub fn stage_all(outputs: &[(PathBuf, Vec<u8>)]) -> Result<Staged, FileError> {
    let mut staged = Staged { files: Vec::with_capacity(outputs.len()) };
    for (path, bytes) in outputs {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(FileError::io(dir, "create"))?;
        }
        staged.files.push((path.to_owned(), write_temporary(path, bytes)?));
    }
    Ok(staged)
}

impl Staged {
    /// Renames each file into place, in order; on a failure the ones not
    /// yet renamed are removed.
    pub fn place(mut self) -> Result<(), FileError> {
        while !self.files.is_empty() {
            let (path, temporary) = self.files.remove(0);
            if let Err(source) = std::fs::rename(&temporary, &path) {
                let _ = std::fs::remove_file(&temporary);
                return Err(FileError::Io { path, action: "rename", source });
            }
        }
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for (_, temporary) in &self.files {
            let _ = std::fs::remove_file(temporary);
        }
    }
}

/// Replaces `path` by `bytes`, keeping the original as `path.bak`; refused
/// when the backup exists (as the OpenTimestamps client does), so an older
/// backup is never lost. Returns the backup's path.
pub fn replace_keeping_backup(path: &Path, bytes: &[u8]) -> Result<PathBuf, FileError> {
    let backup = with_suffix(path, ".bak");
    if backup.exists() {
        return Err(FileError::Exists { path: backup });
    }
    let temporary = write_temporary(path, bytes)?;
    let swap = std::fs::hard_link(path, &backup)
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::AlreadyExists => FileError::Exists { path: backup.clone() },
            _ => FileError::Io { path: backup.clone(), action: "create", source },
        })
        .and_then(|()| std::fs::rename(&temporary, path).map_err(FileError::io(path, "rename")));
    if swap.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    swap.map(|()| backup)
}

/// Writes and syncs a temporary file beside `path`; returns its name.
fn write_temporary(path: &Path, bytes: &[u8]) -> Result<PathBuf, FileError> {
    let temporary = with_suffix(path, &format!(".tmp{}", std::process::id()));
    let written = File::create(&temporary).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    written.map_err(|source| {
        let _ = std::fs::remove_file(&temporary);
        FileError::Io { path: temporary.clone(), action: "write", source }
    })?;
    Ok(temporary)
}

/// Writes and syncs an owner-only temporary file beside `path`, created
/// exclusively (`O_EXCL`: a file or symlink already at that name is never
/// opened, so nothing is written through it); returns its name.
fn write_private_temporary(path: &Path, bytes: &[u8]) -> Result<PathBuf, FileError> {
    let temporary = with_suffix(path, &format!(".tmp{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = match options.open(&temporary) {
        // A leftover of a killed run with this process id: removed (a
        // symlink is removed, not followed), then created afresh.
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(&temporary).and_then(|()| options.open(&temporary))
        }
        opened => opened,
    };
    let written = file.and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    written.map_err(|source| {
        let _ = std::fs::remove_file(&temporary);
        FileError::Io { path: temporary.clone(), action: "write", source }
    })?;
    Ok(temporary)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_new_refuses_to_replace_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("proof.ots");
        write_new(&path, b"first").unwrap();
        assert!(matches!(write_new(&path, b"second"), Err(FileError::Exists { .. })));
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn private_files_are_owner_only_and_a_new_one_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        write_new_private(&path, b"nsec1first\n").unwrap();
        #[cfg(unix)]
        assert_eq!(mode(&path), 0o600);
        assert!(matches!(write_new_private(&path, b"nsec1second\n"), Err(FileError::Exists { .. })));
        assert_eq!(std::fs::read(&path).unwrap(), b"nsec1first\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary is left");
    }

    #[test]
    fn write_private_replaces_a_world_readable_file_by_an_owner_only_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        std::fs::write(&path, b"old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        write_private(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        #[cfg(unix)]
        assert_eq!(mode(&path), 0o600);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary is left");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_planted_at_the_temporary_name_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        let target = dir.path().join("readable-by-all");
        std::fs::write(&target, b"public").unwrap();
        let planted = with_suffix(&path, &format!(".tmp{}", std::process::id()));
        std::os::unix::fs::symlink(&target, &planted).unwrap();
        write_new_private(&path, b"secret").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"public");
        assert_eq!(std::fs::read(&path).unwrap(), b"secret");
        assert_eq!(mode(&path), 0o600);
        assert!(std::fs::symlink_metadata(&planted).is_err(), "the planted link is gone");
    }

    #[test]
    fn write_all_new_is_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&b, b"taken").unwrap();
        let outputs = vec![(a.clone(), b"a".to_vec()), (b.clone(), b"b".to_vec())];
        assert!(write_all_new(&outputs).is_err());
        assert!(!a.exists(), "the file placed before the failure is removed");
        assert_eq!(std::fs::read(&b).unwrap(), b"taken");
    }

    #[test]
    fn replace_keeps_one_backup_and_refuses_a_second() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.ots");
        std::fs::write(&path, b"old").unwrap();
        let backup = replace_keeping_backup(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&backup).unwrap(), b"old");
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert!(matches!(replace_keeping_backup(&path, b"newer"), Err(FileError::Exists { .. })));
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }

    #[test]
    fn replace_all_replaces_nothing_unless_every_file_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("out/a"), dir.path().join("out/b"));
        replace_all(&[(a.clone(), b"a1".to_vec()), (b.clone(), b"b1".to_vec())]).unwrap();
        // The second destination cannot be written (its directory is a file).
        let blocked = dir.path().join("out/a/b");
        assert!(replace_all(&[(b.clone(), b"b2".to_vec()), (blocked, b"x".to_vec())]).is_err());
        assert_eq!(std::fs::read(&b).unwrap(), b"b1", "not replaced");
        replace_all(&[(a.clone(), b"a2".to_vec()), (b.clone(), b"b2".to_vec())]).unwrap();
        assert_eq!(
            (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap()),
            (b"a2".to_vec(), b"b2".to_vec())
        );
        assert_eq!(std::fs::read_dir(dir.path().join("out")).unwrap().count(), 2, "no temporary left");
    }

    #[test]
    fn write_atomic_creates_directories_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/er/800000.hex");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
    }

    #[test]
    fn read_limited_refuses_one_byte_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 11]).unwrap();
        assert_eq!(read_limited(&path, 11).unwrap().len(), 11);
        assert!(matches!(read_limited(&path, 10), Err(FileError::TooLarge { limit: 10, .. })));
        let missing = read_limited(&dir.path().join("missing"), 10).unwrap_err();
        assert!(
            matches!(missing, FileError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound)
        );
    }
}

#[cfg(test)]
mod reason_names_tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        priorart_reason::check_names(crate::FileError::REASONS).unwrap();
    }

    #[test]
    fn reason_names_are_stable() {
        use crate::FileError;
        let too_large = FileError::TooLarge { path: "big".into(), limit: 1 };
        assert_eq!(too_large.reason(), "too_large");
        assert_eq!(FileError::REASONS, ["io", "too_large", "exists"]);
    }
}
