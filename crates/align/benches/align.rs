//! Throughput of `Aligner::align`: a long suspicious text against one source
//! document, in MB of suspicious text per second. The suspicious text is
//! `PRIORART_ALIGN_BENCH_TEXT` (a UTF-8 file, e.g. the Debian corpus's
//! `docs.txt`, cut to 32 MB) or else 16 MB of generated prose; the source is
//! 40 KB of it, ten passages of which are planted in the suspicious text.
//! Also the throughput of reading back a prepared text (`MarkedText::read_from`,
//! what a passage search's pass 2 does for each document streamed past a
//! round): the source, marked and written as the search writes it. And the
//! throughput of winnowing it and of preparing it for the aligner, each
//! text's work in a passage search's two passes. And what a passage
//! search's pass 2 does for each candidate pair: the marks two prepared
//! texts share (`Aligner::shared_marks`), and their alignment on them
//! (`Aligner::align_marked`), on pairs of short texts (4 KB, as the
//! generated corpus's documents) sharing a passage of 1 KB.
//!
//!     PRIORART_ALIGN_BENCH_TEXT=$PRIORART_CORPUS/docs.txt cargo bench -p priorart-align --bench align

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use priorart_align::{Aligner, MarkedText, Params, Winnowing};
use std::hint::black_box;

const GENERATED_BYTES: usize = 16 << 20;
const FILE_BYTES: usize = 32 << 20;
const SOURCE_BYTES: usize = 40_000;

/// Generated prose: Zipf-like words over a 20,000-word vocabulary.
fn generated(bytes: usize) -> String {
    let mut rng = fastrand::Rng::with_seed(7);
    let vocabulary: Vec<String> = (0..20_000u32).map(|rank| format!("w{rank:x}o")).collect();
    let mut text = String::with_capacity(bytes + 16);
    while text.len() < bytes {
        let rank =
            ((rng.f64() * (vocabulary.len() as f64).ln()).exp() as usize - 1).min(vocabulary.len() - 1);
        text.push_str(&vocabulary[rank]);
        text.push_str(if rng.u8(..) < 16 { ".\n" } else { " " });
    }
    text
}

/// The longest prefix of `text` up to `bytes` that ends on a character.
fn prefix(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn texts() -> (String, String) {
    let base = match std::env::var_os("PRIORART_ALIGN_BENCH_TEXT") {
        Some(path) => {
            let bytes = std::fs::read(&path).expect("the bench text can be read");
            let text = String::from_utf8_lossy(&bytes).into_owned();
            prefix(&text, FILE_BYTES).to_owned()
        }
        None => generated(GENERATED_BYTES),
    };
    // The source comes from the middle; the suspicious text is the rest
    // with ten 2 KB pieces of the source planted at even intervals.
    let middle = base.len() / 2;
    let source = prefix(&base[base.floor_char_boundary(middle)..], SOURCE_BYTES).to_owned();
    let mut suspicious = String::with_capacity(base.len());
    let step = middle / 10;
    let mut at = 0;
    for piece in 0..10 {
        let next = base.floor_char_boundary((piece + 1) * step);
        suspicious.push_str(&base[at..next]);
        let start = source.floor_char_boundary(piece * source.len() / 10);
        suspicious.push_str(prefix(&source[start..], 2000));
        at = next;
    }
    (suspicious, source)
}

fn bench(c: &mut Criterion) {
    let (suspicious, source) = texts();
    let aligner = Aligner::new(Params::default()).expect("default parameters are valid");
    let found = aligner.align(&suspicious, &source).expect("aligns");
    eprintln!(
        "{} MB suspicious, {} KB source: {} passages",
        suspicious.len() >> 20,
        source.len() >> 10,
        found.len()
    );
    let mut group = c.benchmark_group("align");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(suspicious.len() as u64));
    group.bench_function("suspicious_vs_one_source", |b| {
        b.iter(|| aligner.align(black_box(&suspicious), black_box(&source)).expect("aligns"))
    });
    group.finish();
    read_back(c, &source);
    winnow(c, &source);
    marked_pairs(c, &suspicious);
}

/// Pairs of texts in a collection's search: each 4 KB of `base`, the
/// second with 1 KB of the first pasted into its middle.
fn marked_pairs(c: &mut Criterion, base: &str) {
    const PAIRS: usize = 256;
    let aligner =
        Aligner::new(Params { english_stopwords: true, ..Params::default() }).expect("valid parameters");
    let winnowing = Winnowing::default();
    let piece = |at: usize, bytes: usize| prefix(&base[base.floor_char_boundary(at)..], bytes).to_owned();
    let step = base.len() / (2 * PAIRS + 1);
    let pairs: Vec<(MarkedText, MarkedText)> = (0..PAIRS)
        .map(|pair| {
            let (a_at, b_at) = (2 * pair * step, (2 * pair + 1) * step);
            let a = piece(a_at, 4000);
            let b = [piece(b_at, 1500), piece(a_at + 1500, 1000), piece(b_at + 1500, 1500)].concat();
            let mark = |text: String| aligner.mark(text, &winnowing, |_| true).expect("marks");
            (mark(a), mark(b))
        })
        .collect();
    let mut group = c.benchmark_group("marked");
    group.throughput(Throughput::Elements(PAIRS as u64));
    group.bench_function("shared_marks", |b| {
        b.iter(|| pairs.iter().map(|(x, y)| aligner.shared_marks(x, y).words().len()).sum::<usize>())
    });
    group.bench_function("align_marked", |b| {
        b.iter(|| {
            let aligned = pairs.iter().map(|(x, y)| aligner.align_marked(x, y, aligner.shared_marks(x, y)));
            aligned.map(|found| found.expect("aligns").len()).sum::<usize>()
        })
    });
    group.finish();
}

/// What a passage search does to each text: winnowed in pass 1
/// (`Winnowing::marks`), cut, winnowed and indexed again for the aligner
/// in pass 2 (`Aligner::mark`).
fn winnow(c: &mut Criterion, text: &str) {
    let aligner =
        Aligner::new(Params { english_stopwords: true, ..Params::default() }).expect("valid parameters");
    let winnowing = Winnowing::default();
    let mut group = c.benchmark_group("winnow");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("marks", |b| b.iter(|| winnowing.marks(black_box(text)).expect("marks")));
    group.bench_function("prepare", |b| {
        b.iter(|| aligner.mark(black_box(text).to_owned(), &winnowing, |_| true).expect("marks"))
    });
    group.finish();
}

fn read_back(c: &mut Criterion, text: &str) {
    let aligner =
        Aligner::new(Params { english_stopwords: true, ..Params::default() }).expect("valid parameters");
    let winnowing = Winnowing::default();
    let marked = aligner.mark(text.to_owned(), &winnowing, |_| true).expect("marks");
    let mut bytes = Vec::new();
    marked.write_to(&mut bytes);
    let mut group = c.benchmark_group("stored");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group
        .bench_function("read_back", |b| b.iter(|| MarkedText::read_from(black_box(&bytes)).expect("reads")));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
