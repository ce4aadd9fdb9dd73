//! Replays the fuzz corpora (the seeds in `fuzz/seeds/TARGET/` and the
//! minimized corpus `fuzz/corpora/TARGET.tar.gz`, written by
//! `scripts/fuzz.sh`) through the same checks the fuzz targets run
//! (`fuzz/checks.rs`), so CI re-runs every input the fuzzer kept.

#[path = "../fuzz/checks.rs"]
mod checks;

#[test]
fn stored() {
    let replayed = priorart_testkit::replay_fuzz_corpus(env!("CARGO_MANIFEST_DIR"), "stored", checks::stored);
    eprintln!("stored: {} seeds, {} archived inputs", replayed.seeds, replayed.archived);
}

#[test]
fn marks() {
    let replayed = priorart_testkit::replay_fuzz_corpus(env!("CARGO_MANIFEST_DIR"), "marks", checks::marks);
    eprintln!("marks: {} seeds, {} archived inputs", replayed.seeds, replayed.archived);
}
