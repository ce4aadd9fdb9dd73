//! `priorart index query --passages` and `check --index`, end to end on
//! real documents (this repository's docs): 150 words of an indexed
//! document pasted into another text, verbatim or with one word in ten
//! replaced, are found in that document alone, FILE's offsets slicing the
//! pasted words out of FILE and the indexed byte range slicing them out of
//! the indexed file; the host text alone finds nothing; `index add` stores
//! marks too; an index without marks (built before priorart-index/3, or
//! with --no-marks) gets a message saying how to rebuild it; a build
//! interrupted while it reads (its marks spooled in the index directory)
//! leaves the index it would have replaced as it was, with no file of its
//! own.

use assert_cmd::Command;
use priorart_testkit::files_in;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn priorart() -> Command {
    Command::cargo_bin("priorart").expect("the binary is built")
}

fn repository(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(name)
}

/// The indexed documents; the passage comes from docs/policy.md.
const INDEXED: [&str; 5] = [
    "docs/simhash-doc.md",
    "docs/nip-ff-3-fuzzy.md",
    "docs/policy.md",
    "docs/spark-at-scale.md",
    "FUZZING.md",
];
const SOURCE: &str = "docs/policy.md";
/// The text the passage is pasted into: it shares no passage with them.
const HOST: &str = "ARCHITECTURE.md";

fn build(dir: &Path, names: &[&str], extra: &[&str]) -> PathBuf {
    let index = dir.join("idx");
    let mut command = priorart();
    command.args(["index", "build"]).arg(&index).args(extra);
    for name in names {
        command.arg(repository(name));
    }
    command.assert().success();
    index
}

fn normalized(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Words 300..450 of the source (every `replace_every`-th replaced, if
/// any), and the host with them pasted after its 40th line, written to
/// `dir`.
fn pasted(dir: &Path, replace_every: Option<usize>) -> (PathBuf, String, String) {
    let source = std::fs::read_to_string(repository(SOURCE)).unwrap();
    let original: Vec<&str> = source.split_whitespace().skip(300).take(150).collect();
    let passage: Vec<String> = original
        .iter()
        .enumerate()
        .map(|(at, word)| match replace_every {
            Some(every) if at % every == every / 2 => format!("zq{at}x"),
            _ => (*word).to_owned(),
        })
        .collect();
    let host = std::fs::read_to_string(repository(HOST)).unwrap();
    let mut lines: Vec<&str> = host.lines().collect();
    let passage = passage.join(" ");
    lines.insert(40, &passage);
    let path = dir.join("essay.md");
    std::fs::write(&path, lines.join("\n")).unwrap();
    (path, passage, original.join(" "))
}

fn query_json(index: &Path, file: &Path) -> Value {
    let output = priorart()
        .args(["index", "query"])
        .arg(index)
        .arg("--passages")
        .arg("--json")
        .arg(file)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// One document, the source, with one passage: FILE's side slices a
/// stretch of the pasted passage of `min_words` words or more out of FILE
/// (the text member, characters and bytes agreeing), the indexed side
/// slices as long a stretch of the original words out of the source file.
fn assert_found(answer: &Value, file: &Path, (passage, original): (&str, &str), min_words: usize) {
    let documents = answer["documents"].as_array().unwrap();
    assert_eq!(documents.len(), 1, "{answer:#}");
    assert_eq!(documents[0]["id"], repository(SOURCE).to_str().unwrap());
    let passages = documents[0]["passages"].as_array().unwrap();
    assert_eq!(passages.len(), 1, "{answer:#}");
    let found = &passages[0];
    let text = std::fs::read_to_string(file).unwrap();
    let side = &found["text"];
    let (start, length) =
        (side["byte_offset"].as_u64().unwrap() as usize, side["byte_length"].as_u64().unwrap() as usize);
    let sliced = &text[start..start + length];
    assert_eq!(side["text"], sliced);
    let by_chars: String = text
        .chars()
        .skip(side["char_offset"].as_u64().unwrap() as usize)
        .take(side["char_length"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(by_chars, sliced);
    assert!(passage.contains(sliced), "{sliced}");
    assert!(sliced.split_whitespace().count() >= min_words, "{sliced}");
    let source = std::fs::read_to_string(repository(SOURCE)).unwrap();
    let indexed = &found["indexed"];
    let (start, length) = (
        indexed["byte_offset"].as_u64().unwrap() as usize,
        indexed["byte_length"].as_u64().unwrap() as usize,
    );
    let held = normalized(&source[start..start + length]);
    assert!(original.contains(&held), "{held}");
    assert!(held.split(' ').count() >= min_words, "{held}");
    assert!(found["marks"].as_u64().unwrap() >= 20, "{found}");
}

#[test]
fn a_pasted_passage_is_found_with_offsets_that_slice_both_texts() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path(), &INDEXED, &[]);
    let (file, passage, original) = pasted(dir.path(), None);
    let answer = query_json(&index, &file);
    assert_eq!(answer["query"], file.to_str().unwrap());
    // A verbatim copy: all but the few words before the first mark and
    // after the last.
    assert_found(&answer, &file, (&passage, &original), 140);
    let found = &answer["documents"][0]["passages"][0];
    assert!(found["similarity"].as_f64().unwrap() > 0.95);
    // For people: the document, the passage's place and its start.
    let output =
        priorart().args(["index", "query"]).arg(&index).arg("--passages").arg(&file).assert().success();
    let shown = String::from_utf8(output.get_output().stdout.clone()).unwrap();
    assert!(shown.contains("1 shared passage in 1 indexed document(s)"), "{shown}");
    assert!(shown.contains(&format!("{}: 1 passage", repository(SOURCE).display())), "{shown}");
    let (offset, length) =
        (found["text"]["char_offset"].as_u64().unwrap(), found["text"]["char_length"].as_u64().unwrap());
    assert!(shown.contains(&format!("chars {offset}..{}", offset + length)), "{shown}");
    let start: Vec<&str> = found["text"]["text"].as_str().unwrap().split_whitespace().take(3).collect();
    assert!(shown.contains(&start.join(" ")), "{shown}");
}

#[test]
fn a_passage_with_one_word_in_ten_replaced_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path(), &INDEXED, &[]);
    let (file, passage, original) = pasted(dir.path(), Some(10));
    // The source side holds the original words: compare it with them.
    let answer = query_json(&index, &file);
    // Replaced words cost the marks around them, at the ends too.
    assert_found(&answer, &file, (&passage, &original), 110);
    let similarity = answer["documents"][0]["passages"][0]["similarity"].as_f64().unwrap();
    assert!((0.3..0.95).contains(&similarity), "{similarity}");
}

#[test]
fn the_host_text_alone_shares_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path(), &INDEXED, &[]);
    let answer = query_json(&index, &repository(HOST));
    assert_eq!(answer["documents"], serde_json::json!([]), "{answer:#}");
    assert!(answer["marks"].as_u64().unwrap() > 1_000);
}

