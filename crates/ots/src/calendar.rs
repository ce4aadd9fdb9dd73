//! Calendars: servers that aggregate digests into Bitcoin transactions.
//! `stamp` submits a digest (`POST /digest`), `upgrade` later fetches the
//! complete proof (`GET /timestamp/<commitment hex>`).
//!
//! Calendar answers are untrusted input: they go through the same decoder
//! and limits as any proof, are capped at 10,000 bytes (as the reference
//! caps them), must arrive within a timeout, and a calendar that answers
//! garbage or hangs fails alone, never the whole command.

use crate::attestation::Attestation;
use crate::codec::DecodeError;
use crate::detached::DetachedTimestamp;
use crate::http::{Http, HttpError, join};
use crate::op::{HashOp, Op, hex};
use crate::timestamp::{MergeError, Timestamp};
use std::time::Duration;

/// The calendars `stamp` uses unless told otherwise (the reference's).
pub const DEFAULT_CALENDARS: [&str; 4] = [
    "https://a.pool.opentimestamps.org",
    "https://b.pool.opentimestamps.org",
    "https://a.pool.eternitywall.com",
    "https://ots.btc.catallaxy.com",
];

/// Calendars `upgrade` contacts for a pending attestation (the reference's
/// allow-list; `*` matches any run of host characters).
pub const DEFAULT_ALLOWLIST: [&str; 3] = [
    "https://*.calendar.opentimestamps.org",
    "https://*.calendar.eternitywall.com",
    "https://*.calendar.catallaxy.com",
];

/// Largest calendar answer read (the reference's limit).
pub const MAX_CALENDAR_ANSWER: u64 = 10_000;

const ACCEPT: (&str, &str) = ("Accept", "application/vnd.opentimestamps.v1");

/// Why one calendar failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CalendarError {
    #[error(transparent)]
    Http(#[from] HttpError),
    #[error("{url}: HTTP status {status}: {message}")]
    Status { url: String, status: u16, message: String },
    #[error("{url}: invalid timestamp: {error}")]
    Invalid { url: String, error: DecodeError },
    #[error("{url}: answer cannot be merged: {error}")]
    Merge { url: String, error: MergeError },
}

/// Options for [`stamp_digests`].
#[derive(Debug, Clone)]
pub struct StampOptions {
    /// Calendar base URLs; each gets one `POST /digest`, in parallel.
    pub calendars: Vec<String>,
    /// How many calendars must answer for the stamp to succeed.
    pub min_answers: usize,
    /// Time each calendar gets.
    pub timeout: Duration,
}

impl Default for StampOptions {
    fn default() -> Self {
        StampOptions {
            calendars: DEFAULT_CALENDARS.iter().map(|url| url.to_string()).collect(),
            min_answers: 2,
            timeout: Duration::from_secs(5),
        }
    }
}

/// The proofs made by [`stamp_digests`], one per digest, in input order.
#[derive(Debug, Clone)]
pub struct Stamped {
    pub proofs: Vec<DetachedTimestamp>,
    /// Calendars that answered.
    pub answered: Vec<String>,
    /// Calendars that did not, and why.
    pub failed: Vec<CalendarError>,
}

/// Why stamping failed as a whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StampError {
    #[error("nothing to stamp")]
    NoDigests,
    #[error("need at least {required} calendar(s) but only {available} were given")]
    BadMinimum { required: usize, available: usize },
    #[error("only {answered} of the {required} required calendar(s) answered: {}", describe(failed))]
    TooFewAnswers { answered: usize, required: usize, failed: Vec<CalendarError> },
    #[error("no random numbers from the operating system: {0}")]
    Random(String),
}

