//! Every format on real fixtures (tests/data, written by make_fixtures.py), and
//! every limit on hostile ones.

use priorart_extract::{
    Document, ExtractError, Extraction, Format, Limits, archive_records, detect, extract,
};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

fn data(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn run(name: &str) -> Result<Extraction, ExtractError> {
    let bytes = data(name);
    extract(&bytes, detect(&bytes), &Limits::default())
}

fn text(name: &str) -> String {
    let mut out = run(name).unwrap_or_else(|err| panic!("{name}: {err}"));
    assert_eq!(out.documents.len(), 1, "{name}");
    out.documents.remove(0).text
}

const FR: &str = "Les moulins à marée ont moulu le grain des estuaires européens pendant huit siècles.";
const RU: &str = "Приливные мельницы молотили зерно в эстуариях Европы восемь веков.";

#[test]
fn formats_are_detected_from_content() {
    for (name, format) in [
        ("html-utf8.html", Format::Html),
        ("html-utf16.html", Format::Html),
        ("jats.xml", Format::Xml),
        ("tei.xml", Format::Xml),
        ("article.pdf", Format::Pdf),
        ("book.epub", Format::Epub),
        ("text-koi8r.txt", Format::Text),
        ("text-utf16be.txt", Format::Text),
        ("sample.warc.gz", Format::Warc),
        ("sample.warc", Format::Warc),
        ("sample.arc.gz", Format::Arc),
    ] {
        assert_eq!(detect(&data(name)), format, "{name}");
    }
}

#[test]
fn a_forced_markup_format_refuses_binary_data_as_text_does() {
    // The first bytes of an ELF executable, then more binary.
    let mut binary = b"\x7fELF\x02\x01\x01\x00\x00\x00".to_vec();
    binary.extend((0u8..=255).cycle().take(4096));
    for format in [Format::Text, Format::Html, Format::Xml] {
        assert_eq!(
            extract(&binary, format, &Limits::default()).unwrap_err(),
            ExtractError::NotText { offset: 7 },
            "{format}"
        );
        let forced = priorart_extract::document_text(&binary, Some(format), &Limits::default());
        assert_eq!(forced.unwrap_err(), ExtractError::NotText { offset: 7 }, "{format}");
    }
    // UTF-16 markup without a byte order mark has zero bytes too, and is text.
    let utf16: Vec<u8> =
        "<html><body><p>Tide mills</p></body></html>".encode_utf16().flat_map(u16::to_le_bytes).collect();
    assert_eq!(extract(&utf16, Format::Html, &Limits::default()).unwrap().documents[0].text, "Tide mills");
}

#[test]
fn html_in_any_charset() {
    for name in ["html-utf8.html", "html-latin1-undeclared.html", "html-utf16.html", "html-mislabelled.html"]
    {
        assert_eq!(text(name), FR, "{name}");
    }
    assert_eq!(text("html-windows1251.html"), RU);
    assert_eq!(text("html-shiftjis.html"), "潮汐水車は八世紀にわたりヨーロッパの河口で穀物を挽いた。");
}

#[test]
fn plain_text_in_legacy_and_utf16() {
    assert_eq!(text("text-koi8r.txt"), RU);
    assert_eq!(text("text-utf16be.txt"), FR);
}

fn assert_contains_all(text: &str, wanted: &[&str], unwanted: &[&str]) {
    for w in wanted {
        assert!(text.contains(w), "missing {w:?} in:\n{text}");
    }
    for u in unwanted {
        assert!(!text.contains(u), "unexpected {u:?} in:\n{text}");
    }
}

#[test]
fn jats_article_keeps_content_drops_metadata_and_identifiers() {
    let text = text("jats.xml");
    assert!(
        text.starts_with("Tidal Mills and the Memory of Estuaries\n\nTidal mills ground grain"),
        "{text}"
    );
    assert_contains_all(
        &text,
        &[
            "millpond—and releases it through a waterwheel 1 .",
            "The pond remembers what the village forgets.",
            "The sluice gate at Woodbridge at low water.",
            "Site Country\nEling England\nRia Formosa Portugal",
            "See for photographs & maps.",
            "We thank the millers.",
            "Minchinton W . Early tide mills: some problems. Technology and Culture . 1979.",
        ],
        &["Journal of Coastal Memory", "example.org", "10.2307", "10.5555", "mgh", "millponds", "2024"],
    );
}

#[test]
fn tei_article_keeps_content_drops_header_and_apparatus() {
    let text = text("tei.xml");
    assert!(text.starts_with("Les moulins à marée\n\nLes moulins à marée ont moulu"), "{text}");
    assert_contains_all(
        &text,
        &[
            "Le meunier travaille quand l'eau le permet, souvent la nuit.",
            "L'Orient comptait trois moulins.",
            "L'étang se souvient de ce que le village oublie.",
            "La vanne du moulin à marée.",
            "Early tide mills",
            "Minchinton",
        ],
        &["Presses du littoral", "Lorient", "page 3", "10.2307", "doi.org", "A. Exemple"],
    );
}

#[test]
fn pdf_text_layer_in_reading_order_with_hyphens_joined() {
    let text = text("article.pdf");
    assert_contains_all(
        &text,
        &[
            "This short article surveys how millers",
            // The two columns are read one after the other.
            "A tidal mill stores the rising tide in a\nmillpond",
            "Where mills were abandoned",
            "Woodbridge England 1170",
            "Charlier",
        ],
        &["ar-\nticle"],
    );
}

/// Words of `text` in order: letters only, lower-cased.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphabetic()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Length of the longest common subsequence of two word lists.
fn lcs(a: &[String], b: &[String]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut diagonal = 0;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if x == y { diagonal + 1 } else { row[j + 1].max(row[j]) };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// `pdftotext` (poppler) is the reference for words and their order.
#[test]
fn pdf_agrees_with_pdftotext() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/article.pdf");
    let output = match Command::new("pdftotext").arg(&path).arg("-").output() {
        Ok(output) if output.status.success() => output,
        _ => {
            priorart_testkit::peers::peer_available(
                "pdftotext (poppler-utils)",
                false,
                "run .ci/setup.d/extract.sh",
            );
            return;
        }
    };
    // poppler leaves line-end hyphens in place; join them as we do.
    let oracle = String::from_utf8_lossy(&output.stdout).replace("-\n", "");
    let theirs = words(&oracle);
    let ours = words(&text("article.pdf"));
    let common = lcs(&ours, &theirs);
    let agreement = common as f64 / theirs.len().max(ours.len()) as f64;
    assert!(agreement >= 0.97, "only {common} of {}/{} words in the same order", ours.len(), theirs.len());
}

#[test]
fn epub_spine_in_order_without_navigation() {
    assert_eq!(
        text("book.epub"),
        "Chapter one\n\nThe tide rises into the millpond.\n\nChapter two\n\nThe wheel turns at low water."
    );
}

fn doc<'a>(out: &'a Extraction, uri: &str) -> &'a Document {
    out.documents
        .iter()
        .find(|d| d.uri.as_deref() == Some(uri))
        .unwrap_or_else(|| panic!("no {uri} in {out:?}"))
}