#[test]
fn documents_added_are_searched_for_passages_too() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path(), &INDEXED[..2], &[]);
    let (file, passage, original) = pasted(dir.path(), None);
    assert_eq!(query_json(&index, &file)["documents"], serde_json::json!([]));
    priorart()
        .args(["index", "add"])
        .arg(&index)
        .args(INDEXED[2..].iter().map(|name| repository(name)))
        .assert()
        .success();
    assert_found(&query_json(&index, &file), &file, (&passage, &original), 140);
}

#[test]
fn an_index_without_marks_says_how_to_get_them() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path(), &INDEXED, &["--no-marks"]);
    let (file, _, _) = pasted(dir.path(), None);
    let old = repository("crates/index/tests/data/v1-index");
    for index in [index.as_path(), old.as_path()] {
        let output =
            priorart().args(["index", "query"]).arg(index).arg("--passages").arg(&file).assert().failure();
        let said = String::from_utf8(output.get_output().stderr.clone()).unwrap();
        assert!(said.contains("holds no passage marks"), "{said}");
        assert!(said.contains("priorart index build --replace"), "{said}");
    }
    // Near copies are still looked up as before.
    priorart().args(["index", "query"]).arg(&index).arg(&file).assert().success();
}

#[test]
fn check_with_an_index_shows_the_passages() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path(), &INDEXED, &[]);
    let (file, passage, original) = pasted(dir.path(), None);
    let check = |index: &Path| -> Value {
        let output = priorart()
            .arg("check")
            .arg(&file)
            .arg("--index")
            .arg(index)
            .args(["--no-fuzzy", "--json"])
            .env("HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path())
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let passages = check(&index)["index"]["passages"].clone();
    assert_eq!(passages["shown"], true, "{passages:#}");
    assert_found(&passages, &file, (&passage, &original), 140);
    let without = build(&dir.path().join("old"), &INDEXED, &["--no-marks"]);
    let passages = check(&without)["index"]["passages"].clone();
    assert_eq!(passages["shown"], false);
    assert!(passages["why"].as_str().unwrap().contains("no passage marks"), "{passages}");
}

#[test]
fn dedup_passages_against_an_index_pairs_new_documents_with_each_other_and_the_index() {
    let dir = tempfile::tempdir().unwrap();
    // Two indexed documents share a passage with each other: never a pair.
    let source = std::fs::read_to_string(repository(SOURCE)).unwrap();
    let shared: Vec<&str> = source.split_whitespace().skip(100).take(120).collect();
    let fuzzy = std::fs::read_to_string(repository(INDEXED[1])).unwrap();
    let fuzzy_copy = dir.path().join("fuzzy-copy.md");
    std::fs::write(&fuzzy_copy, format!("{fuzzy}\n\n{}\n", shared.join(" "))).unwrap();
    let mut indexed: Vec<PathBuf> = INDEXED.iter().map(|name| repository(name)).collect();
    indexed[1] = fuzzy_copy;
    let index = dir.path().join("idx");
    priorart().args(["index", "build"]).arg(&index).args(&indexed).assert().success();
    // Two new documents: one with the policy passage, one sharing 150
    // words of the host with it.
    let (essay, _, _) = pasted(dir.path(), None);
    let host = std::fs::read_to_string(repository(HOST)).unwrap();
    let borrowed: Vec<&str> = host.split_whitespace().skip(2_000).take(150).collect();
    let other = dir.path().join("other.md");
    let spark = std::fs::read_to_string(repository("docs/spark-at-scale.md")).unwrap();
    std::fs::write(&other, format!("{}\n\n{}\n", spark.replace("Spark", "Sparks"), borrowed.join(" ")))
        .unwrap();
    let out = dir.path().join("out");
    priorart()
        .args(["dedup", "--passages", "--passage-text", "--against"])
        .arg(&index)
        .arg(&essay)
        .arg(&other)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let read = |path: &std::path::Path| -> Vec<Value> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    };
    let lines = read(&out.join("passages.jsonl"));
    let pair =
        |line: &Value| (line["a"].as_str().unwrap().to_owned(), line["b"].as_str().unwrap().to_owned());
    let pairs: Vec<(String, String)> = lines.iter().map(pair).collect();
    let essay_name = essay.to_str().unwrap().to_owned();
    let other_name = other.to_str().unwrap().to_owned();
    assert!(pairs.contains(&(essay_name.clone(), other_name.clone())), "{pairs:?}");
    let policy = repository(SOURCE).to_str().unwrap().to_owned();
    assert!(pairs.contains(&(policy.clone(), essay_name.clone())), "{pairs:?}");
    // Spark's document is the index's too: the other shares it all.
    let spark_path = repository("docs/spark-at-scale.md").to_str().unwrap().to_owned();
    assert!(pairs.contains(&(spark_path, other_name.clone())), "{pairs:?}");
    assert!(
        pairs.iter().all(|(a, b)| [&essay_name, &other_name].contains(&b) && a != b),
        "no pair inside the index: {pairs:?}"
    );
    let from_index = lines.iter().find(|line| pair(line) == (policy.clone(), essay_name.clone())).unwrap();
    assert_eq!(from_index["from_index"], true);
    let passage = &from_index["passages"][0];
    let text = std::fs::read_to_string(&essay).unwrap();
    let (start, length) = (
        passage["b"]["byte_offset"].as_u64().unwrap() as usize,
        passage["b"]["byte_length"].as_u64().unwrap() as usize,
    );
    assert_eq!(passage["b"]["text"], &text[start..start + length]);
    // Without --passage-text, the same lines but for the passages' texts.
    let offsets = dir.path().join("offsets");
    priorart()
        .args(["dedup", "--passages", "--against"])
        .arg(&index)
        .arg(&essay)
        .arg(&other)
        .arg("--out")
        .arg(&offsets)
        .assert()
        .success();
    let without_text: Vec<Value> = lines
        .iter()
        .cloned()
        .map(|mut line| {
            for passage in line["passages"].as_array_mut().unwrap() {
                for side in ["a", "b"] {
                    passage[side].as_object_mut().unwrap().remove("text");
                }
            }
            line
        })
        .collect();
    assert_eq!(read(&offsets.join("passages.jsonl")), without_text);
    // An index without marks is refused before anything is read.
    let old = repository("crates/index/tests/data/v1-index");
    let output = priorart()
        .args(["dedup", "--passages", "--against"])
        .arg(&old)
        .arg(&essay)
        .arg("--out")
        .arg(dir.path().join("out2"))
        .assert()
        .failure();
    assert!(String::from_utf8_lossy(&output.get_output().stderr).contains("holds no passage marks"));
    assert!(!dir.path().join("out2").exists());
}

#[test]
fn ctrl_c_while_building_leaves_the_index_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path(), &INDEXED[..2], &[]);
    let before = files_in(&index);
    let input = dir.path().join("docs.jsonl");
    let records: String = INDEXED[2..]
        .iter()
        .map(|name| {
            serde_json::json!({"text": std::fs::read_to_string(repository(name)).unwrap()}).to_string() + "\n"
        })
        .collect();
    std::fs::write(&input, records).unwrap();
    // The second input is a named pipe: the build is reading, its signal
    // handlers set and its spool made, once the pipe is open at both ends.
    let fifo = dir.path().join("pipe");
    priorart_testkit::named_pipe(&fifo);
    let child = std::process::Command::new(priorart_nip_testkit::priorart_binary())
        .args(["index", "build", "--replace", "--jsonl"])
        .args([&index, &input, &fifo])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let spooling = files_in(&index);
    assert!(
        spooling.iter().any(|(name, _)| name.starts_with(".marks-spool-")),
        "{:?}",
        spooling.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let stderr = priorart_testkit::interrupt_reader(child, pipe);
    assert!(stderr.contains("interrupted") && stderr.contains("left as it was"), "{stderr}");
    assert_eq!(files_in(&index), before, "the index as it was, and no file of the build's");
}
