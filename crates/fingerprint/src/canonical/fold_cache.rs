//! Per-character results of the ICU4X passes (NFKD, marks, lowercase) kept
//! for the next occurrence, the ASCII stand-ins of the token path, and the
//! Final_Sigma context read backwards from the folded text.

use super::*;

/// Per-character results of the ICU4X passes, kept in `text`. Bounded: it
/// starts afresh when `text` grows past [`FoldCache::MAX_BYTES`].
///
/// [`FoldCache::folded`], called for every non-ASCII character, first
/// tries a small direct-mapped table in front of its hash map: text uses
/// few distinct non-ASCII characters, mostly the same few again (no-break
/// spaces, dashes, ellipses), and a table slot is one multiply away.
#[derive(Debug)]
pub(super) struct FoldCache {
    pub(super) slots: Vec<Slot>,
    /// The lowercased unmarked form of a character; `None` when it has a
    /// capital sigma, which needs the text's context.
    pub(super) folded: FxHashMap<char, Option<Range<usize>>>,
    pub(super) unmarked: FxHashMap<char, Range<usize>>,
    pub(super) lowered: FxHashMap<char, Range<usize>>,
    pub(super) text: String,
}

/// A direct-mapped entry of [`FoldCache::folded`]: `c` is a `char` value,
/// or `u32::MAX` (no character) when the slot is empty; the folded form is
/// the first `len` bytes of `bytes` (forms longer than 8 bytes or with a
/// capital sigma are not kept in a slot), and its [`stand_in`] is
/// `stand_in`, or 0 if it has none.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot {
    pub(super) c: u32,
    pub(super) len: u8,
    pub(super) stand_in: u8,
    pub(super) bytes: [u8; 8],
}

pub(super) const EMPTY_SLOT: Slot = Slot { c: u32::MAX, len: 0, stand_in: 0, bytes: [0; 8] };
pub(super) const SLOT_BITS: u32 = 9;

impl Default for FoldCache {
    fn default() -> Self {
        FoldCache {
            slots: vec![EMPTY_SLOT; 1 << SLOT_BITS],
            folded: FxHashMap::default(),
            unmarked: FxHashMap::default(),
            lowered: FxHashMap::default(),
            text: String::new(),
        }
    }
}

impl FoldCache {
    pub(super) const MAX_BYTES: usize = 1 << 20;

    /// Appends the lowercased unmarked form of `c`, or with `STAND_IN` its
    /// [`stand_in`] if it has one, unless it has a capital sigma (then
    /// returns `false` and appends nothing).
    #[inline(always)]
    pub(super) fn folded<const STAND_IN: bool>(&mut self, c: char, out: &mut Vec<u8>) -> bool {
        let index = ((c as u32).wrapping_mul(0x9E37_79B1) >> (32 - SLOT_BITS)) as usize;
        let slot = self.slots[index];
        if slot.c != c as u32 {
            return self.folded_uncached::<STAND_IN>(c, index, out);
        }
        if STAND_IN && slot.stand_in != 0 {
            out.push(slot.stand_in);
            return true;
        }
        // As in `push_ascii_lowercase`: append eight bytes, keep `len`.
        out.extend_from_slice(&slot.bytes);
        out.truncate(out.len() - slot.bytes.len() + usize::from(slot.len));
        true
    }

    pub(super) fn folded_uncached<const STAND_IN: bool>(
        &mut self,
        c: char,
        index: usize,
        out: &mut Vec<u8>,
    ) -> bool {
        let Some(range) = self.folded_slow(c) else { return false };
        let folded = &self.text[range];
        let stand_in = stand_in(folded);
        let mut bytes = [0; 8];
        if let Some(prefix) = bytes.get_mut(..folded.len()) {
            prefix.copy_from_slice(folded.as_bytes());
            let len = folded.len() as u8;
            self.slots[index] = Slot { c: c as u32, len, stand_in: stand_in.unwrap_or(0), bytes };
        }
        match stand_in {
            Some(ascii) if STAND_IN => out.push(ascii),
            _ => out.extend_from_slice(folded.as_bytes()),
        }
        true
    }

    pub(super) fn folded_slow(&mut self, c: char) -> Option<Range<usize>> {
        if let Some(range) = self.folded.get(&c) {
            return range.clone();
        }
        let unmarked = self.unmarked(c);
        let unmarked = self.text[unmarked].to_owned();
        let range = (!unmarked.contains(CAPITAL_SIGMA)).then(|| {
            self.remember(|text| {
                CASE_MAPPER
                    .lowercase(&unmarked, &LanguageIdentifier::UNKNOWN)
                    .write_to(text)
                    .expect("writing to a String cannot fail");
            })
        });
        self.folded.insert(c, range.clone());
        range
    }

    /// NFKD(`c`) without its combining marks, as a range of `self.text`
    /// (valid until the next call that adds to the cache).
    pub(super) fn unmarked(&mut self, c: char) -> Range<usize> {
        if let Some(range) = self.unmarked.get(&c) {
            return range.clone();
        }
        let range = self.remember(|text| {
            let mut buf = [0; 4];
            text.extend(NFKD.normalize(c.encode_utf8(&mut buf)).chars().filter(|&c| !unicode::is_mark(c)));
        });
        self.unmarked.insert(c, range.clone());
        range
    }