fn describe(errors: &[CalendarError]) -> String {
    errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// Stamps SHA-256 digests: a random 16-byte nonce per digest (so a proof
/// reveals nothing about its neighbours), one merkle tree over all of them,
/// its root sent once to every calendar in parallel.
pub fn stamp_digests(digests: &[[u8; 32]], options: &StampOptions) -> Result<Stamped, StampError> {
    if digests.is_empty() {
        return Err(StampError::NoDigests);
    }
    let available = options.calendars.len();
    if options.min_answers == 0 || options.min_answers > available {
        return Err(StampError::BadMinimum { required: options.min_answers, available });
    }
    let mut leaves = Vec::with_capacity(digests.len());
    for digest in digests {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).map_err(|err| StampError::Random(err.to_string()))?;
        leaves.push(Leaf { digest: digest.to_vec(), nonce });
    }
    let leaf_messages =
        leaves.iter().map(|leaf| HashOp::Sha256.hash(&[&leaf.digest[..], &leaf.nonce].concat()));
    let tree = MerkleTree::new(leaf_messages.collect());
    let http = Http::new(options.timeout);
    let answers: Vec<Result<Timestamp, CalendarError>> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            options.calendars.iter().map(|url| scope.spawn(|| submit(&http, url, &tree.root))).collect();
        handles
            .into_iter()
            .zip(&options.calendars)
            .map(|(handle, url)| {
                handle.join().unwrap_or_else(|_| {
                    Err(CalendarError::Status {
                        url: url.clone(),
                        status: 0,
                        message: "client thread failed".into(),
                    })
                })
            })
            .collect()
    });
    let mut root = Timestamp::default();
    let mut answered = Vec::new();
    let mut failed = Vec::new();
    for (url, answer) in options.calendars.iter().zip(answers) {
        match answer.and_then(|answer| {
            root.merge(answer).map_err(|error| CalendarError::Merge { url: url.clone(), error })
        }) {
            Ok(()) => answered.push(url.clone()),
            Err(err) => failed.push(err),
        }
    }
    if answered.len() < options.min_answers {
        return Err(StampError::TooFewAnswers {
            answered: answered.len(),
            required: options.min_answers,
            failed,
        });
    }
    let proofs =
        leaves.iter().enumerate().map(|(index, leaf)| tree.proof(index, leaf, root.clone())).collect();
    Ok(Stamped { proofs, answered, failed })
}

fn submit(http: &Http, url: &str, digest: &[u8]) -> Result<Timestamp, CalendarError> {
    let endpoint = join(url, "digest");
    let answer = http.post(&endpoint, &[ACCEPT], digest, MAX_CALENDAR_ANSWER)?;
    if answer.status != 200 {
        return Err(CalendarError::Status {
            url: endpoint,
            status: answer.status,
            message: sanitize(&answer.body),
        });
    }
    Timestamp::from_bytes(&answer.body, digest)
        .map_err(|error| CalendarError::Invalid { url: endpoint, error })
}

struct Leaf {
    digest: Vec<u8>,
    nonce: [u8; 16],
}

/// The reference's merkle tree (`make_merkle_tree` with `cat_sha256`):
/// pairs are hashed left to right, an odd last node moves up unchanged.
pub(crate) struct MerkleTree {
    /// For each leaf, the ops from its message to the root.
    pub(crate) paths: Vec<Vec<Op>>,
    pub(crate) root: Vec<u8>,
}

