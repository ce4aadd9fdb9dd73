//! Steps 7 and 8 of the NIP on the OpenTimestamps side: base64 → `.ots`
//! proof, then "is it a proof of exactly this digest, and which Bitcoin
//! block does it reach?"

use crate::limits::MAX_PROOF_BASE64_BYTES;
use crate::report::{BitcoinAnchor, Reason, Report, error_chain};
use crate::steps::AlgorithmStep;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use priorart_ots::{
    AttestationError, CostToForge, DecodeError, DetachedTimestamp, ForgeError, HashOp, HeaderSource, Network,
    VerifyError,
};

/// Why a proof event's `.content` does not prove its digest.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ProofFailure {
    /// Longer than [`MAX_PROOF_BASE64_BYTES`].
    #[error("the proof is over {MAX_PROOF_BASE64_BYTES} base64 bytes")]
    TooLarge,
    /// Not standard base64.
    #[error("the content is not base64")]
    NotBase64,
    /// Base64, but not an OpenTimestamps proof.
    #[error("not an OpenTimestamps proof")]
    Unparseable(#[source] DecodeError),
    /// A proof of another digest (or of a non-SHA-256 file hash).
    #[error("the proof is for {found}, not for {expected}")]
    OtherDigest {
        /// What the proof is of (`op:hex`).
        found: String,
        /// The digest it had to be of.
        expected: String,
    },
    /// Only calendar (pending) attestations: the NIP requires a Bitcoin one.
    #[error("the proof has no Bitcoin attestation yet (pending only): upgrade it first")]
    PendingOnly,
    /// Neither a Bitcoin nor a pending attestation (Litecoin, Ethereum, unknown).
    #[error("the proof has no Bitcoin attestation")]
    NoBitcoinAttestation,
    /// Bitcoin attestations that do not check out against the headers.
    #[error("no Bitcoin attestation verifies")]
    NotVerified(#[source] VerifyError),
    /// The headers needed could not be had (no source, source unreachable,
    /// block unknown to it): the proof could not be checked, which is not
    /// the same as false.
    #[error("cannot check the Bitcoin attestation: no block header")]
    HeadersUnavailable(#[source] VerifyError),
    /// The header source served headers that fail their own checks (proof
    /// of work, the difficulty the height requires, a checkpoint): it is
    /// unreliable, and the proof could not be checked, which is not the
    /// same as false. `source` names it.
    #[error("cannot check the Bitcoin attestation: the header source {source_name} is unreliable")]
    SourceUnreliable {
        /// The source ([`HeaderSource::describe`]).
        source_name: String,
        /// What its headers failed.
        #[source]
        cause: VerifyError,
    },
}

impl ProofFailure {
    /// The report's name for this failure (`proof_not_verified`, ...).
    pub fn reason(&self) -> &'static str {
        self.report_reason().as_str()
    }

    /// [`Self::reason`], typed: the report's [`Reason`].
    pub fn report_reason(&self) -> Reason {
        match self {
            ProofFailure::TooLarge => Reason::ProofTooLarge,
            ProofFailure::NotBase64 => Reason::ProofNotBase64,
            ProofFailure::Unparseable(_) => Reason::ProofUnparseable,
            ProofFailure::OtherDigest { .. } => Reason::ProofForOtherDigest,
            ProofFailure::PendingOnly => Reason::ProofPendingOnly,
            ProofFailure::NoBitcoinAttestation => Reason::ProofNoBitcoinAttestation,
            ProofFailure::NotVerified(_) => Reason::ProofNotVerified,
            ProofFailure::HeadersUnavailable(_) => Reason::ProofHeadersUnavailable,
            ProofFailure::SourceUnreliable { .. } => Reason::ProofHeaderSourceUnreliable,
        }
    }
}

/// Base64-decodes and parses `content` (step 7).
pub fn decode(content: &str) -> Result<DetachedTimestamp, ProofFailure> {
    if content.len() > MAX_PROOF_BASE64_BYTES {
        return Err(ProofFailure::TooLarge);
    }
    let bytes = BASE64.decode(content.trim()).map_err(|_| ProofFailure::NotBase64)?;
    DetachedTimestamp::from_bytes(&bytes).map_err(ProofFailure::Unparseable)
}

/// Checks that `proof` is a SHA-256 proof of exactly `digest` that reaches
/// a Bitcoin block of `network`, and returns the earliest such block (step 8).
pub fn verify(
    proof: &DetachedTimestamp,
    digest: &[u8; 32],
    headers: &dyn HeaderSource,
    network: Network,
    forge_headers: Option<u64>,
) -> Result<Anchored, ProofFailure> {
    check_digest(proof, digest)?;
    let verification = priorart_ots::verify(proof, headers, network).map_err(|err| match err {
        VerifyError::Pending { .. } => ProofFailure::PendingOnly,
        VerifyError::NoBitcoinAttestation { .. } => ProofFailure::NoBitcoinAttestation,
        VerifyError::Failed { failures }
            if failures.iter().any(|failure| matches!(failure.reason, AttestationError::Source(_))) =>
        {
            ProofFailure::HeadersUnavailable(VerifyError::Failed { failures })
        }
        VerifyError::Failed { failures } if failures.iter().any(|failure| failure.reason.blames_source()) => {
            ProofFailure::SourceUnreliable {
                source_name: headers.describe(),
                cause: VerifyError::Failed { failures },
            }
        }
        other => ProofFailure::NotVerified(other),
    })?;
    let block = verification.earliest;
    let cost_to_forge =
        forge_headers.map(|max_headers| priorart_ots::cost_to_forge(headers, network, &block, max_headers));
    let anchor = BitcoinAnchor {
        height: block.height,
        time: u64::from(block.time),
        block_hash: block.block_hash.to_string(),
    };
    Ok(Anchored { anchor, cost_to_forge })
}

/// A proof that reached a block, and what rewriting the chain from it costs.
pub(crate) struct Anchored {
    pub anchor: BitcoinAnchor,
    /// `None` when it was not asked for.
    pub cost_to_forge: Option<Result<CostToForge, ForgeError>>,
}

impl Anchored {
    /// Records the outcome of [`verify`] as `step` of `report`: a pass
    /// naming the block, then the block and the cost to forge (a cost that
    /// could not be worked out is a warning: the proof stands without it);
    /// or the failure with its reason. Whether the proof reached a block.
    pub(crate) fn record(
        outcome: Result<Anchored, ProofFailure>,
        report: &mut Report,
        step: impl AlgorithmStep,
    ) -> bool {
        let Anchored { anchor, cost_to_forge } = match outcome {
            Ok(anchored) => anchored,
            Err(failure) => {
                report.fail(step, failure.report_reason(), error_chain(&failure));
                return false;
            }
        };
        report.pass(step, format!("Bitcoin block {} (time {})", anchor.height, anchor.time));
        report.bitcoin = Some(anchor);
        match cost_to_forge {
            Some(Ok(cost)) => report.cost_to_forge = Some(cost),
            Some(Err(err)) => report.warn(Reason::CostToForgeUnknown, error_chain(&err)),
            None => {}
        }
        true
    }
}

/// Whether `proof` is a SHA-256 proof of exactly `digest`.
pub fn check_digest(proof: &DetachedTimestamp, digest: &[u8; 32]) -> Result<(), ProofFailure> {
    if proof.file_hash_op() == HashOp::Sha256 && proof.matches_digest(digest) {
        return Ok(());
    }
    Err(ProofFailure::OtherDigest {
        found: format!("{}:{}", proof.file_hash_op().name(), priorart_ots::hex::encode(proof.file_digest())),
        expected: format!("sha256:{}", priorart_ots::hex::encode(digest)),
    })
}
