//! Step 1 of the NIP-FF-3 algorithm (canonicalization) and step 2 (token
//! extraction), fused into two passes over the text.
//!
//! The reference applies ten regular-expression replacements in order. The
//! first three (NFKD, strip `\p{M}`, lowercase) need whole-string context
//! (final sigma) and run as one folding pass ([`Canonical::fold`]), a copy
//! for ASCII. Steps 4–10 and the token match then run as one left-to-right
//! scan: the order of the reference's replacements is kept by the scan's
//! rules (see [`scan`]), which the conformance vectors check.
//!
//! The scan reports what it finds to a [`Sink`]. [`Canonical::fill`] builds
//! the canonical text and its tokens (for explanations and for the
//! empty-text descriptor); [`Canonical::for_each_token`], the fingerprint
//! path, only hands each token on, mostly as a slice of the folded text, so
//! nothing is copied per token. Both run the same scan, so they cannot
//! disagree on what the tokens are.

use crate::block::{BLOCK, below, block_at, pack, run_starts};
use crate::json_string;
use crate::unicode::{self, Class};
use icu_casemap::{CaseMapper, CaseMapperBorrowed};
use icu_locale_core::LanguageIdentifier;
use icu_normalizer::{DecomposingNormalizer, DecomposingNormalizerBorrowed};
use rustc_hash::FxHashMap;
use std::ops::Range;
use writeable::Writeable;

const NFKD: DecomposingNormalizerBorrowed<'static> = DecomposingNormalizer::new_nfkd();
const CASE_MAPPER: CaseMapperBorrowed<'static> = CaseMapper::new();

/// A token: a byte range of the canonical text and its length in UTF-16
/// code units (JavaScript's `length`, which the stemmer and filter use).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub range: Range<usize>,
    pub utf16_len: usize,
}

/// The canonical text and its tokens, with the buffers reused from one
/// text to the next.
#[derive(Debug, Default)]
pub(crate) struct Canonical {
    pub text: String,
    pub tokens: Vec<Token>,
    folded: String,
    joined: String,
    cache: FoldCache,
}

impl Canonical {
    pub fn token_strs(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().map(|token| &self.text[token.range.clone()])
    }

    /// Canonicalizes `input` into `self.text` and `self.tokens`.
    pub fn fill(&mut self, input: &str) {
        self.fold::<false>(input);
        self.text.clear();
        self.tokens.clear();
        let mut writer = Writer {
            folded: &self.folded,
            text: &mut self.text,
            tokens: &mut self.tokens,
            pending_space: false,
            token: None,
        };
        scan::<true>(&self.folded, &mut writer);
        writer.end_token();
    }

