//! Gzip-compressed documents (Debian's `changelog.Debian.gz`, installed man
//! pages) and roff man pages: read as what they hold, under the
//! decompression limits, with a cut-off file named as one.

use flate2::Compression;
use flate2::write::GzEncoder;
use priorart_extract::{ExtractError, Format, Limits, detect, document_text, extract};
use std::io::Write;
use std::process::Command;

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

const CHANGELOG: &str = "tidal (1.2-1) unstable; urgency=medium\n\n  * New upstream release: mills \
    grind grain at every tide.\n\n -- A Maintainer <a@example.org>  Sun, 01 Mar 2026 10:00:00 +0000\n";

/// A man page with what real ones hold: comments, a definition, a
/// conditional block, fonts, tags, escapes, a no-fill example and a table.
const PAGE: &str = r#".\" Copyright: none; a test page.
.de Vb
.ft CW
..
.ie n \{\
.ds Aq '
.\}
.TH TIDAL 1 "March 2026" "tidal 1.2" "User Commands"
.SH NAME
tidal \- grind grain with the tide
.SH SYNOPSIS
.B tidal
[\fIOPTION\fR]... \fIFILE\fR
.SH DESCRIPTION
.B Tidal
mills ground grain in estuaries for eight centuries\(em longer than
most windmills.
.TP
.BR \-w ", " \-\-wheel =\fISIZE\fR
use a wheel of \fISIZE\fR metres
.TP
.B \-q
say nothing
.PP
An example:
.nf
tidal \-w 4 harbour.txt
.fi
.TS
tab(@);
l l.
Tide@Hours
Spring@6
.TE
.SH "SEE ALSO"
.BR windmill (1),
.BR watermill (8)
"#;

#[test]
fn a_gzipped_text_is_its_text() {
    let plain = document_text(CHANGELOG.as_bytes(), None, &Limits::default()).unwrap();
    let compressed = gzip(CHANGELOG.as_bytes());
    assert_eq!(detect(&compressed), Format::Text);
    // With its format detected, and forced as the CLI forces what it detected.
    for format in [None, Some(Format::Text)] {
        let read = document_text(&compressed, format, &Limits::default()).unwrap();
        assert_eq!(read, plain);
    }
    let extracted = extract(&compressed, Format::Text, &Limits::default()).unwrap();
    assert_eq!(
        extracted.documents[0].text,
        priorart_extract::extract(CHANGELOG.as_bytes(), Format::Text, &Limits::default()).unwrap().documents
            [0]
        .text
    );
}

#[test]
fn a_man_page_is_its_text_without_requests_or_escapes() {
    assert_eq!(detect(PAGE.as_bytes()), Format::Man);
    let read = document_text(PAGE.as_bytes(), None, &Limits::default()).unwrap();
    assert_eq!(read.format, Format::Man);
    let expected = "NAME\n\ntidal - grind grain with the tide\n\nSYNOPSIS\n\ntidal [OPTION]... FILE\n\n\
        DESCRIPTION\n\nTidal mills ground grain in estuaries for eight centuries\u{2014} longer than most \
        windmills.\n\n-w, --wheel=SIZE\nuse a wheel of SIZE metres\n\n-q\nsay nothing\n\nAn example:\n\n\
        tidal -w 4 harbour.txt\n\nTide Hours\nSpring 6\n\nSEE ALSO\n\nwindmill(1), watermill(8)";
    assert_eq!(read.text, expected);
    // Gzipped, as every installed man page is: the same text.
    let compressed = gzip(PAGE.as_bytes());
    assert_eq!(detect(&compressed), Format::Man);
    assert_eq!(document_text(&compressed, None, &Limits::default()).unwrap(), read);
    assert_eq!("roff".parse::<Format>().unwrap(), Format::Man);
}

#[test]
fn a_cut_off_gzip_file_is_named_truncated() {
    let compressed = gzip(CHANGELOG.repeat(50).as_bytes());
    let cut = &compressed[..compressed.len() / 2];
    for format in [None, Some(Format::Text)] {
        let err = document_text(cut, format, &Limits::default()).unwrap_err();
        assert_eq!(err, ExtractError::TruncatedGzip);
        assert!(err.to_string().contains("truncated gzip"), "{err}");
    }
}

#[test]
fn a_gzip_bomb_is_refused_with_its_limit() {
    let bomb = gzip(&vec![b'a'; 8 << 20]);
    let err = document_text(&bomb, None, &Limits::default()).unwrap_err();
    assert_eq!(err.reason(), "decompression_bomb", "{err}");
    assert!(err.to_string().contains("200:1"), "{err}");
    let limits = Limits { max_decompressed_bytes: 1000, ..Limits::default() };
    let err = document_text(&gzip(CHANGELOG.repeat(20).as_bytes()), None, &limits).unwrap_err();
    assert!(err.to_string().contains("1000 bytes in total"), "{err}");
    let nested = gzip(&gzip(CHANGELOG.as_bytes()));
    assert_eq!(document_text(&nested, None, &Limits::default()).unwrap_err().reason(), "unsupported");
}

/// groff, which `man` runs, is the reference for a page's words.
#[test]
fn a_man_page_has_the_words_groff_prints() {
    let output = Command::new("groff")
        .args(["-t", "-man", "-Tutf8", "-P", "-cbou"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(PAGE.as_bytes())?;
            child.wait_with_output()
        });
    let output = match output {
        Ok(output) if output.status.success() => output,
        _ => {
            priorart_testkit::peers::peer_available("groff", false, "apt-get install groff-base");
            return;
        }
    };
    let words = |text: &str| {
        let mut words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        words.sort();
        words
    };
    let theirs = words(&String::from_utf8_lossy(&output.stdout));
    let ours = words(&document_text(PAGE.as_bytes(), None, &Limits::default()).unwrap().text);
    // groff's header and footer (title, section, date, version) are the
    // only words it prints that the text leaves out.
    let missing: Vec<&String> = theirs.iter().filter(|w| !ours.contains(w)).collect();
    let extra: Vec<&String> = ours.iter().filter(|w| !theirs.contains(w)).collect();
    assert!(extra.is_empty(), "words groff does not print: {extra:?}");
    assert!(
        missing
            .iter()
            .all(|w| ["tidal", "1", "march", "2026", "user", "commands", "2"].contains(&w.as_str())),
        "words groff prints that the text lacks: {missing:?}"
    );
}
