//! `priorart dedup` in memory that does not grow with the texts: the two
//! passes (places, then the candidates read again) give the pairs that
//! holding every shingle set gives, for JSON Lines (with the default
//! working set and one of 16 KB), document files and web archives; MinHash candidates (the default) find the pairs that comparing
//! every pair finds and leave no temporary file; standard input is
//! sketched, with the estimate's error; Ctrl-C leaves nothing that looks
//! complete.

use priorart_fingerprint::{Shingling, WordShingles, simhash_doc};
use priorart_index::{Layout, all_pairs};
use priorart_nip_testkit::priorart_binary;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn binary() -> PathBuf {
    priorart_binary()
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/data").join(name)
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// `(a, b, jaccard)` of every pair within k = 6 at J >= 0.8, computed
/// from the texts with every shingle set in memory (what `dedup` did
/// before it read its inputs twice).
fn in_memory(documents: &[(String, String)]) -> Vec<(String, String, f64)> {
    let shingles: Vec<WordShingles> =
        documents.iter().map(|(_, text)| WordShingles::of(text, Shingling::default())).collect();
    let values: Vec<u64> = documents.iter().map(|(_, text)| simhash_doc(text).0).collect();
    all_pairs(&values, &Layout::for_distance(6).unwrap(), 6)
        .unwrap()
        .into_iter()
        .filter_map(|pair| {
            let jaccard = shingles[pair.a as usize].jaccard(&shingles[pair.b as usize]);
            let id = |n: u32| documents[n as usize].0.clone();
            (jaccard >= 0.8).then(|| (id(pair.a), id(pair.b), jaccard))
        })
        .collect()
}

/// Whether two answers have the same pairs and similarities (up to the
/// last bit: serde_json's float parsing is not exactly round-trip).
fn same(found: &[(String, String, f64)], expected: &[(String, String, f64)]) -> bool {
    found.len() == expected.len()
        && found.iter().zip(expected).all(|(x, y)| x.0 == y.0 && x.1 == y.1 && (x.2 - y.2).abs() < 1e-12)
}

fn found(out: &Path) -> Vec<(String, String, f64)> {
    lines(&out.join("pairs.jsonl"))
        .iter()
        .map(|pair| {
            let id = |key: &str| pair[key].as_str().unwrap().to_owned();
            (id("a"), id("b"), pair["jaccard"].as_f64().unwrap())
        })
        .collect()
}

/// Texts of random words, a third of them near copies of an earlier one.
fn texts(count: usize, seed: u64) -> Vec<String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let words: Vec<String> = (0..300)
        .map(|_| (0..rng.usize(2..9)).map(|_| rng.alphabetic().to_ascii_lowercase()).collect())
        .collect();
    let mut texts: Vec<String> = Vec::new();
    for i in 0..count {
        let text = if i > 0 && rng.u32(..3) == 0 {
            let mut copy: Vec<&str> = texts[rng.usize(..i)].split(' ').collect();
            for _ in 0..rng.usize(0..3) {
                let at = rng.usize(..copy.len());
                copy[at] = &words[rng.usize(..words.len())];
            }
            copy.join(" ")
        } else {
            (0..rng.usize(20..400))
                .map(|_| words[rng.usize(..words.len())].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        texts.push(text);
    }
    texts
}

fn write_jsonl(path: &Path, documents: &[(String, String)]) {
    let body: String = documents
        .iter()
        .map(|(id, text)| {
            serde_json::json!({"id": id, "meta": {"n": id.len()}, "text": text}).to_string() + "\n"
        })
        .collect();
    std::fs::write(path, body).unwrap();
}

#[test]
fn two_passes_give_the_in_memory_pairs_for_jsonl_files_and_web_archives() {
    let dir = tempfile::tempdir().unwrap();
    // JSON Lines over two files, with a byte order mark and blank lines.
    let documents: Vec<(String, String)> =
        texts(900, 7).into_iter().enumerate().map(|(n, text)| (format!("doc-{n}"), text)).collect();
    let (first, second) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    write_jsonl(&first, &documents[..500]);
    write_jsonl(&second, &documents[500..]);
    let mut with_bom = b"\xef\xbb\xbf\n".to_vec();
    with_bom.extend(std::fs::read(&first).unwrap());
    std::fs::write(&first, with_bom).unwrap();
    let out = dir.path().join("jsonl");
    let status = Command::new(binary())
        .args(["dedup", "--candidates", "simhash", "--jsonl", "--id-field", "id", "--out"])
        .args([&out, &first, &second])
        .status()
        .unwrap();
    assert!(status.success());
    let expected = in_memory(&documents);
    assert!(expected.len() > 50, "{} pairs", expected.len());
    assert!(same(&found(&out), &expected), "{:?}", found(&out));
    assert!(!std::fs::read_to_string(out.join("pairs.jsonl")).unwrap().contains("standard_error"));
    // A working set of 16 KB: the candidates re-read a few at a time.
    let small = dir.path().join("small");
    let status = Command::new(binary())
        .args(["dedup", "--candidates", "simhash", "--working-set", "16K", "--jsonl", "--id-field", "id"])
        .arg("--out")
        .args([&small, &first, &second])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(same(&found(&small), &expected), "{:?}", found(&small));

    // Document files and web archives (records of a plain and a gzipped
    // archive, their texts as `extract` gives them; both archives have a
    // broken record, reported, exit code 1, the rest read).
    let names =
        [data("sample.warc"), data("sample.warc.gz"), data("html-utf8.html"), data("html-utf16.html")];
    let extracted = Command::new(binary()).args(["extract", "--json"]).args(&names).output().unwrap();
    assert_eq!(extracted.status.code(), Some(1));
    let documents: Vec<(String, String)> = String::from_utf8(extracted.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|record| record["text"].is_string())
        .map(|record| {
            let file = record["file"].as_str().unwrap();
            let id = match (record["offset"].as_u64(), record["uri"].as_str()) {
                (Some(offset), Some(uri)) => format!("{file}#{offset} {uri}"),
                (Some(offset), None) => format!("{file}#{offset}"),
                _ => file.to_owned(),
            };
            (id, record["text"].as_str().unwrap().to_owned())
        })
        .filter(|(_, text)| !text.trim().is_empty())
        .collect();
    let out = dir.path().join("files");
    let status = Command::new(binary())
        .args(["dedup", "--candidates", "simhash", "--out"])
        .arg(&out)
        .args(&names)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    let expected = in_memory(&documents);
    assert!(expected.len() >= 3, "{expected:?}");
    assert!(same(&found(&out), &expected), "{:?}", found(&out));
}

/// `(a, b, jaccard)` of every pair at J >= 0.8, comparing all pairs.
fn every_pair(documents: &[(String, String)]) -> Vec<(String, String, f64)> {
    let shingles: Vec<WordShingles> =
        documents.iter().map(|(_, text)| WordShingles::of(text, Shingling::default())).collect();
    let mut pairs = Vec::new();
    for a in 0..documents.len() {
        for b in a + 1..documents.len() {
            let jaccard = shingles[a].jaccard(&shingles[b]);
            if jaccard >= 0.8 {
                pairs.push((documents[a].0.clone(), documents[b].0.clone(), jaccard));
            }
        }
    }
    pairs
}

#[test]
fn minhash_candidates_find_what_comparing_every_pair_finds() {
    let dir = tempfile::tempdir().unwrap();
    let temporary = dir.path().join("tmp");
    std::fs::create_dir(&temporary).unwrap();
    let documents: Vec<(String, String)> =
        texts(700, 10).into_iter().enumerate().map(|(n, text)| (format!("doc-{n}"), text)).collect();
    let input = dir.path().join("docs.jsonl");
    write_jsonl(&input, &documents);
    let out = dir.path().join("out");
    let output = Command::new(binary())
        .args(["dedup", "--jsonl", "--id-field", "id", "--out"])
        .args([&out, &input])
        .env("TMPDIR", &temporary)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("sharing a MinHash band key (48 bands of 9 rows)"), "{stderr}");
    for phase in ["fingerprinting (700 documents): ", "candidates (48 bands): ", "verifying ("] {
        assert!(stderr.contains(phase), "each phase's time is noted: {stderr}");
    }
    let expected = every_pair(&documents);
    assert!(expected.len() > 50, "{} pairs", expected.len());
    let found = found(&out);
    // Verified (precision 1); above 0.9 a pair is missed with probability
    // about 10⁻⁷, at 0.8 one in a thousand.
    assert!(found.iter().all(|pair| {
        expected.iter().any(|truth| same(std::slice::from_ref(pair), std::slice::from_ref(truth)))
    }));
    let high: Vec<_> = expected.iter().filter(|pair| pair.2 >= 0.9).collect();
    assert!(high.iter().all(|pair| found.iter().any(|f| f.0 == pair.0 && f.1 == pair.1)), "{found:?}");
    assert!(found.len() * 100 >= expected.len() * 99, "{} of {}", found.len(), expected.len());
    // The band keys' temporary files are gone.
    assert_eq!(std::fs::read_dir(&temporary).unwrap().count(), 0);
    // A threshold MinHash has no bands for is refused, with the way out.
    let output = Command::new(binary())
        .args(["dedup", "--candidates", "minhash", "--min-jaccard", "0.1", "--jsonl", "--out"])
        .args([&out, &input])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("use simhash candidates"));
}

