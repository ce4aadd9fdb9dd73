//! Replays the fuzz corpora (the seeds in `fuzz/seeds/TARGET/` and the
//! minimized corpus `fuzz/corpora/TARGET.tar.gz`, written by
//! `scripts/fuzz.sh`) through the same checks the fuzz targets run
//! (`fuzz/checks.rs`), so CI re-runs every input the fuzzer kept.

#[path = "../fuzz/checks.rs"]
mod checks;

/// Runs `check` on every input of `target`'s seeds and archived corpus
/// (testkit fails the test if either is missing or the archive differs
/// from its manifest).
fn replay(target: &str, check: impl Fn(&[u8])) {
    let replayed = priorart_testkit::replay_fuzz_corpus(env!("CARGO_MANIFEST_DIR"), target, check);
    eprintln!("{target}: {} seeds, {} archived inputs", replayed.seeds, replayed.archived);
}

#[test]
fn strfry_line() {
    replay("strfry_line", checks::strfry_line);
}

#[test]
fn policy_toml() {
    replay("policy_toml", checks::policy_toml);
}
