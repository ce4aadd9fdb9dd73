//! Text → content fingerprints. Pure: no I/O, no threads, no global state,
//! so it can be bound to Python and JavaScript.
//!
//! # The schemes
//!
//! [`Scheme::MinhashEqualityV1`] is the NIP-FF-3 content fingerprint, the
//! value of the nostr `X` tag. It is *not* a distance-preserving hash: two
//! texts either share the same 32 bytes (they are near-duplicates) or they do
//! not. In plain words:
//!
//! 1. **Canonicalize**: NFKD, drop combining marks, lowercase, replace URLs by
//!    `url`, delete zero-width characters, turn punctuation and symbols into
//!    spaces, turn every run of digits into `num`, collapse whitespace.
//! 2. **Tokenize**: every maximal run of letters is a token.
//! 3. **Stem** with four suffix rules (`-ing`, `-ed`, `-es`, `-s`).
//! 4. **Filter** stop words and tokens shorter than 4; if nothing is left,
//!    keep every token instead.
//! 5. **Hash** each kept token with SHA-256 (`eqs:` + token); the first byte
//!    modulo 8 picks one of 8 buckets; each bucket keeps its smallest hash.
//! 6. **Describe**: the last 3 hex digits of each bucket minimum (or `x` for
//!    an empty bucket) go into a descriptor string with the parameters.
//! 7. **Finish**: SHA-256 of the descriptor is the fingerprint. A text with no
//!    token at all hashes `minhash-equality-v1|empty|<canonical text>`.
//!
//! Near-duplicates share the eight bucket minima (one-permutation MinHash)
//! and therefore the fingerprint; unrelated texts must coincide in all eight
//! 12-bit values to collide. [`Scheme::SimhashEqualityV2`] is the frozen
//! legacy predecessor: 2 buckets and the *first* 3 hex digits, which made
//! long unrelated texts collide. It exists only to check old `X` tags.
//!
//! [`Scheme::SimhashDoc`] is different in kind: the lsh-interop spec's
//! 64-bit Charikar SimHash, whose Hamming distance estimates how similar two
//! documents are ([`SimhashDoc::distance`], [`Band`]). Its definition is
//! `docs/simhash-doc.md`, its vectors `vectors/simhash-doc.json`.
//!
//! # Bit-exactness
//!
//! The output is bit-for-bit that of the JavaScript reference
//! (`minhashEquality` / `simhashEquality` of simhash-ts 0.2.0): lengths are
//! UTF-16 code units, whitespace is ECMAScript's `\s`, `\p{N}` is every number
//! category, and all Unicode tables are Unicode 17.0 (see `unicode.rs`). The
//! conformance vectors in `vectors/equality-vectors.json` are tested in full.
//!
//! # Use
//!
//! ```
//! use priorart_fingerprint::{Fingerprinter, Scheme};
//!
//! let x = priorart_fingerprint::minhash_equality_v1("good morning nostr");
//! assert_eq!(x.to_string(), "e4e0e824c0b1bfb2d79bb85762deb1fd697c7ab379fd2efbc0b32f45188f68a2");
//!
//! // For many documents, reuse one Fingerprinter: it keeps its buffers.
//! let mut fingerprinter = Fingerprinter::new();
//! let both = fingerprinter.fingerprint("GM", &[Scheme::MinhashEqualityV1, Scheme::SimhashEqualityV2]);
//! assert_eq!(both.len(), 2);
//! ```
//!
//! [`layout`] holds the lookup tables of simhash-doc (which bits key each
//! permuted table, so that values within k bits share a key): what the
//! index sorts by and what NIP-FF-3's fuzzy discovery tags carry.

#[macro_use]
extern crate priorart_reason;

mod bit_counts;
mod block;
mod canonical;
mod equality;
mod explain;
mod jenkins;
mod json_string;
pub mod layout;
mod scheme;
mod segment;
mod shingles;
mod simhash_doc;
mod simhash_tokens;
mod sink;
mod unicode;

