//! `priorart serve` end to end on regtest (loopback calendars, a mined
//! block, a `priorart relay` process, `priorart check` afterwards), its
//! refusals (malformed JSON, every tamper case of the verifier's step 3, an
//! oversized body, a flood from one client), and crashes: the process
//! aborted at each side-effect boundary, restarted, every job completed
//! once, one kind 1041 per attestation on the relay.

use crate::nip_common;
use crate::relay_common;
use crate::serve_common;

use nip_common::stdout;
use priorart_nip::nostr::prelude::{
    EventBuilder, EventId, Filter, FinalizeEvent, Keys, Kind, SingleLetterTag, Tag, Timestamp,
};
use priorart_nip::{Attestation, ContentEvent};
use priorart_nip_testkit::{RegtestWorld, priorart};
use relay_common::RelayProcess;
use serde_json::{Value, json};
use serve_common::{ServeProcess, client, get, post, wait_until};
use std::path::PathBuf;
use std::time::Duration;

const TEXT: &str = "Lighthouse keepers logged every ship, storm and lamp change in bound \
    journals; read together, a century of those entries maps how coastal trade, fuel and \
    technology changed, one careful night at a time, along an entire shoreline.";

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

    /// `priorart serve` on this world's calendar and relay, a round every `interval` seconds.
    fn serve(&self, interval: &str, extra: &[&str], failpoint: Option<&str>) -> ServeProcess {
        self.serve_at(&[self.regtest.calendar.url()], interval, extra, failpoint)
    }

    /// `priorart serve` stamping at `calendars`.
    fn serve_at(
        &self,
        calendars: &[String],
        interval: &str,
        extra: &[&str],
        failpoint: Option<&str>,
    ) -> ServeProcess {
        let headers = self.regtest.header_args();
        let mut args: Vec<&str> = vec!["--relay", &self.relay.url, "--interval", interval];
        for calendar in calendars {
            args.extend(["--calendar", calendar.as_str()]);
        }
        args.extend(headers.iter().map(String::as_str));
        args.extend_from_slice(extra);
        ServeProcess::start(&self.dir.join("state"), &args, failpoint)
    }

    /// `priorart verify` of a kind 1041 (JSON) against this chain: whether it is VALID.
    fn verifies(&self, event: &Value) -> bool {
        let path = self.dir.join(format!("{}.json", event["id"].as_str().unwrap()));
        std::fs::write(&path, event.to_string()).unwrap();
        self.regtest.verifies(&path)
    }

    /// Every kind 1041 on the relay for these X values, with the
    /// attestation id each embeds, sorted.
    fn proofs_on_relay(&self, xs: &[String]) -> Vec<(String, String)> {
        let relay = priorart_relay::parse_relay_url(&self.relay.url).unwrap();
        let filter =
            Filter::new().kind(Kind::from_u16(1041)).custom_tags(SingleLetterTag::UPPERCASE_X, xs.to_vec());
        let answers =
            priorart_relay::query(&[relay], &filter, &priorart_relay::QueryLimits::default()).unwrap();
        answers[0]
            .events
            .iter()
            .map(|event| {
                let description = event.tags.iter().find(|tag| tag.as_slice()[0] == "description").unwrap();
                let attestation: Value = serde_json::from_str(&description.as_slice()[1]).unwrap();
                (attestation["id"].as_str().unwrap().to_owned(), event.id.to_hex())
            })
            .collect::<Vec<_>>()
            .tap_sort()
    }
}

/// An author's article: the content event (published by the author) and
/// the submission for the service.
fn article(keys: &Keys, d: &str, text: &str) -> (String, Value) {
    let content =
        ContentEvent { d: Some(d), ..ContentEvent::new(30023, text, Timestamp::now()) }.sign(keys).unwrap();
    let x = priorart_fingerprint::minhash_equality_v1(text);
    let attestation = Attestation::sign(keys, x, Some(30023), Timestamp::now()).unwrap();
    let submission = json!({
        "attestation": serde_json::from_str::<Value>(&attestation.to_json()).unwrap(),
        "a": format!("30023:{}:{d}", keys.public_key().to_hex()),
    });
    (priorart_nip::to_json(&content), submission)
}

/// Sorting in place, as an expression.
trait TapSort {
    fn tap_sort(self) -> Self;
}

