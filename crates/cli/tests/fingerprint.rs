//! The `priorart fingerprint` contract, tested from outside the binary.

use assert_cmd::Command;
use priorart_nip_testkit::{priorart, priorart_binary};
use std::io::Write;

const GM_V1: &str = "edd1cd0b1336e78283766771fc7eca7dea976820d9a7765d69de3887ff3b8fac";
const GM_V2: &str = "9c6bb8e50ff847630107bf51cd4c81c2478090f17643eb8ce5bed2c17b6f6eea";
const MORNING_V1: &str = "e4e0e824c0b1bfb2d79bb85762deb1fd697c7ab379fd2efbc0b32f45188f68a2";

fn stdout_of(cmd: &mut Command) -> String {
    let output = cmd.output().expect("runs");
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

fn file_with(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    std::fs::File::create(&path).and_then(|mut f| f.write_all(bytes)).expect("writes");
    path.to_str().expect("UTF-8 path").to_owned()
}

#[test]
fn files_print_hex_two_spaces_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = file_with(&dir, "a.txt", b"GM");
    let b = file_with(&dir, "b.txt", b"good morning nostr");
    let out = stdout_of(priorart().args(["fingerprint", &a, &b]));
    assert_eq!(out, format!("{GM_V1}  {a}\n{MORNING_V1}  {b}\n"));
}

#[test]
fn stdin_by_default_and_by_dash() {
    for args in [vec!["fingerprint"], vec!["fingerprint", "-"]] {
        let out = stdout_of(priorart().args(&args).write_stdin("gm"));
        assert_eq!(out, format!("{GM_V1}  -\n"));
    }
}

#[test]
fn several_schemes_in_the_order_asked() {
    let out = stdout_of(
        priorart()
            .args(["fingerprint", "--scheme", "simhash-equality-v2,minhash-equality-v1"])
            .write_stdin("gm"),
    );
    assert_eq!(out, format!("{GM_V2} {GM_V1}  -\n"));
}

#[test]
fn jsonl_replaces_text_by_one_member_per_scheme() {
    let input =
        "{\"id\":7,\"text\":\"GM\",\"tags\":[1,{\"a\":null}]}\n{\"text\":\"good morning nostr\",\"z\":1}\n";
    let out = stdout_of(
        priorart()
            .args(["fingerprint", "--jsonl", "--scheme", "minhash-equality-v1,simhash-equality-v2"])
            .write_stdin(input),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{{\"id\":7,\"tags\":[1,{{\"a\":null}}],\"minhash-equality-v1\":\"{GM_V1}\",\"simhash-equality-v2\":\"{GM_V2}\"}}"
        )
    );
    assert!(lines[1].starts_with("{\"z\":1,\"minhash-equality-v1\":\"e4e0e824"));
    assert_eq!(lines.len(), 2);
}

#[test]
fn jsonl_field_option() {
    let out = stdout_of(
        priorart().args(["fingerprint", "--jsonl", "--field", "body"]).write_stdin("{\"body\":\"gm\"}"),
    );
    assert_eq!(out, format!("{{\"minhash-equality-v1\":\"{GM_V1}\"}}\n"));
}

#[test]
fn jsonl_order_is_input_order_at_any_thread_count() {
    let input: String =
        (0..5000).map(|i| format!("{{\"id\":{i},\"text\":\"note number {i} about things\"}}\n")).collect();
    let one =
        stdout_of(priorart().args(["fingerprint", "--jsonl", "--threads", "1"]).write_stdin(input.clone()));
    let four = stdout_of(priorart().args(["fingerprint", "--jsonl", "--threads", "4"]).write_stdin(input));
    assert_eq!(one, four);
    let ids: Vec<u64> = one
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON")["id"].as_u64().expect("id"))
        .collect();
    assert_eq!(ids, (0..5000).collect::<Vec<_>>());
}

#[test]
fn invalid_utf8_names_file_and_offset_and_other_files_still_print() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = file_with(&dir, "bad.txt", b"abc\xffdef");
    let good = file_with(&dir, "good.txt", b"gm");
    // --raw takes the bytes as UTF-8 and refuses them, naming the offset.
    let output = priorart().args(["fingerprint", "--raw", &bad, &good]).output().expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.txt") && stderr.contains("offset 3"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), format!("{GM_V1}  {good}\n"));
    // By default the file is text in a legacy character set, decoded as `extract` decodes it.
    priorart().args(["fingerprint", &bad]).assert().success();
}

