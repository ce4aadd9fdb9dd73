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
use serde_json::{Value, json};

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

    /// The JSON object of `ots verify --json`.
    pub fn to_json(&self) -> Value {
        self.to_json_with_hint(None)
    }

    /// [`Self::to_json`], with `hint` (what to do next, e.g. the upgrade
    /// command for a pending proof) appended to the error.
    pub fn to_json_with_hint(&self, hint: Option<&str>) -> Value {
        let error = self.error().map(|error| match hint {
            Some(hint) => format!("{error}: {hint}"),
            None => error,
        });
        match &self.outcome {
            VerifyOutcome::Verified(verification) => self.verified_json(verification),
            VerifyOutcome::DigestMismatch { .. } => {
                json!({"verified": false, "error": error, "reason": self.reason()})
            }
            VerifyOutcome::NotVerified(_) => json!({
                "verified": false,
                "unverified": self.is_unverified(),
                "network": self.network.name(),
                "error": error,
                "reason": self.reason(),
            }),
        }
    }

    fn verified_json(&self, verification: &Verification) -> Value {
        let block = &verification.earliest;
        let mut warnings: Vec<String> = self.warnings.iter().map(|w| w.to_string()).collect();
        let cost = match &self.cost_to_forge {
            Some(Ok(cost)) => serde_json::to_value(cost).unwrap_or(Value::Null),
            Some(Err(err)) => {
                warnings.push(format!("cost to forge unknown: {err}"));
                Value::Null
            }
            None => Value::Null,
        };
        json!({
            "verified": true,
            "network": self.network.name(),
            "height": block.height,
            "block_hash": block.block_hash.to_string(),
            "time": block.time,
            "time_utc": UtcTime::from_unix(u64::from(block.time)).rfc3339(),
            "pending": verification.pending,
            "unverified": verification.unverified.iter().map(crate::attestation_json).collect::<Vec<_>>(),
            "failures": verification.failures.iter()
                .map(|f| json!({"height": f.height, "reason": f.reason.to_string()}))
                .collect::<Vec<_>>(),
            "warnings": warnings,
            "cost_to_forge": cost,
        })
    }
}
