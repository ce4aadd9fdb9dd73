//! `simhash-doc`: the 64-bit Charikar SimHash of the lsh-interop spec.
//!
//! The full, language-neutral definition is `docs/simhash-doc.md`; the
//! vectors are `vectors/simhash-doc.json`. In short:
//!
//! 1. delete Default_Ignorable_Code_Point characters, then NFKC, full case
//!    folding, NFKC again;
//! 2. split at White_Space into *chunks*; drop every chunk that looks like a
//!    URL or identifier ([`is_identifier`]);
//! 3. a token is a maximal run of word characters (general category Ll Lu
//!    Lt Lo Lm Mn Nd Pc) with at least one letter (L*); others are dropped;
//! 4. each token occurrence adds its lookup3 `hashlittle2` feature
//!    `(c << 32) | b` (seeds 0/0, over the token's UTF-8 bytes) to 64
//!    counters: +1 where the feature's bit is 1, −1 where it is 0;
//! 5. bit *i* of the result is 1 iff counter *i* is positive.
//!
//! # Speed
//!
//! Text is cut into blocks of about 4 KiB at ASCII whitespace (a boundary
//! that normalization and case folding never see across). An ASCII block
//! skips normalization (ASCII is NFKC, and folds by ASCII lowercasing) and is
//! scanned byte by byte; tokens are hashed where they lie. The counters are
//! kept bit-sliced ([`Counters`]), so adding a feature costs a few word
//! operations instead of 64 additions.

use crate::jenkins;
use icu_casemap::{CaseMapper, CaseMapperBorrowed};
use icu_normalizer::{ComposingNormalizer, ComposingNormalizerBorrowed};
use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory, GeneralCategoryGroup, WhiteSpace};
use icu_properties::{
    CodePointMapData, CodePointMapDataBorrowed, CodePointSetData, CodePointSetDataBorrowed,
};
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

const NFKC: ComposingNormalizerBorrowed<'static> = ComposingNormalizer::new_nfkc();
const CASE_MAPPER: CaseMapperBorrowed<'static> = CaseMapper::new();
const GENERAL_CATEGORY: CodePointMapDataBorrowed<'static, GeneralCategory> =
    CodePointMapData::<GeneralCategory>::new();
const WHITE_SPACE: CodePointSetDataBorrowed<'static> = CodePointSetData::new::<WhiteSpace>();
const DEFAULT_IGNORABLE: CodePointSetDataBorrowed<'static> =
    CodePointSetData::new::<DefaultIgnorableCodePoint>();

/// A block ends at the first ASCII whitespace byte after this many bytes.
const BLOCK_BYTES: usize = 4096;

/// The `simhash-doc` of a document: 64 bits, shown as 13 characters of
/// base32hex (RFC 4648 §7, upper case, no padding), which sort as the
/// numbers do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SimhashDoc(pub u64);

/// The base32hex alphabet (RFC 4648 §7).
const BASE32HEX: &[u8; 32] = b"0123456789ABCDEFGHIJKLMNOPQRSTUV";

/// Characters of the base32 form: 65 bits, the last one always 0.
pub const BASE32_LEN: usize = 13;

/// Two documents are "close" at this similarity or above (the spec's band).
pub const CLOSE_SIMILARITY: f64 = 0.98;
/// Two documents are a "loose" match at this similarity or above.
pub const LOOSE_SIMILARITY: f64 = 0.90;
/// The spec's default lookup distance: near-duplicates differ in at most
/// this many bits.
pub const LOOKUP_DISTANCE: u32 = 3;

impl SimhashDoc {
    /// The value as 16 upper-case hex digits (the big-endian octets).
    pub fn to_hex(self) -> String {
        format!("{:016X}", self.0)
    }

    /// The 8-octet string form: big-endian, so octet 0 holds bits 63..56.
    pub const fn to_bytes(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// The number of differing bits (0..=64).
    pub const fn distance(self, other: SimhashDoc) -> u32 {
        (self.0 ^ other.0).count_ones()
    }

    /// `1 - distance / 64`.
    pub fn similarity(self, other: SimhashDoc) -> f64 {
        1.0 - f64::from(self.distance(other)) / 64.0
    }

    /// The spec's band for the pair.
    pub const fn band(self, other: SimhashDoc) -> Band {
        Band::of_distance(self.distance(other))
    }
}

/// How near two `simhash-doc` values are, in the spec's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Band {
    /// Similarity at least 0.98: at most 1 differing bit.
    Close,
    /// Similarity at least 0.90 (and below 0.98): 2 to 6 differing bits.
    Loose,
    /// Similarity below 0.90: 7 or more differing bits.
    Distinct,
}