#[test]
fn standard_input_is_sketched_and_says_how_far_to_trust_it() {
    let dir = tempfile::tempdir().unwrap();
    let documents: Vec<(String, String)> =
        texts(300, 8).into_iter().enumerate().map(|(n, text)| (format!("doc-{n}"), text)).collect();
    let input = dir.path().join("docs.jsonl");
    write_jsonl(&input, &documents);
    let out = dir.path().join("sketched");
    let output = Command::new(binary())
        .args(["dedup", "--jsonl", "--id-field", "id", "--out"])
        .arg(&out)
        .arg("-")
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("standard input cannot be read twice"), "{stderr}");
    let pairs = lines(&out.join("pairs.jsonl"));
    let exact = in_memory(&documents);
    let mut estimated = 0;
    for pair in &pairs {
        let error = pair["jaccard_standard_error"].as_f64().expect("every pair states its error");
        let jaccard = pair["jaccard"].as_f64().unwrap();
        match exact.iter().find(|(a, b, _)| pair["a"] == a.as_str() && pair["b"] == b.as_str()) {
            // Short texts fit their sketches: the value is exact.
            Some((_, _, truth)) if error == 0.0 => {
                assert!((jaccard - truth).abs() < 1e-12, "{pair}: {truth}")
            }
            Some((_, _, truth)) => {
                estimated += 1;
                assert!((jaccard - truth).abs() <= 5.0 * error, "{pair} against {truth}");
            }
            None => assert!(error > 0.0, "{pair} is no pair at all, and yet exact"),
        }
    }
    assert!(pairs.len() as f64 >= exact.len() as f64 * 0.9, "{} of {}", pairs.len(), exact.len());
    assert!(estimated > 0 || pairs.iter().all(|pair| pair["jaccard_standard_error"] == 0.0));
    // Sketches have no second pass: a working set is refused.
    let output = Command::new(binary())
        .args(["dedup", "--working-set", "1M", "--jsonl", "--out"])
        .arg(dir.path().join("refused"))
        .arg("-")
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("standard input is read once"));
}

