//! What `ots verify` answers about a proof, in one place for every front end
//! (the CLI's `ots verify --json`, the Python binding): the outcome, the
//! "lacks headers" test that tells unverified from invalid, the SHA-1
//! warning, the cost to forge, and the JSON object.

use crate::checkpoints::Network;
use crate::detached::DetachedTimestamp;
use crate::forge::{CostToForge, ForgeError, cost_to_forge};
use crate::headers::HeaderSource;
use crate::op::HashOp;
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
    /// `headers_unavailable`, or [`VerifyError::reason`] (`None` if it did).
    pub fn reason(&self) -> Option<&'static str> {
        match &self.outcome {
            VerifyOutcome::Verified(_) => None,
            VerifyOutcome::DigestMismatch { .. } => Some("digest_mismatch"),
            VerifyOutcome::NotVerified(err) if lacks_headers(err) => Some("headers_unavailable"),
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
                "unverified": self.lacks_headers(),
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
            "time_utc": utc_text(i64::from(block.time)),
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

/// `seconds` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic
/// Gregorian, UTC): a block time as the JSON gives it, without a clock or a
/// date library (the civil-from-days conversion of Howard Hinnant).
pub fn utc_text(seconds: i64) -> String {
    let (days, second_of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        second_of_day / 3600,
        second_of_day % 3600 / 60,
        second_of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::utc_text;

    #[test]
    fn utc_text_of_known_instants() {
        assert_eq!(utc_text(0), "1970-01-01T00:00:00Z");
        // The genesis block's time.
        assert_eq!(utc_text(1_231_006_505), "2009-01-03T18:15:05Z");
        // Leap days, and the last second of a leap year.
        assert_eq!(utc_text(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_text(1_735_689_599), "2024-12-31T23:59:59Z");
        assert_eq!(utc_text(4_294_967_295), "2106-02-07T06:28:15Z");
    }
}
