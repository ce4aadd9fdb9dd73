//! The NIP-FF-3 client verification algorithm (steps 1-8) for kind 1041,
//! and the NIP-03 check for kind 1040, as one library call returning a
//! [`Report`].

use crate::attestation::{self, Attestation, XTagError};
use crate::commitment::Commitment;
use crate::event_json::{self, EventJsonError};
use crate::limits::{MAX_DESCRIPTION_BYTES, MAX_EVENT_JSON_BYTES};
use crate::proof_check::{self, Anchored};
use crate::report::{Reason, Report, Specification, Verdict, error_chain};
use crate::steps::{AlgorithmStep, ProofEventStep};
use crate::{ATTESTATION_KIND, NIP03_KIND, PROOF_KIND};
use nostr::prelude::{Event, Tag};
use priorart_ots::{HeaderSource, Network};

/// Verifies one event given as JSON: a NIP-FF-3 kind 1041, or a NIP-03
/// kind 1040 (reported as forgeable). `headers` answers which Bitcoin block
/// headers exist on `network`; every header is checked whatever its source
/// (pass a cache for speed, a node for independence). The event's own id
/// and signature are checked too, as a warning: the NIP does not rely on
/// them, but relays drop events without them.
pub fn verify_event_json(json: &str, headers: &dyn HeaderSource, network: Network) -> Report {
    let event = match event_json::parse_event(json, MAX_EVENT_JSON_BYTES) {
        Ok(event) => event,
        Err(err) => {
            let mut report = unreadable_event(&err);
            report.network = Some(network.name());
            return report;
        }
    };
    let mut report = verify_event(&event, headers, network);
    if !event.verify_id() || !event.verify_signature() {
        report.warn(
            Reason::EventSignatureInvalid,
            "the event's own id or signature is invalid: relays will drop it (validity rests on the embedded attestation)",
        );
    }
    report
}

/// Verifies one parsed event (see [`verify_event_json`]) without checking
/// its own signature: for relays and clients that already did, when they
/// received it. One signature check (the attestation's) instead of two.
pub fn verify_event(event: &Event, headers: &dyn HeaderSource, network: Network) -> Report {
    verify_event_with(event, headers, network, Some(priorart_ots::DEFAULT_FORGE_HEADERS))
}

/// [`verify_event`], measuring the cost to forge the proof's block over at
/// most `forge_headers` headers on top of it, or not at all (`None`: the
/// report's `cost_to_forge` stays empty). The verdict is the same either
/// way; a relay's write policy, which decides on the verdict alone, leaves
/// the cost out, because it checks up to 144 more headers for every proof.
pub fn verify_event_with(
    event: &Event,
    headers: &dyn HeaderSource,
    network: Network,
    forge_headers: Option<u64>,
) -> Report {
    let mut report = match event.kind.as_u16() {
        PROOF_KIND => verify_proof_event(event, headers, network, forge_headers),
        NIP03_KIND => crate::nip03::verify(event, headers, network, forge_headers),
        other => {
            let mut report = Report::describing(Specification::NipFf3, event);
            let detail = if other == ATTESTATION_KIND {
                // The usual mix-up: the 1042 is what a proof embeds, not the proof.
                "kind 1042: a NIP-FF-3 attestation, not a proof; a kind 1041 proof embeds it with its timestamp"
                    .to_owned()
            } else {
                format!("kind {other}: neither 1041 (NIP-FF-3) nor 1040 (NIP-03)")
            };
            report.fail(ProofEventStep::Kind, Reason::WrongKind, detail);
            skip_from(&mut report, ProofEventStep::Description, "the event is not a proof event");
            report
        }
    };
    report.network = Some(network.name());
    report
}

fn unreadable_event(err: &EventJsonError) -> Report {
    let reason = match err {
        EventJsonError::TooLarge { .. } => Reason::EventTooLarge,
        EventJsonError::NotJson(_) => Reason::EventNotJson,
        _ => Reason::EventMalformed,
    };
    let mut report = Report::new(None);
    report.fail(ProofEventStep::Kind, reason, format!("the input: {err}"));
    skip_from(&mut report, ProofEventStep::Description, "the input is not a nostr event");
    report
}

fn skip_from(report: &mut Report, first: ProofEventStep, why: &str) {
    for step in ProofEventStep::ALL.into_iter().filter(|step| step.number() >= first.number()) {
        report.skip(step, format!("skipped: {why}"));
    }
}