impl Band {
    /// The band of a Hamming distance. Computed in integers so that no
    /// rounding can move a pair across a boundary: `1 - d/64 >= 0.98` is
    /// `50 d <= 64`, and `1 - d/64 >= 0.90` is `10 d <= 64`.
    pub const fn of_distance(distance: u32) -> Band {
        if distance * 50 <= 64 {
            Band::Close
        } else if distance * 10 <= 64 {
            Band::Loose
        } else {
            Band::Distinct
        }
    }

    /// `close`, `loose` or `distinct`.
    pub const fn name(self) -> &'static str {
        match self {
            Band::Close => "close",
            Band::Loose => "loose",
            Band::Distinct => "distinct",
        }
    }
}

impl fmt::Display for Band {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for SimhashDoc {
    /// 13 base32hex characters, most significant bits first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // 65 bits: the value shifted left by one, the padding bit zero.
        let bits = u128::from(self.0) << 1;
        let mut out = [0u8; BASE32_LEN];
        for (i, digit) in out.iter_mut().enumerate() {
            let shift = 5 * (BASE32_LEN - 1 - i);
            *digit = BASE32HEX[((bits >> shift) & 31) as usize];
        }
        f.write_str(std::str::from_utf8(&out).map_err(|_| fmt::Error)?)
    }
}

/// A string was not a `simhash-doc` in base32hex or hex form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a simhash-doc is 13 base32hex characters (0-9, A-V, any case, last one even; `===` padding allowed) or 16 hex digits"
)]
pub struct InvalidSimhashDoc;

impl FromStr for SimhashDoc {
    type Err = InvalidSimhashDoc;

    /// Accepts the base32hex form in any case, with or without the `===`
    /// padding, or 16 hex digits.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return u64::from_str_radix(s, 16).map(SimhashDoc).map_err(|_| InvalidSimhashDoc);
        }
        let digits = s.strip_suffix("===").unwrap_or(s).as_bytes();
        if digits.len() != BASE32_LEN {
            return Err(InvalidSimhashDoc);
        }
        let mut bits: u128 = 0;
        for &digit in digits {
            let value = char::from(digit).to_digit(32).ok_or(InvalidSimhashDoc)?;
            bits = bits << 5 | u128::from(value);
        }
        if bits & 1 != 0 {
            // The padding bit must be zero, so every value has one spelling.
            return Err(InvalidSimhashDoc);
        }
        u64::try_from(bits >> 1).map(SimhashDoc).map_err(|_| InvalidSimhashDoc)
    }
}

/// Receives what the scan finds, in document order.
pub(crate) trait Sink {
    /// A token to hash (case-folded, normalized UTF-8).
    fn token(&mut self, token: &[u8]);
    /// A run of word characters without a letter (a number), dropped.
    fn numeric(&mut self, _run: &[u8]) {}
    /// A whitespace-delimited chunk dropped as a URL or identifier.
    fn identifier(&mut self, _chunk: &[u8]) {}
}

/// The 64 counters, bit-sliced: `planes[k]` holds bit `k` of the count of
/// one-bits seen at each of the 64 positions, so adding a feature is a
/// ripple-carry addition on whole words. The planes are flushed into
/// `ones` before they can overflow. Counter *i* of the spec is
/// `2 * ones[i] - features`.
#[derive(Debug, Clone)]
pub(crate) struct Counters {
    planes: [u64; PLANES],
    in_planes: u32,
    ones: [u64; 64],
    features: u64,
}

const PLANES: usize = 16;
const PLANE_CAPACITY: u32 = (1 << PLANES) - 1;

impl Default for Counters {
    fn default() -> Self {
        Counters { planes: [0; PLANES], in_planes: 0, ones: [0; 64], features: 0 }
    }
}

impl Counters {
    #[inline]
    fn add(&mut self, feature: u64) {
        let mut carry = feature;
        for plane in &mut self.planes {
            let next = *plane & carry;
            *plane ^= carry;
            carry = next;
            if carry == 0 {
                break;
            }
        }
        self.in_planes += 1;
        if self.in_planes == PLANE_CAPACITY {
            self.flush();
        }
    }

