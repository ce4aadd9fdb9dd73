//! Each step of a round on its own, against real components on loopback:
//! testkit's calendar (honest, failing or lying) mining into a regtest
//! chain, its Esplora server as the header source, scripted relays.

use priorart_nip::nostr::prelude::{Keys, Timestamp};
use priorart_nip::{Attestation, Verdict};
use priorart_nip_testkit::RegtestWorld;
use priorart_ots::Network;
use priorart_ots_net::StampOptions;
use priorart_pipeline::steps::{CALENDAR_ERRORS, build, publish, stamp, upgrade};
use priorart_pipeline::{
    AddOutcome, CalendarVerdict, ContentTarget, JobState, NewJob, Round, Settings, Store,
};
use priorart_testkit::{Behavior, EsploraServer, Frame, ScriptedRelay};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// Settings stamping at `calendars` and checking against `world`'s headers.
fn settings(world: &RegtestWorld, calendars: &[String]) -> Settings {
    Settings {
        stamp: StampOptions {
            calendars: calendars.to_vec(),
            min_answers: 1,
            timeout: Duration::from_secs(10),
        },
        calendars_named: false,
        upgrade_timeout: Duration::from_secs(10),
        publish_timeout: Duration::from_secs(10),
        relays: Vec::new(),
        headers: Arc::new(world.headers()),
        network: Network::Regtest,
        give_up_after: Duration::from_secs(3600),
    }
}

/// A store in a fresh directory holding `count` (at most 5) signed jobs of
/// one author (an article each), to go to `relays`.
fn store_with_jobs(count: usize, relays: &[String]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let author = Keys::generate();
    let jobs: Vec<NewJob> = (0..count)
        .map(|n| {
            let topic = ["harbours", "lighthouses", "ferries", "canals", "bridges"][n];
            let x = priorart_fingerprint::minhash_equality_v1(&format!("an article about {topic} and tides"));
            NewJob {
                attestation: Attestation::sign(&author, x, Some(30023), Timestamp::now()).unwrap(),
                content: ContentTarget::Address(format!(
                    "30023:{}:article-{n}",
                    author.public_key().to_hex()
                )),
                content_kind: None,
                relay_hint: None,
                content_event: None,
                relays: relays.to_vec(),
                calendars: Vec::new(),
                label: None,
            }
        })
        .collect();
    let added = store.add_jobs(&jobs, None).unwrap();
    assert!(added.iter().all(|outcome| matches!(outcome, AddOutcome::Added(_))), "{added:?}");
    (dir, store)
}

fn in_state(store: &Store, state: JobState) -> usize {
    store.jobs_in(state).unwrap().len()
}

fn counter(store: &Store, name: &str) -> u64 {
    store.counters().unwrap().into_iter().find(|(counter, _)| counter == name).map_or(0, |(_, value)| value)
}

/// Stamped at `world`'s calendar, mined, upgraded: `count` anchored jobs.
fn anchored_jobs(world: &RegtestWorld, count: usize, relays: &[String]) -> (tempfile::TempDir, Store) {
    let (dir, mut store) = store_with_jobs(count, relays);
    let settings = settings(world, &[world.calendar.url()]);
    stamp(&mut store, &settings, &mut Round::default()).unwrap();
    world.calendar.mine_block().unwrap();
    upgrade(&mut store, &settings, &mut Round::default()).unwrap();
    assert_eq!(in_state(&store, JobState::Anchored), count);
    (dir, store)
}

#[test]
fn stamp_sends_every_signed_job_to_a_calendar_as_one_tree() {
    let world = RegtestWorld::new();
    let (_dir, mut store) = store_with_jobs(3, &[]);
    let mut round = Round::default();
    stamp(&mut store, &settings(&world, &[world.calendar.url()]), &mut round).unwrap();
    assert_eq!(round.stamped, 3);
    assert_eq!(round.calendars_answered, [world.calendar.url()]);
    assert_eq!(world.calendar.submissions(), 1, "one merkle root, one request");
    let stamped = store.jobs_in(JobState::Stamped).unwrap();
    assert_eq!(stamped.len(), 3);
    for job in &stamped {
        assert_eq!(job.calendars, [world.calendar.url()], "the calendar that answered may upgrade it");
        assert!(job.proof.is_some(), "the pending proof is kept");
    }
    let mut again = Round::default();
    stamp(&mut store, &settings(&world, &[world.calendar.url()]), &mut again).unwrap();
    assert_eq!((again.stamped, world.calendar.submissions()), (0, 1), "a stamped job is not stamped again");
}