fn verify_proof_event(
    event: &Event,
    headers: &dyn HeaderSource,
    network: Network,
    forge_headers: Option<u64>,
) -> Report {
    let mut report = Report::describing(Specification::NipFf3, event);
    // The embedded attestation is what makes a kind 1041 a NIP-FF-3 proof
    // (its `description` is required "always"); other drafts reuse the kind
    // (nostr-protocol/nips#2359 proposes it for third-party timestamps).
    // Without one the event claims no authorship, so it is set aside as
    // another scheme's, never called a forgery, even when it carries an `X`.
    if !has_tag(event, "description") {
        report.verdict = Verdict::NotNipFf3;
        report.pass(ProofEventStep::Kind, "kind 1041");
        let why = "a kind 1041 without a description tag (no embedded kind 1042 attestation) is another \
                   scheme's event, not a NIP-FF-3 proof";
        report.warn(Reason::NotNipFf3, why);
        skip_from(&mut report, ProofEventStep::Description, why);
        return report;
    }
    report.pass(ProofEventStep::Kind, "kind 1041");

    let embedded = step2_description(&mut report, event);
    let attestation = match &embedded {
        Some(embedded) => step3_attestation(&mut report, embedded),
        None => skip(&mut report, ProofEventStep::Attestation, "skipped: needs the embedded event (step 2)"),
    };
    match &embedded {
        Some(embedded) => step4_author(&mut report, event, embedded),
        None => report.skip(ProofEventStep::Author, "skipped: needs the embedded event (step 2)"),
    }
    match &attestation {
        Some(attestation) => step5_fingerprint(&mut report, event, attestation),
        None => report.skip(ProofEventStep::Fingerprint, "skipped: needs a valid attestation (step 3)"),
    }
    let commitment = embedded.as_ref().map(|embedded| {
        let commitment = Commitment::of_signature(&embedded.sig);
        report.commitment = Some(commitment.to_string());
        report.pass(ProofEventStep::Commitment, commitment.to_string());
        commitment
    });
    if commitment.is_none() {
        report.skip(ProofEventStep::Commitment, "skipped: needs the embedded event (step 2)");
    }
    let digest = commitment.map(|c| c.0);
    steps7_8_proof(&mut report, &event.content, digest, headers, network, forge_headers);

    report.verdict =
        report.verdict_from_steps(&ProofEventStep::REQUIRED, ProofEventStep::ProofVerifies, Verdict::Valid);
    report
}

fn has_tag(event: &Event, name: &str) -> bool {
    event.tags.iter().any(|tag| tag.kind() == name)
}

fn tags_named<'a>(event: &'a Event, name: &'a str) -> Vec<&'a [String]> {
    event.tags.iter().filter(|tag| tag.kind() == name).map(Tag::as_slice).collect()
}

fn step2_description(report: &mut Report, event: &Event) -> Option<Event> {
    let json = match tags_named(event, "description").as_slice() {
        [] => {
            return fail(
                report,
                ProofEventStep::Description,
                Reason::DescriptionMissing,
                "no description tag",
            );
        }
        [[_, json]] => json.clone(),
        [_] => {
            return fail(
                report,
                ProofEventStep::Description,
                Reason::DescriptionNotJson,
                "the description tag has no single value",
            );
        }
        _ => {
            return fail(
                report,
                ProofEventStep::Description,
                Reason::DescriptionRepeated,
                "more than one description tag",
            );
        }
    };
    match event_json::parse_event(&json, MAX_DESCRIPTION_BYTES) {
        Ok(embedded) => {
            report.author = Some(embedded.pubkey.to_hex());
            report.pass(
                ProofEventStep::Description,
                format!("embedded event {} by {}", embedded.id, embedded.pubkey),
            );
            Some(embedded)
        }
        Err(err) => {
            let reason = match err {
                EventJsonError::TooLarge { .. } => Reason::DescriptionTooLarge,
                EventJsonError::NotJson(_) => Reason::DescriptionNotJson,
                _ => Reason::DescriptionNotEvent,
            };
            fail(report, ProofEventStep::Description, reason, format!("the description is {err}"))
        }
    }
}

fn skip<T>(report: &mut Report, step: ProofEventStep, detail: &str) -> Option<T> {
    report.skip(step, detail);
    None
}

fn fail<T>(
    report: &mut Report,
    step: ProofEventStep,
    reason: Reason,
    detail: impl Into<String>,
) -> Option<T> {
    report.fail(step, reason, detail);
    None
}

fn step3_attestation(report: &mut Report, embedded: &Event) -> Option<Attestation> {
    match Attestation::from_event(embedded.clone()) {
        Ok(attestation) => {
            report.fingerprint = Some(attestation.fingerprint().to_string());
            report.pass(ProofEventStep::Attestation, format!("kind 1042 signed by {}", embedded.pubkey));
            Some(attestation)
        }
        Err(err) => {
            let reason = err.report_reason();
            fail(report, ProofEventStep::Attestation, reason, format!("the embedded event: {err}"))
        }
    }
}

