//! A [`MarkedText`] as bytes and back: a passage search's pass 2 streams a
//! document past every round that pairs it with an earlier one, and
//! reading back what was made of it costs a copy where cutting and
//! winnowing it again cost about a tenth of a microsecond per byte
//! (`dedup`'s `verify.rs` keeps them in a temporary file).
//!
//! The layout: five counts (`u32` little-endian each: the text's bytes, k,
//! the content words, the marks, the character counts), the text (UTF-8),
//! then the text's block of arrays ([`MarkedText`]) as it is in memory, in
//! this machine's byte order (the file lives as long as the search that
//! wrote it). Read back, the block is one copy. What is read back is
//! checked as a parser checks its input: a damaged record is refused
//! ([`DamagedText`]), never trusted to index the text.

use crate::MAX_SEED_WORDS;
use crate::marked::{Counts, MarkedText};
use crate::offsets;
use crate::words::Word;

/// Why bytes were not a [`MarkedText`] written by [`MarkedText::write_to`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a prepared text read back is damaged: {0}")]
pub struct DamagedText(&'static str);

impl MarkedText {
    /// Appends this text and what was made of it to `out`, to be read back
    /// with [`MarkedText::read_from`] instead of being cut and winnowed
    /// again.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let count = |n: usize| u32::try_from(n).expect("texts are under 4 GiB").to_le_bytes();
        let block: &[u8] = bytemuck::cast_slice(self.block());
        out.reserve(20 + self.text.len() + block.len());
        let Counts { words, marks, chars } = self.counts;
        out.extend_from_slice(&count(self.text.len()));
        out.extend_from_slice(&self.k.to_le_bytes());
        for n in [words, marks, chars] {
            out.extend_from_slice(&count(n));
        }
        out.extend_from_slice(self.text.as_bytes());
        out.extend_from_slice(block);
    }

    /// A text written by [`MarkedText::write_to`] at the start of `bytes`,
    /// checked, and the bytes after it.
    pub fn read_from(bytes: &[u8]) -> Result<(MarkedText, &[u8]), DamagedText> {
        let mut from = Reader(bytes);
        let text_bytes = from.count()?;
        let k = from.u32()?;
        if !(1..=MAX_SEED_WORDS as u32).contains(&k) {
            return Err(DamagedText("k out of range"));
        }
        let counts = Counts { words: from.count()?, marks: from.count()?, chars: from.count()? };
        // simdutf8: `std`'s check was a fifth of reading a text back.
        let text =
            simdutf8::basic::from_utf8(from.take(text_bytes)?).map_err(|_| DamagedText("text not UTF-8"))?;
        // The block in one copy (counts too large for memory are cut short
        // by the bytes there are).
        let block_bytes = counts.block_len().checked_mul(8).ok_or(DamagedText("cut short"))?;
        let block: Vec<u64> =
            from.take(block_bytes)?.as_chunks::<8>().0.iter().map(|&word| u64::from_ne_bytes(word)).collect();
        let marked = MarkedText::of_parts(text.to_owned(), block, counts, k);
        check(&marked)?;
        Ok((marked, from.0))
    }
}

/// What the rest of the crate takes for granted of a [`MarkedText`]: its
/// words in order, not empty, inside the text, on character boundaries; the
/// half-words before them never decreasing; its marks sorted, each at the
/// first of `k` of its words or more (a k-gram of letters of a script
/// written without spaces holds up to twice k); character counts that
/// could be its text's.
fn check(marked: &MarkedText) -> Result<(), DamagedText> {
    let text = marked.text();
    if !offsets::could_be_char_counts(marked.char_counts(), text) {
        return Err(DamagedText("character counts not the text's"));
    }
    // Checked, the counts are empty exactly for an ASCII text: the text is
    // not scanned for it again.
    check_words(text, marked.words(), marked.char_counts().is_empty())?;
    if marked.halves_before().windows(2).any(|pair| pair[1] < pair[0]) {
        return Err(DamagedText("word counts decreasing"));
    }
    let marks = marked.marks();
    let in_order = marks
        .keys
        .windows(2)
        .zip(marks.places.windows(2))
        .all(|(keys, places)| (keys[0], places[0]) <= (keys[1], places[1]));
    let words = marked.words().len();
    if !in_order || marks.places.iter().any(|&word| word as usize + marked.k as usize > words) {
        return Err(DamagedText("marks out of order or past the words"));
    }
    Ok(())
}

