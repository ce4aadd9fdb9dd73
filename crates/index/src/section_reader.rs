//! A file read in order from an offset through a buffer of bounded size
//! (`SectionReader`): how compaction reads the segment and marks files it
//! merges. Read through their maps, every page of them would count in the
//! process's memory (5 GB for a 3 GB corpus's index); read so, they stay
//! in the page cache, which the kernel may drop. In a module of its own,
//! so that the segment and marks readers share it without importing each
//! other.

use priorart_files::FileError;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// A file read from an offset on, with typed errors naming it: a file
/// shorter than the reads asked of it is a [`FileError::Io`] of kind
/// [`std::io::ErrorKind::UnexpectedEof`].
pub(crate) struct SectionReader {
    reader: BufReader<File>,
    path: PathBuf,
}

impl SectionReader {
    /// `path` read from byte `at` on through a buffer of `capacity` bytes.
    pub(crate) fn open(path: &Path, at: u64, capacity: usize) -> Result<SectionReader, FileError> {
        let io = |action| move |source| FileError::Io { path: path.to_owned(), action, source };
        let mut file = File::open(path).map_err(io("open"))?;
        file.seek(SeekFrom::Start(at)).map_err(io("read"))?;
        Ok(SectionReader { reader: BufReader::with_capacity(capacity, file), path: path.to_owned() })
    }

    /// The next `bytes.len()` bytes.
    pub(crate) fn read(&mut self, bytes: &mut [u8]) -> Result<(), FileError> {
        self.reader.read_exact(bytes).map_err(|source| FileError::Io {
            path: self.path.clone(),
            action: "read",
            source,
        })
    }

    /// The next eight bytes, little-endian.
    pub(crate) fn u64(&mut self) -> Result<u64, FileError> {
        let mut bytes = [0u8; 8];
        self.read(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    }

    /// The next four bytes, little-endian.
    pub(crate) fn u32(&mut self) -> Result<u32, FileError> {
        let mut bytes = [0u8; 4];
        self.read(&mut bytes)?;
        Ok(u32::from_le_bytes(bytes))
    }
}
