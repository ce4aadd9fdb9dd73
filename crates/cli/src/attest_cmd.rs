//! `priorart attest`: sign the kind 1042 authorship attestation of a text:
//! the one step of NIP-FF-3 that needs the author's key.

use crate::input;
use crate::signing_key::{self, KeyArgs};
use anyhow::{Context, Result};
use clap::Parser;
use priorart_nip::Attestation;
use std::process::ExitCode;

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
    key: KeyArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let keys = args.key.require()?;
    let text = input::read_document(&args.file, &args.document)?.text;
    let fingerprint = priorart_fingerprint::minhash_equality_v1(&text);
    let created_at = signing_key::created_at(args.created_at);
    let attestation = Attestation::sign(&keys, fingerprint, args.kind, created_at).context("cannot sign")?;
    println!("{}", attestation.to_json());
    Ok(ExitCode::SUCCESS)
}
