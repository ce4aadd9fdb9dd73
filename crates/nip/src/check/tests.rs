//! The check on real signed events and real regtest proofs.

use super::*;
use crate::{Attestation, ContentEvent, ContentRef, ProofEvent};
use nostr::prelude::*;
use priorart_ots::MemoryHeaders;
use priorart_testkit::RegtestChain;
use std::time::Duration;

const TEXT: &str = "The quick brown fox jumps over the lazy dog near the riverbank, \
    then naps under the willow while the farmer counts his sheep twice.";

fn alice() -> Keys {
    Keys::parse(&"11".repeat(32)).expect("valid secret")
}

fn mallory() -> Keys {
    Keys::parse(&"22".repeat(32)).expect("valid secret")
}

fn x() -> EqualityFingerprint {
    priorart_fingerprint::minhash_equality_v1(TEXT)
}

/// `author`'s kind 1 note of `text`, with the `X` of its text.
fn note(author: &Keys, text: &str, created_at: u64) -> Event {
    let spec = ContentEvent::new(1, text, Timestamp::from_secs(created_at));
    spec.sign(author).expect("signs")
}

/// `author`'s attestation of `x`.
fn attestation(author: &Keys, created_at: u64) -> Attestation {
    Attestation::sign(author, x(), Some(1), Timestamp::from_secs(created_at)).expect("signs")
}

/// The `.ots` bytes of `attestation`'s commitment, in a new block of `chain`.
fn stamp(chain: &mut RegtestChain, attestation: &Attestation) -> Vec<u8> {
    chain.stamp(&attestation.commitment().0).1
}

/// A kind 1041 carrying `attestation` and `proof`, naming `content`.
fn proof_event(attestation: &Attestation, content: &Event, proof: &[u8], created_at: u64) -> Event {
    let spec = ProofEvent {
        attestation,
        content: ContentRef::Event { id: content.id, author: attestation.event().pubkey },
        content_kind: Some(1),
        relay_hint: None,
        proof,
        created_at: Timestamp::from_secs(created_at),
    };
    spec.sign(&Keys::generate()).expect("signs")
}

fn answer(url: &str, ending: Ending, events: &[&Event]) -> RelayAnswer {
    RelayAnswer {
        relay: url.to_owned(),
        answered: !events.is_empty() || matches!(ending, Ending::Eose | Ending::Closed { .. }),
        ending,
        events: events.iter().map(|&event| event.clone()).collect(),
        skipped: Vec::new(),
        notices: Vec::new(),
        elapsed: Duration::from_millis(120),
    }
}

/// Alice wrote the text and stamped it first; Mallory copied it and
/// stamped his copy two blocks later, with an earlier `created_at`.
struct Story {
    chain: RegtestChain,
    alice_note: Event,
    alice_proof: Event,
    mallory_note: Event,
    mallory_proof: Event,
}

fn story() -> Story {
    let mut chain = RegtestChain::new();
    let alice_note = note(&alice(), TEXT, 1_700_000_000);
    let alice_attestation = attestation(&alice(), 1_700_000_000);
    let alice_ots = stamp(&mut chain, &alice_attestation);
    chain.mine_block([7; 32]);
    let mallory_note = note(&mallory(), TEXT, 1_600_000_000);
    let mallory_attestation = attestation(&mallory(), 1_600_000_000);
    let mallory_ots = stamp(&mut chain, &mallory_attestation);
    Story {
        alice_proof: proof_event(&alice_attestation, &alice_note, &alice_ots, 1_700_000_100),
        mallory_proof: proof_event(&mallory_attestation, &mallory_note, &mallory_ots, 1_600_000_100),
        chain,
        alice_note,
        mallory_note,
    }
}

