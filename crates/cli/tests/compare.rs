//! `priorart compare A B`, end to end.

use priorart_nip_testkit::priorart;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file");
    path
}

const ORIGINAL: &str = "Similarity hashing is often used as an optimization on top of similarity measures: \
    the hashes of all documents are pre-computed and then sorted, and only those documents within a \
    fixed distance in the sorted list need to be compared. This reduces identification of \
    near-duplicates in a corpus from quadratic to linear work.";

fn compare_json(a: &Path, b: &Path) -> Value {
    let output = priorart().arg("compare").arg("--json").arg(a).arg(b).output().expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

#[test]
fn near_duplicate_is_close_and_unrelated_is_distinct() {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = write(dir.path(), "a.txt", ORIGINAL);
    let b = write(dir.path(), "b.txt", &ORIGINAL.replace("linear work", "linear effort").to_uppercase());
    let c =
        write(dir.path(), "c.txt", "'Twas brillig, and the slithy toves did gyre and gimble in the wabe.");

    let near = compare_json(&a, &b);
    let distance = near["simhash-doc-v2"]["distance"].as_u64().expect("distance");
    assert!(distance <= 6, "one word of 50 changed: distance {distance}");
    assert_eq!(near["simhash-doc-v2"]["similarity"].as_f64(), Some(1.0 - distance as f64 / 64.0));
    assert_ne!(near["simhash-doc-v2"]["band"], "distinct");
    assert_eq!(near["simhash-doc-v2"]["within_k3"], distance <= 3);

    let far = compare_json(&a, &c);
    assert_eq!(far["simhash-doc-v2"]["band"], "distinct");
    assert_eq!(far["minhash-equality-v1"]["equal"], false);
    assert_eq!(far["a"]["file"], a.to_str().expect("UTF-8 path"));
}

#[test]
fn both_schemes_agree_with_priorart_fingerprint() {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = write(dir.path(), "a.txt", ORIGINAL);
    let same = compare_json(&a, &a);
    assert_eq!(same["minhash-equality-v1"]["equal"], true);
    assert_eq!(same["simhash-doc-v2"]["distance"], 0);
    assert_eq!(same["simhash-doc-v2"]["band"], "close");
    let line = priorart()
        .args(["fingerprint", "--scheme", "minhash-equality-v1,simhash-doc-v2"])
        .arg(&a)
        .output()
        .expect("runs");
    let line = String::from_utf8(line.stdout).expect("UTF-8");
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields[0], same["a"]["minhash-equality-v1"]);
    assert_eq!(fields[1], same["a"]["simhash-doc-v2"]);
}

#[test]
fn text_output_names_both_files_and_the_band() {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = write(dir.path(), "a.txt", ORIGINAL);
    let output = priorart().arg("compare").arg(&a).arg("-").write_stdin(ORIGINAL).output().expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(text.contains("minhash-equality-v1: equal"), "{text}");
    assert!(
        text.contains("simhash-doc-v2: distance 0/64, similarity 1.0000, band close, within k=3: yes"),
        "{text}"
    );
    assert!(text.lines().nth(1).is_some_and(|line| line.starts_with('-')), "{text}");
}

#[test]
fn bad_input_and_usage_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = write(dir.path(), "a.txt", ORIGINAL);
    let missing = dir.path().join("missing.txt");
    priorart().arg("compare").arg(&a).arg(&missing).assert().code(1);
    let warc = concat!(env!("CARGO_MANIFEST_DIR"), "/../extract/tests/data/sample.warc.gz");
    let output = priorart().arg("compare").arg(&a).arg(warc).output().expect("runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("documents where one was expected"));
    priorart().args(["compare", "-", "-"]).assert().code(2);
    priorart().arg("compare").arg(&a).assert().code(2);
}

