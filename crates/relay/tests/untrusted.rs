//! Relays that lie, flood, hang or are down: the query completes within its
//! time limit, keeps only verified matching events, and names every problem.

use crate::common::{InProcessRelay, discovery, x_event, x_value};
use priorart_relay::nostr::prelude::{Event, Keys, RelayUrl};
use priorart_relay::{Acceptance, Ending, QueryLimits, RelayAnswer, SkipReason};
use priorart_testkit::{Frame, ScriptedRelay};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn url(text: &str) -> RelayUrl {
    priorart_relay::parse_relay_url(text).unwrap()
}

fn event_frame(subscription: &Value, event: &Event) -> Frame {
    Frame::Text(json!(["EVENT", subscription, event]).to_string())
}

fn skipped(answer: &RelayAnswer, reason: SkipReason) -> usize {
    answer.skipped.iter().find(|s| s.reason == reason).map_or(0, |s| s.count)
}

/// A relay that is down: nothing listens on its port.
fn down_relay() -> String {
    format!("ws://127.0.0.1:{}", priorart_testkit::free_port())
}

#[test]
fn every_way_of_lying_is_named_and_nothing_stalls() {
    let keys = Keys::generate();
    let x = x_value(0xab);
    let good = x_event(&keys, 1, &x, "the one honest event");
    let mut bad_id: Value = serde_json::to_value(&good).unwrap();
    bad_id["content"] = json!("edited after signing");
    let other = x_event(&keys, 1, &x, "another event");
    let mut bad_signature: Value = serde_json::to_value(&other).unwrap();
    bad_signature["sig"] = serde_json::to_value(&good).unwrap()["sig"].clone();
    let wrong_kind = x_event(&keys, 7, &x, "+");
    let wrong_x = x_event(&keys, 1, &x_value(0xcd), "about something else");
    let oversized = x_event(&keys, 1, &x, &"padding ".repeat(2_000));

    let good_id = good.id;
    let lying = ScriptedRelay::start(move |message| {
        if message[0] != "REQ" {
            return Vec::new();
        }
        let sub = &message[1];
        vec![
            Frame::Text("not json {".into()),
            Frame::Text(r#"["HELLO", "world"]"#.into()),
            Frame::Text(json!(["EVENT", sub, {"id": 1}]).to_string()),
            event_frame(sub, &good),
            event_frame(sub, &good),
            Frame::Text(json!(["EVENT", sub, bad_id]).to_string()),
            Frame::Text(json!(["EVENT", sub, bad_signature]).to_string()),
            event_frame(sub, &wrong_kind),
            event_frame(sub, &wrong_x),
            event_frame(sub, &oversized),
            event_frame(&json!("someone-else"), &good),
            Frame::Binary(vec![0, 1, 2]),
            Frame::Text(r#"["NOTICE", "I am a lying relay"]"#.into()),
            Frame::Hang,
        ]
    });
    let hanging = ScriptedRelay::start(|_| vec![Frame::Hang]);
    let silent = ScriptedRelay::silent();
    let down = down_relay();

    let relays = [url(&lying.url()), url(&hanging.url()), url(&silent.url()), url(&down)];
    let limits = QueryLimits {
        timeout: Duration::from_millis(1500),
        max_message_bytes: 8 * 1024,
        ..QueryLimits::default()
    };
    let started = Instant::now();
    let answers = priorart_relay::query(&relays, &discovery(&x), &limits).unwrap();
    assert!(started.elapsed() < Duration::from_secs(4), "took {:?}", started.elapsed());

    let lying = &answers[0];
    assert_eq!(lying.events.iter().map(|e| e.id).collect::<Vec<_>>(), vec![good_id]);
    assert_eq!(lying.ending, Ending::Timeout, "it never sends EOSE");
    assert!(lying.answered);
    for (reason, count) in [
        (SkipReason::NotJson, 1),
        (SkipReason::NotRelayMessage, 1),
        (SkipReason::MalformedEvent, 1),
        (SkipReason::Duplicate, 1),
        (SkipReason::BadId, 1),
        (SkipReason::BadSignature, 1),
        (SkipReason::NotMatchingFilter, 2),
        (SkipReason::TooLarge, 1),
        (SkipReason::OtherSubscription, 1),
        (SkipReason::Unexpected, 1),
    ] {
        assert_eq!(skipped(lying, reason), count, "{reason:?} in {:?}", lying.skipped);
    }
    assert_eq!(lying.notices, vec!["I am a lying relay"]);

    let hanging = &answers[1];
    assert_eq!((hanging.ending.clone(), hanging.answered), (Ending::Timeout, false));
    assert!(matches!(answers[2].ending, Ending::Unreachable { .. }), "{:?}", answers[2].ending);
    assert!(!answers[2].answered);
    assert!(matches!(answers[3].ending, Ending::Unreachable { .. }), "{:?}", answers[3].ending);
}

#[test]
fn a_flood_is_cut_off_at_the_event_limit_and_closed_subscriptions_are_reported() {
    let keys = Keys::generate();
    let x = x_value(0x11);
    let flood: Vec<Event> = (0..40).map(|i| x_event(&keys, 1, &x, &format!("copy {i}"))).collect();
    let flooding = ScriptedRelay::start(move |message| {
        if message[0] != "REQ" {
            return Vec::new();
        }
        let mut frames: Vec<Frame> = flood.iter().map(|event| event_frame(&message[1], event)).collect();
        frames.push(Frame::Text(json!(["EOSE", message[1]]).to_string()));
        frames
    });
    let closing = ScriptedRelay::start(|message| {
        vec![Frame::Text(json!(["CLOSED", message[1], "auth-required: members only"]).to_string())]
    });
    let dropping = ScriptedRelay::start(|_| vec![Frame::Close]);
    let limits = QueryLimits { max_events: 25, ..QueryLimits::default() };
    let relays = [url(&flooding.url()), url(&closing.url()), url(&dropping.url())];
    let answers = priorart_relay::query(&relays, &discovery(&x), &limits).unwrap();
    assert_eq!(answers[0].ending, Ending::EventLimit { limit: 25 });
    assert_eq!(answers[0].events.len(), 25);
    assert_eq!(answers[1].ending, Ending::Closed { message: "auth-required: members only".into() });
    assert!(answers[1].answered);
    assert!(matches!(answers[2].ending, Ending::Disconnected { .. }), "{:?}", answers[2].ending);

    let tight = QueryLimits { max_bytes: 2_000, ..QueryLimits::default() };
    let answers = priorart_relay::query(&relays[..1], &discovery(&x), &tight).unwrap();
    assert_eq!(answers[0].ending, Ending::ByteLimit { limit: 2_000 });
}

#[test]
fn events_are_merged_across_relays_with_who_had_them() {
    let dir = tempfile::tempdir().unwrap();
    let honest = InProcessRelay::start(dir.path());
    let keys = Keys::generate();
    let x = x_value(0x42);
    let shared = x_event(&keys, 1, &x, "on both relays");
    let only_scripted = x_event(&keys, 30023, &x, "only on the scripted one");
    let (a, b) = (shared.clone(), only_scripted.clone());
    let scripted = ScriptedRelay::start(move |message| {
        if message[0] != "REQ" {
            return Vec::new();
        }
        let sub = &message[1];
        vec![event_frame(sub, &a), event_frame(sub, &b), Frame::Text(json!(["EOSE", sub]).to_string())]
    });
    let relays = [url(&honest.url()), url(&scripted.url())];
    let published =
        priorart_relay::publish(&relays[..1], std::slice::from_ref(&shared), Duration::from_secs(5)).unwrap();
    assert_eq!(published[0].acceptances, vec![Acceptance::Accepted { message: String::new() }]);

    let answers = priorart_relay::query(&relays, &discovery(&x), &QueryLimits::default()).unwrap();
    assert!(answers.iter().all(|a| a.ending == Ending::Eose), "{answers:?}");
    let merged = priorart_relay::merge(&answers);
    let holders = |id| merged.iter().find(|f| f.event.id == id).map(|f| f.relays.clone());
    assert_eq!(merged.len(), 2);
    assert_eq!(holders(shared.id), Some(vec![0, 1]));
    assert_eq!(holders(only_scripted.id), Some(vec![1]));
    honest.stop();
}

#[test]
fn publish_reports_each_relays_answer_per_event() {
    let keys = Keys::generate();
    let events = [x_event(&keys, 1, &x_value(1), "first"), x_event(&keys, 1, &x_value(2), "second")];
    let second = events[1].id.to_hex();
    let picky = ScriptedRelay::start(move |message| {
        let id = message[1]["id"].as_str().unwrap_or_default().to_owned();
        if id == second {
            vec![Frame::Text(json!(["OK", id, false, "blocked: not on my list"]).to_string())]
        } else {
            vec![Frame::Text(json!(["OK", id, true, "duplicate: have it"]).to_string())]
        }
    });
    let mute = ScriptedRelay::start(|_| vec![Frame::Hang]);
    let down = down_relay();
    // Takes the connection, never answers the handshake: as silent as `mute`.
    let silent = ScriptedRelay::silent();
    let relays = [url(&picky.url()), url(&mute.url()), url(&down), url(&silent.url())];
    let started = Instant::now();
    let answers = priorart_relay::publish(&relays, &events, Duration::from_secs(1)).unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(
        answers[0].acceptances,
        vec![
            Acceptance::Duplicate { message: "duplicate: have it".into() },
            Acceptance::Rejected { message: "blocked: not on my list".into() }
        ]
    );
    assert_eq!(answers[1].acceptances, vec![Acceptance::NoAnswer, Acceptance::NoAnswer]);
    assert!(matches!(answers[2].acceptances[0], Acceptance::NotSent { .. }));
    assert_eq!(answers[3].acceptances, vec![Acceptance::NoAnswer, Acceptance::NoAnswer]);
}

#[test]
fn a_signature_verified_for_one_relay_vouches_for_no_other_copy() {
    let keys = Keys::generate();
    let x = x_value(0x17);
    let good = x_event(&keys, 1, &x, "sent by both relays");
    let other = x_event(&keys, 1, &x, "signed separately");
    // The good event's id (valid: its fields are unchanged) with another signature.
    let mut wrong_signature: Value = serde_json::to_value(&good).unwrap();
    wrong_signature["sig"] = serde_json::to_value(&other).unwrap()["sig"].clone();
    let relay = |frames: Vec<Value>| {
        ScriptedRelay::start(move |message| {
            if message[0] != "REQ" {
                return Vec::new();
            }
            let sub = &message[1];
            let mut answer: Vec<Frame> =
                frames.iter().map(|event| Frame::Text(json!(["EVENT", sub, event]).to_string())).collect();
            answer.push(Frame::Text(json!(["EOSE", sub]).to_string()));
            answer
        })
    };
    let good_json = serde_json::to_value(&good).unwrap();
    let first = relay(vec![good_json.clone(), wrong_signature.clone()]);
    let second = relay(vec![wrong_signature, good_json]);
    let relays = [url(&first.url()), url(&second.url())];
    let answers = priorart_relay::query(&relays, &discovery(&x), &QueryLimits::default()).unwrap();
    for answer in &answers {
        assert_eq!(answer.events.iter().map(|event| event.id).collect::<Vec<_>>(), [good.id], "{answer:?}");
    }
    // After the genuine copy, another with its id is a duplicate; before
    // it, a bad signature, whatever the other relay's copy verified.
    assert_eq!(skipped(&answers[0], SkipReason::Duplicate), 1, "{:?}", answers[0]);
    assert_eq!(skipped(&answers[1], SkipReason::BadSignature), 1, "{:?}", answers[1]);
}