#[test]
fn the_earliest_proof_ranks_first_and_the_later_copier_second() {
    let story = story();
    // The copier's events reach more relays, and come first.
    let answers = [
        answer(
            "wss://one.example",
            Ending::Eose,
            &[&story.mallory_proof, &story.mallory_note, &story.alice_proof],
        ),
        answer("wss://two.example", Ending::Eose, &[&story.mallory_proof, &story.alice_note]),
    ];
    let report = check(&x(), &answers, &story.chain.memory_headers(), Network::Regtest);

    let authors: Vec<&str> = report.proofs.iter().map(|proof| proof.author.as_str()).collect();
    assert_eq!(authors, [alice().public_key().to_hex(), mallory().public_key().to_hex()]);
    assert_eq!(report.proofs.iter().map(|proof| proof.rank).collect::<Vec<_>>(), [1, 2]);
    assert!(report.proofs[0].block.height < report.proofs[1].block.height);
    assert_eq!(report.proofs[1].relays, ["wss://one.example", "wss://two.example"]);
    let content = report.proofs[0].content.as_ref().expect("names its note");
    assert_eq!(
        (content.tag, content.reference.as_str(), content.found),
        ("e", story.alice_note.id.to_hex().as_str(), true)
    );
    assert_eq!(report.verdict.status, CheckStatus::Proven);
    assert_eq!(report.verdict.other_authors, 1);
    let alice_npub = npub(&alice().public_key().to_hex());
    let Some(Earliest::Proven(earliest)) = &report.verdict.earliest else { panic!("{:?}", report.verdict) };
    assert_eq!(
        (earliest.npub.as_str(), earliest.height),
        (alice_npub.as_str(), report.proofs[0].block.height)
    );
    assert!(report.verdict.text.starts_with(&format!("earliest proven author: {alice_npub} at block")));
    assert!(report.verdict.text.contains("of REGTEST (not Bitcoin)"), "{}", report.verdict.text);
    assert!(report.refused.is_empty() && report.unverified.is_empty());
    assert!(report.content_events.iter().all(|content| content.x_check == XCheck::Matches));

    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["proofs"][0]["npub"], alice_npub.as_str());
    assert_eq!(json["verdict"]["earliest"]["event_id"], story.alice_proof.id.to_hex().as_str());
    let table = report.table_text(false);
    let first = table.find(&format!("#1 {alice_npub}")).expect("alice ranked");
    let second =
        table.find(&format!("#2 {}", npub(&mallory().public_key().to_hex()))).expect("mallory ranked");
    assert!(first < second, "{table}");
}

#[test]
fn a_stolen_proof_is_refused_with_its_reason() {
    let story = story();
    // Mallory puts Alice's proof under his own attestation (the builder
    // refuses to, so by hand: his proof event's tags, her proof).
    let stolen = EventBuilder::new(Kind::from_u16(crate::PROOF_KIND), story.alice_proof.content.clone())
        .tags(story.mallory_proof.tags.clone())
        .custom_created_at(Timestamp::from_secs(1_600_000_200))
        .finalize(&mallory())
        .expect("signs");
    let answers = [answer("wss://one.example", Ending::Eose, &[&stolen, &story.mallory_note])];
    let report = check(&x(), &answers, &story.chain.memory_headers(), Network::Regtest);

    assert!(report.proofs.is_empty());
    assert_eq!(report.refused.len(), 1);
    let refused = &report.refused[0];
    assert_eq!(refused.event_id, stolen.id.to_hex());
    assert_eq!(refused.verdict, Verdict::Invalid);
    assert_eq!(refused.reasons, ["proof_for_other_digest"]);
    assert_eq!(refused.claimed_author, Some(mallory().public_key().to_hex()));
    assert_eq!(report.verdict.status, CheckStatus::Unproven);
    let table = report.table_text(false);
    assert!(table.contains(&format!("{} INVALID [proof_for_other_digest] claims", stolen.id)), "{table}");
}

#[test]
fn a_proof_without_headers_is_unverified_not_refused() {
    let story = story();
    let answers = [answer("wss://one.example", Ending::Eose, &[&story.alice_proof, &story.alice_note])];
    let report = check(&x(), &answers, &MemoryHeaders::default(), Network::Regtest);

    assert!(report.proofs.is_empty() && report.refused.is_empty());
    assert_eq!(report.unverified.len(), 1);
    assert_eq!(report.unverified[0].author, alice().public_key().to_hex());
    assert_eq!(report.unverified[0].report.verdict, Verdict::Unverified);
    // Unverified is not absent: named before any untrusted created_at.
    assert_eq!(report.verdict.status, CheckStatus::Unverified);
    let text = &report.verdict.text;
    assert!(text.starts_with("1 proof found, none could be checked: no block headers"), "{text}");
    assert!(text.contains("; earliest seen by created_at (untrusted): "), "{text}");
    let Some(Earliest::Seen(earliest)) = &report.verdict.earliest else { panic!("{:?}", report.verdict) };
    assert_eq!(earliest.event_id, story.alice_note.id.to_hex());
    assert!(report.table_text(false).contains("UNVERIFIED (no block headers to check it)"));
    let line = report.verdict_line(false, Some("give --esplora URL"));
    assert!(line.contains("no block headers to check them against (give --esplora URL);"), "{line}");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["verdict"]["status"], "unverified");
}

