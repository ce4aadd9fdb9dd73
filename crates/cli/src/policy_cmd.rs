//! `priorart policy strfry --config FILE`: the write policy
//! (`priorart-policy`) as a strfry plugin, speaking its protocol on stdin
//! and stdout (`priorart_policy::strfry`).

use crate::args::read_policy_file;
use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use priorart_policy::Policy;
use priorart_policy::strfry::{self, Line};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

/// How often the policy file's modification time is looked at.
const RELOAD_CHECK_INTERVAL: Duration = Duration::from_secs(1);

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
    #[command(after_help = "The policy file is read again when its modification time changes (strfry does not \
                            restart a plugin whose command has arguments); a file that no longer parses leaves \
                            the policy in force. See docs/policy.md.")]
    Strfry {
        /// The policy file (TOML; see docs/policy.md).
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
    },
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.front {
        Front::Strfry { config } => serve_strfry(&config),
    }
}

fn serve_strfry(path: &Path) -> Result<ExitCode> {
    let mut loaded = LoadedPolicy::load(path)?;
    note!("priorart: policy {} in force", path.display());
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let mut line = Vec::new();
    loop {
        let answer = match strfry::read_line(&mut input, &mut line, strfry::MAX_LINE_BYTES)? {
            Line::End => return Ok(ExitCode::SUCCESS),
            Line::TooLong => Some(strfry::line_too_long()),
            Line::Read if line.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Read => {
                loaded.reload_if_changed();
                strfry::answer(&mut loaded.policy, &line)
            }
        };
        match answer {
            Some(answer) => {
                writeln!(output, "{answer}").context("writing to strfry")?;
                output.flush().context("writing to strfry")?;
            }
            None => note!("priorart: policy: a request of another type than \"new\", not answered"),
        }
    }
}

/// The policy and the file it came from, read again when it changes.
struct LoadedPolicy {
    path: PathBuf,
    policy: Policy,
    modified: Option<SystemTime>,
    checked: Instant,
}

impl LoadedPolicy {
    fn load(path: &Path) -> Result<LoadedPolicy> {
        let modified = modified(path);
        let policy = read_policy_file(path)?;
        Ok(LoadedPolicy { path: path.to_owned(), policy, modified, checked: Instant::now() })
    }

    /// At most once a second: a changed file replaces the policy (and its
    /// flood window); one that does not parse is reported and ignored.
    fn reload_if_changed(&mut self) {
        if self.checked.elapsed() < RELOAD_CHECK_INTERVAL {
            return;
        }
        self.checked = Instant::now();
        let modified = modified(&self.path);
        if modified == self.modified {
            return;
        }
        self.modified = modified;
        match read_policy_file(&self.path) {
            Ok(policy) => {
                self.policy = policy;
                note!("priorart: policy {} changed: reloaded", self.path.display());
            }
            Err(err) => note!("priorart: policy {} changed but is refused, the old one stays: {err:#}", self.path.display()),
        }
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|meta| meta.modified()).ok()
}