impl<T: Ord> TapSort for Vec<T> {
    fn tap_sort(mut self) -> Self {
        self.sort();
        self
    }
}

/// The X of each job (JSON from the API), each once.
fn xs_of(jobs: &[Value]) -> Vec<String> {
    let mut xs: Vec<String> = jobs.iter().map(|job| job["x"].as_str().unwrap().to_owned()).collect();
    xs.sort();
    xs.dedup();
    xs
}

fn submit(agent: &ureq::Agent, serve: &ServeProcess, submission: &Value) -> (u16, Value) {
    post(agent, &format!("{}/v1/attestations", serve.url), submission.to_string().as_bytes())
        .expect("answered")
}

#[test]
fn serve_batches_anchors_and_publishes_and_check_finds_the_proofs() {
    let world = World::new();
    let serve = world.serve("2", &[], None);
    let agent = client();
    let authors: Vec<Keys> = (0..3).map(|_| Keys::generate()).collect();
    let mut ids = Vec::new();
    let mut contents = Vec::new();
    for (n, keys) in authors.iter().enumerate() {
        let (content, submission) = article(keys, "essay", &format!("{TEXT} Author {n}."));
        contents.push(content);
        let (status, answer) = submit(&agent, &serve, &submission);
        assert_eq!(status, 202, "{answer}");
        assert_eq!(answer["new"], true);
        let (again, repeated) = submit(&agent, &serve, &submission);
        assert_eq!((again, &repeated["id"], &repeated["new"]), (202, &answer["id"], &json!(false)));
        ids.push(answer["id"].as_str().unwrap().to_owned());
    }
    let contents_file = relay_common::write_lines(&world.dir, "contents.jsonl", &contents);
    stdout(priorart().args(["publish", "--relay", &world.relay.url]).arg(contents_file));

    for id in &ids {
        let url = format!("{}/v1/attestations/{id}", serve.url);
        let job = wait_until(&agent, &url, Duration::from_secs(20), |job| job["state"] == "stamped");
        assert!(job["proof"].is_null(), "no proof shown before the block");
    }
    assert!(world.regtest.calendar.submissions() <= 2, "one POST per interval, not per attestation");
    let height = world.regtest.calendar.mine_block().unwrap();
    let mut published = Vec::new();
    for id in &ids {
        let url = format!("{}/v1/attestations/{id}", serve.url);
        let job = wait_until(&agent, &url, Duration::from_secs(30), |job| job["state"] == "published");
        assert_eq!(job["block"], height);
        assert!(job["proof"].as_str().is_some_and(|proof| !proof.is_empty()));
        assert_eq!(job["proof_event"]["kind"], 1041);
        let on = job["publications"].as_array().unwrap();
        assert!(on.iter().any(|p| p["relay"] == world.relay.url && p["outcome"] == "accepted"), "{job:#}");
        published.push(job);
    }
    let signers: Vec<&Value> = published.iter().map(|job| &job["proof_event"]["pubkey"]).collect();
    assert!(signers.iter().all(|signer| *signer == signers[0]), "the service signs with its own key");

    let file = world.dir.join("author0.md");
    std::fs::write(&file, format!("{TEXT} Author 0.")).unwrap();
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
        .arg(&file);
    let report: Value = serde_json::from_str(&stdout(&mut check)).unwrap();
    let proofs = report["proofs"].as_array().unwrap();
    let same_x = published.iter().filter(|job| job["x"] == published[0]["x"]).count();
    assert_eq!(proofs.len(), same_x, "every proof of this X: {report:#}");
    assert!(proofs.iter().all(|proof| proof["block"]["height"] == height));
    assert!(proofs.iter().all(|proof| proof["content"]["found"] == true), "{report:#}");
    assert_eq!(report["verdict"]["status"], "proven");

    let expected: Vec<(String, String)> = published
        .iter()
        .map(|job| {
            (job["id"].as_str().unwrap().to_owned(), job["proof_event"]["id"].as_str().unwrap().to_owned())
        })
        .collect::<Vec<_>>()
        .tap_sort();
    assert_eq!(world.proofs_on_relay(&xs_of(&published)), expected, "one kind 1041 per attestation");

    let (status, metrics) = get(&agent, &format!("{}/metrics", serve.url));
    assert_eq!(status, 200);
    let metrics = metrics.as_str().unwrap();
    assert!(metrics.contains("priorart_jobs{state=\"published\"} 3"), "{metrics}");
    assert!(metrics.contains("priorart_requests_total{outcome=\"accepted\"} 3"), "{metrics}");
    assert!(metrics.contains("priorart_requests_total{outcome=\"repeated\"} 3"), "{metrics}");
    assert_eq!(get(&agent, &format!("{}/healthz", serve.url)), (200, Value::String("ok\n".into())));
}