    /// Calls `token` with each token of `input`, in order, without building
    /// the canonical text (which [`Canonical::fill`] builds from the same
    /// scan). Returns whether there was any token.
    pub fn for_each_token(&mut self, input: &str, token: impl FnMut(TokenRef<'_>)) -> bool {
        self.fold::<true>(input);
        self.for_each_folded_token(token)
    }

    /// [`Canonical::for_each_token`] of the text that a JSON string stands
    /// for, decoded while it is folded; `body` is what follows the string's
    /// opening quote. Also returns the length of the string's body (where
    /// its closing quote is in `body`).
    pub fn for_each_token_of_json(
        &mut self,
        body: &str,
        token: impl FnMut(TokenRef<'_>),
    ) -> Result<(bool, usize), InvalidJsonString> {
        let len = self.fold_json(body)?;
        Ok((self.for_each_folded_token(token), len))
    }

    fn for_each_folded_token(&mut self, token: impl FnMut(TokenRef<'_>)) -> bool {
        let mut tokens = Tokens {
            folded: &self.folded,
            joined: &mut self.joined,
            token: None,
            is_joined: false,
            utf16_len: 0,
            emit: token,
            any: false,
        };
        scan::<true>(&self.folded, &mut tokens);
        tokens.end_token();
        tokens.any
    }

    /// Steps 1–3 (NFKD, strip combining marks, full lowercasing with
    /// ECMAScript's root-locale rules) into `self.folded`.
    ///
    /// ASCII runs are copied and lowercased (NFKD leaves ASCII unchanged and
    /// no ASCII character is a mark). Every other character is folded on its
    /// own, through a cache, which is exact because:
    /// - every character with a non-zero canonical combining class is a
    ///   mark (tested over all of Unicode below), so the only reordering NFKD
    ///   does, among combining marks, is erased when marks are stripped;
    /// - root-locale lowercasing is context-free except for capital sigma,
    ///   whose Final_Sigma context is decided on the whole unmarked text
    ///   ([`FoldCache::folded_in_context`]).
    ///
    /// With `STAND_INS`, for the token path only, a character whose
    /// folded form is one space, punctuation or number character may be
    /// written as an ASCII character that the scan and the sigma context
    /// take the same way (see [`stand_in`]), so that the scan's block path
    /// goes on over it.
    ///
    /// [`PADDING`] follows the folded text, so that a word, a token key or
    /// a whole [`BLOCK`] can be read at any position of it.
    ///
    /// The folding writes bytes, eight at a time where it can, and only
    /// whole characters.
    fn fold<const STAND_INS: bool>(&mut self, input: &str) {
        let mut folded = self.start_folding();
        let mut at = 0;
        loop {
            at = push_ascii_lowercase(input.as_bytes(), at, &mut folded, |word| (word & HIGH_BITS, 0));
            let Some(c) = input[at..].chars().next() else { break };
            at += c.len_utf8();
            if !self.cache.folded::<STAND_INS>(c, &mut folded) {
                self.cache.folded_in_context(c, input[at..].chars(), &mut folded);
            }
        }
        self.finish_folding(folded);
    }

    /// [`Canonical::fold`] of the text that a JSON string stands for (see
    /// [`crate::json_string`]), from `body`, what follows its opening quote,
    /// to its closing quote, whose position it returns. Its escapes are
    /// decoded on the way: the plain runs of ASCII are copied as in `fold`,
    /// and each escape or non-ASCII character is one character to fold. It
    /// is only used for tokens, and writes stand-ins (see `fold`).
    fn fold_json(&mut self, body: &str) -> Result<usize, InvalidJsonString> {
        let bytes = body.as_bytes();
        let mut folded = self.start_folding();
        let mut at = 0;
        let folding = loop {
            at = push_ascii_lowercase(bytes, at, &mut folded, json_plain_lanes);
            let (c, len) = match bytes.get(at) {
                Some(b'"') => break Ok(at),
                Some(b'\\') => match json_string::escape_at(bytes, at) {
                    Some(escape) => escape,
                    None => break Err(InvalidJsonString),
                },
                Some(&b) if b >= 0x80 => {
                    let c = body[at..].chars().next().expect("at is on a character boundary");
                    (c, c.len_utf8())
                }
                // The end with no closing quote, or a control character.
                _ => break Err(InvalidJsonString),
            };
            at += len;
            if c.is_ascii() {
                folded.push((c as u8).to_ascii_lowercase());
            } else if !self.cache.folded::<true>(c, &mut folded) {
                // Should the rest of `body` not be valid, the loop stops
                // there, and what was folded is not used.
                self.cache.folded_in_context(c, json_string::decoded_chars(body, at), &mut folded);
            }
        };
        self.finish_folding(folded);
        folding
    }

    fn start_folding(&mut self) -> Vec<u8> {
        let mut folded = std::mem::take(&mut self.folded).into_bytes();
        folded.clear();
        folded
    }

    fn finish_folding(&mut self, mut folded: Vec<u8>) {
        folded.extend_from_slice(PADDING.as_bytes());
        // Checking the UTF-8 of the folded text again costs about 5% of
        // `priorart fingerprint --jsonl` on the benchmark corpus (measured),
        // and it cannot fail; debug builds (every test) still check it.
        debug_assert!(std::str::from_utf8(&folded).is_ok());
        // SAFETY: `folded` is valid UTF-8, as it is a concatenation of valid
        // UTF-8 pieces: `push_ascii_lowercase` keeps only a prefix of bytes
        // with bit 7 clear (ASCII; the lowercasing changes no bit 7),
        // `fold_json` pushes ASCII bytes, `FoldCache` appends whole folded
        // forms (ranges of its `text` String, ending on character
        // boundaries, or slot copies of them) and encoded `char`s, and
        // `PADDING` is ASCII.
        self.folded = unsafe { String::from_utf8_unchecked(folded) };
    }
}

/// [`Canonical::fold_json`] was given what is not a JSON string body
/// (what serde_json rejects).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InvalidJsonString;

/// [`BLOCK`] NUL bytes after the folded text (a NUL is [`Byte::Other`],
/// so no run of letters, digits or separators extends into them).
const PADDING: &str = concat!(
    "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
    "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
);

/// A token as [`Canonical::for_each_token`] hands it on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TokenRef<'t> {
    pub text: &'t str,
    /// JavaScript's `length` of `text` (UTF-16 code units).
    pub utf16_len: usize,
    /// `text` as a little-endian integer, zero-padded, when it has at most
    /// 16 bytes (no letter is a NUL byte, so the padding is unambiguous).
    pub key: Option<u128>,
}

/// The `len` bytes at `start` of `padded` as a little-endian integer,
/// zero-padded; `padded` has 16 bytes at `start` (or the answer is `None`).
#[inline(always)]
fn short_key(padded: &[u8], start: usize, len: usize) -> Option<u128> {
    let chunk = padded.get(start..)?.first_chunk::<16>()?;
    (1..=16).contains(&len).then(|| u128::from_le_bytes(*chunk) & (u128::MAX >> (128 - 8 * len)))
}

/// [`TokenRef::key`] of a text that is not followed by padding.
fn padded_key(text: &str) -> Option<u128> {
    let mut padded = [0; 16];
    padded.get_mut(..text.len())?.copy_from_slice(text.as_bytes());
    short_key(&padded, 0, text.len())
}

/// Bit 7 of every byte, for testing eight bytes at a time.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
/// The byte 0x01 in every lane, to broadcast a byte to eight lanes.
const LANES: u64 = 0x0101_0101_0101_0101;

/// Appends the bytes of `bytes` from `at` on, lowercased, to `out`, up to
/// the first that stops, and returns where they end. `lanes` tells, by
/// bit 7 of each lane of a word, which bytes stop (exactly: every
/// non-ASCII byte, and maybe others) and which to write as a space
/// instead. Eight bytes at a time: a word with a byte that stops is
/// appended whole and cut back, which is cheaper than copying a prefix of
/// varying length.
#[inline(always)]
fn push_ascii_lowercase(
    bytes: &[u8],
    mut at: usize,
    out: &mut Vec<u8>,
    lanes: impl Fn(u64) -> (u64, u64),
) -> usize {
    while let Some(chunk) = bytes[at..].first_chunk::<8>() {
        let word = u64::from_le_bytes(*chunk);
        let (stops, spaces) = lanes(word);
        let spaces = (spaces >> 7) * 0xff;
        let lowered = ascii_lowercase(word) & !spaces | ((u64::from(b' ') * LANES) & spaces);
        out.extend_from_slice(&lowered.to_le_bytes());
        if stops != 0 {
            let ascii = (stops.trailing_zeros() / 8) as usize;
            out.truncate(out.len() - 8 + ascii);
            return at + ascii;
        }
        at += 8;
    }
    // One byte in the lowest lane: it stops or it is copied.
    while let Some(&b) = bytes.get(at).filter(|&&b| lanes(u64::from(b)).0 & 0x80 == 0) {
        out.push(b.to_ascii_lowercase());
        at += 1;
    }
    at
}

/// Bit 7 of each lane of `word` that holds a zero byte; exact, as no lane
/// carries into the next.
#[inline(always)]
fn zero_lanes(word: u64) -> u64 {
    !(((word & !HIGH_BITS) + 0x7f * LANES) | word) & HIGH_BITS
}

/// [`push_ascii_lowercase`]'s lanes of a word of a JSON string body: it
/// stops at the closing quote, a control character (invalid), non-ASCII
/// and escapes, except the escapes of whitespace (`\n`, `\r`, `\t`, `\f`),
/// whose two bytes are written as two spaces.
///
/// The folded text only goes to the scan then, for which any run of
/// whitespace is one separator, also where the URL rule ends a URL, so two
/// spaces tokenize as the one whitespace character would; texts that have
/// no token, which need the canonical text, are decoded in full instead.
/// Escapes are common in JSON Lines text (a line break, a tab), and
/// stopping at each costs more than the bytes around it.
///
/// Why a backslash taken for the start of a whitespace escape is one:
/// `at` (lane 0) is never inside an escape, and a backslash that is the
/// second byte of an escaped backslash follows a backslash that stops, so
/// lanes past the first stop are never used. An escape whose letter is in
/// the next word (a backslash in lane 7) stops.
#[inline(always)]
fn json_plain_lanes(word: u64) -> (u64, u64) {
    let byte = |b: u8| zero_lanes(word ^ (u64::from(b) * LANES));
    // The letter after each lane's byte; lane 7 gets 0, which is none.
    let next = |b: u8| zero_lanes((word >> 8) ^ (u64::from(b) * LANES));
    let backslash = byte(b'\\');
    let escapes = backslash & (next(b'n') | next(b'r') | next(b't') | next(b'f'));
    // Below 0x20 (bit 7 of `low7 + 0x60` clear) and ASCII.
    let control = !(((word & !HIGH_BITS) + 0x60 * LANES) | word) & HIGH_BITS;
    let stops = word & HIGH_BITS | byte(b'"') | control | backslash & !escapes;
    (stops, escapes | escapes << 8)
}

/// `word` with `A`–`Z` lowercased in each ASCII lane: 0x20 (bit 7 shifted
/// right twice) is added to exactly the lanes in `A`..=`Z` (computed as in
/// [`ascii_letter_bits`]; other lanes are left as they are).
#[inline(always)]
fn ascii_lowercase(word: u64) -> u64 {
    let low7 = word & !HIGH_BITS;
    let at_least_a = low7 + (0x80 - u64::from(b'A')) * LANES;
    let above_z = low7 + (0x80 - u64::from(b'Z') - 1) * LANES;
    word | (at_least_a & !above_z & !word & HIGH_BITS) >> 2
}

/// Bit 7 of each byte of `word` set exactly where the byte is an ASCII
/// letter. Each lane computes on its low seven bits plus a constant below
/// 0x80, so no lane carries into the next: after OR-ing in 0x20 (which
/// maps `A`–`Z` onto `a`–`z`, and no non-letter onto a letter: `@` and `[`
/// become `` ` `` and `{`), adding 0x80 − `a` sets bit 7 exactly for bytes
/// ≥ `a`, adding 0x80 − (`z` + 1) exactly for bytes > `z`; bytes with bit 7
/// set (not ASCII) are cleared at the end.
#[inline(always)]
fn ascii_letter_bits(word: u64) -> u64 {
    let low7 = (word | (0x20 * LANES)) & !HIGH_BITS;
    let at_least_a = low7 + (0x80 - u64::from(b'a')) * LANES;
    let above_z = low7 + (0x80 - u64::from(b'z') - 1) * LANES;
    at_least_a & !above_z & !word & HIGH_BITS
}

/// Bit 7 of each byte of `word` set exactly where the byte is *not* a
/// [`Byte::Separator`]: a letter, a digit, a control other than
/// whitespace (0x00–0x08, 0x0E–0x1F, 0x7F) or not ASCII. `at_least(k)`
/// works as in [`ascii_letter_bits`]; non-ASCII lanes are garbage there but
/// are set by `word`'s own bit 7. Tested against [`BYTES`] below.
#[inline(always)]
fn non_separator_bits(word: u64) -> u64 {
    let low7 = word & !HIGH_BITS;
    let at_least = |k: u8| low7 + (0x80 - u64::from(k)) * LANES;
    let digit = at_least(b'0') & !at_least(b'9' + 1);
    let whitespace_control = at_least(0x09) & !at_least(0x0E);
    let control = !at_least(0x20) & !whitespace_control;
    let delete = at_least(0x7F);
    (ascii_letter_bits(word) | digit | control | delete | word) & HIGH_BITS
}

/// The end of the run of separators of `padded` starting at `start`.
#[inline(always)]
fn separator_run_end(padded: &[u8], start: usize) -> usize {
    let mut end = start;
    while let Some(chunk) = padded[end..].first_chunk::<8>() {
        let others = non_separator_bits(u64::from_le_bytes(*chunk));
        if others != 0 {
            return end + (others.trailing_zeros() / 8) as usize;
        }
        end += 8;
    }
    end + padded[end..].iter().take_while(|&&b| BYTES[usize::from(b)] == Byte::Separator).count()
}

/// The end of the run of ASCII letters of `bytes` starting at `start`.
#[inline(always)]
fn ascii_letter_run_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while let Some(chunk) = bytes[end..].first_chunk::<8>() {
        let others = !ascii_letter_bits(u64::from_le_bytes(*chunk)) & HIGH_BITS;
        if others != 0 {
            return end + (others.trailing_zeros() / 8) as usize;
        }
        end += 8;
    }
    end + bytes[end..].iter().take_while(|b| b.is_ascii_alphabetic()).count()
}

/// Per-character results of the ICU4X passes, kept in `text`. Bounded: it
/// starts afresh when `text` grows past [`FoldCache::MAX_BYTES`].
///
/// [`FoldCache::folded`], called for every non-ASCII character, first
/// tries a small direct-mapped table in front of its hash map: text uses
/// few distinct non-ASCII characters, mostly the same few again (no-break
/// spaces, dashes, ellipses), and a table slot is one multiply away.
#[derive(Debug)]
struct FoldCache {
    slots: Vec<Slot>,
    /// The lowercased unmarked form of a character; `None` when it has a
    /// capital sigma, which needs the text's context.
    folded: FxHashMap<char, Option<Range<usize>>>,
    unmarked: FxHashMap<char, Range<usize>>,
    lowered: FxHashMap<char, Range<usize>>,
    text: String,
}

/// A direct-mapped entry of [`FoldCache::folded`]: `c` is a `char` value,
/// or `u32::MAX` (no character) when the slot is empty; the folded form is
/// the first `len` bytes of `bytes` (forms longer than 8 bytes or with a
/// capital sigma are not kept in a slot), and its [`stand_in`] is
/// `stand_in`, or 0 if it has none.
#[derive(Debug, Clone, Copy)]
struct Slot {
    c: u32,
    len: u8,
    stand_in: u8,
    bytes: [u8; 8],
}

const EMPTY_SLOT: Slot = Slot { c: u32::MAX, len: 0, stand_in: 0, bytes: [0; 8] };
const SLOT_BITS: u32 = 9;

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
    const MAX_BYTES: usize = 1 << 20;

