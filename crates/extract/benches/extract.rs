//! Extraction throughput per format, in input bytes per second, on one core.
//!
//! Inputs: the test fixtures (tests/data), and for HTML, XML and text larger
//! documents assembled from them (a 50-section article), since per-call setup
//! would dominate the few-hundred-byte fixtures.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use priorart_extract::{Format, Limits, extract};
use std::hint::black_box;
use std::path::PathBuf;

fn data(name: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)).unwrap()
}

const PARAGRAPH: &str = "A tidal mill stores the rising tide in a millpond and releases it through a \
    waterwheel once the sea has fallen below the level of the wheel. The arrangement demands patience: \
    the miller works when the water allows, often at night, and the length of the working day follows \
    the phase of the moon (see https://example.org/tides, doi:10.5555/tides.1).";

fn large_html() -> Vec<u8> {
    let mut html = String::from(
        "<!DOCTYPE html><html><head><meta charset=utf-8><title>Mills</title>\
        <script>var tracking = 1;</script></head><body><nav><a href=/>Home</a></nav><main>",
    );
    for section in 0..50 {
        html.push_str(&format!("<section><h2>Section {section}</h2>"));
        for _ in 0..8 {
            html.push_str(&format!("<p>{PARAGRAPH} <em>Emphasis</em> and <a href='/x'>a link</a>.</p>"));
        }
        html.push_str(
            "<table><tr><th>Site</th><th>Year</th></tr><tr><td>Eling</td><td>1086</td></tr></table>",
        );
        html.push_str("<figure><figcaption>The sluice gate at low water.</figcaption></figure></section>");
    }
    html.push_str("</main><footer>Footer</footer></body></html>");
    html.into_bytes()
}

fn large_jats() -> Vec<u8> {
    let mut xml = String::from(
        "<?xml version=\"1.0\"?><article><front><article-meta><title-group>\
        <article-title>Mills</article-title></title-group></article-meta></front><body>",
    );
    for section in 0..50 {
        xml.push_str(&format!("<sec><title>Section {section}</title>"));
        for _ in 0..8 {
            xml.push_str(&format!("<p>{PARAGRAPH} <italic>Emphasis</italic><xref rid=\"r1\">1</xref>.</p>"));
        }
        xml.push_str("<fig><caption><p>The sluice gate.</p></caption></fig></sec>");
    }
    xml.push_str("</body></article>");
    xml.into_bytes()
}

fn large_text(encoding: &'static encoding_rs::Encoding) -> Vec<u8> {
    let text = format!("{PARAGRAPH} Приливные мельницы молотили зерно.\n\n").repeat(400);
    encoding.encode(&text).0.into_owned()
}

fn bench(c: &mut Criterion) {
    let inputs: Vec<(&str, Format, Vec<u8>)> = vec![
        ("html (article, 50 sections)", Format::Html, large_html()),
        ("xml (JATS, 50 sections)", Format::Xml, large_jats()),
        ("xml (tei.xml fixture)", Format::Xml, data("tei.xml")),
        ("text (UTF-8)", Format::Text, large_text(encoding_rs::UTF_8)),
        ("text (windows-1251, detected)", Format::Text, large_text(encoding_rs::WINDOWS_1251)),
        ("pdf (article.pdf, 1 page, 2 columns)", Format::Pdf, data("article.pdf")),
        ("epub (book.epub, 2 chapters)", Format::Epub, data("book.epub")),
        ("warc.gz (sample.warc.gz, 9 records)", Format::Warc, data("sample.warc.gz")),
    ];
    let limits = Limits::default();
    let mut group = c.benchmark_group("extract");
    for (name, format, bytes) in &inputs {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(*name, |b| b.iter(|| extract(black_box(bytes), *format, &limits)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
