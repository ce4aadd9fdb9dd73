//! `priorart ots`: OpenTimestamps proofs, with the habits of the reference
//! client (`ots stamp | upgrade | verify | info | prune`).

use crate::args::{CalendarArgs, HeaderArgs};
use crate::exit::{self, UsageError};
use anyhow::{Context, Result, bail};
use chrono::{DateTime, Local, Utc};
use clap::{Args as ClapArgs, Parser, Subcommand};
use priorart_ots::{Network, Verification, VerifyError, VerifyOutcome, VerifyReport};
use priorart_ots_net::UpgradeOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
pub struct Args {
    #[command(subcommand)]
    command: OtsCommand,
}

#[derive(Subcommand)]
enum OtsCommand {
    /// Timestamp files: writes FILE.ots for each (stdin `-`: proof to stdout).
    Stamp(StampArgs),
    /// Fetch complete proofs from calendars for pending attestations.
    Upgrade(UpgradeArgs),
    /// Check a proof against Bitcoin headers, trusting no header source.
    Verify(VerifyArgs),
    /// Print a proof's tree, as the reference client's `ots info` does.
    Info(InfoArgs),
    /// Drop pending attestations of a proof that reached Bitcoin.
    Prune(PruneArgs),
}

#[derive(ClapArgs)]
struct StampArgs {
    /// Files to timestamp.
    #[arg(required = true)]
    files: Vec<String>,
    #[command(flatten)]
    calendars: CalendarArgs,
    /// Replace existing FILE.ots proofs (written atomically either way).
    #[arg(long)]
    force: bool,
}

#[derive(ClapArgs)]
struct UpgradeArgs {
    /// Proofs to upgrade; each original is kept as FILE.ots.bak.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Also contact calendars matching this URL pattern (`*` for host parts).
    #[arg(short = 'l', long = "allow", value_name = "PATTERN")]
    allow: Vec<String>,
    /// Contact only calendars given with --allow.
    #[arg(long)]
    no_default_allowlist: bool,
    /// Send requests for calendar FROM to URL TO instead (mirrors, tests).
    #[arg(long, value_name = "FROM=TO")]
    calendar_map: Vec<String>,
    /// Show what would change without writing.
    #[arg(short = 'n', long)]
    dry_run: bool,
    /// Seconds each calendar gets.
    #[arg(long, default_value = "10", value_parser = crate::input::parse_seconds)]
    timeout: Duration,
}

#[derive(ClapArgs)]
#[command(
    after_help = "Exit codes: 0 verified; 1 the file does not match, the proof is pending or invalid, or \
unreadable input; 2 usage error; 3 unverified (no block header to check the proof against)."
)]
struct VerifyArgs {
    /// The proof (FILE.ots); the timestamped file is FILE unless --file or
    /// --digest is given.
    proof: PathBuf,
    /// The timestamped file.
    #[arg(short = 'f', long, value_name = "PATH", conflicts_with = "digest")]
    file: Option<PathBuf>,
    /// The timestamped file's digest, in hex, instead of the file.
    #[arg(short = 'd', long, value_name = "HEX")]
    digest: Option<String>,
    #[command(flatten)]
    headers: HeaderArgs,
    /// One JSON object on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(ClapArgs)]
struct InfoArgs {
    proof: PathBuf,
    /// The tree as JSON, with every intermediate message.
    #[arg(long)]
    json: bool,
}

#[derive(ClapArgs)]
struct PruneArgs {
    /// Proofs to prune; each original is kept as FILE.ots.bak.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Also drop every Bitcoin attestation but the earliest block's.
    #[arg(long)]
    earliest_only: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        OtsCommand::Stamp(args) => stamp(args),
        OtsCommand::Upgrade(args) => upgrade(args),
        OtsCommand::Verify(args) => verify(args),
        OtsCommand::Info(args) => info(args),
        OtsCommand::Prune(args) => prune(args),
    }
}

