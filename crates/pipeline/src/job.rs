//! A job: one attestation on its way from signed to published.

use priorart_nip::nostr::prelude::{Event, EventId, PublicKey};
use priorart_nip::{Attestation, ContentRef, ProofEventError};

/// Where a job is. Every job moves forward only, in this order, except
/// that a job whose calendars all lied or failed for too long is `Failed`
/// (and a restamp takes a stuck or failed job back to `Signed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// The attestation is stored; its commitment has not reached a calendar.
    Signed,
    /// A calendar answered: the pending proof is stored.
    Stamped,
    /// The upgraded proof reaches a Bitcoin block, verified against the
    /// header source (a proof that fails is never stored).
    Anchored,
    /// The kind 1041 is built, signed and stored (never signed again).
    Built,
    /// The stored kind 1041 is on at least one relay.
    Published,
    /// Every calendar of the job lied or failed for longer than the
    /// configured time (the reason is in `last_error`); restamp it.
    Failed,
}

impl JobState {
    /// Every state, in order.
    pub const ALL: [JobState; 6] = [
        JobState::Signed,
        JobState::Stamped,
        JobState::Anchored,
        JobState::Built,
        JobState::Published,
        JobState::Failed,
    ];

    /// The stored (and printed) name.
    pub fn name(self) -> &'static str {
        match self {
            JobState::Signed => "signed",
            JobState::Stamped => "stamped",
            JobState::Anchored => "anchored",
            JobState::Built => "built",
            JobState::Published => "published",
            JobState::Failed => "failed",
        }
    }

    /// Whether nothing more happens to the job without a person (published,
    /// or failed until restamped).
    pub fn is_final(self) -> bool {
        matches!(self, JobState::Published | JobState::Failed)
    }

    /// Whether the job holds a verified Bitcoin proof.
    pub fn is_anchored(self) -> bool {
        matches!(self, JobState::Anchored | JobState::Built | JobState::Published)
    }

    /// The state of a stored name.
    pub fn from_name(name: &str) -> Option<JobState> {
        JobState::ALL.into_iter().find(|state| state.name() == name)
    }
}

/// The content event a job's kind 1041 points at: `a` (addressable) or
/// `e` with `p` (the attestation's author).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentTarget {
    /// An `a` coordinate `KIND:PUBKEY:D`.
    Address(String),
    /// An event id (hex).
    Event(EventId),
}

impl ContentTarget {
    /// The reference for the 1041, checked against the attestation: the
    /// content author must be the attestation's author.
    pub fn content_ref(&self, attestation: &Attestation) -> Result<ContentRef, ProofEventError> {
        let content = match self {
            ContentTarget::Address(coordinate) => ContentRef::parse_address(coordinate)?,
            ContentTarget::Event(id) => ContentRef::Event { id: *id, author: attestation.event().pubkey },
        };
        let author: &PublicKey = match &content {
            ContentRef::Address { author, .. } | ContentRef::Event { author, .. } => author,
        };
        if *author != attestation.event().pubkey {
            return Err(ProofEventError::AuthorMismatch {
                content: author.to_hex(),
                attestation: attestation.event().pubkey.to_hex(),
            });
        }
        Ok(content)
    }

    pub(crate) fn to_stored(&self) -> String {
        match self {
            ContentTarget::Address(coordinate) => format!("a:{coordinate}"),
            ContentTarget::Event(id) => format!("e:{}", id.to_hex()),
        }
    }

    pub(crate) fn from_stored(text: &str) -> Option<ContentTarget> {
        match text.split_once(':')? {
            ("a", coordinate) => Some(ContentTarget::Address(coordinate.to_owned())),
            ("e", id) => EventId::from_hex(id).ok().map(ContentTarget::Event),
            _ => None,
        }
    }
}

/// What a new job starts from.
#[derive(Debug, Clone)]
pub struct NewJob {
    /// The author's signed kind 1042 (checked: the type says so).
    pub attestation: Attestation,
    /// The content event the 1041 will reference.
    pub content: ContentTarget,
    /// Content kind for an `e` reference whose attestation has no `k`.
    pub content_kind: Option<u16>,
    /// A relay where the content event can be found (the 1041's hint).
    pub relay_hint: Option<String>,
    /// A content event to publish too (`protect`), or none (`serve`: the
    /// author publishes it).
    pub content_event: Option<Event>,
    /// Where the job's events are published.
    pub relays: Vec<String>,
    /// Calendars to stamp at (empty: the service's).
    pub calendars: Vec<String>,
    /// What the job is about, for people (`protect`: the file name).
    pub label: Option<String>,
}