    fn flush(&mut self) {
        for (bit, ones) in self.ones.iter_mut().enumerate() {
            let mut count = 0u64;
            for (k, plane) in self.planes.iter().enumerate() {
                count |= (plane >> bit & 1) << k;
            }
            *ones += count;
        }
        self.features += u64::from(self.in_planes);
        self.planes = [0; PLANES];
        self.in_planes = 0;
    }

    /// The spec's signed counters, index = bit number (0 = least significant).
    pub(crate) fn signed(&mut self) -> [i64; 64] {
        self.flush();
        let features = self.features as i128;
        self.ones.map(|ones| (2 * ones as i128 - features).clamp(i64::MIN.into(), i64::MAX.into()) as i64)
    }

    /// Bit `i` is 1 iff more than half of the features have bit `i` set
    /// (counter `i` positive; a zero counter gives 0).
    fn finish(&mut self) -> SimhashDoc {
        self.flush();
        let mut value = 0u64;
        for (bit, &ones) in self.ones.iter().enumerate() {
            if u128::from(ones) * 2 > u128::from(self.features) {
                value |= 1 << bit;
            }
        }
        SimhashDoc(value)
    }
}

impl Sink for Counters {
    #[inline]
    fn token(&mut self, token: &[u8]) {
        self.add(jenkins::hashlittle2(token, 0, 0).feature());
    }
}

/// Reusable buffers: computing many documents allocates only while they grow.
#[derive(Debug, Default, Clone)]
pub(crate) struct Buffers {
    lowered: Vec<u8>,
    pending: Vec<Range<usize>>,
}

impl Buffers {
    /// The `simhash-doc` of `text`.
    pub(crate) fn fingerprint(&mut self, text: &str) -> SimhashDoc {
        let mut counters = Counters::default();
        self.scan(text, &mut counters);
        counters.finish()
    }

    /// Runs steps 1–3 over `text`, reporting to `sink`.
    pub(crate) fn scan(&mut self, text: &str, sink: &mut impl Sink) {
        for block in blocks(text) {
            if block.is_ascii() {
                self.lowered.clear();
                self.lowered.extend(block.bytes().map(|b| b.to_ascii_lowercase()));
                scan_ascii(&self.lowered, &mut self.pending, sink);
            } else {
                let normalized = normalize(block);
                scan_unicode(&normalized, &mut self.pending, sink);
            }
        }
    }
}

/// Cuts `text` after the first ASCII whitespace byte at or beyond
/// [`BLOCK_BYTES`] from the block start. ASCII whitespace is a chunk
/// boundary and a normalization boundary (a starter that composes with
/// nothing), so blocks can be processed independently.
fn blocks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .as_bytes()
            .iter()
            .skip(BLOCK_BYTES)
            .position(|b| is_ascii_white_space(*b))
            .map_or(rest.len(), |i| BLOCK_BYTES + i + 1);
        let (block, tail) = rest.split_at(end);
        rest = tail;
        Some(block)
    })
}

/// Step 1 for a block with non-ASCII text: delete default ignorables, NFKC,
/// full case folding (Unicode C + F mappings, no Turkic), NFKC. Allocates
/// per block, not per token.
pub(crate) fn normalize(block: &str) -> String {
    let visible: String = block.chars().filter(|&c| !DEFAULT_IGNORABLE.contains(c)).collect();
    let composed = NFKC.normalize(&visible);
    let folded = CASE_MAPPER.fold_string(&composed);
    NFKC.normalize(&folded).into_owned()
}

/// What a byte of lowered ASCII text is to the scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Byte {
    /// `a`–`z`: a word character and a letter.
    Letter,
    /// `0`–`9` (Nd) and `_` (Pc): word characters, not letters.
    Word,
    /// TAB, LF, VT, FF, CR, SPACE (White_Space): ends the chunk.
    Space,
    /// `:`, `@`, `.`: ends a token, and marks the chunk for the
    /// identifier check.
    Marker,
    /// Anything else: ends a token.
    Other,
}

const ASCII_CLASS: [Byte; 128] = {
    let mut table = [Byte::Other; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        table[i] = match b {
            b'a'..=b'z' | b'A'..=b'Z' => Byte::Letter,
            b'0'..=b'9' | b'_' => Byte::Word,
            b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' => Byte::Space,
            b':' | b'@' | b'.' => Byte::Marker,
            _ => Byte::Other,
        };
        i += 1;
    }
    table
};