fn stamp(args: StampArgs) -> Result<ExitCode> {
    if args.files.iter().filter(|f| *f == crate::input::STDIN).count() > 1 {
        bail!(UsageError("standard input (`-`) can be named only once".into()));
    }
    let options = args.calendars.options()?;
    let existing: Vec<String> = args
        .files
        .iter()
        .filter(|name| *name != crate::input::STDIN && proof_path(name).exists())
        .map(|name| proof_path(name).display().to_string())
        .collect();
    if !existing.is_empty() && !args.force {
        // Checked before any calendar is asked, and all named at once.
        bail!(UsageError(format!("{} already exist(s); use --force to replace", existing.join(", "))));
    }
    let mut digests = Vec::with_capacity(args.files.len());
    for name in &args.files {
        let reader = crate::input::open(name)?;
        let digest = priorart_ots::hash_reader(priorart_ots::HashOp::Sha256, reader)
            .with_context(|| format!("{name}: cannot read"))?;
        let mut array = [0u8; 32];
        array.copy_from_slice(&digest);
        digests.push(array);
    }
    for url in &options.calendars {
        note!("Submitting to remote calendar {url}");
    }
    let stamped = priorart_ots_net::stamp_digests(&digests, &options).context("cannot timestamp")?;
    for failure in &stamped.failed {
        note!("priorart: calendar failed: {}", priorart_ots_net::error_chain(failure));
    }
    let mut outputs = Vec::new();
    for (name, proof) in args.files.iter().zip(&stamped.proofs) {
        if name == crate::input::STDIN {
            std::io::stdout().write_all(&proof.to_bytes())?;
        } else {
            outputs.push((proof_path(name), proof.to_bytes()));
        }
    }
    if args.force {
        for (path, bytes) in &outputs {
            priorart_files::write_atomic(path, bytes)?;
        }
    } else {
        priorart_files::write_all_new(&outputs)?;
    }
    for (path, _) in &outputs {
        note!("Wrote {} ({} calendar(s))", path.display(), stamped.answered.len());
    }
    Ok(ExitCode::from(exit::OK))
}

fn proof_path(name: &str) -> PathBuf {
    PathBuf::from(format!("{name}.ots"))
}

fn upgrade(args: UpgradeArgs) -> Result<ExitCode> {
    let mut allowlist: Vec<String> = if args.no_default_allowlist {
        Vec::new()
    } else {
        priorart_ots::calendar::DEFAULT_ALLOWLIST.iter().map(|url| url.to_string()).collect()
    };
    allowlist.extend(args.allow);
    let mut calendar_map = Vec::new();
    for mapping in &args.calendar_map {
        let Some((from, to)) = mapping.split_once('=') else {
            bail!(UsageError(format!("--calendar-map {mapping}: expected FROM=TO")));
        };
        calendar_map.push((from.to_owned(), to.to_owned()));
    }
    let options = UpgradeOptions { allowlist, calendar_map, timeout: args.timeout };
    let mut incomplete = false;
    for path in &args.files {
        let name = path.display();
        let mut proof = match crate::input::read_proof(path) {
            Ok(proof) => proof,
            Err(err) => {
                note!("priorart: {err:#}");
                incomplete = true;
                continue;
            }
        };
        let report = priorart_ots_net::upgrade(&mut proof, &options);
        for uri in &report.upgraded {
            note!("{name}: got attestation(s) from {uri}");
        }
        for (uri, message) in &report.still_pending {
            note!("{name}: {uri}: still pending ({message})");
        }
        for uri in &report.not_allowed {
            note!("{name}: ignoring calendar {uri}: not on the allow-list (see --allow)");
        }
        for err in &report.errors {
            note!("{name}: calendar failed: {}", priorart_ots_net::error_chain(err));
        }
        if report.changed && !args.dry_run {
            let backup = priorart_files::replace_keeping_backup(path, &proof.to_bytes())?;
            note!("{name}: upgraded; original kept as {}", backup.display());
        }
        if proof.has_bitcoin_attestation() {
            println!("{name}: complete");
        } else {
            println!("{name}: pending");
            incomplete = true;
        }
    }
    Ok(ExitCode::from(if incomplete { exit::BAD_INPUT } else { exit::OK }))
}

fn verify(args: VerifyArgs) -> Result<ExitCode> {
    let proof = crate::input::read_proof(&args.proof)?;
    let digest_matches = match (&args.digest, &args.file) {
        (Some(digest), _) => {
            let digest = priorart_ots::hex::decode(digest.trim())
                .ok_or_else(|| UsageError("--digest must be hexadecimal".into()))?;
            proof.matches_digest(&digest)
        }
        (None, file) => {
            let target = match file {
                Some(file) => file.clone(),
                None => target_of(&args.proof)?,
            };
            let reader =
                std::fs::File::open(&target).with_context(|| format!("{}: cannot open", target.display()))?;
            proof.matches_file(reader).with_context(|| format!("{}: cannot read", target.display()))?
        }
    };
    let network = args.headers.network();
    if !digest_matches {
        let report = VerifyReport::digest_mismatch(&proof, network);
        report_failure(args.json, &report, None);
        return Ok(ExitCode::from(exit::BAD_INPUT));
    }
    if let Some(warning) = priorart_ots::file_hash_warning(&proof) {
        note!("priorart: warning: {warning}");
    }
    let source = args.headers.source()?;
    let report = VerifyReport::verify(&proof, &source, network, priorart_ots::DEFAULT_FORGE_HEADERS);
    match &report.outcome {
        VerifyOutcome::Verified(verification) => {
            print_verification(args.json, &report, verification)?;
            Ok(ExitCode::from(exit::OK))
        }
        _ if report.is_unverified() => {
            report_unverified(args.json, &report);
            Ok(ExitCode::from(exit::UNVERIFIED))
        }
        VerifyOutcome::NotVerified(VerifyError::Pending { .. }) => {
            let hint = format!("priorart ots upgrade {}", args.proof.display());
            report_failure(args.json, &report, Some(&hint));
            Ok(ExitCode::from(exit::BAD_INPUT))
        }
        _ => {
            report_failure(args.json, &report, None);
            Ok(ExitCode::from(exit::BAD_INPUT))
        }
    }
}

