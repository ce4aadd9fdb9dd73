//! What the write-policy tests share (`policy_strfry`, `policy_grpc`,
//! `relay_peers`): keys, notes, real kind 1041 proofs on a regtest chain,
//! policy files, and `priorart policy grpc` as a child process.

use priorart_nip::Attestation;
use priorart_nip::nostr::prelude::*;
pub use priorart_nip_testkit::keys;
use priorart_nip_testkit::{ServerProcess, anchored, priorart_binary};
use priorart_ots_net::HeaderCache;
use priorart_testkit::RegtestChain;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const RECEIVED_AT: u64 = 1_700_000_000;
pub const TEXT: &str = "The quick brown fox jumps over the lazy dog near the riverbank, \
    then naps under the willow while the farmer counts his sheep twice.";

/// A kind 1 note of `author` with `tags`.
pub fn note(author: &Keys, text: &str, tags: &[&[&str]]) -> Event {
    let tags = tags.iter().map(|tag| Tag::parse(tag.iter().copied()).expect("tag"));
    EventBuilder::new(Kind::TextNote, text).tags(tags).finalize(author).expect("signs")
}

/// A kind 1041 of `author`'s attestation of [`TEXT`], whose proof reaches a
/// block of `chain`.
pub fn proof_event(chain: &mut RegtestChain, author: &Keys) -> Event {
    let x = priorart_fingerprint::minhash_equality_v1(TEXT);
    let at = Timestamp::from_secs(RECEIVED_AT);
    let attestation = Attestation::sign(author, x, Some(1), at).expect("signs");
    anchored(chain, &attestation, EventId::from_byte_array([4; 32]), &keys(0x22), at).event
}

/// `proof` with its tags (and so its attestation) but the content (the
/// `.ots` proof) of another attestation's real proof: the verifier refuses
/// it with `proof_for_other_digest`.
pub fn forged_proof_event(proof: &Event) -> Event {
    let mut other_chain = RegtestChain::new();
    let other = proof_event(&mut other_chain, &keys(0x44));
    EventBuilder::new(Kind::from_u16(1041), other.content.clone())
        .tags(proof.tags.iter().cloned())
        .finalize(&keys(0x33))
        .expect("signs")
}

/// Every header of `chain`, cached in `dir` as the policy reads them.
pub fn cache_headers(chain: &RegtestChain, dir: &Path) {
    let cache = HeaderCache::in_dir(dir.to_owned());
    for height in 0..=chain.tip_height() {
        cache.put(height, chain.header(height).expect("header")).expect("caches");
    }
}

/// A policy file in `dir` checking proofs on regtest against `cache`.
pub fn policy_file(dir: &Path, cache: &Path, extra: &str) -> PathBuf {
    let path = dir.join("policy.toml");
    let text = format!(
        "{extra}\n[proofs]\nnetwork = \"regtest\"\nheader_cache = {:?}\n",
        cache.display().to_string()
    );
    std::fs::write(&path, text).expect("writes");
    path
}

/// `priorart policy grpc --listen 127.0.0.1:0 --config FILE`; killed when dropped.
pub struct GrpcPolicy {
    _server: ServerProcess,
    /// `host:port` it listens on.
    pub address: String,
}

impl GrpcPolicy {
    pub fn start(config: &Path) -> GrpcPolicy {
        let mut command = Command::new(priorart_binary());
        command.args(["policy", "grpc", "--listen", "127.0.0.1:0", "--config"]).arg(config);
        let server = ServerProcess::start(&mut command).expect("priorart policy grpc prints its address");
        let address = server.url.strip_prefix("http://").expect("an http:// URL").to_owned();
        GrpcPolicy { _server: server, address }
    }
}
