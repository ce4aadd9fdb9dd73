//! Near copies on real signed events and real regtest proofs: an edited
//! copy finds the original and its proof; what lies is never reported.

use super::super::{CheckStatus, Earliest, Ending, SkipReason, UncheckedAnswer, check};
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
    let report = exact.with_near_copies(fuzzy);
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["fuzzy"]["near_copies"][0]["proofs"][0]["rank"], 1);
    assert_eq!(json["fuzzy"]["keys"], 28);
    let table = report.table_text(false);
    assert!(table.contains("near copies (simhash-doc"), "{table}");
    assert!(table.contains(&format!("#1 {npub}")), "{table}");
}

/// The reader's case: Alice proved the original; Mallory published an
/// edited copy (another X) under his own key, and the reader checks the
/// copy. What the relays hold for the copy's X (`own`: Mallory's note and
/// any proof of it) and the near-copy answers give the verdict.
struct CopyChecked {
    chain: RegtestChain,
    alice_note: Event,
    alice_proof: Event,
    copy_x: EqualityFingerprint,
    mallory_note: Event,
}

fn copy_checked() -> CopyChecked {
    let mut chain = RegtestChain::new();
    let (alice_note, alice_proof) = published(&mut chain);
    let copy = edited_copy();
    let mallory_note =
        ContentEvent::new(1, &copy, Timestamp::from_secs(1_600_000_000)).sign(&keys(2)).expect("signs");
    let copy_x = priorart_fingerprint::minhash_equality_v1(&copy);
    CopyChecked { chain, alice_note, alice_proof, copy_x, mallory_note }
}

impl CopyChecked {
    fn report(&self, own: &[&Event], headers: &MemoryHeaders) -> CheckReport {
        let exact = check(&self.copy_x, &[answer(own)], headers, Network::Regtest);
        let query = NearQuery::of_text(&edited_copy(), FUZZY_DISTANCE, DEFAULT_MIN_JACCARD).expect("valid");
        let key_answers = [answer(&[&self.alice_note])];
        let candidates = query.verify(&key_answers, &exact);
        let proofs = [answer(&[&self.alice_proof])];
        let fuzzy = candidates.report(&query, &key_answers, &proofs, headers, Network::Regtest);
        exact.with_near_copies(fuzzy)
    }

    /// Mallory's own kind 1041 of the copy's X, in a block after Alice's.
    fn mallory_proof(&mut self) -> Event {
        let attestation =
            Attestation::sign(&keys(2), self.copy_x, Some(1), Timestamp::from_secs(1_600_000_000))
                .expect("signs");
        let (_, ots) = self.chain.stamp(&attestation.commitment().0);
        let proof = ProofEvent {
            attestation: &attestation,
            content: ContentRef::Event { id: self.mallory_note.id, author: keys(2).public_key() },
            content_kind: Some(1),
            relay_hint: None,
            proof: &ots,
            created_at: Timestamp::from_secs(1_600_000_100),
        };
        proof.sign(&keys(2)).expect("signs")
    }
}

#[test]
fn a_copy_checked_while_its_original_is_proven_names_the_original() {
    let case = copy_checked();
    let report = case.report(&[&case.mallory_note], &case.chain.memory_headers());

    assert_eq!(report.verdict.status, CheckStatus::NearCopyProven);
    let Some(Earliest::Proven(earliest)) = &report.verdict.earliest else { panic!("{:?}", report.verdict) };
    assert_eq!(earliest.author, keys(1).public_key().to_hex());
    assert_eq!(earliest.event_id, case.alice_proof.id.to_hex());
    let near = earliest.near_copy.as_ref().expect("the near copy named");
    assert_eq!(near.event_id, case.alice_note.id.to_hex());
    assert!(near.jaccard >= DEFAULT_MIN_JACCARD);
    let text = &report.verdict.text;
    assert!(
        text.starts_with(&format!("a near copy was proven earlier: {} at block", earliest.npub)),
        "{text}"
    );
    assert!(
        text.contains(&case.alice_note.id.to_hex()) && text.contains("this X has no valid proof"),
        "{text}"
    );
    // The copier is named nowhere in the verdict.
    assert!(!text.contains(&case.mallory_note.pubkey.to_bech32().expect("npub")), "{text}");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["verdict"]["status"], "near_copy_proven");
    assert_eq!(json["verdict"]["earliest"]["near_copy"]["x"], near.x.as_str());
}

