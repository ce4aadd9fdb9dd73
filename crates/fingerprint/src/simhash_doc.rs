//! `simhash-doc`: the 64-bit Charikar SimHash of the lsh-interop spec.
//!
//! The full, language-neutral definition is `docs/simhash-doc.md`; the
//! vectors are `vectors/simhash-doc.json`. In short:
//!
//! 1. delete Default_Ignorable_Code_Point characters, then NFKC, full case
//!    folding, NFKC again;
//! 2. split at White_Space into *chunks*; drop every chunk that looks like a
//!    URL or identifier;
//! 3. a token is a maximal run of word characters (general category Ll Lu
//!    Lt Lo Lm Mn Nd Pc) with at least one letter (L*); others are dropped;
//! 4. each token occurrence adds its lookup3 `hashlittle2` feature
//!    `(c << 32) | b` (seeds 0/0, over the token's UTF-8 bytes) to 64
//!    counters: +1 where the feature's bit is 1, −1 where it is 0;
//! 5. bit *i* of the result is 1 iff counter *i* is positive.
//!
//! # Speed
//!
//! Most text needs no normalization beyond ASCII lowercasing, and its
//! tokens are hashed where they lie (see `simhash_tokens.rs`), short ones
//! eight at a time, and the counters are bit-sliced ([`BitCounts`]), so
//! counting a feature costs a few logical operations instead of 64 counter
//! updates.

use crate::bit_counts::BitCounts;
use crate::jenkins;
use crate::segment::TokenRule;
use crate::simhash_tokens::Scanner;
use crate::sink::Sink;
use std::fmt;
use std::str::FromStr;

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

impl InvalidSimhashDoc {
    /// The stable snake_case name of this error, as the JSON reports and
    /// the Python binding (`InputError.reason`) give it.
    pub fn reason(&self) -> &'static str {
        "invalid_simhash_doc"
    }
}

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

/// The 64 counters, kept as counts of one-bits: counter *i* of the spec is
/// `2 * ones[i] - features` (see [`BitCounts`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct Counters {
    counts: BitCounts,
    /// Short tokens not hashed yet.
    short: jenkins::ShortKeys,
}

impl Counters {
    /// Hashes and counts the short tokens waiting.
    #[inline(always)]
    fn add_short(&mut self) {
        let (features, count) = self.short.features();
        self.counts.add_batch(features, count);
    }

    /// The features counted, and the one-bits at each bit position.
    fn totals(&mut self) -> (u64, [u64; 64]) {
        self.add_short();
        self.counts.totals()
    }

    /// The spec's signed counters, index = bit number (0 = least significant).
    pub(crate) fn signed(&mut self) -> [i64; 64] {
        let (features, ones) = self.totals();
        let features = i128::from(features);
        ones.map(|ones| {
            let counter = 2 * i128::from(ones) - features;
            counter.clamp(i64::MIN.into(), i64::MAX.into()) as i64
        })
    }

    /// Bit `i` is 1 iff more than half of the features have bit `i` set
    /// (counter `i` positive; a zero counter gives 0).
    fn finish(&mut self) -> SimhashDoc {
        let (features, ones) = self.totals();
        let mut value = 0u64;
        for (bit, &ones) in ones.iter().enumerate() {
            if u128::from(ones) * 2 > u128::from(features) {
                value |= 1 << bit;
            }
        }
        SimhashDoc(value)
    }
}

impl Sink for Counters {
    #[inline]
    fn token(&mut self, token: &[u8]) {
        self.counts.add(jenkins::hashlittle2(token, 0, 0).feature());
    }

    #[inline(always)]
    fn padded_token(&mut self, padded: &[u8], len: usize) {
        if (1..=12).contains(&len)
            && let Some(key) = padded.first_chunk::<12>()
        {
            if self.short.push(key, len) {
                self.add_short();
            }
        } else {
            self.counts.add(jenkins::hashlittle2_padded(padded, len, 0, 0).feature());
        }
    }
}

/// Reusable buffers: computing many documents allocates only while they grow.
#[derive(Debug, Default, Clone)]
pub(crate) struct Buffers {
    scanner: Scanner,
}

impl Buffers {
    /// The simhash-doc value of `text` with tokens cut by `rule`.
    pub(crate) fn fingerprint(&mut self, text: &str, rule: TokenRule) -> SimhashDoc {
        let mut counters = Counters::default();
        self.scanner.scan(text, rule, &mut counters);
        counters.finish()
    }
}

/// `simhash-doc` computed the slow way the definition reads (see
/// [`crate::simhash_doc_by_definition`]).
pub(crate) fn by_definition(text: &str, rule: TokenRule) -> SimhashDoc {
    let mut counters = Counters::default();
    crate::simhash_tokens::scan_by_definition(text, rule, &mut counters);
    counters.finish()
}

