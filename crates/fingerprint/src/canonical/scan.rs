//! The one left-to-right scan of steps 4–10 and the token match: byte
//! classes, the block path over ASCII runs, URLs, and the [`Sink`] it
//! reports to.

use super::*;

/// What a byte of the folded text starts, for the scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Byte {
    /// An ASCII letter.
    Letter,
    /// ASCII whitespace, punctuation or a symbol: each becomes a space.
    Separator,
    /// An ASCII digit.
    Digit,
    /// An ASCII control character that is not whitespace ([`Class::Other`]).
    Other,
    /// The first byte of a non-ASCII character.
    NonAscii,
}

/// [`Byte`] of every byte value, derived from [`unicode::ASCII_CLASSES`]
/// so the two cannot disagree.
pub(super) const BYTES: [Byte; 256] = {
    let mut table = [Byte::NonAscii; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = match unicode::ASCII_CLASSES[b] {
            Class::Letter => Byte::Letter,
            Class::Space | Class::PunctuationOrSymbol => Byte::Separator,
            Class::Number => Byte::Digit,
            Class::ZeroWidth | Class::Other => Byte::Other,
        };
        b += 1;
    }
    table
};

#[inline(always)]
pub(super) fn byte_class(bytes: &[u8], at: usize) -> Option<Byte> {
    bytes.get(at).map(|&b| BYTES[usize::from(b)])
}

/// Steps 4–10 and token extraction, in one scan of the folded text.
///
/// Runs of ASCII go by [`ascii_runs`] where `BLOCKS` (always, except in
/// the test that compares it with the byte path alone).
///
/// Why a scan gives the same answer as the reference's chain of replacements:
/// - step 4 (line endings) only turns whitespace into whitespace, which step
///   9 collapses anyway, so it has no observable effect;
/// - the URL rule (step 5) is tried at every position of the text *before*
///   zero-width characters are deleted, so a U+200B inside a URL belongs to
///   it, while U+FEFF (ECMAScript whitespace) ends it; a URL starts with
///   `h`, which only a run of letters can start or contain (see
///   [`ascii_letters_end`]), so the scan skips runs of separators and of
///   digits whole;
/// - zero-width characters (step 6) are then skipped without ending a number
///   run, as deleting them joins their neighbours;
/// - punctuation and symbols (step 7) and whitespace (step 9) become a
///   pending single space; a number run (step 8) becomes ` num `;
/// - a pending space is written only before further text (step 10's trim).
pub(super) fn scan<const BLOCKS: bool>(padded: &str, sink: &mut impl Sink) {
    let mut in_number = false;
    let folded = &padded[..padded.len() - PADDING.len()];
    let bytes = folded.as_bytes();
    let mut i = 0;
    // Conditional branches in order of frequency (a run of letters, then
    // usually separators) predict better than the jump table of a `match`.
    while let Some(byte) = byte_class(bytes, i) {
        if BLOCKS
            && matches!(byte, Byte::Letter | Byte::Separator | Byte::Digit)
            && let Some(block) = block_at(padded.as_bytes(), i)
        {
            let done = ascii_runs(block, i, &mut in_number, sink);
            if done > 0 {
                i += done;
                continue;
            }
        }
        if byte == Byte::Letter {
            if padded.as_bytes()[i..].first_chunk::<4>() == Some(b"http")
                && let Some(url_len) = url_at(&folded[i..])
            {
                sink.word("url");
                in_number = false;
                i += url_len;
                continue;
            }
            let end = ascii_letters_end(folded, padded.as_bytes(), i);
            if in_number {
                sink.space();
                in_number = false;
            }
            sink.letters(i..end, end - i);
            i = end;
            if byte_class(bytes, i) == Some(Byte::Separator) {
                sink.space();
                i = separator_run_end(padded.as_bytes(), i + 1);
            }
        } else if byte == Byte::Separator {
            sink.space();
            in_number = false;
            i = separator_run_end(padded.as_bytes(), i + 1);
        } else if byte == Byte::Digit {
            if !in_number {
                sink.word("num");
                in_number = true;
            }
            i += 1;
            while byte_class(bytes, i) == Some(Byte::Digit) {
                i += 1;
            }
        } else if byte == Byte::Other {
            if in_number {
                sink.space();
                in_number = false;
            }
            sink.other(char::from(bytes[i]));
            i += 1;
        } else {
            let c = folded[i..].chars().next().expect("i is on a character boundary");
            let start = i;
            i += c.len_utf8();
            let class = unicode::classify(c);
            if class == Class::ZeroWidth || c == '\u{FEFF}' {
                continue;
            }
            if class == Class::Number {
                if !in_number {
                    sink.word("num");
                    in_number = true;
                }
                continue;
            }
            if in_number {
                sink.space();
                in_number = false;
            }
            match class {
                Class::Space | Class::PunctuationOrSymbol => sink.space(),
                Class::Letter => sink.letters(start..i, c.len_utf16()),
                _ => sink.other(c),
            }
        }
    }
}