#[test]
fn warc_gz_one_document_per_response_and_a_truncated_member_reported() {
    let out = run("sample.warc.gz").unwrap();
    let uris: Vec<_> = out.documents.iter().map(|d| d.uri.as_deref().unwrap_or("")).collect();
    assert_eq!(
        uris,
        [
            "http://example.org/mills",
            "http://example.org/article.pdf",
            "http://example.ru/mills.txt",
            "file:///articles/jats.xml"
        ]
    );
    let html = doc(&out, "http://example.org/mills");
    assert_eq!(html.format, Format::Html);
    assert_eq!(html.record_id.as_deref(), Some("<urn:uuid:00000000-0000-0000-0000-000000000002>"));
    assert_eq!(html.text, format!("Mills\n\n{FR}\n\nSource:"));
    assert_eq!(doc(&out, "http://example.ru/mills.txt").text, RU);
    assert_eq!(doc(&out, "http://example.org/article.pdf").format, Format::Pdf);
    assert!(
        doc(&out, "http://example.org/article.pdf").text.contains("Tidal Mills and the Memory of Estuaries")
    );
    assert_eq!(doc(&out, "file:///articles/jats.xml").format, Format::Xml);
    assert_eq!(out.record_errors.len(), 1, "{:?}", out.record_errors);
    assert_eq!(out.record_errors[0].error, ExtractError::TruncatedGzip);
    assert!(out.record_errors[0].offset > html.offset.unwrap());
}

#[test]
fn plain_warc_with_a_broken_record_goes_on() {
    let out = run("sample.warc").unwrap();
    assert_eq!(out.documents.len(), 3, "{:?}", out.documents);
    assert_eq!(out.record_errors.len(), 1);
    assert_eq!(out.record_errors[0].uri.as_deref(), Some("http://example.org/article.pdf"));
    assert!(matches!(out.record_errors[0].error, ExtractError::Malformed { format: "WARC", .. }));
}

#[test]
fn arc_records() {
    let out = run("sample.arc.gz").unwrap();
    assert!(out.record_errors.is_empty(), "{:?}", out.record_errors);
    assert_eq!(doc(&out, "http://example.org/mills").text, FR);
    assert_eq!(doc(&out, "http://example.org/notes.txt").text, "The wheel turns at low water.");
}

#[test]
fn zip_bomb_is_refused() {
    let err = run("bomb.epub").unwrap_err();
    assert!(matches!(err, ExtractError::DecompressionBomb { .. }), "{err}");
}