#[test]
fn bad_jsonl_lines_name_their_line_number() {
    let input = "{\"text\":\"gm\"}\nnot json\n{\"id\":1}\n{\"text\":5}\n[1]\n";
    let output = priorart().args(["fingerprint", "--jsonl"]).write_stdin(input).output().expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    for expected in [
        "line 2: not JSON",
        "line 3: no string member `text`",
        "line 4: member `text` is not a string",
        "line 5: not a JSON object",
    ] {
        assert!(stderr.contains(expected), "missing {expected:?} in {stderr}");
    }
    assert_eq!(String::from_utf8_lossy(&output.stdout), format!("{{\"minhash-equality-v1\":\"{GM_V1}\"}}\n"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["fingerprint", "--scheme", "nope"],
        vec!["fingerprint", "--threads", "0", "--jsonl"],
        vec!["fingerprint", "--field", "x"],
        vec!["fingerprint", "-", "-"],
    ] {
        let output = priorart().args(&args).write_stdin("").output().expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn missing_file_is_bad_input() {
    let output = priorart().args(["fingerprint", "/nonexistent/file"]).output().expect("runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/file"));
}

#[test]
fn explain_shows_every_step() {
    let out =
        stdout_of(priorart().args(["fingerprint", "--explain"]).write_stdin("The running cats walked home"));
    for expected in [
        "canonical text: \"the running cats walked home\"",
        "kept (3):      runn walk home",
        "descriptor:     minhash-equality-v1|n=1|b=8|k=3|m=4|",
        "b1: x",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in\n{out}");
    }
}

#[test]
fn explain_json_is_machine_readable_and_agrees() {
    let out = stdout_of(priorart().args(["fingerprint", "--explain", "--json"]).write_stdin("GM"));
    let value: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(value["fingerprint"], GM_V1);
    assert_eq!(value["fallback"], true);
    assert_eq!(value["tokens"], serde_json::json!(["gm"]));
    assert_eq!(value["buckets"].as_array().map(Vec::len), Some(8));
}

/// One file, one X: every command that reads a document reads it the same
/// way, whatever its format, and plain text is fingerprinted as it is.
#[test]
fn documents_have_one_x_in_every_command() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/data");
    for name in
        ["article.pdf", "html-utf8.html", "html-utf16.html", "text-koi8r.txt", "jats.xml", "book.epub"]
    {
        let path = data.join(name);
        let output = priorart().arg("fingerprint").arg(&path).output().unwrap();
        assert!(output.status.success(), "{name}: {}", String::from_utf8_lossy(&output.stderr));
        let x = String::from_utf8(output.stdout).unwrap()[..64].to_owned();
        // The same X as the library computes on the text `extract` gives
        // (documents) or on the decoded text (plain text).
        let bytes = std::fs::read(&path).unwrap();
        let document =
            priorart_extract::document_text(&bytes, None, &priorart_extract::Limits::default()).unwrap();
        assert_eq!(x, priorart_fingerprint::minhash_equality_v1(&document.text).to_string(), "{name}");
        // compare sees the same X on both sides of a file against itself.
        let output = priorart().args(["compare", "--json"]).arg(&path).arg(&path).output().unwrap();
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["a"]["minhash-equality-v1"], x.as_str(), "{name}: {report}");
    }
    // Plain UTF-8 text is unchanged: the X of the file is the X of its bytes as text, URLs included.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("note.md");
    let text = "# Title\n\nSee https://example.org/x for   the *details*.\n";
    std::fs::write(&path, text).unwrap();
    let output = priorart().arg("fingerprint").arg(&path).output().unwrap();
    assert_eq!(
        &String::from_utf8(output.stdout).unwrap()[..64],
        priorart_fingerprint::minhash_equality_v1(text).to_string()
    );
    // --raw refuses what is not UTF-8; --format forces a format.
    priorart().args(["fingerprint", "--raw"]).arg(data.join("article.pdf")).assert().code(1);
    let output = priorart()
        .args(["fingerprint", "--explain", "--format", "text"])
        .arg(data.join("html-utf8.html"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stdout).contains("input:          text (character set decoded"));
}

#[test]
fn limits_that_hold() {
    // Far too many threads are capped, with a note, not spawned.
    let output = priorart()
        .args(["fingerprint", "--jsonl", "--threads", "100000"])
        .write_stdin("{\"text\":\"gm\"}\n")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("capped at"));
    // A lone surrogate escape is refused with its name and place, and the next line is read.
    let input = "{\"text\":\"a \\ud800 b\"}\n{\"text\":\"gm\"}\n";
    let output = priorart().args(["fingerprint", "--jsonl"]).write_stdin(input).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("line 1: a \\u escape at byte 11 is half of a UTF-16 surrogate pair")
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 1);
}

#[test]
fn a_closed_stderr_is_not_a_crash() {
    // stderr is a pipe whose reader is gone before priorart writes to it.
    let mut child = std::process::Command::new(priorart_binary())
        .args(["fingerprint", "--jsonl", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    child.stdin.take().unwrap().write_all(b"not json\nnot json either\n").unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "bad input, not a panic (101)");
}

#[test]
fn explain_lists_a_bounded_number_of_tokens_and_counts_them_all() {
    let text = "word ".repeat(priorart_fingerprint::MAX_LISTED_TOKENS + 5);
    let output =
        priorart().args(["fingerprint", "--explain", "--json", "-"]).write_stdin(text).output().unwrap();
    let explanation: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(explanation["tokens"].as_array().unwrap().len(), priorart_fingerprint::MAX_LISTED_TOKENS);
    assert_eq!(explanation["tokens_total"], priorart_fingerprint::MAX_LISTED_TOKENS + 5);
}

/// The repository's README: a real document whose explanation once printed
/// 61 KB, one line of 22,851 characters.
fn readme() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md").display().to_string()
}

