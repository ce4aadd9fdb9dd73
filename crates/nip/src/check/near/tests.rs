//! Near copies on real signed events and real regtest proofs: an edited
//! copy finds the original and its proof; what lies is never reported.

use super::super::{Ending, SkipReason, UncheckedAnswer, check};
use super::*;
use crate::fuzzy_tags::FuzzyTags;
use crate::{Attestation, ContentEvent, ContentRef, ProofEvent};
use nostr::prelude::*;
use priorart_ots::MemoryHeaders;
use priorart_testkit::RegtestChain;
use std::time::Duration;

/// 400 words drawn from 300, deterministically: a text long enough for
/// simhash-doc to stay within a few bits under small edits.
fn original() -> String {
    let mut rng = fastrand::Rng::with_seed(1041);
    (0..400).map(|_| format!("word{}", rng.u32(0..300))).collect::<Vec<_>>().join(" ")
}

/// The original with a footer and every 40th word changed.
fn edited_copy() -> String {
    let words: Vec<String> = original()
        .split(' ')
        .enumerate()
        .map(|(i, word)| if i % 40 == 0 { format!("changed{i}") } else { word.to_owned() })
        .collect();
    format!("{}\nPosted by someone. All rights reserved.", words.join(" "))
}

fn keys(byte: u8) -> Keys {
    Keys::parse(&format!("{byte:02x}").repeat(32)).expect("valid secret")
}

fn answer(events: &[&Event]) -> RelayAnswer {
    RelayAnswer {
        relay: "wss://relay.example".into(),
        ending: Ending::Eose,
        answered: true,
        events: events.iter().map(|&event| event.clone()).collect(),
        skipped: Vec::new(),
        notices: Vec::new(),
        elapsed: Duration::from_millis(10),
    }
}

/// The original's note and the kind 1041 of its `X` in a block of `chain`.
fn published(chain: &mut RegtestChain) -> (Event, Event) {
    let text = original();
    let note =
        ContentEvent::new(1, &text, Timestamp::from_secs(1_700_000_000)).sign(&keys(1)).expect("signs");
    let x = priorart_fingerprint::minhash_equality_v1(&text);
    let attestation =
        Attestation::sign(&keys(1), x, Some(1), Timestamp::from_secs(1_700_000_000)).expect("signs");
    let (_, ots) = chain.stamp(&attestation.commitment().0);
    let proof = ProofEvent {
        attestation: &attestation,
        content: ContentRef::Event { id: note.id, author: keys(1).public_key() },
        content_kind: Some(1),
        relay_hint: None,
        proof: &ots,
        created_at: Timestamp::from_secs(1_700_000_100),
    };
    (note, proof.sign(&keys(9)).expect("signs"))
}

fn empty_report(x: &EqualityFingerprint) -> CheckReport {
    check(x, &[answer(&[])], &MemoryHeaders::default(), Network::Regtest)
}

#[test]
fn an_edited_copy_finds_the_original_and_its_proof_ranked() {
    let mut chain = RegtestChain::new();
    let (note, proof) = published(&mut chain);
    let copy = edited_copy();
    let query = NearQuery::of_text(&copy, FUZZY_DISTANCE, DEFAULT_MIN_JACCARD).expect("valid");
    let copy_x = priorart_fingerprint::minhash_equality_v1(&copy);
    let exact = empty_report(&copy_x);

    // The relay matched the filter: the note carries one of the copy's keys.
    assert!(query.filter().match_event(&note, nostr::filter::MatchEventOptions::new()));
    let key_answers = [answer(&[&note])];
    let candidates = query.verify(&key_answers, &exact);
    assert_eq!(candidates.len(), 1);
    let proof_filter = candidates.proof_filter().expect("one X to ask for");
    assert!(proof_filter.match_event(&proof, nostr::filter::MatchEventOptions::new()));
    let fuzzy = candidates.report(
        &query,
        &key_answers,
        &[answer(&[&proof])],
        &chain.memory_headers(),
        Network::Regtest,
    );

    assert_eq!(fuzzy.near_copies.len(), 1);
    let near = &fuzzy.near_copies[0];
    assert_eq!(near.event.event_id, note.id.to_hex());
    assert!(near.distance <= FUZZY_DISTANCE && near.jaccard >= DEFAULT_MIN_JACCARD, "{near:?}");
    assert_eq!(near.fuzzy_tags, "matches");
    assert_eq!(near.proofs.len(), 1);
    assert_eq!(near.proofs[0].author, keys(1).public_key().to_hex());
    assert!(fuzzy.text.starts_with("1 near copy"), "{}", fuzzy.text);
    assert!(fuzzy.text.contains("earliest proven"), "{}", fuzzy.text);

    let npub = near.proofs[0].npub.clone();
    let mut report = exact;
    report.fuzzy = Some(fuzzy);
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["fuzzy"]["near_copies"][0]["proofs"][0]["rank"], 1);
    assert_eq!(json["fuzzy"]["keys"], 28);
    let table = report.table_text(false);
    assert!(table.contains("near copies (simhash-doc"), "{table}");
    assert!(table.contains(&format!("#1 {npub}")), "{table}");
}