/// Every intermediate value of `simhash-doc` on one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimhashDocExplanation {
    /// How the tokens were cut: which of simhash-doc and simhash-doc-v2
    /// this explains.
    pub rule: TokenRule,
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

    /// The distinct tokens with their features (16 uppercase hex digits),
    /// in first-seen order.
    pub fn distinct_features(&self) -> Vec<(&str, String)> {
        let mut seen = std::collections::HashSet::new();
        self.tokens
            .iter()
            .filter(|token| seen.insert(token.as_str()))
            .map(|token| (token.as_str(), format!("{:016X}", Self::feature(token))))
            .collect()
    }

    /// The explanation as the JSON object `priorart fingerprint --scheme
    /// simhash-doc --explain --json` prints (without its `file` and `input`
    /// members): one format for the CLI and the bindings, in the order its
    /// `Serialize` writes (see [`crate::Explanation::to_json`]).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("an explanation serializes")
    }
}

/// The distinct tokens and their features, as a JSON object in first-seen
/// order (whatever map serde_json is built with).
struct Features<'a>(Vec<(&'a str, String)>);

impl serde::Serialize for Features<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (token, hex) in &self.0 {
            map.serialize_entry(token, hex)?;
        }
        map.end()
    }
}

/// The JSON members of a [`SimhashDocExplanation`], in their documented order.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "SimhashDocExplanation"))]
struct SimhashDocExplanationJson<'a> {
    /// Whose rule: `simhash-doc-v2` or `simhash-doc`.
    scheme: &'static str,
    /// The hashed tokens, in order, with repetitions.
    tokens: &'a [String],
    /// Each distinct token and its lookup3 feature (16 uppercase hex
    /// digits), in first-seen order.
    #[cfg_attr(feature = "schema", schemars(with = "std::collections::BTreeMap<String, String>"))]
    features: Features<'a>,
    /// Runs of word characters without a letter (numbers), not hashed.
    numeric: &'a [String],
    /// Chunks dropped as URLs or identifiers.
    identifiers: &'a [String],
    /// The 64 signed counters; index = bit number (0 = least significant).
    counters: &'a [i64],
    /// The value as 16 hex digits.
    hex: String,
    /// The value as 13 base32hex characters (the CLI's form).
    fingerprint: String,
}

/// A [`SimhashDocExplanation`]'s JSON is [`SimhashDocExplanationJson`]'s.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for SimhashDocExplanation {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        SimhashDocExplanationJson::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        SimhashDocExplanationJson::json_schema(generator)
    }
}

impl serde::Serialize for SimhashDocExplanation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SimhashDocExplanationJson {
            scheme: self.rule.simhash_scheme().id(),
            tokens: &self.tokens,
            features: Features(self.distinct_features()),
            numeric: &self.numeric,
            identifiers: &self.identifiers,
            counters: &self.counters,
            hex: self.fingerprint.to_hex(),
            fingerprint: self.fingerprint.to_string(),
        }
        .serialize(serializer)
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

pub(crate) fn explain(text: &str, rule: TokenRule) -> SimhashDocExplanation {
    let mut collector = Collector::default();
    Scanner::default().scan(text, rule, &mut collector);
    let counters = collector.counters.signed();
    SimhashDocExplanation {
        rule,
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
        explain(text, TokenRule::V1).tokens
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
        assert_eq!(explain("abc123 123 3_4", TokenRule::V1).numeric, ["123", "3_4"]);
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
            TokenRule::V1,
        );
        assert_eq!(e.tokens, ["see", "or", "mail", "end"]);
        assert_eq!(e.identifiers.len(), 5);
    }

    #[test]
    fn empty_document_is_zero_and_ties_are_zero() {
        assert_eq!(Buffers::default().fingerprint("", TokenRule::V1), SimhashDoc(0));
        assert_eq!(Buffers::default().fingerprint("123 ... https://x.y", TokenRule::V1), SimhashDoc(0));
        // One token: the simhash is its feature.
        let a = SimhashDoc(jenkins::hashlittle2(b"a", 0, 0).feature());
        assert_eq!(Buffers::default().fingerprint("A", TokenRule::V1), a);
        // Two different tokens: bits where they disagree tie at 0.
        let b = jenkins::hashlittle2(b"b", 0, 0).feature();
        assert_eq!(Buffers::default().fingerprint("a b", TokenRule::V1), SimhashDoc(a.0 & b));
    }

    #[test]
    fn counters_match_a_plain_count() {
        let mut counters = Counters::default();
        let mut plain = [0i64; 64];
        let mut rng = fastrand::Rng::with_seed(3);
        for k in 0..5000 {
            let token: Vec<u8> = (0..1 + k % 20).map(|_| rng.u8(b'a'..=b'z')).collect();
            let mut padded = token.clone();
            padded.extend_from_slice(&[0; crate::sink::PAD]);
            counters.padded_token(&padded, token.len());
            let feature = jenkins::hashlittle2(&token, 0, 0).feature();
            for (bit, counter) in plain.iter_mut().enumerate() {
                *counter += if feature >> bit & 1 == 1 { 1 } else { -1 };
            }
        }
        assert_eq!(counters.signed(), plain);
    }
}
