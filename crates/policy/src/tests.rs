//! One test per rule, on real events, real proofs of a regtest chain and
//! headers in memory.

use super::*;
use nostr::prelude::*;
use priorart_nip::Attestation;
use priorart_nip_testkit::keys;
use priorart_ots::MemoryHeaders;
use priorart_testkit::RegtestChain;

const NOW: u64 = 1_700_000_000;
const TEXT: &str = "The quick brown fox jumps over the lazy dog near the riverbank, \
    then naps under the willow while the farmer counts his sheep twice.";

fn policy(toml: &str, headers: MemoryHeaders) -> Policy {
    let mut config = PolicyConfig::from_toml(toml).expect("valid policy");
    config.proofs.network = "regtest".into();
    Policy::new(config, Box::new(headers)).expect("valid policy")
}

fn note(author: &Keys, text: &str, tags: &[&[&str]]) -> Event {
    let tags = tags.iter().map(|tag| Tag::parse(tag.iter().copied()).expect("tag"));
    EventBuilder::new(Kind::TextNote, text).tags(tags).finalize(author).expect("signs")
}

/// A kind 1041 whose proof reaches a block of `chain`, and the attestation.
fn proof_event(chain: &mut RegtestChain) -> Event {
    let author = keys(0x11);
    let x = priorart_fingerprint::minhash_equality_v1(TEXT);
    let attestation = Attestation::sign(&author, x, None, Timestamp::from_secs(NOW)).expect("signs");
    let (_, proof) = chain.stamp(&attestation.commitment().0);
    carrying(&attestation, &proof)
}

/// The kind 1041 carrying `attestation` and the `.ots` file `proof`.
fn carrying(attestation: &Attestation, proof: &[u8]) -> Event {
    let note = EventId::from_byte_array([4; 32]);
    priorart_nip_testkit::proof_event(attestation, note, proof, &keys(0x22), Timestamp::from_secs(NOW))
}

#[test]
fn proofs_of_one_calendar_round_share_a_block_and_each_proves_only_its_own_digest() {
    let mut chain = RegtestChain::new();
    let attestations: Vec<Attestation> = (0..5u8)
        .map(|n| {
            let x = priorart_fingerprint::minhash_equality_v1(&format!("{TEXT} {n}"));
            Attestation::sign(&keys(0x50 + n), x, None, Timestamp::from_secs(NOW)).expect("signs")
        })
        .collect();
    let digests: Vec<[u8; 32]> = attestations.iter().map(|a| a.commitment().0).collect();
    let (height, proofs) = chain.stamp_all(&digests);
    assert_eq!((height, proofs.len()), (1, 5));
    let mut policy = policy("", chain.memory_headers());
    for (attestation, proof) in attestations.iter().zip(&proofs) {
        assert_eq!(policy.decide(&carrying(attestation, proof), NOW), Decision::accept());
    }
    // The builder refuses a neighbour's proof; a forger edits the content.
    let neighbours = carrying(&attestations[1], &proofs[1]).content;
    let swapped = resigned(&carrying(&attestations[0], &proofs[0]), &neighbours, Some);
    assert_eq!(policy.decide(&swapped, NOW), Decision::reject("blocked: proof_for_other_digest"));
}

#[test]
fn a_plain_note_is_accepted() {
    let mut policy = policy("", MemoryHeaders::default());
    assert_eq!(policy.decide(&note(&keys(1), "hello", &[]), NOW), Decision::accept());
}

#[test]
fn a_valid_proof_is_accepted_and_a_tampered_one_rejected_with_its_reason() {
    let mut chain = RegtestChain::new();
    let event = proof_event(&mut chain);
    let mut policy = policy("", chain.memory_headers());
    assert_eq!(policy.decide(&event, NOW), Decision::accept());

    // The embedded attestation's signature no longer covers its content.
    let json = priorart_nip::to_json(&event);
    let description = event.tags.iter().find(|tag| tag.kind() == "description").expect("description");
    let embedded = &description.as_slice()[1];
    let tampered_embedded = embedded.replacen("\"content\":\"\"", "\"content\":\"x\"", 1);
    assert_ne!(&tampered_embedded, embedded);
    let tampered = json.replace(
        &serde_json::to_string(embedded).expect("string"),
        &serde_json::to_string(&tampered_embedded).expect("string"),
    );
    let decision = policy.decide_json(&tampered, NOW);
    assert_eq!(decision.action, Action::Reject);
    assert!(decision.msg.starts_with("blocked: attestation_"), "{}", decision.msg);
}