#[test]
fn lying_tags_shuffled_words_and_exact_finds_are_not_reported() {
    let copy = edited_copy();
    let query = NearQuery::of_text(&copy, FUZZY_DISTANCE, DEFAULT_MIN_JACCARD).expect("valid");
    let tags = FuzzyTags::of_text(&original()).to_tags();
    let tagged = |text: &str, author: u8| {
        EventBuilder::new(Kind::TextNote, text).tags(tags.clone()).finalize(&keys(author)).expect("signs")
    };
    // Another text wearing the original's keys: recomputed, it is far.
    let unrelated: String = (0..400).map(|i| format!("other{}", i % 250)).collect::<Vec<_>>().join(" ");
    let liar = tagged(&unrelated, 2);
    // The same words in another order: simhash-doc cannot tell (it is
    // 0 bits away), word 5-grams can.
    let mut words: Vec<&str> = copy.split_whitespace().collect();
    words.sort_unstable();
    let shuffled = tagged(&words.join(" "), 3);
    assert!(priorart_fingerprint::simhash_doc(&shuffled.content).distance(query.value()) <= 1);
    let empty = tagged(" ", 4);
    // A copy already found by the exact X.
    let same_x = ContentEvent::new(1, &copy, Timestamp::from_secs(5)).sign(&keys(5)).expect("signs");
    let exact = check(
        &priorart_fingerprint::minhash_equality_v1(&copy),
        &[answer(&[&same_x])],
        &MemoryHeaders::default(),
        Network::Regtest,
    );
    let candidates = query.verify(&[answer(&[&liar, &shuffled, &empty, &same_x])], &exact);
    assert!(candidates.is_empty());
    assert!(candidates.proof_filter().is_none());
    let fuzzy = candidates.report(&query, &[answer(&[])], &[], &MemoryHeaders::default(), Network::Regtest);
    let counts: Vec<(NotReported, usize)> = fuzzy.not_reported.iter().map(|n| (n.reason, n.count)).collect();
    assert_eq!(
        counts,
        [
            (NotReported::TooFar, 1),
            (NotReported::TooDifferent, 1),
            (NotReported::Unreadable, 1),
            (NotReported::ListedByX, 1)
        ]
    );
    assert_eq!(fuzzy.candidates, 4);
    assert!(fuzzy.text.starts_with("no near copy"), "{}", fuzzy.text);
}

#[test]
fn a_relay_that_alters_a_candidate_or_sends_what_was_not_asked_is_not_believed() {
    let mut chain = RegtestChain::new();
    let (note, proof) = published(&mut chain);
    let query = NearQuery::of_text(&edited_copy(), FUZZY_DISTANCE, DEFAULT_MIN_JACCARD).expect("valid");
    let mut altered: serde_json::Value = serde_json::from_str(&crate::to_json(&note)).expect("JSON");
    altered["content"] = serde_json::Value::String(edited_copy());
    let untagged =
        ContentEvent { fuzzy_tags: false, ..ContentEvent::new(1, &original(), Timestamp::from_secs(7)) }
            .sign(&keys(6))
            .expect("signs");
    let unchecked = UncheckedAnswer {
        url: "wss://liar.example".into(),
        ending: Ending::Eose,
        events: vec![
            altered,
            serde_json::from_str(&crate::to_json(&untagged)).expect("JSON"),
            serde_json::from_str(&crate::to_json(&proof)).expect("JSON"),
        ],
        notices: Vec::new(),
        answered: None,
        elapsed_ms: 3,
    };
    let answer = unchecked.check_against(query.filter());
    assert!(answer.events.is_empty());
    let skipped: Vec<SkipReason> = answer.skipped.iter().map(|s| s.reason).collect();
    assert_eq!(skipped, [SkipReason::BadId, SkipReason::NotMatchingFilter]);
    assert_eq!(answer.skipped[1].count, 2);
}

#[test]
fn queries_beyond_what_the_keys_find_are_refused() {
    assert_eq!(NearQuery::of_text("a", 7, 0.5).unwrap_err().reason(), "distance_too_large");
    assert_eq!(NearQuery::of_text("a", 6, 1.5).unwrap_err().reason(), "bad_jaccard");
    priorart_reason::check_names(NearQueryError::REASONS).unwrap();
}
