//! The service on 127.0.0.1, asked by the client generated from the same
//! proto, as nostr-rs-relay asks it.

use crate::conversion::signed_note;
use priorart_policy::{Decision, Policy};
use priorart_policy_grpc::proto::authorization_client::AuthorizationClient;
use priorart_policy_grpc::proto::{self, EventReply, EventRequest};
use priorart_policy_grpc::{Admission, request_for, serve};
use std::time::Duration;
use tokio::sync::oneshot;
use tonic::transport::Channel;

const TEXT: &str = "The quick brown fox jumps over the lazy dog near the riverbank, \
    then naps under the willow while the farmer counts his sheep twice.";

/// A served `admission` and a client connected to it; the server stops
/// when the returned sender is dropped.
async fn served(admission: Admission) -> (AuthorizationClient<Channel>, oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve(listener, admission, async {
        let _ = stopped.await;
    }));
    let client = AuthorizationClient::connect(url).await.expect("connects");
    (client, stop)
}

async fn ask(client: &mut AuthorizationClient<Channel>, request: EventRequest) -> EventReply {
    let answer = tokio::time::timeout(Duration::from_secs(20), client.event_admit(request));
    answer.await.expect("an answer in time").expect("a reply, not an error").into_inner()
}

fn policy_admission(toml: &str) -> Admission {
    let mut policy = Policy::from_toml(toml).expect("policy");
    Admission::new(move |event| policy.decide(event, 1_700_000_000))
}

#[tokio::test]
async fn notes_pass_lying_x_tags_and_malformed_events_are_denied_with_their_reason() {
    let (mut client, _stop) = served(policy_admission("[proofs]\nverify = false\n")).await;
    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();

    let honest =
        ask(&mut client, request_for(&signed_note(TEXT, &[&["X", &x, "minhash-equality-v1"]]))).await;
    assert_eq!((honest.decision(), honest.message), (proto::Decision::Permit, None));

    let liar = signed_note("Another text entirely", &[&["X", &x, "minhash-equality-v1"]]);
    let denied = ask(&mut client, request_for(&liar)).await;
    assert_eq!(denied.decision(), proto::Decision::Deny);
    assert_eq!(denied.message.as_deref(), Some("x_mismatch"));

    let mut malformed = request_for(&liar);
    malformed.event.as_mut().expect("event").kind = u64::MAX;
    let denied = ask(&mut client, malformed).await;
    assert_eq!(denied.decision(), proto::Decision::Deny);
    assert_eq!(denied.message.as_deref(), Some("invalid: `kind` is not an integer from 0 to 65535"));

    let denied = ask(&mut client, EventRequest::default()).await;
    assert_eq!(denied.message.as_deref(), Some("invalid: not a nostr event: the request has no event"));
}

#[tokio::test]
async fn concurrent_requests_each_get_their_own_decision() {
    // The same text from 32 keys would be a flood.
    let (client, _stop) =
        served(policy_admission("[proofs]\nverify = false\n[flood]\nenabled = false\n")).await;
    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    let asks = (0..64).map(|n| {
        let mut client = client.clone();
        let text = if n % 2 == 0 { TEXT.to_owned() } else { format!("Not the text {n}") };
        let event = signed_note(&text, &[&["X", &x, "minhash-equality-v1"]]);
        tokio::spawn(async move { (n, ask(&mut client, request_for(&event)).await) })
    });
    for answer in asks {
        let (n, reply) = answer.await.expect("joins");
        let expected = if n % 2 == 0 { proto::Decision::Permit } else { proto::Decision::Deny };
        assert_eq!(reply.decision(), expected, "request {n}");
    }
}

#[tokio::test]
async fn a_policy_that_panics_denies_that_event_and_the_service_goes_on() {
    let admission = Admission::new(|event| {
        assert!(event.content != "boom", "a policy bug");
        Decision::accept()
    });
    let (mut client, _stop) = served(admission).await;
    let failed = ask(&mut client, request_for(&signed_note("boom", &[]))).await;
    assert_eq!(failed.decision(), proto::Decision::Deny);
    assert_eq!(failed.message.as_deref(), Some("error: the policy failed on this event"));
    let next = ask(&mut client, request_for(&signed_note("fine", &[]))).await;
    assert_eq!(next.decision(), proto::Decision::Permit);
}

#[tokio::test]
async fn requests_past_the_queue_are_denied_at_once_not_held() {
    // The decision thread is stuck on the first event until released.
    let (release, held) = std::sync::mpsc::channel::<()>();
    let held = std::sync::Mutex::new(held);
    let admission = Admission::with_queue(
        move |_| {
            let _ = held.lock().unwrap().recv_timeout(Duration::from_secs(20));
            Decision::accept()
        },
        4,
    );
    let (client, _stop) = served(admission).await;
    let event = signed_note(TEXT, &[]);
    let asks: Vec<_> = (0..12)
        .map(|n| {
            let mut client = client.clone();
            let request = request_for(&event);
            tokio::spawn(async move {
                // The first is taken by the decision thread before the rest come.
                if n > 0 {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                ask(&mut client, request).await
            })
        })
        .collect();
    // One being decided and 4 waiting; the other 7 are answered now.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let finished: Vec<_> = asks.iter().filter(|ask| ask.is_finished()).collect();
    assert_eq!(finished.len(), 7);
    for _ in 0..12 {
        let _ = release.send(());
    }
    let mut busy = 0;
    for ask in asks {
        let reply = ask.await.expect("joins");
        if reply.decision() == proto::Decision::Deny {
            assert_eq!(
                reply.message.as_deref(),
                Some("rate-limited: too many events are waiting for the write policy")
            );
            busy += 1;
        }
    }
    assert_eq!(busy, 7);
}
