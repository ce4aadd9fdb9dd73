//! A relay's write policy: decides, for each event a relay receives,
//! whether to accept, reject or shadow-reject it.
//!
//! The rules ([`PolicyConfig`], a TOML file; docs/policy.md lists every
//! key and its default), in order:
//!
//! 1. an event JSON longer than `max_event_bytes` is rejected
//!    (`blocked: event_too_large`), one that is not an event too
//!    (`invalid: …`);
//! 2. events of allow-listed pubkeys are accepted, unchecked;
//! 3. a kind 1041 goes through the full NIP-FF-3 verifier
//!    ([`priorart_nip::verify_event`]): invalid → reject with
//!    `blocked: <reason>` (the report's first failure, e.g.
//!    `blocked: attestation_bad_signature`); unverified for lack of a block
//!    header → accept or reject (`blocked: proof_headers_unavailable`) as
//!    `proofs.unverified` says;
//! 4. an `X` tag (`minhash-equality-v1`) that does not match the event's
//!    text → `x_tag.mismatch` (reject by default, `blocked: x_mismatch`);
//!    empty and encrypted contents are left alone;
//! 4. (b) fuzzy discovery `B` tags (docs/nip-ff-3-fuzzy.md) that are not a
//!    well-formed set (`blocked: b_tag_<reason>`, e.g.
//!    `b_tag_keys_missing`) or whose value is not the text's simhash-doc
//!    (`blocked: b_tag_mismatch`) → `b_tag.mismatch` (reject by default);
//!    empty and encrypted contents are left alone;
//! 5. a text (of `flood.kinds`) within `flood.distance` simhash-doc bits of
//!    more than `flood.events` others from at least `flood.authors`
//!    pubkeys in the last `flood.seconds` → `flood.action` (shadowReject by
//!    default, `blocked: near_duplicate_flood`).
//!
//! The engine reads no clock and opens no socket itself: time is the
//! relay's `receivedAt`, and Bitcoin headers come from the
//! [`HeaderSource`] it is given ([`Policy::from_toml`] builds the one the
//! file's `[proofs]` describes, each request bounded by
//! `proofs.timeout_seconds`; a source that hangs makes the proof
//! unverified). It does not check the event's own id and signature: the
//! relay did, before asking.
//!
//! ```
//! use priorart_policy::{Action, Policy};
//! let mut policy = Policy::from_toml("[proofs]\nverify = false\n")?;
//! use priorart_policy::nostr::prelude::*;
//! let note = EventBuilder::new(Kind::TextNote, "hello")
//!     .finalize(&Keys::generate())?;
//! assert_eq!(policy.decide(&note, 1_700_000_000).action, Action::Accept);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

mod config;
mod file;
mod flood;
pub mod strfry;

pub use config::{
    Action, FloodRules, FuzzyTagRules, PolicyConfig, PolicyError, ProofRules, Unverified, XTagRules,
};
pub use file::{
    MAX_POLICY_FILE_BYTES, PolicyFile, PolicyFileError, RELOAD_CHECK_INTERVAL, Reload, read_policy_file,
};
pub use priorart_nip::nostr;

use flood::FloodWindow;
use nostr::prelude::{Event, PublicKey};
use priorart_fingerprint::{EqualityFingerprint, Fingerprinter, TokenRule};
use priorart_nip::check::{XCheck, check_x};
use priorart_nip::fuzzy_tags::{FuzzyTagCheck, check_fuzzy_tags};
use priorart_nip::{ALGORITHM, ATTESTATION_KIND, NIP03_KIND, PROOF_KIND, Verdict};
use priorart_ots::{HeaderSource, Network};
use std::collections::HashSet;

/// What to do with one event, and what to tell its sender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Accept, reject or shadow-reject.
    pub action: Action,
    /// The NIP-01 `OK` message (`blocked: <reason>`); empty on accept.
    pub msg: String,
}

impl Decision {
    /// Accept, saying nothing.
    pub fn accept() -> Decision {
        Decision { action: Action::Accept, msg: String::new() }
    }

    /// Refuse, telling the sender `msg`.
    pub fn reject(msg: impl Into<String>) -> Decision {
        Decision { action: Action::Reject, msg: msg.into() }
    }

    /// `action` with `blocked: reason` (no message on accept).
    fn blocked(action: Action, reason: &str) -> Decision {
        match action {
            Action::Accept => Decision::accept(),
            action => Decision { action, msg: format!("blocked: {reason}") },
        }
    }
}

/// The engine: the rules, the header source, and the recent texts.
pub struct Policy {
    config: PolicyConfig,
    allowed: HashSet<PublicKey>,
    network: Network,
    headers: Box<dyn HeaderSource>,
    flood: FloodWindow,
    fingerprinter: Fingerprinter,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("config", &self.config)
            .field("headers", &self.headers.describe())
            .finish_non_exhaustive()
    }
}

impl Policy {
    /// The policy a TOML file describes, with the header source of its
    /// `[proofs]` section.
    pub fn from_toml(text: &str) -> Result<Policy, PolicyError> {
        let config = PolicyConfig::from_toml(text)?;
        let headers = config.header_config()?.build()?;
        Policy::new(config, headers)
    }

