//! `priorart`: the command-line front door to the priorart crates.
//!
//! This crate is deliberately thin: it parses arguments, reads inputs, calls
//! the library crates and prints their answers. Every algorithm lives in a
//! library crate so that it can be tested, benchmarked and bound to other
//! languages without the CLI.
//!
//! Exit codes (`EXIT_CODES`, printed by `priorart --help`): 0 success, 1 bad
//! input or a negative verdict, 2 usage error, 3 unverified, 130 interrupted.

#![forbid(unsafe_code)]

/// `eprintln!` that cannot panic: messages and progress go to stderr, and a
/// closed stderr (`priorart … 2>&1 >/dev/null | head -1`) must not turn into
/// a crash, so a failed write is ignored.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `n` and the noun, in the singular for one: "1 document", "2 documents".
/// Every count a command prints goes through it, so none says "1 clusters".
fn counted(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

mod args;
mod compare_passages;
mod corpus;
mod dedup_against;
mod dedup_passages;
mod dedup_passages_against;
mod dedup_run;
mod exit;
mod index_passages;
mod input;
mod lookup;
mod pdf_child;
mod signing_key;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Declares the subcommands: one line each (`Variant => module: "help"`),
/// where `module` is a `*_cmd.rs` file with `Args` (clap) and
/// `run(Args) -> anyhow::Result<ExitCode>`.
macro_rules! subcommands {
    ($($variant:ident => $module:ident: $about:literal,)*) => {
        $(mod $module;)*

        #[derive(Subcommand)]
        enum Command {
            $(#[doc = $about] $variant($module::Args),)*
        }

        impl Command {
            fn run(self) -> anyhow::Result<ExitCode> {
                match self {
                    $(Command::$variant(args) => $module::run(args),)*
                }
            }
        }
    };
}

subcommands! {
    Fingerprint => fingerprint_cmd: "Print content fingerprints (the NIP-FF-3 `X` tag and others).",
    Key => key_cmd: "Create a nostr secret key file; show a key's npub.",
    Event => event_cmd: "Sign a content event carrying the NIP-FF-3 `X` tag of a text (key or bunker).",
    Attest => attest_cmd: "Sign the kind 1042 authorship attestation of a text (key or NIP-46 bunker).",
    Timestamp => timestamp_cmd: "Stamp an attestation's commitment (SHA-256 of its signature) through OpenTimestamps calendars.",
    Proof => proof_cmd: "Build and sign the kind 1041 proof event from an attestation and its Bitcoin-attested proof.",
    Verify => verify_cmd: "Verify a NIP-FF-3 kind 1041 (or NIP-03 kind 1040) step by step.",
    Compare => compare_cmd: "Compare two documents: NIP-FF-3 `X` equal or not, simhash-doc distance, similarity and band.",
    Ots => ots_cmd: "OpenTimestamps proofs: stamp, upgrade, verify (trusting no header source), info, prune.",
    Extract => extract_cmd: "Print the text of documents (HTML, XML, PDF, EPUB, text, WARC/ARC) as priorart hashes it.",
    Index => index_cmd: "A persistent near-duplicate index: build, add, query (distance, estimated similarity, same X), compact.",
    Dedup => dedup_cmd: "Every near-duplicate pair of a collection, verified by word 5-gram Jaccard, and their clusters.",
    Publish => publish_cmd: "Send signed events to nostr relays; report each relay's answer per event.",
    Check => check_cmd: "Ask relays who published a text (its X) first: every proof verified, ranked by Bitcoin block.",
    Relay => relay_cmd: "Run a persistent nostr relay (NIP-01, NIP-11) on an LMDB store.",
    Protect => protect_cmd: "Protect a text end to end: publish it, attest, stamp; later (--resume) publish its kind 1041 proof.",
    Serve => serve_cmd: "Run an open timestamping service: authors POST kind 1042 attestations, it publishes their kind 1041s.",
    Policy => policy_cmd: "A relay write policy (strfry plugin, nostr-rs-relay gRPC service): verify kind 1041 proofs and X tags, slow near-duplicate floods.",
}

/// What every command's exit code means (shown by `priorart --help`).
const EXIT_CODES: &str = "\
Exit codes:
  0  success (for verify and ots verify: the proof is valid)
  1  bad input, or a negative verdict (an invalid proof, a text that does not match)
  2  usage error (unknown option, conflicting options)
  3  unverified: every check that could run passed, but the Bitcoin proof could not be
     checked for lack of block headers (give --esplora, --bitcoin-rpc or --header-cache),
     or the header source served headers that fail their own checks
  130  interrupted (Ctrl-C or SIGTERM during dedup: earlier results are left as they were)

Examples:
  priorart fingerprint essay.md paper.pdf
  priorart compare draft.txt final.html
  priorart verify --esplora https://blockstream.info/api proof-event.json";

/// Has this content, or something close to it, existed before, and who can
/// prove they had it first?
#[derive(Parser)]
#[command(name = "priorart", version, long_about = None, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

fn main() -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|arg| arg == pdf_child::WORKER_ARG) {
        return pdf_child::worker();
    }
    let cli = Cli::parse();
    exit::report(cli.command.run())
}