    /// Appends the lowercased unmarked form of `c`, which has a capital
    /// sigma, to `out`, which holds the folded text before `c`; `after` is
    /// the text after `c`.
    ///
    /// Lowercasing maps each character of the unmarked text on its own,
    /// except capital sigma, which becomes final `ς` when a cased character
    /// precedes it and none follows it, skipping case-ignorable characters
    /// both ways (Unicode 17, section 3.13, as ICU applies it: a character
    /// that is both is skipped, as ICU and Rust's std do).
    ///
    /// The context after the sigma is read from the rest of `c`'s unmarked
    /// form, then from the unmarked forms of `after`, as far as the first
    /// character that is not case-ignorable. The context before it is read
    /// backwards from `out`: lowercasing a character keeps what that walk
    /// finds (whether the first character that is not case-ignorable is
    /// cased, or that there is none; tested over all of Unicode below), so
    /// the folded text answers as the unmarked text would, and nothing
    /// before `c` needs to be decoded again. Each walk stops at the latest
    /// at the next or previous sigma, so a text costs linear time.
    pub(super) fn folded_in_context(
        &mut self,
        c: char,
        mut after: impl Iterator<Item = char>,
        out: &mut Vec<u8>,
    ) {
        let range = self.unmarked(c);
        let unmarked = self.text[range].to_owned();
        for (offset, u) in unmarked.char_indices() {
            if u == CAPITAL_SIGMA {
                let after_sigma = &unmarked[offset + CAPITAL_SIGMA.len_utf8()..];
                let cased_before = unicode::cased_first(chars_before(out));
                let cased_after = unicode::cased_first(after_sigma.chars())
                    .or_else(|| self.cased_first_unmarked(&mut after));
                let final_sigma = cased_before == Some(true) && cased_after != Some(true);
                let sigma = if final_sigma { '\u{3C2}' } else { '\u{3C3}' };
                out.extend_from_slice(sigma.encode_utf8(&mut [0; 4]).as_bytes());
            } else {
                self.lowered(u, out);
            }
        }
    }

    /// Whether the first character that is not case-ignorable, in the
    /// unmarked forms of `chars`, is cased; `None` if there is none.
    pub(super) fn cased_first_unmarked(&mut self, chars: impl Iterator<Item = char>) -> Option<bool> {
        for c in chars {
            let range = self.unmarked(c);
            if let Some(cased) = unicode::cased_first(self.text[range].chars()) {
                return Some(cased);
            }
        }
        None
    }

    /// Appends the full lowercase mapping of `c` (not capital sigma).
    pub(super) fn lowered(&mut self, c: char, out: &mut Vec<u8>) {
        let range = match self.lowered.get(&c) {
            Some(range) => range.clone(),
            None => {
                let range = self.remember(|text| {
                    let mut buf = [0; 4];
                    CASE_MAPPER
                        .lowercase(c.encode_utf8(&mut buf), &LanguageIdentifier::UNKNOWN)
                        .write_to(text)
                        .expect("writing to a String cannot fail");
                });
                self.lowered.insert(c, range.clone());
                range
            }
        };
        out.extend_from_slice(self.text[range].as_bytes());
    }

    pub(super) fn remember(&mut self, write: impl FnOnce(&mut String)) -> Range<usize> {
        if self.text.len() > Self::MAX_BYTES {
            self.slots.fill(EMPTY_SLOT);
            self.folded.clear();
            self.unmarked.clear();
            self.lowered.clear();
            self.text.clear();
        }
        let start = self.text.len();
        write(&mut self.text);
        start..self.text.len()
    }
}

pub(super) const CAPITAL_SIGMA: char = '\u{3A3}';

/// An ASCII character that the token path may write for the folded form
/// `folded` (see [`Canonical::fold`]), if it is one non-ASCII character of
/// the same [`Class`], space, punctuation or symbol, or number, that is
/// cased and case-ignorable exactly when the stand-in is.
///
/// The scan treats any two characters of one such class alike: each space,
/// punctuation or symbol is a separator, each number continues a run of
/// numbers, and only spaces end a URL. The Final_Sigma context depends on
/// nothing else but those two properties. So the tokens do not change, and
/// a text of non-ASCII punctuation and spaces (no-break spaces, dashes,
/// ellipses, ideographic spaces) stays on the scan's block path. Letters,
/// zero-width characters and other characters have no candidate of their
/// class. U+FEFF is left out by name: its class is a space, but the scan
/// deletes it between letters.
pub(super) fn stand_in(folded: &str) -> Option<u8> {
    let mut chars = folded.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else { return None };
    if c.is_ascii() || c == '\u{FEFF}' {
        return None;
    }
    let properties = |c: char| (unicode::classify(c), unicode::cased_first(std::iter::once(c)));
    STAND_IN_CANDIDATES.into_iter().find(|&ascii| properties(char::from(ascii)) == properties(c))
}

/// Stand-ins: a space, punctuation that is not and that is case-ignorable
/// (`.`), a number. None is `:` or `/`, which the URL rule reads, nor `h`.
pub(super) const STAND_IN_CANDIDATES: [u8; 4] = [b' ', b'!', b'.', b'0'];

/// The characters of the UTF-8 text `bytes`, last first. (Folding builds
/// bytes, not a `str`, and checking them again at each sigma would take
/// time in the length of the text so far.)
pub(super) fn chars_before(bytes: &[u8]) -> impl Iterator<Item = char> + '_ {
    let mut end = bytes.len();
    std::iter::from_fn(move || {
        let start = bytes[..end].iter().rposition(|&b| b & 0xc0 != 0x80)?;
        let c = std::str::from_utf8(&bytes[start..end]).ok()?.chars().next();
        end = start;
        c
    })
}