#[test]
fn a_lying_header_source_leaves_the_proof_unverified_and_is_blamed() {
    let story = story();
    let lying = MemoryHeaders::default();
    for height in 1..=story.chain.tip_height() {
        let mut header = *story.chain.header(height).expect("a block");
        while header.validate_pow(header.target()).is_ok() {
            header.nonce = header.nonce.wrapping_add(1);
        }
        lying.insert(height, header);
    }
    let answers = [answer("wss://one.example", Ending::Eose, &[&story.alice_proof, &story.alice_note])];
    let report = check(&x(), &answers, &lying, Network::Regtest);
    assert!(report.refused.is_empty(), "a genuine proof is never refused for its source's lies");
    assert_eq!(report.unverified.len(), 1);
    assert_eq!(report.verdict.status, CheckStatus::Unverified);
    let text = &report.verdict.text;
    assert!(text.contains("the block header source is unreliable"), "{text}");
    // No advice to give headers: headers were given, and lied.
    assert!(!report.verdict_line(false, Some("give --esplora URL")).contains("give --esplora"));
}

#[test]
fn a_kind_1041_of_another_scheme_is_set_aside_not_refused() {
    // Another draft's kind 1041 (a third-party timestamp: an `e` tag and
    // a proof, no embedded attestation) that happens to carry the X.
    let other = EventBuilder::new(Kind::from_u16(crate::PROOF_KIND), "b3RzIHByb29m")
        .tags([
            Tag::parse(["e", &"ab".repeat(32)]).expect("tag"),
            Tag::parse(["X", &x().to_string(), crate::ALGORITHM]).expect("tag"),
        ])
        .finalize(&mallory())
        .expect("signs");
    let note = note(&alice(), TEXT, 1_700_000_000);
    let answers = [answer("wss://one.example", Ending::Eose, &[&other, &note])];
    let report = check(&x(), &answers, &MemoryHeaders::default(), Network::Mainnet);

    assert!(report.refused.is_empty(), "{:?}", report.refused);
    assert_eq!(report.set_aside.len(), 1);
    assert_eq!(report.set_aside[0].event_id, other.id.to_hex());
    assert!(report.set_aside[0].detail.contains("not a NIP-FF-3 proof"), "{}", report.set_aside[0].detail);
    assert_eq!(report.verdict.status, CheckStatus::Unproven);
    let table = report.table_text(false);
    assert!(table.contains(&format!("set aside: {} is not a NIP-FF-3 proof", other.id)), "{table}");
    assert!(!table.contains("INVALID") && !table.contains("refused"), "{table}");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["set_aside"][0]["signer"], mallory().public_key().to_hex().as_str());
}

#[test]
fn relays_that_time_out_or_never_answer_are_reported() {
    let story = story();
    let answers = [
        answer("wss://slow.example", Ending::Timeout, &[&story.alice_note]),
        answer("wss://silent.example", Ending::Timeout, &[]),
    ];
    let report = check(&x(), &answers, &story.chain.memory_headers(), Network::Regtest);
    assert_eq!(report.relays.len(), 2);
    assert_eq!(report.relays[1].ending, Ending::Timeout);
    assert!(!report.relays[1].answered);
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["relays"][1]["ending"], serde_json::json!({"status": "timeout"}));
    assert_eq!(json["relays"][0]["elapsed_ms"], 120);
    assert!(
        report
            .table_text(false)
            .contains("  wss://silent.example  TIMEOUT (no EOSE)  0 event(s) kept  0.12s\n")
    );
    // What the slow relay sent before its deadline is kept.
    assert_eq!(report.content_events.len(), 1);

    let silent = [answer("wss://silent.example", Ending::Timeout, &[])];
    let report = check(&x(), &silent, &story.chain.memory_headers(), Network::Regtest);
    assert_eq!(report.verdict.status, CheckStatus::NoRelayAnswered);
    let report = check(&x(), &[], &story.chain.memory_headers(), Network::Regtest);
    assert_eq!(report.verdict.status, CheckStatus::NoRelayAsked);
    assert_eq!(report.table_text(false), format!("X {} (regtest)\n", x()));
}

#[test]
fn an_x_tag_that_lies_about_its_content_is_reported() {
    let other = "A different text altogether, about ships, harbours and the open sea at dawn.";
    let liar = EventBuilder::new(Kind::TextNote, other)
        .tag(Tag::parse(["X", &x().to_string(), crate::ALGORITHM]).expect("tag"))
        .custom_created_at(Timestamp::from_secs(1_500_000_000))
        .finalize(&mallory())
        .expect("signs");
    let honest = note(&alice(), TEXT, 1_700_000_000);
    let answers = [answer("wss://one.example", Ending::Eose, &[&liar, &honest])];
    let report = check(&x(), &answers, &MemoryHeaders::default(), Network::Mainnet);

    let own_x = priorart_fingerprint::minhash_equality_v1(other).to_string();
    let checks: Vec<&XCheck> = report.content_events.iter().map(|content| &content.x_check).collect();
    assert_eq!(checks, [&XCheck::DoesNotMatch(own_x.clone()), &XCheck::Matches]);
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["content_events"][0]["x_check"], "does_not_match");
    assert_eq!(json["content_events"][0]["detail"], own_x.as_str());
    assert_eq!(json["content_events"][1]["detail"], serde_json::Value::Null);
    assert!(report.table_text(false).contains(&format!("X does NOT match the content (its X: {own_x})")));
    // Without a proof, the earliest claim wins the verdict, marked untrusted.
    assert_eq!(report.verdict.status, CheckStatus::Unproven);
    let Some(Earliest::Seen(earliest)) = &report.verdict.earliest else { panic!("{:?}", report.verdict) };
    assert_eq!(earliest.event_id, liar.id.to_hex());
    assert!(report.verdict.text.contains("(untrusted)"));
}

