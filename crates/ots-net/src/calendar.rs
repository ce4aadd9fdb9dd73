//! Calendar round trips: [`stamp_digests`] (`POST /digest`, every calendar
//! in parallel) and [`upgrade`] (`GET /timestamp/<commitment hex>`). What
//! is sent and what an answer is worth is decided by `priorart_ots::calendar`;
//! this module only carries bytes.
//!
//! Calendar answers are untrusted input: they go through the same decoder
//! and limits as any proof, are capped at 10,000 bytes (as the reference
//! caps them), must arrive within a timeout, and a calendar that answers
//! garbage or hangs fails alone, never the whole command.

use crate::http::{Http, HttpError, join};
use priorart_ots::calendar::{
    CALENDAR_MEDIA_TYPE, DEFAULT_ALLOWLIST, DEFAULT_CALENDARS, MAX_CALENDAR_ANSWER, NONCE_LEN,
    calendar_answer, pending_upgrades, same_calendar, sanitize_message, url_matches,
};
use priorart_ots::{DecodeError, DetachedTimestamp, MergeError, StampBatch, Timestamp};
use std::collections::HashMap;
use std::time::Duration;

const ACCEPT: (&str, &str) = ("Accept", CALENDAR_MEDIA_TYPE);

/// Why one calendar failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum CalendarError {
    /// The exchange itself failed (connection, timeout, size).
    #[error(transparent)]
    Http(#[from] HttpError),
    /// The calendar answered with an error status.
    #[error("{url}: HTTP status {status}: {message}")]
    Status { url: String, status: u16, message: String },
    /// The answer is not a timestamp.
    #[error("{url}: invalid timestamp")]
    Invalid {
        url: String,
        #[source]
        error: DecodeError,
    },
    /// The answer is a timestamp that cannot join the proof.
    #[error("{url}: answer cannot be merged")]
    Merge {
        url: String,
        #[source]
        error: MergeError,
    },
    /// The thread talking to this calendar panicked (a bug, not the
    /// calendar's answer).
    #[error("{url}: the client thread failed")]
    ClientFailed { url: String },
}

reason_names!(CalendarError {
    Http => "http",
    Status => "status",
    Invalid => "invalid",
    Merge => "merge",
    ClientFailed => "client_failed",
});

impl CalendarError {
    /// Whether the calendar's name did not resolve (see
    /// [`HttpError::name_not_resolved`]).
    pub fn name_not_resolved(&self) -> bool {
        matches!(self, CalendarError::Http(http) if http.name_not_resolved())
    }

    /// One short line: the URL asked and what went wrong, with no chain
    /// of wrappers ("https://a.example/digest: name not resolved").
    pub fn brief(&self) -> String {
        match self {
            CalendarError::Http(http) => format!("{}: {}", http.url(), http.brief()),
            other => other.to_string(),
        }
    }
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
    /// One proof per digest, in input order.
    pub proofs: Vec<DetachedTimestamp>,
    /// Calendars that answered.
    pub answered: Vec<String>,
    /// Calendars that did not, and why.
    pub failed: Vec<CalendarError>,
}

/// Why stamping failed as a whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum StampError {
    /// No digest was given.
    #[error("nothing to stamp")]
    NoDigests,
    /// `min_answers` is 0 or more than the calendars given.
    #[error("need at least {required} calendar(s) but only {available} were given")]
    BadMinimum { required: usize, available: usize },
    /// Fewer calendars answered than required.
    #[error("only {answered} of the {required} required calendar(s) answered: {}", describe(failed))]
    TooFewAnswers { answered: usize, required: usize, failed: Vec<CalendarError> },
    /// The operating system gave no random bytes for the nonces.
    #[error("no random numbers from the operating system: {0}")]
    Random(String),
}

reason_names!(StampError {
    NoDigests => "no_digests",
    BadMinimum => "bad_minimum",
    TooFewAnswers => "too_few_answers",
    Random => "random",
});

fn describe(errors: &[CalendarError]) -> String {
    errors.iter().map(|error| error_chain(error)).collect::<Vec<_>>().join("; ")
}

/// An error and its causes on one line, each once: how a calendar's
/// failure is shown where it is one line of a list (its `Display` alone
/// leaves the cause, an [`HttpError`]'s transport error, to its `source`).
pub use priorart_reason::error_chain;

/// Stamps SHA-256 digests: a random nonce per digest, one merkle tree over
/// all of them ([`StampBatch`]), its root sent once to every calendar in
/// parallel.
pub fn stamp_digests(digests: &[[u8; 32]], options: &StampOptions) -> Result<Stamped, StampError> {
    if digests.is_empty() {
        return Err(StampError::NoDigests);
    }
    let available = options.calendars.len();
    if options.min_answers == 0 || options.min_answers > available {
        return Err(StampError::BadMinimum { required: options.min_answers, available });
    }
    let mut nonces = vec![[0u8; NONCE_LEN]; digests.len()];
    for nonce in &mut nonces {
        getrandom::fill(nonce).map_err(|err| StampError::Random(err.to_string()))?;
    }
    let batch = StampBatch::new(digests, &nonces);
    let (answers, answered, failed) = submit_everywhere(batch.root(), &options.calendars, options.timeout);
    if answered.len() < options.min_answers {
        return Err(StampError::TooFewAnswers {
            answered: answered.len(),
            required: options.min_answers,
            failed,
        });
    }
    Ok(Stamped { proofs: batch.proofs(&answers), answered, failed })
}