#[test]
fn a_proof_without_its_header_follows_the_unverified_rule() {
    let mut chain = RegtestChain::new();
    let event = proof_event(&mut chain);
    let mut lenient = policy("", MemoryHeaders::default());
    assert_eq!(lenient.decide(&event, NOW), Decision::accept());
    let mut strict = policy("[proofs]\nunverified = \"reject\"", MemoryHeaders::default());
    assert_eq!(strict.decide(&event, NOW), Decision::reject("blocked: proof_headers_unavailable"));
}

#[test]
fn a_lying_x_tag_gets_the_configured_action_and_unreadable_content_is_left_alone() {
    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    let honest = note(&keys(1), TEXT, &[&["X", &x, ALGORITHM]]);
    let liar =
        note(&keys(1), "Something else entirely, not the text the tag names.", &[&["X", &x, ALGORITHM]]);
    let empty = note(&keys(1), " ", &[&["X", &x, ALGORITHM]]);
    let encrypted =
        note(&keys(1), "c2VjcmV0IG1lc3NhZ2U=?iv=MTIzNDU2Nzg5MDEyMzQ1Ng==", &[&["X", &x, ALGORITHM]]);
    let other_scheme = note(&keys(1), "Something else", &[&["X", &x, "another-algorithm"]]);

    let mut policy_default = policy("", MemoryHeaders::default());
    assert_eq!(policy_default.decide(&liar, NOW), Decision::reject("blocked: x_mismatch"));
    for event in [&honest, &empty, &encrypted, &other_scheme] {
        assert_eq!(policy_default.decide(event, NOW), Decision::accept(), "{}", event.content);
    }
    let mut shadow = policy("[x_tag]\nmismatch = \"shadowReject\"", MemoryHeaders::default());
    assert_eq!(shadow.decide(&liar, NOW).action, Action::ShadowReject);
    let mut lax = policy("[x_tag]\nmismatch = \"accept\"", MemoryHeaders::default());
    assert_eq!(lax.decide(&liar, NOW), Decision::accept());
}

#[test]
fn a_flood_of_near_identical_texts_from_many_keys_is_shadow_rejected() {
    let rules = "[flood]\nevents = 4\nauthors = 3\nseconds = 60\n";
    let mut policy = policy(rules, MemoryHeaders::default());
    let spam = "Buy the new coin now, it will go up a thousand times, link in my profile";
    let decisions: Vec<Action> = (0..8u8)
        .map(|n| policy.decide(&note(&keys(n + 1), &format!("{spam} {n}"), &[]), NOW + u64::from(n)).action)
        .collect();
    // The fifth copy is the first of more than four.
    assert_eq!(&decisions[..4], [Action::Accept; 4]);
    assert_eq!(&decisions[4..], [Action::ShadowReject; 4]);
    // Other texts pass meanwhile; and once the window has passed, so does the spam.
    let other = "A long walk along the coast today, the tide was out and the birds were everywhere";
    assert_eq!(policy.decide(&note(&keys(50), other, &[]), NOW + 10).action, Action::Accept);
    assert_eq!(policy.decide(&note(&keys(51), spam, &[]), NOW + 200).action, Action::Accept);
}

#[test]
fn a_flood_of_japanese_spam_is_seen_though_it_has_no_spaces() {
    // Without spaces it was one word of the 8 the rule needs, so it was
    // never tracked: two kana or ideographs now count as one word.
    let rules = "[flood]\nevents = 4\nauthors = 3\nseconds = 60\n";
    let mut policy = policy(rules, MemoryHeaders::default());
    let spam = "新しいコインを今すぐ買ってください。価格は千倍になります。リンクはプロフィールにあります。";
    let decisions: Vec<Action> = (0..8u8)
        .map(|n| policy.decide(&note(&keys(n + 1), &format!("{spam}{n}"), &[]), NOW + u64::from(n)).action)
        .collect();
    assert_eq!(&decisions[..4], [Action::Accept; 4]);
    assert_eq!(&decisions[4..], [Action::ShadowReject; 4]);
}

