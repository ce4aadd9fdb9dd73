//! The job store: new and repeated jobs, transitions that apply once, the
//! 1041 stored once, foreign and damaged files refused untouched, the run lock.

use priorart_nip::Attestation;
use priorart_nip::nostr::prelude::{EventBuilder, FinalizeEvent, Keys, Kind, Timestamp};
use priorart_pipeline::{
    AddOutcome, CalendarVerdict, ContentTarget, JobState, NewJob, Publication, RunLock, SCHEMA_VERSION,
    STATE_FILE, Store, StoreError, UpgradeUpdate,
};

fn new_job(keys: &Keys, text: &str) -> NewJob {
    let x = priorart_fingerprint::minhash_equality_v1(text);
    let attestation = Attestation::sign(keys, x, Some(30023), Timestamp::now()).unwrap();
    NewJob {
        content: ContentTarget::Address(format!("30023:{}:essay", keys.public_key().to_hex())),
        attestation,
        content_kind: None,
        relay_hint: None,
        content_event: None,
        relays: vec!["ws://127.0.0.1:1".into()],
        calendars: Vec::new(),
        label: Some("essay.md".into()),
    }
}

#[test]
fn the_same_attestation_twice_is_one_job_and_the_queue_limit_holds() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let keys = Keys::generate();
    let (one, two) = (new_job(&keys, "first text of the author"), new_job(&keys, "second text"));
    let added = store.add_jobs(&[one.clone(), one.clone()], None).unwrap();
    let AddOutcome::Added(first) = added[0] else { panic!("{added:?}") };
    assert_eq!(added[1], AddOutcome::Existing(first), "the repeat inside one batch is the same job");
    assert_eq!(store.add_jobs(std::slice::from_ref(&one), None).unwrap(), vec![AddOutcome::Existing(first)]);
    assert_eq!(
        store.add_jobs(std::slice::from_ref(&two), Some(1)).unwrap(),
        vec![AddOutcome::QueueFull],
        "one open job is the limit"
    );
    assert!(matches!(store.add_jobs(&[two], Some(2)).unwrap()[0], AddOutcome::Added(_)));
    let elsewhere = NewJob {
        content: ContentTarget::Address(format!("30023:{}:other", keys.public_key().to_hex())),
        ..one
    };
    assert_eq!(
        store.add_jobs(&[elsewhere], None).unwrap(),
        vec![AddOutcome::Conflict {
            job: first,
            stored: ContentTarget::Address(format!("30023:{}:essay", keys.public_key().to_hex()))
        }],
        "the same attestation for other content is a conflict, and the stored reference is kept"
    );
    assert_eq!(store.jobs_in(JobState::Signed).unwrap().len(), 2);
    drop(store);
    let reopened = Store::open(dir.path()).unwrap();
    assert_eq!(reopened.all_jobs().unwrap().len(), 2, "jobs survive reopening");
}

#[test]
fn the_proof_event_is_stored_once_and_published_moves_the_job_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let keys = Keys::generate();
    let AddOutcome::Added(job) = store.add_jobs(&[new_job(&keys, "a text to anchor")], None).unwrap()[0]
    else {
        panic!("added")
    };
    store.record_stamped(&[(job, b"pending proof".to_vec())], &["http://calendar".into()]).unwrap();
    store.record_stamped(&[(job, b"another".to_vec())], &[]).unwrap();
    let stamped = &store.jobs_in(JobState::Stamped).unwrap()[0];
    assert_eq!(stamped.proof.as_deref(), Some(&b"pending proof"[..]), "signed → stamped applies once");
    assert_eq!(stamped.calendars, vec!["http://calendar".to_owned()]);
    let verified = UpgradeUpdate {
        job,
        outcomes: vec![("http://calendar".into(), CalendarVerdict::Verified, "block 101".into())],
        anchored: Some((b"upgraded".to_vec(), 101)),
        ..UpgradeUpdate::default()
    };
    store.record_upgrades(&[verified]).unwrap();
    let anchored = &store.jobs_in(JobState::Anchored).unwrap()[0];
    assert_eq!(anchored.block_height, Some(101));

    let signer = store.signer().unwrap();
    assert_eq!(store.signer().unwrap().public_key(), signer.public_key(), "one key per store");
    let first = EventBuilder::new(Kind::from_u16(1041), "").finalize(&signer).unwrap();
    let second = EventBuilder::new(Kind::from_u16(1041), "other").finalize(&signer).unwrap();
    assert_eq!(store.record_proof_events(&[(job, first.clone())]).unwrap(), vec![(job, first.id.to_hex())]);
    assert!(store.record_proof_events(&[(job, second)]).unwrap().is_empty(), "a second 1041 is never stored");
    let built = &store.jobs_in(JobState::Built).unwrap()[0];
    assert_eq!(built.proof_event_id.as_deref(), Some(first.id.to_hex().as_str()));

    let answer = |outcome: &str| Publication {
        event_id: first.id.to_hex(),
        relay: "ws://127.0.0.1:1".into(),
        outcome: outcome.into(),
        message: String::new(),
    };
    store.record_publications(&[(job, answer("no_answer"))]).unwrap();
    assert_eq!(store.jobs_in(JobState::Built).unwrap().len(), 1, "no relay has it yet");
    store.record_publications(&[(job, answer("accepted"))]).unwrap();
    store.record_publications(&[(job, answer("no_answer"))]).unwrap();
    let published = &store.jobs_in(JobState::Published).unwrap()[0];
    assert_eq!(
        store.publications(published.id).unwrap(),
        vec![answer("accepted")],
        "a stored answer is kept"
    );
}

