//! Replays the committed minimized fuzz corpora (`fuzz/regression/TARGET/`,
//! written by `scripts/fuzz.sh`) through the same checks the fuzz targets
//! run (`fuzz/checks.rs`), so CI re-runs every input the fuzzer kept.

#[path = "../fuzz/checks.rs"]
#[allow(dead_code)] // each test replays some of the checks
mod checks;

use std::path::Path;

/// Runs `check` on every input of `target`'s corpus; a failure names the file.
fn replay(target: &str, check: impl Fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regression").join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    for path in entries.map(|entry| entry.expect("readable corpus directory").path()) {
        let input = std::fs::read(&path).expect("readable corpus file");
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&input)));
        assert!(outcome.is_ok(), "{} fails its check", path.display());
    }
}

#[test]
fn every_format() {
    use priorart_extract::Format;
    for (target, format) in [
        ("arc", Format::Arc),
        ("epub", Format::Epub),
        ("html", Format::Html),
        ("text", Format::Text),
        ("warc", Format::Warc),
        ("xml", Format::Xml),
    ] {
        replay(target, |input| checks::format(input, format));
    }
    replay("detect", checks::detected);
    replay("pdf", checks::pdf);
}
