//! Temporary files a search is done with, kept open so that the files it
//! writes next reuse their pages.
//!
//! Why: on the virtual machines this project is measured on (and many a
//! cloud machine), a page new to the page cache costs far more than one
//! written again. Measured there with `dd if=/dev/zero bs=1M count=8000`:
//! 22.0 s of system time into a new file, 2.5 s into the same file again
//! (`conv=notrunc`), and 14.3 s into a new file a few seconds after an
//! earlier one was deleted (a freed page goes back to the host, and the
//! next is faulted in again). A passage search writes its postings and its
//! pair records in sorted runs and is done with them before pass 2, which
//! writes its store of prepared texts (about 3.5 times their text): the
//! store now overwrites the runs' files ([`Spare::take`]) instead of
//! growing a new one while theirs are deleted. On the 3 GB generated
//! corpus that is 5.5 GB of the store's 8.5 (BENCHMARKS.md, stop 61).

use std::fs::File;
use std::ops::Deref;
use std::sync::{Arc, Mutex, PoisonError};

/// The most bytes of files kept at once. Pages help only while the page
/// cache holds them, and a file kept holds its disk space until the search
/// ends where it was freed before: 8 GiB bounds both (more would be
/// evicted on a machine of 24 GiB that also caches the search's inputs).
/// Files past it are closed, as before.
pub(crate) const MOST_SPARE_BYTES: u64 = 8 << 30;

/// The most files kept at once: each is open until the store takes it
/// (runs are merged 64 at a time, [`crate::runs::FAN_IN`]; the 3 GB
/// generated corpus leaves 22 runs of 256 MiB).
pub(crate) const MOST_SPARE_FILES: usize = 128;

/// Files kept for reuse, shared by the parts of one search.
#[derive(Clone, Default)]
pub(crate) struct Spare(Arc<Mutex<Kept>>);

/// The files kept and their bytes in all.
#[derive(Default)]
struct Kept {
    files: Vec<(File, u64)>,
    bytes: u64,
}

impl Spare {
    /// Keeps `file` while there is room for it ([`MOST_SPARE_BYTES`],
    /// [`MOST_SPARE_FILES`]), or closes it.
    fn keep(&self, file: File) {
        let Ok(bytes) = file.metadata().map(|metadata| metadata.len()) else { return };
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let room = kept.bytes + bytes <= MOST_SPARE_BYTES && kept.files.len() < MOST_SPARE_FILES;
        if bytes > 0 && room {
            kept.bytes += bytes;
            kept.files.push((file, bytes));
        }
    }

    /// Every file kept so far, each with its length (the bytes that may
    /// be written again without growing it), no longer kept.
    pub(crate) fn take(&self) -> Vec<(File, u64)> {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.bytes = 0;
        std::mem::take(&mut kept.files)
    }
}

/// A run's file: given to its search's [`Spare`] when dropped, if it has
/// one, else closed (and gone: runs are unnamed temporary files).
pub(crate) struct RunFile {
    file: Option<File>,
    spare: Option<Spare>,
}

impl RunFile {
    pub(crate) fn new(file: File, spare: Option<Spare>) -> RunFile {
        RunFile { file: Some(file), spare }
    }
}

impl Deref for RunFile {
    type Target = File;

    fn deref(&self) -> &File {
        self.file.as_ref().expect("a run's file is held until it is dropped")
    }
}

impl Drop for RunFile {
    fn drop(&mut self) {
        if let (Some(file), Some(spare)) = (self.file.take(), &self.spare) {
            spare.keep(file);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: usize) -> File {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&vec![7; bytes]).unwrap();
        file
    }

    #[test]
    fn run_files_dropped_are_kept_with_their_lengths_and_taken_once() {
        let spare = Spare::default();
        drop(RunFile::new(file_of(100), Some(spare.clone())));
        drop(RunFile::new(file_of(0), Some(spare.clone())));
        drop(RunFile::new(file_of(30), None));
        drop(RunFile::new(file_of(50), Some(spare.clone())));
        let lengths: Vec<u64> = spare.take().iter().map(|(_, bytes)| *bytes).collect();
        // An empty file has no pages to give; one without a spare is closed.
        assert_eq!(lengths, [100, 50]);
        assert!(spare.take().is_empty());
    }

    #[test]
    fn files_past_the_most_bytes_or_files_are_closed() {
        let spare = Spare::default();
        spare.0.lock().unwrap().bytes = MOST_SPARE_BYTES - 60;
        drop(RunFile::new(file_of(100), Some(spare.clone())));
        drop(RunFile::new(file_of(60), Some(spare.clone())));
        let lengths: Vec<u64> = spare.take().iter().map(|(_, bytes)| *bytes).collect();
        assert_eq!(lengths, [60]);
        for _ in 0..MOST_SPARE_FILES + 5 {
            drop(RunFile::new(file_of(1), Some(spare.clone())));
        }
        assert_eq!(spare.take().len(), MOST_SPARE_FILES);
    }
}
