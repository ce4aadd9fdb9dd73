//! NIP-FF-3 fixtures, written once for every crate's tests, examples and
//! benchmark fixtures: what `priorart-testkit` cannot hold because it sits
//! below `nip` (testkit serves chains, calendars and relays; it knows no
//! kind 1041). Dev-only: never a dependency of a library, never published.
//!
//! - [`RegtestWorld`]: a regtest chain with one block, an honest calendar
//!   anchoring into it and an Esplora server of its headers, with the CLI's
//!   header options and a library [`HeaderSource`](priorart_ots_net::Esplora) for it;
//! - [`proof`]: kind 1041 events whose proofs reach a block of a chain
//!   ([`anchored`], [`proof_event`]), and the forger's hand-built one the
//!   library's builder refuses ([`unchecked_proof_event`]); fixed [`keys`];
//! - [`process`]: the `priorart` binary ([`priorart`], [`priorart_binary`])
//!   and its servers as child processes that print where they listen
//!   ([`ServerProcess`]).

#![forbid(unsafe_code)]

pub mod process;
pub mod proof;
mod world;

pub use process::{ServerProcess, priorart, priorart_binary};
pub use proof::{Anchored, anchored, keys, proof_event, unchecked_proof_event};
pub use world::RegtestWorld;
