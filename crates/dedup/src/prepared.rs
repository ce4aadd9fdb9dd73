//! What the passage search's pass 1 keeps of each document for pass 2:
//! its text cut into the aligner's words and winnowed
//! ([`priorart_align::Winnowing::marked`], the cutting and winnowing pass
//! 1 does for its marks anyway), written to a temporary file in document
//! order ([`MarkedText::write_to`]: about 3.5 times the text) and read back
//! for each round that pairs it.
//!
//! Why not read the inputs again, as `dedup` does: cutting and winnowing
//! the candidates a second time took a fifth of the search's time on the
//! planted sample, more than pass 1's own winnowing, where reading them
//! back is a copy (BENCHMARKS.md, "Prepared once"); and pass 2 no longer
//! depends on the inputs staying as they were.

use crate::error::DedupError;
use priorart_align::MarkedText;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// The prepared texts written so far, one record per document in number
/// order (an empty one for a document that was not marked).
pub(crate) struct PreparedTexts {
    writer: BufWriter<File>,
    /// Where each document's record ends in the file.
    ends: Vec<u64>,
    /// The record being written (one buffer for them all).
    record: Vec<u8>,
}

impl PreparedTexts {
    /// None yet, in a temporary file in `temp_dir` (the system's when
    /// `None`).
    pub(crate) fn new(temp_dir: Option<&Path>) -> Result<PreparedTexts, DedupError> {
        let file = crate::runs::temp_file(temp_dir).map_err(DedupError::Spill)?;
        Ok(PreparedTexts {
            writer: BufWriter::with_capacity(1 << 20, file),
            ends: Vec::new(),
            record: Vec::new(),
        })
    }

    /// Appends the next document: `marked`, or `None` for one that was not
    /// marked (over the aligner's size limit: in no pair).
    pub(crate) fn push(&mut self, marked: Option<&MarkedText>) -> Result<(), DedupError> {
        self.record.clear();
        if let Some(marked) = marked {
            marked.write_to(&mut self.record);
        }
        self.writer.write_all(&self.record).map_err(DedupError::Spill)?;
        let end = self.ends.last().copied().unwrap_or(0) + self.record.len() as u64;
        self.ends.push(end);
        Ok(())
    }

    /// Documents appended.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The file written, to be read back.
    pub(crate) fn finish(self) -> Result<StoredTexts, DedupError> {
        let file = self.writer.into_inner().map_err(|err| DedupError::Spill(err.into_error()))?;
        Ok(StoredTexts { file, ends: self.ends })
    }
}

/// The prepared texts of pass 1, read back.
pub(crate) struct StoredTexts {
    file: File,
    ends: Vec<u64>,
}

impl StoredTexts {
    /// Document `number`'s prepared text (`None` when it was not marked),
    /// checked: a damaged record is an error, never a text.
    pub(crate) fn read(&self, number: u32) -> Result<Option<MarkedText>, DedupError> {
        let number = number as usize;
        let Some(&end) = self.ends.get(number) else {
            return Err(damaged(format!("no record of document {number}").into()));
        };
        let start = if number == 0 { 0 } else { self.ends[number - 1] };
        if start == end {
            return Ok(None);
        }
        let length = usize::try_from(end - start).map_err(|err| damaged(err.into()))?;
        let mut record = vec![0; length];
        self.file.read_exact_at(&mut record, start).map_err(DedupError::Spill)?;
        match MarkedText::read_from(&record) {
            Ok((marked, [])) => Ok(Some(marked)),
            Ok(_) => Err(damaged("bytes after its record".into())),
            Err(err) => Err(damaged(err.into())),
        }
    }
}

/// A record read back that is not what was written.
pub(crate) fn damaged(why: Box<dyn std::error::Error + Send + Sync>) -> DedupError {
    DedupError::Spill(std::io::Error::new(std::io::ErrorKind::InvalidData, why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use priorart_align::Winnowing;

    #[test]
    fn texts_are_read_back_by_number_and_damage_is_refused() {
        let winnowing = Winnowing::default();
        let texts = ["alpha beta gamma delta epsilon zeta eta theta", "", "漢字のテストです 42 words here"];
        let mut prepared = PreparedTexts::new(None).unwrap();
        for (number, text) in texts.iter().enumerate() {
            let marked = winnowing.marked((*text).to_owned()).unwrap();
            prepared.push((number != 1).then_some(&marked)).unwrap();
        }
        assert_eq!(prepared.len(), 3);
        let stored = prepared.finish().unwrap();
        for number in [2, 0] {
            let read = stored.read(number).unwrap().unwrap();
            assert_eq!(read.text(), texts[number as usize]);
            assert_eq!(read.marks(), winnowing.marked(texts[number as usize].to_owned()).unwrap().marks());
        }
        assert!(stored.read(1).unwrap().is_none(), "not marked");
        assert!(stored.read(3).is_err(), "no such document");
        // A record cut short.
        let cut = StoredTexts { file: stored.file.try_clone().unwrap(), ends: vec![stored.ends[0] - 1] };
        assert!(matches!(cut.read(0), Err(DedupError::Spill(_))));
    }
}
