//! The explanation API: every intermediate value of the equality pipeline.

use crate::canonical::Canonical;
use crate::equality::{self, Params};
use crate::{EqualityFingerprint, Scheme};
use rustc_hash::FxHashSet;
use serde::{Serialize, Serializer};

/// Why a text has the fingerprint it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// The scheme explained.
    pub scheme: Scheme,
    /// The text after step 1 (canonicalization).
    pub canonical_text: String,
    /// The tokens of step 2, in order: the first [`MAX_LISTED_TOKENS`].
    pub tokens: Vec<String>,
    /// How many tokens step 2 found (`tokens` lists at most
    /// [`MAX_LISTED_TOKENS`] of them).
    pub tokens_total: usize,
    /// The tokens after stemming and filtering (steps 3–4), in order, with
    /// repetitions: the shingles that are hashed (the first [`MAX_LISTED_TOKENS`]).
    pub kept_tokens: Vec<String>,
    /// How many tokens steps 3–4 kept.
    pub kept_tokens_total: usize,
    /// Whether the filters removed everything, so all stemmed tokens were kept.
    pub fallback: bool,
    /// Each bucket's minimum, in bucket order (`None`: no shingle landed there).
    pub buckets: Vec<Option<Bucket>>,
    /// The string whose SHA-256 is the fingerprint (step 7).
    pub descriptor: String,
    /// The fingerprint.
    pub fingerprint: EqualityFingerprint,
}

/// The most tokens an [`Explanation`] lists (its totals count them all):
/// an explanation is for reading, and one owned string per token of a
/// 200 MB text once took 4 GB.
pub const MAX_LISTED_TOKENS: usize = 10_000;

/// The winning shingle of one bucket (JSON: `{"token", "min_hash", "kept_hex"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Bucket {
    /// The kept token whose hash is the bucket's minimum.
    pub token: String,
    /// SHA-256(`eqs:` + token), 64 lowercase hex.
    pub min_hash: String,
    /// The hex digits of the minimum that enter the descriptor.
    pub kept_hex: String,
}

impl Explanation {
    /// The explanation as the JSON object `priorart fingerprint --explain
    /// --json` prints (without its `file` and `input` members): one format
    /// for the CLI and the bindings. Its members come in the order
    /// [`Explanation`]'s `Serialize` writes them, which does not depend on
    /// serde_json's `preserve_order`: serialize the explanation itself
    /// (`serde_json::to_string(&explanation)`) for the same bytes in every
    /// front end.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("an explanation serializes")
    }
}

/// The JSON members of an [`Explanation`], in their documented order.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "EqualityExplanation"))]
struct ExplanationJson<'a> {
    /// The scheme explained (`minhash-equality-v1`, `simhash-equality-v2`).
    scheme: &'static str,
    /// The text after step 1 (canonicalization).
    canonical_text: &'a str,
    /// The tokens of step 2, in order: the first 10,000.
    tokens: &'a [String],
    /// How many tokens step 2 found.
    tokens_total: usize,
    /// The tokens after stemming and filtering (steps 3–4), in order, with
    /// repetitions (the first 10,000).
    kept_tokens: &'a [String],
    /// How many tokens steps 3–4 kept.
    kept_tokens_total: usize,
    /// Whether the filters removed everything, so all stemmed tokens were kept.
    fallback: bool,
    /// Whether no token was kept (the text's fingerprint is the empty text's rule).
    empty: bool,
    /// Each bucket's minimum, in bucket order (`null`: no shingle landed there).
    buckets: &'a [Option<Bucket>],
    /// The string whose SHA-256 is the fingerprint (step 7).
    descriptor: &'a str,
    /// The fingerprint (64 lowercase hex).
    fingerprint: String,
}

/// An [`Explanation`]'s JSON is [`ExplanationJson`]'s.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Explanation {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        ExplanationJson::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ExplanationJson::json_schema(generator)
    }
}

impl Serialize for Explanation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ExplanationJson {
            scheme: self.scheme.id(),
            canonical_text: &self.canonical_text,
            tokens: &self.tokens,
            tokens_total: self.tokens_total,
            kept_tokens: &self.kept_tokens,
            kept_tokens_total: self.kept_tokens_total,
            fallback: self.fallback,
            empty: self.kept_tokens_total == 0,
            buckets: &self.buckets,
            descriptor: &self.descriptor,
            fingerprint: self.fingerprint.to_string(),
        }
        .serialize(serializer)
    }
}

pub(crate) fn explain(text: &str, scheme: Scheme) -> Explanation {
    let params = Params::of(scheme).expect("every scheme is an equality scheme");
    let mut canonical = Canonical::default();
    canonical.fill(text);
    let mut kept = Vec::new();
    let fallback = equality::for_each_kept(&canonical, |token| kept.push(token));
    let mut hashes = Vec::new();
    equality::distinct_hashes(&canonical, &mut hashes);
    let distinct: Vec<&str> = {
        let mut seen = FxHashSet::default();
        kept.iter().copied().filter(|t| seen.insert(*t)).collect()
    };
    let (buckets, descriptor) = if hashes.is_empty() {
        (Vec::new(), equality::empty_descriptor(params, &canonical.text))
    } else {
        let minima = equality::bucket_minima(params, &hashes);
        let descriptor = equality::descriptor(params, &minima);
        let buckets = minima
            .iter()
            .map(|minimum| minimum.map(|hash| bucket(params, &distinct, &hashes, hash)))
            .collect();
        (buckets, descriptor)
    };
    Explanation {
        scheme,
        tokens: canonical.token_strs().take(MAX_LISTED_TOKENS).map(str::to_owned).collect(),
        tokens_total: canonical.token_strs().count(),
        kept_tokens: kept.iter().take(MAX_LISTED_TOKENS).map(|t| (*t).to_owned()).collect(),
        kept_tokens_total: kept.len(),
        canonical_text: canonical.text.clone(),
        fallback,
        buckets,
        fingerprint: equality::finish(&descriptor),
        descriptor,
    }
}

fn bucket(params: Params, distinct: &[&str], hashes: &[[u8; 32]], minimum: [u8; 32]) -> Bucket {
    let index = hashes.iter().position(|h| *h == minimum).expect("a minimum is one of the hashes");
    let min_hash = equality::hex_lower(&minimum);
    let kept_hex =
        if params.keep_last { min_hash[min_hash.len() - 3..].to_owned() } else { min_hash[..3].to_owned() };
    Bucket { token: distinct[index].to_owned(), min_hash, kept_hex }
}
