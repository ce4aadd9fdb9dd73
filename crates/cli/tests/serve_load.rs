//! Load on `priorart serve`: many attestations from concurrent clients on
//! loopback, one calendar that hangs (the other answers), the relay down
//! until every 1041 is built, the service killed with SIGKILL while it
//! publishes and restarted. All accepted, batched into a handful of
//! calendar requests, anchored after one regtest block, published once
//! each: none lost, none duplicated.
//!
//! `PRIORART_LOAD_JOBS` sets the count (default 1,000 so that CI stays
//! quick; BENCHMARKS.md has the 10,000 run), `PRIORART_LOAD_RELAY_UP=1`
//! keeps the relay up from the start (the benchmark of block → published).

use crate::relay_common;
use crate::serve_common;

use priorart_nip::Attestation;
use priorart_nip::nostr::prelude::{Filter, Keys, Kind, SingleLetterTag, Timestamp};
use priorart_nip_testkit::{RegtestWorld, priorart_binary};
use priorart_testkit::{Behavior, free_port};
use relay_common::RelayProcess;
use serde_json::{Value, json};
use serve_common::{ServeProcess, client, get, post};
use std::collections::HashSet;
use std::process::Command;
use std::time::{Duration, Instant};

const CLIENTS: usize = 16;

/// A text of its own for document `n`: twenty made-up words, so that
/// every document has another X.
fn document(n: usize) -> String {
    let mut rng = fastrand::Rng::with_seed(n as u64);
    let words: Vec<String> = (0..20)
        .map(|_| (0..rng.usize(4..10)).map(|_| rng.alphabetic().to_ascii_lowercase()).collect())
        .collect();
    words.join(" ")
}

fn jobs_in(agent: &ureq::Agent, serve: &ServeProcess, state: &str) -> u64 {
    let (_, metrics) = get(agent, &format!("{}/metrics", serve.url));
    let prefix = format!("priorart_jobs{{state=\"{state}\"}} ");
    metrics.as_str().unwrap().lines().find_map(|line| line.strip_prefix(&prefix)?.parse().ok()).unwrap()
}

