//! The calendar protocol without the network: what to send a calendar and
//! what to make of its answers. `priorart-ots-net` does the HTTP; everything
//! that decides a proof's bytes is here, so it can be tested (and reused by a
//! service that batches for many clients) without a socket.
//!
//! Calendars are servers that aggregate digests into Bitcoin transactions.
//! Stamping submits one digest (`POST /digest`, the root of a [`StampBatch`]);
//! upgrading later fetches the complete proof of each commitment a proof is
//! still waiting for ([`pending_upgrades`], `GET /timestamp/<hex>`), and
//! [`calendar_answer`] decides what an answer is worth.

use crate::attestation::Attestation;
use crate::codec::DecodeError;
use crate::detached::DetachedTimestamp;
use crate::op::{HashOp, Op};
use crate::timestamp::Timestamp;

/// The calendars stamping uses unless told otherwise (the reference's).
pub const DEFAULT_CALENDARS: [&str; 4] = [
    "https://a.pool.opentimestamps.org",
    "https://b.pool.opentimestamps.org",
    "https://a.pool.eternitywall.com",
    "https://ots.btc.catallaxy.com",
];

/// Calendars an upgrade contacts for a pending attestation (the reference's
/// allow-list; `*` matches any run of host characters).
pub const DEFAULT_ALLOWLIST: [&str; 3] = [
    "https://*.calendar.opentimestamps.org",
    "https://*.calendar.eternitywall.com",
    "https://*.calendar.catallaxy.com",
];

/// Largest calendar answer read (the reference's limit).
pub const MAX_CALENDAR_ANSWER: u64 = 10_000;

/// The media type calendars speak (`Accept` header).
pub const CALENDAR_MEDIA_TYPE: &str = "application/vnd.opentimestamps.v1";

/// Bytes of the random nonce appended to each digest of a batch.
pub const NONCE_LEN: usize = 16;

/// The reference's merkle tree (`make_merkle_tree` with `cat_sha256`):
/// pairs are hashed left to right, an odd last node moves up unchanged.
#[derive(Debug, Clone)]
pub struct MerkleTree {
    paths: Vec<Vec<Op>>,
    root: Vec<u8>,
}

impl MerkleTree {
    /// The tree over `leaves` (messages, in order). No leaves: an empty root.
    pub fn new(leaves: Vec<Vec<u8>>) -> MerkleTree {
        let mut paths = vec![Vec::new(); leaves.len()];
        // Each entry: the message and the leaves below it.
        let mut level: Vec<(Vec<u8>, Vec<usize>)> =
            leaves.into_iter().enumerate().map(|(index, msg)| (msg, vec![index])).collect();
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            let mut nodes = level.into_iter();
            while let Some((left, mut left_leaves)) = nodes.next() {
                let Some((right, right_leaves)) = nodes.next() else {
                    next.push((left, left_leaves));
                    break;
                };
                for &leaf in &left_leaves {
                    paths[leaf].extend([Op::Append(right.clone()), Op::Hash(HashOp::Sha256)]);
                }
                for &leaf in &right_leaves {
                    paths[leaf].extend([Op::Prepend(left.clone()), Op::Hash(HashOp::Sha256)]);
                }
                let parent = HashOp::Sha256.hash(&[&left[..], &right[..]].concat());
                left_leaves.extend(right_leaves);
                next.push((parent, left_leaves));
            }
            level = next;
        }
        let root = level.pop().map(|(root, _)| root).unwrap_or_default();
        MerkleTree { paths, root }
    }

    /// The root message.
    pub fn root(&self) -> &[u8] {
        &self.root
    }

    /// The ops from leaf `index`'s message to the root (`None` past the end).
    pub fn path(&self, index: usize) -> Option<&[Op]> {
        self.paths.get(index).map(Vec::as_slice)
    }

    /// Every leaf's path, in leaf order.
    pub fn into_paths(self) -> Vec<Vec<Op>> {
        self.paths
    }
}

/// One stamping round: SHA-256 digests, each with its own random nonce (so a
/// proof reveals nothing about its neighbours), under one merkle tree whose
/// root is the single digest sent to every calendar.
#[derive(Debug, Clone)]
pub struct StampBatch {
    leaves: Vec<([u8; 32], [u8; NONCE_LEN])>,
    tree: MerkleTree,
}

impl StampBatch {
    /// The batch of `digests`, `nonces[i]` going with `digests[i]` (the
    /// caller draws them from the operating system's random source).
    ///
    /// # Panics
    /// If the two slices differ in length (a caller bug, not input).
    pub fn new(digests: &[[u8; 32]], nonces: &[[u8; NONCE_LEN]]) -> StampBatch {
        assert_eq!(digests.len(), nonces.len(), "one nonce per digest");
        let leaves: Vec<_> = digests.iter().copied().zip(nonces.iter().copied()).collect();
        let messages =
            leaves.iter().map(|(digest, nonce)| HashOp::Sha256.hash(&[&digest[..], &nonce[..]].concat()));
        StampBatch { tree: MerkleTree::new(messages.collect()), leaves }
    }

    /// What to `POST /digest` to every calendar.
    pub fn root(&self) -> &[u8] {
        self.tree.root()
    }

