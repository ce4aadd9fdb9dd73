//! The durable job store: one SQLite database (WAL) in the state
//! directory. Every transition is one transaction, and each `UPDATE` names
//! the state it leaves, so a transition applied twice (a restart after a
//! crash, two loops racing) changes nothing the second time.

use crate::job::{CalendarOutcome, CalendarVerdict, ContentTarget, Job, JobState, NewJob, Publication};
use priorart_nip::nostr::prelude::{Event, Keys};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The database file inside the state directory.
pub const STATE_FILE: &str = "pipeline.sqlite3";
/// The lock file inside the state directory (see [`RunLock`]).
pub const LOCK_FILE: &str = "run.lock";
/// SQLite `application_id` of a priorart pipeline store ("PrAr").
pub const APPLICATION_ID: i32 = 0x5072_4172;
/// The schema this build reads and writes (`user_version`). Older stores
/// are migrated forward on open ([`MIGRATIONS`]); no job is ever dropped.
pub const SCHEMA_VERSION: i32 = 2;

/// Counter name prefix of the proofs a calendar gave that failed
/// verification (one per job it lied about), followed by its URL.
pub const REJECTED_PROOF_COUNTER: &str = "rejected_proof:";

/// How long a statement waits for another process's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the store cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The state directory cannot be created.
    #[error("{path}: cannot create the state directory")]
    Directory {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is an SQLite database of another program: never touched.
    #[error(
        "{path} is not a priorart pipeline store (SQLite application_id {found:#010x}); refusing to touch it: move it away or give another --state"
    )]
    Foreign {
        /// The file.
        path: PathBuf,
        /// Its application id.
        found: i32,
    },
    /// The file is ours, written by a newer priorart.
    #[error(
        "{path}: schema version {found} is newer than this priorart's ({SCHEMA_VERSION}); upgrade priorart"
    )]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: i32,
    },
    /// The file is damaged or not a database at all: never overwritten.
    #[error(
        "{path} is damaged or not an SQLite database ({detail}); refusing to touch it: restore a backup or move it away"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        detail: String,
    },
    /// Another run holds the lock of this state directory.
    #[error("another priorart run is working on {0} (it holds the lock); try again when it ends")]
    Locked(PathBuf),
    /// A database operation failed.
    #[error("state store: {0}")]
    Sqlite(rusqlite::Error),
    /// A stored value cannot be read back (the store was edited by hand?).
    #[error("state store: job {job}: {detail}")]
    BadRow {
        /// The job's row id.
        job: i64,
        /// What is wrong.
        detail: String,
    },
}

reason_names!(StoreError {
    Directory => "directory",
    Foreign => "foreign",
    NewerSchema => "newer_schema",
    Corrupt => "corrupt",
    Locked => "locked",
    Sqlite => "sqlite",
    BadRow => "bad_row",
});

// The cause is part of the message above, so it is not also a `source()`:
// an error chain (anyhow's `{:#}`) would print it twice.
impl From<rusqlite::Error> for StoreError {
    fn from(cause: rusqlite::Error) -> Self {
        StoreError::Sqlite(cause)
    }
}

/// A connection to the job store of one state directory. Several may be
/// open at once (threads, processes): SQLite serializes the writers.
pub struct Store {
    connection: Connection,
    dir: PathBuf,
}

