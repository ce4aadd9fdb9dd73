//! The policy file: TOML, every key optional, defaults that are safe for an
//! open relay. Unknown keys are refused, so a typo never silently turns a
//! rule off. docs/policy.md describes every key.

use priorart_nip::nostr::prelude::PublicKey;
use priorart_ots::Network;
use priorart_ots_net::HeaderConfig;
use serde::Deserialize;
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

/// What the relay is told to do with an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Action {
    /// Store and pass on the event.
    #[serde(rename = "accept")]
    Accept,
    /// Refuse it; the client is told why (`OK false`).
    #[serde(rename = "reject")]
    Reject,
    /// Drop it while telling the client it was accepted, so a flooder does
    /// not learn to vary the text.
    #[serde(rename = "shadowReject")]
    ShadowReject,
}

impl Action {
    /// The name in strfry's protocol: `accept`, `reject` or `shadowReject`.
    pub fn name(self) -> &'static str {
        match self {
            Action::Accept => "accept",
            Action::Reject => "reject",
            Action::ShadowReject => "shadowReject",
        }
    }
}

/// What to do with a kind 1041 whose Bitcoin block header could not be had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unverified {
    /// Store it: every other check passed (the default).
    Accept,
    /// Refuse it with `blocked: proof_headers_unavailable`.
    Reject,
}

/// The whole policy file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PolicyConfig {
    /// Pubkeys (64 hex) whose events are always accepted, unchecked.
    pub allow: Vec<String>,
    /// Longest event JSON looked at; longer ones are rejected.
    pub max_event_bytes: usize,
    /// Kind 1041 proof events.
    pub proofs: ProofRules,
    /// Content events carrying an `X` tag.
    pub x_tag: XTagRules,
    /// Content events carrying fuzzy discovery `B` tags.
    pub b_tag: FuzzyTagRules,
    /// Floods of near-identical texts from many keys.
    pub flood: FloodRules,
}

/// `[proofs]`: the NIP-FF-3 verifier, and where headers come from (the
/// options of `priorart verify`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProofRules {
    /// Verify kind 1041 events at all.
    pub verify: bool,
    /// A proof whose block header could not be had.
    pub unverified: Unverified,
    /// `mainnet` or `regtest`.
    pub network: String,
    /// Directory of cached headers (`HEIGHT.hex`); default the user's cache.
    pub header_cache: Option<PathBuf>,
    /// Esplora REST base URL, asked for headers the cache lacks.
    pub esplora: Option<String>,
    /// bitcoind JSON-RPC URL, asked for headers the cache lacks.
    pub bitcoin_rpc: Option<String>,
    /// bitcoind's cookie file.
    pub rpc_cookie: Option<PathBuf>,
    /// bitcoind RPC user (with `rpc_password_file`).
    pub rpc_user: Option<String>,
    /// A file whose first line is the bitcoind RPC password.
    pub rpc_password_file: Option<PathBuf>,
    /// Seconds one header request gets; then the proof is unverified. Keep
    /// it below strfry's `relay.writePolicy.timeoutSeconds` (10).
    pub timeout_seconds: f64,
}

/// `[x_tag]`: an `X` tag that does not match the event's text.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct XTagRules {
    /// What a lying `X` tag gets.
    pub mismatch: Action,
}

/// `[b_tag]`: fuzzy discovery `B` tags (docs/nip-ff-3-fuzzy.md) that are
/// malformed, or whose simhash-doc value is not the event's text's.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FuzzyTagRules {
    /// What lying or malformed `B` tags get.
    pub mismatch: Action,
}

/// `[flood]`: more than `events` texts within `distance` bits of each
/// other, from at least `authors` pubkeys, within `seconds`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FloodRules {
    /// Look for floods at all.
    pub enabled: bool,
    /// Event kinds whose text is tracked.
    pub kinds: Vec<u16>,
    /// simhash-doc Hamming distance under which two texts are the same.
    pub distance: u32,
    /// More than this many such events in the window is a flood.
    pub events: usize,
    /// ... when they come from at least this many pubkeys.
    pub authors: usize,
    /// Length of the sliding window, by the relay's `receivedAt`.
    pub seconds: u64,
    /// Most events remembered (the oldest are forgotten first).
    pub window: usize,
    /// Texts of fewer words are not tracked: "gm" from a thousand keys is
    /// a greeting, and short texts' simhashes collide.
    pub min_words: usize,
    /// What an event of a flood gets.
    pub action: Action,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig {
            allow: Vec::new(),
            max_event_bytes: 128 * 1024,
            proofs: ProofRules::default(),
            x_tag: XTagRules::default(),
            b_tag: FuzzyTagRules::default(),
            flood: FloodRules::default(),
        }
    }
}