#[test]
fn one_author_repeating_itself_is_not_a_flood_of_many_keys() {
    let mut policy = policy("[flood]\nevents = 2\nauthors = 2\n", MemoryHeaders::default());
    let text = "The same long announcement posted again and again by one single account today";
    for n in 0..10 {
        assert_eq!(policy.decide(&note(&keys(1), text, &[]), NOW + n).action, Action::Accept);
    }
    assert_eq!(policy.decide(&note(&keys(2), text, &[]), NOW + 11).action, Action::ShadowReject);
}

#[test]
fn short_texts_are_not_tracked() {
    let mut policy = policy("[flood]\nevents = 1\nauthors = 1\n", MemoryHeaders::default());
    for n in 0..5u8 {
        assert_eq!(policy.decide(&note(&keys(n + 1), "gm", &[]), NOW).action, Action::Accept);
    }
}

#[test]
fn allow_listed_keys_are_always_accepted() {
    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    let trusted = keys(7);
    let toml = format!("allow = [\"{}\"]", trusted.public_key().to_hex());
    let mut policy = policy(&toml, MemoryHeaders::default());
    let liar = note(&trusted, "Not the text the tag names at all", &[&["X", &x, ALGORITHM]]);
    assert_eq!(policy.decide(&liar, NOW), Decision::accept());
    let stranger = note(&keys(8), "Not the text the tag names at all", &[&["X", &x, ALGORITHM]]);
    assert_eq!(policy.decide(&stranger, NOW).action, Action::Reject);
}

#[test]
fn oversized_and_malformed_event_json_is_rejected_with_a_reason() {
    let mut policy = policy("max_event_bytes = 400", MemoryHeaders::default());
    let big = priorart_nip::to_json(&note(&keys(1), &"word ".repeat(100), &[]));
    assert_eq!(policy.decide_json(&big, NOW), Decision::reject("blocked: event_too_large"));
    let decision = policy.decide_json("{\"id\":\"nope\"}", NOW);
    assert_eq!(decision.action, Action::Reject);
    assert!(decision.msg.starts_with("invalid: "), "{}", decision.msg);
}

#[test]
fn follow_lists_and_other_events_with_many_tags_are_judged_not_refused() {
    let mut policy = policy("", MemoryHeaders::default());
    let followed: Vec<String> = (1..=1_000u32).map(|n| format!("{n:064x}")).collect();
    let tags: Vec<[&str; 2]> = followed.iter().map(|key| ["p", key.as_str()]).collect();
    let tags = tags.iter().map(|tag| Tag::parse(tag.iter().copied()).expect("tag"));
    let follows = EventBuilder::new(Kind::ContactList, "").tags(tags).finalize(&keys(1)).expect("signs");
    assert_eq!(policy.decide_json(&priorart_nip::to_json(&follows), NOW), Decision::accept());

    let limit = priorart_nip::limits::MAX_TAGS;
    let mut json: serde_json::Value = serde_json::from_str(&priorart_nip::to_json(&follows)).unwrap();
    json["tags"] = serde_json::Value::Array(vec![serde_json::json!(["t", "x"]); limit + 1]);
    let decision = policy.decide_json(&json.to_string(), NOW);
    assert_eq!(decision.action, Action::Reject);
    assert!(decision.msg.contains(&format!("more than {limit} tags")), "{}", decision.msg);
}

#[test]
fn policy_files_with_mistakes_are_refused_with_a_reason() {
    for (toml, reason) in [
        ("alow = []", "policy_not_toml"),
        ("allow = [\"abc\"]", "bad_pubkey"),
        ("[proofs]\nnetwork = \"testnet\"", "bad_network"),
        ("[proofs]\ntimeout_seconds = 0", "out_of_range"),
        ("[flood]\nwindow = 0", "out_of_range"),
        ("[x_tag]\nmismatch = \"drop\"", "policy_not_toml"),
        ("[proofs]\nesplora = \"http://a\"\nbitcoin_rpc = \"http://b\"", "two_header_sources"),
    ] {
        let err = Policy::from_toml(toml).expect_err(toml);
        assert_eq!(err.reason(), reason, "{toml}: {err}");
    }
}

