//! `priorart`: the command-line front door to the priorart crates.
//!
//! This crate is deliberately thin: it parses arguments, reads inputs, calls
//! the library crates and prints their answers. Every algorithm lives in a
//! library crate so that it can be tested, benchmarked and bound to other
//! languages without the CLI.
//!
//! Exit codes (documented in the README): 0 success, 1 bad input (or a
//! negative verdict, for verification commands), 2 usage error.

mod attest_cmd;
mod compare_cmd;
mod event_cmd;
mod exit;
mod extract_cmd;
mod fingerprint_cmd;
mod input;
mod key_cmd;
mod ots_cmd;
mod proof_cmd;
mod signing_key;
mod timestamp_cmd;
mod verify_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Has this content, or something close to it, existed before?
#[derive(Parser)]
#[command(name = "priorart", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print content fingerprints (the NIP-FF-3 `X` tag and others).
    Fingerprint(fingerprint_cmd::Args),
    /// Create a nostr secret key file; show a key's npub.
    Key(key_cmd::Args),
    /// Sign a content event carrying the NIP-FF-3 `X` tag of a text.
    Event(event_cmd::Args),
    /// Sign the kind 1042 authorship attestation of a text (needs the author's key).
    Attest(attest_cmd::Args),
    /// Stamp an attestation's commitment (SHA-256 of its signature) through OpenTimestamps calendars.
    Timestamp(timestamp_cmd::Args),
    /// Build and sign the kind 1041 proof event from an attestation and its Bitcoin-attested proof.
    Proof(proof_cmd::Args),
    /// Verify a NIP-FF-3 kind 1041 (or NIP-03 kind 1040) step by step.
    Verify(verify_cmd::Args),
    /// Compare two documents: NIP-FF-3 `X` equal or not, simhash-doc distance,
    /// similarity and band.
    Compare(compare_cmd::Args),
    /// OpenTimestamps proofs: stamp, upgrade, verify (trusting no header source), info, prune.
    Ots(ots_cmd::Args),
    /// Print the text of documents (HTML, XML, PDF, EPUB, text, WARC/ARC) as priorart hashes it.
    Extract(extract_cmd::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Fingerprint(args) => fingerprint_cmd::run(args),
        Command::Key(args) => key_cmd::run(args),
        Command::Event(args) => event_cmd::run(args),
        Command::Attest(args) => attest_cmd::run(args),
        Command::Timestamp(args) => timestamp_cmd::run(args),
        Command::Proof(args) => proof_cmd::run(args),
        Command::Verify(args) => verify_cmd::run(args),
        Command::Compare(args) => compare_cmd::run(args),
        Command::Ots(args) => ots_cmd::run(args),
        Command::Extract(args) => extract_cmd::run(args),
    };
    exit::report(result)
}
