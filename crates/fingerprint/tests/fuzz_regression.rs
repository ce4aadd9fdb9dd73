//! Replays the committed minimized fuzz corpora (`fuzz/regression/TARGET/`,
//! written by `scripts/fuzz.sh`) through the same checks the fuzz targets
//! run (`fuzz/checks.rs`), so CI re-runs every input the fuzzer kept.

#[path = "../fuzz/checks.rs"]
#[allow(dead_code)] // each test replays some of the checks
mod checks;

/// Runs `check` on every input of `target`'s committed corpus.
fn replay(target: &str, check: impl Fn(&[u8])) {
    priorart_testkit::replay_fuzz_corpus(env!("CARGO_MANIFEST_DIR"), target, check);
}

#[test]
fn equality() {
    replay("equality", checks::equality);
}

#[test]
fn json_string() {
    replay("json_string", checks::json_string);
}

#[test]
fn simhash_doc() {
    replay("simhash_doc", checks::simhash_doc);
}
