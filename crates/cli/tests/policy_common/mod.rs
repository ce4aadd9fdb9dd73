//! What the write-policy tests share (`policy_strfry`, `policy_grpc`,
//! `relay_peers`): keys, notes, real kind 1041 proofs on a regtest chain,
//! policy files, and `priorart policy grpc` as a child process.

use priorart_nip::nostr::prelude::*;
use priorart_nip::{Attestation, ContentRef, ProofEvent};
use priorart_ots_net::HeaderCache;
use priorart_testkit::RegtestChain;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub const RECEIVED_AT: u64 = 1_700_000_000;
pub const TEXT: &str = "The quick brown fox jumps over the lazy dog near the riverbank, \
    then naps under the willow while the farmer counts his sheep twice.";

/// A fixed key per `n`.
pub fn keys(n: u8) -> Keys {
    Keys::parse(&format!("{n:02x}").repeat(32)).expect("valid secret")
}

/// A kind 1 note of `author` with `tags`.
pub fn note(author: &Keys, text: &str, tags: &[&[&str]]) -> Event {
    let tags = tags.iter().map(|tag| Tag::parse(tag.iter().copied()).expect("tag"));
    EventBuilder::new(Kind::TextNote, text).tags(tags).finalize(author).expect("signs")
}

/// A kind 1041 of `author`'s attestation of [`TEXT`], whose proof reaches a
/// block of `chain`.
pub fn proof_event(chain: &mut RegtestChain, author: &Keys) -> Event {
    let x = priorart_fingerprint::minhash_equality_v1(TEXT);
    let attestation =
        Attestation::sign(author, x, Some(1), Timestamp::from_secs(RECEIVED_AT)).expect("signs");
    let (_, proof) = chain.stamp(&attestation.commitment().0);
    let content = ContentRef::Event { id: EventId::from_byte_array([4; 32]), author: author.public_key() };
    let spec = ProofEvent {
        attestation: &attestation,
        content,
        content_kind: Some(1),
        relay_hint: None,
        proof: &proof,
        created_at: Timestamp::from_secs(RECEIVED_AT),
    };
    spec.sign(&keys(0x22)).expect("builds")
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
    child: Child,
    /// `host:port` it listens on.
    pub address: String,
}

impl GrpcPolicy {
    pub fn start(config: &Path) -> GrpcPolicy {
        let mut child = Command::new(env!("CARGO_BIN_EXE_priorart"))
            .args(["policy", "grpc", "--listen", "127.0.0.1:0", "--config"])
            .arg(config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        let stderr = child.stderr.take().expect("stderr");
        let (send, address) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on http://") {
                    let _ = send.send(line[at + "listening on http://".len()..].trim().to_owned());
                }
            }
        });
        let address =
            address.recv_timeout(Duration::from_secs(30)).expect("priorart policy grpc prints its address");
        GrpcPolicy { child, address }
    }
}

impl Drop for GrpcPolicy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
