//! How a run of word characters becomes tokens: the [`TokenRule`].
//!
//! simhash-doc (`docs/simhash-doc.md` §5) hashes every run of word
//! characters whole. In Chinese, Japanese, Thai, Lao, Khmer and Myanmar,
//! which are written without spaces, such a run is a clause: one changed
//! character changes the whole token, and with it every word 5-gram that
//! holds it. In Devanagari, Bengali, Tamil and the other scripts that
//! write vowels with spacing marks (General_Category Mc), the run was cut
//! at every such mark, inside words. [`TokenRule::V2`] (simhash-doc-v2,
//! `docs/simhash-doc-v2.md`) cuts the *unspaced* letters of a run into
//! overlapping character bigrams, as search engines index CJK text, and
//! keeps spacing marks inside words. Measured against one token per
//! character and against dictionary segmentation (jieba), bigrams keep
//! light edits as close as English words do and unrelated texts as far
//! apart (BENCHMARKS.md, "Every script").
//!
//! Both rules run after the same scanner, which treats Mc as a word
//! character: [`Segmenter`] sits between the scanner and what consumes the
//! tokens, and re-cuts only the tokens that hold a character at or above
//! U+0800 (every spacing mark and every unspaced letter is), so text in
//! other scripts passes through untouched, at the cost of one byte
//! comparison per token byte.

use crate::sink::Sink;
use crate::unicode::is_mark;
use icu_properties::props::{GeneralCategory, GeneralCategoryGroup};
use icu_properties::{CodePointMapData, CodePointMapDataBorrowed};
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

const GENERAL_CATEGORY: CodePointMapDataBorrowed<'static, GeneralCategory> =
    CodePointMapData::<GeneralCategory>::new();

/// How runs of word characters are cut into tokens. Frozen: a rule is
/// never changed, only added, because every stored fingerprint, index and
/// `B` tag depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum TokenRule {
    /// simhash-doc's: a run is one token; spacing marks (Mc) end runs.
    V1,
    /// simhash-doc-v2's: spacing marks stay inside words, and each maximal
    /// stretch of unspaced letters ([`is_unspaced`]) with their marks
    /// becomes the overlapping bigrams of its characters (one token if it
    /// has one character). Korean, written with spaces, is cut as before.
    #[default]
    V2,
}

impl TokenRule {
    /// Every rule, the current one first.
    pub const ALL: [TokenRule; 2] = [TokenRule::V2, TokenRule::V1];

    /// Its name in manifests and on the command line: `v1` or `v2`.
    pub const fn name(self) -> &'static str {
        match self {
            TokenRule::V1 => "v1",
            TokenRule::V2 => "v2",
        }
    }

    /// The simhash-doc scheme whose tokens these are.
    pub const fn simhash_scheme(self) -> crate::Scheme {
        match self {
            TokenRule::V1 => crate::Scheme::SimhashDoc,
            TokenRule::V2 => crate::Scheme::SimhashDocV2,
        }
    }
}

impl fmt::Display for TokenRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a [`TokenRule`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown token rule {0:?}: expected v1 or v2")]
pub struct UnknownTokenRule(pub String);

impl UnknownTokenRule {
    /// The stable snake_case name of this error.
    pub fn reason(&self) -> &'static str {
        "unknown_token_rule"
    }
}

impl FromStr for TokenRule {
    type Err = UnknownTokenRule;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        TokenRule::ALL
            .into_iter()
            .find(|rule| rule.name() == name)
            .ok_or_else(|| UnknownTokenRule(name.into()))
    }
}