#[test]
fn a_calendar_that_answers_garbage_leaves_the_jobs_signed_and_is_counted() {
    let world = RegtestWorld::new();
    let garbage = world.calendar_that(Behavior::Garbage);
    let (_dir, mut store) = store_with_jobs(2, &[]);
    let mut round = Round::default();
    stamp(&mut store, &settings(&world, &[garbage.url()]), &mut round).unwrap();
    assert_eq!(round.stamped, 0);
    assert_eq!(in_state(&store, JobState::Signed), 2);
    assert!(round.problems.iter().any(|problem| problem.starts_with("cannot stamp")), "{:?}", round.problems);
    for job in store.jobs_in(JobState::Signed).unwrap() {
        assert!(job.last_error.as_deref().unwrap_or_default().starts_with("cannot stamp"), "{job:?}");
    }
    assert_eq!(counter(&store, &format!("{CALENDAR_ERRORS}{}", garbage.url())), 1);
}

#[test]
fn upgrade_waits_for_the_block_then_anchors_on_the_verified_proof() {
    let world = RegtestWorld::new();
    let (_dir, mut store) = store_with_jobs(2, &[]);
    let settings = settings(&world, &[world.calendar.url()]);
    stamp(&mut store, &settings, &mut Round::default()).unwrap();
    let mut waiting = Round::default();
    upgrade(&mut store, &settings, &mut waiting).unwrap();
    assert!(waiting.anchored.is_empty() && waiting.rejected.is_empty(), "{waiting:?}");
    let job = store.jobs_in(JobState::Stamped).unwrap().remove(0);
    let outcomes = store.calendar_outcomes(job.id).unwrap();
    assert_eq!(outcomes[0].verdict, CalendarVerdict::Pending, "{outcomes:?}");

    let height = world.calendar.mine_block().unwrap();
    let mut round = Round::default();
    upgrade(&mut store, &settings, &mut round).unwrap();
    let mut anchored: Vec<u64> = round.anchored.iter().map(|(_, at)| *at).collect();
    anchored.dedup();
    assert_eq!(anchored, [height]);
    for job in store.jobs_in(JobState::Anchored).unwrap() {
        assert_eq!(job.block_height, Some(height));
        let outcomes = store.calendar_outcomes(job.id).unwrap();
        assert_eq!(outcomes[0].verdict, CalendarVerdict::Verified);
        assert_eq!(outcomes[0].detail, format!("regtest block {height}"));
    }
}

#[test]
fn a_lying_calendars_proof_is_discarded_named_and_counted_then_the_job_fails() {
    let world = RegtestWorld::new();
    let liar = world.liar(1);
    let (_dir, mut store) = store_with_jobs(1, &[]);
    let mut settings = settings(&world, &[liar.url()]);
    stamp(&mut store, &settings, &mut Round::default()).unwrap();
    liar.mine_block().unwrap();
    let mut round = Round::default();
    upgrade(&mut store, &settings, &mut round).unwrap();
    let [(job, calendar, _why)] = &round.rejected[..] else { panic!("{round:?}") };
    assert_eq!(calendar, &liar.url());
    let stored = store.job(*job).unwrap().unwrap();
    assert_eq!(stored.state, JobState::Stamped, "nothing a liar says is kept");
    assert!(stored.block_height.is_none());
    assert!(stored.trouble_since.is_some(), "its only calendar is in trouble");
    assert_eq!(store.calendar_outcomes(*job).unwrap()[0].verdict, CalendarVerdict::Lied);
    assert_eq!(counter(&store, &format!("rejected_proof:{}", liar.url())), 1);

    settings.give_up_after = Duration::ZERO;
    let mut giving_up = Round::default();
    upgrade(&mut store, &settings, &mut giving_up).unwrap();
    assert_eq!(giving_up.failed.len(), 1, "{giving_up:?}");
    assert_eq!(in_state(&store, JobState::Failed), 1);
    assert_eq!(
        counter(&store, &format!("rejected_proof:{}", liar.url())),
        1,
        "one lie per job is counted once"
    );
}

#[test]
fn a_block_with_no_header_to_check_is_unverified_and_asked_again() {
    let world = RegtestWorld::new();
    let (_dir, mut store) = store_with_jobs(1, &[]);
    let mut settings = settings(&world, &[world.calendar.url()]);
    stamp(&mut store, &settings, &mut Round::default()).unwrap();
    world.calendar.mine_block().unwrap();
    let no_headers = EsploraServer::from_headers(Vec::new());
    settings.headers = Arc::new(priorart_ots_net::Esplora::new(&no_headers.url(), Duration::from_secs(10)));
    let mut round = Round::default();
    upgrade(&mut store, &settings, &mut round).unwrap();
    assert!(round.anchored.is_empty() && round.rejected.is_empty(), "{round:?}");
    assert_eq!(round.unverified.len(), 1, "{round:?}");
    let job = store.jobs_in(JobState::Stamped).unwrap().remove(0);
    assert!(job.unverified.as_deref().unwrap_or_default().starts_with("anchored-unverified"), "{job:?}");
    assert_eq!(store.calendar_outcomes(job.id).unwrap()[0].verdict, CalendarVerdict::Unverifiable);

    settings.headers = Arc::new(world.headers());
    let mut later = Round::default();
    upgrade(&mut store, &settings, &mut later).unwrap();
    assert_eq!(later.anchored.len(), 1, "with headers the same proof anchors: {later:?}");
}