#[test]
fn gzip_bomb_in_a_warc_is_one_bad_record() {
    let out = run("bomb.warc.gz").unwrap();
    assert_eq!(out.documents.len(), 2);
    assert_eq!(out.record_errors.len(), 1);
    assert!(matches!(out.record_errors[0].error, ExtractError::DecompressionBomb { .. }));
}

#[test]
fn cyclic_and_textless_pdfs_are_typed_errors() {
    for name in ["cyclic.pdf", "cyclic-refs.pdf"] {
        let err = run(name).unwrap_err();
        assert!(
            matches!(
                err,
                ExtractError::CyclicPdf(_) | ExtractError::Malformed { .. } | ExtractError::NoTextLayer
            ),
            "{name}: {err}"
        );
    }
    assert_eq!(run("no-text.pdf").unwrap_err(), ExtractError::NoTextLayer);
}

#[test]
fn deep_nesting_is_refused_fast() {
    let html = "<div>".repeat(100_000) + "deep";
    let started = std::time::Instant::now();
    let err = extract(html.as_bytes(), Format::Html, &Limits::default()).unwrap_err();
    assert_eq!(err, ExtractError::TooDeep { limit: 512 });
    assert!(started.elapsed() < Duration::from_secs(20));
    let xml = "<a>".repeat(100_000);
    assert_eq!(
        extract(xml.as_bytes(), Format::Xml, &Limits::default()).unwrap_err(),
        ExtractError::TooDeep { limit: 512 }
    );
}

#[test]
fn limits_and_broken_encodings() {
    let small = Limits { max_input_bytes: 10, ..Limits::default() };
    assert_eq!(
        extract(b"eleven bytes", Format::Text, &small).unwrap_err(),
        ExtractError::TooLarge { size: 12, limit: 10 }
    );
    let no_time = Limits { max_time: Duration::ZERO, ..Limits::default() };
    assert!(matches!(
        extract(b"<p>x</p>", Format::Html, &no_time).unwrap_err(),
        ExtractError::Timeout { .. }
    ));
    // In a web archive the budget is per record: every record is still
    // reached, each slow one fails alone, at its own offset.
    let warc = data("sample.warc");
    let all = extract(&warc, Format::Warc, &Limits::default()).unwrap();
    let timed_out = extract(&warc, Format::Warc, &no_time).unwrap();
    let records = |e: &priorart_extract::Extraction| e.documents.len() + e.record_errors.len();
    assert_eq!(records(&timed_out), records(&all));
    let expected: Vec<u64> = all
        .documents
        .iter()
        .map(|d| d.offset.unwrap())
        .chain(all.record_errors.iter().map(|e| e.offset))
        .collect();
    for error in &timed_out.record_errors {
        assert!(expected.contains(&error.offset), "offset {} is no record's", error.offset);
    }
    assert!(timed_out.record_errors.iter().any(|e| matches!(e.error, ExtractError::Timeout { .. })));
    assert!(matches!(
        extract(&[0xFE, 0xFF, 0xD8, 0x00, 0x00, 0x41], Format::Text, &Limits::default()).unwrap_err(),
        ExtractError::InvalidEncoding { encoding: "UTF-16BE", .. }
    ));
    assert!(matches!(
        extract(b"ELF\x00\x01\x02binary", Format::Text, &Limits::default()).unwrap_err(),
        ExtractError::NotText { offset: 3 }
    ));
    assert!(matches!(
        extract(b"<a><b></a", Format::Xml, &Limits::default()).unwrap_err(),
        ExtractError::Malformed { format: "XML", .. }
    ));
}

#[test]
fn archive_records_hand_out_what_extract_collects_one_at_a_time() {
    for name in ["sample.warc.gz", "sample.warc", "sample.arc.gz", "bomb.warc.gz"] {
        let bytes = data(name);
        let format = detect(&bytes);
        let all = extract(&bytes, format, &Limits::default()).unwrap();
        let mut records = archive_records(bytes.as_slice(), format, &Limits::default()).unwrap();
        let first = records.next().expect("a first record");
        let items: Vec<_> = std::iter::once(first).chain(records).collect();
        let documents: Vec<Document> = items.iter().filter_map(|item| item.clone().ok()).collect();
        let errors: Vec<_> = items.iter().filter_map(|item| item.clone().err()).collect();
        assert_eq!((documents, errors), (all.documents, all.record_errors), "{name}");
        let offsets: Vec<u64> = items
            .iter()
            .map(|item| item.as_ref().map_or_else(|e| e.offset, |d| d.offset.unwrap_or(0)))
            .collect();
        assert!(offsets.is_sorted(), "{name}: in file order");
    }
    let html = data("html-utf8.html");
    assert!(matches!(
        archive_records(html.as_slice(), Format::Html, &Limits::default()),
        Err(ExtractError::Unsupported(_))
    ));
}