/// The blocks of the scripts written without spaces between words: Thai,
/// Lao, Myanmar (and its extensions), Khmer, the CJK symbols' iteration
/// marks, Hiragana, Katakana (and its extensions, half-width forms and
/// supplements), and every block of Han ideographs. Only their letters
/// count ([`is_unspaced`]); blocks, not the Script property, so that the
/// rule is a short table any implementation can copy and a Unicode update
/// cannot move.
const UNSPACED_BLOCKS: [(u32, u32); 16] = [
    (0x0E00, 0x0EFF),   // Thai, Lao
    (0x1000, 0x109F),   // Myanmar
    (0x1780, 0x17FF),   // Khmer
    (0x3000, 0x303F),   // CJK Symbols and Punctuation (々 〆 〻 …)
    (0x3040, 0x30FF),   // Hiragana, Katakana
    (0x31F0, 0x31FF),   // Katakana Phonetic Extensions
    (0x3400, 0x4DBF),   // CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),   // CJK Unified Ideographs
    (0xA9E0, 0xA9FF),   // Myanmar Extended-B
    (0xAA60, 0xAA7F),   // Myanmar Extended-A
    (0xF900, 0xFAFF),   // CJK Compatibility Ideographs
    (0xFF66, 0xFF9F),   // Half-width Katakana
    (0x116D0, 0x116FF), // Myanmar Extended-C
    (0x1AFF0, 0x1B16F), // Kana Extended-B, Kana Supplement, Kana Extended-A, Small Kana Extension
    (0x20000, 0x2FFFF), // Supplementary Ideographic Plane
    (0x30000, 0x3FFFF), // Tertiary Ideographic Plane
];

/// Whether `c` is a letter (General_Category L*) of a script written
/// without spaces ([`UNSPACED_BLOCKS`]).
pub fn is_unspaced(c: char) -> bool {
    let code = u32::from(c);
    UNSPACED_BLOCKS.iter().any(|&(first, last)| (first..=last).contains(&code))
        && GeneralCategoryGroup::Letter.contains(GENERAL_CATEGORY.get(c))
}

fn is_letter(c: char) -> bool {
    GeneralCategoryGroup::Letter.contains(GENERAL_CATEGORY.get(c))
}

/// How many words `text` has, counting up to `limit`: its
/// whitespace-separated chunks, except that a chunk holding letters of a
/// script written without spaces counts one word per two such letters
/// (about the length of a Chinese or Japanese word), so that a length
/// threshold in words means about as much text in every script.
pub fn count_words(text: &str, limit: usize) -> usize {
    let mut words = 0;
    for chunk in text.split_whitespace() {
        let unspaced = if chunk.is_ascii() { 0 } else { chunk.chars().filter(|&c| is_unspaced(c)).count() };
        words += unspaced.div_ceil(2).max(1);
        if words >= limit {
            return limit;
        }
    }
    words
}

/// The smallest UTF-8 lead byte of a character at or above U+0800: every
/// spacing mark and every unspaced letter is, so a run of UTF-8 without a
/// byte this large holds neither and passes whole (byte loops test this
/// before decoding characters: here and in the aligner's words).
pub const WIDE_LEAD: u8 = 0xE0;

/// Whether a run may need re-cutting (it holds a character of U+0800 or above).
#[inline(always)]
fn is_wide(run: &[u8]) -> bool {
    run.iter().any(|&byte| byte >= WIDE_LEAD)
}

/// What a run's letterless pieces are: simhash-doc's tokens need a letter
/// (numbers are dropped), the `\w+` words of word shingles do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pieces {
    /// A piece without a letter is reported as [`Sink::numeric`].
    NeedLetter,
    /// Every piece is a token.
    All,
}

/// A [`Sink`] that re-cuts the runs it is given by `rule` before passing
/// them on to `inner`.
pub(crate) struct Segmenter<'s, S> {
    pub(crate) inner: &'s mut S,
    pub(crate) rule: TokenRule,
    pub(crate) pieces: Pieces,
}

impl<S: Sink> Sink for Segmenter<'_, S> {
    #[inline(always)]
    fn token(&mut self, token: &[u8]) {
        if is_wide(token) {
            self.recut(token, true);
        } else {
            self.inner.token(token);
        }
    }

    #[inline(always)]
    fn padded_token(&mut self, padded: &[u8], len: usize) {
        if is_wide(&padded[..len]) {
            self.recut(&padded[..len], true);
        } else {
            self.inner.padded_token(padded, len);
        }
    }

    #[inline(always)]
    fn ascii_token(&mut self, padded: &[u8], len: usize) {
        self.inner.padded_token(padded, len);
    }

    fn numeric(&mut self, run: &[u8]) {
        if is_wide(run) {
            self.recut(run, false);
        } else {
            self.inner.numeric(run);
        }
    }

    fn identifier(&mut self, chunk: &[u8]) {
        self.inner.identifier(chunk);
    }
}

