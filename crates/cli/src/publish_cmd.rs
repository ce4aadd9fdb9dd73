//! `priorart publish`: send signed events to relays and report, per relay
//! and per event, what each relay answered.

use crate::exit;
use crate::input;
use crate::args::RelayListArgs;
use anyhow::{Result, bail};
use clap::Parser;
use priorart_nip::limits::MAX_EVENT_JSON_BYTES;
use priorart_relay::nostr::prelude::Event;
use priorart_relay::{Acceptance, PublishAnswer};
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

/// Events read per invocation (each is sent to every relay).
const MAX_EVENTS: usize = 10_000;

#[derive(Parser)]
#[command(after_help = "Exit codes: 0 every event is on at least one relay (accepted, or a duplicate it already had), \
                        1 some event is on none (or a file is not a signed event), 2 usage.")]
pub struct Args {
    /// Event files: one signed event JSON each, or one event per line (`-`: standard input).
    #[arg(required = true, value_name = "EVENT.json")]
    events: Vec<String>,
    #[command(flatten)]
    relays: RelayListArgs,
    /// Seconds each relay gets to answer every event.
    #[arg(long, default_value = "10", value_parser = input::parse_seconds)]
    timeout: Duration,
    /// Print one JSON object (format priorart-publish/1).
    #[arg(long)]
    json: bool,
}

/// An event to send, and where it came from.
struct Outgoing {
    file: String,
    event: Event,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let relays = args.relays.resolve()?;
    let outgoing = read_events(&args.events)?;
    let events: Vec<Event> = outgoing.iter().map(|o| o.event.clone()).collect();
    note!("priorart: sending {} event(s) to {} relay(s)", events.len(), relays.len());
    let answers = priorart_relay::publish(&relays, &events, args.timeout)?;
    let stored = |index: usize| answers.iter().filter(|a| a.acceptances[index].has_event()).count();
    let all_stored = (0..events.len()).all(|index| stored(index) > 0);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        writeln!(out, "{}", to_json(&outgoing, &answers, all_stored))?;
    } else {
        write_table(&mut out, &outgoing, &answers, args.timeout)?;
    }
    Ok(ExitCode::from(if all_stored { exit::OK } else { exit::BAD_INPUT }))
}

/// Every event of every file, id and signature checked: a relay would drop
/// a bad one anyway, and a person should hear why from us.
fn read_events(names: &[String]) -> Result<Vec<Outgoing>> {
    let mut outgoing = Vec::new();
    for name in names {
        let text = input::read_text(name)?;
        let trimmed = text.trim();
        let pieces: Vec<&str> = if priorart_nip::parse_event(trimmed, MAX_EVENT_JSON_BYTES).is_ok() {
            vec![trimmed]
        } else {
            trimmed.lines().map(str::trim).filter(|line| !line.is_empty()).collect()
        };
        if pieces.is_empty() {
            bail!("{name}: no event in it");
        }
        for (line, json) in pieces.iter().enumerate() {
            let place = if pieces.len() > 1 { format!("{name}:{}", line + 1) } else { name.clone() };
            let event = priorart_nip::parse_event(json, MAX_EVENT_JSON_BYTES)
                .map_err(|err| anyhow::anyhow!("{place}: not a nostr event: {err}"))?;
            if !event.verify_id() {
                bail!("{place}: the event id is not the hash of the event (edited after signing?)");
            }
            if !event.verify_signature() {
                bail!("{place}: the event's signature does not verify");
            }
            outgoing.push(Outgoing { file: place, event });
            if outgoing.len() > MAX_EVENTS {
                bail!("more than {MAX_EVENTS} events: publish them in several runs");
            }
        }
    }
    Ok(outgoing)
}

fn describe(acceptance: &Acceptance, timeout: Duration) -> String {
    let with = |word: &str, message: &str| {
        if message.is_empty() { word.to_owned() } else { format!("{word} ({message})") }
    };
    match acceptance {
        Acceptance::Accepted { message } => with("accepted", message),
        Acceptance::Duplicate { message } => with("duplicate, already stored", message),
        Acceptance::Rejected { message } => with("REJECTED", message),
        Acceptance::NoAnswer => format!("no answer within {}s", timeout.as_secs_f64()),
        Acceptance::NotSent { error } => format!("not sent: {error}"),
    }
}

fn write_table(out: &mut impl Write, outgoing: &[Outgoing], answers: &[PublishAnswer], timeout: Duration) -> Result<()> {
    for (index, item) in outgoing.iter().enumerate() {
        let stored = answers.iter().filter(|a| a.acceptances[index].has_event()).count();
        let kind = item.event.kind.as_u16();
        writeln!(out, "{} {} (kind {kind}): on {stored} of {} relays", item.event.id, item.file, answers.len())?;
        for answer in answers {
            writeln!(out, "  {}  {}", answer.relay, describe(&answer.acceptances[index], timeout))?;
        }
    }
    for answer in answers {
        for notice in &answer.notices {
            writeln!(out, "notice from {}: {notice}", answer.relay)?;
        }
    }
    Ok(())
}

fn to_json(outgoing: &[Outgoing], answers: &[PublishAnswer], all_stored: bool) -> serde_json::Value {
    let events: Vec<_> = outgoing
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let relays: Vec<_> = answers
                .iter()
                .map(|answer| {
                    let mut acceptance = serde_json::to_value(&answer.acceptances[index]).unwrap_or_default();
                    acceptance["relay"] = json!(answer.relay);
                    acceptance
                })
                .collect();
            let stored = answers.iter().filter(|a| a.acceptances[index].has_event()).count();
            json!({"id": item.event.id.to_hex(), "file": item.file, "kind": item.event.kind.as_u16(),
                   "stored_on": stored, "relays": relays})
        })
        .collect();
    let notices: Vec<_> =
        answers.iter().flat_map(|a| a.notices.iter().map(move |n| json!({"relay": a.relay, "notice": n}))).collect();
    json!({"format": "priorart-publish/1", "ok": all_stored, "events": events, "notices": notices})
}
