//! What `ots verify` answers about a proof, in one place for every front end
//! (the CLI's `ots verify --json`, the Python binding): the outcome, the
//! "lacks headers" test that tells unverified from invalid, the SHA-1
//! warning, the cost to forge, and the JSON object.

use crate::checkpoints::Network;
use crate::detached::DetachedTimestamp;
use crate::forge::{CostToForge, ForgeError, cost_to_forge};
use crate::headers::HeaderSource;
use crate::op::HashOp;
use crate::utc::UtcTime;
use crate::verify::{AttestationError, Verification, VerifyError, verify};
use serde::Serialize;

/// The warning for a proof whose file hash is SHA-1: such proofs verify,
/// but two different files can be made to share a SHA-1 digest (the
/// `sha1/a` and `sha1/b` fixtures both verify).
pub const SHA1_WARNING: &str = "the proof's file hash is SHA-1, whose collisions are practical: it shows that a \
     file with this SHA-1 digest existed, and another file can share the digest";

/// What a person must know about a proof's file hash, if anything.
pub fn file_hash_warning(proof: &DetachedTimestamp) -> Option<&'static str> {
    (proof.file_hash_op() == HashOp::Sha1).then_some(SHA1_WARNING)
}

/// Whether verification stopped for want of a header (which says nothing
/// about the proof) rather than on a check that failed.
pub fn lacks_headers(err: &VerifyError) -> bool {
    matches!(err, VerifyError::Failed { failures }
        if failures.iter().any(|failure| matches!(failure.reason, AttestationError::Source(_))))
}

/// Whether verification stopped on the header source rather than on the
/// proof: no header, or a header that fails its own checks
/// ([`AttestationError::blames_source`]). Such a proof is unverified: a
/// lying source must never make a genuine proof look forged.
pub fn blames_source(err: &VerifyError) -> bool {
    matches!(err, VerifyError::Failed { failures } if failures.iter().any(|failure| failure.reason.blames_source()))
}

/// How a verification ended.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // one per verification, never stored in bulk
pub enum VerifyOutcome {
    /// A Bitcoin attestation checked out.
    Verified(Verification),
    /// The file (or digest) is not the one the proof is of.
    DigestMismatch {
        /// The proof's file hash.
        op: HashOp,
        /// The digest the proof is of.
        expected: Vec<u8>,
    },
    /// No Bitcoin attestation checked out (see [`lacks_headers`]).
    NotVerified(VerifyError),
}

/// The answer of `ots verify` on one proof.
#[derive(Debug, Clone)]
pub struct VerifyReport {
    /// The chain the headers had to belong to.
    pub network: Network,
    /// How it ended.
    pub outcome: VerifyOutcome,
    /// Advisory findings ([`SHA1_WARNING`]).
    pub warnings: Vec<&'static str>,
    /// For a verified proof: the work to rewrite the chain from its block,
    /// or why it could not be worked out.
    pub cost_to_forge: Option<Result<CostToForge, ForgeError>>,
}

impl VerifyReport {
    /// The report on a proof whose digest did not match the file's.
    pub fn digest_mismatch(proof: &DetachedTimestamp, network: Network) -> VerifyReport {
        VerifyReport {
            network,
            outcome: VerifyOutcome::DigestMismatch {
                op: proof.file_hash_op(),
                expected: proof.file_digest().to_vec(),
            },
            warnings: Vec::new(),
            cost_to_forge: None,
        }
    }

    /// Verifies `proof` (whose digest matched) against `source`, and for a
    /// verified proof works out the cost to forge from at most
    /// `max_forge_headers` headers on top ([`crate::DEFAULT_FORGE_HEADERS`]).
    pub fn verify(
        proof: &DetachedTimestamp,
        source: &dyn HeaderSource,
        network: Network,
        max_forge_headers: u64,
    ) -> VerifyReport {
        let warnings = file_hash_warning(proof).into_iter().collect();
        match verify(proof, source, network) {
            Ok(verification) => {
                let cost = cost_to_forge(source, network, &verification.earliest, max_forge_headers);
                VerifyReport {
                    network,
                    outcome: VerifyOutcome::Verified(verification),
                    warnings,
                    cost_to_forge: Some(cost),
                }
            }
            Err(err) => VerifyReport {
                network,
                outcome: VerifyOutcome::NotVerified(err),
                warnings,
                cost_to_forge: None,
            },
        }
    }