fn signed(keys: &Keys, kind: u16, content: &str, tags: &[&[&str]]) -> String {
    let tags =
        tags.iter().map(|tag| Tag::parse(tag.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap());
    priorart_nip::to_json(
        &EventBuilder::new(Kind::from_u16(kind), content).tags(tags).finalize(keys).unwrap(),
    )
}

#[test]
fn serve_refuses_bad_input_with_named_reasons_and_queues_nothing() {
    let world = World::new();
    let serve = world.serve("0.3", &["--rate-limit", "40", "--max-body", "4096"], None);
    let agent = client();
    let alice = Keys::generate();
    let mallory = Keys::generate();
    let fingerprint = priorart_fingerprint::minhash_equality_v1(TEXT);
    let x = fingerprint.to_string();
    let good_event =
        Attestation::sign(&alice, fingerprint, Some(30023), Timestamp::now()).unwrap().event().clone();
    let good: Value = serde_json::from_str(&priorart_nip::to_json(&good_event)).unwrap();
    let tampered = |member: &str, value: Value| {
        let mut event = good.clone();
        event[member] = value;
        event
    };
    let with_mallory_key = {
        let mut event = good_event.clone();
        event.pubkey = mallory.public_key();
        event.id =
            EventId::compute(&event.pubkey, &event.created_at, &event.kind, &event.tags, &event.content);
        serde_json::from_str::<Value>(&priorart_nip::to_json(&event)).unwrap()
    };
    let other_sig = mallory.sign_schnorr(good_event.id.as_bytes()).to_hex();
    let xt: &[&str] = &["X", &x, "minhash-equality-v1"];
    let event = |json: String| serde_json::from_str::<Value>(&json).unwrap();
    let cases = [
        (tampered("id", json!("00".repeat(32))), "attestation_id_mismatch"),
        (tampered("sig", json!(other_sig)), "attestation_bad_signature"),
        (tampered("pubkey", json!(mallory.public_key().to_hex())), "attestation_id_mismatch"),
        (with_mallory_key, "attestation_bad_signature"),
        (tampered("content", json!("mine")), "attestation_id_mismatch"),
        (tampered("kind", json!(1)), "attestation_id_mismatch"),
        (event(signed(&alice, 1, "", &[xt])), "attestation_wrong_kind"),
        (event(signed(&alice, 1042, "mine", &[xt])), "attestation_content_not_empty"),
        (event(signed(&alice, 1042, "", &[xt, xt])), "attestation_x_repeated"),
        (
            event(signed(&alice, 1042, "", &[&["X", &x, "simhash-equality-v2"]])),
            "attestation_wrong_algorithm",
        ),
        (event(signed(&alice, 1042, "", &[&["X", "abc", "minhash-equality-v1"]])), "attestation_x_malformed"),
        (event(signed(&alice, 1042, "", &[])), "attestation_x_missing"),
        (event(signed(&alice, 1042, "", &[xt, &["k", "article"]])), "attestation_k_malformed"),
        (event(signed(&alice, 1042, "", &[xt, &["e", &x]])), "attestation_unexpected_tag"),
    ];
    let coordinate = format!("30023:{}:essay", alice.public_key().to_hex());
    for (attestation, reason) in &cases {
        let (status, answer) = submit(&agent, &serve, &json!({"attestation": attestation, "a": coordinate}));
        assert_eq!((status, answer["error"].as_str().unwrap()), (422, *reason), "{answer}");
    }
    let others = [
        (
            json!({"attestation": good, "a": format!("30023:{}:essay", mallory.public_key().to_hex())}),
            422,
            "author_mismatch",
        ),
        (json!({"attestation": good, "a": "1:abc:essay"}), 422, "author_malformed"),
        (json!({"attestation": good, "a": coordinate, "e": x}), 400, "content_reference_ambiguous"),
        (json!({"attestation": good}), 400, "content_reference_missing"),
        (json!({"a": coordinate}), 400, "attestation_missing"),
        (json!({"attestation": "{not json", "a": coordinate}), 422, "attestation_not_event"),
        (
            json!({"attestation": good, "a": format!("30024:{}:essay", alice.public_key().to_hex())}),
            422,
            "k_mismatch",
        ),
        (
            json!({"attestation": good, "a": coordinate, "relays": ["http://example.com"]}),
            400,
            "relays_malformed",
        ),
        (json!([1, 2, 3]), 400, "malformed_json"),
    ];
    for (body, expected_status, reason) in &others {
        let (status, answer) = submit(&agent, &serve, body);
        assert_eq!(
            (status, answer["error"].as_str().unwrap()),
            (*expected_status, *reason),
            "{body} → {answer}"
        );
    }
    let url = format!("{}/v1/attestations", serve.url);
    let (status, answer) = post(&agent, &url, b"{\"attestation\": ").unwrap();
    assert_eq!((status, answer["error"].as_str().unwrap()), (400, "malformed_json"));
    let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(5000));
    let (status, answer) = post(&agent, &url, big.as_bytes()).unwrap();
    assert_eq!((status, answer["error"].as_str().unwrap()), (413, "body_refused"), "{answer}");
    let (status, answer) = get(&agent, &format!("{url}/{}", "ab".repeat(32)));
    assert_eq!((status, answer["error"].as_str().unwrap()), (404, "unknown_attestation"));
    let (status, answer) = get(&agent, &format!("{url}/not-an-id"));
    assert_eq!((status, answer["error"].as_str().unwrap()), (400, "id_malformed"));

    // A flood from one client: 40 requests a minute, then 429.
    let mut refused = 0;
    for _ in 0..40 {
        let (status, answer) = post(&agent, &url, b"{}").unwrap();
        if status == 429 {
            assert_eq!(answer["error"], "rate_limited");
            refused += 1;
        }
    }
    assert!(refused > 0, "the flood is refused");
    // Two whole rounds after the last request: had anything been queued,
    // it would have gone to the calendar.
    let rounds = |metrics: &str| -> u64 {
        metrics.lines().find_map(|line| line.strip_prefix("priorart_rounds_total ")).unwrap().parse().unwrap()
    };
    let metrics_url = format!("{}/metrics", serve.url);
    let after_requests = rounds(get(&agent, &metrics_url).1.as_str().unwrap());
    let metrics = wait_until(&agent, &metrics_url, Duration::from_secs(20), |metrics| {
        rounds(metrics.as_str().unwrap()) >= after_requests + 2
    });
    let metrics = metrics.as_str().unwrap();
    for state in ["signed", "stamped", "anchored", "built", "published"] {
        assert!(
            metrics.contains(&format!("priorart_jobs{{state=\"{state}\"}} 0")),
            "nothing queued: {metrics}"
        );
    }
    assert!(metrics.contains(&format!("priorart_requests_total{{outcome=\"invalid\"}} {}", cases.len() + 4)));
    assert!(metrics.contains(&format!("priorart_requests_total{{outcome=\"rate_limited\"}} {refused}")));
    assert_eq!(world.regtest.calendar.submissions(), 0, "nothing reached a calendar");
}

