//! Step 1 of the NIP-FF-3 algorithm (canonicalization) and step 2 (token
//! extraction), fused into two passes over the text.
//!
//! The reference applies ten regular-expression replacements in order. The
//! first three (NFKD, strip `\p{M}`, lowercase) need whole-string context
//! (final sigma) and run as ICU4X passes, skipped entirely for ASCII text.
//! Steps 4–10 and the token match then run as one left-to-right scan: the
//! order of the reference's replacements is kept by the scan's rules (see
//! [`scan`]), which the conformance vectors check.

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
    unmarked: String,
    folded: String,
    cache: FoldCache,
}

impl Canonical {
    pub fn token_strs(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().map(|token| &self.text[token.range.clone()])
    }

    /// Canonicalizes `input` into `self`.
    pub fn fill(&mut self, input: &str) {
        self.text.clear();
        self.tokens.clear();
        let mut folded = std::mem::take(&mut self.folded);
        if input.is_ascii() {
            folded.clear();
            folded.push_str(input);
            folded.make_ascii_lowercase();
        } else {
            self.fold_non_ascii(input, &mut folded);
        }
        scan(&folded, self);
        self.folded = folded;
    }

    /// Steps 1–3 (NFKD, strip combining marks, full lowercasing with
    /// ECMAScript's root-locale rules) of text with non-ASCII characters.
    ///
    /// Both passes work one character at a time, through a cache, which is
    /// exact because:
    /// - every character with a non-zero canonical combining class is a
    ///   mark (tested over all of Unicode below), so the only reordering NFKD
    ///   does, among combining marks, is erased when marks are stripped;
    /// - root-locale lowercasing is context-free except for capital sigma,
    ///   whose Final_Sigma context is decided on the whole text.
    fn fold_non_ascii(&mut self, input: &str, folded: &mut String) {
        self.unmarked.clear();
        for (is_ascii, run) in ascii_runs(input) {
            if is_ascii {
                self.unmarked.push_str(run);
            } else {
                run.chars().for_each(|c| self.cache.unmarked(c, &mut self.unmarked));
            }
        }
        folded.clear();
        let mut offset = 0;
        for (is_ascii, run) in ascii_runs(&self.unmarked) {
            if is_ascii {
                let start = folded.len();
                folded.push_str(run);
                folded[start..].make_ascii_lowercase();
            } else {
                for (at, c) in run.char_indices() {
                    if c == CAPITAL_SIGMA {
                        folded.push(lower_sigma(&self.unmarked, offset + at));
                    } else {
                        self.cache.lowered(c, folded);
                    }
                }
            }
            offset += run.len();
        }
    }
}

/// Splits `text` into maximal runs of ASCII and of non-ASCII characters.
fn ascii_runs(text: &str) -> impl Iterator<Item = (bool, &str)> {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        let is_ascii = bytes.get(start)?.is_ascii();
        let len = bytes[start..].iter().position(|b| b.is_ascii() != is_ascii).unwrap_or(bytes.len() - start);
        let run = &text[start..start + len];
        start += len;
        Some((is_ascii, run))
    })
}

/// Per-character results of the ICU4X passes. Bounded: it starts afresh
/// when its text grows past [`FoldCache::MAX_BYTES`].
#[derive(Debug, Default)]
struct FoldCache {
    unmarked: FxHashMap<char, Range<usize>>,
    lowered: FxHashMap<char, Range<usize>>,
    text: String,
}

impl FoldCache {
    const MAX_BYTES: usize = 1 << 20;

    /// Appends NFKD(`c`) without its combining marks.
    fn unmarked(&mut self, c: char, out: &mut String) {
        let range = match self.unmarked.get(&c) {
            Some(range) => range.clone(),
            None => {
                let range = self.remember(|text| {
                    let mut buf = [0; 4];
                    text.extend(
                        NFKD.normalize(c.encode_utf8(&mut buf)).chars().filter(|&c| !unicode::is_mark(c)),
                    );
                });
                self.unmarked.insert(c, range.clone());
                range
            }
        };
        out.push_str(&self.text[range]);
    }

    /// Appends the full lowercase mapping of `c` (not capital sigma).
    fn lowered(&mut self, c: char, out: &mut String) {
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
        out.push_str(&self.text[range]);
    }