/// Step 4: the content reference (`a`, or `e` with `p`) names the
/// attestation's author.
fn step4_author(report: &mut Report, event: &Event, embedded: &Event) {
    let (a, e, p) = (tags_named(event, "a"), tags_named(event, "e"), tags_named(event, "p"));
    if a.is_empty() && e.is_empty() {
        report.fail(ProofEventStep::Author, Reason::ContentReferenceMissing, "neither an a nor an e tag");
        return;
    }
    if a.len() > 1 || e.len() > 1 || p.len() > 1 {
        report.fail(ProofEventStep::Author, Reason::ContentReferenceAmbiguous, "more than one a, e or p tag");
        return;
    }
    if a.is_empty() && p.is_empty() {
        report.fail(
            ProofEventStep::Author,
            Reason::AuthorMissing,
            "an e tag without the p tag naming the author",
        );
        return;
    }
    let mut authors = Vec::new();
    if let Some(a) = a.first() {
        match a.get(1).and_then(|coordinate| crate::proof_event::split_coordinate(coordinate)) {
            Some((_, author, _)) => authors.push(author),
            None => {
                report.fail(
                    ProofEventStep::Author,
                    Reason::AuthorMalformed,
                    "the a tag is not KIND:PUBKEY:D",
                );
                return;
            }
        }
    }
    if let Some(p) = p.first() {
        match p.get(1).filter(|author| crate::hex::is_lower_hex(author, 64)) {
            Some(author) => authors.push(author),
            None => {
                report.fail(
                    ProofEventStep::Author,
                    Reason::AuthorMalformed,
                    "the p tag is not a 64-hex pubkey",
                );
                return;
            }
        }
    }
    let attesting = embedded.pubkey.to_hex();
    match authors.iter().find(|author| **author != attesting) {
        Some(other) => report.fail(
            ProofEventStep::Author,
            Reason::AuthorMismatch,
            format!("the content author is {other} but the attestation is by {attesting}"),
        ),
        None => report.pass(ProofEventStep::Author, format!("author {attesting}")),
    }
}

/// Step 5: the 1041's `X` equals the attestation's; `k` is compared too
/// but only warned about.
fn step5_fingerprint(report: &mut Report, event: &Event, attestation: &Attestation) {
    let x = match tags_named(event, "X").as_slice() {
        [] => return report.fail(ProofEventStep::Fingerprint, Reason::XMissing, "the 1041 has no X tag"),
        [x] => *x,
        _ => {
            return report.fail(
                ProofEventStep::Fingerprint,
                Reason::XRepeated,
                "the 1041 has more than one X tag",
            );
        }
    };
    match attestation::x_tag_fingerprint(x) {
        Err(XTagError::Malformed) => report.fail(
            ProofEventStep::Fingerprint,
            Reason::XMalformed,
            "the 1041's X tag is not [\"X\", <64 lowercase hex>, <algorithm>]",
        ),
        Err(XTagError::WrongAlgorithm(found)) => report.fail(
            ProofEventStep::Fingerprint,
            Reason::XWrongAlgorithm,
            format!("the 1041's X tag names {found:?}, not \"minhash-equality-v1\""),
        ),
        Ok(fingerprint) if fingerprint != attestation.fingerprint() => report.fail(
            ProofEventStep::Fingerprint,
            Reason::XMismatch,
            format!("the 1041 says X = {fingerprint} but the attestation says {}", attestation.fingerprint()),
        ),
        Ok(fingerprint) => report.pass(ProofEventStep::Fingerprint, format!("X = {fingerprint}")),
    }
    let k: Vec<Option<u16>> = tags_named(event, "k").into_iter().map(attestation::k_tag_kind).collect();
    match (k.as_slice(), attestation.content_kind()) {
        ([Some(kind)], Some(scoped)) if *kind != scoped => report.warn(
            Reason::KMismatch,
            format!(
                "the 1041 says k = {kind} but the attestation is scoped to kind {scoped} (advisory only)"
            ),
        ),
        ([Some(_)], _) => {}
        _ => report.warn(Reason::KMissing, "the 1041 has no single valid k tag (advisory only)"),
    }
}

/// Steps 7 and 8: decode the proof and check it against `digest`.
fn steps7_8_proof(
    report: &mut Report,
    content: &str,
    digest: Option<[u8; 32]>,
    headers: &dyn HeaderSource,
    network: Network,
    forge_headers: Option<u64>,
) {
    let proof = match proof_check::decode(content) {
        Ok(proof) => {
            report.pass(ProofEventStep::ProofDecodes, format!("{} bytes of proof", content.len()));
            proof
        }
        Err(failure) => {
            report.fail(ProofEventStep::ProofDecodes, failure.report_reason(), error_chain(&failure));
            report.skip(ProofEventStep::ProofVerifies, "skipped: needs a parseable proof (step 7)");
            return;
        }
    };
    let Some(digest) = digest else {
        report.skip(ProofEventStep::ProofVerifies, "skipped: needs the commitment (step 6)");
        return;
    };
    let outcome = proof_check::verify(&proof, &digest, headers, network, forge_headers);
    Anchored::record(outcome, report, ProofEventStep::ProofVerifies);
}