    /// The policy of `config`, taking headers from `headers`.
    pub fn new(config: PolicyConfig, headers: Box<dyn HeaderSource>) -> Result<Policy, PolicyError> {
        Ok(Policy {
            allowed: config.allowed()?,
            network: config.network()?,
            flood: FloodWindow::new(config.flood.window, config.flood.seconds),
            fingerprinter: Fingerprinter::new(),
            headers,
            config,
        })
    }

    /// The rules in force.
    pub fn config(&self) -> &PolicyConfig {
        &self.config
    }

    /// Decides on an event given as JSON (as a relay received it),
    /// `received_at` being the relay's Unix time of receipt.
    pub fn decide_json(&mut self, json: &str, received_at: u64) -> Decision {
        match self.read_event(json) {
            Ok(event) => self.decide(&event, received_at),
            Err(refusal) => refusal,
        }
    }

    /// The event `json` holds, or the refusal of one too long or malformed.
    pub fn read_event(&self, json: &str) -> Result<Event, Decision> {
        if json.len() > self.config.max_event_bytes {
            return Err(Decision::reject("blocked: event_too_large"));
        }
        priorart_nip::parse_event(json, self.config.max_event_bytes)
            .map_err(|err| Decision::reject(format!("invalid: {err}")))
    }

    /// Decides on an event whose id and signature the relay has checked.
    pub fn decide(&mut self, event: &Event, received_at: u64) -> Decision {
        if self.allowed.contains(&event.pubkey) {
            return Decision::accept();
        }
        let kind = event.kind.as_u16();
        if kind == PROOF_KIND {
            return self.decide_proof(event);
        }
        if ![NIP03_KIND, ATTESTATION_KIND].contains(&kind)
            && let Some(decision) = self.decide_x_tags(event).or_else(|| self.decide_fuzzy_tags(event))
        {
            return decision;
        }
        self.decide_flood(event, received_at)
    }

    fn decide_proof(&self, event: &Event) -> Decision {
        if !self.config.proofs.verify {
            return Decision::accept();
        }
        // The verdict alone decides: no cost to forge (up to 144 more
        // headers checked per proof).
        let report = priorart_nip::verify_event_with(event, self.headers.as_ref(), self.network, None);
        match report.verdict {
            Verdict::Invalid => {
                let reason = report.failures().first().map(ToString::to_string);
                Decision::reject(format!("blocked: {}", reason.as_deref().unwrap_or("invalid_proof")))
            }
            Verdict::Unverified => match self.config.proofs.unverified {
                Unverified::Accept => Decision::accept(),
                Unverified::Reject => Decision::reject("blocked: proof_headers_unavailable"),
            },
            // Valid, a 1041 of another scheme: only what the verifier
            // refuses is refused.
            _ => Decision::accept(),
        }
    }

    /// `None` when every NIP-FF-3 `X` tag matches the text, or none can be
    /// checked; other `X` tags (other algorithms, malformed) are not ours.
    fn decide_x_tags(&self, event: &Event) -> Option<Decision> {
        let lies = nip_ff_3_x_tags(event).any(|x| matches!(check_x(event, &x), XCheck::DoesNotMatch(_)));
        lies.then(|| Decision::blocked(self.config.x_tag.mismatch, "x_mismatch"))
    }

    /// `None` without `B` tags, or when they are well formed and carry the
    /// text's simhash-doc value (or the text cannot be read).
    fn decide_fuzzy_tags(&self, event: &Event) -> Option<Decision> {
        let action = self.config.b_tag.mismatch;
        match check_fuzzy_tags(event) {
            FuzzyTagCheck::DoesNotMatch(_) => Some(Decision::blocked(action, "b_tag_mismatch")),
            FuzzyTagCheck::Malformed(err) => {
                Some(Decision::blocked(action, &format!("b_tag_{}", err.reason())))
            }
            FuzzyTagCheck::Absent | FuzzyTagCheck::Matches | FuzzyTagCheck::CannotCheck(_) => None,
        }
    }

    fn decide_flood(&mut self, event: &Event, received_at: u64) -> Decision {
        let rules = &self.config.flood;
        if !rules.enabled
            || !rules.kinds.contains(&event.kind.as_u16())
            || priorart_fingerprint::count_words(&event.content, rules.min_words) < rules.min_words
        {
            return Decision::accept();
        }
        let simhash = self.fingerprinter.simhash_doc(&event.content, TokenRule::V2);
        let seen =
            self.flood.observe(simhash, event.pubkey.to_bytes(), received_at, rules.distance, rules.authors);
        if seen.events > rules.events && seen.authors >= rules.authors {
            Decision::blocked(rules.action, "near_duplicate_flood")
        } else {
            Decision::accept()
        }
    }
}

/// The fingerprints of the `["X", <hex>, "minhash-equality-v1"]` tags.
fn nip_ff_3_x_tags(event: &Event) -> impl Iterator<Item = EqualityFingerprint> + '_ {
    event.tags.iter().filter_map(|tag| match tag.as_slice() {
        [name, hex, algorithm] if name == "X" && algorithm == ALGORITHM => hex.parse().ok(),
        _ => None,
    })
}

#[cfg(test)]
mod tests;