/// The block path of [`scan`]: the runs of ASCII letters, digits and
/// separators at the start of `block` (which starts at `base` of the
/// folded text), found from masks; returns how many bytes it took.
///
/// It stops at the first byte of any other kind (non-ASCII, a control,
/// padding, or `:`, which only a URL makes special). The byte path gives
/// the same calls to `sink`, run for run, because:
/// - a run of letters followed by a separator other than `:` is a whole
///   token and no URL (a URL needs `:` after `http` or `https`), so a run
///   of letters that reaches `:` or the end of the block (where the next
///   block may go on to `:`) is left to the byte path;
/// - a run of letters that reaches another byte (a non-ASCII letter, a
///   control) may be continued by it, which the sink does for adjacent
///   letters whichever path reports them;
/// - a run of digits or separators cut by the end of the block goes on in
///   the next: a second `space` changes nothing, and `num` is written once
///   per number, by `in_number`.
#[inline(always)]
pub(super) fn ascii_runs(
    block: &[u8; BLOCK],
    base: usize,
    in_number: &mut bool,
    sink: &mut impl Sink,
) -> usize {
    let masks = AsciiMasks::of(block);
    let known = (!(masks.letter | masks.digit | masks.separator)).trailing_zeros();
    let word_starts = run_starts(masks.letter) | run_starts(masks.digit);
    let starts = (word_starts | run_starts(masks.separator)) & below(known);
    let last = 63u32.saturating_sub(starts.leading_zeros());
    let limit = if masks.letter & (1 << last) != 0 && block.get(known as usize).is_none_or(|&b| b == b':') {
        last
    } else {
        known
    };
    // Runs of separators are not visited: each is reported where the run
    // after it starts, or at the end, which halves the (poorly predicted)
    // turns of the loop.
    let separators = masks.separator & below(limit);
    let after_separator = separators << 1;
    let mut runs = word_starts & below(limit);
    while runs != 0 {
        let start = runs.trailing_zeros();
        runs &= runs - 1;
        let bit = 1 << start;
        if after_separator & bit != 0 {
            sink.space();
            *in_number = false;
        }
        if masks.letter & bit != 0 {
            if *in_number {
                sink.space();
                *in_number = false;
            }
            let end = start + (!(masks.letter >> start)).trailing_zeros();
            sink.letters(base + start as usize..base + end as usize, (end - start) as usize);
        } else if !*in_number {
            sink.word("num");
            *in_number = true;
        }
    }
    if limit > 0 && separators & (1 << (limit - 1)) != 0 {
        sink.space();
        *in_number = false;
    }
    limit as usize
}

/// The classes of a block that [`ascii_runs`] handles, one bit per byte.
pub(super) struct AsciiMasks {
    pub(super) letter: u64,
    pub(super) digit: u64,
    /// [`Byte::Separator`] except `:`.
    pub(super) separator: u64,
}

impl AsciiMasks {
    /// One byte (0 or 1) per class and input byte, from comparisons the
    /// compiler turns into vector code, then packed into bits.
    #[inline(always)]
    pub(super) fn of(block: &[u8; BLOCK]) -> AsciiMasks {
        let mut classes = [[0u8; BLOCK]; 3];
        for (j, &b) in block.iter().enumerate() {
            let letter = (b | 0x20).wrapping_sub(b'a') < 26;
            let digit = b.wrapping_sub(b'0') < 10;
            let space = b.wrapping_sub(b'\t') < 5;
            let printable = b.wrapping_sub(b' ') < 0x5f;
            classes[0][j] = u8::from(letter);
            classes[1][j] = u8::from(digit);
            classes[2][j] = u8::from(space | (printable & !letter & !digit & (b != b':')));
        }
        AsciiMasks { letter: pack(&classes[0]), digit: pack(&classes[1]), separator: pack(&classes[2]) }
    }
}

/// The end of the run of ASCII letters starting at `start`, or of its part
/// before a URL. A URL can only start inside such a run at an `http` or
/// `https` that ends it, as `:` is not a letter.
/// (`padded` is `text` followed by [`PADDING`].)
#[inline(always)]
pub(super) fn ascii_letters_end(text: &str, padded: &[u8], start: usize) -> usize {
    let end = ascii_letter_run_end(padded, start + 1);
    if padded.get(end) != Some(&b':') {
        return end;
    }
    [end.saturating_sub(5), end.saturating_sub(4)]
        .into_iter()
        .find(|&url_start| url_start > start && url_at(&text[url_start..]).is_some())
        .unwrap_or(end)
}

/// Length of the URL match `https?://\S+` at the start of `text`, if any.
pub(super) fn url_at(text: &str) -> Option<usize> {
    let scheme_len = if text.starts_with("https://") {
        8
    } else if text.starts_with("http://") {
        7
    } else {
        return None;
    };
    let tail = &text[scheme_len..];
    let body_len =
        tail.char_indices().find(|&(_, c)| unicode::is_js_whitespace(c)).map_or(tail.len(), |(i, _)| i);
    (body_len > 0).then_some(scheme_len + body_len)
}

/// What the scan finds, in order.
pub(super) trait Sink {
    /// Letters at `range` of the folded text, `utf16_len` UTF-16 code units
    /// long. Letters that follow letters with nothing but deleted characters
    /// in between continue the same token.
    fn letters(&mut self, range: Range<usize>, utf16_len: usize);
    /// A whole token between spaces (`url`, `num`).
    fn word(&mut self, word: &'static str);
    /// Whitespace, punctuation or a symbol: ends a token; runs collapse.
    fn space(&mut self);
    /// A character that stays in the canonical text but is not part of a
    /// token (controls, format characters, unassigned code points).
    fn other(&mut self, c: char);
}
