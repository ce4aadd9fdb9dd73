//! NIP-03 kind 1040 events: an OpenTimestamps proof of an event id.
//!
//! They are checked, but reported as [`Verdict::ValidButForgeable`], never as
//! a NIP-FF-3 proof: an event id is computable from public data (the
//! attacker picks the content and `created_at`, the pubkey is public), so
//! anyone can stamp it years in advance and publish the event once the key
//! leaks. That pre-stamping attack is why NIP-03 is unrecommended.

use crate::proof_check::{self, Anchored};
use crate::report::{Reason, Report, Specification, Verdict, error_chain};
use crate::steps::Nip03Step;
use nostr::prelude::{Event, Tag};
use priorart_ots::{HeaderSource, Network};

/// Verifies a kind 1040 event, measuring the cost to forge over at most
/// `forge_headers` headers (none: not measured).
pub fn verify(
    event: &Event,
    headers: &dyn HeaderSource,
    network: Network,
    forge_headers: Option<u64>,
) -> Report {
    let mut report = Report::describing(Specification::Nip03, event);
    report.pass(Nip03Step::Kind, "kind 1040 (NIP-03)");
    let digest = stamped_event_id(&mut report, event);
    let proof = match proof_check::decode(&event.content) {
        Ok(proof) => {
            report.pass(Nip03Step::ProofDecodes, format!("{} bytes of proof", event.content.len()));
            Some(proof)
        }
        Err(failure) => {
            report.fail(Nip03Step::ProofDecodes, failure.report_reason(), error_chain(&failure));
            None
        }
    };
    match (proof, digest) {
        (Some(proof), Some(digest)) => {
            let outcome = proof_check::verify(&proof, &digest, headers, network, forge_headers);
            if Anchored::record(outcome, &mut report, Nip03Step::ProofVerifies) {
                report.warn(
                    Reason::ForgeableByPrestamping,
                    "NIP-03 proves only that an event id existed: anyone can compute and stamp an id in advance \
                     and publish the event once the key leaks. This is not a NIP-FF-3 authorship proof.",
                );
            }
        }
        _ => report.skip(
            Nip03Step::ProofVerifies,
            "skipped: needs the event id (step 2) and a parseable proof (step 3)",
        ),
    }
    report.verdict = report.verdict_from_steps(
        &[Nip03Step::EventReference, Nip03Step::ProofDecodes],
        Nip03Step::ProofVerifies,
        Verdict::ValidButForgeable,
    );
    report
}

fn stamped_event_id(report: &mut Report, event: &Event) -> Option<[u8; 32]> {
    let e: Vec<&[String]> = event.tags.iter().filter(|tag| tag.kind() == "e").map(Tag::as_slice).collect();
    let id = match e.as_slice() {
        [] => return fail(report, Reason::EventReferenceMissing, "no e tag"),
        [tag] => tag.get(1),
        _ => return fail(report, Reason::EventReferenceRepeated, "more than one e tag"),
    };
    match id.and_then(|id| {
        nostr::prelude::EventId::from_hex(id).ok().filter(|_| crate::hex::is_lower_hex(id, 64))
    }) {
        Some(id) => {
            report.commitment = Some(id.to_hex());
            report.pass(Nip03Step::EventReference, format!("event {id}"));
            Some(id.to_bytes())
        }
        None => fail(report, Reason::EventReferenceMalformed, "the e tag is not a 64-hex event id"),
    }
}

fn fail(report: &mut Report, reason: Reason, detail: &str) -> Option<[u8; 32]> {
    report.fail(Nip03Step::EventReference, reason, detail);
    None
}