fn is_ascii_white_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

/// The tokens and identifier state of the chunk being scanned.
struct Chunk<'p> {
    start: usize,
    marked: bool,
    pending: &'p mut Vec<Range<usize>>,
}

impl<'p> Chunk<'p> {
    fn new(pending: &'p mut Vec<Range<usize>>) -> Self {
        pending.clear();
        Chunk { start: 0, marked: false, pending }
    }

    /// A word-character run `range` ended; `letter`: it holds a letter.
    #[inline]
    fn run(&mut self, text: &[u8], range: Range<usize>, letter: bool, sink: &mut impl Sink) {
        if letter {
            self.pending.push(range);
        } else {
            sink.numeric(&text[range]);
        }
    }

    /// The chunk ends at `end` (exclusive); the next starts at `next`.
    #[inline]
    fn end(&mut self, text: &[u8], end: usize, next: usize, sink: &mut impl Sink) {
        if !self.pending.is_empty() {
            let chunk = &text[self.start..end];
            if self.marked && is_identifier(chunk) {
                sink.identifier(chunk);
            } else {
                for range in self.pending.iter() {
                    sink.token(&text[range.clone()]);
                }
            }
            self.pending.clear();
        }
        self.start = next;
        self.marked = false;
    }
}

/// Steps 2–3 over lowered ASCII text.
fn scan_ascii(text: &[u8], pending: &mut Vec<Range<usize>>, sink: &mut impl Sink) {
    let mut chunk = Chunk::new(pending);
    let mut run_start = 0;
    let mut in_run = false;
    let mut letter = false;
    for (i, &b) in text.iter().enumerate() {
        let class = ASCII_CLASS[usize::from(b & 0x7f)];
        match class {
            Byte::Letter | Byte::Word => {
                if !in_run {
                    run_start = i;
                    in_run = true;
                    letter = false;
                }
                letter |= class == Byte::Letter;
                continue;
            }
            _ => {}
        }
        if in_run {
            chunk.run(text, run_start..i, letter, sink);
            in_run = false;
        }
        match class {
            Byte::Space => chunk.end(text, i, i + 1, sink),
            Byte::Marker => chunk.marked = true,
            _ => {}
        }
    }
    if in_run {
        chunk.run(text, run_start..text.len(), letter, sink);
    }
    chunk.end(text, text.len(), text.len(), sink);
}

/// What a character of normalized text is to the scanner.
fn classify(c: char) -> Byte {
    if c.is_ascii() {
        return ASCII_CLASS[c as usize];
    }
    if WHITE_SPACE.contains(c) {
        return Byte::Space;
    }
    let category = GENERAL_CATEGORY.get(c);
    if GeneralCategoryGroup::Letter.contains(category) {
        Byte::Letter
    } else if matches!(
        category,
        GeneralCategory::NonspacingMark
            | GeneralCategory::DecimalNumber
            | GeneralCategory::ConnectorPunctuation
    ) {
        Byte::Word
    } else {
        Byte::Other
    }
}

/// Steps 2–3 over normalized text with no default ignorables.
fn scan_unicode(text: &str, pending: &mut Vec<Range<usize>>, sink: &mut impl Sink) {
    let bytes = text.as_bytes();
    let mut chunk = Chunk::new(pending);
    let mut run_start = 0;
    let mut in_run = false;
    let mut letter = false;
    for (i, c) in text.char_indices() {
        let class = classify(c);
        match class {
            Byte::Letter | Byte::Word => {
                if !in_run {
                    run_start = i;
                    in_run = true;
                    letter = false;
                }
                letter |= class == Byte::Letter;
                continue;
            }
            _ => {}
        }
        if in_run {
            chunk.run(bytes, run_start..i, letter, sink);
            in_run = false;
        }
        match class {
            Byte::Space => chunk.end(bytes, i, i + c.len_utf8(), sink),
            Byte::Marker => chunk.marked = true,
            _ => {}
        }
    }
    if in_run {
        chunk.run(bytes, run_start..bytes.len(), letter, sink);
    }
    chunk.end(bytes, bytes.len(), bytes.len(), sink);
}

