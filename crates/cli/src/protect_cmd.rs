//! `priorart protect`: the creator's whole NIP-FF-3 workflow on one durable
//! job store (`priorart_pipeline`). `protect FILE` signs and publishes the
//! content event, signs the kind 1042 and stamps it; `--resume` (from cron)
//! upgrades, verifies each calendar's proof against the header source,
//! builds, signs and publishes the kind 1041s; `--status` shows every job;
//! `--wait` stays until all are published; `--restamp ID` stamps a failed
//! or stuck job again.

use crate::args::{CalendarArgs, PipelineArgs, RelayListArgs};
use crate::exit::{self, UsageError};
use crate::input;
use crate::signing_key::{self, SignerArgs};
use anyhow::{Context, Result, bail};
use clap::Parser;
use priorart_fingerprint::EqualityFingerprint;
use priorart_nip::nostr::prelude::{Event, Kind, PublicKey, Timestamp, UnsignedEvent};
use priorart_nip::{Attestation, ContentEvent};
use priorart_pipeline::service::{JobView, job_json};
use priorart_pipeline::{AddOutcome, ContentTarget, Job, JobState, NewJob, Round, RunLock, Settings, Store};
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    group = clap::ArgGroup::new("mode").required(true).args(["file", "resume", "status", "restamp", "republish"]),
    after_help = "A job: signed → stamped → anchored (its Bitcoin block, verified against the header source) → built \
                  (kind 1041 signed once, checked, stored) → published; or failed, when every calendar lied or failed \
                  for --give-up-after (then --restamp ID). A calendar whose proof fails verification is named and its \
                  proof discarded. Calendars named with -c stamp every waiting job. State: \
                  $XDG_DATA_HOME/priorart/protect (--state). Exit codes: 0 done (jobs may still be waiting for their \
                  block), 1 a step failed (the job is kept; --resume retries), 2 usage."
)]
pub struct Args {
    /// The text to protect (`-`: standard input): it becomes the content
    /// event's content; its fingerprint is attested and stamped.
    file: Option<String>,
    /// Content event kind: 1 (note), 30023 (article), …
    #[arg(long)]
    kind: Option<u16>,
    /// `d` identifier for addressable kinds (default: the file name without extension).
    #[arg(long)]
    d: Option<String>,
    /// `title` tag (NIP-23 articles).
    #[arg(long)]
    title: Option<String>,
    /// `created_at` of the content event and the attestation, in seconds
    /// since 1970 (default: now; never used for ordering).
    #[arg(long, value_name = "SECS")]
    created_at: Option<u64>,
    /// Leave the fuzzy discovery `B` tags (simhash-doc value and lookup keys,
    /// docs/nip-ff-3-fuzzy.md) out of the content event; they are added to
    /// texts of 100 words or more by default.
    #[arg(long)]
    no_fuzzy_tags: bool,
    #[command(flatten)]
    relays: RelayListArgs,
    #[command(flatten)]
    calendars: CalendarArgs,
    #[command(flatten)]
    pipeline: PipelineArgs,
    #[command(flatten)]
    document: input::DocumentArgs,
    /// The author's key, or a NIP-46 bunker (`--bunker`).
    #[command(flatten)]
    signer: SignerArgs,
    /// Seconds each wait for the bunker gets (a person may have to approve).
    #[arg(long, default_value = "60", value_parser = input::parse_seconds, requires = "bunker")]
    bunker_timeout: Duration,
    /// Upgrade every pending job; build, sign and publish the kind 1041 of
    /// every anchored one (safe from cron: a lock keeps runs apart).
    #[arg(long)]
    resume: bool,
    /// Show every job: state, verified block, each calendar's and relay's answer.
    #[arg(long)]
    status: bool,
    /// Stamp job ID (its number or attestation id) again, at the calendars
    /// of this run: for a failed job, or one stuck signed or stamped.
    #[arg(long, value_name = "ID")]
    restamp: Option<String>,
    /// Send job ID's built kind 1041 again (to its relays and those named
    /// with --relay now): for a proof no relay kept, or one a relay lost.
    #[arg(long, value_name = "ID")]
    republish: Option<String>,
    /// With --status: one JSON object (format priorart-protect-status/1).
    #[arg(long)]
    json: bool,
    /// Stay and resume every --interval until every job is published.
    #[arg(long, conflicts_with = "status")]
    wait: bool,
    /// Seconds between rounds with --wait.
    #[arg(long, default_value = "600", value_parser = input::parse_seconds)]
    interval: Duration,
    /// Seconds each relay gets to answer.
    #[arg(long, default_value = "10", value_parser = input::parse_seconds)]
    relay_timeout: Duration,
    /// State directory (default: $XDG_DATA_HOME/priorart/protect).
    #[arg(long, value_name = "DIR")]
    state: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let state = match &args.state {
        Some(dir) => dir.clone(),
        None => crate::args::xdg_dir("XDG_DATA_HOME", ".local/share")
            .map(|dir| dir.join("priorart").join("protect"))
            .context("no data directory: give --state DIR (or set XDG_DATA_HOME or HOME)")?,
    };
    if args.file.is_none()
        && (args.kind.is_some() || args.d.is_some() || args.title.is_some() || args.created_at.is_some())
    {
        bail!(UsageError("--kind, --d, --title and --created-at describe a FILE to protect".into()));
    }
    if args.status {
        return status(&Store::open(&state)?, args.json);
    }
    let _lock = RunLock::acquire(&state)?;
    let mut store = Store::open(&state)?;
    // The relays named now: jobs not yet published go there too (a job
    // stored while only a silent relay was named moves to a working one).
    let current: Vec<String> = args.relays.resolve_any()?.iter().map(ToString::to_string).collect();
    let settings = args.pipeline.settings(&args.calendars, current, args.relay_timeout)?;
    if args.resume || args.wait {
        args.pipeline.warn_without_upstream();
    }
    let mut code = exit::OK;
    if let Some(job) = &args.restamp {
        code = restamp(&mut store, &settings, job, &state)?;
    }
    if let Some(job) = &args.republish {
        code = republish(&mut store, &settings, job, &state)?;
    }
    if let Some(file) = &args.file {
        let job = add_job(&args, file, &mut store)?;
        let round = priorart_pipeline::run_round(&mut store, &settings)?;
        print_round(&store, &round)?;
        let job = store.job_by_attestation(&job)?.context("the new job vanished from the store")?;
        print_new_job(&job, &state)?;
        if job.state == JobState::Signed {
            code = exit::BAD_INPUT;
        }
    }
    if args.resume || args.wait {
        code = code.max(resume(&mut store, &settings, args.wait, args.interval)?);
    }
    Ok(ExitCode::from(code))
}

