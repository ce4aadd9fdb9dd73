//! `priorart timestamp`: stamp an attestation's commitment,
//! SHA256(signature bytes), through OpenTimestamps calendars. Needs no key:
//! anyone holding the signed attestation may do it.

use crate::exit::UsageError;
use crate::input;
use anyhow::{Context, Result, bail};
use clap::Parser;
use priorart_nip::Attestation;
use priorart_ots_net::stamp_digests;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
pub struct Args {
    /// The signed kind 1042 attestation (`priorart attest` output; `-`: standard input).
    attestation: String,
    #[command(flatten)]
    calendars: crate::args::CalendarArgs,
    /// Where to write the proof (default: ATTESTATION.ots; required with `-`).
    #[arg(short, long, value_name = "FILE.ots")]
    out: Option<PathBuf>,
    /// Replace an existing proof file.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let options = args.calendars.options()?;
    let out = match (&args.out, args.attestation.as_str()) {
        (Some(out), _) => out.clone(),
        (None, input::STDIN) => {
            bail!(UsageError("with `-` as input, say where to write the proof: --out FILE.ots".into()))
        }
        (None, name) => PathBuf::from(format!("{name}.ots")),
    };
    if out.exists() && !args.force {
        bail!(UsageError(format!("{} exists; use --force to replace it", out.display())));
    }
    let json = input::read_text(&args.attestation)?;
    let attestation = Attestation::from_json(json.trim())
        .with_context(|| format!("{}: not a usable attestation", args.attestation))?;
    let commitment = attestation.commitment();
    let stamped = stamp_digests(&[commitment.0], &options).context("cannot stamp")?;
    for failed in &stamped.failed {
        note!("priorart: warning: {}", priorart_ots_net::error_chain(failed));
    }
    let proof = stamped.proofs.first().context("the calendars returned no proof")?;
    if args.force {
        priorart_files::write_atomic(&out, &proof.to_bytes())?;
    } else {
        priorart_files::write_new(&out, &proof.to_bytes())?;
    }
    note!(
        "priorart: stamped through {}; pending until a Bitcoin block includes it: run `priorart ots upgrade {}` in a few hours",
        stamped.answered.join(", "),
        out.display()
    );
    println!("{commitment}  {}", out.display());
    Ok(ExitCode::SUCCESS)
}
