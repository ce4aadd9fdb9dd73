//! The verification report: every step of the NIP's client algorithm with
//! its verdict and, when it fails, a named reason. Serialized as stable JSON
//! (see the crate documentation for the format).

use crate::steps::AlgorithmStep;
use priorart_ots::CostToForge;
pub(crate) use priorart_reason::error_chain;
use serde::Serialize;

/// The report format identifier, first member of the JSON.
pub const REPORT_FORMAT: &str = "priorart-verify/1";

/// The overall answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "VerifyVerdict"))]
pub enum Verdict {
    /// A NIP-FF-3 kind 1041 whose steps 3, 4, 5 and 8 pass.
    Valid,
    /// A NIP-03 kind 1040 whose proof verifies: it proves an event id
    /// existed, which anyone could have stamped in advance.
    ValidButForgeable,
    /// Some required step failed.
    Invalid,
    /// Every step that could run passed, but the Bitcoin attestation could
    /// not be checked: no header source, an unreachable one, or a block it
    /// does not know. Not a judgement on the proof: check again with headers.
    Unverified,
    /// A kind 1041 of some other scheme (other drafts reuse the kind).
    #[serde(rename = "not-nip-ff-3")]
    NotNipFf3,
}

/// Which specification the event was checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Specification {
    /// NIP-FF-3 kind 1041 (commitment to the author's attestation signature).
    #[serde(rename = "nip-ff-3")]
    NipFf3,
    /// NIP-03 kind 1040 (commitment to an event id).
    #[serde(rename = "nip-03")]
    Nip03,
}

/// Outcome of one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "StepStatus"))]
pub enum Status {
    /// The check passed.
    Pass,
    /// The check failed; `reason` names why.
    Fail,
    /// The check could not run because an earlier step failed.
    Skip,
}

/// Why a step failed, or what a warning is about. Serialized in snake_case;
/// the names are part of the stable report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // each name is its documentation; see `describe`.
#[non_exhaustive]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "VerifyReason"))]
pub enum Reason {
    // The event itself.
    EventTooLarge,
    EventNotJson,
    EventMalformed,
    WrongKind,
    NotNipFf3,
    // Step 2.
    DescriptionMissing,
    DescriptionRepeated,
    DescriptionTooLarge,
    DescriptionNotJson,
    DescriptionNotEvent,
    // Step 3.
    AttestationIdMismatch,
    AttestationBadSignature,
    AttestationWrongKind,
    AttestationContentNotEmpty,
    AttestationXMissing,
    AttestationXRepeated,
    AttestationXMalformed,
    AttestationWrongAlgorithm,
    AttestationKMalformed,
    AttestationUnexpectedTag,
    // Step 4.
    ContentReferenceMissing,
    ContentReferenceAmbiguous,
    AuthorMissing,
    AuthorMalformed,
    AuthorMismatch,
    // Step 5.
    XMissing,
    XRepeated,
    XMalformed,
    XWrongAlgorithm,
    XMismatch,
    // NIP-03 step 2.
    EventReferenceMissing,
    EventReferenceRepeated,
    EventReferenceMalformed,
    // Step 7.
    ProofTooLarge,
    ProofNotBase64,
    ProofUnparseable,
    // Step 8.
    ProofForOtherDigest,
    ProofPendingOnly,
    ProofNoBitcoinAttestation,
    ProofNotVerified,
    ProofHeadersUnavailable,
    ProofHeaderSourceUnreliable,
    // Warnings.
    KMismatch,
    KMissing,
    EventSignatureInvalid,
    ForgeableByPrestamping,
    CostToForgeUnknown,
}

impl Reason {
    /// Whether a failed step 8 for this reason leaves the proof
    /// `unverified`, not `invalid`: the headers to check it could not be
    /// had, or the source served headers that fail their own checks.
    pub fn leaves_unverified(self) -> bool {
        matches!(self, Reason::ProofHeadersUnavailable | Reason::ProofHeaderSourceUnreliable)
    }

