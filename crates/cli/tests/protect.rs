//! `priorart protect` end to end on regtest: a loopback calendar, mined
//! blocks, a `priorart relay` process, then `priorart check` ranking the
//! published proofs. And the crash test: the process aborted at every side
//! effect boundary (`PRIORART_FAILPOINT`), restarted, every job completed
//! exactly once, one kind 1041 per attestation on the relay.

use crate::nip_common;
use crate::relay_common;

use nip_common::stdout;
use priorart_nip::nostr::prelude::{Filter, Kind, SingleLetterTag};
use priorart_nip_testkit::{RegtestWorld, priorart, priorart_binary};
use relay_common::RelayProcess;
use serde_json::Value;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

const ESSAY: &str = "Harbour towns kept their archives in the cellars of customs houses, where damp \
    ledgers recorded every cargo of salt, timber, wool and copper that crossed the quay. Historians \
    who read those ledgers today reconstruct trade routes, family fortunes and the slow decline of \
    sailing ships against steam. A careful reader notices marginal notes written by clerks who \
    complained about weather, wages, smugglers and the endless arithmetic of tariffs.";

struct World {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    regtest: RegtestWorld,
    relay: RelayProcess,
}

impl World {
    fn new() -> World {
        let regtest = RegtestWorld::new();
        let dir = tempfile::tempdir().unwrap();
        let relay = RelayProcess::priorart(&dir.path().join("relay"));
        World { dir: dir.path().to_owned(), _dir: dir, regtest, relay }
    }

    /// `priorart protect FILE` of `text` as `key`, into `state`, stamped
    /// at `calendars` only.
    fn protect_at(
        &self,
        state: &Path,
        key: &Path,
        name: &str,
        text: &str,
        calendars: &[String],
    ) -> assert_cmd::Command {
        let file = self.dir.join(format!("{name}.md"));
        std::fs::write(&file, text).unwrap();
        let mut cmd = priorart();
        cmd.args(["protect", "--kind", "30023", "--title", "Essay", "--relay", &self.relay.url]);
        for calendar in calendars {
            cmd.args(["--calendar", calendar]);
        }
        cmd.args(self.regtest.header_args()).arg("--state").arg(state).arg("--key-file").arg(key).arg(&file);
        cmd
    }

    /// `priorart verify` of a kind 1041 (JSON) against this chain: whether it is VALID.
    fn verifies(&self, event: &Value) -> bool {
        let path = self.dir.join(format!("{}.json", event["id"].as_str().unwrap()));
        std::fs::write(&path, event.to_string()).unwrap();
        self.regtest.verifies(&path)
    }

    fn key(&self, name: &str) -> (PathBuf, String) {
        let path = self.dir.join(format!("{name}.key"));
        stdout(priorart().args(["key", "generate"]).arg(&path));
        let public = stdout(priorart().args(["key", "public", "--json", "--key-file"]).arg(&path));
        let pubkey = serde_json::from_str::<Value>(&public).unwrap()["pubkey"].as_str().unwrap().to_owned();
        (path, pubkey)
    }

    /// `priorart protect FILE` of `text` as `key`, into `state`.
    fn protect(&self, state: &Path, key: &Path, name: &str, text: &str) -> assert_cmd::Command {
        self.protect_at(state, key, name, text, &[self.regtest.calendar.url()])
    }

    fn resume(&self, state: &Path) -> assert_cmd::Command {
        let mut cmd = priorart();
        cmd.args(["protect", "--resume", "--relay-timeout", "10"])
            .args(self.regtest.header_args())
            .arg("--state")
            .arg(state);
        cmd
    }

    fn status(&self, state: &Path) -> Vec<Value> {
        let out = stdout(priorart().args(["protect", "--status", "--json", "--state"]).arg(state));
        let status: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(status["format"], "priorart-protect-status/1");
        status["jobs"].as_array().unwrap().clone()
    }

    /// `priorart protect --status` as text.
    fn status_text(&self, state: &Path) -> String {
        stdout(priorart().args(["protect", "--status", "--state"]).arg(state))
    }