/// `--restamp ID`: the job back to signed, stamped now at this run's calendars.
fn restamp(store: &mut Store, settings: &Settings, job: &str, state: &std::path::Path) -> Result<u8> {
    let Some(found) = store.restamp(job, &settings.stamp.calendars)? else {
        bail!(UsageError(format!("--restamp {job}: no such job in {} (see --status)", state.display())));
    };
    if found.state.is_anchored() {
        bail!(UsageError(format!(
            "--restamp {job}: job {} is {} on a verified proof; nothing to restamp",
            found.id,
            found.state.name()
        )));
    }
    note!("priorart: job {}: restamping at {}", found.id, settings.stamp.calendars.join(", "));
    let round = priorart_pipeline::run_round(store, settings)?;
    print_round(store, &round)?;
    let job = store.job(found.id)?.context("the job vanished from the store")?;
    print_new_job(&job, state)?;
    Ok(if job.state == JobState::Signed { exit::BAD_INPUT } else { exit::OK })
}

/// `--republish ID`: the job's built kind 1041 sent again now.
fn republish(store: &mut Store, settings: &Settings, job: &str, state: &std::path::Path) -> Result<u8> {
    let Some(found) = store.republish(job)? else {
        bail!(UsageError(format!("--republish {job}: no such job in {} (see --status)", state.display())));
    };
    if found.proof_event_id.is_none() {
        bail!(UsageError(format!(
            "--republish {job}: job {} is {}: no kind 1041 is built yet (--resume builds it once anchored)",
            found.id,
            found.state.name()
        )));
    }
    let round = priorart_pipeline::run_round(store, settings)?;
    print_round(store, &round)?;
    let job = store.job(found.id)?.context("the job vanished from the store")?;
    Ok(if job.state == JobState::Published { exit::OK } else { exit::BAD_INPUT })
}

