//! The NIP-46 client against testkit's `TestBunker` over the embedded relay
//! on 127.0.0.1: honest signing, the one-time secret and resumed sessions,
//! auth challenges, and a bunker that refuses, lies, speaks NIP-04 or stays
//! silent, each refused with its named error within the time limit.

use crate::common::InProcessRelay;
use priorart_nip::nip46::{EventField, SignedEventError};
use priorart_relay::nostr::nips::nip46::NostrConnectMethod;
use priorart_relay::nostr::prelude::{
    EventBuilder, FinalizeUnsignedEvent, Keys, Kind, Tag, Timestamp, UnsignedEvent,
};
use priorart_relay::{Bunker, BunkerError, BunkerOptions, ConnectError, SubscribeError};
use priorart_testkit::{Behaviour, ScriptedRelay, TestBunker};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(5);

fn options() -> BunkerOptions {
    BunkerOptions::new(TIMEOUT)
}

/// A kind 1042-shaped event for `bunker`'s user.
fn attestation(bunker: &Bunker) -> UnsignedEvent {
    EventBuilder::new(Kind::from_u16(1042), "")
        .tag(Tag::parse(["X", &"ab".repeat(32), "minhash-equality-v1"]).unwrap())
        .custom_created_at(Timestamp::from_secs(1_750_000_000))
        .finalize_unsigned(bunker.public_key())
}

fn relay() -> (tempfile::TempDir, InProcessRelay) {
    let dir = tempfile::tempdir().unwrap();
    let relay = InProcessRelay::start(dir.path());
    (dir, relay)
}

#[test]
fn an_honest_bunker_signs_for_its_user_and_its_secret_serves_once() {
    let (_dir, relay) = relay();
    let signer = TestBunker::start(&relay.url(), Behaviour::Honest);
    let client = Keys::generate();
    let bunker = Bunker::connect(&signer.uri(), client.clone(), options()).expect("connects");
    assert_eq!(bunker.public_key(), signer.user_public_key());
    assert_eq!(bunker.remote_signer(), signer.signer_public_key());
    assert_ne!(bunker.public_key(), bunker.remote_signer());

    let unsigned = attestation(&bunker);
    let event = bunker.sign_event(unsigned.clone()).expect("signed");
    event.verify().expect("id and signature verify");
    assert_eq!(
        (event.pubkey, event.kind, &event.tags, event.created_at),
        (signer.user_public_key(), unsigned.kind, &unsigned.tags, unsigned.created_at)
    );
    assert_eq!(signer.requests(), ["connect", "get_public_key", "sign_event"]);
    drop(bunker);

    // The secret is spent: a new client with the same URI is refused, by name.
    let again = Bunker::connect(&signer.uri(), Keys::generate(), options()).unwrap_err();
    assert!(
        matches!(&again, BunkerError::Rejected { method: NostrConnectMethod::Connect, message }
            if message == "this secret was already used"),
        "{again}"
    );
    // The accepted client resumes without `connect`.
    let resumed = Bunker::resume(&signer.uri(), client, options()).expect("resumes");
    resumed.sign_event(attestation(&resumed)).expect("signed again");
    assert_eq!(signer.requests()[4..], ["get_public_key", "sign_event"]);

    // A wrong secret, and a stranger resuming, are refused with the signer's words.
    let wrong = Bunker::connect(&signer.uri_with_secret("guess"), Keys::generate(), options()).unwrap_err();
    assert!(
        matches!(&wrong, BunkerError::Rejected { method: NostrConnectMethod::Connect, message }
            if message == "invalid secret"),
        "{wrong}"
    );
    let stranger = Bunker::resume(&signer.uri(), Keys::generate(), options()).unwrap_err();
    assert!(
        matches!(stranger, BunkerError::Rejected { method: NostrConnectMethod::GetPublicKey, .. }),
        "{stranger}"
    );
}

fn sign_with(behaviour: Behaviour) -> Result<(), BunkerError> {
    let (_dir, relay) = relay();
    let signer = TestBunker::start(&relay.url(), behaviour);
    let bunker = Bunker::connect(&signer.uri(), Keys::generate(), options())?;
    bunker.sign_event(attestation(&bunker)).map(|_| ())
}

#[test]
fn a_lying_or_refusing_bunker_is_refused_by_name() {
    let refused = |result| match result {
        Err(BunkerError::SignedEvent(why)) => why,
        other => panic!("not a refused signed event: {other:?}"),
    };
    assert!(matches!(
        refused(sign_with(Behaviour::SignOther)),
        SignedEventError::DifferentEvent(EventField::Content)
    ));
    assert!(matches!(refused(sign_with(Behaviour::BadSignature)), SignedEventError::BadSignature));
    assert!(matches!(refused(sign_with(Behaviour::OtherKey)), SignedEventError::WrongPublicKey { .. }));
    let error = sign_with(Behaviour::Refuse("kind 1042 not allowed".into())).unwrap_err();
    assert!(
        matches!(&error, BunkerError::Rejected { method: NostrConnectMethod::SignEvent, message }
            if message == "kind 1042 not allowed"),
        "{error}"
    );
    let error = sign_with(Behaviour::Nip04).unwrap_err();
    assert!(matches!(error, BunkerError::Nip04Response { method: NostrConnectMethod::Connect }), "{error}");
}

