//! `priorart fingerprint --scheme simhash-doc`, end to end, against the
//! published vectors.

use priorart_nip_testkit::priorart;
use serde_json::Value;

fn vector_cases() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/simhash-doc.json");
    let vectors: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("JSON");
    vectors["cases"].as_array().expect("cases").clone()
}

#[test]
fn files_print_base32_and_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = vector_cases();
    let mut command = priorart();
    // Vectors are texts, some with control characters: taken as they are.
    command.args(["fingerprint", "--raw", "--scheme", "simhash-doc"]);
    let mut expected = String::new();
    for (i, case) in cases.iter().enumerate() {
        let path = dir.path().join(format!("{i}.txt"));
        std::fs::write(&path, case["input"].as_str().expect("input")).expect("temp file");
        expected += &format!("{}  {}\n", case["base32"].as_str().expect("base32"), path.display());
        command.arg(&path);
    }
    command.assert().success().stdout(expected);
}

#[test]
fn jsonl_gets_a_simhash_doc_member() {
    let cases = vector_cases();
    let input: String = cases
        .iter()
        .enumerate()
        .map(|(i, case)| serde_json::json!({"id": i, "text": case["input"]}).to_string() + "\n")
        .collect();
    let output = priorart()
        .args(["fingerprint", "--jsonl", "--threads", "2", "--scheme", "simhash-doc"])
        .write_stdin(input)
        .output()
        .expect("runs");
    assert!(output.status.success());
    let lines: Vec<Value> = output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), cases.len());
    for (line, case) in lines.iter().zip(&cases) {
        assert_eq!(line["simhash-doc"], case["base32"], "{}", case["name"]);
        assert!(line.get("text").is_none());
    }
}

#[test]
fn explain_shows_tokens_features_and_counters() {
    let case = vector_cases().into_iter().find(|c| c["name"] == "urls dropped").expect("case");
    let input = case["input"].as_str().expect("input").to_owned();
    let output = priorart()
        .args(["fingerprint", "--explain", "--json", "--scheme", "simhash-doc,minhash-equality-v1", "-"])
        .write_stdin(input.clone())
        .output()
        .expect("runs");
    assert!(output.status.success());
    let objects: Vec<Value> = output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("JSON"))
        .collect();
    assert_eq!(objects.len(), 2);
    let simhash = &objects[0];
    assert_eq!(simhash["scheme"], "simhash-doc");
    assert_eq!(simhash["tokens"], case["tokens"]);
    assert_eq!(simhash["fingerprint"], case["base32"]);
    assert_eq!(simhash["hex"], case["hex"]);
    assert_eq!(simhash["identifiers"].as_array().map(Vec::len), Some(3));
    assert_eq!(simhash["counters"].as_array().map(Vec::len), Some(64));
    assert_eq!(objects[1]["scheme"], "minhash-equality-v1");

    let text = priorart()
        .args(["fingerprint", "--explain", "--scheme", "simhash-doc", "-"])
        .write_stdin(input)
        .output()
        .expect("runs");
    let text = String::from_utf8(text.stdout).expect("UTF-8");
    assert!(
        text.contains(
            "identifiers dropped (3): https://example.org/a?b=1 http://x.y/z, ftp://files.example.net"
        ),
        "{text}"
    );
    assert!(
        text.contains(&format!("fingerprint:    {}", case["base32"].as_str().expect("base32"))),
        "{text}"
    );
}