/// Signs the content event and the attestation, and stores the job (one
/// transaction) before anything leaves the machine. Returns its attestation id.
fn add_job(args: &Args, file: &str, store: &mut Store) -> Result<String> {
    let kind = args.kind.ok_or_else(|| UsageError("protect FILE needs --kind (1, 30023, …)".into()))?;
    let relays: Vec<String> = args.relays.resolve()?.iter().map(ToString::to_string).collect();
    // One signer for both signatures: a bunker may accept its secret once.
    let signer = args.signer.require(args.bunker_timeout)?;
    let author = signer.public_key();
    let text = input::read_document(file, &args.document)?.text;
    let addressable = Kind::from_u16(kind).is_addressable();
    let d = match (&args.d, addressable) {
        (Some(d), _) => Some(d.clone()),
        (None, true) => Some(default_d(file)?),
        (None, false) => None,
    };
    let created_at = signing_key::created_at(args.created_at);
    let content = ContentEvent {
        d: d.as_deref(),
        title: args.title.as_deref(),
        fuzzy_tags: !args.no_fuzzy_tags,
        ..ContentEvent::new(kind, &text, created_at)
    };
    let event = signer.sign(content.unsigned(author).map_err(|err| UsageError(err.to_string()))?)?;
    let fingerprint = priorart_fingerprint::minhash_equality_v1(&text);
    let target = match &d {
        Some(d) if addressable => ContentTarget::Address(format!("{kind}:{}:{d}", author.to_hex())),
        _ => ContentTarget::Event(event.id),
    };
    let unsigned = distinct_attestation(store, author, fingerprint, kind, created_at, &event)?;
    let attestation = Attestation::from_event(signer.sign(unsigned)?).context("the signed attestation")?;
    let id = attestation.event().id.to_hex();
    let job = NewJob {
        attestation,
        content: target,
        content_kind: None,
        relay_hint: relays.first().cloned(),
        content_event: Some(event),
        relays,
        calendars: args.calendars.options()?.calendars,
        label: Some(file.to_owned()),
    };
    match store.add_jobs(&[job], None)?.pop() {
        Some(AddOutcome::Added(_)) => Ok(id),
        Some(AddOutcome::Existing(job)) => {
            note!("priorart: this text is protected already as job {job} (same text, key and second)");
            Ok(id)
        }
        Some(AddOutcome::Conflict { job, .. }) => {
            bail!("the attestation is job {job}'s, for other content: nothing stored (try again in a second)")
        }
        Some(AddOutcome::QueueFull) | None => bail!("the store refused the job"),
    }
}

/// The unsigned attestation, dated `created_at` or, when the same key
/// attested the same X in that second for another content event (two
/// files with one text), a second later each time: identical kind 1042s
/// would make one job of two, and the second file's content event would
/// never be stored. Said on stderr.
fn distinct_attestation(
    store: &Store,
    author: PublicKey,
    fingerprint: EqualityFingerprint,
    kind: u16,
    created_at: Timestamp,
    content: &Event,
) -> Result<UnsignedEvent> {
    let mut at = created_at;
    loop {
        let mut unsigned =
            Attestation::unsigned(author, fingerprint, Some(kind), at).context("cannot build the attestation")?;
        let Some(existing) = store.job_by_attestation(&unsigned.id().to_hex())? else { return Ok(unsigned) };
        if existing.content_event_id.as_deref() == Some(content.id.to_hex().as_str()) {
            return Ok(unsigned);
        }
        note!(
            "priorart: job {} ({}) attests the same text with the same key at {}; this file's attestation is dated \
             a second later so that both content events are kept and both get a proof",
            existing.id,
            existing.label.as_deref().unwrap_or("-"),
            at.as_secs()
        );
        at = Timestamp::from_secs(at.as_secs() + 1);
    }
}

/// `essay.md` → `essay`: the `d` of an article protected without `--d`.
fn default_d(file: &str) -> Result<String> {
    let stem = std::path::Path::new(file).file_stem().and_then(|stem| stem.to_str()).unwrap_or_default();
    if file == input::STDIN || stem.is_empty() {
        bail!(UsageError("an addressable kind needs --d ID when the text comes from standard input".into()));
    }
    Ok(stem.to_owned())
}

fn print_new_job(job: &Job, state: &std::path::Path) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}  job {}  {}", job.attestation_id, job.id, job.state.name())?;
    match job.state {
        // Why no calendar answered was the round's warning just above:
        // said once, not again here.
        JobState::Signed => note!(
            "priorart: the job is stored but not stamped; `priorart protect --resume{}` stamps it once a calendar \
             answers (`-c URL` names a working one; or `--restamp {} -c URL`)",
            state_flag(state),
            job.id
        ),
        JobState::Failed => note!(
            "priorart: job {} failed: {}; `priorart protect --restamp {}{} [-c URL]` stamps it again",
            job.id,
            job.last_error.as_deref().unwrap_or("every calendar lied or failed"),
            job.id,
            state_flag(state)
        ),
        _ => note!(
            "priorart: stamped; calendars put it in a Bitcoin block within a few hours. Then run `priorart protect \
             --resume{}` (or from cron / a systemd timer, or now with --wait): it upgrades the proof, signs and \
             publishes the kind 1041",
            state_flag(state)
        ),
    }
    Ok(())
}

fn state_flag(state: &std::path::Path) -> String {
    format!(" --state {}", state.display())
}

