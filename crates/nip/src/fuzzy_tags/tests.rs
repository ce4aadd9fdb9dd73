//! The `B` tags: built, read back, checked against the text, and every
//! malformed set refused with its reason.

use super::*;
use crate::ContentEvent;
use nostr::prelude::*;

/// A text of `words` words (distinct enough for a stable simhash-doc).
fn text(words: usize, seed: usize) -> String {
    (0..words).map(|i| format!("word{}", (i * 7919 + seed * 104_729) % 1009)).collect::<Vec<_>>().join(" ")
}

fn tags_of(value: SimhashDoc) -> Tags {
    Tags::from_list(FuzzyTags { value, rule: TokenRule::V2 }.to_tags())
}

/// `tags` with `edit` applied to their string lists.
fn edited(tags: &Tags, edit: impl Fn(&mut Vec<Vec<String>>)) -> Tags {
    let mut lists: Vec<Vec<String>> = tags.iter().map(|tag| tag.as_slice().to_vec()).collect();
    edit(&mut lists);
    Tags::from_list(lists.into_iter().map(|list| Tag::parse(list).expect("named")).collect())
}

#[test]
fn keys_are_the_byte_pairs_of_the_value_in_table_order() {
    let value = SimhashDoc(0x0123_4567_89ab_cdef);
    let keys = fuzzy_keys(value);
    assert_eq!(keys.len(), FUZZY_TABLES);
    let bytes = value.0.to_be_bytes();
    let mut table = 0;
    for i in 0..8 {
        for j in i + 1..8 {
            assert_eq!(keys[table], format!("6-{table:02}-{:02x}{:02x}", bytes[i], bytes[j]));
            table += 1;
        }
    }
    assert_eq!(keys[0], "6-00-0123");
    assert_eq!(keys[27], "6-27-cdef");
}

#[test]
fn values_within_six_bits_share_a_key_and_farther_ones_may_not() {
    let mut rng = fastrand::Rng::with_seed(6);
    for _ in 0..2_000 {
        let value = SimhashDoc(rng.u64(..));
        let mut near = value.0;
        while SimhashDoc(near).distance(value) < rng.u32(0..=FUZZY_DISTANCE) {
            near ^= 1 << rng.u32(0..64);
        }
        let ours = fuzzy_keys(value);
        assert!(fuzzy_keys(SimhashDoc(near)).iter().any(|key| ours.contains(key)), "{value} {near:x}");
    }
    // Seven bits, one in each of seven bytes: no pair of bytes agrees.
    let far = (0..7).fold(0u64, |acc, byte| acc | 1 << (8 * byte));
    let zero = fuzzy_keys(SimhashDoc(0));
    assert!(!fuzzy_keys(SimhashDoc(far)).iter().any(|key| zero.contains(key)));
}

#[test]
fn tags_round_trip_in_any_order() {
    let value = priorart_fingerprint::simhash_doc_v2(&text(150, 1));
    let tags = tags_of(value);
    assert_eq!(tags.len(), 1 + FUZZY_TABLES);
    assert_eq!(tags.first().unwrap().as_slice(), ["B", &value.to_string(), "simhash-doc-v2"]);
    let v2 = FuzzyTags { value, rule: TokenRule::V2 };
    assert_eq!(FuzzyTags::parse(&tags), Ok(Some(v2.clone())));
    let reversed = edited(&tags, |lists| lists.reverse());
    assert_eq!(FuzzyTags::parse(&reversed), Ok(Some(v2)));
    // Tags written before simhash-doc-v2 name simhash-doc.
    let v1 = edited(&tags, |lists| lists[0][2] = "simhash-doc".into());
    assert_eq!(FuzzyTags::parse(&v1), Ok(Some(FuzzyTags { value, rule: TokenRule::V1 })));
    let others = Tags::from_list(vec![Tag::parse(["t", "essay"]).unwrap()]);
    assert_eq!(FuzzyTags::parse(&others), Ok(None));
    // 29 tags in about 570 bytes of JSON.
    let bytes: usize = tags.iter().map(|tag| serde_json::to_string(tag).unwrap().len() + 1).sum();
    assert!((500..600).contains(&bytes), "{bytes}");
}

#[test]
fn malformed_tag_sets_are_refused_with_their_reason() {
    let value = SimhashDoc(0x0123_4567_89ab_cdef);
    let tags = tags_of(value);
    let cases: Vec<(&str, Tags)> = vec![
        ("too_many", edited(&tags, |l| l.extend((0..20).map(|i| vec!["B".into(), format!("x{i}")])))),
        ("bad_shape", edited(&tags, |l| l.push(vec!["B".into(), "a".into(), "b".into(), "c".into()]))),
        ("bad_shape", edited(&tags, |l| l.push(vec!["B".into()]))),
        ("wrong_scheme", edited(&tags, |l| l[0][2] = "simhash-v9".into())),
        (
            "value_missing",
            edited(&tags, |l| {
                l.remove(0);
            }),
        ),
        ("value_repeated", edited(&tags, |l| l.push(l[0].clone()))),
        ("value_malformed", edited(&tags, |l| l[0][1] = l[0][1].to_lowercase())),
        ("value_malformed", edited(&tags, |l| l[0][1] = value.to_hex())),
        ("value_malformed", edited(&tags, |l| l[0][1] = "not a value".into())),
        ("key_not_of_value", edited(&tags, |l| l[3][1] = "6-02-ffff".into())),
        ("key_not_of_value", edited(&tags, |l| l[3][1] = "6-2-0145".into())),
        ("key_repeated", edited(&tags, |l| l[3] = l[4].clone())),
        ("keys_missing", edited(&tags, |l| l.truncate(20))),
    ];
    for (reason, tags) in cases {
        let err = FuzzyTags::parse(&tags).expect_err(reason);
        assert_eq!(err.reason(), reason, "{err}");
    }
}