#[test]
fn explain_into_a_pipe_is_whole_with_or_without_full() {
    let text = std::fs::read_to_string(readme()).unwrap();
    let canonical = priorart_fingerprint::explain(&text, priorart_fingerprint::Scheme::MinhashEqualityV1)
        .unwrap()
        .canonical_text;
    assert!(canonical.chars().count() > 1_000, "a long canonical text");
    let piped = stdout_of(
        priorart()
            .args(["fingerprint", "--explain", "--scheme", "minhash-equality-v1,simhash-doc"])
            .arg(readme()),
    );
    assert!(piped.contains(&format!("canonical text: {canonical:?}\n")), "the canonical text whole");
    assert!(!piped.contains("--full shows all"));
    let full = stdout_of(
        priorart()
            .args(["fingerprint", "--explain", "--full", "--scheme", "minhash-equality-v1,simhash-doc"])
            .arg(readme()),
    );
    assert_eq!(full, piped);
    // --full is for --explain only.
    priorart().args(["fingerprint", "--full"]).arg(readme()).assert().code(2);
}

/// Runs `priorart ARGS` with a pseudo-terminal as its stdout (util-linux
/// `script`), returning what the terminal showed.
#[cfg(target_os = "linux")]
fn on_a_terminal(args: &str) -> String {
    let binary = priorart_binary();
    let command = format!("{} {args}", binary.display());
    let output = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("util-linux `script` runs (it gives the test a terminal)");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap().replace("\r\n", "\n")
}

#[test]
#[cfg(target_os = "linux")]
fn explain_on_a_terminal_shortens_long_fields_and_full_shows_all() {
    let short = on_a_terminal(&format!(
        "fingerprint --explain --scheme minhash-equality-v1,simhash-doc {}",
        readme()
    ));
    let longest = short.lines().map(|line| line.chars().count()).max().unwrap();
    assert!(longest < 400, "a line of {longest} characters");
    assert!(short.len() < 12_000, "{} bytes", short.len());
    assert!(short.contains("more characters; --full shows all)"), "{short}");
    assert!(short.contains("more tokens; --full shows all)"), "{short}");
    assert!(short.contains("more features; --full shows all)"), "{short}");
    // The values themselves are all there.
    let piped = stdout_of(
        priorart()
            .args(["fingerprint", "--explain", "--scheme", "minhash-equality-v1,simhash-doc"])
            .arg(readme()),
    );
    for line in
        piped.lines().filter(|line| line.starts_with("fingerprint:") || line.starts_with("descriptor:"))
    {
        assert!(short.contains(line), "{line}");
    }
    let full = on_a_terminal(&format!(
        "fingerprint --explain --full --scheme minhash-equality-v1,simhash-doc {}",
        readme()
    ));
    assert_eq!(full, piped);
    // JSON stays whole on a terminal.
    let json = on_a_terminal(&format!("fingerprint --explain --json {}", readme()));
    assert!(!json.contains("--full shows all"));
    let explanation: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert!(explanation["canonical_text"].as_str().unwrap().chars().count() > 1_000);
}

#[test]
fn a_gzipped_document_and_a_man_page_are_read_as_what_they_hold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let changelog = "tidal (1.2-1) unstable; urgency=medium\n\n  * New upstream release: mills grind grain at \
        every tide, as they did in the estuaries of Europe for eight centuries.\n";
    let page = ".\\\" a page\n.TH TIDAL 1\n.SH NAME\ntidal \\- grind grain\n.SH DESCRIPTION\n\\fBTidal\\fR mills \
        ground grain at every tide.\n";
    let plain = file_with(&dir, "changelog", changelog.as_bytes());
    let man = file_with(&dir, "tidal.1", page.as_bytes());
    let gzip = |path: &str| {
        let status = std::process::Command::new("gzip").args(["-k", "-n", path]).status().expect("gzip runs");
        assert!(status.success());
        format!("{path}.gz")
    };
    let (plain_gz, man_gz) = (gzip(&plain), gzip(&man));
    let x = |path: &str| {
        stdout_of(priorart().arg("fingerprint").arg(path)).split_whitespace().next().unwrap().to_owned()
    };
    assert_eq!(x(&plain_gz), x(&plain), "the gzipped text has the text's X");
    assert_eq!(x(&man_gz), x(&man));
    let text = stdout_of(priorart().arg("extract").arg(&man_gz));
    assert_eq!(
        text,
        "NAME\n\ntidal - grind grain\n\nDESCRIPTION\n\nTidal mills ground grain at every tide.\n"
    );
    // A download cut short is named as one.
    let bytes = std::fs::read(&plain_gz).unwrap();
    let cut = file_with(&dir, "cut.gz", &bytes[..bytes.len() - 12]);
    let output = priorart().arg("fingerprint").arg(&cut).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("truncated gzip"), "{output:?}");
}