pub use explain::{Bucket, Explanation, MAX_LISTED_TOKENS};
// lookup3 is simhash-doc's token hash; exported for the tests that compare
// it with Bob Jenkins' C code, not as an API of this crate.
#[doc(hidden)]
pub use jenkins::{Lookup3, hashlittle2};
pub use json_string::decode_json_string;
pub use scheme::{Scheme, UnknownScheme};
pub use segment::{
    Piece, TokenRule, UnknownTokenRule, WIDE_LEAD, count_words, is_combining_mark, is_unspaced,
    unspaced_characters, v2_pieces,
};
pub use shingles::{SHINGLE_WORDS, Shingling, UnknownShingling, WordShingles, shared_hashes};
pub use simhash_doc::{
    BASE32_LEN, Band, CLOSE_SIMILARITY, InvalidSimhashDoc, LOOKUP_DISTANCE, LOOSE_SIMILARITY, SimhashDoc,
    SimhashDocExplanation,
};

use canonical::{Canonical, InvalidJsonString, TokenRef};
use std::fmt;
use std::str::FromStr;

/// A 32-byte equality fingerprint, shown as 64 lowercase hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EqualityFingerprint(pub [u8; 32]);

impl fmt::Display for EqualityFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut hex = [0; 64];
        equality::write_hex(&self.0, &mut hex);
        f.write_str(std::str::from_utf8(&hex).expect("hex digits are ASCII"))
    }
}

/// A string was not 64 hex digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an equality fingerprint is 64 hex digits")]
pub struct InvalidFingerprint;

impl InvalidFingerprint {
    /// The stable snake_case name of this error, as the JSON reports and
    /// the Python binding (`InputError.reason`) give it.
    pub fn reason(&self) -> &'static str {
        "invalid_fingerprint"
    }
}

impl FromStr for EqualityFingerprint {
    type Err = InvalidFingerprint;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let digits = s.as_bytes();
        if digits.len() != 64 {
            return Err(InvalidFingerprint);
        }
        let mut bytes = [0u8; 32];
        for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
            let hi = hex_value(pair[0]).ok_or(InvalidFingerprint)?;
            let lo = hex_value(pair[1]).ok_or(InvalidFingerprint)?;
            *byte = hi << 4 | lo;
        }
        Ok(EqualityFingerprint(bytes))
    }
}

fn hex_value(digit: u8) -> Option<u8> {
    char::from(digit).to_digit(16).map(|v| v as u8)
}

/// The fingerprint of one text under one scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fingerprint {
    /// `minhash-equality-v1` or `simhash-equality-v2`.
    Equality(EqualityFingerprint),
    /// `simhash-doc` or `simhash-doc-v2`.
    SimhashDoc(SimhashDoc),
}

impl fmt::Display for Fingerprint {
    /// The scheme's wire form (64 lowercase hex for the equality schemes,
    /// 13 base32hex characters for `simhash-doc`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fingerprint::Equality(x) => x.fmt(f),
            Fingerprint::SimhashDoc(x) => x.fmt(f),
        }
    }
}

/// NIP-FF-3 `minhash-equality-v1` of `text`: the `X` tag value.
pub fn minhash_equality_v1(text: &str) -> EqualityFingerprint {
    Fingerprinter::new().equality(text, Scheme::MinhashEqualityV1).expect("an equality scheme")
}

/// The legacy `simhash-equality-v2` of `text`. Do not use for new content.
pub fn simhash_equality_v2(text: &str) -> EqualityFingerprint {
    Fingerprinter::new().equality(text, Scheme::SimhashEqualityV2).expect("an equality scheme")
}

/// The frozen `simhash-doc` of `text` (clauses of Chinese or Japanese as
/// single tokens; see [`simhash_doc_v2`]).
pub fn simhash_doc(text: &str) -> SimhashDoc {
    Fingerprinter::new().simhash_doc(text, TokenRule::V1)
}

