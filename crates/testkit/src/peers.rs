//! Peer implementations (the Python OpenTimestamps client, nostr-relay,
//! nostr-tools, NDK, simhash-js, pdftotext…) that tests cross-check
//! against, and what a test does when one is missing. The scripts in
//! `.ci/setup.d` install them.
//!
//! One variable decides: with `PRIORART_REQUIRE_PEERS=1` (set by `.ci/run`)
//! a missing peer fails the test. Unset, empty or `0`, the test skips the
//! cross-check, prints why, and appends a line to
//! `target/priorart-skipped.txt`, which `scripts/test.sh` prints as one
//! summary at the end, so that a skipped cross-check is never mistaken for
//! one that ran. Any other value is a mistake and fails the test.

use std::io::Write;
use std::path::PathBuf;

/// The variable that makes a missing peer a failure.
pub const REQUIRE_PEERS_ENV: &str = "PRIORART_REQUIRE_PEERS";

/// The file, in the target directory, that collects the skips of a run.
pub const SKIPPED_FILE: &str = "priorart-skipped.txt";

/// Whether the on/off test variable `variable` is on: `1` is on; unset,
/// empty or `0` is off; any other value panics (no "set to anything").
pub fn env_flag(variable: &str) -> bool {
    let value = std::env::var(variable).ok();
    flag(value.as_deref()).unwrap_or_else(|| panic!("{variable}={value:?}: use 1 (on) or 0 (off)"))
}

fn flag(value: Option<&str>) -> Option<bool> {
    match value {
        None | Some("" | "0") => Some(false),
        Some("1") => Some(true),
        Some(_) => None,
    }
}

/// Whether a missing peer fails the test ([`REQUIRE_PEERS_ENV`] is 1).
pub fn peers_required() -> bool {
    env_flag(REQUIRE_PEERS_ENV)
}

/// `installed`, after dealing with a missing `peer`: panics when peers are
/// required, else records the skip and says how to `install` it (for
/// example "run .ci/setup.d/ots.sh"). A test returns early on `false`.
pub fn peer_available(peer: &str, installed: bool, install: &str) -> bool {
    optional_peer_available(REQUIRE_PEERS_ENV, peer, installed, install)
}

/// [`peer_available`] for a peer that CI does not install, required only
/// when its own on/off `variable` is 1.
pub fn optional_peer_available(variable: &str, peer: &str, installed: bool, install: &str) -> bool {
    if installed {
        return true;
    }
    assert!(!env_flag(variable), "{peer} is required ({variable}=1) but not installed: {install}");
    let test = std::thread::current().name().unwrap_or("?").to_owned();
    let line = format!("{} {test}: {peer} is not installed: {install}", test_package());
    eprintln!("skipped: {line}");
    record_skip(&line);
    false
}

/// Whether an executable `program` is on `PATH`.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// The package whose tests run (`cargo test` sets `CARGO_PKG_NAME`), else
/// the test binary's name without cargo's hash; libtest names each test's
/// thread after the test.
fn test_package() -> String {
    if let Ok(package) = std::env::var("CARGO_PKG_NAME") {
        return package;
    }
    let exe = std::env::current_exe().unwrap_or_default();
    let stem = exe.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
        _ => stem,
    }
}

/// The target directory of the running test binary
/// (`TARGET/PROFILE/deps/NAME-HASH`).
fn target_dir() -> Option<PathBuf> {
    Some(std::env::current_exe().ok()?.parent()?.parent()?.parent()?.to_path_buf())
}

fn record_skip(line: &str) {
    let Some(path) = target_dir().map(|dir| dir.join(SKIPPED_FILE)) else { return };
    // One short write in append mode: lines of parallel tests do not mix.
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| file.write_all(format!("{line}\n").as_bytes()));
    if let Err(error) = written {
        eprintln!("could not record the skip in {}: {error}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::flag;

    #[test]
    fn a_flag_is_one_or_zero() {
        assert_eq!(flag(None), Some(false));
        assert_eq!(flag(Some("")), Some(false));
        assert_eq!(flag(Some("0")), Some(false));
        assert_eq!(flag(Some("1")), Some(true));
        assert_eq!(flag(Some("yes")), None);
        assert_eq!(flag(Some("true")), None);
    }
}
