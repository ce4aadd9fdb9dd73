//! `priorart proof`: build and sign the kind 1041 fingerprint timestamp from
//! an attestation and its Bitcoin-attested `.ots` proof.

use crate::exit::UsageError;
use crate::input;
use crate::signing_key::{self, KeyArgs};
use anyhow::{Context, Result};
use clap::Parser;
use priorart_nip::nostr::prelude::{EventId, Keys};
use priorart_nip::{Attestation, ContentRef, ProofEvent, ProofEventError};
use std::process::ExitCode;

#[derive(Parser)]
#[command(group = clap::ArgGroup::new("reference").required(true).args(["a", "e"]))]
pub struct Args {
    /// The kind 1042 attestation (`priorart attest` output; `-`: standard input).
    attestation: String,
    /// The `.ots` proof of the attestation's commitment, upgraded to a
    /// Bitcoin block (`priorart timestamp`, then `priorart ots upgrade`).
    #[arg(long, value_name = "FILE.ots")]
    ots: std::path::PathBuf,
    /// Addressable content event: its coordinate KIND:PUBKEY:D.
    #[arg(long, value_name = "KIND:PUBKEY:D")]
    a: Option<String>,
    /// Other content event: its id (hex or note1…); `p` is the attestation's author.
    #[arg(long, value_name = "EVENT_ID")]
    e: Option<String>,
    /// Content kind for `--e` when the attestation has no `k` tag.
    #[arg(long)]
    kind: Option<u16>,
    /// A relay where the content event can be found.
    #[arg(long, value_name = "URL")]
    relay_hint: Option<String>,
    /// `created_at` in seconds since 1970 (default: now; informational only).
    #[arg(long)]
    created_at: Option<u64>,
    #[command(flatten)]
    key: KeyArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let json = input::read_text(&args.attestation)?;
    let attestation = Attestation::from_json(json.trim())
        .with_context(|| format!("{}: not a usable attestation", args.attestation))?;
    let proof = crate::input::read_proof_bytes(&args.ots)?;
    let content = match (&args.a, &args.e) {
        (Some(a), _) => ContentRef::parse_address(a).map_err(|err| UsageError(format!("--a: {err}")))?,
        (_, Some(e)) => ContentRef::Event {
            id: EventId::parse(e)
                .map_err(|_| UsageError("--e: not an event id (64 hex or note1…)".into()))?,
            author: attestation.event().pubkey,
        },
        (None, None) => unreachable!("clap requires --a or --e"),
    };
    let (signer, which) = signer(&args.key, &attestation)?;
    let spec = ProofEvent {
        attestation: &attestation,
        content,
        content_kind: args.kind,
        relay_hint: args.relay_hint.as_deref(),
        proof: &proof,
        created_at: signing_key::created_at(args.created_at),
    };
    let event = spec.sign(&signer).map_err(|err| match err {
        ProofEventError::AuthorMismatch { .. }
        | ProofEventError::KindUnknown
        | ProofEventError::KindMismatch { .. } => anyhow::Error::new(UsageError(err.to_string())),
        other => anyhow::Error::new(other).context(format!("{}", args.ots.display())),
    })?;
    note!("priorart: signed the kind 1041 with {which}");
    println!("{}", priorart_nip::to_json(&event));
    Ok(ExitCode::SUCCESS)
}

/// The given key, else a throwaway one, and words saying which it is.
fn signer(key: &KeyArgs, attestation: &Attestation) -> Result<(Keys, String)> {
    Ok(match key.load()? {
        Some(keys) if keys.public_key() == attestation.event().pubkey => {
            let npub = signing_key::npub(&keys);
            (keys, format!("the attestation author's key {npub}"))
        }
        Some(keys) => {
            let npub = signing_key::npub(&keys);
            (keys, format!("key {npub}, not the author's (the NIP allows any signer)"))
        }
        None => {
            let keys = Keys::generate();
            let npub = signing_key::npub(&keys);
            (keys, format!("a fresh throwaway key {npub} (no key given; the NIP allows any signer)"))
        }
    })
}
