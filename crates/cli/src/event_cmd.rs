//! `priorart event`: build and sign a content event whose `X` tag is the
//! fingerprint of the file's text.

use crate::input;
use crate::signing_key::{self, KeyArgs};
use anyhow::Result;
use clap::Parser;
use priorart_nip::ContentEvent;
use std::process::ExitCode;

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
    #[command(flatten)]
    document: input::DocumentArgs,
    #[command(flatten)]
    key: KeyArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let keys = args.key.require()?;
    let text = input::read_document(&args.file, &args.document)?.text;
    let spec = ContentEvent {
        kind: args.kind,
        text: &text,
        d: args.d.as_deref(),
        title: args.title.as_deref(),
        created_at: signing_key::created_at(args.created_at),
    };
    let event = spec.sign(&keys).map_err(|err| crate::exit::UsageError(err.to_string()))?;
    println!("{}", priorart_nip::to_json(&event));
    Ok(ExitCode::SUCCESS)
}
