//! `priorart dedup --against INDEX [--add]`, `index export` and `index
//! build|add --simhash` end to end on real documents (the extractor's
//! fixtures: one article in five encodings and formats, and unrelated
//! documents), and `--shingles`.

use priorart_nip_testkit::priorart;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/data").join(name)
}

const SAME_ARTICLE: [&str; 5] = [
    "html-latin1-undeclared.html",
    "html-mislabelled.html",
    "html-utf16.html",
    "html-utf8.html",
    "text-utf16be.txt",
];
const OTHERS: [&str; 3] = ["jats.xml", "tei.xml", "book.epub"];

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn name(path: &Path) -> String {
    path.display().to_string()
}

/// An index of two copies of the article and the other documents.
fn indexed(dir: &Path) -> PathBuf {
    let index = dir.join("docs.idx");
    priorart()
        .args(["index", "build"])
        .arg(&index)
        .args(SAME_ARTICLE[..2].iter().chain(&OTHERS).map(|n| data(n)))
        .assert()
        .success();
    index
}

fn pair_names(pairs: &[Value]) -> Vec<(String, String, String)> {
    let mut names: Vec<(String, String, String)> = pairs
        .iter()
        .map(|p| {
            let field = |key: &str| p[key].as_str().unwrap().to_owned();
            (field("a"), field("b"), field("verification"))
        })
        .collect();
    names.sort();
    names
}

#[test]
fn new_documents_pair_with_the_index_and_the_survivors_are_added() {
    let dir = tempfile::tempdir().unwrap();
    let index = indexed(dir.path());
    let unique = dir.path().join("unique.txt");
    std::fs::write(
        &unique,
        "Salt marshes flood twice a day. The samphire that grows on them is picked by hand in July, \
         blanched and eaten with butter; the marsh lamb that grazes there tastes of the sea.",
    )
    .unwrap();
    let new: Vec<PathBuf> = SAME_ARTICLE[2..].iter().map(|n| data(n)).chain([unique.clone()]).collect();
    let out = dir.path().join("out");
    let output = priorart()
        .args(["dedup", "--against"])
        .arg(&index)
        .arg("--add")
        .arg("--out")
        .arg(&out)
        .args(&new)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("*estimated* from 256-hash sketches") && stderr.contains("standard error is 0.025"),
        "{stderr}"
    );
    let pairs = jsonl(&out.join("pairs.jsonl"));
    let (indexed_copies, new_copies) = (&SAME_ARTICLE[..2], &SAME_ARTICLE[2..]);
    let mut expected = Vec::new();
    for old in indexed_copies {
        for copy in new_copies {
            expected.push((name(&data(old)), name(&data(copy)), "estimated".to_owned()));
        }
    }
    for (i, a) in new_copies.iter().enumerate() {
        for b in &new_copies[i + 1..] {
            expected.push((name(&data(a)), name(&data(b)), "exact".to_owned()));
        }
    }
    expected.sort();
    // Never the two copies inside the index, never the unrelated documents.
    assert_eq!(pair_names(&pairs), expected);
    assert!(pairs.iter().all(|p| p["jaccard"].as_f64().unwrap() >= 0.8));
    let clusters = jsonl(&out.join("clusters.jsonl"));
    assert_eq!(clusters.len(), 1);
    assert_eq!(clusters[0]["representative"], name(&data(SAME_ARTICLE[0])).as_str(), "led by the index");
    assert_eq!(clusters[0]["size"], 5);
    assert_eq!(clusters[0]["from_index"].as_array().unwrap().len(), 2);
    let survivors: Vec<Value> = jsonl(&out.join("survivors.jsonl"));
    assert_eq!(survivors, [serde_json::json!({"id": name(&unique)})]);
    // Added: the unique text, now found in the index.
    let answer = priorart().args(["index", "query", "--json"]).arg(&index).arg(&unique).output().unwrap();
    let answer: Value = serde_json::from_slice(&answer.stdout).unwrap();
    assert_eq!(answer["near"][0]["id"], name(&unique).as_str());
    assert_eq!(answer["near"][0]["verification"], "estimated");
    // Again: everything is in the index now, so nothing survives or is added.
    let output = priorart()
        .args(["dedup", "--against"])
        .arg(&index)
        .arg("--add")
        .arg("--out")
        .arg(&out)
        .args(&new)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("1 already in the index") && stderr.contains("no survivor to add"), "{stderr}");
    assert!(jsonl(&out.join("survivors.jsonl")).is_empty());
}

