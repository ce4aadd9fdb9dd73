//! Lookups ([`Query`]) and what they find ([`Answer`]), the same for an
//! index on disk ([`crate::Index`]) and one in memory
//! ([`crate::MemoryIndex`]).
//!
//! The similarity a query reports is an estimate: the Jaccard similarity of
//! word shingles computed from two sketches (the smallest
//! [`crate::SKETCH_WIDTH`] shingle hashes of each text; standard error
//! about 0.025 at J = 0.8), because the index keeps no text. Only both
//! texts give the exact value (`priorart compare`, `priorart dedup`). A
//! document indexed without a sketch (a simhash-doc value imported from a
//! list) is found by distance alone: its match has no estimate, it is
//! unverified.

use crate::Verification;
use crate::document::{self, SKETCH_WIDTH};
use priorart_fingerprint::{EqualityFingerprint, Fingerprinter, Scheme, Shingling, SimhashDoc, WordShingles};
use serde::Serialize;

/// A document found by a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// The user's id.
    pub id: String,
    /// Its simhash-doc value.
    pub simhash: u64,
    /// Hamming distance to the query (0 for an `X` match).
    pub distance: u32,
    /// Jaccard similarity of word shingles *estimated* from the two
    /// sketches, when both the query and the document have one (see the
    /// module's note); `None`: unverified, found by distance alone.
    pub jaccard_estimate: Option<f64>,
}

/// What one lookup brings: any of a simhash-doc value (for near copies), an
/// `X` (for exact equality) and a shingle sketch (for the similarity
/// estimate).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// The simhash-doc value looked up within a distance.
    pub simhash: Option<u64>,
    /// The minhash-equality-v1 value looked up exactly.
    pub x: Option<[u8; 32]>,
    /// The sketch the matches' similarity is estimated against.
    pub sketch: Option<Vec<u64>>,
}

impl Query {
    /// A document's lookup: its simhash-doc (of `shingling`'s token rule),
    /// `X` and shingle sketch under `shingling` (the index's:
    /// [`Index::shingling`]).
    pub fn of_text(text: &str, shingling: Shingling, fingerprinter: &mut Fingerprinter) -> Query {
        let (x, simhash) = document::fingerprints(text, shingling.token_rule(), fingerprinter);
        Query {
            simhash: Some(simhash),
            x,
            sketch: Some(document::sketch(&WordShingles::of(text, shingling), SKETCH_WIDTH)),
        }
    }

    /// A lookup of a simhash-doc value alone (no similarity estimate).
    pub fn of_simhash(simhash: u64) -> Query {
        Query { simhash: Some(simhash), ..Query::default() }
    }

    /// A lookup of one `X` alone (no near copies, no similarity).
    pub fn of_x(x: [u8; 32]) -> Query {
        Query { x: Some(x), ..Query::default() }
    }
}

/// What an index holds near one lookup.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// Documents within the distance asked for: highest estimated
    /// similarity first, then nearest.
    pub near: Vec<Match>,
    /// Documents with the same `X`.
    pub same_x: Vec<Match>,
}

impl Answer {
    /// How many documents the answer names (near or with the same X).
    pub fn documents(&self) -> usize {
        self.near.len() + self.same_x.iter().filter(|x| !self.has_near(&x.id)).count()
    }

    /// Whether `id` is among the near documents.
    pub fn has_near(&self, id: &str) -> bool {
        self.near.iter().any(|m| m.id == id)
    }

    /// Whether `id` has the query's `X`.
    pub fn has_same_x(&self, id: &str) -> bool {
        self.same_x.iter().any(|m| m.id == id)
    }
}

/// One lookup's answer as `priorart index query --json` prints it (and
/// `priorart check --index` under `index.answer`). The similarity is
/// `jaccard_estimate`: estimated from sketches, not the exact value
/// `priorart compare` computes from both texts.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "IndexAnswer"))]
pub struct AnswerJson<'a> {
    /// What was looked up: the file's name, or the value.
    pub query: &'a str,
    /// The simhash-doc value looked up (13 base32hex digits; of the
    /// index's token rule), `null` for a lookup of `X` alone.
    #[serde(rename = "simhash-doc")]
    pub simhash_doc: Option<String>,
    /// The scheme of the simhash-doc values of the answer (the looked-up
    /// one and the matches'): the index's, `simhash-doc-v2` or (an index
    /// built before it) `simhash-doc`; `null` for a lookup of `X` alone.
    /// The member `simhash-doc` keeps its name whatever the scheme.
    pub simhash_scheme: Option<&'static str>,
    /// The `X` looked up (64 hex digits), `null` for a lookup of a
    /// simhash-doc value alone.
    #[serde(rename = "minhash-equality-v1")]
    pub x: Option<String>,
    /// The documents within the distance asked for: highest estimated
    /// similarity first, then nearest.
    pub near: Vec<MatchJson<'a>>,
    /// The ids of the documents with the same `X`.
    pub same_x: Vec<&'a str>,
}

/// A document within the distance, in [`AnswerJson::near`].
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "IndexMatch"))]
pub struct MatchJson<'a> {
    /// The document's id.
    pub id: &'a str,
    /// Its simhash-doc value (13 base32hex digits).
    #[serde(rename = "simhash-doc")]
    pub simhash_doc: String,
    /// The Hamming distance of the two simhash-doc values.
    pub distance: u32,
    /// `1 - distance / 64`.
    pub similarity: f64,
    /// The Jaccard similarity of the two texts' word shingles estimated
    /// from their sketches; `null` when either has none (unverified).
    pub jaccard_estimate: Option<f64>,
    /// How the similarity is known: `estimated` or `unverified`.
    pub verification: Verification,
    /// Whether the document also has the looked-up `X`.
    pub same_x: bool,
}

impl<'a> AnswerJson<'a> {
    /// The answer to `query`, named `name`, its simhash-doc values of
    /// `scheme` (the index's; `None` for a lookup of `X` alone).
    pub fn new(name: &'a str, query: &Query, scheme: Option<Scheme>, answer: &'a Answer) -> AnswerJson<'a> {
        let near = answer
            .near
            .iter()
            .map(|m| MatchJson {
                id: &m.id,
                simhash_doc: SimhashDoc(m.simhash).to_string(),
                distance: m.distance,
                similarity: 1.0 - f64::from(m.distance) / 64.0,
                jaccard_estimate: m.jaccard_estimate,
                verification: if m.jaccard_estimate.is_some() {
                    Verification::Estimated
                } else {
                    Verification::Unverified
                },
                same_x: answer.has_same_x(&m.id),
            })
            .collect();
        AnswerJson {
            query: name,
            simhash_doc: query.simhash.map(|s| SimhashDoc(s).to_string()),
            simhash_scheme: scheme.map(Scheme::id),
            x: query.x.map(|x| EqualityFingerprint(x).to_string()),
            near,
            same_x: answer.same_x.iter().map(|m| m.id.as_str()).collect(),
        }
    }
}

/// Highest estimated similarity first, then nearest, then by id (so that
/// the order does not depend on how documents are spread over segments).
pub(crate) fn rank(matches: &mut [Match]) {
    matches.sort_by(|a, b| {
        let (ja, jb) = (a.jaccard_estimate.unwrap_or(0.0), b.jaccard_estimate.unwrap_or(0.0));
        jb.total_cmp(&ja).then(a.distance.cmp(&b.distance)).then_with(|| a.id.cmp(&b.id))
    });
}