#[test]
fn serve_killed_at_every_side_effect_completes_each_job_once() {
    let world = World::new();
    let agent = client();
    let submissions: Vec<Value> =
        (0..3).map(|n| article(&Keys::generate(), "essay", &format!("{TEXT} Crash {n}.")).1).collect();

    // Aborts after committing the first job, before answering.
    let serve = world.serve("0.3", &[], Some("after_accept"));
    assert!(
        post(&agent, &format!("{}/v1/attestations", serve.url), submissions[0].to_string().as_bytes())
            .is_none()
    );
    assert_eq!(serve.wait_for_exit(Duration::from_secs(10)), Some(6));

    // The job was kept; the next run aborts after the calendar answered.
    let serve = world.serve("3", &[], Some("after_stamp"));
    let (status, answer) = submit(&agent, &serve, &submissions[0]);
    assert_eq!((status, &answer["new"]), (202, &json!(false)), "{answer}");
    for submission in &submissions[1..] {
        assert_eq!(submit(&agent, &serve, submission).0, 202);
    }
    assert_eq!(serve.wait_for_exit(Duration::from_secs(20)), Some(6));
    let ids: Vec<String> =
        submissions.iter().map(|s| s["attestation"]["id"].as_str().unwrap().to_owned()).collect();

    // Stamped again; then aborted before the 1041s are stored.
    let serve = world.serve("0.3", &[], Some("before_store_1041"));
    for id in &ids {
        wait_until(&agent, &format!("{}/v1/attestations/{id}", serve.url), Duration::from_secs(20), |job| {
            job["state"] == "stamped"
        });
    }
    world.regtest.calendar.mine_block().unwrap();
    assert_eq!(serve.wait_for_exit(Duration::from_secs(20)), Some(6));

    // Built and stored, sent, then aborted before the answers are recorded.
    let serve = world.serve("0.3", &[], Some("after_publish"));
    assert_eq!(serve.wait_for_exit(Duration::from_secs(30)), Some(6));

    // Restarted for good: the stored events are sent again (duplicates).
    let serve = world.serve("0.3", &[], None);
    let mut expected = Vec::new();
    let mut jobs = Vec::new();
    for id in &ids {
        let job = wait_until(
            &agent,
            &format!("{}/v1/attestations/{id}", serve.url),
            Duration::from_secs(30),
            |job| job["state"] == "published",
        );
        expected.push((id.clone(), job["proof_event"]["id"].as_str().unwrap().to_owned()));
        jobs.push(job);
    }
    expected.sort();
    assert_eq!(
        world.proofs_on_relay(&xs_of(&jobs)),
        expected,
        "exactly the stored 1041 of each attestation, once"
    );
}

