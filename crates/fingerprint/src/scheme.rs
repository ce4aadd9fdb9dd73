//! The fingerprint schemes and their stable wire identifiers.

use std::fmt;
use std::str::FromStr;

/// A fingerprint scheme, named by the identifier that appears on the wire
/// (in a NIP-FF-3 `X` tag, in JSONL output, on the command line).
///
/// Identifiers are stable forever: a scheme is never changed, only added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Scheme {
    /// NIP-FF-3's `minhash-equality-v1`: b-bit one-permutation MinHash over
    /// stemmed tokens, 8 buckets, last 3 hex of each minimum. 32 bytes.
    MinhashEqualityV1,
    /// The frozen legacy `simhash-equality-v2`: the same pipeline with 2
    /// buckets and the *first* 3 hex of each minimum. 32 bytes. Must not be
    /// used for new content; kept so old `X` tags can still be checked.
    SimhashEqualityV2,
    /// The lsh-interop spec's `simhash-doc`: 64-bit Charikar SimHash of
    /// Unicode word tokens with lookup3 features, compared by Hamming
    /// distance (see `docs/simhash-doc.md`). 8 bytes, base32hex. Frozen:
    /// scripts written without spaces give one token per clause.
    SimhashDoc,
    /// `simhash-doc-v2`: `simhash-doc` with tokens cut by
    /// [`TokenRule::V2`](crate::TokenRule::V2) (Chinese, Japanese, Thai…
    /// as character bigrams, spacing marks inside words; see
    /// `docs/simhash-doc-v2.md`). Equal to `simhash-doc` on text without
    /// such characters. The default wherever priorart measures similarity.
    SimhashDocV2,
}

impl Scheme {
    /// Every scheme, in a stable order.
    pub const ALL: [Scheme; 4] =
        [Scheme::MinhashEqualityV1, Scheme::SimhashEqualityV2, Scheme::SimhashDoc, Scheme::SimhashDocV2];

    /// The stable wire identifier, e.g. `minhash-equality-v1`.
    pub const fn id(self) -> &'static str {
        match self {
            Scheme::MinhashEqualityV1 => "minhash-equality-v1",
            Scheme::SimhashEqualityV2 => "simhash-equality-v2",
            Scheme::SimhashDoc => "simhash-doc",
            Scheme::SimhashDocV2 => "simhash-doc-v2",
        }
    }

    /// The token rule of a simhash-doc scheme; `None` for the equality
    /// schemes.
    pub const fn token_rule(self) -> Option<crate::TokenRule> {
        match self {
            Scheme::SimhashDoc => Some(crate::TokenRule::V1),
            Scheme::SimhashDocV2 => Some(crate::TokenRule::V2),
            Scheme::MinhashEqualityV1 | Scheme::SimhashEqualityV2 => None,
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The identifier named no known scheme.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fingerprint scheme `{given}` (known: {known})")]
pub struct UnknownScheme {
    given: String,
    known: String,
}

impl UnknownScheme {
    /// The stable snake_case name of this error, as the JSON reports and
    /// the Python binding (`InputError.reason`) give it.
    pub fn reason(&self) -> &'static str {
        "unknown_scheme"
    }
}

impl FromStr for Scheme {
    type Err = UnknownScheme;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scheme::ALL.into_iter().find(|scheme| scheme.id() == s).ok_or_else(|| UnknownScheme {
            given: s.to_owned(),
            known: Scheme::ALL.map(Scheme::id).join(", "),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_round_trip() {
        for scheme in Scheme::ALL {
            assert_eq!(scheme.id().parse::<Scheme>(), Ok(scheme));
        }
        assert!("minhash-equality-v2".parse::<Scheme>().is_err());
    }
}