#[test]
fn foreign_damaged_and_newer_files_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(STATE_FILE);

    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("PRAGMA application_id = 1234; CREATE TABLE notes (body TEXT);").unwrap();
    drop(other);
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(dir.path()).err().expect("refused");
    assert!(matches!(err, StoreError::Foreign { found: 1234, .. }), "{err}");
    assert!(err.to_string().contains("not a priorart pipeline store"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "never touched");

    std::fs::write(&path, b"this is no database at all, just some bytes of text that happen to be here")
        .unwrap();
    let err = Store::open(dir.path()).err().expect("refused");
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(std::fs::read(&path).unwrap().starts_with(b"this is no database"));

    std::fs::remove_file(&path).unwrap();
    drop(Store::open(dir.path()).unwrap());
    let newer = rusqlite::Connection::open(&path).unwrap();
    newer.execute_batch("PRAGMA user_version = 99;").unwrap();
    drop(newer);
    assert!(matches!(Store::open(dir.path()), Err(StoreError::NewerSchema { found: 99, .. })));
}

#[test]
fn a_damaged_page_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let keys = Keys::generate();
    let jobs: Vec<NewJob> = (0..200).map(|n| new_job(&keys, &format!("text number {n} of many"))).collect();
    store.add_jobs(&jobs, None).unwrap();
    drop(store);
    let path = dir.path().join(STATE_FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 3 * 4096, "several pages");
    for byte in &mut bytes[4096 + 16..3 * 4096] {
        *byte = 0x5a;
    }
    std::fs::write(&path, &bytes).unwrap();
    let err = Store::open(dir.path()).err().expect("refused");
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "never touched");
}

#[test]
fn one_run_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let lock = RunLock::acquire(dir.path()).unwrap();
    assert!(matches!(RunLock::acquire(dir.path()), Err(StoreError::Locked(_))));
    drop(lock);
    drop(RunLock::acquire(dir.path()).unwrap());
}

#[test]
fn a_schema_1_store_is_migrated_and_keeps_its_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let keys = Keys::generate();
    store.add_jobs(&[new_job(&keys, "kept across the upgrade")], None).unwrap();
    drop(store);
    // What priorart wrote before schema 2: no verification columns, no calendar log.
    let old = rusqlite::Connection::open(dir.path().join(STATE_FILE)).unwrap();
    old.execute_batch(
        "ALTER TABLE jobs DROP COLUMN unverified; ALTER TABLE jobs DROP COLUMN trouble_since; \
         DROP TABLE calendar_outcomes; PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(old);
    let store = Store::open(dir.path()).unwrap();
    let jobs = store.all_jobs().unwrap();
    assert_eq!(jobs.len(), 1, "no job lost");
    assert_eq!(jobs[0].label.as_deref(), Some("essay.md"));
    assert!(store.calendar_outcomes(jobs[0].id).unwrap().is_empty());
    drop(store);
    let version: i32 = rusqlite::Connection::open(dir.path().join(STATE_FILE))
        .unwrap()
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn a_lying_calendar_is_counted_once_per_job_and_a_failed_job_can_be_restamped() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let keys = Keys::generate();
    let AddOutcome::Added(job) = store.add_jobs(&[new_job(&keys, "a text")], None).unwrap()[0] else {
        panic!("added")
    };
    store.record_stamped(&[(job, b"pending".to_vec())], &["http://liar".into()]).unwrap();
    let lie = || UpgradeUpdate {
        job,
        outcomes: vec![("http://liar".into(), CalendarVerdict::Lied, "block 2: merkle root differs".into())],
        trouble_since: Some(1),
        ..UpgradeUpdate::default()
    };
    store.record_upgrades(&[lie()]).unwrap();
    store.record_upgrades(&[lie()]).unwrap();
    assert_eq!(store.counters().unwrap(), vec![("rejected_proof:http://liar".to_owned(), 1)]);
    store.record_upgrades(&[UpgradeUpdate { failed: Some("every calendar lied".into()), ..lie() }]).unwrap();
    let failed = store.job(job).unwrap().unwrap();
    assert_eq!((failed.state, failed.last_error.as_deref()), (JobState::Failed, Some("every calendar lied")));
    assert_eq!(store.calendar_outcomes(job).unwrap()[0].verdict, CalendarVerdict::Lied);

    let restamped = store.restamp(&job.to_string(), &["http://honest".into()]).unwrap().unwrap();
    assert_eq!(restamped.state, JobState::Signed);
    assert_eq!(restamped.calendars, vec!["http://honest".to_owned()]);
    assert!(restamped.proof.is_none() && restamped.last_error.is_none());
    assert!(store.calendar_outcomes(job).unwrap().is_empty());
    assert!(store.restamp("99", &[]).unwrap().is_none());
}