/// A calendar's last verdict about a job (from the API).
fn calendar_verdict(job: &Value, calendar: &str) -> Value {
    job["calendars"].as_array().unwrap().iter().find(|c| c["calendar"] == calendar).unwrap()["verdict"]
        .clone()
}

/// `priorart_calendar_rejected_proofs_total` of `calendar`, if reported.
fn rejected_proofs(metrics: &str, calendar: &str) -> Option<u64> {
    let prefix = format!("priorart_calendar_rejected_proofs_total{{calendar=\"{calendar}\"}} ");
    metrics.lines().find_map(|line| line.strip_prefix(&prefix)).map(|n| n.parse().unwrap())
}

#[test]
fn calendar_errors_are_counted_per_calendar() {
    let world = World::new();
    // Nothing listens on the discard port: every request to it fails at once.
    let dead = "http://127.0.0.1:9".to_owned();
    let serve = world.serve_at(&[dead.clone(), world.regtest.calendar.url()], "0.3", &["-m", "1"], None);
    let agent = client();
    let (_, submission) = article(&Keys::generate(), "essay", TEXT);
    let (status, answer) = submit(&agent, &serve, &submission);
    assert_eq!(status, 202, "{answer}");
    let url = format!("{}/v1/attestations/{}", serve.url, answer["id"].as_str().unwrap());
    wait_until(&agent, &url, Duration::from_secs(20), |job| job["state"] == "stamped");
    let (_, metrics) = get(&agent, &format!("{}/metrics", serve.url));
    let metrics = metrics.as_str().unwrap();
    let errors = |calendar: &str| {
        let prefix = format!("priorart_calendar_errors_total{{calendar=\"{calendar}\"}} ");
        metrics.lines().find_map(|line| line.strip_prefix(&prefix)).map(|n| n.parse::<u64>().unwrap())
    };
    assert!(errors(&dead).is_some_and(|n| n >= 1), "the dead calendar is named: {metrics}");
    assert_eq!(errors(&world.regtest.calendar.url()), None, "{metrics}");
}

#[test]
fn a_lasting_calendar_failure_is_logged_once_not_every_round() {
    let world = World::new();
    let dead = "http://127.0.0.1:9".to_owned();
    let serve = world.serve_at(&[dead], "0.2", &[], None);
    let agent = client();
    let (_, submission) = article(&Keys::generate(), "essay", TEXT);
    let (status, answer) = submit(&agent, &serve, &submission);
    assert_eq!(status, 202, "{answer}");
    let metrics_url = format!("{}/metrics", serve.url);
    // Several rounds fail the same way.
    wait_until(&agent, &metrics_url, Duration::from_secs(20), |metrics| {
        let rounds =
            metrics.as_str().unwrap().lines().find_map(|line| line.strip_prefix("priorart_rounds_total "));
        rounds.is_some_and(|n| n.parse::<u64>().unwrap() >= 5)
    });
    let log = serve.log();
    let said = log.iter().filter(|line| line.contains("cannot stamp")).count();
    assert_eq!(said, 1, "{log:#?}");
}

