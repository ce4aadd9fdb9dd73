//! `priorart extract` end to end, on the extract crate's fixtures.

use priorart_nip_testkit::priorart;
use serde_json::Value;
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/data").join(name).display().to_string()
}

const FR: &str = "Les moulins à marée ont moulu le grain des estuaires européens pendant huit siècles.";

#[test]
fn prints_the_text_of_a_detected_format() {
    priorart()
        .args(["extract", &fixture("html-windows1251.html")])
        .assert()
        .success()
        .stdout("Приливные мельницы молотили зерно в эстуариях Европы восемь веков.\n");
}

#[test]
fn reads_standard_input() {
    let html = std::fs::read(fixture("html-latin1-undeclared.html")).unwrap();
    priorart().args(["extract", "-"]).write_stdin(html).assert().success().stdout(format!("{FR}\n"));
}

#[test]
fn format_option_overrides_detection() {
    let output =
        priorart().args(["extract", "--format", "text", &fixture("html-utf8.html")]).output().unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("<!DOCTYPE html>"));
}

#[test]
fn several_files_get_headers() {
    let (a, b) = (fixture("html-utf8.html"), fixture("book.epub"));
    let expected = format!(
        "==> {a} <==\n{FR}\n\n==> {b} <==\nChapter one\n\nThe tide rises into the millpond.\n\n\
         Chapter two\n\nThe wheel turns at low water.\n"
    );
    priorart().args(["extract", &a, &b]).assert().success().stdout(expected);
}

#[test]
fn warc_json_lines_with_a_bad_record() {
    let output = priorart().args(["extract", "--json", &fixture("sample.warc.gz")]).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "a bad record makes the exit code 1");
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let uris: Vec<&str> = lines.iter().map(|l| l["uri"].as_str().unwrap_or("-")).collect();
    assert_eq!(
        uris,
        [
            "http://example.org/mills",
            "http://example.org/article.pdf",
            "http://example.ru/mills.txt",
            "-",
            "file:///articles/jats.xml"
        ]
    );
    assert_eq!(lines[0]["format"], "html");
    assert_eq!(lines[0]["record_id"], "<urn:uuid:00000000-0000-0000-0000-000000000002>");
    assert_eq!(lines[3]["error"], "truncated gzip member");
    assert!(lines[3]["offset"].as_u64().unwrap() > lines[2]["offset"].as_u64().unwrap());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("truncated gzip member"), "{stderr}");
}

#[test]
fn a_forced_format_still_refuses_a_binary_file() {
    // A real executable: this test binary's own bytes.
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("program");
    std::fs::copy(std::env::current_exe().unwrap(), &binary).unwrap();
    let binary = binary.display().to_string();
    for format in ["text", "html", "xml"] {
        let output = priorart().args(["extract", "--format", format, &binary]).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "--format {format}");
        assert!(output.stdout.is_empty(), "--format {format} printed {} bytes", output.stdout.len());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("not text: binary data (NUL byte at offset"), "{stderr}");
    }
    // Every command that reads a document refuses it the same way.
    let output = priorart().args(["fingerprint", "--format", "html", &binary]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("binary data"));
}

#[test]
fn hostile_files_fail_cleanly() {
    let output =
        priorart().args(["extract", &fixture("bomb.epub"), &fixture("html-utf8.html")]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("decompression bomb"));
    assert!(String::from_utf8_lossy(&output.stdout).contains(FR), "the other file is still read");
}

#[test]
fn usage_errors_exit_2() {
    priorart().args(["extract", "--format", "docx", "x"]).assert().code(2);
    priorart().args(["extract", "-", "-"]).assert().code(2);
    priorart().args(["extract", "--timeout", "0", "x"]).assert().code(2);
}

#[test]
fn a_pdf_timeout_stops_the_parser() {
    // PDFs given on the command line are parsed in a child process that is
    // killed at the deadline (a thread could not be stopped).
    let pdf = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/data/article.pdf");
    let started = std::time::Instant::now();
    let output = priorart().args(["extract", "--timeout", "0.001"]).arg(&pdf).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("time budget"), "{output:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    // And with time, the child's text is the in-process extraction's.
    let output = priorart().arg("extract").arg(&pdf).output().unwrap();
    let bytes = std::fs::read(&pdf).unwrap();
    let in_process = priorart_extract::extract(
        &bytes,
        priorart_extract::Format::Pdf,
        &priorart_extract::Limits::default(),
    )
    .unwrap();
    assert_eq!(String::from_utf8(output.stdout).unwrap().trim_end(), in_process.documents[0].text.trim_end());
}
