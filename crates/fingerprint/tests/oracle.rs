//! Differential test against an independent JavaScript oracle
//! (`tests/peer/equality-oracle.js`, written from the NIP-FF-3 text) run on
//! Node.js, whose ICU supplies the Unicode tables the reference uses.
//!
//! The inputs are generated from a seeded generator that favours the places
//! where JavaScript and Rust differ: UTF-16 lengths, ECMAScript whitespace,
//! number categories, the URL rule against zero-width characters, final
//! sigma, compatibility decompositions, unassigned code points.
//!
//! `PRIORART_ORACLE_CASES` (default 20000) and `PRIORART_ORACLE_SEED`
//! (default 1) choose the run. Node must report Unicode 17, the version of
//! the reference; a Node with other tables is skipped, as is a machine
//! without Node, unless `PRIORART_REQUIRE_PEERS=1` (set by CI).

use priorart_fingerprint::{Fingerprinter, Scheme};
use std::io::Write;
use std::process::{Command, Stdio};

/// Fragments the generator splices together.
const FRAGMENTS: &[&str] = &[
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\u{A0}",
    "\u{1680}",
    "\u{2003}",
    "\u{2028}",
    "\u{3000}",
    "\u{85}",
    "\u{180E}",
    "\u{FEFF}",
    "\u{200B}",
    "\u{200C}",
    "\u{200D}",
    "\u{AD}",
    "\u{0}",
    "\u{7F}",
    "http://",
    "https://",
    "HTTPS://",
    "http:",
    "//",
    "www.",
    "a.b/c?d=1",
    "http://x.y/ü",
    "running",
    "walked",
    "watches",
    "cats",
    "sing",
    "goes",
    "this",
    "does",
    "the",
    "and",
    "between",
    "ΣΑΣ",
    "Σ",
    "ς",
    "σ",
    "ὈΔΥΣΣΕΎΣ",
    "İstanbul",
    "ı",
    "ß",
    "ẞ",
    "ǅ",
    "Ⅻ",
    "½",
    "²",
    "٣",
    "𝟘",
    "ﬁ",
    "ﬀ",
    "Ａ",
    "１",
    "𝒜",
    "𝔅",
    "Ǆ",
    "ŉ",
    "ℌ",
    "Ω",
    "K",
    "Å",
    "é",
    "e\u{301}",
    "\u{301}",
    "\u{3099}",
    "が",
    "ｶﾞ",
    "한국어",
    "中文",
    "日本語テキスト",
    "العربية",
    "हिन्दी",
    "ไทย",
    "Ελληνικά",
    "русский",
    "😀",
    "🎉",
    "👍🏽",
    "©",
    "™",
    "€",
    "¥",
    "—",
    "…",
    "'",
    "\"",
    "-",
    "_",
    "#",
    "@",
    "`",
    "~",
    "^",
    "|",
    "\u{E000}",
    "\u{378}",
    "\u{1FFFF}",
    "\u{10FFFF}",
    "\u{D7FF}",
    "\u{FFFD}",
    "0",
    "42",
    "3.14",
    "x1y",
    "word",
    "text",
    "content",
    "nostr",
    "fingerprint",
];

fn random_char(rng: &mut fastrand::Rng) -> char {
    loop {
        let limit = match rng.usize(..4) {
            0 => 0x80,
            1 => 0x3000,
            2 => 0x1_0000,
            _ => 0x11_0000,
        };
        if let Some(c) = char::from_u32(rng.u32(..limit)) {
            return c;
        }
    }
}

fn generate(rng: &mut fastrand::Rng) -> String {
    let mut text = String::new();
    for _ in 0..rng.usize(..24) {
        if rng.usize(..3) == 0 {
            text.push(random_char(rng));
        } else {
            text.push_str(FRAGMENTS[rng.usize(..FRAGMENTS.len())]);
        }
    }
    text
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Skips the oracle (recorded by `priorart_testkit::peers`), or fails
/// when peers are required.
fn peer_missing(why: &str) {
    let install = format!("{why}; install Node.js with ICU for Unicode 17.0 (.ci/setup.d/simhash.sh)");
    priorart_testkit::peers::peer_available("the JavaScript oracle", false, &install);
}

fn node_unicode_version() -> Option<String> {
    let output = Command::new("node").args(["-p", "process.versions.unicode"]).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

fn run_oracle(inputs: &[String]) -> Vec<[String; 2]> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peer/equality-oracle.js");
    let mut child = Command::new("node")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node starts");
    let payload = serde_json::to_vec(inputs).expect("strings serialize");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(&payload));
    let output = child.wait_with_output().expect("node runs");
    writer.join().expect("writer thread").expect("oracle reads its input");
    assert!(output.status.success(), "oracle failed");
    serde_json::from_slice(&output.stdout).expect("oracle prints JSON")
}

#[test]
fn agrees_with_the_javascript_oracle_on_generated_text() {
    match node_unicode_version() {
        None => return peer_missing("node is not installed"),
        Some(version) if version != "17.0" => {
            return peer_missing(&format!("node has Unicode {version}, the reference has 17.0"));
        }
        Some(_) => {}
    }
    let mut rng = fastrand::Rng::with_seed(env_number("PRIORART_ORACLE_SEED", 1));
    let cases = env_number("PRIORART_ORACLE_CASES", 20_000) as usize;
    let inputs: Vec<String> = (0..cases).map(|_| generate(&mut rng)).collect();
    let expected = run_oracle(&inputs);
    let schemes = [Scheme::MinhashEqualityV1, Scheme::SimhashEqualityV2];
    let mut fingerprinter = Fingerprinter::new();
    let mismatches: Vec<String> = inputs
        .iter()
        .zip(&expected)
        .filter(|(input, want)| {
            let got = fingerprinter.fingerprint(input, &schemes);
            got[0].to_string() != want[0] || got[1].to_string() != want[1]
        })
        .map(|(input, _)| format!("{input:?}"))
        .take(20)
        .collect();
    assert!(mismatches.is_empty(), "differs from the oracle on:\n{}", mismatches.join("\n"));
}