fn wait_for(
    agent: &ureq::Agent,
    serve: &ServeProcess,
    state: &str,
    count: u64,
    within: Duration,
) -> Duration {
    let start = Instant::now();
    while jobs_in(agent, serve, state) < count {
        assert!(
            start.elapsed() < within,
            "{state}: {} of {count} after {within:?}",
            jobs_in(agent, serve, state)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    start.elapsed()
}

#[test]
fn thousands_of_attestations_are_batched_anchored_and_published_once() {
    let count: usize = std::env::var("PRIORART_LOAD_JOBS").ok().and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let relay_up = std::env::var("PRIORART_LOAD_RELAY_UP").is_ok_and(|v| v == "1");
    let regtest = RegtestWorld::new();
    let calendar = &regtest.calendar;
    let hanging = regtest.calendar_that(Behavior::Hang(Duration::from_secs(5)));
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let relay_url = format!("ws://127.0.0.1:{port}");
    let start_relay = || {
        let mut command = Command::new(priorart_binary());
        command
            .args(["relay", "--listen", &format!("127.0.0.1:{port}"), "--db"])
            .arg(dir.path().join("relay"));
        RelayProcess::spawn(command, port)
    };
    let mut relay = relay_up.then(start_relay);
    let (calendar_url, hanging_url) = (calendar.url(), hanging.url());
    let args = [
        "--relay",
        &relay_url,
        "--calendar",
        &calendar_url,
        "--calendar",
        &hanging_url,
        "-m",
        "1",
        "--timeout",
        "1",
        "--interval",
        "1",
        "--relay-timeout",
        "60",
        "--rate-limit",
        "1000000",
    ];
    let headers = regtest.header_args();
    let args: Vec<&str> = args.into_iter().chain(headers.iter().map(String::as_str)).collect();
    let mut serve = ServeProcess::start(&dir.path().join("state"), &args, None);

    // Each client signs its share first (authors' work, not the service's).
    let submissions: Vec<Vec<Value>> = std::thread::scope(|scope| {
        let signers: Vec<_> = (0..CLIENTS)
            .map(|client| {
                scope.spawn(move || {
                    let keys = Keys::generate();
                    (client..count)
                        .step_by(CLIENTS)
                        .map(|n| {
                            let text = document(n);
                            let x = priorart_fingerprint::minhash_equality_v1(&text);
                            let attestation =
                                Attestation::sign(&keys, x, Some(30023), Timestamp::now()).unwrap();
                            json!({
                                "attestation": serde_json::from_str::<Value>(&attestation.to_json()).unwrap(),
                                "a": format!("30023:{}:doc-{n}", keys.public_key().to_hex()),
                            })
                        })
                        .collect()
                })
            })
            .collect();
        signers.into_iter().map(|signer| signer.join().unwrap()).collect()
    });

    let started = Instant::now();
    let ids: Vec<String> = std::thread::scope(|scope| {
        let senders: Vec<_> = submissions
            .iter()
            .map(|share| {
                let url = format!("{}/v1/attestations", serve.url);
                scope.spawn(move || {
                    let agent = client();
                    share
                        .iter()
                        .map(|submission| {
                            let (status, answer) =
                                post(&agent, &url, submission.to_string().as_bytes()).unwrap();
                            assert_eq!(status, 202, "{answer}");
                            answer["id"].as_str().unwrap().to_owned()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        senders.into_iter().flat_map(|sender| sender.join().unwrap()).collect()
    });
    let accepting = started.elapsed();
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), count, "every attestation its own job");
    eprintln!(
        "accepted {count} attestations from {CLIENTS} clients in {:.2} s: {:.0} per second",
        accepting.as_secs_f64(),
        count as f64 / accepting.as_secs_f64()
    );

    let agent = client();
    wait_for(&agent, &serve, "stamped", count as u64, Duration::from_secs(120));
    let posts = calendar.submissions();
    let rounds_bound = accepting.as_secs() as usize + 3;
    assert!(posts <= rounds_bound, "{posts} calendar requests for {count} attestations: one per round");
    eprintln!(
        "{count} attestations stamped in {posts} calendar request(s); the hanging calendar failed alone"
    );

    calendar.mine_block().unwrap();
    let mined = Instant::now();
    if relay.is_none() {
        let built = wait_for(&agent, &serve, "built", count as u64, Duration::from_secs(300));
        eprintln!("block → all {count} 1041s built and stored (relay down): {:.2} s", built.as_secs_f64());
        assert_eq!(jobs_in(&agent, &serve, "published"), 0);
        relay = Some(start_relay());
        let up = Instant::now();
        // kill -9 in the middle of publishing (once the first is out), then
        // a restart on the same state.
        wait_for(&agent, &serve, "published", 1, Duration::from_secs(300));
        let before_kill = jobs_in(&agent, &serve, "published");
        drop(serve);
        serve = ServeProcess::start(&dir.path().join("state"), &args, None);
        wait_for(&agent, &serve, "published", count as u64, Duration::from_secs(300));
        eprintln!(
            "relay up → all {count} published: {:.2} s (killed with SIGKILL and restarted after {before_kill})",
            up.elapsed().as_secs_f64()
        );
    } else {
        wait_for(&agent, &serve, "published", count as u64, Duration::from_secs(300));
        eprintln!("block → all {count} 1041s published: {:.2} s", mined.elapsed().as_secs_f64());
    }

    // Each attestation's one 1041 is on the relay, and nothing else.
    let relay = relay.unwrap();
    let (_, metrics) = get(&agent, &format!("{}/metrics", serve.url));
    assert!(metrics.as_str().unwrap().contains(&format!("priorart_jobs{{state=\"published\"}} {count}")));
    let url = priorart_relay::parse_relay_url(&relay.url).unwrap();
    let mut found = HashSet::new();
    for chunk in ids.chunks(2_000) {
        let filter = Filter::new().kind(Kind::from_u16(1041)).ids(chunk.iter().filter_map(|id| {
            // The ids asked for are the 1041s': read from the service.
            let (_, job) = get(&agent, &format!("{}/v1/attestations/{id}", serve.url));
            job["proof_event"]["id"]
                .as_str()
                .and_then(|id| priorart_nip::nostr::prelude::EventId::from_hex(id).ok())
        }));
        let answers = priorart_relay::query(
            std::slice::from_ref(&url),
            &filter,
            &priorart_relay::QueryLimits { max_events: 5_000, ..Default::default() },
        )
        .unwrap();
        for event in &answers[0].events {
            assert!(found.insert(event.id), "each event once");
        }
    }
    assert_eq!(found.len(), count, "every 1041 on the relay");
    let every_1041 = Filter::new().kind(Kind::from_u16(1041)).custom_tags(
        SingleLetterTag::UPPERCASE_X,
        ids.iter().take(500).map(|id| {
            let (_, job) = get(&agent, &format!("{}/v1/attestations/{id}", serve.url));
            job["x"].as_str().unwrap().to_owned()
        }),
    );
    let answers =
        priorart_relay::query(&[url], &every_1041, &priorart_relay::QueryLimits::default()).unwrap();
    assert_eq!(answers[0].events.len(), 500.min(count), "no second 1041 for any of these X");
}