/// Whether `words` are in order, not empty, inside `text` and on its
/// character boundaries (every byte of an `ascii` text is one: looking at
/// each word's ends anyway, reading a 40 KB ASCII text back took 18.7 µs
/// instead of 14.8, `cargo bench -p priorart-align --bench align --
/// stored`).
fn check_words(text: &str, words: &[Word], ascii: bool) -> Result<(), DamagedText> {
    let mut reach = 0;
    for word in words {
        let (start, end) = (word.start as usize, word.end as usize);
        if start < reach || end <= start || end > text.len() {
            return Err(DamagedText("words empty, out of order or outside the text"));
        }
        let on_characters = ascii || (text.is_char_boundary(start) && text.is_char_boundary(end));
        if !on_characters {
            return Err(DamagedText("a word not on character boundaries"));
        }
        reach = end;
    }
    Ok(())
}

/// Bytes read from the front.
struct Reader<'b>(&'b [u8]);

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], DamagedText> {
        if n > self.0.len() {
            return Err(DamagedText("cut short"));
        }
        let (taken, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(taken)
    }

    fn u32(&mut self) -> Result<u32, DamagedText> {
        Ok(le_u32(self.take(4)?))
    }

    fn count(&mut self) -> Result<usize, DamagedText> {
        Ok(self.u32()? as usize)
    }
}

/// The `u32` of four little-endian bytes.
fn le_u32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes.try_into().expect("four bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Aligner, Params, Winnowing};

    fn marked(text: &str) -> MarkedText {
        let aligner = Aligner::new(Params::default()).unwrap();
        aligner.mark(text.to_owned(), &Winnowing::default(), |mark| mark.hash % 7 != 0).unwrap()
    }

    fn same(x: &MarkedText, y: &MarkedText) {
        assert_eq!(x.text, y.text);
        assert_eq!((x.words(), x.halves_before(), x.k), (y.words(), y.halves_before(), y.k));
        assert_eq!((x.marks().keys, x.marks().places), (y.marks().keys, y.marks().places));
        assert_eq!(x.char_counts(), y.char_counts());
        let everywhere =
            crate::Span { char_offset: 0, char_length: 0, byte_offset: 0, byte_length: x.text.len() };
        assert_eq!(x.word_count(&everywhere), y.word_count(&everywhere));
    }

    #[test]
    fn a_text_read_back_is_the_text_written() {
        let texts = [
            "",
            "alpha",
            "The quick brown fox jumps over the lazy dog, again and again and again.",
            "Ünïcödé wörds, 漢字テスト and ไม่ใช่ mixed with English words in one text.",
        ];
        let mut bytes = Vec::new();
        for text in texts {
            marked(text).write_to(&mut bytes);
        }
        let mut rest = bytes.as_slice();
        for text in texts {
            let (read, after) = MarkedText::read_from(rest).unwrap();
            same(&read, &marked(text));
            rest = after;
        }
        assert!(rest.is_empty());
    }

    #[test]
    fn a_word_inside_a_character_is_refused() {
        let text = "école publique, école privée";
        let mut bytes = Vec::new();
        marked(text).write_to(&mut bytes);
        assert!(MarkedText::read_from(&bytes).is_ok());
        // The first word's start (after the five counts, the text and its
        // hash) moved inside its "é".
        let start = 20 + text.len() + 8;
        assert_eq!(bytes[start..start + 4], 0u32.to_ne_bytes());
        bytes[start..start + 4].copy_from_slice(&1u32.to_ne_bytes());
        assert_eq!(
            MarkedText::read_from(&bytes).err(),
            Some(DamagedText("a word not on character boundaries"))
        );
    }

    #[test]
    fn damaged_bytes_are_refused_without_panicking() {
        let mut bytes = Vec::new();
        marked("Ünïcödé wörds, 漢字テスト and ไม่ใช่ mixed with English words in one text.")
            .write_to(&mut bytes);
        for end in 0..bytes.len() {
            assert!(MarkedText::read_from(&bytes[..end]).is_err(), "cut at {end}");
        }
        let mut rng = fastrand::Rng::with_seed(3);
        for _ in 0..20_000 {
            let mut damaged = bytes.clone();
            for _ in 0..rng.usize(1..4) {
                let at = rng.usize(..damaged.len());
                damaged[at] = rng.u8(..);
            }
            // Refused, or accepted with everything the crate relies on.
            if let Ok((read, _)) = MarkedText::read_from(&damaged) {
                let everywhere = crate::Span {
                    char_offset: 0,
                    char_length: 0,
                    byte_offset: 0,
                    byte_length: read.text.len(),
                };
                read.word_count(&everywhere);
            }
        }
    }
}