const SCHEMA: &str = "
CREATE TABLE jobs (
    id             INTEGER PRIMARY KEY,
    attestation_id TEXT NOT NULL UNIQUE,
    attestation    TEXT NOT NULL,
    commitment     BLOB NOT NULL,
    content_target TEXT NOT NULL,
    content_kind   INTEGER,
    relay_hint     TEXT,
    content_event  TEXT,
    content_event_id TEXT,
    content_published INTEGER NOT NULL DEFAULT 0,
    relays         TEXT NOT NULL,
    label          TEXT,
    state          TEXT NOT NULL,
    proof          BLOB,
    calendars      TEXT NOT NULL DEFAULT '[]',
    stamp_attempts INTEGER NOT NULL DEFAULT 0,
    block_height   INTEGER,
    proof_event    TEXT,
    proof_event_id TEXT,
    publish_attempts INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    last_error     TEXT
);
CREATE INDEX jobs_by_state ON jobs (state, id);
CREATE TABLE publications (
    job_id   INTEGER NOT NULL REFERENCES jobs (id),
    event_id TEXT NOT NULL,
    relay    TEXT NOT NULL,
    outcome  TEXT NOT NULL,
    message  TEXT NOT NULL,
    at       INTEGER NOT NULL,
    PRIMARY KEY (job_id, event_id, relay)
);
CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
";

/// `MIGRATIONS[i]` takes a store from schema `i + 1` to `i + 2`. Only
/// additions: an older store's jobs are all kept.
const MIGRATIONS: &[&str] = &["
ALTER TABLE jobs ADD COLUMN unverified TEXT;
ALTER TABLE jobs ADD COLUMN trouble_since INTEGER;
CREATE TABLE calendar_outcomes (
    job_id   INTEGER NOT NULL REFERENCES jobs (id),
    calendar TEXT NOT NULL,
    verdict  TEXT NOT NULL,
    detail   TEXT NOT NULL,
    at       INTEGER NOT NULL,
    PRIMARY KEY (job_id, calendar)
);
"];

/// What [`Store::add_jobs`] did with one new job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddOutcome {
    /// Stored as a new job.
    Added(i64),
    /// This attestation was queued already, for the same content: nothing changed.
    Existing(i64),
    /// This attestation was queued already for other content: nothing
    /// changed; the stored reference is given.
    Conflict {
        /// The existing job.
        job: i64,
        /// The content it references.
        stored: ContentTarget,
    },
    /// Refused: the queue is full.
    QueueFull,
}

/// What one upgrade round found for one stamped job.
#[derive(Debug, Clone, Default)]
pub struct UpgradeUpdate {
    /// The job.
    pub job: i64,
    /// Each asked calendar's answer.
    pub outcomes: Vec<(String, CalendarVerdict, String)>,
    /// A verified proof and its verified block: the job is anchored.
    pub anchored: Option<(Vec<u8>, u64)>,
    /// Why a proof could not be checked yet.
    pub unverified: Option<String>,
    /// Since when every calendar lied or failed, if they all do.
    pub trouble_since: Option<i64>,
    /// The job gives up, with this reason.
    pub failed: Option<String>,
    /// What the job's log says about this round (lies, failures).
    pub note: Option<String>,
}

const JOB_COLUMNS: &str = "id, attestation_id, attestation, content_target, content_kind, relay_hint, content_event, \
     content_event_id, content_published, relays, state, proof, calendars, block_height, proof_event, proof_event_id, \
     created_at, updated_at, last_error, label, unverified, trouble_since";

