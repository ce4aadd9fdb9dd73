//! Word indices back to offsets in the original texts: bytes from the words'
//! own ranges, characters by counting, in one pass over each text, the
//! characters before every byte offset wanted.

use crate::cluster::Group;
use crate::words::Word;
use crate::{Passage, Span};

/// The character offset of each of `byte_offsets` (each at a character
/// boundary of `text`), in the same order.
pub(crate) fn char_offsets(text: &str, byte_offsets: &[usize]) -> Vec<usize> {
    // Up to the last offset in ASCII (most texts), a byte is a character:
    // checking that is several times faster than counting.
    let last = byte_offsets.iter().copied().max().unwrap_or(0);
    if text.as_bytes()[..last].is_ascii() {
        return byte_offsets.to_vec();
    }
    let mut order: Vec<usize> = (0..byte_offsets.len()).collect();
    order.sort_unstable_by_key(|&i| byte_offsets[i]);
    let mut chars = vec![0; byte_offsets.len()];
    let (mut at_byte, mut at_char) = (0usize, 0usize);
    for i in order {
        let target = byte_offsets[i];
        at_char += text.as_bytes()[at_byte..target].iter().filter(|&&byte| !is_continuation(byte)).count();
        at_byte = target;
        chars[i] = at_char;
    }
    chars
}

/// A UTF-8 continuation byte (`10xxxxxx`): not the start of a character.
fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Each kept group as a [`Passage`] with offsets into `a` and `b`.
pub(crate) fn passages(
    a: &str,
    b: &str,
    a_words: &[Word],
    b_words: &[Word],
    kept: &[(Group, f64)],
) -> Vec<Passage> {
    let byte_range = |words: &[Word], first: u32, last: u32| {
        (words[first as usize].start as usize, words[last as usize].end as usize)
    };
    let a_bytes: Vec<(usize, usize)> =
        kept.iter().map(|(g, _)| byte_range(a_words, g.a_first, g.a_last)).collect();
    let b_bytes: Vec<(usize, usize)> =
        kept.iter().map(|(g, _)| byte_range(b_words, g.b_first, g.b_last)).collect();
    let a_chars = char_offsets(a, &flatten(&a_bytes));
    let b_chars = char_offsets(b, &flatten(&b_bytes));
    kept.iter()
        .enumerate()
        .map(|(i, &(group, similarity))| Passage {
            a: span(a_bytes[i], (a_chars[2 * i], a_chars[2 * i + 1])),
            b: span(b_bytes[i], (b_chars[2 * i], b_chars[2 * i + 1])),
            similarity,
            seeds: group.seeds,
        })
        .collect()
}

fn flatten(ranges: &[(usize, usize)]) -> Vec<usize> {
    ranges.iter().flat_map(|&(start, end)| [start, end]).collect()
}

fn span((byte_start, byte_end): (usize, usize), (char_start, char_end): (usize, usize)) -> Span {
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

    #[test]
    fn char_offsets_count_characters_before_each_byte_offset() {
        let text = "añb€c";
        // bytes: a=0, ñ=1..3, b=3, €=4..7, c=7
        assert_eq!(char_offsets(text, &[7, 0, 3, 4, 8]), [4, 0, 2, 3, 5]);
        assert_eq!(char_offsets(text, &[]), Vec::<usize>::new());
        // An ASCII start: offsets before the first wide character are bytes.
        let text = "ascii then ñ and €";
        assert_eq!(char_offsets(text, &[5, 0, 11]), [5, 0, 11]);
        assert_eq!(char_offsets(text, &[11, 13, 14]), [11, 12, 13]);
    }
}
