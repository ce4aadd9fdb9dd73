//! The NIP-FF-3 anchoring pipeline: a durable job store and the steps that
//! take an author's signed kind 1042 attestation to a published kind 1041,
//! for `priorart protect` (a creator's own jobs) and `priorart serve` (an
//! open timestamping service, [`service`]).
//!
//! A job moves forward only: signed → stamped (pending proof kept) →
//! anchored (the upgraded proof reaches a Bitcoin block) → built (the 1041
//! signed once and stored) → published (on at least one relay). State
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

pub mod failpoint;
mod job;
pub mod service;
pub mod steps;
mod store;

pub use job::{ContentTarget, Job, JobState, NewJob, Publication};
pub use steps::{PipelineError, Round, Settings, run_round};
pub use store::{APPLICATION_ID, LOCK_FILE, RunLock, SCHEMA_VERSION, STATE_FILE, Store, StoreError};