#[test]
fn build_signs_one_valid_1041_per_anchored_job_once() {
    let world = RegtestWorld::new();
    let (_dir, mut store) = anchored_jobs(&world, 2, &[]);
    let settings = settings(&world, &[world.calendar.url()]);
    let mut round = Round::default();
    build(&mut store, &settings, &mut round).unwrap();
    assert_eq!(round.built.len(), 2, "{round:?}");
    let signer = store.signer().unwrap();
    for job in store.jobs_in(JobState::Built).unwrap() {
        let event = job.proof_event.as_deref().unwrap();
        let report = priorart_nip::verify_event_json(event, &world.headers(), Network::Regtest);
        assert_eq!(report.verdict, Verdict::Valid, "{}", report.to_json());
        let event: Value = serde_json::from_str(event).unwrap();
        assert_eq!(event["pubkey"], signer.public_key().to_hex(), "signed with the store's key");
        assert_eq!(job.proof_event_id.as_deref(), event["id"].as_str());
    }
    let mut again = Round::default();
    build(&mut store, &settings, &mut again).unwrap();
    assert!(again.built.is_empty(), "a built job is not built again");
}

/// A relay answering every event with `OK` `accepted` and `message`.
fn relay_answering(accepted: bool, message: &'static str) -> ScriptedRelay {
    ScriptedRelay::start(move |message_in| match message_in.get(0).and_then(Value::as_str) {
        Some("EVENT") => {
            vec![Frame::Text(json!(["OK", message_in[1]["id"], accepted, message]).to_string())]
        }
        _ => Vec::new(),
    })
}

#[test]
fn publish_sends_the_stored_1041_and_keeps_each_relays_answer() {
    let world = RegtestWorld::new();
    let (accepting, refusing) = (relay_answering(true, ""), relay_answering(false, "blocked: not here"));
    let (_dir, mut store) = anchored_jobs(&world, 1, &[accepting.url(), refusing.url()]);
    let settings = settings(&world, &[world.calendar.url()]);
    build(&mut store, &settings, &mut Round::default()).unwrap();
    let mut round = Round::default();
    publish(&mut store, Duration::from_secs(10), &[], &mut round).unwrap();
    let job = store.jobs_in(JobState::Published).unwrap().remove(0);
    assert_eq!(round.published, [job.id]);
    let mut said: Vec<(String, String, String)> = store
        .publications(job.id)
        .unwrap()
        .into_iter()
        .map(|p| {
            assert_eq!(Some(&p.event_id), job.proof_event_id.as_ref(), "only the stored event is sent");
            (p.relay, p.outcome, p.message)
        })
        .collect();
    said.sort();
    let mut expected = [
        (accepting.url(), "accepted".to_owned(), String::new()),
        (refusing.url(), "rejected".to_owned(), "blocked: not here".to_owned()),
    ];
    expected.sort();
    assert_eq!(said, expected);
}

#[test]
fn an_event_no_relay_stores_stays_built_with_what_each_relay_said() {
    let world = RegtestWorld::new();
    let (refusing, silent) = (relay_answering(false, "blocked: not here"), ScriptedRelay::silent());
    let (_dir, mut store) = anchored_jobs(&world, 1, &[refusing.url()]);
    let settings = settings(&world, &[world.calendar.url()]);
    build(&mut store, &settings, &mut Round::default()).unwrap();
    let mut round = Round::default();
    // The relays the run names now go with the job's own.
    publish(&mut store, Duration::from_secs(1), &[silent.url()], &mut round).unwrap();
    assert!(round.published.is_empty());
    let job = store.jobs_in(JobState::Built).unwrap().remove(0);
    let error = job.last_error.unwrap();
    assert!(error.contains(&format!("{} rejected: blocked: not here", refusing.url())), "{error}");
    assert!(error.contains(&format!("{} no_answer", silent.url())), "{error}");
    assert_eq!(counter(&store, priorart_pipeline::steps::RELAY_ERRORS), 2);
}