/// A stored job.
#[derive(Debug, Clone)]
pub struct Job {
    /// Row id: the job's number in this store.
    pub id: i64,
    /// The attestation's event id (hex): the job's public name.
    pub attestation_id: String,
    /// The attestation.
    pub attestation: Attestation,
    /// The content reference.
    pub content: ContentTarget,
    /// Content kind for `e` references without `k`.
    pub content_kind: Option<u16>,
    /// The 1041's relay hint.
    pub relay_hint: Option<String>,
    /// The content event to publish (JSON), if the job carries one.
    pub content_event: Option<String>,
    /// Its id.
    pub content_event_id: Option<String>,
    /// Whether some relay has the content event.
    pub content_published: bool,
    /// Where the job's events go.
    pub relays: Vec<String>,
    /// Where the job is.
    pub state: JobState,
    /// The `.ots` proof: pending, then upgraded.
    pub proof: Option<Vec<u8>>,
    /// Calendars to stamp at (empty: the runner's), then those that
    /// answered the stamp (also allowed to upgrade it).
    pub calendars: Vec<String>,
    /// The Bitcoin block the proof reaches, as verified against the header
    /// source before anything was signed.
    pub block_height: Option<u64>,
    /// Why an upgraded proof could not be checked yet (no header for the
    /// block a calendar claims): it is retried every round.
    pub unverified: Option<String>,
    /// Since when every calendar of the job has lied or failed (seconds
    /// since 1970), if they all do.
    pub trouble_since: Option<i64>,
    /// The signed kind 1041 (JSON), once built.
    pub proof_event: Option<String>,
    /// Its id.
    pub proof_event_id: Option<String>,
    /// When the job was created (seconds since 1970).
    pub created_at: i64,
    /// When it last changed.
    pub updated_at: i64,
    /// Why its last step failed, if it did.
    pub last_error: Option<String>,
    /// What the job is about, for people.
    pub label: Option<String>,
}

/// What one relay said about one event of a job.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Publication {
    /// The event (hex id).
    pub event_id: String,
    /// The relay.
    pub relay: String,
    /// `accepted`, `duplicate`, `rejected`, `no_answer` or `not_sent`.
    pub outcome: String,
    /// The relay's message or the error.
    pub message: String,
}

impl Publication {
    /// Whether the relay has the event.
    pub fn stored(&self) -> bool {
        matches!(self.outcome.as_str(), "accepted" | "duplicate")
    }
}

/// What a calendar's last answer about a job's commitment was worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CalendarVerdict {
    /// Not in a Bitcoin block yet (an honest wait).
    Pending,
    /// Its upgraded proof verified against the header source.
    Verified,
    /// Its upgraded proof fails verification: discarded.
    Lied,
    /// It could not be asked, or answered something unusable.
    Failed,
    /// Its upgraded proof names a block the header source has no header
    /// for: kept unverified and checked again next round.
    Unverifiable,
}

impl CalendarVerdict {
    /// The stored (and printed) name.
    pub fn name(self) -> &'static str {
        match self {
            CalendarVerdict::Pending => "pending",
            CalendarVerdict::Verified => "verified",
            CalendarVerdict::Lied => "lied",
            CalendarVerdict::Failed => "failed",
            CalendarVerdict::Unverifiable => "unverifiable",
        }
    }

    /// The verdict of a stored name.
    pub fn from_name(name: &str) -> Option<CalendarVerdict> {
        [
            CalendarVerdict::Pending,
            CalendarVerdict::Verified,
            CalendarVerdict::Lied,
            CalendarVerdict::Failed,
            CalendarVerdict::Unverifiable,
        ]
        .into_iter()
        .find(|verdict| verdict.name() == name)
    }

    /// Whether this answer counts against the calendar (a lie or a failure).
    pub fn is_trouble(self) -> bool {
        matches!(self, CalendarVerdict::Lied | CalendarVerdict::Failed)
    }
}

/// A calendar's last answer about one job, kept in the job's log.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CalendarOutcome {
    /// The calendar's URL.
    pub calendar: String,
    /// What its answer was worth.
    pub verdict: CalendarVerdict,
    /// Why (the verification failure, the error, the calendar's words).
    pub detail: String,
    /// When (seconds since 1970).
    pub at: i64,
}