    /// Every kind 1041 on the relay for `x`, as JSON.
    fn all_proofs_on_relay(&self, x: &str) -> Vec<Value> {
        let relay = priorart_relay::parse_relay_url(&self.relay.url).unwrap();
        let filter = Filter::new().kind(Kind::from_u16(1041)).custom_tag(SingleLetterTag::UPPERCASE_X, x);
        let answers =
            priorart_relay::query(&[relay], &filter, &priorart_relay::QueryLimits::default()).unwrap();
        answers[0]
            .events
            .iter()
            .map(|event| serde_json::from_str(&priorart_nip::to_json(event)).unwrap())
            .collect()
    }

    /// Every kind 1041 on the relay whose embedded attestation is `attestation_id`.
    fn proofs_on_relay(&self, x: &str, attestation_id: &str) -> Vec<String> {
        let relay = priorart_relay::parse_relay_url(&self.relay.url).unwrap();
        let filter = Filter::new().kind(Kind::from_u16(1041)).custom_tag(SingleLetterTag::UPPERCASE_X, x);
        let answers =
            priorart_relay::query(&[relay], &filter, &priorart_relay::QueryLimits::default()).unwrap();
        answers[0]
            .events
            .iter()
            .filter(|event| {
                event.tags.iter().any(|tag| {
                    let tag = tag.as_slice();
                    tag[0] == "description"
                        && serde_json::from_str::<Value>(&tag[1]).unwrap()["id"] == attestation_id
                })
            })
            .map(|event| event.id.to_hex())
            .collect()
    }
}

#[test]
fn protect_publishes_the_proof_after_the_block_and_check_ranks_it() {
    let world = World::new();
    let state = world.dir.join("state");
    let (alice, alice_pub) = world.key("alice");
    let (bob, bob_pub) = world.key("bob");

    let out = stdout(&mut world.protect(&state, &alice, "alice", ESSAY));
    assert!(out.contains("stamped"), "{out}");
    let jobs = world.status(&state);
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["state"], "stamped");
    assert_eq!(jobs[0]["file"], world.dir.join("alice.md").display().to_string());
    assert!(jobs[0]["content_event_id"].is_string());

    let before_block = stdout(&mut world.resume(&state));
    assert!(!before_block.contains("published"), "nothing before the block: {before_block}");
    assert_eq!(world.status(&state)[0]["state"], "stamped");
    let alice_height = world.regtest.calendar.mine_block().unwrap();

    // Bob protects the same text later: his proof lands in a later block.
    // His run also moves Alice's job on (every run does a whole round).
    let bob_run = stdout(&mut world.protect(&state, &bob, "bob", ESSAY));
    assert!(bob_run.contains(&format!("job 1: anchored in Bitcoin block {alice_height}")), "{bob_run}");
    assert!(bob_run.contains("job 1: kind 1041"), "{bob_run}");
    let bob_height = world.regtest.calendar.mine_block().unwrap();
    assert!(alice_height < bob_height);

    let resumed = stdout(&mut world.resume(&state));
    assert!(resumed.contains(&format!("job 2: anchored in Bitcoin block {bob_height}")), "{resumed}");
    assert_eq!(resumed.matches("published on").count(), 1, "{resumed}");

    let jobs = world.status(&state);
    for (job, height) in jobs.iter().zip([alice_height, bob_height]) {
        assert_eq!(job["state"], "published", "{job:#}");
        assert_eq!(job["block"], height);
        assert!(job["proof"].is_string(), "the proof is shown once anchored");
        let stored = job["publications"].as_array().unwrap();
        assert!(
            stored.iter().any(|p| p["event_id"] == job["proof_event"]["id"] && p["outcome"] == "accepted")
        );
        assert!(
            stored.iter().any(|p| p["event_id"] == job["content_event_id"] && p["outcome"] == "accepted")
        );
    }
    let again = stdout(&mut world.resume(&state));
    assert!(!again.contains("published"), "a published job is done: {again}");

    let mut check = priorart();
    check
        .args([
            "check",
            "--json",
            "--network",
            "regtest",
            "--esplora",
            &world.regtest.esplora.url(),
            "--relay",
            &world.relay.url,
        ])
        .arg("--header-cache")
        .arg(world.dir.join("headers"))
        .arg(world.dir.join("alice.md"));
    let report: Value = serde_json::from_str(&stdout(&mut check)).unwrap();
    let proofs = report["proofs"].as_array().unwrap();
    assert_eq!(proofs.len(), 2, "{report:#}");
    assert_eq!(
        (&proofs[0]["author"], &proofs[0]["block"]["height"]),
        (&Value::from(alice_pub.clone()), &alice_height.into())
    );
    assert_eq!(
        (&proofs[1]["author"], &proofs[1]["block"]["height"]),
        (&Value::from(bob_pub), &bob_height.into())
    );
    assert_eq!(proofs[0]["content"]["found"], true, "the content event was published too: {report:#}");
    assert_eq!(report["verdict"]["status"], "proven");
    assert!(report["refused"].as_array().unwrap().is_empty());

    let x = jobs[0]["x"].as_str().unwrap();
    for job in &jobs {
        let on_relay = world.proofs_on_relay(x, job["id"].as_str().unwrap());
        assert_eq!(on_relay, vec![job["proof_event"]["id"].as_str().unwrap().to_owned()]);
    }
}

