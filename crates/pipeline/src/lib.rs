//! The NIP-FF-3 anchoring pipeline: a durable job store and the steps that
//! take an author's signed kind 1042 attestation to a published kind 1041,
//! for `priorart protect` (a creator's own jobs) and `priorart serve` (an
//! open timestamping service, [`service`]).
//!
//! A job moves forward only: signed → stamped (pending proof kept) →
//! anchored (an upgraded proof reaches a Bitcoin block, verified against
//! the header source before it is stored) → built (the 1041 signed once,
//! checked by the NIP verifier, stored) → published (on at least one
//! relay). No calendar is trusted: a proof that fails verification is
//! discarded and its calendar named; a job whose calendars all lie or fail
//! for too long is `failed` and can be restamped. State
//! lives in SQLite (WAL) in a state directory ([`Store`]); every
//! transition is one transaction, and every side effect is recorded before
//! and after (see [`steps`]), so a `kill -9` at any instant loses no job
//! and never yields two different 1041s for one attestation. A damaged or
//! foreign state file is refused, never overwritten. [`failpoint`] names
//! the crash points the tests abort at.
//!
//! The steps are the library crates' own: `nip` builds and checks the
//! events, `ots-net` stamps (one merkle tree per round) and upgrades (one
//! request per calendar and batch), `relay` publishes.

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

pub mod failpoint;
mod job;
pub mod service;
pub mod steps;
mod store;

pub use job::{CalendarOutcome, CalendarVerdict, ContentTarget, Job, JobState, NewJob, Publication};
pub use steps::{PipelineError, Round, Settings, run_round};
pub use store::{
    APPLICATION_ID, AddOutcome, LOCK_FILE, RunLock, SCHEMA_VERSION, STATE_FILE, Store, StoreError,
    UpgradeUpdate,
};

#[cfg(test)]
mod reason_names_tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        for names in
            [crate::PipelineError::REASONS, crate::StoreError::REASONS, crate::service::ServiceError::REASONS]
        {
            priorart_reason::check_names(names).unwrap();
        }
    }

    #[test]
    fn reason_names_are_stable() {
        use crate::*;
        assert_eq!(
            StoreError::REASONS,
            ["directory", "foreign", "newer_schema", "corrupt", "locked", "sqlite", "bad_row"]
        );
    }
}
