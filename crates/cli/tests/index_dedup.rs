//! `priorart index` and `priorart dedup` end to end on real documents: the
//! extractor's fixtures hold the same article in several encodings and
//! formats (known duplicates) and unrelated documents.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/data").join(name)
}

fn priorart() -> Command {
    Command::cargo_bin("priorart").unwrap()
}

const SAME_ARTICLE: [&str; 5] = [
    "html-latin1-undeclared.html",
    "html-mislabelled.html",
    "html-utf16.html",
    "html-utf8.html",
    "text-utf16be.txt",
];
const OTHERS: [&str; 5] = ["html-shiftjis.html", "jats.xml", "tei.xml", "article.pdf", "book.epub"];

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn dedup_finds_the_known_duplicates_and_nothing_else() {
    let out = tempfile::tempdir().unwrap();
    let mut command = priorart();
    command.arg("dedup").arg("--out").arg(out.path());
    for name in OTHERS.iter().chain(&SAME_ARTICLE) {
        command.arg(data(name));
    }
    command.assert().success();
    let clusters = jsonl(&out.path().join("clusters.jsonl"));
    assert_eq!(clusters.len(), 1, "{clusters:?}");
    let members: Vec<String> =
        clusters[0]["members"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect();
    let expected: Vec<String> = SAME_ARTICLE.iter().map(|name| data(name).display().to_string()).collect();
    assert_eq!(members, expected);
    // The representative is the earliest in input order.
    assert_eq!(clusters[0]["representative"], expected[0].as_str());
    let pairs = jsonl(&out.path().join("pairs.jsonl"));
    assert_eq!(pairs.len(), 10, "every pair of the five copies");
    assert!(pairs.iter().all(|pair| pair["jaccard"].as_f64().unwrap() >= 0.8));
}

#[test]
fn index_build_add_query_compact() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("docs.idx");
    priorart().args(["index", "build"]).arg(&index).args(OTHERS.map(data)).assert().success();
    priorart()
        .args(["index", "add"])
        .arg(&index)
        .args(SAME_ARTICLE[..2].iter().map(|n| data(n)))
        .assert()
        .success();
    let query = |args: &[&str]| -> Value {
        let output = priorart().args(["index", "query", "--json"]).arg(&index).args(args).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let probe = data("html-utf8.html").display().to_string();
    let answer = query(&[&probe]);
    let near: Vec<&str> =
        answer["near"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(near.len(), 2, "{answer}");
    assert!(answer["near"].as_array().unwrap().iter().all(|m| m["jaccard"].as_f64() == Some(1.0)));
    assert_eq!(answer["same_x"].as_array().unwrap().len(), 2);
    // By simhash-doc value, and by X alone.
    let simhash = answer["simhash-doc"].as_str().unwrap().to_owned();
    assert_eq!(query(&["--simhash", &simhash])["near"].as_array().unwrap().len(), 2);
    let x = answer["minhash-equality-v1"].as_str().unwrap().to_owned();
    assert_eq!(query(&["--x", &x])["same_x"].as_array().unwrap().len(), 2);
    // Compacting keeps every answer.
    priorart().args(["index", "compact"]).arg(&index).assert().success();
    assert_eq!(query(&[&probe])["near"], answer["near"]);
    // A distance beyond the layout is refused; a damaged segment too.
    priorart().args(["index", "query", "-k", "5"]).arg(&index).arg(&probe).assert().code(1);
    let segment = std::fs::read_dir(&index)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "pai"))
        .unwrap();
    let mut bytes = std::fs::read(&segment).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&segment, bytes).unwrap();
    priorart()
        .args(["index", "query"])
        .arg(&index)
        .arg(&probe)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("checksum"));
}

#[test]
fn jsonl_collections_with_ids() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    let text = std::fs::read_to_string(data("jats.xml")).unwrap();
    let lines = [
        serde_json::json!({"id": 1, "body": "A short note about nothing in particular."}),
        serde_json::json!({"id": "two", "body": text}),
        serde_json::json!({"id": 3, "body": text.replace("</article>", " </article>")}),
    ];
    std::fs::write(&input, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    let out = dir.path().join("out");
    priorart()
        .args(["dedup", "--jsonl", "--field", "body", "--id-field", "id", "--format", "xml", "--out"])
        .arg(&out)
        .arg(&input)
        .assert()
        .success();
    let pairs = jsonl(&out.join("pairs.jsonl"));
    assert_eq!(pairs.len(), 1);
    assert_eq!((pairs[0]["a"].as_str(), pairs[0]["b"].as_str()), (Some("two"), Some("3")));
}

#[test]
fn check_with_a_local_index_needs_no_relay() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("docs.idx");
    priorart()
        .args(["index", "build"])
        .arg(&index)
        .args(OTHERS.map(data))
        .arg(data(SAME_ARTICLE[0]))
        .assert()
        .success();
    let probe = data("html-utf8.html");
    let check = |extra: &[&str]| {
        let mut command = priorart();
        // No relay list: only the index is asked.
        command
            .env("XDG_CONFIG_HOME", dir.path())
            .args(["check", "--json", "--index"])
            .arg(&index)
            .arg(&probe);
        command.args(extra).output().unwrap()
    };
    let output = check(&[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["verdict"]["status"], "no_relay_asked");
    assert_eq!(report["relays"].as_array().unwrap().len(), 0);
    assert_eq!(report["index"]["documents"], 1, "{report}");
    let near = &report["index"]["answer"]["near"][0];
    assert_eq!(near["id"], data(SAME_ARTICLE[0]).display().to_string().as_str());
    assert_eq!(near["jaccard"], 1.0);
    assert_eq!(report["index"]["answer"]["minhash-equality-v1"], report["x"]);
    // Relays named too: both parts in one report (here the relay is down,
    // so the check exits 1 but still reports the index).
    let output = check(&["--relay", "ws://127.0.0.1:9", "--timeout", "2"]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["verdict"]["status"], "no_relay_answered");
    assert_eq!(report["index"]["documents"], 1);
    // The human report lists the near copy before the verdict.
    let output = priorart()
        .env("XDG_CONFIG_HOME", dir.path())
        .args(["check", "--index"])
        .arg(&index)
        .arg(&probe)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let listed = text.find("within distance 3").expect("the index answer");
    assert!(listed < text.find("verdict: no relay asked").expect("the verdict"), "{text}");
    // Without --index, a relay is still required.
    priorart().env("XDG_CONFIG_HOME", dir.path()).arg("check").arg(&probe).assert().code(2);
}