#[test]
fn a_later_proof_of_the_copy_does_not_beat_the_original_and_an_earlier_one_wins() {
    let mut case = copy_checked();
    let later = case.mallory_proof();
    let report = case.report(&[&case.mallory_note, &later], &case.chain.memory_headers());
    assert_eq!(report.verdict.status, CheckStatus::NearCopyProven, "{}", report.verdict.text);
    assert!(
        report.verdict.text.contains("this X's own earliest proof is at block 2"),
        "{}",
        report.verdict.text
    );

    // The copy's X proven first (block 1, the original at block 2): it
    // wins, as without near copies.
    let mut case = CopyChecked { chain: RegtestChain::new(), ..copy_checked() };
    let earlier = case.mallory_proof();
    let (alice_note, alice_proof) = published(&mut case.chain);
    case.alice_note = alice_note;
    case.alice_proof = alice_proof;
    let report = case.report(&[&case.mallory_note, &earlier], &case.chain.memory_headers());
    assert_eq!(report.verdict.status, CheckStatus::Proven, "{}", report.verdict.text);
    let Some(Earliest::Proven(earliest)) = &report.verdict.earliest else { panic!("{:?}", report.verdict) };
    assert_eq!(earliest.author, keys(2).public_key().to_hex());
    assert!(earliest.near_copy.is_none());
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert!(json["verdict"]["earliest"].get("near_copy").is_none());
}

#[test]
fn answers_received_elsewhere_give_the_same_verdict() {
    let case = copy_checked();
    let headers = case.chain.memory_headers();
    let unchecked = |events: &[&Event]| {
        UncheckedAnswer::from_event_json(
            "wss://relay.example",
            Ending::Eose,
            &events.iter().map(|e| crate::to_json(e)).collect::<Vec<_>>(),
        )
    };
    let query = NearQuery::of_text(&edited_copy(), FUZZY_DISTANCE, DEFAULT_MIN_JACCARD).expect("valid");
    let keys = [unchecked(&[&case.alice_note]).check_against(query.filter())];
    let filter = query.proof_filter(&keys).expect("the original's X to ask for");
    assert!(filter.match_event(&case.alice_proof, nostr::filter::MatchEventOptions::new()));

    let exact = check(&case.copy_x, &[answer(&[&case.mallory_note])], &headers, Network::Regtest);
    // A proof the relay was not asked for (the copier's note) is skipped.
    let proofs = vec![unchecked(&[&case.alice_proof, &case.mallory_note])];
    let fuzzy = query.report_unchecked(
        &exact,
        vec![unchecked(&[&case.alice_note])],
        proofs,
        &headers,
        Network::Regtest,
    );
    assert_eq!(fuzzy.proof_relays[0].skipped[0].reason, SkipReason::NotMatchingFilter);
    let report = exact.with_near_copies(fuzzy);
    assert_eq!(report.verdict, case.report(&[&case.mallory_note], &headers).verdict);
}

#[test]
fn near_copies_proofs_without_headers_are_unverified_not_absent() {
    let case = copy_checked();
    let report = case.report(&[&case.mallory_note], &MemoryHeaders::default());
    assert_eq!(report.verdict.status, CheckStatus::Unverified);
    let text = &report.verdict.text;
    assert!(text.starts_with("1 proof of near copies found, none could be checked"), "{text}");
    // Then, and only then, the untrusted claim.
    assert!(text.contains("earliest seen by created_at (untrusted)"), "{text}");
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
