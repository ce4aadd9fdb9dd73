//! `priorart key`, `event` and `attest`: what they write, that secrets stay
//! secret, and that nostr-tools accepts every event they sign.

use crate::nip_common;

use nip_common::{TEXT, peer, stdout};
use priorart_nip_testkit::priorart;
use std::path::Path;

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).expect("JSON")
}

fn key_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("alice.key");
    stdout(priorart().args(["key", "generate"]).arg(&path));
    path
}

#[test]
fn key_generate_writes_an_owner_only_nsec_and_prints_only_the_npub() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k");
    let out = stdout(priorart().args(["key", "generate", "--json"]).arg(&path));
    let secret = std::fs::read_to_string(&path).unwrap();
    assert!(secret.trim().starts_with("nsec1"), "{secret}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
    assert!(!out.contains(secret.trim()));
    let answer = json(&out);
    assert!(answer["npub"].as_str().unwrap().starts_with("npub1"));
    let public = stdout(priorart().args(["key", "public", "--key-file"]).arg(&path));
    let lines: Vec<&str> = public.lines().collect();
    assert_eq!(lines, [answer["npub"].as_str().unwrap(), answer["pubkey"].as_str().unwrap()]);
    // The secret key never goes to standard output.
    priorart().args(["key", "generate", "-"]).assert().code(2).stdout("");

    // Never overwritten by accident.
    priorart().args(["key", "generate"]).arg(&path).assert().code(2);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), secret);
}

#[test]
fn the_environment_key_works_as_nsec_and_hex_and_is_never_echoed() {
    // The nsec of 0x11…11, as nostr-tools encodes it.
    let nsec = "nsec1zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs4rm7hz";
    let hex = "11".repeat(32);
    let from_nsec = stdout(priorart().args(["key", "public", "--json"]).env("PRIORART_SECRET_KEY", nsec));
    let from_hex = stdout(priorart().args(["key", "public", "--json"]).env("PRIORART_SECRET_KEY", &hex));
    assert_eq!(from_nsec, from_hex);
    let bad = priorart().args(["key", "public"]).env("PRIORART_SECRET_KEY", "nsec1notakey").output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&bad.stderr).contains("notakey"));
    priorart().args(["attest", "-"]).write_stdin(TEXT).assert().code(2);
}

#[test]
fn event_carries_the_x_tag_of_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let key = key_file(dir.path());
    let text = dir.path().join("post.md");
    std::fs::write(&text, TEXT).unwrap();
    let fingerprint = stdout(priorart().arg("fingerprint").arg(&text));
    let x = fingerprint.split_whitespace().next().unwrap();
    let article = stdout(
        priorart()
            .args(["event", "--kind", "30023", "--d", "essay-1", "--title", "Essay", "--key-file"])
            .arg(&key)
            .arg(&text),
    );
    let event = json(&article);
    assert_eq!(event["kind"], 30023);
    assert_eq!(event["content"], TEXT);
    assert_eq!(
        event["tags"],
        serde_json::json!([["d", "essay-1"], ["title", "Essay"], ["X", x, "minhash-equality-v1"]])
    );
    let note = stdout(priorart().args(["event", "--kind", "1", "--key-file"]).arg(&key).arg(&text));
    assert_eq!(json(&note)["tags"], serde_json::json!([["X", x, "minhash-equality-v1"]]));
    // Addressable kinds need a d identifier; others take none.
    priorart().args(["event", "--kind", "30023", "--key-file"]).arg(&key).arg(&text).assert().code(2);
    priorart().args(["event", "--kind", "1", "--d", "x", "--key-file"]).arg(&key).arg(&text).assert().code(2);

    if peer::available() {
        assert_eq!(peer::verify(&[article, note]), vec![(true, None), (true, None)]);
    }
}

#[test]
fn attest_prints_the_fixed_1042_shape() {
    let dir = tempfile::tempdir().unwrap();
    let key = key_file(dir.path());
    let out =
        stdout(priorart().args(["attest", "-", "--kind", "30023", "--key-file"]).arg(&key).write_stdin(TEXT));
    assert!(out.starts_with("{\"kind\":1042,\"created_at\":"), "{out}");
    let event = json(&out);
    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    assert_eq!(event["content"], "");
    assert_eq!(event["tags"], serde_json::json!([["X", x, "minhash-equality-v1"], ["k", "30023"]]));
    let public = json(&stdout(priorart().args(["key", "public", "--json", "--key-file"]).arg(&key)));
    assert_eq!(event["pubkey"], public["pubkey"]);

    let without_k = stdout(priorart().args(["attest", "-", "--key-file"]).arg(&key).write_stdin(TEXT));
    assert_eq!(json(&without_k)["tags"], serde_json::json!([["X", x, "minhash-equality-v1"]]));
    if peer::available() {
        assert_eq!(peer::verify(&[out, without_k]), vec![(true, None), (true, None)]);
    }
}

#[test]
fn attest_never_signs_over_an_empty_text() {
    let dir = tempfile::tempdir().unwrap();
    let key = key_file(dir.path());
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    for input in [Some(&empty), None] {
        let mut command = priorart();
        command.args(["attest", "--key-file"]).arg(&key);
        match input {
            Some(path) => command.arg(path),
            None => command.arg("-").write_stdin(" \n \n"),
        };
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        assert!(output.stdout.is_empty(), "nothing signed");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("the text is empty: nothing to attest"), "{stderr}");
    }
}

#[test]
fn a_note_given_as_an_attestation_names_its_kind_once() {
    let dir = tempfile::tempdir().unwrap();
    let key = key_file(dir.path());
    let note = dir.path().join("note.json");
    let out =
        stdout(priorart().args(["event", "-", "--kind", "1", "--key-file"]).arg(&key).write_stdin(TEXT));
    std::fs::write(&note, out).unwrap();
    let ots = dir.path().join("note.ots");
    std::fs::write(&ots, b"not read: the attestation is refused first").unwrap();
    let zero_id = "0".repeat(64);
    let output =
        priorart().arg("proof").arg(&note).arg("--ots").arg(&ots).args(["--e", &zero_id]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not a valid kind 1042 attestation: it is kind 1, not 1042"), "{stderr}");
    assert_eq!(stderr.matches("it is kind 1").count(), 1, "the cause is repeated: {stderr}");
}