fn target_of(proof: &Path) -> Result<PathBuf> {
    let name = proof.to_string_lossy();
    match name.strip_suffix(".ots") {
        Some(target) => Ok(PathBuf::from(target)),
        None => {
            bail!(UsageError(format!("{name} does not end in .ots: name the file with --file or --digest")))
        }
    }
}

fn report_unverified(json: bool, report: &VerifyReport) {
    if json {
        println!("{}", report.to_json());
    }
    note!("priorart: UNVERIFIED (not invalid): {}", report.error().unwrap_or_default());
    if report.lacks_headers() {
        note!("priorart: {}", exit::HEADER_SOURCE_HINT);
    } else {
        note!("priorart: the header source served headers that fail their own checks: it, not the proof, is at fault; check again with another source");
    }
}

fn report_failure(json: bool, report: &VerifyReport, hint: Option<&str>) {
    if json {
        println!("{}", report.to_json_with_hint(hint));
    }
    let error = report.error().unwrap_or_default();
    match hint {
        Some(hint) => note!("priorart: verification failed: {error}: {hint}"),
        None => note!("priorart: verification failed: {error}"),
    }
}

fn print_verification(json: bool, report: &VerifyReport, verification: &Verification) -> Result<()> {
    let block = &verification.earliest;
    let utc = priorart_ots::UtcTime::from_unix(u64::from(block.time));
    let local = DateTime::<Utc>::from_timestamp(i64::from(block.time), 0)
        .context("block time out of range")?
        .with_timezone(&Local);
    for failure in &verification.failures {
        note!("priorart: block {}: {}", failure.height, failure.reason);
    }
    for attestation in &verification.unverified {
        note!("note: also attested by {attestation} (not verified)");
    }
    if let Some(Err(err)) = &report.cost_to_forge {
        note!("priorart: cost to forge unknown: {err}");
    }
    if json {
        println!("{}", report.to_json());
    } else {
        // A regtest chain is anyone's: its "success" proves nothing about Bitcoin.
        let chain = match report.network {
            Network::Mainnet => "Bitcoin",
            Network::Regtest => "REGTEST (a private test chain, not Bitcoin)",
        };
        println!(
            "Success! {chain} block {} attests existence as of {} ({})",
            block.height,
            utc,
            local.format("%Y-%m-%d %H:%M:%S %Z")
        );
        println!("Block hash {}", block.block_hash);
        if let Some(Ok(cost)) = &report.cost_to_forge {
            println!("Cost to forge: {cost}");
        }
    }
    Ok(())
}

fn info(args: InfoArgs) -> Result<ExitCode> {
    let proof = if args.proof.as_os_str() == crate::input::STDIN {
        let bytes = priorart_files::read_stream_limited(std::io::stdin(), &args.proof, priorart_ots::MAX_PROOF_BYTES)?;
        priorart_ots::DetachedTimestamp::from_bytes(&bytes).context("standard input")?
    } else {
        crate::input::read_proof(&args.proof)?
    };
    if args.json {
        println!("{}", priorart_ots::info_json(&proof));
    } else {
        println!("{}", priorart_ots::info_text(&proof));
    }
    Ok(ExitCode::from(exit::OK))
}

fn prune(args: PruneArgs) -> Result<ExitCode> {
    let mut failed = false;
    for path in &args.files {
        let name = path.display();
        let outcome = crate::input::read_proof(path).and_then(|mut proof| {
            let report = priorart_ots::prune(&mut proof, args.earliest_only)
                .with_context(|| format!("{name}: nothing to prune"))?;
            if !report.changed() {
                bail!("{name}: nothing to prune");
            }
            let backup = priorart_files::replace_keeping_backup(path, &proof.to_bytes())?;
            note!(
                "{name}: dropped {} pending and {} Bitcoin attestation(s); original kept as {}",
                report.pending_removed,
                report.bitcoin_removed,
                backup.display()
            );
            Ok(())
        });
        if let Err(err) = outcome {
            note!("priorart: {err:#}");
            failed = true;
        }
    }
    Ok(ExitCode::from(if failed { exit::BAD_INPUT } else { exit::OK }))
}
