//! Replay of the fuzz corpora kept by `scripts/fuzz.sh`: the seeds in the
//! tree (`CRATE/fuzz/seeds/TARGET/`, with every input that ever failed) and
//! the minimized corpus packed as `CRATE/fuzz/corpora/TARGET.tar.gz`, read
//! in memory and checked against its manifest `TARGET.sum`.

use priorart_ots::hex::encode as hex;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest corpus archive a target may commit (`scripts/fuzz.sh`
/// refuses to pack more): the largest today is 0.37 MB.
pub const FUZZ_ARCHIVE_CAP_BYTES: u64 = 1 << 20;

/// How many inputs a replay ran through the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replayed {
    /// Files of `fuzz/seeds/TARGET/`.
    pub seeds: usize,
    /// Entries of `fuzz/corpora/TARGET.tar.gz`, as many as its manifest lists.
    pub archived: usize,
}

/// Runs `check` on every seed and every archived input of `target`, as the
/// fuzz target would; a failure names the input. Panics (fails the test)
/// when the seeds or the archive are missing or empty, when the archive is
/// over [`FUZZ_ARCHIVE_CAP_BYTES`], and when what it holds differs from its
/// manifest (input count, and the SHA-256 of the `sha256sum` listing of
/// the inputs sorted by name): a replay cannot pass by replaying nothing.
pub fn replay_fuzz_corpus(crate_dir: &str, target: &str, check: impl Fn(&[u8])) -> Replayed {
    let fuzz = Path::new(crate_dir).join("fuzz");
    let seeds = replay_seeds(&fuzz.join("seeds").join(target), &check);
    let archived = replay_archive(&fuzz.join("corpora"), target, &check);
    Replayed { seeds, archived }
}

fn replay_seeds(dir: &Path, check: &impl Fn(&[u8])) -> usize {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|error| panic!("no seed corpus {}: {error}", dir.display()));
    let mut paths: Vec<PathBuf> =
        entries.map(|entry| entry.expect("readable seed directory").path()).collect();
    paths.sort();
    for path in &paths {
        let input = std::fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        run_check(check, &input, &path.display().to_string());
    }
    assert!(!paths.is_empty(), "{} holds no seeds", dir.display());
    paths.len()
}

fn replay_archive(corpora: &Path, target: &str, check: &impl Fn(&[u8])) -> usize {
    let archive = corpora.join(format!("{target}.tar.gz"));
    let file = std::fs::File::open(&archive)
        .unwrap_or_else(|error| panic!("no corpus {}: {error}", archive.display()));
    let bytes = file.metadata().expect("corpus archive metadata").len();
    assert!(
        bytes <= FUZZ_ARCHIVE_CAP_BYTES,
        "{} is {bytes} bytes, over the cap of {FUZZ_ARCHIVE_CAP_BYTES}",
        archive.display()
    );
    let mut listing = Vec::new();
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in tar.entries().unwrap_or_else(|error| panic!("{}: {error}", archive.display())) {
        let mut entry = entry.unwrap_or_else(|error| panic!("{}: {error}", archive.display()));
        let name = entry.path().expect("a corpus entry name").display().to_string();
        let mut input = Vec::new();
        entry.read_to_end(&mut input).unwrap_or_else(|error| panic!("{}:{name}: {error}", archive.display()));
        run_check(check, &input, &format!("{}:{name}", archive.display()));
        listing.push((name, hex(&Sha256::digest(&input))));
    }
    let manifest_path = corpora.join(format!("{target}.sum"));
    let manifest = std::fs::read_to_string(&manifest_path)
        .unwrap_or_else(|error| panic!("no manifest {}: {error}", manifest_path.display()));
    let count = listing.len();
    assert!(count > 0, "{} holds no inputs", archive.display());
    let replayed = format!("{count} {}", listing_digest(listing));
    assert_eq!(replayed, manifest.trim(), "{} differs from its manifest", archive.display());
    count
}

/// The SHA-256 of `sha256sum`'s output for the inputs sorted by name
/// (`HASH  NAME` lines), which `scripts/fuzz.sh` writes into the manifest.
fn listing_digest(mut listing: Vec<(String, String)>) -> String {
    listing.sort();
    let mut digest = Sha256::new();
    for (name, hash) in listing {
        digest.update(format!("{hash}  {name}\n"));
    }
    hex(&digest.finalize())
}

fn run_check(check: &impl Fn(&[u8]), input: &[u8], name: &str) {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(input)));
    assert!(outcome.is_ok(), "{name} fails its check");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate directory with `seeds/t/seed` and, if given, an archive of
    /// `inputs` and a manifest line.
    fn fuzz_dir(inputs: Option<&[(&str, &[u8])]>, manifest: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let fuzz = dir.path().join("fuzz");
        std::fs::create_dir_all(fuzz.join("seeds/t")).expect("seeds directory");
        std::fs::write(fuzz.join("seeds/t/seed"), b"seed").expect("a seed");
        std::fs::create_dir_all(fuzz.join("corpora")).expect("corpora directory");
        if let Some(inputs) = inputs {
            let archive = std::fs::File::create(fuzz.join("corpora/t.tar.gz")).expect("an archive");
            let mut tar =
                tar::Builder::new(flate2::write::GzEncoder::new(archive, flate2::Compression::fast()));
            for (name, data) in inputs {
                let mut header = tar::Header::new_ustar();
                header.set_size(data.len() as u64);
                header.set_mode(0o644);
                header.set_cksum();
                tar.append_data(&mut header, name, *data).expect("an entry");
            }
            tar.into_inner().expect("a tar").finish().expect("a gzip stream");
        }
        std::fs::write(fuzz.join("corpora/t.sum"), manifest).expect("a manifest");
        dir
    }

    fn replay(dir: &tempfile::TempDir) -> Replayed {
        replay_fuzz_corpus(dir.path().to_str().expect("a UTF-8 path"), "t", |_| {})
    }

    #[test]
    #[should_panic(expected = "no seed corpus")]
    fn a_missing_corpus_fails() {
        replay_fuzz_corpus(env!("CARGO_MANIFEST_DIR"), "no-such-target", |_| {});
    }

    #[test]
    #[should_panic(expected = "no corpus")]
    fn a_missing_archive_fails() {
        replay(&fuzz_dir(None, ""));
    }

    #[test]
    fn the_archive_is_replayed_against_its_manifest() {
        // The manifest `scripts/fuzz.sh` would write for one input `a` holding `b`.
        let listing = format!("{}  a\n", hex(&Sha256::digest(b"b")));
        let manifest = format!("1 {}\n", hex(&Sha256::digest(listing.as_bytes())));
        let replayed = replay(&fuzz_dir(Some(&[("a", b"b")]), &manifest));
        assert_eq!(replayed, Replayed { seeds: 1, archived: 1 });
    }

    #[test]
    #[should_panic(expected = "differs from its manifest")]
    fn an_archive_that_lost_an_input_fails() {
        let listing = format!("{}  a\n{}  c\n", hex(&Sha256::digest(b"b")), hex(&Sha256::digest(b"d")));
        let manifest = format!("2 {}\n", hex(&Sha256::digest(listing.as_bytes())));
        replay(&fuzz_dir(Some(&[("a", b"b")]), &manifest));
    }

    #[test]
    #[should_panic(expected = "fails its check")]
    fn a_failing_input_fails() {
        let dir = fuzz_dir(Some(&[("a", b"b")]), "");
        replay_fuzz_corpus(dir.path().to_str().expect("a UTF-8 path"), "t", |input| assert_ne!(input, b"b"));
    }
}
