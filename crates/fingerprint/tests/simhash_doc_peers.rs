//! `simhash-doc` against independent implementations, run beside priorart.
//!
//! What is compared, exactly:
//!
//! 1. **lookup3 `hashlittle2`, against Bob Jenkins' C code** (PyPI
//!    `jenkins-cffi` 1.0.2.1 compiles his `lookup3.c`): `c` and `b` for
//!    every key below, seeds 0/0, all 64 bits.
//! 2. **lookup3, against npm `simhash-js` 1.0.0** with its rotate bug fixed
//!    in a copy at run time (`>>` → `>>>`, see `peer/simhash_js_check.js`):
//!    `c` and `b`, all 64 bits. The unpatched package is run too, and must
//!    differ on `a` exactly as documented (`c = 8c7843fa`), so the test
//!    knows it ran the real package and the patch is what makes them agree.
//! 3. **The SimHash combination, against simhash-js's `combineShingles`**:
//!    it builds a 32-bit simhash from 32-bit hashes with the same rule as
//!    the spec (+1/−1 per occurrence, bit set iff the sum is positive). Fed
//!    the `c` halves of priorart's tokens of each vector document, it must
//!    give the upper 32 bits of priorart's value; fed the `b` halves, the
//!    lower 32 bits. Tokenization is *not* compared here (simhash-js cuts
//!    fixed 4-character shingles); the vectors pin it down.
//!
//! 4. **The whole scheme, against a Python port written from
//!    `docs/simhash-doc.md` alone** (`peer/simhash_doc_reference.py`:
//!    Python's own NFKC and case folding, the spec's ignorable and
//!    White_Space lists, lookup3 from jenkins-cffi): the value of every
//!    vector input and of pseudo-random mixed-script texts. Inputs with a
//!    character unassigned in that Python's Unicode version are skipped (and
//!    counted).
//!
//! Keys: every token of `vectors/simhash-doc.json`, the feature table's
//! tokens, and pseudo-random byte strings of every length 0..=40 (the
//! 12-byte block boundaries and all tail lengths).
//!
//! Peers are installed by `.ci/setup.d/simhash.sh`. Missing peers skip the
//! test (recorded by `priorart_testkit::peers`), unless `PRIORART_REQUIRE_PEERS=1` (CI).

use priorart_fingerprint::{TokenRule, explain_simhash_doc, hashlittle2};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn peer_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer")
}

/// Skips (returns false) or fails when a peer is missing.
fn peer_present(what: &str, present: bool) -> bool {
    priorart_testkit::peers::peer_available(what, present, "run .ci/setup.d/simhash.sh")
}

/// Runs `program args` with `input` on stdin; returns its JSON stdout.
fn run_json(program: &Path, args: &[&str], input: &Value) -> Value {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(peer_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {}: {err}", program.display()));
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let payload = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(payload.as_bytes()));
    let output = child.wait_with_output().expect("peer runs");
    writer.join().expect("writer thread").expect("peer reads its input");
    assert!(output.status.success(), "{} failed", program.display());
    serde_json::from_slice(&output.stdout).expect("peer prints JSON")
}

/// Each vector input's hashed tokens and priorart's value for it.
fn vector_documents() -> Vec<(Vec<String>, u64)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/simhash-doc.json");
    let vectors: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vectors exist")).expect("JSON");
    vectors["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| explain_simhash_doc(case["input"].as_str().expect("input"), TokenRule::V1))
        .map(|explanation| (explanation.tokens, explanation.fingerprint.0))
        .collect()
}

fn keys(documents: &[(Vec<String>, u64)]) -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> =
        documents.iter().flat_map(|(tokens, _)| tokens).map(|t| t.as_bytes().to_vec()).collect();
    keys.extend(
        ["", "a", "Jabberwock", "Four score and seven years ago", "été"].map(|t| t.as_bytes().to_vec()),
    );
    let mut rng = fastrand::Rng::with_seed(0x2545_F491_4F6C_DD1D);
    for len in 0..=40 {
        keys.push((0..len).map(|_| rng.u8(..)).collect());
    }
    keys.sort();
    keys.dedup();
    keys
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn ours(key: &[u8]) -> Value {
    let hash = hashlittle2(key, 0, 0);
    json!([format!("{:08x}", hash.c), format!("{:08x}", hash.b)])
}

#[test]
fn lookup3_agrees_with_jenkins_c_code() {
    let python = peer_dir().join(".venv/bin/python");
    if !peer_present("PyPI jenkins-cffi (tests/peer/.venv)", python.exists()) {
        return;
    }
    let keys = keys(&vector_documents());
    let hex_keys: Vec<String> = keys.iter().map(|k| hex(k)).collect();
    let answers = run_json(&python, &["lookup3_check.py"], &json!({ "keys": hex_keys }));
    let answers = answers.as_array().expect("an array");
    assert_eq!(answers.len(), keys.len());
    for (key, answer) in keys.iter().zip(answers) {
        assert_eq!(&ours(key), answer, "key {}", hex(key));
    }
}

