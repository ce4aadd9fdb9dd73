//! The policy a relay runs: read from its TOML file, and read again when
//! the file changes, by every front end (`priorart policy strfry`,
//! `priorart policy grpc`, `priorart relay --policy`). An operator edits
//! the file; no relay or plugin restarts (strfry does not restart a plugin
//! whose command has arguments, and restarting nostr-rs-relay drops its
//! clients).

use crate::{Decision, Policy, PolicyError};
use priorart_nip::nostr::prelude::Event;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Longest policy file read.
pub const MAX_POLICY_FILE_BYTES: u64 = 1 << 20;

/// How often the file's modification time is looked at (a `stat` per
/// event would be wasted on a relay taking thousands a second).
pub const RELOAD_CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// Why a policy file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyFileError {
    /// Missing, unreadable or too large.
    #[error(transparent)]
    Read(#[from] priorart_files::FileError),
    /// Not UTF-8 text.
    #[error("{0}: not UTF-8")]
    NotUtf8(PathBuf),
    /// Read, but not a policy.
    #[error("{path}: refused: {error}")]
    Refused {
        /// The file.
        path: PathBuf,
        /// What is wrong in it: in the message, so not the `source()` (a
        /// chain printed whole says it once).
        error: PolicyError,
    },
}

priorart_reason::reason_names!(PolicyFileError {
    Read => "policy_unreadable",
    NotUtf8 => "policy_not_utf8",
    Refused => "policy_refused",
});

/// The policy of a file, as `Policy::from_toml` reads it.
pub fn read_policy_file(path: &Path) -> Result<Policy, PolicyFileError> {
    let bytes = priorart_files::read_limited(path, MAX_POLICY_FILE_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|_| PolicyFileError::NotUtf8(path.to_owned()))?;
    Policy::from_toml(&text).map_err(|error| PolicyFileError::Refused { path: path.to_owned(), error })
}

/// What [`PolicyFile::reload_if_changed`] did.
#[derive(Debug)]
pub enum Reload {
    /// Not looked at yet (within [`RELOAD_CHECK_INTERVAL`]), or unchanged.
    Unchanged,
    /// Changed, and its new rules are in force (with a new flood window).
    Reloaded,
    /// Changed, but refused: the rules in force stay.
    Refused(PolicyFileError),
}

/// A policy and the file it came from.
#[derive(Debug)]
pub struct PolicyFile {
    path: PathBuf,
    policy: Policy,
    modified: Option<SystemTime>,
    checked: Instant,
}

impl PolicyFile {
    /// Reads the policy in `path`.
    pub fn load(path: &Path) -> Result<PolicyFile, PolicyFileError> {
        let modified = modified(path);
        let policy = read_policy_file(path)?;
        Ok(PolicyFile { path: path.to_owned(), policy, modified, checked: Instant::now() })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The policy in force.
    pub fn policy(&mut self) -> &mut Policy {
        &mut self.policy
    }

    /// At most once per [`RELOAD_CHECK_INTERVAL`]: a file whose
    /// modification time changed replaces the policy; one that no longer
    /// reads or parses leaves it in force (a relay never runs without its
    /// rules because of a typo).
    pub fn reload_if_changed(&mut self) -> Reload {
        if self.checked.elapsed() < RELOAD_CHECK_INTERVAL {
            return Reload::Unchanged;
        }
        self.checked = Instant::now();
        let modified = modified(&self.path);
        if modified == self.modified {
            return Reload::Unchanged;
        }
        self.modified = modified;
        match read_policy_file(&self.path) {
            Ok(policy) => {
                self.policy = policy;
                Reload::Reloaded
            }
            Err(err) => Reload::Refused(err),
        }
    }

    /// Decides on an event a relay handed over already decoded (nostr-rs-relay's
    /// gRPC request, the embedded relay), refusing first, as
    /// [`Policy::decide_json`] does, one whose NIP-01 JSON is longer than
    /// `max_event_bytes`.
    pub fn decide(&mut self, event: &Event, received_at: u64) -> Decision {
        if priorart_nip::to_json(event).len() > self.policy.config().max_event_bytes {
            return Decision::reject("blocked: event_too_large");
        }
        self.policy.decide(event, received_at)
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|meta| meta.modified()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Action;
    use priorart_nip::nostr::prelude::{EventBuilder, FinalizeEvent, Keys, Kind};

    /// Writes `text` with a modification time `age` ago: distinct ages
    /// are distinct times, whatever the file system's clock granularity.
    fn write_aged(path: &Path, text: &str, age: u64) {
        std::fs::write(path, text).unwrap();
        let past = SystemTime::now() - Duration::from_secs(age);
        std::fs::File::options().write(true).open(path).unwrap().set_modified(past).unwrap();
    }

    fn note(text: &str) -> Event {
        EventBuilder::new(Kind::TextNote, text).finalize(&Keys::generate()).unwrap()
    }

    #[test]
    fn reason_names_are_well_formed() {
        priorart_reason::check_names(PolicyFileError::REASONS).unwrap();
    }

    #[test]
    fn a_changed_file_replaces_the_policy_and_a_broken_one_leaves_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.toml");
        write_aged(&path, "max_event_bytes = 100000\n[proofs]\nverify = false\n", 300);
        let mut file = PolicyFile::load(&path).unwrap();
        let long = note(&"word ".repeat(100));
        assert_eq!(file.decide(&long, 0).action, Action::Accept);

        write_aged(&path, "max_event_bytes = 400\n[proofs]\nverify = false\n", 200);
        file.checked -= RELOAD_CHECK_INTERVAL;
        assert!(matches!(file.reload_if_changed(), Reload::Reloaded));
        assert_eq!(file.decide(&long, 0).msg, "blocked: event_too_large");
        assert_eq!(file.decide(&note("short"), 0).action, Action::Accept);

        write_aged(&path, "max_event_bytes = \"many\"\n", 100);
        file.checked -= RELOAD_CHECK_INTERVAL;
        match file.reload_if_changed() {
            Reload::Refused(err) => assert_eq!(err.reason(), "policy_refused"),
            other => panic!("{other:?}"),
        }
        assert_eq!(file.decide(&long, 0).msg, "blocked: event_too_large");
        assert!(matches!(file.reload_if_changed(), Reload::Unchanged));
    }

    #[test]
    fn the_file_is_looked_at_at_most_once_per_interval() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.toml");
        write_aged(&path, "[proofs]\nverify = false\n", 200);
        let mut file = PolicyFile::load(&path).unwrap();
        write_aged(&path, "[x_tag]\nmismatch = \"accept\"\n", 100);
        file.checked = Instant::now();
        assert!(matches!(file.reload_if_changed(), Reload::Unchanged));
        file.checked -= RELOAD_CHECK_INTERVAL;
        assert!(matches!(file.reload_if_changed(), Reload::Reloaded));
        assert_eq!(file.policy().config().x_tag.mismatch, Action::Accept);
    }

    #[test]
    fn unreadable_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = PolicyFile::load(&dir.path().join("absent.toml")).unwrap_err();
        assert_eq!(missing.reason(), "policy_unreadable");
        let binary = dir.path().join("binary.toml");
        std::fs::write(&binary, [0xff, 0xfe]).unwrap();
        assert_eq!(PolicyFile::load(&binary).unwrap_err().reason(), "policy_not_utf8");
    }
}
