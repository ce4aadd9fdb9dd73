//! `Fingerprinter::fingerprint_json_string` (decoding while folding) equals
//! fingerprinting the decoded text, on every conformance vector written the
//! ways JSON writers write strings, finds where the string ends, and
//! refuses what serde_json refuses.

use priorart_fingerprint::{Fingerprinter, Scheme, decode_json_string};
use serde::Deserialize;

#[derive(Deserialize)]
struct Vectors {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    input: String,
}

fn inputs() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/equality-vectors.json");
    let text = std::fs::read_to_string(path).expect("vectors/equality-vectors.json is in the repo");
    let vectors: Vectors = serde_json::from_str(&text).expect("the vector file is valid JSON");
    vectors.cases.into_iter().map(|case| case.input).collect()
}

/// The body of the JSON string of `text`, as serde_json writes it (only
/// quotes, backslashes and controls escaped).
fn minimal(text: &str) -> String {
    let quoted = serde_json::to_string(text).expect("strings serialize");
    quoted[1..quoted.len() - 1].to_owned()
}

/// As Python's `json.dumps` writes it: every non-ASCII character escaped,
/// astral ones as surrogate pairs.
fn ascii_only(text: &str) -> String {
    let mut out = String::new();
    for c in minimal(text).chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// Every letter and every `/` escaped too, in upper-case hex, so that
/// escaped capitals must be lowercased.
fn everything_escaped(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            'A'..='Z' | 'a'..='z' => out.push_str(&format!("\\u{:04X}", c as u32)),
            '/' => out.push_str("\\/"),
            _ => out.push_str(&ascii_only(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out
}

#[test]
fn decoding_while_folding_equals_decoding_first() {
    let scheme_sets: [&[Scheme]; 3] = [
        &[Scheme::MinhashEqualityV1],
        &[Scheme::MinhashEqualityV1, Scheme::SimhashEqualityV2],
        &[Scheme::SimhashEqualityV2, Scheme::SimhashDoc],
    ];
    let mut direct = Fingerprinter::new();
    let mut fused = Fingerprinter::new();
    let mut checked = 0;
    for text in inputs() {
        for body in [minimal(&text), ascii_only(&text), everything_escaped(&text)] {
            // The string is followed by the rest of a record, as in JSONL.
            let json = format!("\"{body}\",\"id\":\"x\"}}");
            let len = body.len() + 2;
            let decoded = decode_json_string(&json).map(|(text, len)| (text.into_owned(), len));
            assert_eq!(decoded, Some((text.clone(), len)), "{body}");
            for schemes in scheme_sets {
                let want = direct.fingerprint(&text, schemes);
                assert_eq!(fused.fingerprint_json_string(&json, schemes), Some((want, len)), "{body}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 3030 * 3 * 3);
}

#[test]
fn refuses_what_serde_json_refuses() {
    let mut fingerprinter = Fingerprinter::new();
    for json in [
        r#""\ud83d""#,
        r#""lone \ude00 low""#,
        r#""Σ \ud800""#,
        r#""bad \x escape""#,
        r#""short \u12""#,
        r#""\uzzzz""#,
        r#""trailing \"#,
        "\"raw \u{1} control\"",
        "\"ΣΑΣ raw \u{1f}\"",
        r#""no closing quote"#,
        r#"no opening quote""#,
        "",
    ] {
        assert!(serde_json::from_str::<String>(json).is_err(), "{json}");
        assert_eq!(decode_json_string(json), None, "{json}");
        assert_eq!(fingerprinter.fingerprint_json_string(json, &[Scheme::MinhashEqualityV1]), None, "{json}");
    }
}
