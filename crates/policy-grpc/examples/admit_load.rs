//! Load for `priorart policy grpc` (scripts/bench/policy.py runs it): sends
//! every event of a JSONL file as nostr-rs-relay's `EventAdmit` request and
//! prints one JSON object: events per second, latency percentiles and the
//! decisions.
//!
//! `cargo run --release -p priorart-policy-grpc --example admit_load -- ADDRESS EVENTS.jsonl IN_FLIGHT`
//!
//! With IN_FLIGHT 1 it asks as nostr-rs-relay does (one event, wait for
//! the answer, the next); more keeps that many requests outstanding on one
//! HTTP/2 connection, the service's own rate.

use priorart_nip::nostr::prelude::Event;
use priorart_policy_grpc::proto::authorization_client::AuthorizationClient;
use priorart_policy_grpc::proto::{self, EventRequest};
use priorart_policy_grpc::request_for;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

type Outcome = (Duration, proto::Decision);

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, address, events, in_flight] = args.as_slice() else {
        return Err("usage: admit_load ADDRESS EVENTS.jsonl IN_FLIGHT".into());
    };
    let requests: Vec<EventRequest> = std::fs::read_to_string(events)?
        .lines()
        .map(|line| priorart_nip::parse_event(line, 1 << 20).map(|event: Event| request_for(&event)))
        .collect::<Result<_, _>>()?;
    if requests.is_empty() {
        return Err(format!("{events}: no events").into());
    }
    let in_flight: usize = in_flight.parse()?;
    let client = AuthorizationClient::connect(format!("http://{address}")).await?;
    let requests = Arc::new(requests);
    let started = Instant::now();
    let workers = (0..in_flight).map(|worker| {
        let (mut client, requests) = (client.clone(), Arc::clone(&requests));
        tokio::spawn(async move {
            let mut outcomes: Vec<Outcome> = Vec::new();
            for request in requests.iter().skip(worker).step_by(in_flight) {
                let sent = Instant::now();
                let reply = client.event_admit(request.clone()).await?.into_inner();
                outcomes.push((sent.elapsed(), reply.decision()));
            }
            Ok::<_, tonic::Status>(outcomes)
        })
    });
    let mut outcomes = Vec::new();
    for worker in workers.collect::<Vec<_>>() {
        outcomes.extend(worker.await??);
    }
    let elapsed = started.elapsed();
    println!("{}", summary(&mut outcomes, elapsed, in_flight));
    Ok(())
}

fn summary(outcomes: &mut [Outcome], elapsed: Duration, in_flight: usize) -> serde_json::Value {
    outcomes.sort_unstable_by_key(|(latency, _)| *latency);
    let micros = |at: usize| (outcomes[at.min(outcomes.len() - 1)].0.as_secs_f64() * 1e7).round() / 10.0;
    let mut decisions: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, decision) in outcomes.iter() {
        *decisions.entry(decision.as_str_name()).or_default() += 1;
    }
    serde_json::json!({
        "in_flight": in_flight,
        "events": outcomes.len(),
        "per_second": (outcomes.len() as f64 / elapsed.as_secs_f64()).round(),
        "p50_us": micros(outcomes.len() / 2),
        "p99_us": micros(outcomes.len() * 99 / 100),
        "max_us": micros(outcomes.len() - 1),
        "decisions": decisions,
    })
}
