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
use std::borrow::Cow;
use std::ops::Range;
use writeable::Writeable;

const NFKD: DecomposingNormalizerBorrowed<'static> = DecomposingNormalizer::new_nfkd();
const CASE_MAPPER: CaseMapperBorrowed<'static> = CaseMapper::new();

/// The canonical text and the byte ranges of its tokens.
#[derive(Debug, Default, Clone)]
pub(crate) struct Canonical {
    pub text: String,
    pub tokens: Vec<Range<usize>>,
}

impl Canonical {
    pub fn token_strs(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().map(|range| &self.text[range.clone()])
    }

    /// Canonicalizes `input` into `self`, reusing its buffers.
    pub fn fill(&mut self, input: &str) {
        self.text.clear();
        self.tokens.clear();
        let folded = fold(input);
        scan(&folded, self);
    }
}

/// Steps 1–3: NFKD, strip combining marks, full Unicode lowercasing (with
/// ECMAScript's root-locale special cases).
///
/// Most text is mostly ASCII, and the three steps only lowercase ASCII, so
/// only the non-ASCII runs go through ICU4X. Cutting the text at ASCII
/// characters is exact because:
/// - an ASCII character is a stable NFKD starter: decomposition never
///   reorders or combines across it;
/// - root-locale lowercasing is context-free except for capital sigma, whose
///   Final_Sigma context can reach across ASCII; it is decided here on the
///   whole text (see [`lower_sigma`]).
fn fold(input: &str) -> Cow<'_, str> {
    if input.is_ascii() {
        if input.bytes().any(|b| b.is_ascii_uppercase()) {
            return Cow::Owned(input.to_ascii_lowercase());
        }
        return Cow::Borrowed(input);
    }
    let mut unmarked = String::with_capacity(input.len());
    for (is_ascii, run) in ascii_runs(input) {
        if is_ascii {
            unmarked.push_str(run);
        } else {
            unmarked.extend(NFKD.normalize(run).chars().filter(|&c| !unicode::is_mark(c)));
        }
    }
    let mut folded = String::with_capacity(unmarked.len() + unmarked.len() / 8);
    let mut offset = 0;
    for (is_ascii, run) in ascii_runs(&unmarked) {
        if is_ascii {
            let start = folded.len();
            folded.push_str(run);
            folded[start..].make_ascii_lowercase();
        } else {
            lower_non_ascii(&unmarked, offset, run, &mut folded);
        }
        offset += run.len();
    }
    Cow::Owned(folded)
}

const CAPITAL_SIGMA: char = '\u{3A3}';

/// Lowercases `run`, which starts at `offset` in `text`.
fn lower_non_ascii(text: &str, offset: usize, run: &str, out: &mut String) {
    let mut start = 0;
    for (i, _) in run.match_indices(CAPITAL_SIGMA) {
        lower_context_free(&run[start..i], out);
        out.push(lower_sigma(text, offset + i));
        start = i + CAPITAL_SIGMA.len_utf8();
    }
    lower_context_free(&run[start..], out);
}

fn lower_context_free(text: &str, out: &mut String) {
    CASE_MAPPER
        .lowercase(text, &LanguageIdentifier::UNKNOWN)
        .write_to(out)
        .expect("writing to a String cannot fail");
}

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

/// Splits `text` into maximal runs of ASCII and of non-ASCII characters.
fn ascii_runs(text: &str) -> impl Iterator<Item = (bool, &str)> {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        let first = *bytes.get(start)?;
        let is_ascii = first.is_ascii();
        let len = bytes[start..].iter().position(|b| b.is_ascii() != is_ascii).unwrap_or(bytes.len() - start);
        let run = &text[start..start + len];
        start += len;
        Some((is_ascii, run))
    })
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
    let mut writer = Writer { out, pending_space: false, token_start: None };
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
            writer.letters(&folded[i..end]);
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
            Class::Letter => writer.letters(&folded[i - c.len_utf8()..i]),
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
    let end =
        start + bytes[start..].iter().position(|b| !b.is_ascii_alphabetic()).unwrap_or(bytes.len() - start);
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
    out: &'a mut Canonical,
    pending_space: bool,
    token_start: Option<usize>,
}

impl Writer<'_> {
    fn space(&mut self) {
        self.end_token();
        self.pending_space = true;
    }

    fn flush_space(&mut self) {
        if self.pending_space {
            if !self.out.text.is_empty() {
                self.end_token();
                self.out.text.push(' ');
            }
            self.pending_space = false;
        }
    }

    fn begin_token(&mut self) {
        if self.token_start.is_none() {
            self.token_start = Some(self.out.text.len());
        }
    }

    /// Writes ` word ` (a word between spaces).
    fn word(&mut self, word: &str) {
        self.space();
        self.flush_space();
        self.begin_token();
        self.out.text.push_str(word);
        self.end_token();
        self.pending_space = true;
    }

    fn letters(&mut self, letters: &str) {
        self.flush_space();
        self.begin_token();
        self.out.text.push_str(letters);
    }

    fn other(&mut self, c: char) {
        self.flush_space();
        self.end_token();
        self.out.text.push(c);
    }

    fn end_token(&mut self) {
        if let Some(start) = self.token_start.take() {
            self.out.tokens.push(start..self.out.text.len());
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