/// Rounds until nothing is left to do now (or, with `wait`, until every
/// job is published). 0, or 1 when a round left problems.
fn resume(store: &mut Store, settings: &Settings, wait: bool, interval: Duration) -> Result<u8> {
    let progress = wait && std::io::stderr().is_terminal();
    loop {
        let round = priorart_pipeline::run_round(store, settings)?;
        print_round(store, &round)?;
        let counts = store.counts()?;
        let waiting: u64 = counts.iter().filter(|(state, _)| !state.is_final()).map(|(_, n)| n).sum();
        let summary: Vec<String> =
            counts.iter().filter(|(_, n)| *n > 0).map(|(state, n)| format!("{n} {}", state.name())).collect();
        if !wait || waiting == 0 {
            note!("priorart: jobs: {}", if summary.is_empty() { "none".into() } else { summary.join(", ") });
            return Ok(if round.problems.is_empty() { exit::OK } else { exit::BAD_INPUT });
        }
        let until = Instant::now() + interval;
        while Instant::now() < until {
            if progress {
                let left = until.saturating_duration_since(Instant::now()).as_secs();
                let _ = write!(std::io::stderr(), "\rpriorart: {}; next round in {left}s   ", summary.join(", "));
                std::thread::sleep(Duration::from_secs(1).min(interval));
            } else {
                note!("priorart: {}; next round in {}s", summary.join(", "), interval.as_secs_f64());
                std::thread::sleep(interval);
            }
        }
        if progress {
            note!("");
        }
    }
}

/// What a round did: blocks and publications on stdout, problems on stderr.
fn print_round(store: &Store, round: &Round) -> Result<()> {
    for problem in &round.problems {
        note!("priorart: warning: {problem}");
    }
    let mut out = std::io::stdout().lock();
    for (job, height) in &round.anchored {
        writeln!(out, "job {job}: anchored in Bitcoin block {height} (verified)")?;
    }
    for (job, why) in &round.unverified {
        writeln!(out, "job {job}: {why}")?;
    }
    if !round.unverified.is_empty() {
        note!("priorart: {}", exit::HEADER_SOURCE_HINT);
    }
    for (job, why) in &round.failed {
        writeln!(out, "job {job}: failed: {why}")?;
    }
    if round.published.is_empty() {
        return Ok(());
    }
    for job in store.all_jobs()?.into_iter().filter(|job| round.published.contains(&job.id)) {
        let event = job.proof_event_id.clone().unwrap_or_default();
        let publications = store.publications(job.id)?;
        let on: Vec<&str> =
            publications.iter().filter(|p| p.event_id == event && p.stored()).map(|p| p.relay.as_str()).collect();
        writeln!(out, "job {}: kind 1041 {event} published on {}", job.id, on.join(", "))?;
    }
    Ok(())
}

/// Every job, as a table (with headers, then each calendar's and relay's
/// answer under its job) or JSON.
fn status(store: &Store, json: bool) -> Result<ExitCode> {
    let jobs = store.all_jobs()?;
    let mut out = std::io::stdout().lock();
    if json {
        let mut listed = Vec::new();
        for job in jobs {
            let label = job.label.clone();
            let mut value = job_json(&JobView::read(store, job)?);
            value["file"] = json!(label);
            listed.push(value);
        }
        writeln!(out, "{}", json!({"format": "priorart-protect-status/1", "jobs": listed}))?;
        return Ok(ExitCode::SUCCESS);
    }
    if jobs.is_empty() {
        note!("priorart: no job in {}", store.dir().display());
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{:>4}  {:<9}  {:<12}  {:<16}  FILE", "JOB", "STATE", "BLOCK", "X")?;
    for job in jobs {
        let view = JobView::read(store, job)?;
        write_job(&mut out, &view)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One job's line, then indented: why it waits or failed, each calendar's
/// last answer, each relay's answer about each of its events.
fn write_job(out: &mut impl Write, view: &JobView) -> Result<()> {
    let job = &view.job;
    let block = match job.block_height.filter(|_| job.state.is_anchored()) {
        Some(height) => format!("{height}"),
        None => "-".to_owned(),
    };
    writeln!(
        out,
        "{:>4}  {:<9}  {:<12}  {}  {}",
        job.id,
        job.state.name(),
        block,
        &job.attestation.fingerprint().to_string()[..16],
        job.label.as_deref().unwrap_or("-"),
    )?;
    if let Some(why) = &job.unverified {
        writeln!(out, "      unverified: {why}")?;
    }
    if let Some(error) = &job.last_error {
        let label = if job.state == JobState::Failed { "failed" } else { "last error" };
        writeln!(out, "      {label}: {error}")?;
    }
    for outcome in &view.calendars {
        writeln!(out, "      calendar {}  {}: {}", outcome.calendar, outcome.verdict.name(), outcome.detail)?;
    }
    for publication in &view.publications {
        let what = if Some(&publication.event_id) == job.proof_event_id.as_ref() { "kind 1041" } else { "content" };
        let message = if publication.message.is_empty() { String::new() } else { format!(": {}", publication.message) };
        writeln!(out, "      relay {}  {what} {}{message}", publication.relay, publication.outcome)?;
    }
    Ok(())
}