#[test]
fn lying_or_malformed_fuzzy_tags_get_the_configured_action() {
    use priorart_nip::fuzzy_tags::FuzzyTags;
    let long =
        |seed: usize| (0..150).map(|i| format!("w{}", (i * 31 + seed) % 997)).collect::<Vec<_>>().join(" ");
    let (text, other) = (long(1), long(2));
    let tagged = |content: &str, tags: Vec<Tag>| {
        EventBuilder::new(Kind::TextNote, content).tags(tags).finalize(&keys(1)).expect("signs")
    };
    let honest = tagged(&text, FuzzyTags::of_text(&text).to_tags());
    let liar = tagged(&other, FuzzyTags::of_text(&text).to_tags());
    let truncated = tagged(&text, FuzzyTags::of_text(&text).to_tags().into_iter().take(10).collect());
    let encrypted =
        tagged("c2VjcmV0IG1lc3NhZ2U=?iv=MTIzNDU2Nzg5MDEyMzQ1Ng==", FuzzyTags::of_text(&text).to_tags());

    let mut default = policy("[flood]\nenabled = false", MemoryHeaders::default());
    assert_eq!(default.decide(&liar, NOW), Decision::reject("blocked: b_tag_mismatch"));
    assert_eq!(default.decide(&truncated, NOW), Decision::reject("blocked: b_tag_keys_missing"));
    for event in [&honest, &encrypted] {
        assert_eq!(default.decide(event, NOW), Decision::accept(), "{}", event.content);
    }
    let mut shadow = policy("[b_tag]\nmismatch = \"shadowReject\"", MemoryHeaders::default());
    assert_eq!(shadow.decide(&liar, NOW).action, Action::ShadowReject);
    let mut lax =
        policy("[b_tag]\nmismatch = \"accept\"\n[flood]\nenabled = false", MemoryHeaders::default());
    assert_eq!(lax.decide(&liar, NOW), Decision::accept());
}

#[test]
fn the_defaults_are_the_documented_ones() {
    let config = PolicyConfig::from_toml("").expect("an empty file is a policy");
    assert_eq!(config.proofs.unverified, Unverified::Accept);
    assert_eq!(config.x_tag.mismatch, Action::Reject);
    assert_eq!(config.b_tag.mismatch, Action::Reject);
    assert_eq!(config.flood.action, Action::ShadowReject);
    assert_eq!((config.flood.distance, config.flood.events, config.flood.authors), (3, 10, 3));
    assert_eq!(config.flood.seconds, 600);
    assert_eq!(config.max_event_bytes, 128 * 1024);
}

/// The 1041 `event` re-signed with `content` and its tags passed through `edit`.
fn resigned(event: &Event, content: &str, edit: impl Fn(Vec<String>) -> Option<Vec<String>>) -> Event {
    let tags = event
        .tags
        .iter()
        .filter_map(|tag| edit(tag.as_slice().to_vec()))
        .map(|tag| Tag::parse(tag).expect("tag"));
    EventBuilder::new(event.kind, content).tags(tags).finalize(&keys(0x33)).expect("signs")
}

#[test]
fn tampered_proofs_are_rejected_each_with_the_verifiers_reason() {
    let mut chain = RegtestChain::new();
    let event = proof_event(&mut chain);
    let mut policy = policy("", chain.memory_headers());
    let other_x = priorart_fingerprint::minhash_equality_v1("another text").to_string();
    let keep = |tag: Vec<String>| Some(tag);
    let cases = [
        ("proof_not_base64", resigned(&event, "not base64!", keep)),
        (
            "x_mismatch",
            resigned(&event, &event.content, |mut tag| {
                if tag[0] == "X" {
                    tag[1] = other_x.clone();
                }
                Some(tag)
            }),
        ),
        (
            "author_mismatch",
            resigned(&event, &event.content, |mut tag| {
                if tag[0] == "e" && tag.len() > 3 {
                    tag[3] = keys(0x44).public_key().to_hex();
                }
                if tag[0] == "p" {
                    tag[1] = keys(0x44).public_key().to_hex();
                }
                Some(tag)
            }),
        ),
    ];
    for (reason, tampered) in cases {
        assert_eq!(policy.decide(&tampered, NOW), Decision::reject(format!("blocked: {reason}")), "{reason}");
    }
    // The untampered event, re-signed by another key, is still valid.
    assert_eq!(policy.decide(&resigned(&event, &event.content, keep), NOW), Decision::accept());
    // Without its description it embeds no attestation and claims no
    // authorship: another scheme's kind 1041, which the policy leaves to
    // the relay (clients set it aside, never rank it).
    let stripped = resigned(&event, &event.content, |tag| (tag[0] != "description").then_some(tag));
    assert_eq!(policy.decide(&stripped, NOW), Decision::accept());
}