#[test]
fn documents_are_read_through_extraction() {
    // Legacy 8-bit text is decoded like `priorart extract` decodes it.
    let dir = tempfile::tempdir().expect("temp dir");
    let latin1 = dir.path().join("latin1.txt");
    std::fs::write(&latin1, b"caf\xe9 cr\xe8me br\xfbl\xe9e, a dessert of the French kitchen")
        .expect("temp file");
    let utf8 = write(dir.path(), "utf8.txt", "café crème brûlée, a dessert of the French kitchen");
    let report = compare_json(&latin1, &utf8);
    assert_eq!(report["simhash-doc-v2"]["distance"], 0, "{report}");
    assert_eq!(report["minhash-equality-v1"]["equal"], true, "{report}");

    // A PDF compares as its text layer: equal to what `priorart extract` prints.
    let pdf = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../extract/tests/data/article.pdf"));
    let extracted = priorart().arg("extract").arg(pdf).output().expect("runs");
    assert!(extracted.status.success());
    let text = dir.path().join("article.txt");
    std::fs::write(&text, &extracted.stdout).expect("temp file");
    let report = compare_json(pdf, &text);
    assert_eq!(report["simhash-doc-v2"]["distance"], 0, "{report}");
    assert_eq!(report["minhash-equality-v1"]["equal"], true, "{report}");
}

#[test]
fn the_report_measures_the_overlap() {
    let dir = tempfile::tempdir().expect("temp dir");
    let a = write(dir.path(), "a.txt", ORIGINAL);
    let output = priorart().args(["compare", "--json"]).arg(&a).arg(&a).output().expect("runs");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["overlap"]["value"], 1.0);
    assert!(report["verdict"].as_str().unwrap().contains("near-identical"), "{report}");
}

#[test]
fn empty_texts_get_no_similarity_verdict() {
    let dir = tempfile::tempdir().expect("temp dir");
    let empty = write(dir.path(), "empty.txt", "");
    let blank = write(dir.path(), "blank.txt", " \n\t\n");
    let full = write(dir.path(), "full.txt", ORIGINAL);
    for (a, b, named) in [(&empty, &blank, "both texts are empty"), (&empty, &full, "empty.txt is empty")] {
        let output = priorart().arg("compare").arg(a).arg(b).output().expect("runs");
        assert!(output.status.success());
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(named) && stderr.contains("no similarity verdict"), "{stderr}");
        assert!(stdout.contains("no similarity verdict"), "{stdout}");
        assert!(!stdout.contains("near-identical"), "{stdout}");
        let json = compare_json(a, b);
        assert_eq!(json["overlap"]["value"], Value::Null);
        assert_eq!(json["a"]["empty"], true);
        assert!(json["verdict"].as_str().unwrap().contains("no similarity verdict"));
    }
    assert_eq!(compare_json(&full, &full)["a"]["empty"], false);
}

/// Six paragraphs of the Debian Administrator's Handbook in Chinese
/// (debian-handbook 11, zh-CN, "Advanced Administration").
const CHINESE: &str = include_str!("data/zh-handbook.txt");

/// A light edit of text in a script written without spaces: every 40th
/// unspaced letter (ideograph, kana…) replaced by `by` (2.5 %).
pub(crate) fn every_fortieth_unspaced_letter_replaced(text: &str, by: char) -> String {
    let mut letters = 0;
    text.chars()
        .map(|c| {
            if !priorart_fingerprint::is_unspaced(c) {
                return c;
            }
            letters += 1;
            if letters % 40 == 0 { by } else { c }
        })
        .collect()
}

#[test]
fn an_edited_chinese_copy_is_near_where_the_v1_words_lost_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let original = write(dir.path(), "original.txt", CHINESE);
    let copy = write(dir.path(), "copy.txt", &every_fortieth_unspaced_letter_replaced(CHINESE, '某'));
    let report = compare_json(&original, &copy);
    let overlap = report["overlap"]["value"].as_f64().expect("an overlap");
    assert!(overlap > 0.6, "{report}");
    assert!(report["simhash-doc-v2"]["distance"].as_u64().expect("a distance") <= 6, "{report}");

    let output = priorart()
        .args(["compare", "--json", "--shingles", "words-v1"])
        .arg(&original)
        .arg(&copy)
        .output()
        .expect("runs");
    let v1: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert!(v1["overlap"]["value"].as_f64().expect("an overlap") < 0.2, "{v1}");
    assert!(v1["simhash-doc"]["distance"].is_u64(), "the v1 shingling compares simhash-doc: {v1}");
}