/// The `simhash-doc-v2` of `text`: the value of choice for similarity.
pub fn simhash_doc_v2(text: &str) -> SimhashDoc {
    Fingerprinter::new().simhash_doc(text, TokenRule::V2)
}

/// Computes fingerprints, reusing its buffers from one text to the next.
///
/// Computing several schemes at once canonicalizes and hashes the tokens of
/// the text only once.
#[derive(Debug, Default)]
pub struct Fingerprinter {
    canonical: Canonical,
    shingle_hashes: equality::ShingleHashes,
    simhash_doc: simhash_doc::Buffers,
    /// The text of a JSON string with escapes.
    json_text: Vec<u8>,
}

/// What [`Fingerprinter::equality_minima`] reads.
#[derive(Clone, Copy)]
enum Input<'a> {
    Text(&'a str),
    /// What follows the opening quote of a JSON string, decoded while it
    /// is folded, up to its closing quote.
    Json(&'a str),
}

impl Fingerprinter {
    /// A fingerprinter with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// The fingerprints of `text` under each of `schemes`, in that order.
    pub fn fingerprint(&mut self, text: &str, schemes: &[Scheme]) -> Vec<Fingerprint> {
        if schemes.iter().all(|scheme| scheme.token_rule().is_some()) {
            // Only simhash-doc schemes: no equality pass.
            return self.finish(None, schemes, text);
        }
        let (minima, _) = self.equality_minima(Input::Text(text)).expect("text always folds");
        self.finish(minima, schemes, text)
    }

    /// The fingerprints of the text that the JSON string at the start of
    /// `json` (from its opening quote) stands for, under each of `schemes`,
    /// and the length of that string in bytes (through its closing quote,
    /// so that a parser can go on after it); `None` if `json` does not
    /// start with a string that serde_json accepts.
    ///
    /// The same as [`Fingerprinter::fingerprint`] of the text that
    /// [`decode_json_string`] gives, but the equality schemes decode while
    /// they fold the text, and find the string's end on the way, which
    /// saves two passes over it.
    pub fn fingerprint_json_string(
        &mut self,
        json: &str,
        schemes: &[Scheme],
    ) -> Option<(Vec<Fingerprint>, usize)> {
        if schemes.iter().all(|scheme| scheme.token_rule().is_none())
            && let Some(body) = json.strip_prefix('"')
            && let Ok((Some(minima), body_len)) = self.equality_minima(Input::Json(body))
        {
            // Only simhash-doc and a text without tokens need the text.
            return Some((self.finish(Some(minima), schemes, ""), body_len + 2));
        }
        // simhash-doc, no token, or not a valid string.
        // The buffer is taken out while `self` fingerprints what it holds.
        let mut json_text = std::mem::take(&mut self.json_text);
        let fingerprints = json_string::decode_json_string_reusing(json, &mut json_text)
            .map(|(decoded, len)| (self.fingerprint(decoded.text(), schemes), len));
        self.json_text = json_text;
        fingerprints
    }

    /// The fingerprints under `schemes` from the equality minima of `text`
    /// (`None`: it has no token).
    fn finish(
        &mut self,
        minima: Option<equality::Minima>,
        schemes: &[Scheme],
        text: &str,
    ) -> Vec<Fingerprint> {
        schemes
            .iter()
            .map(|&scheme| {
                if let Some(rule) = scheme.token_rule() {
                    return Fingerprint::SimhashDoc(self.simhash_doc.fingerprint(text, rule));
                }
                let params = equality::Params::of(scheme).expect("every other scheme is an equality scheme");
                let descriptor = match &minima {
                    Some(minima) => {
                        let buckets = minima.buckets(params, self.shingle_hashes.hashes());
                        equality::descriptor(params, &buckets[..params.buckets])
                    }
                    None => {
                        // No token at all: the rare case that needs the canonical text.
                        self.canonical.fill(text);
                        equality::empty_descriptor(params, &self.canonical.text)
                    }
                };
                Fingerprint::Equality(equality::finish(&descriptor))
            })
            .collect()
    }

    /// The bucket minima of the kept tokens of `input` (steps 1–6), or
    /// `None` if it has no token at all, and the length of the text or of
    /// the JSON string's body read.
    ///
    /// One pass: the minima of the kept tokens and, apart, of the filtered
    /// ones (indexed by the verdict rather than branching on it, which is
    /// unpredictable). If no token is kept, the reference's fallback keeps
    /// every stemmed token, and those are then exactly the filtered ones.
    fn equality_minima(
        &mut self,
        input: Input<'_>,
    ) -> Result<(Option<equality::Minima>, usize), InvalidJsonString> {
        // [filtered, kept]
        let mut minima = [equality::Minima::default(), equality::Minima::default()];
        let shingles = &mut self.shingle_hashes;
        shingles.bound();
        // Inlined into the scan: a call per token is a measurable share.
        #[inline(always)]
        fn add(
            shingles: &mut equality::ShingleHashes,
            minima: &mut [equality::Minima; 2],
            token: TokenRef<'_>,
        ) {
            let shingle = shingles.get(token);
            minima[usize::from(shingle.kept())].add(shingle.prefix(), shingle.index(), shingles.hashes());
        }
        let (any_token, len) = match input {
            Input::Text(text) => {
                (self.canonical.for_each_token(text, |t| add(shingles, &mut minima, t)), text.len())
            }
            Input::Json(body) => {
                self.canonical.for_each_token_of_json(body, |t| add(shingles, &mut minima, t))?
            }
        };
        let [filtered, kept] = minima;
        let minima = match (any_token, kept.is_empty()) {
            (false, _) => None,
            (true, false) => Some(kept),
            (true, true) => Some(filtered),
        };
        Ok((minima, len))
    }

    /// The equality fingerprint of `text` under `scheme`; `None` if `scheme`
    /// is not an equality scheme.
    pub fn equality(&mut self, text: &str, scheme: Scheme) -> Option<EqualityFingerprint> {
        equality::Params::of(scheme)?;
        match self.fingerprint(text, &[scheme])[0] {
            Fingerprint::Equality(x) => Some(x),
            Fingerprint::SimhashDoc(_) => None,
        }
    }

    /// The simhash-doc value of `text` with tokens cut by `rule`:
    /// `simhash-doc` for [`TokenRule::V1`], `simhash-doc-v2` for
    /// [`TokenRule::V2`].
    pub fn simhash_doc(&mut self, text: &str, rule: TokenRule) -> SimhashDoc {
        self.simhash_doc.fingerprint(text, rule)
    }
}

/// Every intermediate value of an equality `scheme` on `text`, for humans
/// judging why two texts do or do not share a fingerprint; `None` for
/// the simhash-doc schemes (see [`explain_simhash_doc`]).
pub fn explain(text: &str, scheme: Scheme) -> Option<Explanation> {
    equality::Params::of(scheme).map(|_| explain::explain(text, scheme))
}

/// The simhash-doc value of `text` (tokens cut by `rule`) computed
/// literally as `docs/simhash-doc.md` reads: the whole text normalized
/// first, then scanned character by character, without the fast path's
/// shortcuts. Several times slower than [`Fingerprinter::simhash_doc`] and
/// always equal to it; a yardstick for tests, fuzzing and ports (hidden
/// from the docs: not an API to compute with).
#[doc(hidden)]
pub fn simhash_doc_by_definition(text: &str, rule: TokenRule) -> SimhashDoc {
    simhash_doc::by_definition(text, rule)
}

/// Every intermediate value of a simhash-doc value of `text` (tokens cut
/// by `rule`): hashed tokens, dropped numbers and identifiers, the 64
/// counters.
pub fn explain_simhash_doc(text: &str, rule: TokenRule) -> SimhashDocExplanation {
    simhash_doc::explain(text, rule)
}