#[test]
fn an_honest_calendar_beside_a_liar_yields_valid_proofs_and_the_liar_is_counted() {
    let world = World::new();
    // Block 1 exists, with another merkle root than the one the liar proves.
    let liar = world.regtest.liar(1);
    let serve = world.serve_at(&[liar.url(), world.regtest.calendar.url()], "0.3", &[], None);
    let agent = client();
    let mut ids = Vec::new();
    for n in 0..3 {
        let (_, submission) = article(&Keys::generate(), "essay", &format!("{TEXT} Author {n}."));
        let (status, answer) = submit(&agent, &serve, &submission);
        assert_eq!(status, 202, "{answer}");
        ids.push(answer["id"].as_str().unwrap().to_owned());
    }
    for id in &ids {
        let url = format!("{}/v1/attestations/{id}", serve.url);
        wait_until(&agent, &url, Duration::from_secs(20), |job| job["state"] == "stamped");
    }
    // The liar answers first, then the honest calendar's block.
    liar.mine_block().unwrap();
    let height = world.regtest.calendar.mine_block().unwrap();
    let mut published = Vec::new();
    for id in &ids {
        let url = format!("{}/v1/attestations/{id}", serve.url);
        let job = wait_until(&agent, &url, Duration::from_secs(30), |job| job["state"] == "published");
        assert_eq!(job["block"], height, "the verified block: {job:#}");
        assert_eq!(calendar_verdict(&job, &liar.url()), "lied");
        assert_eq!(calendar_verdict(&job, &world.regtest.calendar.url()), "verified");
        assert!(world.verifies(&job["proof_event"]), "priorart verify accepts what serve published");
        published.push(job);
    }
    let on_relay = world.proofs_on_relay(&xs_of(&published));
    assert_eq!(on_relay.len(), 3, "one kind 1041 per attestation, none from the liar");
    let (_, metrics) = get(&agent, &format!("{}/metrics", serve.url));
    let metrics = metrics.as_str().unwrap();
    assert_eq!(rejected_proofs(metrics, &liar.url()), Some(3), "{metrics}");
    assert_eq!(rejected_proofs(metrics, &world.regtest.calendar.url()), None, "{metrics}");
}

#[test]
fn when_every_calendar_lies_serve_publishes_nothing_fails_the_job_and_can_restamp_it() {
    let world = World::new();
    let liar = world.regtest.liar(1);
    let serve = world.serve_at(&[liar.url()], "0.3", &["--give-up-after", "0.001"], None);
    let agent = client();
    let (_, submission) = article(&Keys::generate(), "essay", TEXT);
    let (status, answer) = submit(&agent, &serve, &submission);
    assert_eq!(status, 202, "{answer}");
    let url = format!("{}/v1/attestations/{}", serve.url, answer["id"].as_str().unwrap());
    wait_until(&agent, &url, Duration::from_secs(20), |job| job["state"] == "stamped");
    liar.mine_block().unwrap();
    let job = wait_until(&agent, &url, Duration::from_secs(30), |job| job["state"] == "failed");
    let reason = job["last_error"].as_str().unwrap();
    assert!(reason.contains(&liar.url()) && reason.contains("restamp"), "{reason}");
    assert!(job["block"].is_null() && job["proof_event"].is_null(), "{job:#}");
    assert!(world.proofs_on_relay(&xs_of(&[job])).is_empty(), "no kind 1041 on a lie");
    let (_, metrics) = get(&agent, &format!("{}/metrics", serve.url));
    let metrics = metrics.as_str().unwrap();
    assert_eq!(rejected_proofs(metrics, &liar.url()), Some(1), "{metrics}");
    assert!(metrics.contains("priorart_jobs{state=\"failed\"} 1"), "{metrics}");

    let (status, restamped) = post(&agent, &format!("{url}/restamp"), b"").expect("answered");
    assert_eq!((status, &restamped["state"]), (202, &json!("signed")), "{restamped}");
    wait_until(&agent, &url, Duration::from_secs(20), |job| job["state"] == "stamped");
    assert_eq!(liar.submissions(), 2, "stamped again");
}

