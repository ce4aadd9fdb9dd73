//! `priorart attest`: sign the kind 1042 authorship attestation of a text:
//! the one step of NIP-FF-3 that needs the author's key.

use crate::input;
use crate::signing_key::{self, SignerArgs};
use anyhow::{Context, Result, bail};
use clap::Parser;
use priorart_nip::Attestation;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
pub struct Args {
    /// The plaintext attested (`-`: standard input). Only its fingerprint
    /// leaves this machine.
    file: String,
    /// Scope the attestation to this content kind (the optional `k` tag).
    #[arg(long)]
    kind: Option<u16>,
    /// `created_at` in seconds since 1970 (default: now; never used for ordering).
    #[arg(long)]
    created_at: Option<u64>,
    #[command(flatten)]
    document: input::DocumentArgs,
    #[command(flatten)]
    signer: SignerArgs,
    /// Seconds to wait for the bunker, per step (`--bunker` only).
    #[arg(long, default_value = "60", value_name = "SECS", value_parser = input::parse_seconds)]
    timeout: Duration,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let text = input::read_document(&args.file, &args.document)?.text;
    if priorart_corpus::is_blank(&text) {
        // The fingerprint of nothing is every empty file's: an attestation
        // of it would claim authorship of all of them.
        bail!("{}: the text is empty: nothing to attest, nothing signed", args.file);
    }
    let signer = args.signer.require(args.timeout)?;
    let fingerprint = priorart_fingerprint::minhash_equality_v1(&text);
    let created_at = signing_key::created_at(args.created_at);
    let unsigned =
        Attestation::unsigned(signer.public_key(), fingerprint, args.kind, created_at).context("cannot build")?;
    // What a bunker signed is checked again as a 1042 (NIP-FF-3 step 3).
    let attestation = Attestation::from_event(signer.sign(unsigned)?).context("the signed attestation")?;
    println!("{}", attestation.to_json());
    Ok(ExitCode::SUCCESS)
}
