//! Word indices back to offsets in the original texts: bytes from the words'
//! own ranges, characters from a [`CharIndex`] of each text.

use crate::cluster::Group;
use crate::words::Word;
use crate::{Passage, Span};

/// Bytes between two of a [`CharIndex`]'s counts: a character offset is
/// found by counting at most this many bytes (256 left 5 % of `dedup
/// --passages`' time in that counting, on 100,000 generated documents).
pub(crate) const BLOCK: usize = 64;

/// The characters before every [`BLOCK`]-th byte of `text` (below the
/// aligner's size limit, so that counts fit in `u32`), up to its length
/// over `BLOCK` rounded up: the counts of its [`CharIndex`]. Empty for an
/// ASCII text, whose bytes are its characters.
pub(crate) fn char_counts(text: &str) -> Vec<u32> {
    if text.is_ascii() {
        return Vec::new();
    }
    let mut before_block = Vec::with_capacity(text.len() / BLOCK + 2);
    let mut chars = 0u32;
    // Whole blocks as arrays, of a length the count's vector loop knows
    // (as slices: 8 % slower, measured when a text read back was counted
    // again).
    let (blocks, rest) = text.as_bytes().as_chunks::<BLOCK>();
    for block in blocks {
        before_block.push(chars);
        chars += characters_starting_in(block);
    }
    if !rest.is_empty() {
        before_block.push(chars);
        chars += characters_starting_in(rest);
    }
    before_block.push(chars);
    before_block
}

/// Whether `counts` could be [`char_counts`] of `text`: as many, none for
/// an ASCII text, from 0, each at most [`BLOCK`] past the one before. (So
/// that counts read back never index past the text; they are not counted
/// again, which would cost what keeping them saves.)
pub(crate) fn could_be_char_counts(counts: &[u32], text: &str) -> bool {
    if text.is_ascii() {
        return counts.is_empty();
    }
    counts.len() == text.len().div_ceil(BLOCK) + 1
        && counts.first() == Some(&0)
        && counts.windows(2).all(|pair| pair[0] <= pair[1] && pair[1] - pair[0] <= BLOCK as u32)
}

/// A text's [`char_counts`], so that the character offset of any byte
/// costs a block, not the text before it: a text prepared once is aligned
/// with many others (`dedup --passages`), each time asking offsets deep
/// into it. 4 bytes per block (6 % of the text); nothing for an ASCII
/// text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CharIndex<'t>(pub(crate) &'t [u32]);

impl CharIndex<'_> {
    /// The character offset of byte `byte` (a character boundary of
    /// `text`, the text indexed).
    pub(crate) fn char_offset(self, text: &str, byte: usize) -> usize {
        let CharIndex(before_block) = self;
        if before_block.is_empty() {
            return byte;
        }
        let block = byte / BLOCK;
        before_block[block] as usize + characters_starting_in(&text.as_bytes()[block * BLOCK..byte]) as usize
    }
}

/// The characters starting in `bytes`: those that are not UTF-8
/// continuation bytes (`10xxxxxx`). Summed in `u32`, not counted in
/// `usize`: with the count, reading a 40 KB text back took 27 µs instead
/// of 17.5 (`cargo bench -p priorart-align --bench align -- stored`).
fn characters_starting_in(bytes: &[u8]) -> u32 {
    bytes.iter().map(|&byte| u32::from(byte & 0xC0 != 0x80)).sum()
}

/// A text with its content words and its [`CharIndex`].
#[derive(Clone, Copy)]
pub(crate) struct Indexed<'t> {
    pub(crate) text: &'t str,
    pub(crate) words: &'t [Word],
    pub(crate) chars: CharIndex<'t>,
}

/// Each kept group as a [`Passage`] with offsets into `a` and `b`.
pub(crate) fn passages(a: Indexed<'_>, b: Indexed<'_>, kept: &[(Group, f64)]) -> Vec<Passage> {
    kept.iter()
        .map(|&(group, similarity)| Passage {
            a: span(a, group.a_first, group.a_last),
            b: span(b, group.b_first, group.b_last),
            similarity,
            seeds: group.seeds,
        })
        .collect()
}

/// The span of a side's content words `first` to `last`.
fn span(side: Indexed<'_>, first: u32, last: u32) -> Span {
    let (byte_start, byte_end) =
        (side.words[first as usize].start as usize, side.words[last as usize].end as usize);
    let (char_start, char_end) =
        (side.chars.char_offset(side.text, byte_start), side.chars.char_offset(side.text, byte_end));
    Span {
        char_offset: char_start,
        char_length: char_end - char_start,
        byte_offset: byte_start,
        byte_length: byte_end - byte_start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Character offsets counted from the start, one by one.
    fn counted(text: &str, byte: usize) -> usize {
        text[..byte].chars().count()
    }

    #[test]
    fn char_index_gives_the_characters_before_each_boundary() {
        let wide = "añb€c".repeat(200) + "漢字" + &"x".repeat(2 * BLOCK) + "é";
        for text in ["", "ascii only", "añb€c", wide.as_str(), &"é".repeat(BLOCK)] {
            let counts = char_counts(text);
            assert!(could_be_char_counts(&counts, text), "{text:?}");
            for byte in (0..=text.len()).filter(|&byte| text.is_char_boundary(byte)) {
                assert_eq!(
                    CharIndex(&counts).char_offset(text, byte),
                    counted(text, byte),
                    "byte {byte} of {text:?}"
                );
            }
        }
        assert!(char_counts("ascii only").is_empty(), "an ASCII text needs no counts");
    }
}