impl Store {
    /// Opens (or creates) the store in `dir`. An existing file must be a
    /// priorart store of a schema this build knows and pass SQLite's
    /// `quick_check`; anything else is refused untouched.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        create_private_dir(dir)?;
        let path = dir.join(STATE_FILE);
        let existing = std::fs::metadata(&path).is_ok_and(|meta| meta.len() > 0);
        let connection = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
        )?;
        connection.busy_timeout(BUSY_TIMEOUT)?;
        let corrupt =
            |err: rusqlite::Error| StoreError::Corrupt { path: path.clone(), detail: err.to_string() };
        if existing {
            let found: i32 =
                connection.pragma_query_value(None, "application_id", |row| row.get(0)).map_err(corrupt)?;
            if found != APPLICATION_ID {
                return Err(StoreError::Foreign { path, found });
            }
            let version: i32 =
                connection.pragma_query_value(None, "user_version", |row| row.get(0)).map_err(corrupt)?;
            if version > SCHEMA_VERSION {
                return Err(StoreError::NewerSchema { path, found: version });
            }
            if version < 1 {
                return Err(StoreError::Corrupt { path, detail: format!("schema version {version}") });
            }
            let check: String =
                connection.pragma_query_value(None, "quick_check", |row| row.get(0)).map_err(corrupt)?;
            if check != "ok" {
                return Err(StoreError::Corrupt { path, detail: check });
            }
        }
        // WAL: readers (status, the HTTP API) never wait for the writer;
        // synchronous=FULL: a committed transition survives a power cut too.
        connection.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))?;
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.pragma_update(None, "foreign_keys", true)?;
        let mut store = Store { connection, dir: dir.to_owned() };
        if !existing {
            store.initialize()?;
        }
        store.migrate()?;
        Ok(store)
    }

    /// Creates the schema in a new file, unless another process just did.
    fn initialize(&mut self) -> Result<(), StoreError> {
        let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let found: i32 = tx.pragma_query_value(None, "application_id", |row| row.get(0))?;
        if found == 0 {
            tx.execute_batch(SCHEMA)?;
            tx.pragma_update(None, "application_id", APPLICATION_ID)?;
            tx.pragma_update(None, "user_version", 1)?;
        } else if found != APPLICATION_ID {
            return Err(StoreError::Foreign { path: self.dir.join(STATE_FILE), found });
        }
        tx.commit()?;
        Ok(())
    }

    /// Brings an older schema up to [`SCHEMA_VERSION`], each step in one
    /// transaction (a crash leaves the last complete version).
    fn migrate(&mut self) -> Result<(), StoreError> {
        loop {
            let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let version: i32 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
            let Some(step) = usize::try_from(version - 1).ok().and_then(|at| MIGRATIONS.get(at)) else {
                return Ok(());
            };
            tx.execute_batch(step)?;
            tx.pragma_update(None, "user_version", version + 1)?;
            tx.commit()?;
        }
    }

    /// The state directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Records new jobs in one transaction: what happened to each (see
    /// [`AddOutcome`]). `max_open` bounds the jobs neither published nor
    /// failed: past it a new job is refused.
    pub fn add_jobs(
        &mut self,
        jobs: &[NewJob],
        max_open: Option<u64>,
    ) -> Result<Vec<AddOutcome>, StoreError> {
        let now = now();
        let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let open: i64 = tx.query_row(
            "SELECT count(*) FROM jobs WHERE state NOT IN ('published', 'failed')",
            [],
            |row| row.get(0),
        )?;
        let mut open = open.max(0) as u64;
        let mut added = Vec::with_capacity(jobs.len());
        {
            let mut find =
                tx.prepare_cached("SELECT id, content_target FROM jobs WHERE attestation_id = ?1")?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO jobs (attestation_id, attestation, commitment, content_target, content_kind, relay_hint, \
                 content_event, content_event_id, relays, calendars, label, state, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'signed', ?12, ?12)",
            )?;
            for job in jobs {
                let id = job.attestation.event().id.to_hex();
                let existing: Option<(i64, String)> =
                    find.query_row([&id], |row| Ok((row.get(0)?, row.get(1)?))).optional()?;
                if let Some((existing, target)) = existing {
                    let stored = ContentTarget::from_stored(&target).ok_or_else(|| StoreError::BadRow {
                        job: existing,
                        detail: format!("content {target:?}"),
                    })?;
                    added.push(if stored == job.content {
                        AddOutcome::Existing(existing)
                    } else {
                        AddOutcome::Conflict { job: existing, stored }
                    });
                    continue;
                }
                if max_open.is_some_and(|max| open >= max) {
                    added.push(AddOutcome::QueueFull);
                    continue;
                }
                insert.execute(params![
                    id,
                    job.attestation.to_json(),
                    job.attestation.commitment().0.as_slice(),
                    job.content.to_stored(),
                    job.content_kind,
                    job.relay_hint,
                    job.content_event.as_ref().map(priorart_nip::to_json),
                    job.content_event.as_ref().map(|event| event.id.to_hex()),
                    serde_json::to_string(&job.relays).unwrap_or_default(),
                    serde_json::to_string(&job.calendars).unwrap_or_default(),
                    job.label,
                    now,
                ])?;
                open += 1;
                added.push(AddOutcome::Added(tx.last_insert_rowid()));
            }
        }
        tx.commit()?;
        Ok(added)
    }

    /// The job numbered `id` in this store.
    pub fn job(&self, id: i64) -> Result<Option<Job>, StoreError> {
        let sql = format!("SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?1");
        Ok(self.query_jobs(&sql, [id])?.pop())
    }

    /// Every job in `state`, oldest first.
    pub fn jobs_in(&self, state: JobState) -> Result<Vec<Job>, StoreError> {
        let sql = format!("SELECT {JOB_COLUMNS} FROM jobs WHERE state = ?1 ORDER BY id");
        self.query_jobs(&sql, [state.name()])
    }

    /// Every job, oldest first.
    pub fn all_jobs(&self) -> Result<Vec<Job>, StoreError> {
        self.query_jobs(&format!("SELECT {JOB_COLUMNS} FROM jobs ORDER BY id"), [])
    }

    /// Jobs whose content event has not reached any relay yet.
    pub fn unpublished_content(&self) -> Result<Vec<Job>, StoreError> {
        let sql = format!(
            "SELECT {JOB_COLUMNS} FROM jobs WHERE content_event IS NOT NULL AND content_published = 0 ORDER BY id"
        );
        self.query_jobs(&sql, [])
    }

    /// Published jobs whose kind 1041 some of their relays have not answered
    /// for yet (down, silent), tried at most `max_attempts` times in all.
    pub fn published_missing_relays(&self, max_attempts: u32) -> Result<Vec<Job>, StoreError> {
        let sql = format!(
            "SELECT {JOB_COLUMNS} FROM jobs WHERE state = 'published' AND publish_attempts < ?1 AND EXISTS ( \
               SELECT 1 FROM json_each(jobs.relays) AS relay WHERE NOT EXISTS ( \
                 SELECT 1 FROM publications AS p WHERE p.job_id = jobs.id AND p.event_id = jobs.proof_event_id \
                 AND p.relay = relay.value AND p.outcome IN ('accepted', 'duplicate', 'rejected'))) ORDER BY id"
        );
        self.query_jobs(&sql, [max_attempts])
    }

    /// The job of an attestation (its event id in hex).
    pub fn job_by_attestation(&self, attestation_id: &str) -> Result<Option<Job>, StoreError> {
        let sql = format!("SELECT {JOB_COLUMNS} FROM jobs WHERE attestation_id = ?1");
        Ok(self.query_jobs(&sql, [attestation_id])?.pop())
    }

    fn query_jobs(&self, sql: &str, params: impl rusqlite::Params) -> Result<Vec<Job>, StoreError> {
        let mut statement = self.connection.prepare_cached(sql)?;
        let rows = statement.query_map(params, Job::from_row)?;
        let mut jobs = Vec::new();
        for row in rows {
            jobs.push(row??);
        }
        Ok(jobs)
    }

    /// What each relay said about each of a job's events.
    pub fn publications(&self, job: i64) -> Result<Vec<Publication>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT event_id, relay, outcome, message FROM publications WHERE job_id = ?1 ORDER BY event_id, relay",
        )?;
        let rows = statement.query_map([job], |row| {
            Ok(Publication {
                event_id: row.get(0)?,
                relay: row.get(1)?,
                outcome: row.get(2)?,
                message: row.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Before a calendar round: counts the attempt, so that a crash during
    /// it is visible (`stamp_attempts`) and the jobs are stamped again.
    pub fn note_stamp_attempt(&mut self, jobs: &[i64]) -> Result<(), StoreError> {
        self.each_in_one_transaction(
            jobs,
            "UPDATE jobs SET stamp_attempts = stamp_attempts + 1 WHERE id = ?1",
        )
    }

    /// signed → stamped: the pending proof and the calendars that answered.
    pub fn record_stamped(
        &mut self,
        stamped: &[(i64, Vec<u8>)],
        calendars: &[String],
    ) -> Result<(), StoreError> {
        let now = now();
        let calendars = serde_json::to_string(calendars).unwrap_or_default();
        let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        {
            let mut update = tx.prepare_cached(
                "UPDATE jobs SET state = 'stamped', proof = ?2, calendars = ?3, updated_at = ?4, last_error = NULL \
                 WHERE id = ?1 AND state = 'signed'",
            )?;
            for (job, proof) in stamped {
                update.execute(params![job, proof, calendars, now])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Stamped jobs stamped again at other calendars: the proof with the new
    /// pending attestations merged in, and the calendars it now holds.
    pub fn record_restamped_elsewhere(
        &mut self,
        jobs: &[(i64, Vec<u8>, Vec<String>)],
    ) -> Result<(), StoreError> {
        let now = now();
        let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        {
            let mut update = tx.prepare_cached(
                "UPDATE jobs SET proof = ?2, calendars = ?3, trouble_since = NULL, updated_at = ?4 \
                 WHERE id = ?1 AND state = 'stamped'",
            )?;
            for (job, proof, calendars) in jobs {
                update.execute(params![
                    job,
                    proof,
                    serde_json::to_string(calendars).unwrap_or_default(),
                    now
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// What an upgrade round found, in one transaction: each calendar's
    /// answer in the job's log (a calendar's first lie about a job counted
    /// under [`REJECTED_PROOF_COUNTER`]); a verified proof moves the job
    /// stamped → anchored, a job out of time stamped → failed.
    pub fn record_upgrades(&mut self, updates: &[UpgradeUpdate]) -> Result<(), StoreError> {
        let now = now();
        let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        {
            let mut previous = tx.prepare_cached(
                "SELECT verdict FROM calendar_outcomes WHERE job_id = ?1 AND calendar = ?2",
            )?;
            let mut outcome = tx.prepare_cached(
                "INSERT INTO calendar_outcomes (job_id, calendar, verdict, detail, at) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (job_id, calendar) DO UPDATE SET verdict = excluded.verdict, detail = excluded.detail, \
                 at = excluded.at",
            )?;
            let mut lie = tx.prepare_cached(
                "INSERT INTO counters (name, value) VALUES (?1, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1",
            )?;
            let mut anchored = tx.prepare_cached(
                "UPDATE jobs SET proof = ?2, block_height = ?3, updated_at = ?4, last_error = NULL, unverified = NULL, \
                 trouble_since = NULL, state = 'anchored' WHERE id = ?1 AND state = 'stamped'",
            )?;
            let mut failed = tx.prepare_cached(
                "UPDATE jobs SET state = 'failed', last_error = ?2, unverified = ?3, trouble_since = ?4, updated_at = ?5 \
                 WHERE id = ?1 AND state = 'stamped'",
            )?;
            let mut waiting = tx.prepare_cached(
                "UPDATE jobs SET last_error = ?2, unverified = ?3, trouble_since = ?4 WHERE id = ?1 AND state = 'stamped'",
            )?;
            for update in updates {
                for (calendar, verdict, detail) in &update.outcomes {
                    let before: Option<String> =
                        previous.query_row(params![update.job, calendar], |row| row.get(0)).optional()?;
                    if *verdict == CalendarVerdict::Lied
                        && before.as_deref() != Some(CalendarVerdict::Lied.name())
                    {
                        lie.execute([format!("{REJECTED_PROOF_COUNTER}{calendar}")])?;
                    }
                    outcome.execute(params![update.job, calendar, verdict.name(), detail, now])?;
                }
                if let Some((proof, height)) = &update.anchored {
                    anchored.execute(params![update.job, proof, *height as i64, now])?;
                } else if let Some(reason) = &update.failed {
                    failed.execute(params![
                        update.job,
                        reason,
                        update.unverified,
                        update.trouble_since,
                        now
                    ])?;
                } else {
                    waiting.execute(params![
                        update.job,
                        update.note,
                        update.unverified,
                        update.trouble_since
                    ])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Each calendar's last answer about a job.
    pub fn calendar_outcomes(&self, job: i64) -> Result<Vec<CalendarOutcome>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT calendar, verdict, detail, at FROM calendar_outcomes WHERE job_id = ?1 ORDER BY calendar",
        )?;
        let rows = statement.query_map([job], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?, row.get(3)?))
        })?;
        let mut outcomes = Vec::new();
        for row in rows {
            let (calendar, verdict, detail, at) = row?;
            let verdict = CalendarVerdict::from_name(&verdict)
                .ok_or_else(|| StoreError::BadRow { job, detail: format!("calendar verdict {verdict:?}") })?;
            outcomes.push(CalendarOutcome { calendar, verdict, detail, at });
        }
        Ok(outcomes)
    }

    /// Takes a job that has no verified proof (signed, stamped or failed)
    /// back to signed, to be stamped at `calendars` next round; its pending
    /// proof and calendar log are dropped. The job as it is now, or `None`
    /// if no job has this number or attestation id; an anchored job is
    /// returned unchanged.
    pub fn restamp(&mut self, job: &str, calendars: &[String]) -> Result<Option<Job>, StoreError> {
        let id = match job.parse::<i64>() {
            Ok(id) => Some(id),
            Err(_) => self.job_by_attestation(&job.to_ascii_lowercase())?.map(|job| job.id),
        };
        let Some(id) = id else { return Ok(None) };
        let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let changed = tx.execute(
            "UPDATE jobs SET state = 'signed', proof = NULL, block_height = NULL, calendars = ?2, last_error = NULL, \
             unverified = NULL, trouble_since = NULL, stamp_attempts = 0, updated_at = ?3 \
             WHERE id = ?1 AND state IN ('signed', 'stamped', 'failed')",
            params![id, serde_json::to_string(calendars).unwrap_or_default(), now()],
        )?;
        if changed == 1 {
            tx.execute("DELETE FROM calendar_outcomes WHERE job_id = ?1", [id])?;
        }
        tx.commit()?;
        self.job(id)
    }

    /// built or published → built: the job's kind 1041 sent again in the
    /// next round (to its relays and the ones the front end runs with now),
    /// its attempts counted afresh. `job` is its number or attestation id;
    /// `None` if there is no such job, the job (unchanged) if it has no
    /// built proof.
    pub fn republish(&mut self, job: &str) -> Result<Option<Job>, StoreError> {
        let id = match job.parse::<i64>() {
            Ok(id) => Some(id),
            Err(_) => self.job_by_attestation(&job.to_ascii_lowercase())?.map(|job| job.id),
        };
        let Some(id) = id else { return Ok(None) };
        self.connection.execute(
            "UPDATE jobs SET state = 'built', publish_attempts = 0, updated_at = ?2 \
             WHERE id = ?1 AND state IN ('built', 'published') AND proof_event_id IS NOT NULL",
            params![id, now()],
        )?;
        self.job(id)
    }

    /// anchored → built: the signed kind 1041s, stored in one transaction
    /// before anyone sees them. Returns the jobs moved and their event ids;
    /// a job that had left `anchored` keeps its stored event (the one
    /// given is dropped: only the stored one is ever published).
    pub fn record_proof_events(&mut self, events: &[(i64, Event)]) -> Result<Vec<(i64, String)>, StoreError> {
        let now = now();
        let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut built = Vec::new();
        {
            let mut update = tx.prepare_cached(
                "UPDATE jobs SET state = 'built', proof_event = ?2, proof_event_id = ?3, updated_at = ?4, \
                 last_error = NULL WHERE id = ?1 AND state = 'anchored'",
            )?;
            for (job, event) in events {
                let id = event.id.to_hex();
                if update.execute(params![job, priorart_nip::to_json(event), id, now])? == 1 {
                    built.push((*job, id));
                }
            }
        }
        tx.commit()?;
        Ok(built)
    }

    /// Before sending events: counts the attempt (publishing the same
    /// stored event again is harmless, so a crash only means resending).
    pub fn note_publish_attempt(&mut self, jobs: &[i64]) -> Result<(), StoreError> {
        self.each_in_one_transaction(
            jobs,
            "UPDATE jobs SET publish_attempts = publish_attempts + 1 WHERE id = ?1",
        )
    }

    /// What the relays said about events of jobs; a 1041 on at least one
    /// relay moves its job built → published, a content event on at least
    /// one relay marks it published.
    pub fn record_publications(&mut self, answers: &[(i64, Publication)]) -> Result<(), StoreError> {
        let now = now();
        let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO publications (job_id, event_id, relay, outcome, message, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
                 ON CONFLICT (job_id, event_id, relay) DO UPDATE SET outcome = excluded.outcome, \
                 message = excluded.message, at = excluded.at \
                 WHERE publications.outcome NOT IN ('accepted', 'duplicate')",
            )?;
            let mut published = tx.prepare_cached(
                "UPDATE jobs SET state = 'published', last_error = NULL, updated_at = ?3 \
                 WHERE id = ?1 AND state = 'built' AND proof_event_id = ?2",
            )?;
            let mut content = tx.prepare_cached(
                "UPDATE jobs SET content_published = 1, updated_at = ?3 WHERE id = ?1 AND content_event_id = ?2",
            )?;
            for (job, publication) in answers {
                insert.execute(params![
                    job,
                    publication.event_id,
                    publication.relay,
                    publication.outcome,
                    publication.message,
                    now
                ])?;
                if publication.stored() {
                    published.execute(params![job, publication.event_id, now])?;
                    content.execute(params![job, publication.event_id, now])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Notes why the last step of these jobs failed (shown by status).
    pub fn record_error(&mut self, jobs: &[i64], error: &str) -> Result<(), StoreError> {
        let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        {
            let mut update = tx.prepare_cached("UPDATE jobs SET last_error = ?2 WHERE id = ?1")?;
            for job in jobs {
                update.execute(params![job, error])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Jobs per state.
    pub fn counts(&self) -> Result<Vec<(JobState, u64)>, StoreError> {
        let mut statement =
            self.connection.prepare_cached("SELECT state, count(*) FROM jobs GROUP BY state")?;
        let rows = statement.query_map([], |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?)))?;
        let mut counts: Vec<(JobState, u64)> = JobState::ALL.iter().map(|state| (*state, 0)).collect();
        for row in rows {
            let (name, count) = row?;
            if let Some(slot) = counts.iter_mut().find(|(state, _)| state.name() == name) {
                slot.1 = count.max(0) as u64;
            }
        }
        Ok(counts)
    }

    /// Adds `by` to a named counter (calendar and relay errors, for metrics).
    pub fn bump(&mut self, counter: &str, by: u64) -> Result<(), StoreError> {
        if by > 0 {
            self.connection.execute(
                "INSERT INTO counters (name, value) VALUES (?1, ?2) \
                 ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
                params![counter, i64::try_from(by).unwrap_or(i64::MAX)],
            )?;
        }
        Ok(())
    }

    /// The key this store signs kind 1041 events with (the NIP lets anyone
    /// sign them; trust comes from the embedded attestation): made once,
    /// kept in the store (whose directory only its owner can read).
    pub fn signer(&mut self) -> Result<Keys, StoreError> {
        let fresh = Keys::generate();
        self.connection.execute(
            "INSERT INTO settings (name, value) VALUES ('signer', ?1) ON CONFLICT (name) DO NOTHING",
            [fresh.secret_key().to_secret_hex()],
        )?;
        let secret: String =
            self.connection
                .query_row("SELECT value FROM settings WHERE name = 'signer'", [], |row| row.get(0))?;
        Keys::parse(&secret)
            .map_err(|_| StoreError::BadRow { job: 0, detail: "the stored signing key is not a key".into() })
    }

    /// Every named counter.
    pub fn counters(&self) -> Result<Vec<(String, u64)>, StoreError> {
        let mut statement =
            self.connection.prepare_cached("SELECT name, value FROM counters ORDER BY name")?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get::<_, i64>(1)?.max(0) as u64)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn each_in_one_transaction(&mut self, jobs: &[i64], sql: &str) -> Result<(), StoreError> {
        let tx = self.connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        {
            let mut update = tx.prepare_cached(sql)?;
            for job in jobs {
                update.execute([job])?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}

impl Job {
    fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Result<Job, StoreError>> {
        let id: i64 = row.get(0)?;
        let bad = |detail: String| StoreError::BadRow { job: id, detail };
        let attestation: String = row.get(2)?;
        let target: String = row.get(3)?;
        let relays: String = row.get(9)?;
        let state: String = row.get(10)?;
        let calendars: String = row.get(12)?;
        let attestation = match priorart_nip::Attestation::from_json(&attestation) {
            Ok(attestation) => attestation,
            Err(err) => return Ok(Err(bad(format!("stored attestation: {err}")))),
        };
        let Some(content) = ContentTarget::from_stored(&target) else {
            return Ok(Err(bad(format!("content reference {target:?}"))));
        };
        let relays = match serde_json::from_str(&relays) {
            Ok(relays) => relays,
            Err(err) => return Ok(Err(bad(format!("relays: {err}")))),
        };
        let Some(state) = JobState::from_name(&state) else {
            return Ok(Err(bad(format!("state {state:?}"))));
        };
        let calendars = match serde_json::from_str(&calendars) {
            Ok(calendars) => calendars,
            Err(err) => return Ok(Err(bad(format!("calendars: {err}")))),
        };
        Ok(Ok(Job {
            id,
            attestation_id: row.get(1)?,
            attestation,
            content,
            content_kind: row.get(4)?,
            relay_hint: row.get(5)?,
            content_event: row.get(6)?,
            content_event_id: row.get(7)?,
            content_published: row.get(8)?,
            relays,
            state,
            proof: row.get(11)?,
            calendars,
            block_height: row.get::<_, Option<i64>>(13)?.map(|h| h as u64),
            proof_event: row.get(14)?,
            proof_event_id: row.get(15)?,
            created_at: row.get(16)?,
            updated_at: row.get(17)?,
            last_error: row.get(18)?,
            label: row.get(19)?,
            unverified: row.get(20)?,
            trouble_since: row.get(21)?,
        }))
    }
}

/// An exclusive hold on a state directory for one run (`protect`,
/// `serve`): SQLite's own file lock on `run.lock`, kept by an open
/// exclusive transaction and released by the operating system when the
/// process ends, however it ends.
pub struct RunLock {
    _connection: Connection,
}

impl RunLock {
    /// Takes the lock, or says another run holds it.
    pub fn acquire(dir: &Path) -> Result<RunLock, StoreError> {
        create_private_dir(dir)?;
        let connection = Connection::open(dir.join(LOCK_FILE))?;
        connection.busy_timeout(Duration::ZERO)?;
        match connection.execute_batch("BEGIN EXCLUSIVE") {
            Ok(()) => Ok(RunLock { _connection: connection }),
            Err(rusqlite::Error::SqliteFailure(err, _)) if err.code == rusqlite::ErrorCode::DatabaseBusy => {
                Err(StoreError::Locked(dir.to_owned()))
            }
            Err(err) => Err(err.into()),
        }
    }
}

/// The state directory, readable only by its owner when we create it (it
/// holds the store's signing key).
fn create_private_dir(dir: &Path) -> Result<(), StoreError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|source| StoreError::Directory { path: dir.to_owned(), source })
}

/// Seconds since 1970.
pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs() as i64)
}
