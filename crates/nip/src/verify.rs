//! The NIP-FF-3 client verification algorithm (steps 1-8) for kind 1041,
//! and the NIP-03 check for kind 1040, as one library call returning a
//! [`Report`].

use crate::attestation::{self, Attestation, AttestationError, XTagError};
use crate::commitment::Commitment;
use crate::event_json::{self, EventJsonError};
use crate::limits::{MAX_DESCRIPTION_BYTES, MAX_EVENT_JSON_BYTES};
use crate::proof_check;
use crate::report::{Reason, Report, Scheme, Verdict, error_chain};
use crate::{NIP03_KIND, PROOF_KIND};
use nostr::prelude::{Event, Tag};
use priorart_ots::{HeaderSource, Network};

const STEP1: &str = "kind is 1041";
const STEP2: &str = "description parses to an event";
const STEP3: &str = "embedded event is a valid, correctly signed kind 1042 of the required shape";
const STEP4: &str = "author from the a or p tag equals the attestation's pubkey";
const STEP5: &str = "X tags agree and carry minhash-equality-v1";
const STEP6: &str = "commitment = SHA256(attestation signature bytes)";
const STEP7: &str = ".content is base64 of a parseable OpenTimestamps proof";
const STEP8: &str = "proof is for exactly the commitment and verifies to a Bitcoin block";
const CHECKS: [&str; 8] = [STEP1, STEP2, STEP3, STEP4, STEP5, STEP6, STEP7, STEP8];

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
    let mut report = verify_by_kind(event, headers, network);
    report.network = Some(network.name());
    report
}

fn verify_by_kind(event: &Event, headers: &dyn HeaderSource, network: Network) -> Report {
    match event.kind.as_u16() {
        PROOF_KIND => verify_proof_event(event, headers, network),
        NIP03_KIND => crate::nip03::verify(event, headers, network),
        other => {
            let mut report = Report::describing(Scheme::NipFf3, event);
            report.fail(
                1,
                STEP1,
                Reason::WrongKind,
                format!("kind {other}: neither 1041 (NIP-FF-3) nor 1040 (NIP-03)"),
            );
            skip_from(&mut report, 2, "the event is not a proof event");
            report
        }
    }
}

fn unreadable_event(err: &EventJsonError) -> Report {
    let reason = match err {
        EventJsonError::TooLarge { .. } => Reason::EventTooLarge,
        EventJsonError::NotJson(_) => Reason::EventNotJson,
        _ => Reason::EventMalformed,
    };
    let mut report = Report::new(None);
    report.fail(1, STEP1, reason, format!("the input: {err}"));
    skip_from(&mut report, 2, "the input is not a nostr event");
    report
}

fn skip_from(report: &mut Report, first: u8, why: &str) {
    for step in first..=8 {
        report.skip(step, CHECKS[usize::from(step - 1)], format!("skipped: {why}"));
    }
}

fn verify_proof_event(event: &Event, headers: &dyn HeaderSource, network: Network) -> Report {
    let mut report = Report::describing(Scheme::NipFf3, event);
    if !has_tag(event, "description") && !has_tag(event, "X") {
        report.verdict = Verdict::NotNipFf3;
        report.pass(1, STEP1, "kind 1041");
        let why = "kind 1041 without description and X tags is another scheme's event, not a NIP-FF-3 proof";
        report.warn(Reason::NotNipFf3, why);
        skip_from(&mut report, 2, why);
        return report;
    }
    report.pass(1, STEP1, "kind 1041");

    let embedded = step2_description(&mut report, event);
    let attestation = match &embedded {
        Some(embedded) => step3_attestation(&mut report, embedded),
        None => skip(&mut report, 3, STEP3, "skipped: needs the embedded event (step 2)"),
    };
    match &embedded {
        Some(embedded) => step4_author(&mut report, event, embedded),
        None => report.skip(4, STEP4, "skipped: needs the embedded event (step 2)"),
    }
    match &attestation {
        Some(attestation) => step5_fingerprint(&mut report, event, attestation),
        None => report.skip(5, STEP5, "skipped: needs a valid attestation (step 3)"),
    }
    let commitment = embedded.as_ref().map(|embedded| {
        let commitment = Commitment::of_signature(&embedded.sig);
        report.commitment = Some(commitment.to_string());
        report.pass(6, STEP6, commitment.to_string());
        commitment
    });
    if commitment.is_none() {
        report.skip(6, STEP6, "skipped: needs the embedded event (step 2)");
    }
    steps7_8_proof(&mut report, &event.content, commitment.map(|c| c.0), headers, network);

    report.verdict = report.verdict_from_steps(&[3, 4, 5], 8, Verdict::Valid);
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
        [] => return fail(report, 2, STEP2, Reason::DescriptionMissing, "no description tag"),
        [[_, json]] => json.clone(),
        [_] => {
            return fail(
                report,
                2,
                STEP2,
                Reason::DescriptionNotJson,
                "the description tag has no single value",
            );
        }
        _ => return fail(report, 2, STEP2, Reason::DescriptionRepeated, "more than one description tag"),
    };
    match event_json::parse_event(&json, MAX_DESCRIPTION_BYTES) {
        Ok(embedded) => {
            report.author = Some(embedded.pubkey.to_hex());
            report.pass(2, STEP2, format!("embedded event {} by {}", embedded.id, embedded.pubkey));
            Some(embedded)
        }
        Err(err) => {
            let reason = match err {
                EventJsonError::TooLarge { .. } => Reason::DescriptionTooLarge,
                EventJsonError::NotJson(_) => Reason::DescriptionNotJson,
                _ => Reason::DescriptionNotEvent,
            };
            fail(report, 2, STEP2, reason, format!("the description is {err}"))
        }
    }
}