    /// Whether the proof verified.
    pub fn is_verified(&self) -> bool {
        matches!(self.outcome, VerifyOutcome::Verified(_))
    }

    /// Whether it could not be checked for want of headers: unverified, not invalid.
    pub fn lacks_headers(&self) -> bool {
        matches!(&self.outcome, VerifyOutcome::NotVerified(err) if lacks_headers(err))
    }

    /// Whether it could not be checked because of the header source (no
    /// header, or headers failing their own checks): unverified, not invalid.
    pub fn is_unverified(&self) -> bool {
        matches!(&self.outcome, VerifyOutcome::NotVerified(err) if blames_source(err))
    }

    /// Why it did not verify, in words (`None` if it did).
    pub fn error(&self) -> Option<String> {
        match &self.outcome {
            VerifyOutcome::Verified(_) => None,
            VerifyOutcome::DigestMismatch { op, expected } => Some(format!(
                "file does not match the proof (expected {} {})",
                op.name(),
                crate::hex::encode(expected)
            )),
            VerifyOutcome::NotVerified(err) => Some(err.to_string()),
        }
    }

    /// Why it did not verify, as a name: `digest_mismatch`,
    /// `headers_unavailable`, `header_source_unreliable`, or [`VerifyError::reason`] (`None` if it did).
    pub fn reason(&self) -> Option<&'static str> {
        match &self.outcome {
            VerifyOutcome::Verified(_) => None,
            VerifyOutcome::DigestMismatch { .. } => Some("digest_mismatch"),
            VerifyOutcome::NotVerified(err) if lacks_headers(err) => Some("headers_unavailable"),
            VerifyOutcome::NotVerified(err) if blames_source(err) => Some("header_source_unreliable"),
            VerifyOutcome::NotVerified(err) => Some(err.reason()),
        }
    }

    /// The JSON object of `ots verify --json`, as one line: the same bytes
    /// in every front end (typed members, written in declaration order).
    pub fn to_json(&self) -> String {
        self.to_json_with_hint(None)
    }

    /// [`Self::to_json`], with `hint` (what to do next, e.g. the upgrade
    /// command for a pending proof) appended to the error.
    pub fn to_json_with_hint(&self, hint: Option<&str>) -> String {
        serde_json::to_string(&self.json(hint)).expect("a verification report serializes")
    }

    /// The typed JSON document ([`Self::to_json_with_hint`]).
    pub fn json(&self, hint: Option<&str>) -> VerifyJson<'_> {
        let error = self.error().map(|error| match hint {
            Some(hint) => format!("{error}: {hint}"),
            None => error,
        });
        match &self.outcome {
            VerifyOutcome::Verified(verification) => VerifyJson::Verified(self.verified_json(verification)),
            VerifyOutcome::DigestMismatch { .. } => VerifyJson::DigestMismatch(DigestMismatchJson {
                verified: false,
                error: error.unwrap_or_default(),
                reason: self.reason().unwrap_or_default(),
            }),
            VerifyOutcome::NotVerified(_) => VerifyJson::NotVerified(NotVerifiedJson {
                verified: false,
                unverified: self.is_unverified(),
                network: self.network,
                error: error.unwrap_or_default(),
                reason: self.reason().unwrap_or_default(),
            }),
        }
    }

    fn verified_json<'a>(&'a self, verification: &'a Verification) -> VerifiedJson<'a> {
        let block = &verification.earliest;
        let mut warnings: Vec<String> = self.warnings.iter().map(|w| w.to_string()).collect();
        let cost_to_forge = match &self.cost_to_forge {
            Some(Ok(cost)) => Some(cost.clone()),
            Some(Err(err)) => {
                warnings.push(format!("cost to forge unknown: {err}"));
                None
            }
            None => None,
        };
        VerifiedJson {
            verified: true,
            network: self.network,
            height: block.height,
            block_hash: block.block_hash.to_string(),
            time: block.time,
            time_utc: UtcTime::from_unix(u64::from(block.time)).rfc3339(),
            pending: verification.pending.clone(),
            unverified: verification.unverified.iter().map(crate::attestation_json).collect(),
            failures: verification
                .failures
                .iter()
                .map(|f| FailureJson { height: f.height, reason: f.reason.to_string() })
                .collect(),
            warnings,
            cost_to_forge,
        }
    }
}

