//! `priorart dedup --passages`, end to end on real documents (this
//! repository's own docs): a paragraph pasted into another document, and
//! one with words replaced, are reported where they were pasted (as
//! `compare --passages` finds them), offsets slicing both files' texts; a paragraph in more documents than `--boilerplate` is one
//! boilerplate line, not pairs; JSON Lines with --id-field give the same
//! pairs under their ids; a working set of a few KB finds the same pairs;
//! standard input and bad settings are refused; Ctrl-C leaves earlier
//! results as they were.

use priorart_nip_testkit::{priorart, priorart_binary};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn repository(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// The `words` words of `text` from word `from` on (split at white space).
fn words(text: &str, from: usize, count: usize) -> String {
    text.split_whitespace().skip(from).take(count).collect::<Vec<_>>().join(" ")
}

/// `text` with `passage` pasted after its `at`-th line.
fn pasted(text: &str, at: usize, passage: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let at = at.min(lines.len());
    lines.insert(at, passage);
    lines.join("\n")
}

/// The paragraphs [`collection`] pasted: verbatim into the second
/// document, with words replaced into the fourth; with the least
/// similarity each should be found with.
fn pasted_passages(paths: &[PathBuf]) -> [(String, f64); 2] {
    let read = |number: usize| std::fs::read_to_string(&paths[number]).unwrap();
    [(words(&read(0), 600, 120), 0.99), (replaced_words(&words(&read(2), 300, 150)), 0.8)]
}

/// `text` with every eighth word replaced (the fourth, the twelfth…).
fn replaced_words(text: &str) -> String {
    let replaced: Vec<String> = text
        .split(' ')
        .enumerate()
        .map(|(at, word)| if at % 8 == 3 { format!("zq{at}x") } else { word.to_owned() })
        .collect();
    replaced.join(" ")
}

/// Eight of this repository's documents as text files: the fuzzy-tags
/// spec gets 120 words of the simhash-doc spec, the policy guide 150 words
/// of the guide with every eighth word replaced; a "license"
/// paragraph is appended to the first and the last four.
fn collection(dir: &Path) -> Vec<PathBuf> {
    let names = [
        "docs/simhash-doc.md",
        "docs/nip-ff-3-fuzzy.md",
        "GUIDE.md",
        "docs/policy.md",
        "docs/spark-at-scale.md",
        "FUZZING.md",
        "docs/nip-ff-3-and-nip-03.md",
        "BENCHMARKS.md",
    ];
    let mut texts: Vec<String> = names.iter().map(|name| repository(name)).collect();
    texts[1] = pasted(&texts[1], 40, &words(&texts[0], 600, 120));
    texts[3] = pasted(&texts[3], 25, &replaced_words(&words(&texts[2], 300, 150)));
    let license = "Permission is hereby granted, free of charge, to any person obtaining a copy of this \
        software and associated documentation files, to deal in the Software without restriction, including \
        without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and sell \
        copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to \
        the following conditions: the above copyright notice and this permission notice shall be included in \
        all copies or substantial portions of the Software, which is provided as is, without warranty.";
    let mut paths = Vec::new();
    for (number, text) in texts.iter().enumerate() {
        let text = if number == 0 || number >= 4 { format!("{text}\n\n{license}\n") } else { text.clone() };
        let path = dir.join(format!("doc{number}.md"));
        std::fs::write(&path, text).unwrap();
        paths.push(path);
    }
    paths
}

#[test]
fn pasted_paragraphs_are_found_where_they_were_pasted() {
    let dir = tempfile::tempdir().unwrap();
    let paths = collection(dir.path());
    let search = |out: &Path, with: &[&str]| {
        let output = priorart()
            .args(["dedup", "--passages", "--boilerplate", "3", "--format", "text", "--out"])
            .arg(out)
            .args(with)
            .args(&paths)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{stderr}");
        assert!(stderr.contains("2 pairs sharing passages of 50 words or more"), "{stderr}");
        assert!(stderr.contains("1 boilerplate passage (hashes in more than 3 documents)"), "{stderr}");
        lines(&out.join("passages.jsonl"))
    };
    let out = dir.path().join("out");
    let found = search(&out, &["--passage-text"]);
    // Without --passage-text, the same lines but for the passages' texts.
    let mut without_text = found.clone();
    for line in &mut without_text {
        for passage in line["passages"].as_array_mut().unwrap() {
            for side in ["a", "b"] {
                passage[side].as_object_mut().unwrap().remove("text").expect("a text with --passage-text");
            }
        }
    }
    let offsets = search(&dir.path().join("offsets"), &[]);
    assert_eq!(offsets, without_text);
    // A working set of a few KB: the documents read back a few at a time,
    // over many rounds, and the same pairs found.
    let by_pair = |mut lines: Vec<Value>| {
        lines.sort_by_key(|line| (line["a"].to_string(), line["b"].to_string()));
        lines
    };
    let small = search(&dir.path().join("small"), &["--working-set", "4K"]);
    assert_eq!(by_pair(small), by_pair(offsets.clone()));
    let pairs: Vec<(&str, &str)> =
        found.iter().map(|line| (line["a"].as_str().unwrap(), line["b"].as_str().unwrap())).collect();
    let name = |number: usize| paths[number].to_str().unwrap().to_owned();
    assert_eq!(pairs, [(name(0).as_str(), name(1).as_str()), (name(2).as_str(), name(3).as_str())]);
    let pasted = pasted_passages(&paths);
    for (line, ((a, b), (planted, similar))) in found.iter().zip([(0, 1), (2, 3)].into_iter().zip(pasted)) {
        let texts =
            [std::fs::read_to_string(&paths[a]).unwrap(), std::fs::read_to_string(&paths[b]).unwrap()];
        let [passage] = line["passages"].as_array().unwrap().as_slice() else {
            panic!("one passage: {line}")
        };
        for (side, text) in ["a", "b"].iter().zip(&texts) {
            let at = |key: &str| passage[side][key].as_u64().unwrap() as usize;
            let bytes = &text[at("byte_offset")..at("byte_offset") + at("byte_length")];
            assert_eq!(bytes, passage[side]["text"].as_str().unwrap());
            let chars: String = text.chars().skip(at("char_offset")).take(at("char_length")).collect();
            assert_eq!(chars, bytes);
            assert!(priorart_align::word_count(bytes) >= 100, "{bytes}");
        }
        // Where the paragraph was pasted, give or take three words at
        // either end (a word replaced there ends a passage).
        let host = &texts[1];
        let planted_at = host.find(&planted).unwrap();
        let at = |key: &str| passage["b"][key].as_u64().unwrap() as usize;
        let (start, end) = (at("byte_offset"), at("byte_offset") + at("byte_length"));
        let words_between = |x: usize, y: usize| priorart_align::word_count(&host[x.min(y)..x.max(y)]);
        assert!(words_between(start, planted_at) <= 3, "{passage}\n{planted}");
        assert!(words_between(end, planted_at + planted.len()) <= 3, "{passage}\n{planted}");
        assert!(passage["similarity"].as_f64().unwrap() >= similar, "{passage}");
        // `compare --passages` on the two files finds it too.
        let compared = priorart()
            .args(["compare", "--passages", "--json", "--format", "text"])
            .args([&paths[a], &paths[b]])
            .output()
            .unwrap();
        let compared: Value = serde_json::from_slice(&compared.stdout).unwrap();
        let overlaps = |other: &Value| {
            let range = |passage: &Value| {
                let at = |key: &str| passage["b"][key].as_u64().unwrap();
                at("byte_offset")..at("byte_offset") + at("byte_length")
            };
            let (mine, theirs) = (range(passage), range(other));
            mine.start < theirs.end && theirs.start < mine.end
        };
        assert!(compared["passages"].as_array().unwrap().iter().any(overlaps), "{a} {b}: {compared}");
    }
    let [boilerplate]: [Value; 1] = lines(&out.join("boilerplate.jsonl")).try_into().unwrap();
    assert_eq!(boilerplate["documents"], 5);
    assert_eq!(boilerplate["example"].as_str().unwrap(), name(0));
    assert!(
        boilerplate["text"].as_str().unwrap().contains("free of charge, to any person obtaining"),
        "{boilerplate}"
    );

    // The same documents as JSON Lines records: the same pairs, by id.
    let jsonl = dir.path().join("docs.jsonl");
    let mut records = String::new();
    for (number, path) in paths.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap();
        records.push_str(&serde_json::json!({"id": format!("doc-{number}"), "text": text}).to_string());
        records.push('\n');
    }
    std::fs::write(&jsonl, records).unwrap();
    let by_id = dir.path().join("by-id");
    priorart()
        .args(["dedup", "--passages", "--boilerplate", "3", "--jsonl", "--id-field", "id", "--out"])
        .args([&by_id, &jsonl])
        .assert()
        .success();
    let again = lines(&by_id.join("passages.jsonl"));
    assert_eq!(again.len(), 2);
    for (line, earlier) in again.iter().zip(&offsets) {
        assert_eq!(line["passages"], earlier["passages"]);
    }
    assert_eq!((again[0]["a"].as_str(), again[1]["b"].as_str()), (Some("doc-0"), Some("doc-3")));

    // Under the default threshold the license pairs its five holders.
    let low = dir.path().join("low");
    priorart()
        .args(["dedup", "--passages", "--format", "text", "--out"])
        .arg(&low)
        .args(&paths)
        .assert()
        .success();
    assert_eq!(lines(&low.join("passages.jsonl")).len(), 5 * 4 / 2 + 2);
    assert!(lines(&low.join("boilerplate.jsonl")).is_empty());
}