#[test]
fn serve_refuses_a_damaged_store_before_it_listens() {
    let world = World::new();
    let state = world.dir.join("damaged");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join(priorart_pipeline::STATE_FILE), b"this is no database at all, just bytes")
        .unwrap();
    let out = priorart()
        .args(["serve", "--listen", "127.0.0.1:0", "--relay", &world.relay.url])
        .args(world.regtest.header_args())
        .arg("--state")
        .arg(&state)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("damaged"), "{said}");
    assert!(!said.contains("listening"), "nothing listens on a store it cannot open: {said}");
}

#[test]
fn the_same_attestation_with_another_reference_is_a_conflict_naming_both() {
    let world = World::new();
    let serve = world.serve("60", &[], None);
    let agent = client();
    let keys = Keys::generate();
    let (_, submission) = article(&keys, "essay", TEXT);
    let (status, first) = submit(&agent, &serve, &submission);
    assert_eq!(status, 202, "{first}");
    let mut elsewhere = submission.clone();
    elsewhere["a"] = json!(format!("30023:{}:other", keys.public_key().to_hex()));
    let (status, conflict) = submit(&agent, &serve, &elsewhere);
    assert_eq!(status, 409, "{conflict}");
    assert_eq!(conflict["error"], "reference_conflict");
    assert_eq!(conflict["stored"]["a"], submission["a"]);
    assert_eq!(conflict["submitted"]["a"], elsewhere["a"]);
    let (status, again) = submit(&agent, &serve, &submission);
    assert_eq!((status, &again["new"]), (202, &json!(false)), "the same reference again is a repeat");
}

/// The `Access-Control-Allow-Origin` of an answer to a request from `origin`.
fn allowed_origin(response: &ureq::http::Response<ureq::Body>) -> Option<String> {
    let value = response.headers().get("access-control-allow-origin")?;
    Some(value.to_str().unwrap().to_owned())
}

#[test]
fn serve_answers_cors_for_the_origins_it_is_given_and_no_other() {
    let world = World::new();
    let page = "http://page.example:8000";
    let serve = world.serve("60", &["--cors-origin", page, "--cors-origin", "HTTPS://Other.example/"], None);
    let agent = client();
    let url = format!("{}/v1/attestations", serve.url);
    let preflight = |origin: &str| {
        agent
            .options(&url)
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "content-type")
            .call()
            .expect("preflight answered")
    };
    let allowed = preflight(page);
    assert!(allowed.status().is_success(), "{:?}", allowed.status());
    assert_eq!(allowed_origin(&allowed).as_deref(), Some(page));
    let header = |name: &str| allowed.headers().get(name).unwrap().to_str().unwrap().to_ascii_lowercase();
    assert!(header("access-control-allow-methods").contains("post"));
    assert!(header("access-control-allow-headers").contains("content-type"));
    assert_eq!(allowed_origin(&preflight("https://other.example")).as_deref(), Some("https://other.example"));
    for stranger in ["http://evil.example", "http://page.example:8001", "https://page.example:8000"] {
        assert_eq!(allowed_origin(&preflight(stranger)), None, "{stranger}");
    }

    let (_, submission) = article(&Keys::generate(), "essay", TEXT);
    let post_from = |origin: &str| {
        agent
            .post(&url)
            .header("Origin", origin)
            .header("Content-Type", "application/json")
            .send(submission.to_string().as_bytes())
            .expect("answered")
    };
    let accepted = post_from(page);
    assert_eq!(accepted.status(), 202);
    assert_eq!(allowed_origin(&accepted).as_deref(), Some(page));
    let repeated = post_from("http://evil.example");
    assert_eq!(repeated.status(), 202, "CORS is the browser's rule: the API still answers");
    assert_eq!(allowed_origin(&repeated), None);
    let id = submission["attestation"]["id"].as_str().unwrap();
    let status = agent.get(&format!("{url}/{id}")).header("Origin", page).call().unwrap();
    assert_eq!((status.status().as_u16(), allowed_origin(&status).as_deref()), (200, Some(page)));
}

