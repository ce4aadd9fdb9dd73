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
    (1..=16).contains(&len).then(|| u128::from_le_bytes(*chunk) & low_bytes(len as u32))
}

/// `u128::MAX >> (128 - 8 * len)` for `len` in `1..=16`, from two 64-bit
/// halves: a variable 128-bit shift is a call into compiler_builtins on
/// wasm32 (`__lshrti3`, 2.4% of the WebAssembly package's fingerprint time,
/// `node --cpu-prof`), where these are a few instructions.
#[inline(always)]
fn low_bytes(len: u32) -> u128 {
    let bits = 8 * len;
    u128::from(crate::block::below(bits.saturating_sub(64))) << 64
        | u128::from(crate::block::below(bits.min(64)))
}

/// [`TokenRef::key`] of a text that is not followed by padding.
fn padded_key(text: &str) -> Option<u128> {
    let mut padded = [0; 16];
    padded.get_mut(..text.len())?.copy_from_slice(text.as_bytes());
    short_key(&padded, 0, text.len())
}

mod fold_cache;
mod scan;
mod sinks;
mod swar;
#[cfg(test)]
mod tests;

use fold_cache::*;
use scan::*;
use sinks::*;
use swar::*;
