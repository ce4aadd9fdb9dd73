//! The steps of the two verification algorithms, each with its number in
//! its specification and what it checks: one place that pairs them, so a
//! report can never say "step 3" about step 4's check.

/// A step of an algorithm: its number and what it checks, in words.
pub trait AlgorithmStep: Copy {
    /// The step's number in its specification.
    fn number(self) -> u8;
    /// What the step checks, as the report prints it.
    fn check(self) -> &'static str;
}

/// NIP-FF-3's client algorithm for a kind 1041, steps 1–8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProofEventStep {
    /// 1: the event is a kind 1041.
    Kind,
    /// 2: its `description` tag parses to an event.
    Description,
    /// 3: that event is a valid kind 1042 attestation.
    Attestation,
    /// 4: the content reference names the attestation's author.
    Author,
    /// 5: the `X` tags agree.
    Fingerprint,
    /// 6: the commitment is computed from the attestation's signature.
    Commitment,
    /// 7: `.content` is a parseable OpenTimestamps proof.
    ProofDecodes,
    /// 8: the proof is for the commitment and reaches a Bitcoin block.
    ProofVerifies,
}

impl ProofEventStep {
    /// Every step, in order.
    pub const ALL: [ProofEventStep; 8] = [
        ProofEventStep::Kind,
        ProofEventStep::Description,
        ProofEventStep::Attestation,
        ProofEventStep::Author,
        ProofEventStep::Fingerprint,
        ProofEventStep::Commitment,
        ProofEventStep::ProofDecodes,
        ProofEventStep::ProofVerifies,
    ];

    /// The steps a kind 1041 must pass to be valid (the NIP's rule): the
    /// attestation, the author, the fingerprint (the proof step decides
    /// between valid, unverified and invalid).
    pub const REQUIRED: [ProofEventStep; 3] =
        [ProofEventStep::Attestation, ProofEventStep::Author, ProofEventStep::Fingerprint];
}

impl AlgorithmStep for ProofEventStep {
    fn number(self) -> u8 {
        self as u8 + 1
    }

    fn check(self) -> &'static str {
        match self {
            ProofEventStep::Kind => "kind is 1041",
            ProofEventStep::Description => "description parses to an event",
            ProofEventStep::Attestation => {
                "embedded event is a valid, correctly signed kind 1042 of the required shape"
            }
            ProofEventStep::Author => "author from the a or p tag equals the attestation's pubkey",
            ProofEventStep::Fingerprint => "X tags agree and carry minhash-equality-v1",
            ProofEventStep::Commitment => "commitment = SHA256(attestation signature bytes)",
            ProofEventStep::ProofDecodes => ".content is base64 of a parseable OpenTimestamps proof",
            ProofEventStep::ProofVerifies => {
                "proof is for exactly the commitment and verifies to a Bitcoin block"
            }
        }
    }
}

/// The NIP-03 check of a kind 1040, steps 1–4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Nip03Step {
    /// 1: the event is a kind 1040.
    Kind,
    /// 2: one `e` tag names the stamped event id.
    EventReference,
    /// 3: `.content` is a parseable OpenTimestamps proof.
    ProofDecodes,
    /// 4: the proof is for that event id and reaches a Bitcoin block.
    ProofVerifies,
}

impl AlgorithmStep for Nip03Step {
    fn number(self) -> u8 {
        self as u8 + 1
    }

    fn check(self) -> &'static str {
        match self {
            Nip03Step::Kind => "kind is 1040",
            Nip03Step::EventReference => "one e tag names the stamped event id",
            Nip03Step::ProofDecodes => ".content is base64 of a parseable OpenTimestamps proof",
            Nip03Step::ProofVerifies => "proof is for exactly that event id and verifies to a Bitcoin block",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_the_specifications() {
        let numbers: Vec<u8> = ProofEventStep::ALL.iter().map(|step| step.number()).collect();
        assert_eq!(numbers, (1..=8).collect::<Vec<u8>>());
        assert_eq!(Nip03Step::ProofVerifies.number(), 4);
        assert_eq!(ProofEventStep::REQUIRED.map(|step| step.number()), [3, 4, 5]);
    }
}
