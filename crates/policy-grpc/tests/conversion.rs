//! Requests → events, and decisions → replies, without a network.

use priorart_nip::limits::{MAX_TAG_STRINGS, MAX_TAGS};
use priorart_nip::nostr::prelude::*;
use priorart_policy::{Action, Decision};
use priorart_policy_grpc::proto::event::TagEntry;
use priorart_policy_grpc::proto::{self, EventRequest};
use priorart_policy_grpc::{MAX_MESSAGE_BYTES, event_of, reply, request_for};

pub fn signed_note(text: &str, tags: &[&[&str]]) -> Event {
    let tags = tags.iter().map(|tag| Tag::parse(tag.iter().copied()).expect("tag"));
    EventBuilder::new(Kind::TextNote, text).tags(tags).finalize(&Keys::generate()).expect("signs")
}

#[test]
fn a_request_gives_back_the_event_the_relay_received() {
    let event = signed_note("hello", &[&["X", &"ab".repeat(32), "minhash-equality-v1"], &["t", "x"]]);
    let decoded = event_of(request_for(&event)).expect("an event");
    assert_eq!(decoded, event);
    assert!(decoded.verify().is_ok(), "id and signature survive the trip");
}

#[test]
fn a_follow_list_of_a_thousand_keys_is_read_whole() {
    let followed: Vec<String> = (1..=1_000u32).map(|n| format!("{n:064x}")).collect();
    let tags: Vec<[&str; 2]> = followed.iter().map(|key| ["p", key.as_str()]).collect();
    let tags = tags.iter().map(|tag| Tag::parse(tag.iter().copied()).expect("tag"));
    let follows =
        EventBuilder::new(Kind::ContactList, "").tags(tags).finalize(&Keys::generate()).expect("signs");
    assert_eq!(event_of(request_for(&follows)).expect("an event"), follows);
}

#[test]
fn malformed_events_are_named() {
    let event = signed_note("hello", &[]);
    type Tamper = fn(&mut proto::Event);
    let cases: [(Tamper, &str); 7] = [
        (|e| e.id.truncate(31), "`id` is not 32 bytes"),
        (|e| e.pubkey.push(0), "`pubkey` is not 32 bytes"),
        (|e| e.sig.clear(), "`sig` is not 64 bytes"),
        (|e| e.kind = 65_536, "`kind` is not an integer from 0 to 65535"),
        (|e| e.tags.push(TagEntry { values: Vec::new() }), "a tag is empty"),
        (|e| e.tags = vec![TagEntry { values: vec!["t".into()] }; MAX_TAGS + 1], "more than 2000 tags"),
        (|e| e.tags.push(TagEntry { values: vec!["t".into(); MAX_TAG_STRINGS + 1] }), "strings in a tag"),
    ];
    for (tamper, expected) in cases {
        let mut request = request_for(&event);
        tamper(request.event.as_mut().expect("event"));
        let err = event_of(request).expect_err(expected).to_string();
        assert!(err.contains(expected), "{err:?} should say {expected:?}");
    }
    let err = event_of(EventRequest::default()).expect_err("no event");
    assert_eq!(err.reason(), "not_event");
}

#[test]
fn decisions_map_to_permit_and_deny_with_the_relay_s_prefix_left_to_it() {
    let accepted = reply(&Decision::accept());
    assert_eq!((accepted.decision(), accepted.message), (proto::Decision::Permit, None));

    let rejected = reply(&Decision::reject("blocked: x_mismatch"));
    assert_eq!(rejected.decision(), proto::Decision::Deny);
    assert_eq!(rejected.message.as_deref(), Some("x_mismatch"));

    let flood = Decision { action: Action::ShadowReject, msg: "blocked: near_duplicate_flood".into() };
    let shadow = reply(&flood);
    assert_eq!(shadow.decision(), proto::Decision::Deny, "nostr-rs-relay has no shadow reject");
    assert_eq!(shadow.message.as_deref(), Some("near_duplicate_flood"));

    let invalid = reply(&Decision::reject("invalid: `id` is not 32 bytes"));
    assert_eq!(invalid.message.as_deref(), Some("invalid: `id` is not 32 bytes"));

    let long = reply(&Decision::reject(format!("blocked: {}", "é".repeat(MAX_MESSAGE_BYTES))));
    let message = long.message.expect("a message");
    assert!(message.len() <= MAX_MESSAGE_BYTES && message.starts_with('é'), "{}", message.len());
}