impl Default for ProofRules {
    fn default() -> Self {
        ProofRules {
            verify: true,
            unverified: Unverified::Accept,
            network: "mainnet".into(),
            header_cache: None,
            esplora: None,
            bitcoin_rpc: None,
            rpc_cookie: None,
            rpc_user: None,
            rpc_password_file: None,
            timeout_seconds: 3.0,
        }
    }
}

impl Default for XTagRules {
    fn default() -> Self {
        XTagRules { mismatch: Action::Reject }
    }
}

impl Default for FuzzyTagRules {
    fn default() -> Self {
        FuzzyTagRules { mismatch: Action::Reject }
    }
}

impl Default for FloodRules {
    fn default() -> Self {
        FloodRules {
            enabled: true,
            kinds: vec![1, 1111, 30023],
            distance: 3,
            events: 10,
            authors: 3,
            seconds: 600,
            window: 20_000,
            min_words: 8,
            action: Action::ShadowReject,
        }
    }
}

impl From<toml::de::Error> for PolicyError {
    fn from(error: toml::de::Error) -> PolicyError {
        PolicyError::Toml(error)
    }
}

/// Why a policy file was refused.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// Not TOML, an unknown key, or a value of the wrong type. The TOML
    /// error is in the message, so it is not also the `source()`: a chain
    /// printed whole says it once.
    #[error("the policy file: {0}")]
    Toml(toml::de::Error),
    /// An `allow` entry that is not a pubkey.
    #[error("allow: {0:?} is not a pubkey (64 hex digits)")]
    BadPubkey(String),
    /// `proofs.network` names no chain.
    #[error("proofs.network: {0:?} is neither mainnet nor regtest")]
    BadNetwork(String),
    /// A number out of its range.
    #[error("{key}: {why}")]
    OutOfRange {
        /// The key.
        key: &'static str,
        /// Its range.
        why: &'static str,
    },
    /// The header options of `[proofs]` cannot work together.
    #[error("[proofs]: {0}")]
    Headers(#[from] priorart_ots_net::HeaderConfigError),
}

impl PolicyError {
    /// A stable name for machines.
    pub fn reason(&self) -> &'static str {
        match self {
            PolicyError::Toml(_) => "policy_not_toml",
            PolicyError::BadPubkey(_) => "bad_pubkey",
            PolicyError::BadNetwork(_) => "bad_network",
            PolicyError::OutOfRange { .. } => "out_of_range",
            PolicyError::Headers(err) => err.reason(),
        }
    }
}

impl PolicyConfig {
    /// Parses and checks a policy file.
    pub fn from_toml(text: &str) -> Result<PolicyConfig, PolicyError> {
        let config: PolicyConfig = toml::from_str(text)?;
        config.allowed()?;
        config.network()?;
        config.check_ranges()?;
        Ok(config)
    }

    /// The allow-list, parsed.
    pub fn allowed(&self) -> Result<HashSet<PublicKey>, PolicyError> {
        self.allow
            .iter()
            .map(|hex| priorart_nip::pubkey_from_hex(hex).ok_or_else(|| PolicyError::BadPubkey(hex.clone())))
            .collect()
    }

    /// The chain proofs are checked against.
    pub fn network(&self) -> Result<Network, PolicyError> {
        self.proofs.network.parse().map_err(|_| PolicyError::BadNetwork(self.proofs.network.clone()))
    }

    fn check_ranges(&self) -> Result<(), PolicyError> {
        let out_of_range = |key, why| Err(PolicyError::OutOfRange { key, why });
        let timeout = self.proofs.timeout_seconds;
        if !(timeout > 0.0 && timeout <= 60.0) {
            return out_of_range("proofs.timeout_seconds", "more than 0 and at most 60");
        }
        if self.max_event_bytes == 0 {
            return out_of_range("max_event_bytes", "at least 1");
        }
        if self.flood.distance > 64 {
            return out_of_range("flood.distance", "at most 64");
        }
        if self.flood.window == 0 || self.flood.window > 1_000_000 {
            return out_of_range("flood.window", "from 1 to 1000000");
        }
        if self.flood.seconds == 0 {
            return out_of_range("flood.seconds", "at least 1");
        }
        Ok(())
    }

    /// The header source options of `[proofs]`, as `priorart verify` takes
    /// them.
    pub fn header_config(&self) -> Result<HeaderConfig, PolicyError> {
        Ok(HeaderConfig {
            esplora: self.proofs.esplora.clone(),
            bitcoin_rpc: self.proofs.bitcoin_rpc.clone(),
            rpc_cookie: self.proofs.rpc_cookie.clone(),
            rpc_user: self.proofs.rpc_user.clone(),
            rpc_password: None,
            rpc_password_file: self.proofs.rpc_password_file.clone(),
            header_cache: self.proofs.header_cache.clone(),
            no_header_cache: false,
            network: self.network()?,
            timeout: Duration::from_secs_f64(self.proofs.timeout_seconds),
        })
    }
}
