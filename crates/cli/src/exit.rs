//! Mapping of outcomes to exit codes and one-line error messages.

use std::fmt;
use std::process::ExitCode;

/// Exit code for success.
pub const OK: u8 = 0;
/// Exit code for bad input (unreadable file, invalid UTF-8, malformed JSON),
/// and for a negative verdict of a verification command.
pub const BAD_INPUT: u8 = 1;
/// Exit code for a usage error (unknown option value, conflicting options).
pub const USAGE: u8 = 2;
/// Exit code of a run stopped by Ctrl-C (SIGINT) or SIGTERM (128 + 2, as
/// shells report a process a SIGINT ended).
pub const INTERRUPTED: u8 = 130;
/// Exit code of a verification that could not be checked, as opposed to one
/// that failed: every check that could run passed, but no Bitcoin block
/// header could be had (no header source given, or it was unreachable).
pub const UNVERIFIED: u8 = 3;

/// What to tell a person whose proof could not be checked for lack of headers.
pub const HEADER_SOURCE_HINT: &str = "no Bitcoin block header to check the proof against: give a header source \
     (--esplora URL, --bitcoin-rpc URL with --rpc-cookie or --rpc-user, or --header-cache DIR holding HEIGHT.hex files)";

/// Marks an error as a usage error, so that it exits with [`USAGE`].
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Prints an error (if any) as one line on stderr and picks the exit code.
pub fn report(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::from(OK),
        Err(err) => {
            note!("priorart: {err:#}");
            if err.chain().any(|cause| cause.is::<UsageError>()) {
                ExitCode::from(USAGE)
            } else {
                ExitCode::from(BAD_INPUT)
            }
        }
    }
}

/// `priorart … | head` closes our stdout early; that is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