    /// Appends the lowercased unmarked form of `c`, or with `STAND_IN` its
    /// [`stand_in`] if it has one, unless it has a capital sigma (then
    /// returns `false` and appends nothing).
    #[inline(always)]
    fn folded<const STAND_IN: bool>(&mut self, c: char, out: &mut Vec<u8>) -> bool {
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

    fn folded_uncached<const STAND_IN: bool>(&mut self, c: char, index: usize, out: &mut Vec<u8>) -> bool {
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

    fn folded_slow(&mut self, c: char) -> Option<Range<usize>> {
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
    fn unmarked(&mut self, c: char) -> Range<usize> {
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
    fn folded_in_context(&mut self, c: char, mut after: impl Iterator<Item = char>, out: &mut Vec<u8>) {
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
    fn cased_first_unmarked(&mut self, chars: impl Iterator<Item = char>) -> Option<bool> {
        for c in chars {
            let range = self.unmarked(c);
            if let Some(cased) = unicode::cased_first(self.text[range].chars()) {
                return Some(cased);
            }
        }
        None
    }

    /// Appends the full lowercase mapping of `c` (not capital sigma).
    fn lowered(&mut self, c: char, out: &mut Vec<u8>) {
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

    fn remember(&mut self, write: impl FnOnce(&mut String)) -> Range<usize> {
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

const CAPITAL_SIGMA: char = '\u{3A3}';

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
fn stand_in(folded: &str) -> Option<u8> {
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
const STAND_IN_CANDIDATES: [u8; 4] = [b' ', b'!', b'.', b'0'];

/// The characters of the UTF-8 text `bytes`, last first. (Folding builds
/// bytes, not a `str`, and checking them again at each sigma would take
/// time in the length of the text so far.)
fn chars_before(bytes: &[u8]) -> impl Iterator<Item = char> + '_ {
    let mut end = bytes.len();
    std::iter::from_fn(move || {
        let start = bytes[..end].iter().rposition(|&b| b & 0xc0 != 0x80)?;
        let c = std::str::from_utf8(&bytes[start..end]).ok()?.chars().next();
        end = start;
        c
    })
}

/// What a byte of the folded text starts, for the scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Byte {
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
const BYTES: [Byte; 256] = {
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
fn byte_class(bytes: &[u8], at: usize) -> Option<Byte> {
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
fn scan<const BLOCKS: bool>(padded: &str, sink: &mut impl Sink) {
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
fn ascii_runs(block: &[u8; BLOCK], base: usize, in_number: &mut bool, sink: &mut impl Sink) -> usize {
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
struct AsciiMasks {
    letter: u64,
    digit: u64,
    /// [`Byte::Separator`] except `:`.
    separator: u64,
}

impl AsciiMasks {
    /// One byte (0 or 1) per class and input byte, from comparisons the
    /// compiler turns into vector code, then packed into bits.
    #[inline(always)]
    fn of(block: &[u8; BLOCK]) -> AsciiMasks {
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
fn ascii_letters_end(text: &str, padded: &[u8], start: usize) -> usize {
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
fn url_at(text: &str) -> Option<usize> {
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
trait Sink {
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

/// Builds the canonical text, collapsing separators and tracking tokens.
struct Writer<'a> {
    folded: &'a str,
    text: &'a mut String,
    tokens: &'a mut Vec<Token>,
    pending_space: bool,
    token: Option<Token>,
}

impl Writer<'_> {
    fn flush_space(&mut self) {
        if self.pending_space {
            if !self.text.is_empty() {
                self.end_token();
                self.text.push(' ');
            }
            self.pending_space = false;
        }
    }

    fn push_letters(&mut self, letters: &str, utf16_len: usize) {
        self.flush_space();
        let start = self.text.len();
        self.text.push_str(letters);
        let token = self.token.get_or_insert(Token { range: start..start, utf16_len: 0 });
        token.range.end = self.text.len();
        token.utf16_len += utf16_len;
    }

    fn end_token(&mut self) {
        if let Some(token) = self.token.take() {
            self.tokens.push(token);
        }
    }
}

impl Sink for Writer<'_> {
    fn letters(&mut self, range: Range<usize>, utf16_len: usize) {
        let folded = self.folded;
        self.push_letters(&folded[range], utf16_len);
    }

    fn word(&mut self, word: &'static str) {
        self.space();
        self.push_letters(word, word.len());
        self.space();
    }

    fn space(&mut self) {
        self.end_token();
        self.pending_space = true;
    }

    fn other(&mut self, c: char) {
        self.flush_space();
        self.end_token();
        self.text.push(c);
    }
}

/// Hands each token to `emit` without building the canonical text.
///
/// A token is a slice of the folded text, except when deleted zero-width
/// characters join letters on both sides of them: then its pieces are
/// copied into `joined`.
struct Tokens<'a, F> {
    /// The folded text and its [`PADDING`].
    folded: &'a str,
    joined: &'a mut String,
    /// The token being read, as a range of `folded` (its first piece only,
    /// once `is_joined`).
    token: Option<Range<usize>>,
    is_joined: bool,
    utf16_len: usize,
    emit: F,
    any: bool,
}

impl<F: FnMut(TokenRef<'_>)> Tokens<'_, F> {
    #[inline(always)]
    fn end_token(&mut self) {
        if let Some(range) = self.token.take() {
            let token = if self.is_joined {
                TokenRef { text: self.joined, utf16_len: self.utf16_len, key: padded_key(self.joined) }
            } else {
                let key = short_key(self.folded.as_bytes(), range.start, range.len());
                TokenRef { text: &self.folded[range], utf16_len: self.utf16_len, key }
            };
            (self.emit)(token);
            self.is_joined = false;
            self.any = true;
        }
    }
}

impl<F: FnMut(TokenRef<'_>)> Sink for Tokens<'_, F> {
    #[inline(always)]
    fn letters(&mut self, range: Range<usize>, utf16_len: usize) {
        match &mut self.token {
            None => {
                self.token = Some(range);
                self.utf16_len = utf16_len;
            }
            Some(token) if !self.is_joined && token.end == range.start => {
                token.end = range.end;
                self.utf16_len += utf16_len;
            }
            Some(token) => {
                if !self.is_joined {
                    self.joined.clear();
                    self.joined.push_str(&self.folded[token.clone()]);
                    self.is_joined = true;
                }
                self.joined.push_str(&self.folded[range]);
                self.utf16_len += utf16_len;
            }
        }
    }

    #[inline(always)]
    fn word(&mut self, word: &'static str) {
        self.end_token();
        (self.emit)(TokenRef { text: word, utf16_len: word.len(), key: padded_key(word) });
        self.any = true;
    }

    #[inline(always)]
    fn space(&mut self) {
        self.end_token();
    }

    #[inline(always)]
    fn other(&mut self, _: char) {
        self.end_token();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(input: &str) -> (String, Vec<String>) {
        let mut c = Canonical::default();
        c.fill(input);
        let tokens = c.token_strs().map(str::to_owned).collect();
        (c.text, tokens)
    }

    /// Fewer than `max` of `pieces`, chosen by `rng`, one after another.
    fn spliced(rng: &mut fastrand::Rng, pieces: &[&str], max: usize) -> String {
        (0..rng.usize(..max)).map(|_| pieces[rng.usize(..pieces.len())]).collect()
    }

    #[test]
    fn every_combining_character_is_a_mark() {
        // The per-character NFKD of `Canonical::fold` relies on this.
        use icu_properties::CodePointMapData;
        use icu_properties::props::CanonicalCombiningClass;
        let ccc = CodePointMapData::<CanonicalCombiningClass>::new();
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            if ccc.get(c) != CanonicalCombiningClass::NotReordered {
                assert!(unicode::is_mark(c), "{c:?} combines but is not a mark");
            }
        }
    }

    #[test]
    fn lowercasing_keeps_the_backward_sigma_context() {
        // `FoldCache::folded_in_context` reads the context before a sigma
        // from the folded text, which relies on this for every character
        // that the unmarked text can hold (any but a mark).
        for c in (0..=0x10FFFF).filter_map(char::from_u32).filter(|&c| !unicode::is_mark(c)) {
            let mut buf = [0; 4];
            let lowered =
                CASE_MAPPER.lowercase_to_string(c.encode_utf8(&mut buf), &LanguageIdentifier::UNKNOWN);
            let folded = unicode::cased_first(chars_before(lowered.as_bytes()));
            assert_eq!(folded, unicode::cased_first(std::iter::once(c)), "{c:?}");
        }
    }

    #[test]
    fn folding_per_character_equals_icu_on_the_whole_text() {
        // `Canonical::fold` folds character by character, with the sigma
        // context read around each capital sigma; ICU4X here runs NFKD and
        // lowercasing on the whole text at once.
        const PIECES: &[&str] = &[
            "Σ",
            "ΑΣ",
            "σ",
            "ς",
            "\u{3F9}",
            "\u{1D6BA}",
            "\u{301}",
            "'",
            ".",
            " ",
            "a",
            "B",
            "İ",
            "ﬁ",
            "Ａ",
            "\u{345}",
            "ǅ",
            "ẞ",
            "½",
            "x\u{307}",
            "\u{200B}",
            ":",
            "ὈΔΥΣΣΕΎΣ",
            "é",
            "\u{FDFA}",
            "Ⓢ",
            "\u{AD}",
            "\u{1F3FB}",
            "1",
            "\u{2B0}",
            "\u{2160}",
            "\u{130}\u{3A3}",
        ];
        let mut rng = fastrand::Rng::with_seed(0x2545_F491_4F6C_DD1D);
        let mut canonical = Canonical::default();
        for _ in 0..20_000 {
            let text = spliced(&mut rng, PIECES, 9);
            canonical.fold::<false>(&text);
            let unmarked: String = NFKD.normalize(&text).chars().filter(|&c| !unicode::is_mark(c)).collect();
            let expected =
                CASE_MAPPER.lowercase(&unmarked, &LanguageIdentifier::UNKNOWN).write_to_string().into_owned();
            assert_eq!(canonical.folded, expected + PADDING, "{text:?}");
        }
    }

    /// What [`push_ascii_lowercase`] with [`json_plain_lanes`] should make
    /// of `body`, read a byte at a time: the folded bytes up to the first
    /// that stops, whitespace escapes as two spaces where both their bytes
    /// are in one whole word (the last bytes, fewer than eight, stop at
    /// every escape).
    fn json_plain_by_bytes(body: &[u8]) -> (Vec<u8>, usize) {
        let (mut out, mut at) = (Vec::new(), 0);
        let words = body.len() / 8 * 8;
        while let Some(&b) = body.get(at) {
            let in_a_word = at + 1 < words && at / 8 == (at + 1) / 8;
            if in_a_word && b == b'\\' && b"nrtf".contains(&body[at + 1]) {
                out.extend_from_slice(b"  ");
                at += 2;
            } else if b.is_ascii() && b != b'"' && b != b'\\' && b >= 0x20 {
                out.push(b.to_ascii_lowercase());
                at += 1;
            } else {
                break;
            }
        }
        (out, at)
    }

    #[test]
    fn json_whitespace_escapes_are_spaces_in_every_lane() {
        const BYTES: &[u8] = b"\\\\nrtfu\"aZ \x01\x1f\x7f\x80\xc3";
        let mut rng = fastrand::Rng::with_seed(0x0123_4567_89AB_CDEF);
        for _ in 0..200_000 {
            let body: Vec<u8> = (0..rng.usize(..20)).map(|_| BYTES[rng.usize(..BYTES.len())]).collect();
            let mut out = Vec::new();
            let end = push_ascii_lowercase(&body, 0, &mut out, json_plain_lanes);
            assert_eq!((out, end), json_plain_by_bytes(&body), "{body:?}");
        }
    }

    #[test]
    fn stand_ins_tokenize_as_what_they_stand_for() {
        // Tokens of the token path (with stand-ins, from text and from a
        // JSON body) equal the tokens of the canonical text (without).
        const PIECES: &[&str] = &[
            "word",
            "Σ",
            "ΑΣ",
            " ",
            "\u{A0}",
            "\u{3000}",
            "\u{2028}",
            "\u{FEFF}",
            "\u{200B}",
            "—",
            "…",
            "\u{2019}",
            "'",
            "\u{B7}",
            "\u{5E}",
            "\u{2E2F}",
            "٣",
            "½",
            "1",
            "https://",
            "http:",
            "//",
            "x",
            "\u{1F150}",
            "\u{24C8}",
            "é",
        ];
        let mut rng = fastrand::Rng::with_seed(0x3C6E_F372_FE94_F82B);
        let (mut canonical, mut reference) = (Canonical::default(), Canonical::default());
        for _ in 0..20_000 {
            let text = spliced(&mut rng, PIECES, 24);
            reference.fill(&text);
            let expected: Vec<String> = reference.token_strs().map(str::to_owned).collect();
            let mut tokens = Vec::new();
            canonical.for_each_token(&text, |token| tokens.push(token.text.to_owned()));
            assert_eq!(tokens, expected, "{text:?}");
            let json = serde_json::to_string(&text).expect("strings serialize");
            tokens.clear();
            let read =
                canonical.for_each_token_of_json(&json[1..], |token| tokens.push(token.text.to_owned()));
            assert_eq!(read.map(|(_, len)| len), Ok(json.len() - 2));
            assert_eq!(tokens, expected, "{text:?}");
        }
    }

    #[test]
    fn stand_ins_are_ascii_of_the_same_class() {
        let mut stood_in = 0;
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            let Some(ascii) = stand_in(c.encode_utf8(&mut [0; 4])) else { continue };
            let ascii = char::from(ascii);
            assert_eq!(unicode::classify(ascii), unicode::classify(c), "{c:?}");
            assert_eq!(
                unicode::cased_first(Some(ascii).into_iter()),
                unicode::cased_first(Some(c).into_iter())
            );
            assert_ne!(unicode::classify(c), Class::Letter, "{c:?}");
            stood_in += 1;
        }
        assert!(stood_in > 5000, "{stood_in}");
    }

    #[test]
    fn swar_classes_agree_with_the_byte_table() {
        for b in 0..=255u8 {
            for lane in 0..8 {
                let mut word = [b'a'; 8];
                word[lane] = b;
                let word = u64::from_le_bytes(word);
                let bit = 0x80u64 << (8 * lane);
                let class = BYTES[usize::from(b)];
                assert_eq!(ascii_letter_bits(word) & bit != 0, class == Byte::Letter, "{b:#x}");
                assert_eq!(non_separator_bits(word) & bit == 0, class == Byte::Separator, "{b:#x}");
                let mut out = Vec::new();
                let end =
                    push_ascii_lowercase(&word.to_le_bytes(), 0, &mut out, |word| (word & HIGH_BITS, 0));
                assert_eq!(end, if b.is_ascii() { 8 } else { lane }, "{b:#x}");
                assert_eq!(out, word.to_le_bytes()[..end].to_ascii_lowercase(), "{b:#x}");
            }
        }
    }

    #[test]
    fn block_path_equals_the_byte_path() {
        // Texts that put URLs, colons, digits, non-ASCII letters and
        // zero-width characters everywhere around the edges of blocks.
        const PIECES: &[&str] = &[
            "word",
            "Letters",
            "x",
            " ",
            "  ",
            ". ",
            ",",
            "-",
            ":",
            "://",
            "http",
            "https",
            "http://a.b/c",
            "xhttps://y",
            "12",
            "3.5",
            "é",
            "中",
            "\u{200B}",
            "\u{200D}",
            "\u{FEFF}",
            "\u{A0}",
            "—",
            "\u{1}",
            "\t",
            "\n",
            "ΑΣ",
            "a1b",
            "longerthaneightletters",
            "quiteabitlongerthansixteenletters",
        ];
        let mut rng = fastrand::Rng::with_seed(0x5DEE_CE66_D1CE_4E5B);
        let mut canonical = Canonical::default();
        for _ in 0..20_000 {
            let text = spliced(&mut rng, PIECES, 80);
            canonical.fold::<false>(&text);
            let by = |blocks: bool| {
                let (mut text, mut tokens) = (String::new(), Vec::new());
                let mut writer = Writer {
                    folded: &canonical.folded,
                    text: &mut text,
                    tokens: &mut tokens,
                    pending_space: false,
                    token: None,
                };
                if blocks {
                    scan::<true>(&canonical.folded, &mut writer);
                } else {
                    scan::<false>(&canonical.folded, &mut writer);
                }
                writer.end_token();
                (text, tokens)
            };
            assert_eq!(by(true), by(false), "{text:?}");
        }
    }

    #[test]
    fn token_lengths_are_utf16_units() {
        let mut c = Canonical::default();
        c.fill("𝔞𝔟 abc ĳ");
        let lengths: Vec<usize> = c.tokens.iter().map(|t| t.utf16_len).collect();
        assert_eq!(c.text, "ab abc ij");
        assert_eq!(lengths, [2, 3, 2]);
        c.fill("中文𐐀 num");
        assert_eq!(c.tokens.iter().map(|t| t.utf16_len).collect::<Vec<_>>(), [4, 3]);
    }

    #[test]
    fn spec_examples() {
        assert_eq!(canonical("Café déjà vu").0, "cafe deja vu");
        assert_eq!(canonical("  a1b  ").0, "a num b");
        assert_eq!(canonical("see https://x.org/a?b=1 now").0, "see url now");
        assert_eq!(canonical("!!! ??? ...").0, "");
        assert_eq!(canonical("ΌΣΟΣ").0, "οσος");
    }

    #[test]
    fn url_rule_runs_before_zero_width_removal() {
        // U+200B is not whitespace: it stays inside the URL.
        assert_eq!(canonical("a https://x\u{200B}y b").0, "a url b");
        // U+FEFF is ECMAScript whitespace: it ends the URL, then is deleted.
        assert_eq!(canonical("a https://x\u{FEFF}yz b").0, "a url yz b");
        // A zero-width character splitting the scheme defeats the URL rule.
        assert_eq!(canonical("http\u{200B}://x").0, "http x");
        assert_eq!(canonical("http:// x").0, "http x");
    }

    #[test]
    fn urls_inside_letter_runs() {
        assert_eq!(canonical("xhttp://a b").0, "x url b");
        assert_eq!(canonical("xxhttps://a b").0, "xx url b");
        assert_eq!(canonical("https: http").0, "https http");
        assert_eq!(canonical("abc: d").0, "abc d");
    }

    #[test]
    fn final_sigma_context_crosses_ascii() {
        assert_eq!(canonical("ΑΣ b").0, "ας b");
        assert_eq!(canonical("ΑΣb").0, "ασb");
        assert_eq!(canonical("aΣ").0, "aς");
        assert_eq!(canonical("Σ").0, "σ");
        assert_eq!(canonical("a.Σ").0, "a ς"); // `.` is case-ignorable
    }

    #[test]
    fn zero_width_joins_neighbours() {
        assert_eq!(canonical("1\u{200B}2").0, "num");
        assert_eq!(canonical("ab\u{200D}cd"), ("abcd".into(), vec!["abcd".into()]));
    }

    #[test]
    fn other_characters_split_tokens_but_stay_in_text() {
        assert_eq!(canonical("ab\u{AD}cd"), ("ab\u{AD}cd".into(), vec!["ab".into(), "cd".into()]));
        assert_eq!(canonical("\u{0}"), ("\u{0}".into(), vec![]));
    }
}