/// Whether a chunk (case-folded, between White_Space) is a URL or an
/// identifier, whose tokens are not hashed: it contains `://`, `www.`,
/// `@`, `doi:`, `urn:`, `arxiv:`, or a DOI prefix (`10.`, 4 to 9 ASCII
/// digits, `/`).
pub(crate) fn is_identifier(chunk: &[u8]) -> bool {
    const MARKERS: [&[u8]; 6] = [b"://", b"www.", b"@", b"doi:", b"urn:", b"arxiv:"];
    MARKERS.iter().any(|marker| contains(chunk, marker)) || has_doi_prefix(chunk)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

fn has_doi_prefix(chunk: &[u8]) -> bool {
    (0..chunk.len()).any(|start| {
        let Some(rest) = chunk[start..].strip_prefix(b"10.") else { return false };
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        (4..=9).contains(&digits) && rest.get(digits) == Some(&b'/')
    })
}

/// Every intermediate value of `simhash-doc` on one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimhashDocExplanation {
    /// The hashed tokens, in order, with repetitions.
    pub tokens: Vec<String>,
    /// Runs of word characters without a letter (numbers), not hashed.
    pub numeric: Vec<String>,
    /// Chunks dropped as URLs or identifiers.
    pub identifiers: Vec<String>,
    /// The 64 signed counters; index = bit number (0 = least significant).
    pub counters: [i64; 64],
    /// The result.
    pub fingerprint: SimhashDoc,
}

impl SimhashDocExplanation {
    /// The lookup3 feature of a token: `(c << 32) | b`.
    pub fn feature(token: &str) -> u64 {
        jenkins::hashlittle2(token.as_bytes(), 0, 0).feature()
    }
}

/// Collects strings for [`SimhashDocExplanation`] while counting.
#[derive(Default)]
struct Collector {
    counters: Counters,
    tokens: Vec<String>,
    numeric: Vec<String>,
    identifiers: Vec<String>,
}

