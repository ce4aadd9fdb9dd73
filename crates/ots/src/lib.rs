//! OpenTimestamps for priorart: read and write `.ots` proofs, verify them
//! against Bitcoin without trusting whoever serves the block headers, and
//! decide what to send calendars and what their answers are worth. Pure:
//! no sockets, files, threads or clocks; the HTTP clients, the header cache
//! directory and the calendar round trips are in `priorart-ots-net`.
//!
//! NIP-FF-3 anchors `SHA256(attestation signature)` in Bitcoin through
//! OpenTimestamps; this crate is that anchor, usable on its own by anyone who
//! timestamps files (the `priorart ots` commands are a thin layer over it).
//!
//! # Why a codec of our own
//!
//! The Rust crate `opentimestamps` 0.2 (2023) has no keccak256 op (so it
//! cannot read proofs that pass through Ethereum), enforces none of the
//! reference's size limits, panics on an over-long varuint, and cannot
//! verify anything. Proofs come from calendars and from strangers; the
//! parser here follows the Python reference (`python-opentimestamps` 0.4.5)
//! limit for limit, each as a typed [`DecodeError`], never panics, and keeps
//! memory proportional to the input (node messages are recomputed while
//! walking, not stored). Writing follows the reference's canonical order, so
//! that decoding and re-encoding any proof the reference wrote gives back
//! the same bytes.
//!
//! # Trusting no header source
//!
//! A Bitcoin attestation says "this message is the merkle root of block H".
//! The Python, JavaScript and Go clients ask a node or an explorer for block
//! H's header and compare merkle roots; none of them checks the header's
//! proof of work against the real difficulty, so a lying explorer (or a
//! man in the middle) can make any proof "verify" with a made-up header.
//! [`verify`] checks every header it is given: it must hash to the block
//! hash asked for, meet its own `bits`, and on mainnet those `bits` must be
//! the real difficulty of that height — from the retarget checkpoint table
//! shipped in this crate (see [`checkpoints`]) and, past its end, at least a
//! floor that falls no faster than the 4× per period consensus allows. A
//! liar then has to mine a block at real difficulty.
//!
//! # API
//!
//! - [`DetachedTimestamp::from_bytes`] / [`DetachedTimestamp::to_bytes`],
//!   [`DetachedTimestamp::file_digest`], [`DetachedTimestamp::attestations`].
//! - [`verify`] with any [`HeaderSource`] ([`MemoryHeaders`] here; Esplora,
//!   bitcoind and a header cache directory in `priorart-ots-net`) →
//!   [`Verification`] (earliest Bitcoin block and time). Headers that arrive
//!   asynchronously (a browser's `fetch`): [`WantedHeaders`], run after run.
//! - [`StampBatch`] (nonces, one merkle tree, proofs from the calendars'
//!   answers) and [`calendar::pending_upgrades`] / [`calendar::calendar_answer`]
//!   (what an upgrade asks for and what an answer is worth); [`prune`] drops
//!   what a complete proof no longer needs.
//! - [`info_text`] prints a proof as the reference's `ots info` does.

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

mod attestation;
pub mod calendar;
pub mod checkpoints;
mod codec;
mod detached;
mod forge;
mod headers;
pub mod hex;
mod info;
mod op;
mod prune;
mod report;
mod timestamp;
mod utc;
mod verify;
mod wanted;

pub use attestation::{Attestation, MAX_PAYLOAD_LEN, MAX_URI_LEN, URI_CHARS, tags};
/// The `bitcoin` crate this one is built on, for header types.
pub use bitcoin;
pub use calendar::{MerkleTree, PendingUpgrade, StampBatch};
pub use checkpoints::{HeaderError, Network};
pub use codec::DecodeError;
pub use detached::{DetachedTimestamp, MAGIC, MAJOR_VERSION, MAX_PROOF_BYTES, hash_reader};
pub use forge::{CostToForge, DEFAULT_FORGE_HEADERS, ForgeError, cost_to_forge};
pub use headers::{
    Cause, HeaderSource, MemoryHeaders, SourceError, SourcedHeader, TipHeight, header_from_hex, header_to_hex,
};
pub use info::{
    AttestationJson, Operation, ProofInfo, TimestampNode, attestation_json, info_json, info_text, proof_info,
    transaction_id,
};
pub use op::{HashOp, Hasher, MAX_ARG_LEN, MAX_MSG_LEN, Op, OpError};
pub use prune::{PruneError, PruneReport, prune};
pub use report::{
    DigestMismatchJson, FailureJson, NotVerifiedJson, SHA1_WARNING, VerifiedJson, VerifyJson, VerifyOutcome,
    VerifyReport, blames_source, file_hash_warning, lacks_headers,
};
pub use timestamp::{AttestationAt, MAX_DEPTH, MergeError, Timestamp};
pub use utc::{MAX_UTC_SECONDS, UtcTime};
pub use verify::{
    AttestationError, AttestationFailure, Verification, VerifiedBlock, VerifyError, verify,
    verify_attestation,
};
pub use wanted::WantedHeaders;

#[cfg(test)]
mod reason_names_tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        for names in [
            crate::DecodeError::REASONS,
            crate::HeaderError::REASONS,
            crate::SourceError::REASONS,
            crate::OpError::REASONS,
            crate::PruneError::REASONS,
            crate::MergeError::REASONS,
            crate::AttestationError::REASONS,
            crate::VerifyError::REASONS,
            crate::ForgeError::REASONS,
        ] {
            priorart_reason::check_names(names).unwrap();
        }
    }

    #[test]
    fn reason_names_are_stable() {
        use crate::*;
        assert_eq!(DecodeError::BadMagic.reason(), "bad_magic");
        assert_eq!(DecodeError::Truncated { offset: 3, needed: 1 }.reason(), "truncated");
        assert_eq!(VerifyError::Failed { failures: Vec::new() }.reason(), "failed");
        assert_eq!(
            DecodeError::REASONS,
            [
                "bad_magic",
                "unsupported_major_version",
                "unknown_file_hash_op",
                "unknown_op",
                "truncated",
                "trailing_bytes",
                "var_uint_overflow",
                "bad_length",
                "message_too_long",
                "result_too_long",
                "recursion_limit",
                "uri_bad_char",
                "payload_trailing_bytes",
            ]
        );
        assert_eq!(VerifyError::REASONS, ["pending", "no_bitcoin_attestation", "failed"]);
    }

    #[test]
    fn a_wrapped_error_prints_its_cause_once() {
        use std::error::Error;
        let err = crate::AttestationError::from(crate::SourceError::NotFound {
            source_name: "here".into(),
            height: 7,
        });
        assert_eq!(err.to_string(), "no header: here: no block at height 7");
        assert!(err.source().is_none(), "the message already holds the cause");
    }
}