#[test]
fn standard_input_and_bad_settings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = priorart()
        .args(["dedup", "--passages", "--jsonl", "-", "--out"])
        .arg(dir.path().join("out"))
        .write_stdin("{\"text\": \"x\"}\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("standard input cannot be read twice"));
    let output = priorart()
        .args(["dedup", "--passages", "--boilerplate", "1", "--out"])
        .arg(dir.path().join("out"))
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("at least 2 documents"));
    priorart().args(["dedup", "--min-words", "40", "--out", "x", "y"]).assert().code(2);
    for size in ["0", "1.5G", "12T"] {
        priorart().args(["dedup", "--passages", "--working-set", size, "--out", "x", "y"]).assert().code(2);
    }
    let output = priorart()
        .args(["dedup", "--working-set", "1G", "--against", "index", "--out", "x", "y"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--against without --passages"));
}

#[test]
fn ctrl_c_leaves_earlier_results_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let paths = collection(dir.path());
    let input = dir.path().join("docs.jsonl");
    let records: String = paths
        .iter()
        .map(|path| serde_json::json!({"text": std::fs::read_to_string(path).unwrap()}).to_string() + "\n")
        .collect();
    std::fs::write(&input, records).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("passages.jsonl"), "earlier\n").unwrap();
    // The second input is a named pipe: the run is in its first pass, its
    // signal handlers set, once the pipe is open at both ends.
    let fifo = dir.path().join("pipe");
    priorart_testkit::named_pipe(&fifo);
    let child = std::process::Command::new(priorart_binary())
        .args(["dedup", "--passages", "--jsonl", "--out"])
        .args([&out, &input, &fifo])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let stderr = priorart_testkit::interrupt_reader(child, pipe);
    assert!(stderr.contains("left as it was"), "{stderr}");
    assert_eq!(std::fs::read_to_string(out.join("passages.jsonl")).unwrap(), "earlier\n");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1, "no temporary file left");
}