impl<S: Sink> Segmenter<'_, S> {
    /// Re-cuts a run (valid UTF-8: the scanner cuts at character
    /// boundaries) that `has_letter` says holds a letter.
    #[cold]
    fn recut(&mut self, run: &[u8], has_letter: bool) {
        let Ok(run) = std::str::from_utf8(run) else {
            // Unreachable for the scanner's runs; pass it on unchanged.
            return self.inner.token(run);
        };
        match self.rule {
            TokenRule::V1 => self.split_at_spacing_marks(run, has_letter),
            TokenRule::V2 => self.bigrams(run),
        }
    }

    /// simhash-doc's cut: spacing marks end runs.
    fn split_at_spacing_marks(&mut self, run: &str, has_letter: bool) {
        let spacing = |c: char| GENERAL_CATEGORY.get(c) == GeneralCategory::SpacingMark;
        for piece in run.split(spacing).filter(|piece| !piece.is_empty()) {
            self.piece(piece, has_letter && piece.chars().any(is_letter));
        }
    }

    /// simhash-doc-v2's cut ([`v2_pieces`]).
    fn bigrams(&mut self, run: &str) {
        v2_pieces(run, |piece| match piece {
            Piece::Spaced(range) => self.spaced(&run[range]),
            Piece::Unspaced(range) => self.inner.token(run[range].as_bytes()),
        });
    }

    /// A stretch of spaced characters of a v2 run: one piece.
    fn spaced(&mut self, piece: &str) {
        self.piece(piece, piece.chars().any(is_letter));
    }

    fn piece(&mut self, piece: &str, has_letter: bool) {
        if has_letter || self.pieces == Pieces::All {
            self.inner.token(piece.as_bytes());
        } else {
            self.inner.numeric(piece.as_bytes());
        }
    }
}

/// A piece of a run of word characters, as a byte range of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A stretch of characters of spaced scripts (with their marks): one
    /// word if it holds a letter (simhash-doc drops numbers).
    Spaced(Range<usize>),
    /// Unspaced letters: one with the marks after it
    /// ([`unspaced_characters`]), or two neighbouring ones, or one alone in
    /// its stretch ([`v2_pieces`]).
    Unspaced(Range<usize>),
}

/// Calls `each` with the pieces of `run` (characters that are letters,
/// marks, numbers or connectors) in order: every unspaced letter
/// ([`is_unspaced`]) with the marks that follow it, and every stretch of
/// other characters whole. The passage aligner's words: measured on
/// Chinese and Japanese passages (BENCHMARKS.md), seeds of neighbouring
/// characters survive shuffled and replaced characters that break bigrams.
pub fn unspaced_characters(run: &str, mut each: impl FnMut(Piece)) {
    // The piece being read: where it starts and whether it is unspaced.
    let mut current: Option<(usize, bool)> = None;
    for (at, c) in run.char_indices() {
        let unspaced = is_unspaced(c);
        current = match current {
            Some(piece) if is_mark(c) => Some(piece),
            Some((start, false)) if !unspaced => Some((start, false)),
            Some((start, kind)) => {
                each(piece(kind, start..at));
                Some((at, unspaced))
            }
            None => Some((at, unspaced)),
        };
    }
    if let Some((start, kind)) = current {
        each(piece(kind, start..run.len()));
    }
}

fn piece(unspaced: bool, range: Range<usize>) -> Piece {
    if unspaced { Piece::Unspaced(range) } else { Piece::Spaced(range) }
}

/// Calls `each` with the pieces of `run` as simhash-doc-v2 cuts it: each
/// stretch of unspaced letters as the overlapping bigrams of its
/// characters ([`unspaced_characters`]; the character itself when it is
/// alone), every other stretch whole.
pub fn v2_pieces(run: &str, mut each: impl FnMut(Piece)) {
    // The last character of the unspaced stretch being read, and whether
    // it went into a bigram already.
    let mut last: Option<(Range<usize>, bool)> = None;
    let alone = |last: &mut Option<(Range<usize>, bool)>, each: &mut dyn FnMut(Piece)| {
        if let Some((character, false)) = last.take() {
            each(Piece::Unspaced(character));
        }
    };
    unspaced_characters(run, |piece| match piece {
        Piece::Unspaced(character) => {
            last = Some(match last.take() {
                Some((previous, _)) => {
                    each(Piece::Unspaced(previous.start..character.end));
                    (character, true)
                }
                None => (character, false),
            });
        }
        spaced @ Piece::Spaced(_) => {
            alone(&mut last, &mut each);
            each(spaced);
        }
    });
    alone(&mut last, &mut each);
}