    /// The snake_case name, as in the JSON report (the serialization test
    /// holds the two equal).
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::EventTooLarge => "event_too_large",
            Reason::EventNotJson => "event_not_json",
            Reason::EventMalformed => "event_malformed",
            Reason::WrongKind => "wrong_kind",
            Reason::NotNipFf3 => "not_nip_ff3",
            Reason::DescriptionMissing => "description_missing",
            Reason::DescriptionRepeated => "description_repeated",
            Reason::DescriptionTooLarge => "description_too_large",
            Reason::DescriptionNotJson => "description_not_json",
            Reason::DescriptionNotEvent => "description_not_event",
            Reason::AttestationIdMismatch => "attestation_id_mismatch",
            Reason::AttestationBadSignature => "attestation_bad_signature",
            Reason::AttestationWrongKind => "attestation_wrong_kind",
            Reason::AttestationContentNotEmpty => "attestation_content_not_empty",
            Reason::AttestationXMissing => "attestation_x_missing",
            Reason::AttestationXRepeated => "attestation_x_repeated",
            Reason::AttestationXMalformed => "attestation_x_malformed",
            Reason::AttestationWrongAlgorithm => "attestation_wrong_algorithm",
            Reason::AttestationKMalformed => "attestation_k_malformed",
            Reason::AttestationUnexpectedTag => "attestation_unexpected_tag",
            Reason::ContentReferenceMissing => "content_reference_missing",
            Reason::ContentReferenceAmbiguous => "content_reference_ambiguous",
            Reason::AuthorMissing => "author_missing",
            Reason::AuthorMalformed => "author_malformed",
            Reason::AuthorMismatch => "author_mismatch",
            Reason::XMissing => "x_missing",
            Reason::XRepeated => "x_repeated",
            Reason::XMalformed => "x_malformed",
            Reason::XWrongAlgorithm => "x_wrong_algorithm",
            Reason::XMismatch => "x_mismatch",
            Reason::EventReferenceMissing => "event_reference_missing",
            Reason::EventReferenceRepeated => "event_reference_repeated",
            Reason::EventReferenceMalformed => "event_reference_malformed",
            Reason::ProofTooLarge => "proof_too_large",
            Reason::ProofNotBase64 => "proof_not_base64",
            Reason::ProofUnparseable => "proof_unparseable",
            Reason::ProofForOtherDigest => "proof_for_other_digest",
            Reason::ProofPendingOnly => "proof_pending_only",
            Reason::ProofNoBitcoinAttestation => "proof_no_bitcoin_attestation",
            Reason::ProofNotVerified => "proof_not_verified",
            Reason::ProofHeadersUnavailable => "proof_headers_unavailable",
            Reason::ProofHeaderSourceUnreliable => "proof_header_source_unreliable",
            Reason::KMismatch => "k_mismatch",
            Reason::KMissing => "k_missing",
            Reason::EventSignatureInvalid => "event_signature_invalid",
            Reason::ForgeableByPrestamping => "forgeable_by_prestamping",
            Reason::CostToForgeUnknown => "cost_to_forge_unknown",
        }
    }
}

impl std::fmt::Display for Reason {
    /// The snake_case name, as in the JSON report.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step of the algorithm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "VerifyStep"))]
pub struct Step {
    /// The step number in the NIP (1-8; NIP-03 events have their own 1-4).
    pub step: u8,
    /// What the step checks, in words.
    pub check: &'static str,
    /// Its outcome.
    pub status: Status,
    /// Why it failed (`null` unless `status` is `fail`).
    pub reason: Option<Reason>,
    /// What was found, in words.
    pub detail: String,
}

/// Something worth knowing that does not change the verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "VerifyWarning"))]
pub struct Warning {
    /// What it is about.
    pub reason: Reason,
    /// In words.
    pub detail: String,
}

/// The Bitcoin block a proof reaches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BitcoinAnchor {
    /// Block height.
    pub height: u64,
    /// Block header time (seconds since 1970, as the miner wrote it).
    pub time: u64,
    /// Block hash, in the usual (reversed) hex.
    pub block_hash: String,
}

/// The plaintext check: only a holder of the text can do it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ContentCheck {
    /// The `minhash-equality-v1` fingerprint of the plaintext.
    pub fingerprint: String,
    /// Whether it equals the attested `X`.
    pub matches_x: bool,
}

/// The full answer of a verification.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "VerifyReport"))]
pub struct Report {
    /// Always [`REPORT_FORMAT`].
    #[cfg_attr(feature = "schema", schemars(extend("const" = REPORT_FORMAT)))]
    pub format: &'static str,
    /// The overall answer.
    pub verdict: Verdict,
    /// The specification applied (`null` if the event could not be read).
    pub scheme: Option<Specification>,
    /// The Bitcoin network the proof was checked against (`mainnet`,
    /// `regtest`): a regtest "valid" proves nothing about the real chain.
    #[cfg_attr(feature = "schema", schemars(with = "Option<priorart_ots::Network>"))]
    pub network: Option<&'static str>,
    /// The event id as given.
    pub event_id: Option<String>,
    /// The event kind.
    pub kind: Option<u16>,
    /// Who signed the event (for a 1041, irrelevant to validity).
    pub signer: Option<String>,
    /// The author the attestation binds (NIP-FF-3), once step 2 passed.
    pub author: Option<String>,
    /// The attested fingerprint, once step 3 passed.
    pub fingerprint: Option<String>,
    /// The digest the proof must commit to (step 6, or the NIP-03 event id).
    pub commitment: Option<String>,
    /// The earliest Bitcoin block the proof reaches, once step 8 passed.
    pub bitcoin: Option<BitcoinAnchor>,
    /// What rewriting the chain from that block to the header source's tip
    /// costs, from checked headers (`null` until step 8 passed, or when the
    /// source could not say: then a `cost_to_forge_unknown` warning).
    pub cost_to_forge: Option<CostToForge>,
    /// Every step, in order.
    pub steps: Vec<Step>,
    /// Advisory findings.
    pub warnings: Vec<Warning>,
    /// The plaintext check, when a plaintext was given.
    pub content: Option<ContentCheck>,
}