/// The `ots verify --json` document: one of three shapes, told apart by
/// `verified` and, when false, by `unverified`'s presence.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "OtsVerification"))]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)] // one per verification, never stored in bulk
pub enum VerifyJson<'a> {
    /// A Bitcoin attestation checked out.
    Verified(VerifiedJson<'a>),
    /// The file is not the one the proof is of.
    DigestMismatch(DigestMismatchJson),
    /// No Bitcoin attestation checked out.
    NotVerified(NotVerifiedJson),
}

/// A verified proof, as `ots verify --json` writes it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "OtsVerified"))]
pub struct VerifiedJson<'a> {
    /// Always true.
    #[cfg_attr(feature = "schema", schemars(extend("const" = true)))]
    pub verified: bool,
    /// The chain the headers belong to.
    #[serde(serialize_with = "network_name")]
    pub network: Network,
    /// The earliest attested block's height.
    pub height: u64,
    /// Its hash (usual reversed hex).
    pub block_hash: String,
    /// Its header time (seconds since 1970).
    pub time: u32,
    /// The header time in UTC (RFC 3339).
    pub time_utc: String,
    /// Calendars still holding pending attestations.
    pub pending: Vec<String>,
    /// Attestations present but not verified (Litecoin, Ethereum, unknown).
    pub unverified: Vec<crate::info::AttestationJson<'a>>,
    /// Bitcoin attestations at lower heights that failed.
    pub failures: Vec<FailureJson>,
    /// Advisory findings (the SHA-1 warning; a cost to forge that could not be worked out).
    pub warnings: Vec<String>,
    /// The work to rewrite the chain from the block (`null` when unknown).
    pub cost_to_forge: Option<CostToForge>,
}

/// A failed Bitcoin attestation of a verified proof.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "OtsFailure"))]
pub struct FailureJson {
    /// The height the attestation names.
    pub height: u64,
    /// Why it failed, in words.
    pub reason: String,
}

/// A proof of another file, as `ots verify --json` writes it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "OtsDigestMismatch"))]
pub struct DigestMismatchJson {
    /// Always false.
    #[cfg_attr(feature = "schema", schemars(extend("const" = false)))]
    pub verified: bool,
    /// What the file's digest should have been, in words.
    pub error: String,
    /// Always `digest_mismatch`.
    #[cfg_attr(feature = "schema", schemars(extend("const" = "digest_mismatch")))]
    pub reason: &'static str,
}

/// A proof that did not verify, as `ots verify --json` writes it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "OtsNotVerified"))]
pub struct NotVerifiedJson {
    /// Always false.
    #[cfg_attr(feature = "schema", schemars(extend("const" = false)))]
    pub verified: bool,
    /// Whether the header source is to blame (no header, or headers failing
    /// their own checks): unverified, not invalid.
    pub unverified: bool,
    /// The chain the headers had to belong to.
    #[serde(serialize_with = "network_name")]
    pub network: Network,
    /// Why, in words (with the hint, if one was given).
    pub error: String,
    /// Why, as a name ([`VerifyReport::reason`]).
    pub reason: &'static str,
}

fn network_name<S: serde::Serializer>(network: &Network, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(network.name())
}