fn lossless(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl Sink for Collector {
    fn token(&mut self, token: &[u8]) {
        self.counters.token(token);
        self.tokens.push(lossless(token));
    }

    fn numeric(&mut self, run: &[u8]) {
        self.numeric.push(lossless(run));
    }

    fn identifier(&mut self, chunk: &[u8]) {
        self.identifiers.push(lossless(chunk));
    }
}

pub(crate) fn explain(text: &str) -> SimhashDocExplanation {
    let mut collector = Collector::default();
    Buffers::default().scan(text, &mut collector);
    let counters = collector.counters.signed();
    SimhashDocExplanation {
        tokens: collector.tokens,
        numeric: collector.numeric,
        identifiers: collector.identifiers,
        counters,
        fingerprint: collector.counters.finish(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        explain(text).tokens
    }

    #[test]
    fn base32hex_round_trip_and_order() {
        for value in [0, 1, 2, u64::MAX, 0x8000_0000_0000_0000, 0x0123_4567_89AB_CDEF] {
            let shown = SimhashDoc(value).to_string();
            assert_eq!(shown.len(), BASE32_LEN);
            assert_eq!(shown.parse(), Ok(SimhashDoc(value)));
            assert_eq!(shown.to_lowercase().parse(), Ok(SimhashDoc(value)));
            assert_eq!(format!("{shown}===").parse(), Ok(SimhashDoc(value)));
        }
        assert_eq!(SimhashDoc(0).to_string(), "0000000000000");
        assert_eq!(SimhashDoc(u64::MAX).to_string(), "VVVVVVVVVVVVU");
        assert_eq!(SimhashDoc(1).to_string(), "0000000000002");
        // The padding bit must be zero; W is not base32hex.
        assert!("0000000000001".parse::<SimhashDoc>().is_err());
        assert!("000000000000W".parse::<SimhashDoc>().is_err());
        assert!("000000000000".parse::<SimhashDoc>().is_err());
        // Strings sort as the numbers do.
        let mut values = [5u64, 1 << 63, 77, 1 << 40, 3];
        let mut shown: Vec<String> = values.iter().map(|v| SimhashDoc(*v).to_string()).collect();
        values.sort_unstable();
        shown.sort();
        assert_eq!(shown, values.map(|v| SimhashDoc(v).to_string()));
    }

    #[test]
    fn python_b32hexencode_agrees() {
        // base64.b32hexencode(bytes.fromhex("0123456789abcdef")) == b"04HKAPS9LF6UU==="
        assert_eq!(SimhashDoc(0x0123_4567_89AB_CDEF).to_string(), "04HKAPS9LF6UU");
        assert_eq!(SimhashDoc(0x0123_4567_89AB_CDEF).to_hex(), "0123456789ABCDEF");
    }

    #[test]
    fn bands_at_their_boundaries() {
        let bands: Vec<Band> = (0..=8).map(Band::of_distance).collect();
        use Band::*;
        assert_eq!(bands, [Close, Close, Loose, Loose, Loose, Loose, Loose, Distinct, Distinct]);
        let (a, b) = (SimhashDoc(0), SimhashDoc(0b11));
        assert_eq!(a.distance(b), 2);
        assert_eq!(a.similarity(b), 0.96875);
        assert_eq!(a.band(b), Loose);
    }

    #[test]
    fn tokens_follow_the_word_rules() {
        assert_eq!(tokens("Hello, WORLD! it's 2024"), ["hello", "world", "it", "s"]);
        assert_eq!(tokens("abc123 123 3_4 a_b"), ["abc123", "a_b"]);
        assert_eq!(explain("abc123 123 3_4").numeric, ["123", "3_4"]);
        // Combining marks (Mn) stay in the token; NFKC composes them.
        assert_eq!(tokens("Cafe\u{301} CAFÉ"), ["café", "café"]);
        // Default ignorables are deleted, joining their neighbours.
        assert_eq!(tokens("hy\u{AD}phen zero\u{200B}width"), ["hyphen", "zerowidth"]);
        // Full case folding: ß → ss, final sigma → σ; NFKC: ligatures, width.
        assert_eq!(tokens("Straße ΟΔΟΣ ﬁnd ＡＢＣ"), ["strasse", "οδοσ", "find", "abc"]);
        // Spacing marks (Mc) are not word characters in the spec's list.
        assert_eq!(tokens("हिंदी"), ["ह", "ंद"]);
        assert_eq!(tokens("日本語のテキスト"), ["日本語のテキスト"]);
        assert!(tokens("").is_empty() && tokens("🙂 ❤️ 42").is_empty());
    }

    #[test]
    fn identifiers_are_dropped_whole() {
        let e = explain(
            "see https://example.org/a?b=1 or www.Example.com, mail me@x.org (doi:10.1000/xyz) 10.1234/abc. end.",
        );
        assert_eq!(e.tokens, ["see", "or", "mail", "end"]);
        assert_eq!(e.identifiers.len(), 5);
        assert!(!is_identifier(b"e.g.") && !is_identifier(b"10.12/x") && is_identifier(b"(10.1234/x)"));
    }

    #[test]
    fn empty_document_is_zero_and_ties_are_zero() {
        assert_eq!(Buffers::default().fingerprint(""), SimhashDoc(0));
        assert_eq!(Buffers::default().fingerprint("123 ... https://x.y"), SimhashDoc(0));
        // One token: the simhash is its feature.
        let a = SimhashDoc(jenkins::hashlittle2(b"a", 0, 0).feature());
        assert_eq!(Buffers::default().fingerprint("A"), a);
        // Two different tokens: bits where they disagree tie at 0.
        let b = jenkins::hashlittle2(b"b", 0, 0).feature();
        assert_eq!(Buffers::default().fingerprint("a b"), SimhashDoc(a.0 & b));
    }

    #[test]
    fn counters_match_a_plain_count_across_flushes() {
        let mut counters = Counters::default();
        let mut plain = [0i64; 64];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..(PLANE_CAPACITY as usize * 2 + 17) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let feature = x & (x >> 3); // biased: about one bit in four set
            counters.add(feature);
            for (bit, counter) in plain.iter_mut().enumerate() {
                *counter += if feature >> bit & 1 == 1 { 1 } else { -1 };
            }
        }
        assert_eq!(counters.signed(), plain);
    }

    #[test]
    fn blocks_cover_the_text_at_ascii_whitespace() {
        let text = "wörd ".repeat(3000);
        let blocks: Vec<&str> = blocks(&text).collect();
        assert!(blocks.len() > 2);
        assert_eq!(blocks.concat(), text);
        assert!(blocks.iter().all(|b| b.ends_with(' ')));
        let mut one = Buffers::default();
        assert_eq!(one.fingerprint(&text), one.fingerprint(&text.replace(' ', "\n")));
    }
}