#[test]
fn ctrl_c_leaves_no_output_that_looks_complete() {
    let dir = tempfile::tempdir().unwrap();
    let documents: Vec<(String, String)> =
        texts(200, 9).into_iter().enumerate().map(|(n, text)| (format!("doc-{n}"), text)).collect();
    let input = dir.path().join("docs.jsonl");
    write_jsonl(&input, &documents);
    let temporary = dir.path().join("tmp");
    std::fs::create_dir(&temporary).unwrap();
    // Earlier results, which an interrupted run must leave as they were.
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("pairs.jsonl"), "earlier\n").unwrap();
    for (target, earlier) in [(&out, true), (&dir.path().join("fresh"), false)] {
        // The second input is a named pipe: the run is in its first pass,
        // its signal handlers set, once the pipe is open at both ends.
        let fifo = dir.path().join(format!("pipe-{earlier}"));
        priorart_testkit::named_pipe(&fifo);
        let child = Command::new(binary())
            .args(["dedup", "--jsonl", "--id-field", "id", "--out"])
            .args([target, &input, &fifo])
            .env("TMPDIR", &temporary)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        writeln!(pipe, "{}", serde_json::json!({"id": "late-1", "text": documents[0].1})).unwrap();
        let pid = child.id().to_string();
        assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
        writeln!(pipe, "{}", serde_json::json!({"id": "late-2", "text": documents[1].1})).unwrap();
        drop(pipe);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(130), "{stderr}");
        assert!(stderr.contains("interrupted"), "{stderr}");
        if earlier {
            assert!(stderr.contains("left as it was"), "{stderr}");
            assert_eq!(std::fs::read_to_string(out.join("pairs.jsonl")).unwrap(), "earlier\n");
            assert!(!out.join("clusters.jsonl").exists());
        } else {
            assert!(stderr.contains("nothing written"), "{stderr}");
            assert!(!target.join("pairs.jsonl").exists() && !target.join("clusters.jsonl").exists());
        }
        // No temporary file either (nor band keys).
        let entries = std::fs::read_dir(target).map(|dir| dir.count()).unwrap_or(0);
        assert_eq!(entries, usize::from(earlier));
        assert_eq!(std::fs::read_dir(&temporary).unwrap().count(), 0);
    }
}