#[test]
fn protect_refuses_a_second_run_and_a_foreign_state_file() {
    let world = World::new();
    let state = world.dir.join("state");
    let _held = priorart_pipeline::RunLock::acquire(&state).unwrap();
    let out = world.resume(&state).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("holds the lock"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(_held);

    let foreign = world.dir.join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join(priorart_pipeline::STATE_FILE), b"SQLite format 3\0 but not really").unwrap();
    let out = priorart().args(["protect", "--status", "--state"]).arg(&foreign).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to touch it"));
    assert_eq!(
        std::fs::read(foreign.join(priorart_pipeline::STATE_FILE)).unwrap(),
        b"SQLite format 3\0 but not really"
    );
}

/// Runs `cmd` with the process set to abort itself at `point`; it must die there.
fn crash_at(cmd: &mut assert_cmd::Command, point: &str) {
    let out = cmd.env(priorart_pipeline::failpoint::FAILPOINT_ENV, point).output().unwrap();
    assert_eq!(out.status.signal(), Some(6), "aborted at {point}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_crash_at_any_side_effect_loses_no_job_and_publishes_one_proof() {
    let world = World::new();
    let mut expected = Vec::new();
    // Crashes while protecting a file: around the calendar call.
    for (n, point) in ["before_stamp", "after_stamp"].into_iter().enumerate() {
        let state = world.dir.join(format!("state-{point}"));
        let text = format!("{ESSAY} Crash case {n} {point}.");
        // One author per case: each case's attestation is its own.
        let (key, _) = world.key(point);
        crash_at(&mut world.protect(&state, &key, point, &text), point);
        let jobs = world.status(&state);
        assert_eq!(jobs.len(), 1, "the job was stored before the crash");
        assert_eq!(jobs[0]["state"], "signed");
        stdout(&mut world.resume(&state));
        assert_eq!(world.status(&state)[0]["state"], "stamped");
        expected.push(state);
    }
    // Crashes while resuming: around the upgrade, the 1041 store and the publish.
    let resume_points =
        ["before_upgrade", "before_store_1041", "after_store_1041", "before_publish", "after_publish"];
    let mut later = Vec::new();
    for (n, point) in resume_points.into_iter().enumerate() {
        let state = world.dir.join(format!("state-{point}"));
        let (key, _) = world.key(point);
        stdout(&mut world.protect(&state, &key, point, &format!("{ESSAY} Resume case {n}.")));
        later.push((state, point));
    }
    world.regtest.calendar.mine_block().unwrap();
    for (state, point) in &later {
        crash_at(&mut world.resume(state), point);
        let job = &world.status(state)[0];
        let expected_state = match *point {
            "before_upgrade" => "stamped",
            "before_store_1041" => "anchored",
            _ => "built",
        };
        assert_eq!(job["state"], expected_state, "{point}: {job:#}");
        stdout(&mut world.resume(state));
        expected.push(state.clone());
    }
    for state in &expected {
        stdout(&mut world.resume(state));
        let jobs = world.status(state);
        assert_eq!(jobs.len(), 1);
        let job = &jobs[0];
        assert_eq!(job["state"], "published", "{}: {job:#}", state.display());
        let on_relay = world.proofs_on_relay(job["x"].as_str().unwrap(), job["id"].as_str().unwrap());
        assert_eq!(
            on_relay,
            vec![job["proof_event"]["id"].as_str().unwrap().to_owned()],
            "{}: exactly the stored 1041 is on the relay",
            state.display()
        );
    }
}

#[test]
fn protect_wait_stays_until_the_proof_is_published() {
    let world = World::new();
    let state = world.dir.join("state");
    let (key, _) = world.key("author");
    let file = world.dir.join("waited.md");
    std::fs::write(&file, ESSAY).unwrap();
    let mut child = std::process::Command::new(priorart_binary())
        .args(["protect", "--kind", "30023", "--wait", "--interval", "0.2", "--relay", &world.relay.url])
        .args(["--calendar", &world.regtest.calendar.url()])
        .args(world.regtest.header_args())
        .arg("--state")
        .arg(&state)
        .arg("--key-file")
        .arg(&key)
        .arg(&file)
        .env_remove("PRIORART_SECRET_KEY")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while world.regtest.calendar.mine_block().is_none() {
        assert!(std::time::Instant::now() < deadline, "never stamped");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "--wait did not end once the job was published");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(status.success());
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    assert!(out.contains("anchored in Bitcoin block") && out.contains("published on"), "{out}");
    assert_eq!(world.status(&state)[0]["state"], "published");
}

#[test]
fn a_relay_down_at_first_gets_the_proof_on_a_later_resume() {
    let world = World::new();
    let state = world.dir.join("state");
    let (key, _) = world.key("author");
    let port = priorart_testkit::free_port();
    let late_url = format!("ws://127.0.0.1:{port}");
    stdout(world.protect(&state, &key, "essay", ESSAY).args(["--relay", &late_url]));
    world.regtest.calendar.mine_block().unwrap();
    stdout(&mut world.resume(&state));
    let job = &world.status(&state)[0];
    assert_eq!(job["state"], "published", "on one relay is published: {job:#}");
    let outcome = |job: &Value, relay: &str| {
        let event = job["proof_event"]["id"].clone();
        job["publications"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["event_id"] == event && p["relay"] == relay)
            .unwrap()["outcome"]
            .clone()
    };
    assert_eq!(outcome(job, &late_url), "not_sent");
    let text = world.status_text(&state);
    assert!(
        text.trim_start().starts_with("JOB") && text.lines().next().unwrap().contains("STATE"),
        "column headers: {text}"
    );
    assert!(text.contains(&format!("relay {late_url}  kind 1041 not_sent")), "each relay's answer: {text}");
    assert!(text.contains(&format!("relay {}  kind 1041 accepted", world.relay.url)), "{text}");

    let mut command = std::process::Command::new(priorart_binary());
    command
        .args(["relay", "--listen", &format!("127.0.0.1:{port}"), "--db"])
        .arg(world.dir.join("late-relay"));
    let _late = RelayProcess::spawn(command, port);
    stdout(&mut world.resume(&state));
    let job = &world.status(&state)[0];
    assert_eq!(outcome(job, &late_url), "accepted", "{job:#}");
    assert_eq!(outcome(job, &world.relay.url), "accepted", "the first answer is kept");
    let again = stdout(&mut world.resume(&state));
    assert!(!again.contains("published"), "every relay answered: nothing left to send: {again}");
}

#[test]
fn protect_signs_through_a_bunker_and_publishes_the_proof() {
    let world = World::new();
    let state = world.dir.join("state");
    let bunker = priorart_testkit::TestBunker::start(&world.relay.url, priorart_testkit::Behaviour::Honest);
    let file = world.dir.join("bunker.md");
    std::fs::write(&file, ESSAY).unwrap();
    let uri = bunker.uri();
    let output = priorart()
        .args([
            "protect",
            "--kind",
            "30023",
            "--relay",
            &world.relay.url,
            "--calendar",
            &world.regtest.calendar.url(),
        ])
        .args(["--bunker", &uri, "--bunker-timeout", "20", "--state"])
        .arg(&state)
        .args(world.regtest.header_args())
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{err}");
    let secret = uri.rsplit("secret=").next().unwrap();
    assert!(!err.contains(secret) && !String::from_utf8_lossy(&output.stdout).contains(secret));
    // One connection signs both events: the secret is spent once.
    assert_eq!(bunker.requests(), ["connect", "get_public_key", "sign_event", "sign_event"]);
    let user = bunker.user_public_key().to_hex();
    assert_eq!(world.status(&state)[0]["author"], user.as_str());
    world.regtest.calendar.mine_block().unwrap();
    stdout(&mut world.resume(&state));
    let job = &world.status(&state)[0];
    assert_eq!(job["state"], "published", "{job}");
    let x = job["x"].as_str().unwrap();
    assert_eq!(world.proofs_on_relay(x, job["id"].as_str().unwrap()).len(), 1);
    // The bunker needs --bunker-timeout only with --bunker.
    priorart().args(["protect", "--resume", "--bunker-timeout", "5", "--state"]).arg(&state).assert().code(2);
}

/// What a lying calendar costs: its proof discarded, its name in the job.
fn calendar_verdict(job: &Value, calendar: &str) -> Value {
    job["calendars"].as_array().unwrap().iter().find(|c| c["calendar"] == calendar).unwrap()["verdict"]
        .clone()
}

#[test]
fn an_honest_calendar_beside_a_liar_yields_a_valid_proof_and_the_liar_is_named() {
    let world = World::new();
    let state = world.dir.join("state");
    let (key, _) = world.key("author");
    // Block 1 exists, with another merkle root than the one the liar proves.
    let liar = world.regtest.liar(1);
    let calendars = [liar.url(), world.regtest.calendar.url()];
    stdout(&mut world.protect_at(&state, &key, "essay", ESSAY, &calendars));
    liar.mine_block().unwrap();
    let height = world.regtest.calendar.mine_block().unwrap();
    let resumed = world.resume(&state).output().unwrap();
    let said = String::from_utf8_lossy(&resumed.stderr);
    assert!(said.contains(&liar.url()) && said.contains("fails verification"), "the liar is named: {said}");
    let job = &world.status(&state)[0];
    assert_eq!(job["state"], "published", "{job:#}");
    assert_eq!(job["block"], height, "the verified block, not the claimed one");
    assert_eq!(calendar_verdict(job, &liar.url()), "lied");
    assert_eq!(calendar_verdict(job, &world.regtest.calendar.url()), "verified");
    let proofs = world.all_proofs_on_relay(job["x"].as_str().unwrap());
    assert_eq!(proofs.len(), 1);
    assert!(
        proofs.iter().all(|proof| world.verifies(proof)),
        "priorart verify accepts what protect published"
    );
    let text = world.status_text(&state);
    assert!(text.contains(&format!("calendar {}  lied", liar.url())), "{text}");
    // A regtest height is named as one, never as a Bitcoin block.
    let honest = format!("calendar {}  verified: regtest block {height}", world.regtest.calendar.url());
    assert!(text.contains(&honest), "{text}");
    assert!(!text.contains("Bitcoin block"), "{text}");
}

#[test]
fn when_every_calendar_lies_nothing_is_published_the_job_fails_and_a_restamp_recovers_it() {
    let world = World::new();
    let (key, _) = world.key("author");
    let liar = world.regtest.liar(1);
    let state = world.dir.join("state");
    stdout(world.protect_at(&state, &key, "essay", ESSAY, &[liar.url()]).args(["--give-up-after", "0.001"]));
    liar.mine_block().unwrap();
    let out = world.resume(&state).args(["--give-up-after", "0.001"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a rejected proof is a failed step");
    let job = &world.status(&state)[0];
    assert_eq!(job["state"], "failed", "{job:#}");
    let reason = job["last_error"].as_str().unwrap();
    assert!(reason.contains(&liar.url()) && reason.contains("--restamp"), "{reason}");
    assert_eq!(calendar_verdict(job, &liar.url()), "lied");
    assert!(job["block"].is_null() && job["proof"].is_null());
    let x = job["x"].as_str().unwrap().to_owned();
    assert!(world.all_proofs_on_relay(&x).is_empty(), "no kind 1041 on a lie");
    assert!(world.status_text(&state).contains("failed: every calendar lied or failed"));

    // A calendar claiming a block the chain never had: unverifiable, kept waiting.
    let dreamer = world.regtest.liar(1000);
    let waiting = world.dir.join("waiting");
    let (other, _) = world.key("other");
    stdout(&mut world.protect_at(&waiting, &other, "essay", ESSAY, &[dreamer.url()]));
    dreamer.mine_block().unwrap();
    let _ = world.resume(&waiting).output().unwrap();
    let job = &world.status(&waiting)[0];
    assert_eq!(job["state"], "stamped", "{job:#}");
    let why = job["unverified"].as_str().unwrap();
    assert!(why.contains("anchored-unverified") && why.contains("1000"), "{why}");
    assert!(world.all_proofs_on_relay(&x).is_empty(), "nothing unverified is published");

    // The way out the failure names: restamp at an honest calendar.
    let mut restamp = priorart();
    restamp
        .args(["protect", "--restamp", "1", "--calendar", &world.regtest.calendar.url()])
        .args(world.regtest.header_args());
    stdout(restamp.arg("--state").arg(&state));
    assert_eq!(world.status(&state)[0]["state"], "stamped");
    let height = world.regtest.calendar.mine_block().unwrap();
    stdout(&mut world.resume(&state));
    let job = &world.status(&state)[0];
    assert_eq!((&job["state"], &job["block"]), (&Value::from("published"), &Value::from(height)));
    let proofs = world.all_proofs_on_relay(&x);
    assert_eq!(proofs.len(), 1);
    assert!(world.verifies(&proofs[0]));
}

#[test]
fn a_job_stamped_at_a_dead_calendar_moves_when_a_later_run_names_a_working_one() {
    let world = World::new();
    let state = world.dir.join("state");
    let (key, _) = world.key("author");
    let dead = format!("http://127.0.0.1:{}", priorart_testkit::free_port());
    let out = world.protect_at(&state, &key, "essay", ESSAY, &[dead]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("--resume") && said.contains("-c URL"), "the way out is named: {said}");
    assert_eq!(said.matches("Connection refused").count(), 1, "the cause is said once: {said}");
    assert_eq!(world.status(&state)[0]["state"], "signed");
    stdout(world.resume(&state).args(["--calendar", &world.regtest.calendar.url()]));
    assert_eq!(world.status(&state)[0]["state"], "stamped", "the calendar named later stamped the old job");
    world.regtest.calendar.mine_block().unwrap();
    stdout(&mut world.resume(&state));
    assert_eq!(world.status(&state)[0]["state"], "published");
}

#[test]
fn with_no_calendar_name_resolving_protect_says_so_once_per_calendar() {
    let world = World::new();
    let state = world.dir.join("state");
    let (key, _) = world.key("author");
    // `.invalid` never resolves (RFC 6761), offline or not.
    let calendars = ["http://a.calendar.invalid".to_owned(), "http://b.calendar.invalid".to_owned()];
    let out = world.protect_at(&state, &key, "essay", ESSAY, &calendars).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("no calendar's name resolves"), "{said}");
    for calendar in &calendars {
        assert_eq!(said.matches(&format!("{calendar}/digest: name not resolved")).count(), 1, "{said}");
    }
    assert!(!said.contains("name working calendars"), "naming others does not help offline: {said}");
    assert!(!said.contains("lookup address"), "one short line per calendar: {said}");
}

#[test]
fn two_files_with_one_text_in_one_second_keep_both_content_events() {
    let world = World::new();
    let state = world.dir.join("state");
    let (key, _) = world.key("author");
    let calendars = [world.regtest.calendar.url()];
    let second = "1700000000";
    stdout(world.protect_at(&state, &key, "one", ESSAY, &calendars).args(["--created-at", second]));
    let out = world
        .protect_at(&state, &key, "two", ESSAY, &calendars)
        .args(["--created-at", second])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("job 1"), "the collision is reported");
    let jobs = world.status(&state);
    assert_eq!(jobs.len(), 2, "two files, two jobs: {jobs:#?}");
    assert_ne!(jobs[0]["content_event_id"], jobs[1]["content_event_id"]);
    assert_ne!(jobs[0]["id"], jobs[1]["id"]);
    world.regtest.calendar.mine_block().unwrap();
    stdout(&mut world.resume(&state));
    for job in world.status(&state) {
        assert_eq!(job["state"], "published", "{job:#}");
        let publications = job["publications"].as_array().unwrap();
        assert!(
            publications
                .iter()
                .any(|p| p["event_id"] == job["content_event_id"] && p["outcome"] == "accepted")
        );
        assert!(world.verifies(&job["proof_event"]));
    }
}

#[test]
fn a_stamped_job_whose_calendars_all_lie_is_stamped_at_a_calendar_named_later() {
    let world = World::new();
    let state = world.dir.join("state");
    let (key, _) = world.key("author");
    let liar = world.regtest.liar(1);
    stdout(&mut world.protect_at(&state, &key, "essay", ESSAY, &[liar.url()]));
    liar.mine_block().unwrap();
    let out = world.resume(&state).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(world.status(&state)[0]["state"], "stamped", "not failed yet: the give-up time is a week");
    // A later run names an honest calendar: the old job is stamped there too.
    let _ = world.resume(&state).args(["--calendar", &world.regtest.calendar.url()]).output().unwrap();
    assert_eq!(world.regtest.calendar.submissions(), 1, "the old job reached the calendar named later");
    let height = world.regtest.calendar.mine_block().unwrap();
    let _ = world.resume(&state).output().unwrap();
    let job = &world.status(&state)[0];
    assert_eq!((&job["state"], &job["block"]), (&Value::from("published"), &Value::from(height)), "{job:#}");
    assert!(world.verifies(&job["proof_event"]));
}

/// A job's per-relay answer about its kind 1041: (outcome, message).
fn proof_answer(job: &Value, relay: &str) -> Option<(String, String)> {
    let event = job["proof_event"]["id"].clone();
    job["publications"].as_array()?.iter().find(|p| p["event_id"] == event && p["relay"] == relay).map(|p| {
        (
            p["outcome"].as_str().unwrap_or_default().to_owned(),
            p["message"].as_str().unwrap_or_default().to_owned(),
        )
    })
}

#[test]
fn a_job_stuck_on_a_silent_relay_moves_to_the_relay_named_now_and_republish_sends_it_again() {
    let world = World::new();
    let state = world.dir.join("state");
    let (key, _) = world.key("author");
    // The only relay the job is stored with takes connections and says nothing.
    let silent = priorart_testkit::ScriptedRelay::silent();
    let file = world.dir.join("essay.md");
    std::fs::write(&file, ESSAY).unwrap();
    let mut first = priorart();
    first
        .args(["protect", "--kind", "30023", "--title", "Essay", "--relay-timeout", "1"])
        .args(["--relay", &silent.url(), "--calendar", &world.regtest.calendar.url()])
        .args(world.regtest.header_args())
        .arg("--state")
        .arg(&state)
        .arg("--key-file")
        .arg(&key)
        .arg(&file);
    first.output().unwrap();
    world.regtest.calendar.mine_block().unwrap();
    let mut resume = priorart();
    resume
        .args(["protect", "--resume", "--relay-timeout", "1"])
        .args(world.regtest.header_args())
        .arg("--state")
        .arg(&state);
    assert_eq!(resume.output().unwrap().status.code(), Some(1));
    let job = &world.status(&state)[0];
    assert_eq!(job["state"], "built", "{job:#}");
    // Silent is "no answer within 1 s", not "not sent", and last_error says so.
    assert_eq!(
        proof_answer(job, &silent.url()),
        Some(("no_answer".into(), "no answer within 1 s".into())),
        "{job:#}"
    );
    let error = job["last_error"].as_str().unwrap_or_default();
    assert!(error.contains(&silent.url()) && error.contains("no answer within 1 s"), "{job:#}");

    // Resumed with a working relay named: the unpublished job goes there.
    // (The silent relay, the job's own, is asked again: one second each time.)
    let mut resume = priorart();
    resume
        .args(["protect", "--resume", "--relay-timeout", "1", "--relay", &world.relay.url])
        .args(world.regtest.header_args())
        .arg("--state")
        .arg(&state);
    stdout(&mut resume);
    let job = &world.status(&state)[0];
    assert_eq!(job["state"], "published", "{job:#}");
    assert_eq!(proof_answer(job, &world.relay.url).unwrap().0, "accepted", "{job:#}");
    assert!(job["last_error"].is_null(), "a published job has no error left: {job:#}");

    // A relay that lost it (here: a new one) gets the built proof again.
    let other = RelayProcess::priorart(&world.dir.join("other-relay"));
    let mut republish = priorart();
    republish
        .args(["protect", "--republish", "1", "--relay-timeout", "1", "--relay", &other.url])
        .args(world.regtest.header_args())
        .arg("--state")
        .arg(&state);
    let out = republish.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let job = &world.status(&state)[0];
    assert_eq!(job["state"], "published");
    assert_eq!(proof_answer(job, &other.url).unwrap().0, "accepted", "{job:#}");
}
