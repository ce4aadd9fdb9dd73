//! The files of a passage search's output directory, `passages.jsonl` and
//! `boilerplate.jsonl`, written one way for every front end (`priorart
//! dedup --passages --out DIR`, Python's `PassageStream.write`): the pairs
//! go to a temporary file in DIR as they are found (their number is not
//! bounded, so they are never held), which takes its name only once the
//! search is complete; then the boilerplate, found at the end, with any
//! other file of the run. A run stopped or failed before leaves the
//! earlier files as they were, and no temporary file (it is removed when
//! dropped).

use crate::DedupError;
use priorart_files::FileError;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// The pairs file of a passage search's output directory.
pub const PASSAGES: &str = "passages.jsonl";
/// Its boilerplate file.
pub const BOILERPLATE: &str = "boilerplate.jsonl";

/// Buffer of the pairs file.
const BUFFER: usize = 1 << 20;

/// A passage search's output directory being written: the pairs so far in
/// a temporary file (see the module).
pub struct PassageFiles {
    dir: PathBuf,
    pairs: BufWriter<NamedTempFile>,
}

impl PassageFiles {
    /// Creates `dir` if needed and the temporary pairs file in it (as the
    /// files `priorart_files` writes: mode 0666 less the umask).
    pub fn create(dir: &Path) -> Result<PassageFiles, DedupError> {
        std::fs::create_dir_all(dir).map_err(io(dir, "create"))?;
        let mut builder = tempfile::Builder::new();
        builder.prefix(".passages.jsonl.");
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let pairs = builder.tempfile_in(dir).map_err(io(dir, "write"))?;
        Ok(PassageFiles { dir: dir.to_owned(), pairs: BufWriter::with_capacity(BUFFER, pairs) })
    }

    /// The paths of the pairs and boilerplate files of `dir`.
    pub fn paths(dir: &Path) -> [PathBuf; 2] {
        [dir.join(PASSAGES), dir.join(BOILERPLATE)]
    }

    /// Appends a `passages.jsonl` line (ending in a newline).
    pub fn write_line(&mut self, line: &str) -> Result<(), DedupError> {
        // The path is made only for an error: made for every line, it was
        // an allocation a reported pair.
        self.pairs.write_all(line.as_bytes()).map_err(|err| io(&self.dir.join(PASSAGES), "write")(err))
    }

    /// Flushes the pairs to disk: they are complete, not yet in place.
    /// What a front end checks after this (a stop asked for while the
    /// file was synced) is the last moment to stop with nothing replaced.
    pub fn complete(self) -> Result<CompletePassageFiles, DedupError> {
        let path = self.dir.join(PASSAGES);
        let pairs = self.pairs.into_inner().map_err(|err| io(&path, "write")(err.into_error()))?;
        pairs.as_file().sync_all().map_err(io(&path, "write"))?;
        Ok(CompletePassageFiles { dir: self.dir, pairs })
    }
}

/// The pairs of a finished search on disk under a temporary name
/// ([`PassageFiles::complete`]), to be put in place with the boilerplate.
pub struct CompletePassageFiles {
    dir: PathBuf,
    pairs: NamedTempFile,
}

impl CompletePassageFiles {
    /// Writes `boilerplate` (the `boilerplate.jsonl` text) and each of
    /// `others` (`(path, bytes)`, such as the list of inputs skipped) under
    /// temporary names, then gives the pairs file and them their names,
    /// replacing what was there: a failure to write them leaves every
    /// earlier file as it was, the pairs included.
    pub fn place(self, boilerplate: &[u8], others: &[(PathBuf, Vec<u8>)]) -> Result<(), DedupError> {
        let [passages, boilerplate_path] = PassageFiles::paths(&self.dir);
        let mut files = Vec::with_capacity(1 + others.len());
        files.push((boilerplate_path, boilerplate.to_vec()));
        files.extend_from_slice(others);
        let staged = priorart_files::stage_all(&files).map_err(DedupError::OutputFile)?;
        self.pairs.persist(&passages).map_err(|err| io(&passages, "rename")(err.error))?;
        staged.place().map_err(DedupError::OutputFile)
    }
}

/// An I/O error of the output file `path` while trying `action`.
fn io<'a>(path: &'a Path, action: &'static str) -> impl FnOnce(std::io::Error) -> DedupError + 'a {
    move |source| DedupError::OutputFile(FileError::Io { path: path.to_owned(), action, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_files_take_their_names_only_when_placed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let mut files = PassageFiles::create(&out).unwrap();
        files.write_line("{\"a\":1}\n").unwrap();
        files.write_line("{\"a\":2}\n").unwrap();
        let complete = files.complete().unwrap();
        assert_eq!(names(&out).len(), 1, "only the temporary file: {:?}", names(&out));
        let skipped = (out.join("skipped.jsonl"), b"x\n".to_vec());
        complete.place(b"{\"b\":1}\n", &[skipped]).unwrap();
        assert_eq!(names(&out), [BOILERPLATE, PASSAGES, "skipped.jsonl"]);
        assert_eq!(std::fs::read(out.join(PASSAGES)).unwrap(), b"{\"a\":1}\n{\"a\":2}\n");
        assert_eq!(std::fs::read(out.join(BOILERPLATE)).unwrap(), b"{\"b\":1}\n");
    }

    #[test]
    fn a_run_let_go_of_leaves_the_earlier_files_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let [passages, boilerplate] = PassageFiles::paths(dir.path());
        std::fs::write(&passages, b"earlier\n").unwrap();
        std::fs::write(&boilerplate, b"earlier too\n").unwrap();
        let mut files = PassageFiles::create(dir.path()).unwrap();
        files.write_line("later\n").unwrap();
        drop(files);
        let complete = PassageFiles::create(dir.path()).unwrap().complete().unwrap();
        drop(complete);
        assert_eq!(names(dir.path()), [BOILERPLATE, PASSAGES]);
        assert_eq!(std::fs::read(&passages).unwrap(), b"earlier\n");
        assert_eq!(std::fs::read(&boilerplate).unwrap(), b"earlier too\n");
    }

    #[test]
    fn a_file_that_cannot_be_written_leaves_the_earlier_pairs_too() {
        let dir = tempfile::tempdir().unwrap();
        let [passages, _] = PassageFiles::paths(dir.path());
        std::fs::write(&passages, b"earlier\n").unwrap();
        let blocked = dir.path().join("a-file");
        std::fs::write(&blocked, b"").unwrap();
        let mut files = PassageFiles::create(dir.path()).unwrap();
        files.write_line("later\n").unwrap();
        let other = (blocked.join("skipped.jsonl"), b"x\n".to_vec());
        let err = files.complete().unwrap().place(b"", &[other]).expect_err("a-file is no directory");
        assert_eq!(err.reason(), "output_file");
        assert_eq!(std::fs::read(&passages).unwrap(), b"earlier\n");
        assert_eq!(names(dir.path()), ["a-file", PASSAGES], "no temporary file left");
    }

    #[test]
    fn a_directory_that_cannot_be_made_is_an_output_file_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let blocked = dir.path().join("a-file");
        std::fs::write(&blocked, b"").unwrap();
        let err = PassageFiles::create(&blocked.join("out")).err().expect("not a directory");
        assert_eq!(err.reason(), "output_file");
        assert!(err.to_string().contains("a-file/out"), "{err}");
    }
}
