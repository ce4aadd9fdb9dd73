//! A [`MarkedText`] as bytes and back: a passage search's pass 2 streams a
//! document past every round that pairs it with an earlier one, and
//! reading back what was made of it costs a copy where cutting and
//! winnowing it again cost about a tenth of a microsecond per byte
//! (`dedup`'s `verify.rs` keeps them in a temporary file).
//!
//! The layout, little-endian: the text (its length as `u32`, then its
//! UTF-8), k (`u32`), the content words (their count as `u32`, then hash
//! `u64`, start `u32` and end `u32` each), the half-words before each
//! (`u32` each), the marks (their count as `u32`, then hash `u64` and word
//! `u32` each). The character index is made again from the text (one pass
//! over its bytes). What is read back is checked as a parser checks its
//! input: a damaged record is refused ([`DamagedText`]), never trusted to
//! index the text.

use crate::MAX_SEED_WORDS;
use crate::marked::MarkedText;
use crate::offsets::CharIndex;
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
        // Four counts (text, k, words, marks), then what they count.
        out.reserve(16 + self.text.len() + 20 * self.words.len() + 12 * self.marks.len());
        out.extend_from_slice(&count(self.text.len()));
        out.extend_from_slice(self.text.as_bytes());
        out.extend_from_slice(&self.k.to_le_bytes());
        out.extend_from_slice(&count(self.words.len()));
        for word in &self.words {
            out.extend_from_slice(&word.hash.to_le_bytes());
            out.extend_from_slice(&word.start.to_le_bytes());
            out.extend_from_slice(&word.end.to_le_bytes());
        }
        self.halves_before.iter().for_each(|halves| out.extend_from_slice(&halves.to_le_bytes()));
        out.extend_from_slice(&count(self.marks.len()));
        for &(hash, word) in &self.marks {
            out.extend_from_slice(&hash.to_le_bytes());
            out.extend_from_slice(&word.to_le_bytes());
        }
    }

    /// A text written by [`MarkedText::write_to`] at the start of `bytes`,
    /// checked, and the bytes after it.
    pub fn read_from(bytes: &[u8]) -> Result<(MarkedText, &[u8]), DamagedText> {
        let mut from = Reader(bytes);
        let text_bytes = from.count()?;
        // simdutf8: `std`'s check was a fifth of reading a text back.
        let text =
            simdutf8::basic::from_utf8(from.take(text_bytes)?).map_err(|_| DamagedText("text not UTF-8"))?;
        let k = from.u32()?;
        if !(1..=MAX_SEED_WORDS as u32).contains(&k) {
            return Err(DamagedText("k out of range"));
        }
        // Each array taken whole, then cut into its records: one bounds
        // check per array, not one per field (a document streamed past
        // many rounds is read back once a round).
        let word_count = from.count()?;
        let words: Vec<Word> = from
            .records::<16>(word_count)?
            .iter()
            .map(|word| Word {
                hash: le_u64(&word[..8]),
                start: le_u32(&word[8..12]),
                end: le_u32(&word[12..]),
            })
            .collect();
        let halves_before: Vec<u32> =
            from.records::<4>(word_count)?.iter().map(|half| u32::from_le_bytes(*half)).collect();
        let mark_count = from.count()?;
        let marks: Vec<(u64, u32)> = from
            .records::<12>(mark_count)?
            .iter()
            .map(|mark| (le_u64(&mark[..8]), le_u32(&mark[8..])))
            .collect();
        check(text, &words, &halves_before, (&marks, k))?;
        let chars = CharIndex::of(text);
        let text = text.to_owned();
        Ok((MarkedText { text, words, halves_before, chars, marks, k }, from.0))
    }
}

/// What the rest of the crate takes for granted of a [`MarkedText`]: its
/// words in order, not empty, inside the text, on character boundaries; the
/// half-words before them never decreasing; its marks sorted, each at the
/// first of `k` of its words or more (a k-gram of letters of a script
/// written without spaces holds up to twice k).
fn check(
    text: &str,
    words: &[Word],
    halves_before: &[u32],
    (marks, k): (&[(u64, u32)], u32),
) -> Result<(), DamagedText> {
    let mut reach = 0;
    for word in words {
        let (start, end) = (word.start as usize, word.end as usize);
        if start < reach || end <= start || end > text.len() {
            return Err(DamagedText("words empty, out of order or outside the text"));
        }
        if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            return Err(DamagedText("a word not on character boundaries"));
        }
        reach = end;
    }
    if halves_before.windows(2).any(|pair| pair[1] < pair[0]) {
        return Err(DamagedText("word counts decreasing"));
    }
    if marks.windows(2).any(|pair| pair[1] < pair[0])
        || marks.iter().any(|&(_, word)| word as usize + k as usize > words.len())
    {
        return Err(DamagedText("marks out of order or past the words"));
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

    /// `count` records of `SIZE` bytes each.
    /// (As arrays, whose fields are read without bounds checks.)
    fn records<const SIZE: usize>(&mut self, count: usize) -> Result<&'b [[u8; SIZE]], DamagedText> {
        let bytes = count.checked_mul(SIZE).ok_or(DamagedText("cut short"))?;
        Ok(self.take(bytes)?.as_chunks::<SIZE>().0)
    }
}

/// The `u32` of four little-endian bytes.
fn le_u32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes.try_into().expect("four bytes"))
}

/// The `u64` of eight little-endian bytes.
fn le_u64(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().expect("eight bytes"))
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
        assert_eq!((&x.words, &x.halves_before, &x.marks, x.k), (&y.words, &y.halves_before, &y.marks, y.k));
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