#[test]
fn content_events_carry_the_tags_by_default_and_only_for_long_texts() {
    let keys = Keys::parse(&"11".repeat(32)).unwrap();
    let long = text(FUZZY_MIN_WORDS, 2);
    let event = ContentEvent::new(1, &long, Timestamp::from_secs(1)).sign(&keys).unwrap();
    assert_eq!(check_fuzzy_tags(&event), FuzzyTagCheck::Matches);
    assert_eq!(event.tags.iter().filter(|t| t.kind() == "B").count(), 1 + FUZZY_TABLES);
    let without = ContentEvent { fuzzy_tags: false, ..ContentEvent::new(1, &long, Timestamp::from_secs(1)) };
    assert_eq!(check_fuzzy_tags(&without.sign(&keys).unwrap()), FuzzyTagCheck::Absent);
    let short = text(FUZZY_MIN_WORDS - 1, 2);
    let event = ContentEvent::new(1, &short, Timestamp::from_secs(1)).sign(&keys).unwrap();
    assert_eq!(check_fuzzy_tags(&event), FuzzyTagCheck::Absent);
}

#[test]
fn a_lying_tag_is_told_from_the_content() {
    let keys = Keys::parse(&"11".repeat(32)).unwrap();
    let (honest, other) = (text(120, 3), text(120, 4));
    let lying = EventBuilder::new(Kind::TextNote, &other)
        .tags(FuzzyTags::of_text(&honest).to_tags())
        .finalize(&keys)
        .unwrap();
    let own = priorart_fingerprint::simhash_doc_v2(&other);
    assert_ne!(own, priorart_fingerprint::simhash_doc_v2(&honest));
    assert_eq!(check_fuzzy_tags(&lying), FuzzyTagCheck::DoesNotMatch(own));
    let encrypted = EventBuilder::new(Kind::TextNote, "c2VjcmV0IG1lc3NhZ2U=?iv=MTIzNDU2Nzg5MDEyMzQ1Ng==")
        .tags(FuzzyTags::of_text(&honest).to_tags())
        .finalize(&keys)
        .unwrap();
    assert_eq!(check_fuzzy_tags(&encrypted), FuzzyTagCheck::CannotCheck(crate::check::Unreadable::Encrypted));
    let broken = EventBuilder::new(Kind::TextNote, &honest)
        .tags(FuzzyTags::of_text(&honest).to_tags().into_iter().take(5))
        .finalize(&keys)
        .unwrap();
    assert!(matches!(
        check_fuzzy_tags(&broken),
        FuzzyTagCheck::Malformed(FuzzyTagError::KeysMissing { missing: 24 })
    ));
}

#[test]
fn the_table_count_is_the_layouts() {
    assert_eq!(tables().0.tables.len(), FUZZY_TABLES);
    assert_eq!(tables().0.max_distance, FUZZY_DISTANCE);
}

/// An event tagged before simhash-doc-v2 (`simhash-doc`) is checked
/// against its content's simhash-doc, and a Japanese text, which the two
/// schemes cut differently, is told apart under each.
#[test]
fn tags_of_either_scheme_are_checked_by_their_own_rule() {
    let keys = Keys::parse(&"11".repeat(32)).unwrap();
    let japanese =
        "パッケージの依存関係を確認してから、新しいバージョンをインストールしてください。".repeat(3);
    let rules = [TokenRule::V1, TokenRule::V2];
    let values = rules.map(|rule| priorart_fingerprint::Fingerprinter::new().simhash_doc(&japanese, rule));
    assert_ne!(values[0], values[1]);
    for (rule, value) in rules.into_iter().zip(values) {
        let tagged = EventBuilder::new(Kind::TextNote, &japanese)
            .tags(FuzzyTags { value, rule }.to_tags())
            .finalize(&keys)
            .unwrap();
        assert_eq!(check_fuzzy_tags(&tagged), FuzzyTagCheck::Matches, "{rule}");
        let swapped = EventBuilder::new(Kind::TextNote, &japanese)
            .tags(
                FuzzyTags { value, rule: if rule == TokenRule::V1 { TokenRule::V2 } else { TokenRule::V1 } }
                    .to_tags(),
            )
            .finalize(&keys)
            .unwrap();
        assert!(matches!(check_fuzzy_tags(&swapped), FuzzyTagCheck::DoesNotMatch(_)), "{rule}");
    }
}