#[test]
fn serve_without_cors_origins_sends_no_cors_headers_and_refuses_a_bad_origin() {
    let world = World::new();
    let serve = world.serve("60", &[], None);
    let preflight = client()
        .options(&format!("{}/v1/attestations", serve.url))
        .header("Origin", "http://page.example")
        .header("Access-Control-Request-Method", "POST")
        .call()
        .expect("answered");
    assert_eq!(allowed_origin(&preflight), None);
    drop(serve);
    for bad in ["page.example", "http://page.example/app", "http://page.example:99999", "*,http://a.example"]
    {
        let mut args = vec!["serve", "--listen", "127.0.0.1:0", "--relay", &world.relay.url];
        for origin in bad.split(',') {
            args.extend(["--cors-origin", origin]);
        }
        let out = priorart()
            .args(&args)
            .args(world.regtest.header_args())
            .arg("--state")
            .arg(world.dir.join("s"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {said}");
        assert!(said.contains("CORS origin"), "{said}");
    }
}

#[test]
fn serve_web_serves_the_page_beside_the_api() {
    let world = World::new();
    let page = world.dir.join("page");
    std::fs::create_dir_all(&page).unwrap();
    std::fs::write(page.join("index.html"), "<!doctype html><title>priorart</title>").unwrap();
    let serve = world.serve("60", &["--web", page.to_str().unwrap()], None);
    let agent = client();
    let (status, body) = get(&agent, &format!("{}/", serve.url));
    assert_eq!((status, body.as_str()), (200, Some("<!doctype html><title>priorart</title>")));
    assert_eq!(get(&agent, &format!("{}/healthz", serve.url)).0, 200, "the API is still there");
    assert_eq!(get(&agent, &format!("{}/missing.js", serve.url)).0, 404);
}

#[test]
fn an_unpublished_job_goes_to_the_relays_serve_runs_with_after_a_restart() {
    let world = World::new();
    // The only relay of the first run takes connections and says nothing.
    let silent = priorart_testkit::ScriptedRelay::silent();
    let state = world.dir.join("state");
    let calendar = world.regtest.calendar.url();
    let headers = world.regtest.header_args();
    let start = |relay: &str| {
        let mut args =
            vec!["--relay", relay, "--relay-timeout", "1", "--interval", "0.3", "--calendar", &calendar];
        args.extend(headers.iter().map(String::as_str));
        ServeProcess::start(&state, &args, None)
    };
    let serve = start(&silent.url());
    let agent = client();
    let (_, submission) = article(&Keys::generate(), "essay", TEXT);
    let (status, answer) = submit(&agent, &serve, &submission);
    assert_eq!(status, 202, "{answer}");
    let id = answer["id"].as_str().unwrap().to_owned();
    let url = format!("{}/v1/attestations/{id}", serve.url);
    wait_until(&agent, &url, Duration::from_secs(20), |job| job["state"] == "stamped");
    world.regtest.calendar.mine_block().unwrap();
    // Built, sent, unanswered: said as such, in last_error too.
    let job = wait_until(&agent, &url, Duration::from_secs(30), |job| {
        job["last_error"].as_str().is_some_and(|error| error.contains("no answer within 1 s"))
    });
    assert_eq!(job["state"], "built", "{job:#}");
    let event = job["proof_event"]["id"].clone();
    let silent_answer =
        job["publications"].as_array().unwrap().iter().find(|p| p["event_id"] == event).unwrap().clone();
    assert_eq!(
        (&silent_answer["outcome"], &silent_answer["message"]),
        (&json!("no_answer"), &json!("no answer within 1 s"))
    );
    // The re-send endpoint: 202 on a built proof, 404 for no job.
    let (status, again) = post(&agent, &format!("{url}/republish"), b"").expect("answered");
    assert_eq!((status, &again["state"]), (202, &json!("built")), "{again}");
    let unknown = format!("{}/v1/attestations/{}/republish", serve.url, "0".repeat(64));
    assert_eq!(post(&agent, &unknown, b"").expect("answered").0, 404);
    drop(serve);

    // Restarted with a working relay: the job goes there.
    let serve = start(&world.relay.url);
    let url = format!("{}/v1/attestations/{id}", serve.url);
    let job = wait_until(&agent, &url, Duration::from_secs(30), |job| job["state"] == "published");
    assert!(job["last_error"].is_null(), "{job:#}");
    assert_eq!(world.proofs_on_relay(&xs_of(&[job])).len(), 1);
}