/// Posts `digest` to every calendar at once; merges the answers into one
/// timestamp and returns it with who answered and who failed.
pub fn submit_everywhere(
    digest: &[u8],
    calendars: &[String],
    timeout: Duration,
) -> (Timestamp, Vec<String>, Vec<CalendarError>) {
    let http = Http::new(timeout);
    let answers: Vec<Result<Timestamp, CalendarError>> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            calendars.iter().map(|url| scope.spawn(|| submit(&http, url, digest))).collect();
        handles
            .into_iter()
            .zip(calendars)
            .map(|(handle, url)| {
                handle.join().unwrap_or_else(|_| Err(CalendarError::ClientFailed { url: url.clone() }))
            })
            .collect()
    });
    let mut merged = Timestamp::default();
    let mut answered = Vec::new();
    let mut failed = Vec::new();
    for (url, answer) in calendars.iter().zip(answers) {
        match answer.and_then(|answer| {
            merged.merge(answer).map_err(|error| CalendarError::Merge { url: url.clone(), error })
        }) {
            Ok(()) => answered.push(url.clone()),
            Err(err) => failed.push(err),
        }
    }
    (merged, answered, failed)
}

fn submit(http: &Http, url: &str, digest: &[u8]) -> Result<Timestamp, CalendarError> {
    let endpoint = join(url, "digest");
    let answer = http.post(&endpoint, &[ACCEPT], digest, MAX_CALENDAR_ANSWER)?;
    if answer.status != 200 {
        return Err(CalendarError::Status {
            url: endpoint,
            status: answer.status,
            message: sanitize_message(&answer.body),
        });
    }
    Timestamp::from_bytes(&answer.body, digest)
        .map_err(|error| CalendarError::Invalid { url: endpoint, error })
}

/// Options for [`upgrade`].
#[derive(Debug, Clone)]
pub struct UpgradeOptions {
    /// Calendar URL patterns that may be contacted (`*` matches host parts).
    pub allowlist: Vec<String>,
    /// `(from, to)`: ask `to` for attestations pending at calendar `from`
    /// (mirrors, tests). The allow-list applies to `from`.
    pub calendar_map: Vec<(String, String)>,
    /// Time each calendar gets.
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
    upgrade_all(std::slice::from_mut(proof), options).pop().unwrap_or_default()
}

/// [`upgrade`] for many proofs at once, one report per proof. Each
/// calendar is asked about each pending commitment once: proofs stamped in
/// one batch share the calendar's commitment, so a batch of any size costs
/// one request per calendar.
pub fn upgrade_all(proofs: &mut [DetachedTimestamp], options: &UpgradeOptions) -> Vec<UpgradeReport> {
    let http = Http::new(options.timeout);
    let mut answers = HashMap::new();
    proofs.iter_mut().map(|proof| upgrade_one(&http, proof, options, &mut answers)).collect()
}

/// A calendar's answer about one commitment, kept for the other proofs of a batch.
type Answers = HashMap<(String, Vec<u8>), Result<Option<Timestamp>, CalendarError>>;

fn upgrade_one(
    http: &Http,
    proof: &mut DetachedTimestamp,
    options: &UpgradeOptions,
    answers: &mut Answers,
) -> UpgradeReport {
    let mut report = UpgradeReport::default();
    for pending in pending_upgrades(proof) {
        let uri = pending.calendar;
        if !options.allowlist.iter().any(|pattern| url_matches(pattern, &uri)) {
            report.not_allowed.push(uri);
            continue;
        }
        let base = options
            .calendar_map
            .iter()
            .find(|(from, _)| same_calendar(from, &uri))
            .map_or(uri.as_str(), |(_, to)| to.as_str());
        let answer = answers
            .entry((base.to_owned(), pending.commitment.clone()))
            .or_insert_with(|| fetch_upgrade(http, base, &pending.commitment))
            .clone();
        match answer {
            Ok(Some(answer)) => match proof.merge_at(&pending.commitment, answer) {
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

/// `Ok(None)` when the calendar answers with pending attestations only.
fn fetch_upgrade(http: &Http, base: &str, commitment: &[u8]) -> Result<Option<Timestamp>, CalendarError> {
    let url = join(base, &format!("timestamp/{}", priorart_ots::hex::encode(commitment)));
    let answer = http.get(&url, &[ACCEPT], MAX_CALENDAR_ANSWER)?;
    if answer.status != 200 {
        return Err(CalendarError::Status {
            url,
            status: answer.status,
            message: sanitize_message(&answer.body),
        });
    }
    calendar_answer(&answer.body, commitment).map_err(|error| CalendarError::Invalid { url, error })
}