#[test]
fn lookup3_and_combination_agree_with_simhash_js() {
    let installed = peer_dir().join("node_modules/simhash-js/package.json").exists();
    if !peer_present("npm simhash-js (tests/peer/node_modules)", installed) {
        return;
    }
    let documents = vector_documents();
    let keys = keys(&documents);
    let input = json!({
        "keys": keys.iter().map(|k| hex(k)).collect::<Vec<_>>(),
        "documents": documents
            .iter()
            .map(|(tokens, _)| tokens.iter().map(|t| hex(t.as_bytes())).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
    });
    let answers = run_json(Path::new("node"), &["simhash_js_check.js"], &input);
    assert_eq!(answers["version"], "1.0.0");

    let answered = answers["keys"].as_array().expect("keys");
    assert_eq!(answered.len(), keys.len());
    let mut original_differs = 0;
    for (key, answer) in keys.iter().zip(answered) {
        assert_eq!(ours(key), answer["fixed"], "key {}", hex(key));
        original_differs += usize::from(answer["original"] != answer["fixed"]);
        if key.as_slice() == b"a" {
            assert_eq!(answer["original"][0], "8c7843fa", "the documented simhash-js bug");
        }
    }
    assert!(original_differs > keys.len() / 2, "the unpatched package should be wrong on most keys");

    let answered = answers["documents"].as_array().expect("documents");
    assert_eq!(answered.len(), documents.len());
    let mut compared = 0;
    for ((tokens, value), answer) in documents.iter().zip(answered) {
        if tokens.is_empty() {
            assert_eq!(*value, 0);
            assert!(answer["high"].is_null());
            continue;
        }
        assert_eq!(answer["high"], format!("{:08x}", value >> 32), "tokens {tokens:?}");
        assert_eq!(answer["low"], format!("{:08x}", value & 0xffff_ffff), "tokens {tokens:?}");
        compared += 1;
    }
    assert!(compared > 40);
}

/// Pseudo-random texts of words, numbers, identifiers, punctuation and
/// characters that normalization changes, in many scripts.
fn mixed_texts() -> Vec<String> {
    const PIECES: [&str; 40] = [
        "the",
        "Word",
        "ÉCOLE",
        "straße",
        "ΣΟΦΙΑ",
        "Москва",
        "中文",
        "日本語",
        "한국어",
        "עברית",
        "العربية",
        "हिंदी",
        "ﬁne",
        "ＡＢＣ",
        "x²",
        "½",
        "e\u{301}",
        "soft\u{AD}hyphen",
        "zero\u{200B}width",
        "42",
        "3.14",
        "a_b",
        "https://x.org/p",
        "www.Example.com",
        "me@x.org",
        "doi:10.1000/1",
        "end.",
        "e.g.",
        " ",
        " ",
        "  ",
        "\n",
        "\t",
        ", ",
        "; ",
        "\u{A0}",
        "\u{3000}",
        "(",
        ")",
        "—",
    ];
    let mut rng = fastrand::Rng::with_seed(0x243F_6A88_85A3_08D3);
    (0..60).map(|_| (0..rng.usize(..300) + 1).map(|_| PIECES[rng.usize(..PIECES.len())]).collect()).collect()
}

#[test]
fn whole_scheme_agrees_with_a_python_port_of_the_spec() {
    let python = peer_dir().join(".venv/bin/python");
    if !peer_present("PyPI jenkins-cffi (tests/peer/.venv)", python.exists()) {
        return;
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/simhash-doc.json");
    let vectors: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vectors exist")).expect("JSON");
    let mut inputs: Vec<String> = vectors["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| case["input"].as_str().expect("input").to_owned())
        .collect();
    inputs.extend(mixed_texts());
    let answers = run_json(&python, &["simhash_doc_reference.py"], &json!({ "inputs": inputs }));
    let results = answers["results"].as_array().expect("results");
    assert_eq!(results.len(), inputs.len());
    let mut skipped = 0;
    for (input, result) in inputs.iter().zip(results) {
        if result.is_null() {
            skipped += 1;
            continue;
        }
        let ours = priorart_fingerprint::simhash_doc(input);
        assert_eq!(result["hex"], ours.to_hex(), "input {input:?} (Python Unicode {})", answers["unicode"]);
        assert_eq!(result["base32"], ours.to_string(), "input {input:?}");
    }
    assert!(skipped * 10 <= inputs.len(), "{skipped} of {} inputs skipped", inputs.len());
}