#[test]
fn unchecked_answers_keep_what_the_relay_client_keeps() {
    let story = story();
    let mut forged: serde_json::Value =
        serde_json::from_str(&crate::to_json(&story.mallory_note)).expect("JSON");
    forged["sig"] = serde_json::Value::String(story.alice_note.sig.to_string());
    let off_topic =
        note(&alice(), "Nothing to do with the fox at all, a note on the weather.", 1_700_000_000);
    let received = serde_json::json!({
        "url": "wss://one.example",
        "ending": {"status": "eose"},
        "events": [
            serde_json::from_str::<serde_json::Value>(&crate::to_json(&story.alice_note)).expect("JSON"),
            crate::to_json(&story.alice_proof),
            crate::to_json(&story.alice_proof),
            forged,
            crate::to_json(&off_topic),
            "{\"id\": 1}",
        ],
        "elapsed_ms": 42,
    });
    let unchecked: UncheckedAnswer = serde_json::from_value(received).expect("deserializes");
    let checked = unchecked.check(&x());
    assert!(checked.answered);
    assert_eq!(checked.elapsed, Duration::from_millis(42));
    assert_eq!(
        checked.events.iter().map(|event| event.id).collect::<Vec<_>>(),
        [story.alice_note.id, story.alice_proof.id]
    );
    let skipped: Vec<(SkipReason, usize)> = checked.skipped.iter().map(|s| (s.reason, s.count)).collect();
    assert_eq!(
        skipped,
        [
            (SkipReason::MalformedEvent, 1),
            (SkipReason::BadSignature, 1),
            (SkipReason::NotMatchingFilter, 1),
            (SkipReason::Duplicate, 1),
        ]
    );
    let report = check(&x(), &[checked], &story.chain.memory_headers(), Network::Regtest);
    assert_eq!(report.verdict.status, CheckStatus::Proven);
    assert_eq!(report.relays[0].skipped.len(), 4);
}

#[test]
fn answers_checked_together_verify_each_signature_once_and_skip_what_each_alone_skips() {
    let story = story();
    let event_json =
        |event: &Event| serde_json::from_str::<serde_json::Value>(&crate::to_json(event)).expect("JSON");
    // A kept event's id with another event's signature: the id verifies, the
    // signature does not, before and after the genuine copy was verified.
    let mut wrong_signature = event_json(&story.alice_note);
    wrong_signature["sig"] = serde_json::Value::String(story.mallory_note.sig.to_string());
    let answer = |url: &str, events: Vec<serde_json::Value>| -> UncheckedAnswer {
        serde_json::from_value(
            serde_json::json!({"url": url, "ending": {"status": "eose"}, "events": events}),
        )
        .expect("deserializes")
    };
    let answers = vec![
        answer("wss://one.example", vec![wrong_signature.clone(), event_json(&story.alice_note)]),
        answer("wss://two.example", vec![event_json(&story.alice_note), event_json(&story.alice_proof)]),
        answer("wss://three.example", vec![event_json(&story.alice_proof), wrong_signature]),
    ];
    let together = UncheckedAnswer::check_all(answers.clone(), &x());
    let alone: Vec<RelayAnswer> = answers.into_iter().map(|answer| answer.check(&x())).collect();
    /// Per relay: the ids kept, and how many were skipped for each reason.
    type Sifted = (Vec<EventId>, Vec<(SkipReason, usize)>);
    let summary = |answers: &[RelayAnswer]| -> Vec<Sifted> {
        answers
            .iter()
            .map(|answer| {
                let kept = answer.events.iter().map(|event| event.id).collect();
                (kept, answer.skipped.iter().map(|s| (s.reason, s.count)).collect())
            })
            .collect()
    };
    assert_eq!(summary(&together), summary(&alone));
    assert_eq!(summary(&together)[2], (vec![story.alice_proof.id], vec![(SkipReason::BadSignature, 1)]));
    let headers = story.chain.memory_headers();
    assert_eq!(
        check(&x(), &together, &headers, Network::Regtest).to_json(),
        check(&x(), &alone, &headers, Network::Regtest).to_json()
    );
}