#[test]
fn an_exported_list_imported_elsewhere_answers_by_distance_unverified() {
    let dir = tempfile::tempdir().unwrap();
    let index = indexed(dir.path());
    let export = priorart().args(["index", "export"]).arg(&index).output().unwrap();
    assert!(export.status.success());
    let list = String::from_utf8(export.stdout).unwrap();
    assert_eq!(list.lines().count(), 5);
    assert!(list.lines().all(|line| line.split('\t').count() == 3), "id, simhash-doc and X: {list}");
    let list_path = dir.path().join("docs.simhash.tsv");
    std::fs::write(&list_path, &list).unwrap();
    let theirs = dir.path().join("theirs.idx");
    priorart().args(["index", "build"]).arg(&theirs).arg("--simhash").arg(&list_path).assert().success();
    let query = |index: &Path| -> Value {
        let output = priorart()
            .args(["index", "query", "--json"])
            .arg(index)
            .arg(data(SAME_ARTICLE[3]))
            .output()
            .unwrap();
        assert!(output.status.success());
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let (ours, imported) = (query(&index), query(&theirs));
    let by_distance = |answer: &Value| -> Vec<(String, u64)> {
        let mut near: Vec<(String, u64)> = answer["near"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["id"].as_str().unwrap().to_owned(), m["distance"].as_u64().unwrap()))
            .collect();
        near.sort();
        near
    };
    assert_eq!(by_distance(&ours), by_distance(&imported));
    assert_eq!(by_distance(&ours).len(), 2);
    assert_eq!(ours["same_x"], imported["same_x"], "X travels in the list");
    assert!(imported["near"].as_array().unwrap().iter().all(|m| m["verification"] == "unverified"));
    assert!(imported["near"].as_array().unwrap().iter().all(|m| m["jaccard_estimate"].is_null()));
    let text = priorart().args(["index", "query"]).arg(&theirs).arg(data(SAME_ARTICLE[3])).output().unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("unverified (no sketch in the index)"));
    // dedup against the imported list: the same pairs, by distance alone.
    let out = dir.path().join("out");
    priorart()
        .args(["dedup", "--against"])
        .arg(&theirs)
        .arg("--out")
        .arg(&out)
        .arg(data(SAME_ARTICLE[3]))
        .assert()
        .success()
        .stderr(predicates::str::contains("found by distance alone"));
    let pairs = jsonl(&out.join("pairs.jsonl"));
    assert_eq!(pairs.len(), 2);
    assert!(pairs.iter().all(|p| p["verification"] == "unverified" && p["jaccard"].is_null()));
    // A wrong line refuses the list, naming the line; nothing is added.
    std::fs::write(&list_path, format!("{list}bad line without a tab\n")).unwrap();
    priorart()
        .args(["index", "add"])
        .arg(&theirs)
        .arg("--simhash")
        .arg(&list_path)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("line 6:"));
}

#[test]
fn the_shingling_is_the_indexs() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("tokens.idx");
    priorart()
        .args(["index", "build", "--shingles", "tokens"])
        .arg(&index)
        .args(SAME_ARTICLE[..2].iter().map(|n| data(n)))
        .assert()
        .success();
    let manifest = std::fs::read_to_string(index.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"shingles\": \"tokens\""), "{manifest}");
    let out = dir.path().join("out");
    let against = |extra: &[&str]| {
        let mut command = priorart();
        command.args(["dedup", "--against"]).arg(&index).arg("--out").arg(&out).args(extra);
        command.arg(data(SAME_ARTICLE[3]));
        command.assert()
    };
    against(&["--shingles", "words"])
        .code(2)
        .stderr(predicates::str::contains("sketched with tokens shingles"));
    against(&["--shingles", "tokens"]).success();
    against(&[]).success();
    assert_eq!(jsonl(&out.join("pairs.jsonl")).len(), 2);
    // compare says which shingling it measured with.
    let compare = |shingles: &str| -> Value {
        let output = priorart()
            .args(["compare", "--json", "--shingles", shingles])
            .arg(data(SAME_ARTICLE[0]))
            .arg(data("jats.xml"))
            .output()
            .unwrap();
        serde_json::from_slice(&output.stdout).unwrap()
    };
    assert_eq!(compare("tokens")["overlap"]["shingles"], "tokens");
    assert_eq!(compare("words")["overlap"]["shingles"], "words");
}
