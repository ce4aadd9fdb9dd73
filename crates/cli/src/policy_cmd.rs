//! `priorart policy strfry|grpc --config FILE`: the write policy
//! (`priorart-policy`) as a strfry plugin, speaking its protocol on stdin
//! and stdout (`priorart_policy::strfry`), or as nostr-rs-relay's gRPC event
//! admission service (`priorart-policy-grpc`).

use crate::args::stopped;
use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use priorart_policy::strfry::{self, Line};
use priorart_policy::{PolicyFile, Reload};
use priorart_policy_grpc::Admission;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

const RELOAD_HELP: &str = "The policy file is read again when its modification time changes (looked at most once a \
                           second); a file that no longer parses leaves the policy in force. See docs/policy.md.";

#[derive(Parser)]
pub struct Args {
    #[command(subcommand)]
    front: Front,
}

#[derive(Subcommand)]
enum Front {
    /// strfry's write-policy plugin: JSON lines on stdin, one decision per
    /// line on stdout. In strfry.conf:
    /// relay.writePolicy.plugin = "priorart policy strfry --config /etc/priorart/policy.toml".
    #[command(after_help = RELOAD_HELP)]
    Strfry {
        /// The policy file (TOML; see docs/policy.md).
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
    },
    /// nostr-rs-relay's event admission server (gRPC, its proto/nauthz.proto).
    /// In its config.toml: [grpc] event_admission_server = "http://127.0.0.1:50051".
    /// Reject and shadowReject both answer DECISION_DENY (nostr-rs-relay has
    /// no shadow reject).
    #[command(after_help = RELOAD_HELP)]
    Grpc {
        /// The policy file (TOML; see docs/policy.md).
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// Address to listen on (port 0: any free port, printed on stderr).
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:50051")]
        listen: SocketAddr,
    },
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.front {
        Front::Strfry { config } => serve_strfry(&config),
        Front::Grpc { config, listen } => serve_grpc(&config, listen),
    }
}

/// The policy of `path`, to be read again when it changes.
pub(crate) fn load_policy(path: &Path) -> Result<PolicyFile> {
    let file = PolicyFile::load(path)?;
    note!("priorart: policy {} in force", path.display());
    Ok(file)
}

/// Reads the policy file again if it changed, saying so on stderr.
pub(crate) fn reload_policy(file: &mut PolicyFile) {
    match file.reload_if_changed() {
        Reload::Unchanged => {}
        Reload::Reloaded => note!("priorart: policy {} changed: reloaded", file.path().display()),
        Reload::Refused(err) => {
            note!("priorart: policy {} changed but is refused, the old one stays: {err}", file.path().display());
        }
    }
}

/// The Unix time now: when the relay handed the event over.
pub(crate) fn received_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_secs())
}

fn serve_strfry(path: &Path) -> Result<ExitCode> {
    let mut loaded = load_policy(path)?;
    // Our own buffers on both sides, so that answers are flushed only when
    // no whole request is waiting: strfry, which sends one request and
    // waits, gets each answer at once; requests sent back to back get
    // their answers a buffer at a time, not a write call each.
    let mut input = std::io::BufReader::with_capacity(1 << 16, std::io::stdin());
    let mut output = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = Vec::new();
    loop {
        // Before a read that may wait for strfry, strfry must have every answer.
        if !input.buffer().contains(&b'\n') {
            output.flush().context("writing to strfry")?;
        }
        let answer = match strfry::read_line(&mut input, &mut line, strfry::MAX_LINE_BYTES)? {
            Line::End => return Ok(ExitCode::SUCCESS),
            Line::TooLong => Some(strfry::line_too_long()),
            Line::Read if line.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Read => {
                reload_policy(&mut loaded);
                strfry::answer(loaded.policy(), &line)
            }
        };
        match answer {
            Some(answer) => {
                writeln!(output, "{answer}").context("writing to strfry")?;
            }
            None => note!("priorart: policy: a request of another type than \"new\", not answered"),
        }
    }
}

fn serve_grpc(path: &Path, listen: SocketAddr) -> Result<ExitCode> {
    let mut loaded = load_policy(path)?;
    let admission = Admission::new(move |event| {
        reload_policy(&mut loaded);
        loaded.decide(event, received_now())
    });
    let runtime = tokio::runtime::Runtime::new().context("cannot start the gRPC server's runtime")?;
    runtime.block_on(async {
        let listener =
            tokio::net::TcpListener::bind(listen).await.with_context(|| format!("cannot listen on {listen}"))?;
        let address = listener.local_addr().context("the listening address")?;
        note!("priorart: policy grpc listening on http://{address}");
        priorart_policy_grpc::serve(listener, admission, stopped()).await.context("the gRPC server failed")?;
        note!("priorart: policy grpc stopped");
        Ok(ExitCode::SUCCESS)
    })
}
