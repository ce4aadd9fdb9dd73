//! The relay write policy ([`priorart_policy`]) as nostr-rs-relay's event
//! admission service: the `nauthz.Authorization` gRPC service of its
//! `proto/nauthz.proto` (copied unchanged in `proto/`), served with tonic.
//! nostr-rs-relay asks it about every event it is about to store when its
//! config says `[grpc] event_admission_server = "http://127.0.0.1:50051"`.
//!
//! What nostr-rs-relay does with the answer (its `src/db.rs`, 0.8.12 and
//! later) shapes the service:
//! - it asks after checking the event's id and signature, one event at a
//!   time, and waits for the answer before it stores anything else; so the
//!   policy's own time bound (`proofs.timeout_seconds` per header request)
//!   is the relay's;
//! - `DECISION_PERMIT` stores the event; anything else refuses it with
//!   `OK false "blocked: <message>"`, the relay adding the `blocked: `
//!   prefix itself (so [`reply`] strips ours);
//! - a gRPC *error* (or no server) lets the event through: so every request
//!   the service can decode gets a decision, a malformed event a
//!   `DECISION_DENY` saying what is wrong, never an error status.
//!
//! nostr-rs-relay has no shadow reject: the proto's decisions are permit and
//! deny, and a denied event is refused to its sender. A `shadowReject`
//! (near-duplicate floods, by default) is answered `DECISION_DENY`: the
//! event is kept off the relay, which is the rule's purpose, and the
//! flooder learns why, which a shadow reject would have hidden. Answering
//! `DECISION_PERMIT` instead would store every flood.
#![forbid(unsafe_code)]

mod event;
mod service;

pub use event::{event_of, request_for};
pub use service::{Admission, MAX_MESSAGE_BYTES, MAX_REQUEST_BYTES, reply, serve};

/// The messages and service of `proto/nauthz.proto`, as `tonic-prost-build`
/// generates them (build.rs).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod proto {
    tonic::include_proto!("nauthz");
}