impl MerkleTree {
    pub(crate) fn new(leaves: Vec<Vec<u8>>) -> MerkleTree {
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

    /// The proof for leaf `index`: digest → append nonce → sha256 → path →
    /// the calendars' answers for the root.
    fn proof(&self, index: usize, leaf: &Leaf, root: Timestamp) -> DetachedTimestamp {
        let mut ops = vec![Op::Append(leaf.nonce.to_vec()), Op::Hash(HashOp::Sha256)];
        ops.extend(self.paths[index].iter().cloned());
        DetachedTimestamp::new(HashOp::Sha256, leaf.digest.clone(), Timestamp::from_path(ops, root))
    }
}

/// Options for [`upgrade`].
#[derive(Debug, Clone)]
pub struct UpgradeOptions {
    /// Calendar URL patterns that may be contacted (`*` matches host parts).
    pub allowlist: Vec<String>,
    /// `(from, to)`: ask `to` for attestations pending at calendar `from`
    /// (mirrors, tests). The allow-list applies to `from`.
    pub calendar_map: Vec<(String, String)>,
    pub timeout: Duration,
}

impl Default for UpgradeOptions {
    fn default() -> Self {
        UpgradeOptions {
            allowlist: DEFAULT_ALLOWLIST.iter().map(|url| url.to_string()).collect(),
            calendar_map: Vec::new(),
            timeout: Duration::from_secs(10),
        }
    }
}

/// What [`upgrade`] did.
#[derive(Debug, Clone, Default)]
pub struct UpgradeReport {
    /// Whether the proof gained anything.
    pub changed: bool,
    /// Calendars whose answer was merged.
    pub upgraded: Vec<String>,
    /// Calendars that have no complete proof yet (and their message).
    pub still_pending: Vec<(String, String)>,
    /// Calendars not on the allow-list, so not contacted.
    pub not_allowed: Vec<String>,
    /// Calendars that failed.
    pub errors: Vec<CalendarError>,
}

/// Asks the calendar of every pending attestation that has no Bitcoin
/// attestation below it for the complete proof, and merges the answers.
pub fn upgrade(proof: &mut DetachedTimestamp, options: &UpgradeOptions) -> UpgradeReport {
    let mut report = UpgradeReport::default();
    let http = Http::new(options.timeout);
    for (commitment, uri) in pending_to_upgrade(proof) {
        if !options.allowlist.iter().any(|pattern| url_matches(pattern, &uri)) {
            report.not_allowed.push(uri);
            continue;
        }
        let base = options
            .calendar_map
            .iter()
            .find(|(from, _)| same_calendar(from, &uri))
            .map_or(uri.as_str(), |(_, to)| to.as_str());
        match fetch_upgrade(&http, base, &commitment) {
            Ok(Some(answer)) => match proof.merge_at(&commitment, answer) {
                Ok(()) => {
                    report.changed = true;
                    report.upgraded.push(uri);
                }
                Err(error) => report.errors.push(CalendarError::Merge { url: base.to_owned(), error }),
            },
            Ok(None) => report.still_pending.push((uri, "not yet in a Bitcoin block".into())),
            Err(CalendarError::Status { status: 404, message, .. }) => {
                report.still_pending.push((uri, message))
            }
            Err(err) => report.errors.push(err),
        }
    }
    report
}

/// `(commitment, calendar)` of every pending attestation whose node leads
/// to no Bitcoin attestation yet.
fn pending_to_upgrade(proof: &DetachedTimestamp) -> Vec<(Vec<u8>, String)> {
    let mut found = Vec::new();
    proof.timestamp().walk(proof.file_digest(), &mut |msg, node| {
        for attestation in node.attestations() {
            if let Attestation::Pending { uri } = attestation
                && !has_bitcoin_attestation(node)
            {
                found.push((msg.to_vec(), uri.clone()));
            }
        }
    });
    found
}

pub(crate) fn has_bitcoin_attestation(node: &Timestamp) -> bool {
    node.attestations().any(|a| matches!(a, Attestation::Bitcoin { .. }))
        || node.ops().any(|(_, child)| has_bitcoin_attestation(child))
}

/// `Ok(None)` when the calendar answers with pending attestations only.
fn fetch_upgrade(http: &Http, base: &str, commitment: &[u8]) -> Result<Option<Timestamp>, CalendarError> {
    let url = join(base, &format!("timestamp/{}", hex(commitment)));
    let answer = http.get(&url, &[ACCEPT], MAX_CALENDAR_ANSWER)?;
    if answer.status != 200 {
        return Err(CalendarError::Status { url, status: answer.status, message: sanitize(&answer.body) });
    }
    let timestamp = Timestamp::from_bytes(&answer.body, commitment)
        .map_err(|error| CalendarError::Invalid { url, error })?;
    Ok(has_bitcoin_attestation(&timestamp).then_some(timestamp))
}

/// A calendar's error message, cut to 160 bytes of harmless characters (as
/// the reference does), so a hostile server cannot write to our terminal.
fn sanitize(body: &[u8]) -> String {
    const ALLOWED: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789#-.,; ";
    body.iter().take(160).map(|&byte| if ALLOWED.contains(&byte) { byte as char } else { '_' }).collect()
}

fn same_calendar(a: &str, b: &str) -> bool {
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
                for op in &tree.paths[index] {
                    msg = op.apply(&msg).unwrap();
                }
                assert_eq!(msg, tree.root, "{count} leaves, leaf {index}");
            }
        }
    }
}