    fn remember(&mut self, write: impl FnOnce(&mut String)) -> Range<usize> {
        if self.text.len() > Self::MAX_BYTES {
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

/// Unicode's Final_Sigma rule (Unicode 17, section 3.13), as ICU applies it:
/// capital sigma at `at` becomes final `ς` when a cased character precedes
/// it and none follows it, skipping case-ignorable characters both ways
/// (a character that is both is skipped, as ICU and Rust's std do).
fn lower_sigma(text: &str, at: usize) -> char {
    let before = text[..at].chars().rev();
    let after = text[at + CAPITAL_SIGMA.len_utf8()..].chars();
    if unicode::cased_after_ignorables(before) && !unicode::cased_after_ignorables(after) {
        '\u{3C2}'
    } else {
        '\u{3C3}'
    }
}

/// Steps 4–10 and token extraction, in one scan of the folded text.
///
/// Why a scan gives the same answer as the reference's chain of replacements:
/// - step 4 (line endings) only turns whitespace into whitespace, which step
///   9 collapses anyway, so it has no observable effect;
/// - the URL rule (step 5) is tried at every position of the text *before*
///   zero-width characters are deleted, so a U+200B inside a URL belongs to
///   it, while U+FEFF (ECMAScript whitespace) ends it;
/// - zero-width characters (step 6) are then skipped without ending a number
///   run, as deleting them joins their neighbours;
/// - punctuation and symbols (step 7) and whitespace (step 9) become a
///   pending single space; a number run (step 8) becomes ` num `;
/// - a pending space is written only before further text (step 10's trim).
fn scan(folded: &str, out: &mut Canonical) {
    let mut writer =
        Writer { text: &mut out.text, tokens: &mut out.tokens, pending_space: false, token: None };
    let mut in_number = false;
    let bytes = folded.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'h'
            && let Some(url_len) = url_at(&folded[i..])
        {
            writer.word("url");
            in_number = false;
            i += url_len;
            continue;
        }
        if bytes[i].is_ascii_alphabetic() {
            let end = ascii_letters_end(folded, i);
            if in_number {
                writer.space();
                in_number = false;
            }
            writer.letters(&folded[i..end], end - i);
            i = end;
            continue;
        }
        let (c, class) = match bytes[i] {
            b if b.is_ascii() => (char::from(b), unicode::classify_ascii(b)),
            _ => {
                let c = folded[i..].chars().next().expect("i is on a character boundary");
                (c, unicode::classify(c))
            }
        };
        i += c.len_utf8();
        if class == Class::ZeroWidth || c == '\u{FEFF}' {
            continue;
        }
        if class == Class::Number {
            if !in_number {
                writer.word("num");
                in_number = true;
            }
            continue;
        }
        if in_number {
            writer.space();
            in_number = false;
        }
        match class {
            Class::Space | Class::PunctuationOrSymbol => writer.space(),
            Class::Letter => writer.letters(&folded[i - c.len_utf8()..i], c.len_utf16()),
            _ => writer.other(c),
        }
    }
    writer.finish();
}

/// The end of the run of ASCII letters starting at `start`, or of its part
/// before a URL. A URL can only start inside such a run at an `http` or
/// `https` that ends it, as `:` is not a letter.
fn ascii_letters_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut end = start + 1;
    while end < bytes.len() && bytes[end].is_ascii_alphabetic() {
        end += 1;
    }
    if bytes.get(end) != Some(&b':') {
        return end;
    }
    [end.saturating_sub(5), end.saturating_sub(4)]
        .into_iter()
        .find(|&url_start| url_start > start && url_at(&text[url_start..]).is_some())
        .unwrap_or(end)
}

/// Length of the URL match `https?://\S+` at the start of `text`, if any.
fn url_at(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'h') {
        return None;
    }
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

/// Appends to the canonical text, collapsing separators and tracking tokens.
struct Writer<'a> {
    text: &'a mut String,
    tokens: &'a mut Vec<Token>,
    pending_space: bool,
    token: Option<Token>,
}

impl Writer<'_> {
    fn space(&mut self) {
        self.end_token();
        self.pending_space = true;
    }

    fn flush_space(&mut self) {
        if self.pending_space {
            if !self.text.is_empty() {
                self.end_token();
                self.text.push(' ');
            }
            self.pending_space = false;
        }
    }

    /// Writes ` word ` (a word between spaces).
    fn word(&mut self, word: &str) {
        self.space();
        self.letters(word, word.len());
        self.space();
    }

    fn letters(&mut self, letters: &str, utf16_len: usize) {
        self.flush_space();
        let start = self.text.len();
        self.text.push_str(letters);
        let token = self.token.get_or_insert(Token { range: start..start, utf16_len: 0 });
        token.range.end = self.text.len();
        token.utf16_len += utf16_len;
    }

    fn other(&mut self, c: char) {
        self.flush_space();
        self.end_token();
        self.text.push(c);
    }

    fn end_token(&mut self) {
        if let Some(token) = self.token.take() {
            self.tokens.push(token);
        }
    }

    fn finish(mut self) {
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

    #[test]
    fn every_combining_character_is_a_mark() {
        // The per-character NFKD in `fold_non_ascii` relies on this.
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
