//! `Shingling::Words` against the definition it claims: Python's
//! `re.findall(r"\w+", text.lower())` cut into word 5-grams
//! (`peer/word_shingles.py`, the rule of `scripts/eval/dedup-quality.py`'s ground
//! truth). For pseudo-random texts of mixed scripts, case, digits,
//! punctuation and combining marks, and an edited copy of each, the shingle
//! counts of both and their Jaccard similarity must be Python's.
//!
//! Python 3.11 is part of every machine the tests run on (no package is
//! needed: `re` is the standard library). Its Unicode tables are older
//! (14.0) than ICU4X's (17.0), so the texts use only characters assigned
//! in Unicode 14.

use priorart_fingerprint::{Shingling, WordShingles};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Pieces texts are built from: words of several scripts and cases, numbers
/// of several systems, characters whose lowercase form is longer or ends a
/// word (İ, ẞ, Σ), combining marks, underscores, punctuation and spaces.
const PIECES: &[&str] = &[
    "the",
    "Quick",
    "BROWN",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dogs",
    "package",
    "Debian",
    "42",
    "3.14",
    "x86_64",
    "snake_case",
    "e-mail",
    "don't",
    "https://example.org/a?b=1",
    "ΟΔΟΣ",
    "Σίσυφος",
    "İstanbul",
    "STRAẞE",
    "straße",
    "Ǆemal",
    "ﬁle",
    "東京",
    "καί",
    "Москва",
    "٣٤",
    "४२",
    "Ⅻ",
    "½",
    "²",
    "café",
    "cafe\u{301}",
    "n\u{303}o",
    "ǅ",
    "ꞵ",
    "Ω",
    "ﬃ",
    "·",
    "—",
    "…",
    "«",
    "»",
    "\u{a0}",
    "\t",
    "\n",
    "  ",
    ",",
    ".",
    "!",
    "(",
    ")",
    "_",
    "__init__",
];

fn texts(rng: &mut fastrand::Rng, count: usize) -> Vec<(String, String)> {
    (0..count)
        .map(|_| {
            let words: Vec<&str> = (0..rng.usize(0..60)).map(|_| PIECES[rng.usize(..PIECES.len())]).collect();
            let a = words.join(if rng.bool() { " " } else { "" });
            // The copy: a few pieces replaced, then joined by single spaces.
            let mut edited = words.clone();
            for _ in 0..rng.usize(0..4) {
                if !edited.is_empty() {
                    let at = rng.usize(..edited.len());
                    edited[at] = PIECES[rng.usize(..PIECES.len())];
                }
            }
            (a, edited.join(" "))
        })
        .collect()
}

#[test]
fn word_shingles_are_pythons_lowercased_word_five_grams() {
    let mut rng = fastrand::Rng::with_seed(25);
    let pairs = texts(&mut rng, 400);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer/word_shingles.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs (Python 3.11 is on every test machine)");
    child.stdin.take().unwrap().write_all(json!(pairs).to_string().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "the Python peer failed");
    let peer: Value = serde_json::from_slice(&output.stdout).unwrap();
    let answers = peer["answers"].as_array().unwrap();
    assert_eq!(answers.len(), pairs.len());
    let mut similar = 0;
    for ((a, b), answer) in pairs.iter().zip(answers) {
        let (sa, sb) = (WordShingles::of(a, Shingling::WordsV1), WordShingles::of(b, Shingling::WordsV1));
        let expected =
            (answer[0].as_u64().unwrap(), answer[1].as_u64().unwrap(), answer[2].as_f64().unwrap());
        assert_eq!((sa.len() as u64, sb.len() as u64), (expected.0, expected.1), "{a:?} / {b:?}");
        let jaccard = sa.jaccard(&sb);
        assert!(
            (jaccard - expected.2).abs() < 1e-12,
            "{a:?} / {b:?}: {jaccard} where Python says {}",
            expected.2
        );
        similar += usize::from(jaccard > 0.5 && jaccard < 1.0);
    }
    assert!(similar > 20, "the edited copies cover similarities between 0.5 and 1 ({similar})");
}