#[test]
fn an_auth_challenge_is_shown_and_the_answer_awaited() {
    let (_dir, relay) = relay();
    let signer =
        TestBunker::start(&relay.url(), Behaviour::AuthUrl("https://bunker.example/approve/1".into()));
    let shown = Arc::new(Mutex::new(Vec::new()));
    let seen = shown.clone();
    let options = BunkerOptions {
        timeout: TIMEOUT,
        on_auth_url: Arc::new(move |url: &str| seen.lock().unwrap().push(url.to_owned())),
    };
    let bunker = Bunker::connect(&signer.uri(), Keys::generate(), options).unwrap();
    bunker.sign_event(attestation(&bunker)).expect("signed after the challenge");
    assert_eq!(*shown.lock().unwrap(), ["https://bunker.example/approve/1"]);
}

#[test]
fn a_silent_bunker_or_relay_times_out_within_the_limit() {
    let (_dir, relay) = relay();
    let signer = TestBunker::start(&relay.url(), Behaviour::Silent);
    let limit = Duration::from_millis(1500);
    let started = Instant::now();
    let error = Bunker::connect(&signer.uri(), Keys::generate(), BunkerOptions::new(limit)).unwrap_err();
    assert!(
        matches!(error, BunkerError::Timeout { method: NostrConnectMethod::Connect, after } if after == limit),
        "{error}"
    );
    assert!(started.elapsed() < limit + Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(signer.requests(), ["connect"]);

    // A relay that accepts TCP and says nothing: unreachable, named, in time.
    let silent_relay = ScriptedRelay::silent();
    let uri =
        format!("bunker://{}?relay={}&secret=x", Keys::generate().public_key().to_hex(), silent_relay.url());
    let started = Instant::now();
    let error = Bunker::connect(&uri, Keys::generate(), BunkerOptions::new(limit)).unwrap_err();
    assert!(
        matches!(&error, BunkerError::Unreachable(relays)
            if matches!(relays[..], [(_, SubscribeError::Connect(ConnectError::Timeout(_)))])),
        "{error}"
    );
    assert!(started.elapsed() < limit + Duration::from_secs(2), "{:?}", started.elapsed());
}

#[test]
fn events_too_large_for_nip44_are_refused_before_sending() {
    let (_dir, relay) = relay();
    let signer = TestBunker::start(&relay.url(), Behaviour::Honest);
    let bunker = Bunker::connect(&signer.uri(), Keys::generate(), options()).unwrap();
    let huge =
        EventBuilder::new(Kind::TextNote, "word ".repeat(20_000)).finalize_unsigned(bunker.public_key());
    assert!(matches!(bunker.sign_event(huge), Err(BunkerError::RequestTooLarge(_))));
    let stranger = EventBuilder::new(Kind::TextNote, "hi").finalize_unsigned(Keys::generate().public_key());
    assert!(matches!(bunker.sign_event(stranger), Err(BunkerError::NotTheUser { .. })));
    assert_eq!(signer.requests(), ["connect", "get_public_key"]);
}

#[test]
fn a_relay_that_goes_away_ends_the_wait_at_once() {
    let (_dir, relay) = relay();
    let signer = TestBunker::start(&relay.url(), Behaviour::Honest);
    let bunker = Bunker::connect(&signer.uri(), Keys::generate(), options()).unwrap();
    relay.stop();
    let started = Instant::now();
    let error = bunker.sign_event(attestation(&bunker)).unwrap_err();
    assert!(matches!(error, BunkerError::Disconnected { method: NostrConnectMethod::SignEvent }), "{error}");
    assert!(started.elapsed() < TIMEOUT, "{:?}", started.elapsed());
}

#[test]
fn an_unreachable_relay_is_named_with_its_cause() {
    let closed_port = priorart_testkit::free_port();
    let signer = Keys::generate().public_key().to_hex();
    let uri = format!("bunker://{signer}?relay=ws://127.0.0.1:{closed_port}&secret=x");
    let error = Bunker::connect(&uri, Keys::generate(), options()).unwrap_err();
    let BunkerError::Unreachable(relays) = &error else { panic!("not unreachable: {error}") };
    assert!(matches!(relays[..], [(_, SubscribeError::Connect(ConnectError::Failed(_)))]), "{error}");
    assert!(std::error::Error::source(&relays[0].1).is_some(), "the connection's cause is kept");
    assert!(
        error.to_string().contains(&format!("127.0.0.1:{closed_port}: cannot connect: IO error")),
        "{error}"
    );
}