    /// One proof per digest, in input order, given the calendars' answers for
    /// the root merged into one timestamp: digest → append nonce → sha256 →
    /// merkle path → `answers`.
    pub fn proofs(&self, answers: &Timestamp) -> Vec<DetachedTimestamp> {
        self.leaves
            .iter()
            .zip(&self.tree.paths)
            .map(|((digest, nonce), path)| {
                let mut ops = vec![Op::Append(nonce.to_vec()), Op::Hash(HashOp::Sha256)];
                ops.extend(path.iter().cloned());
                DetachedTimestamp::new(
                    HashOp::Sha256,
                    digest.to_vec(),
                    Timestamp::from_path(ops, answers.clone()),
                )
            })
            .collect()
    }
}

/// A commitment a proof waits on, and the calendar that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingUpgrade {
    /// The message the calendar was given, to ask it about.
    pub commitment: Vec<u8>,
    /// The calendar's URL, as the pending attestation records it.
    pub calendar: String,
}

/// Every pending attestation of `proof` whose node leads to no Bitcoin
/// attestation yet: what an upgrade asks calendars for.
pub fn pending_upgrades(proof: &DetachedTimestamp) -> Vec<PendingUpgrade> {
    let mut found = Vec::new();
    proof.timestamp().walk(proof.file_digest(), &mut |msg, node| {
        for attestation in node.attestations() {
            if let Attestation::Pending { uri } = attestation
                && !node.has_bitcoin_attestation()
            {
                found.push(PendingUpgrade { commitment: msg.to_vec(), calendar: uri.clone() });
            }
        }
    });
    found
}

/// A calendar's answer to `GET /timestamp/<commitment>`, decoded under the
/// usual limits: `Ok(None)` when it still holds pending attestations only.
pub fn calendar_answer(body: &[u8], commitment: &[u8]) -> Result<Option<Timestamp>, DecodeError> {
    let timestamp = Timestamp::from_bytes(body, commitment)?;
    Ok(timestamp.has_bitcoin_attestation().then_some(timestamp))
}

/// A calendar's error message, cut to 160 bytes of harmless characters (as
/// the reference does), so a hostile server cannot write to our terminal.
pub fn sanitize_message(body: &[u8]) -> String {
    const ALLOWED: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789#-.,; ";
    body.iter().take(160).map(|&byte| if ALLOWED.contains(&byte) { byte as char } else { '_' }).collect()
}

/// Whether two calendar URLs name the same calendar (trailing slashes aside).
pub fn same_calendar(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// Whether `url` matches an allow-list `pattern`: same scheme and path, and
/// a host (with port) matching the pattern's, where `*` stands for any run
/// of characters. A pattern without a scheme allows both http and https.
pub fn url_matches(pattern: &str, url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once("://") else { return false };
    let (pattern_schemes, pattern_rest) = match pattern.split_once("://") {
        Some((scheme, rest)) => (vec![scheme], rest),
        None => (vec!["http", "https"], pattern),
    };
    let split = |text: &str| -> (String, String) {
        let (host, path) = text.split_once('/').unwrap_or((text, ""));
        (host.to_owned(), path.trim_end_matches('/').to_owned())
    };
    let (host, path) = split(rest);
    let (pattern_host, pattern_path) = split(pattern_rest);
    pattern_schemes.contains(&scheme)
        && path == pattern_path
        && glob(pattern_host.as_bytes(), host.as_bytes())
}

/// `*`-only glob match, iterative (no backtracking blow-up).
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowlist_matches_like_the_reference() {
        let pattern = "https://*.calendar.opentimestamps.org";
        assert!(url_matches(pattern, "https://alice.btc.calendar.opentimestamps.org"));
        assert!(!url_matches(pattern, "http://alice.btc.calendar.opentimestamps.org"));
        assert!(!url_matches(pattern, "https://evil.org/x.calendar.opentimestamps.org"));
        assert!(!url_matches(pattern, "https://calendar.opentimestamps.org.evil.org"));
        assert!(url_matches("127.0.0.1:*", "http://127.0.0.1:8080"));
    }

    #[test]
    fn merkle_tree_paths_lead_to_the_root() {
        for count in 1..=7 {
            let messages: Vec<Vec<u8>> = (0..count).map(|i| vec![i as u8; 32]).collect();
            let tree = MerkleTree::new(messages.clone());
            for (index, mut msg) in messages.into_iter().enumerate() {
                for op in tree.path(index).unwrap() {
                    msg = op.apply(&msg).unwrap();
                }
                assert_eq!(msg, tree.root(), "{count} leaves, leaf {index}");
            }
        }
    }

    #[test]
    fn batch_proofs_commit_each_digest_to_the_root() {
        let digests: Vec<[u8; 32]> = (0..5).map(|i| [i; 32]).collect();
        let nonces: Vec<[u8; NONCE_LEN]> = (0..5).map(|i| [100 + i; NONCE_LEN]).collect();
        let batch = StampBatch::new(&digests, &nonces);
        let mut answers = Timestamp::default();
        answers.add_attestation(Attestation::Pending { uri: "https://calendar.example".into() });
        for (proof, digest) in batch.proofs(&answers).iter().zip(&digests) {
            assert_eq!(proof.file_digest(), digest);
            let reached: Vec<_> = proof.attestations().into_iter().map(|found| found.commitment).collect();
            assert_eq!(reached, vec![batch.root().to_vec()]);
        }
    }
}