impl Report {
    pub(crate) fn new(scheme: Option<Specification>) -> Self {
        Self {
            format: REPORT_FORMAT,
            verdict: Verdict::Invalid,
            scheme,
            network: None,
            event_id: None,
            kind: None,
            signer: None,
            author: None,
            fingerprint: None,
            commitment: None,
            bitcoin: None,
            cost_to_forge: None,
            steps: Vec::new(),
            warnings: Vec::new(),
            content: None,
        }
    }

    /// A report on `event`, its id, kind and signer filled in.
    pub(crate) fn describing(scheme: Specification, event: &nostr::prelude::Event) -> Self {
        let mut report = Report::new(Some(scheme));
        report.event_id = Some(event.id.to_hex());
        report.kind = Some(event.kind.as_u16());
        report.signer = Some(event.pubkey.to_hex());
        report
    }

    /// `valid` when every `required` step and the proof step passed;
    /// [`Verdict::Unverified`] when they passed but the proof step could not
    /// get its headers; [`Verdict::Invalid`] otherwise.
    pub(crate) fn verdict_from_steps<S: AlgorithmStep>(
        &self,
        required: &[S],
        proof_step: S,
        valid: Verdict,
    ) -> Verdict {
        if !required.iter().all(|step| self.passed(step.number())) {
            return Verdict::Invalid;
        }
        match self.step(proof_step.number()) {
            Some(step) if step.status == Status::Pass => valid,
            Some(step) if step.reason.is_some_and(Reason::leaves_unverified) => Verdict::Unverified,
            _ => Verdict::Invalid,
        }
    }

    pub(crate) fn pass(&mut self, step: impl AlgorithmStep, detail: impl Into<String>) {
        self.push(step, Status::Pass, None, detail.into());
    }

    pub(crate) fn fail(&mut self, step: impl AlgorithmStep, reason: Reason, detail: impl Into<String>) {
        self.push(step, Status::Fail, Some(reason), detail.into());
    }

    pub(crate) fn skip(&mut self, step: impl AlgorithmStep, detail: impl Into<String>) {
        self.push(step, Status::Skip, None, detail.into());
    }

    fn push(&mut self, step: impl AlgorithmStep, status: Status, reason: Option<Reason>, detail: String) {
        self.steps.push(Step { step: step.number(), check: step.check(), status, reason, detail });
    }

    pub(crate) fn warn(&mut self, reason: Reason, detail: impl Into<String>) {
        self.warnings.push(Warning { reason, detail: detail.into() });
    }

    /// The step numbered `step`, if it was reported.
    pub fn step(&self, step: u8) -> Option<&Step> {
        self.steps.iter().find(|s| s.step == step)
    }

    /// Whether step `step` passed.
    pub fn passed(&self, step: u8) -> bool {
        self.step(step).is_some_and(|s| s.status == Status::Pass)
    }

    /// The reasons of every failed step, in step order.
    pub fn failures(&self) -> Vec<Reason> {
        self.steps.iter().filter_map(|s| s.reason).collect()
    }

    /// Whether the verdict is [`Verdict::Valid`] or [`Verdict::ValidButForgeable`].
    pub fn is_valid(&self) -> bool {
        matches!(self.verdict, Verdict::Valid | Verdict::ValidButForgeable)
    }

    /// Recomputes the fingerprint of `plaintext` and records whether it is
    /// the attested one: the part of the claim only a holder of the text can
    /// confirm. Does nothing if no fingerprint was attested.
    pub fn check_content(&mut self, plaintext: &str) {
        if let Some(attested) = &self.fingerprint {
            let fingerprint = priorart_fingerprint::minhash_equality_v1(plaintext).to_string();
            let matches_x = &fingerprint == attested;
            self.content = Some(ContentCheck { fingerprint, matches_x });
        }
    }

    /// The report as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report always serializes")
    }
}