fn skip<T>(report: &mut Report, step: u8, check: &'static str, detail: &str) -> Option<T> {
    report.skip(step, check, detail);
    None
}

fn fail<T>(
    report: &mut Report,
    step: u8,
    check: &'static str,
    reason: Reason,
    detail: impl Into<String>,
) -> Option<T> {
    report.fail(step, check, reason, detail);
    None
}

fn step3_attestation(report: &mut Report, embedded: &Event) -> Option<Attestation> {
    match Attestation::from_event(embedded.clone()) {
        Ok(attestation) => {
            report.fingerprint = Some(attestation.fingerprint().to_string());
            report.pass(3, STEP3, format!("kind 1042 signed by {}", embedded.pubkey));
            Some(attestation)
        }
        Err(err) => {
            let reason = match err {
                AttestationError::IdMismatch => Reason::AttestationIdMismatch,
                AttestationError::BadSignature => Reason::AttestationBadSignature,
                AttestationError::WrongKind(_) => Reason::AttestationWrongKind,
                AttestationError::ContentNotEmpty => Reason::AttestationContentNotEmpty,
                AttestationError::XMissing => Reason::AttestationXMissing,
                AttestationError::XRepeated => Reason::AttestationXRepeated,
                AttestationError::XMalformed => Reason::AttestationXMalformed,
                AttestationError::WrongAlgorithm(_) => Reason::AttestationWrongAlgorithm,
                AttestationError::KMalformed => Reason::AttestationKMalformed,
                AttestationError::UnexpectedTag(_) => Reason::AttestationUnexpectedTag,
            };
            fail(report, 3, STEP3, reason, format!("the embedded event: {err}"))
        }
    }
}

/// Step 4: the content reference (`a`, or `e` with `p`) names the
/// attestation's author.
fn step4_author(report: &mut Report, event: &Event, embedded: &Event) {
    let (a, e, p) = (tags_named(event, "a"), tags_named(event, "e"), tags_named(event, "p"));
    if a.is_empty() && e.is_empty() {
        report.fail(4, STEP4, Reason::ContentReferenceMissing, "neither an a nor an e tag");
        return;
    }
    if a.len() > 1 || e.len() > 1 || p.len() > 1 {
        report.fail(4, STEP4, Reason::ContentReferenceAmbiguous, "more than one a, e or p tag");
        return;
    }
    if a.is_empty() && p.is_empty() {
        report.fail(4, STEP4, Reason::AuthorMissing, "an e tag without the p tag naming the author");
        return;
    }
    let mut authors = Vec::new();
    if let Some(a) = a.first() {
        match a.get(1).and_then(|coordinate| crate::proof_event::split_coordinate(coordinate)) {
            Some((_, author, _)) => authors.push(author),
            None => {
                report.fail(4, STEP4, Reason::AuthorMalformed, "the a tag is not KIND:PUBKEY:D");
                return;
            }
        }
    }
    if let Some(p) = p.first() {
        match p.get(1).filter(|author| crate::hex::is_lower_hex(author, 64)) {
            Some(author) => authors.push(author),
            None => {
                report.fail(4, STEP4, Reason::AuthorMalformed, "the p tag is not a 64-hex pubkey");
                return;
            }
        }
    }
    let attesting = embedded.pubkey.to_hex();
    match authors.iter().find(|author| **author != attesting) {
        Some(other) => report.fail(
            4,
            STEP4,
            Reason::AuthorMismatch,
            format!("the content author is {other} but the attestation is by {attesting}"),
        ),
        None => report.pass(4, STEP4, format!("author {attesting}")),
    }
}

/// Step 5: the 1041's `X` equals the attestation's; `k` is compared too
/// but only warned about.
fn step5_fingerprint(report: &mut Report, event: &Event, attestation: &Attestation) {
    let x = match tags_named(event, "X").as_slice() {
        [] => return report.fail(5, STEP5, Reason::XMissing, "the 1041 has no X tag"),
        [x] => *x,
        _ => return report.fail(5, STEP5, Reason::XRepeated, "the 1041 has more than one X tag"),
    };
    match attestation::x_tag_fingerprint(x) {
        Err(XTagError::Malformed) => report.fail(
            5,
            STEP5,
            Reason::XMalformed,
            "the 1041's X tag is not [\"X\", <64 lowercase hex>, <algorithm>]",
        ),
        Err(XTagError::WrongAlgorithm(found)) => report.fail(
            5,
            STEP5,
            Reason::XWrongAlgorithm,
            format!("the 1041's X tag names {found:?}, not \"minhash-equality-v1\""),
        ),
        Ok(fingerprint) if fingerprint != attestation.fingerprint() => report.fail(
            5,
            STEP5,
            Reason::XMismatch,
            format!("the 1041 says X = {fingerprint} but the attestation says {}", attestation.fingerprint()),
        ),
        Ok(fingerprint) => report.pass(5, STEP5, format!("X = {fingerprint}")),
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
) {
    let proof = match proof_check::decode(content) {
        Ok(proof) => {
            report.pass(7, STEP7, format!("{} bytes of proof", content.len()));
            proof
        }
        Err(failure) => {
            report.fail(7, STEP7, failure.reason(), error_chain(&failure));
            report.skip(8, STEP8, "skipped: needs a parseable proof (step 7)");
            return;
        }
    };
    let Some(digest) = digest else {
        report.skip(8, STEP8, "skipped: needs the commitment (step 6)");
        return;
    };
    match proof_check::verify(&proof, &digest, headers, network) {
        Ok(anchor) => {
            report.pass(8, STEP8, format!("Bitcoin block {} (time {})", anchor.height, anchor.time));
            report.bitcoin = Some(anchor);
        }
        Err(failure) => report.fail(8, STEP8, failure.reason(), error_chain(&failure)),
    }
}
