//! `priorart`: the command-line front door to the priorart crates.
//!
//! This crate is deliberately thin: it parses arguments, reads inputs, calls
//! the library crates and prints their answers. Every algorithm lives in a
//! library crate so that it can be tested, benchmarked and bound to other
//! languages without the CLI.
//!
//! Exit codes (documented in the README): 0 success, 1 bad input (or a
//! negative verdict, for verification commands), 2 usage error.

mod exit;
mod extract_cmd;
mod fingerprint_cmd;
mod input;

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
    /// Print the text of documents (HTML, XML, PDF, EPUB, text, WARC/ARC) as priorart hashes it.
    Extract(extract_cmd::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Fingerprint(args) => fingerprint_cmd::run(args),
        Command::Extract(args) => extract_cmd::run(args),
    };
    exit::report(result)
}
