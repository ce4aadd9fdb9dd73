//! `priorart event`: build and sign a content event whose `X` tag is the
//! fingerprint of the file's text (and, for texts of 100 words or more, the
//! fuzzy discovery `B` tags, unless `--no-fuzzy-tags`).

use crate::input;
use crate::signing_key::{self, SignerArgs};
use anyhow::Result;
use clap::Parser;
use priorart_nip::ContentEvent;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
pub struct Args {
    /// The text (`-`: standard input); it becomes the event's content.
    file: String,
    /// Event kind: 1 (note), 30023 (article), …
    #[arg(long)]
    kind: u16,
    /// `d` identifier, required for addressable kinds (30000-39999).
    #[arg(long)]
    d: Option<String>,
    /// `title` tag (NIP-23 articles).
    #[arg(long)]
    title: Option<String>,
    /// `created_at` in seconds since 1970 (default: now).
    #[arg(long)]
    created_at: Option<u64>,
    /// Leave the fuzzy discovery `B` tags (simhash-doc value and lookup keys,
    /// docs/nip-ff-3-fuzzy.md) out; they are added to texts of 100 words or
    /// more by default.
    #[arg(long)]
    no_fuzzy_tags: bool,
    #[command(flatten)]
    document: input::DocumentArgs,
    #[command(flatten)]
    signer: SignerArgs,
    /// Seconds to wait for the bunker, per step (`--bunker` only).
    #[arg(long, default_value = "60", value_name = "SECS", value_parser = input::parse_seconds)]
    timeout: Duration,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let signer = args.signer.require(args.timeout)?;
    let text = input::read_document(&args.file, &args.document)?.text;
    let spec = ContentEvent {
        d: args.d.as_deref(),
        title: args.title.as_deref(),
        fuzzy_tags: !args.no_fuzzy_tags,
        ..ContentEvent::new(args.kind, &text, signing_key::created_at(args.created_at))
    };
    let unsigned = spec.unsigned(signer.public_key()).map_err(|err| crate::exit::UsageError(err.to_string()))?;
    let event = signer.sign(unsigned)?;
    println!("{}", priorart_nip::to_json(&event));
    Ok(ExitCode::SUCCESS)
}