/// Whether `c` is a combining mark (General_Category M: Mn, Mc, Me): part
/// of the word of the character before it under [`TokenRule::V2`].
pub fn is_combining_mark(c: char) -> bool {
    is_mark(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Record {
        tokens: Vec<String>,
        numeric: Vec<String>,
    }

    impl Sink for Record {
        fn token(&mut self, token: &[u8]) {
            self.tokens.push(String::from_utf8(token.to_vec()).unwrap());
        }
        fn numeric(&mut self, run: &[u8]) {
            self.numeric.push(String::from_utf8(run.to_vec()).unwrap());
        }
    }

    fn cut(rule: TokenRule, run: &str) -> (Vec<String>, Vec<String>) {
        let mut record = Record::default();
        let mut segmenter = Segmenter { inner: &mut record, rule, pieces: Pieces::NeedLetter };
        segmenter.token(run.as_bytes());
        (record.tokens, record.numeric)
    }

    fn v2(run: &str) -> Vec<String> {
        cut(TokenRule::V2, run).0
    }

    #[test]
    fn han_and_kana_become_bigrams() {
        assert_eq!(v2("但它也常常"), ["但它", "它也", "也常", "常常"]);
        assert_eq!(v2("日本語のテキスト"), ["日本", "本語", "語の", "のテ", "テキ", "キス", "スト"]);
        assert_eq!(v2("字"), ["字"]);
        // The prolonged sound mark and the iteration mark are letters of
        // their blocks.
        assert_eq!(v2("コーヒー"), ["コー", "ーヒ", "ヒー"]);
        assert_eq!(v2("人々"), ["人々"]);
    }

    #[test]
    fn spaced_stretches_inside_a_run_are_pieces_of_their_own() {
        assert_eq!(v2("linux内核"), ["linux", "内核"]);
        assert_eq!(v2("第3章"), ["第", "章"]);
        assert_eq!(cut(TokenRule::V2, "第3章").1, ["3"]);
        assert_eq!(v2("debian的apt工具"), ["debian", "的", "apt", "工具"]);
    }

    #[test]
    fn thai_marks_stay_with_their_letter() {
        // น ั(Mn) ก เ ร ี(Mn) ย น: each mark rides on the letter before it.
        assert_eq!(v2("นักเรียน"), ["นัก", "กเ", "เรี", "รีย", "ยน"]);
    }

    #[test]
    fn spacing_marks_stay_inside_words_in_v2_and_cut_them_in_v1() {
        // हिंदी: ह, ि (Mc), ं (Mn), द, ी (Mc).
        assert_eq!(v2("हिंदी"), ["हिंदी"]);
        assert_eq!(cut(TokenRule::V1, "हिंदी").0, ["ह", "ंद"]);
    }

    #[test]
    fn korean_and_other_scripts_pass_unchanged() {
        assert_eq!(v2("한국어"), ["한국어"]);
        assert_eq!(v2("привет"), ["привет"]);
        assert_eq!(cut(TokenRule::V1, "日本語").0, ["日本語"]);
    }

    #[test]
    fn unspaced_letters_only() {
        assert!(is_unspaced('字') && is_unspaced('の') && is_unspaced('ン') && is_unspaced('ก'));
        assert!(is_unspaced('\u{20000}'));
        // 〇 is a number (Nl), 、 punctuation, 한 Korean.
        assert!(!is_unspaced('〇') && !is_unspaced('、') && !is_unspaced('한') && !is_unspaced('a'));
    }

    #[test]
    fn words_are_counted_in_every_script() {
        assert_eq!(count_words("one two  three", 10), 3);
        assert_eq!(count_words("但它也常常保留", 10), 4);
        assert_eq!(count_words("パッケージ を", 10), 4);
        assert_eq!(count_words("a b c d e", 3), 3);
        assert_eq!(count_words("한국어 텍스트", 10), 2);
        assert_eq!(count_words("", 10), 0);
    }

    #[test]
    fn rule_names_round_trip() {
        for rule in TokenRule::ALL {
            assert_eq!(rule.name().parse(), Ok(rule));
        }
        assert!("v3".parse::<TokenRule>().is_err());
    }
}
