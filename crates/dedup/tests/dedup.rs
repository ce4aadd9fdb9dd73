//! The engine against the in-memory answer: re-reading in place order with
//! any working set finds exactly the pairs that holding every shingle set
//! finds; MinHash candidates find the near copies that comparing every
//! pair finds, and a run of thousands of equal documents stays bounded;
//! sketches estimate within their stated error; a changed input and a stop
//! request end the run without an answer.

use priorart_dedup::{
    Candidates, Catalog, Control, DedupError, Place, Places, Quiet, Reread, RereadError, Settings, Sketches,
    WINDOW, deduplicate, deduplicate_sketches, output, standard_error,
};
use priorart_fingerprint::{Shingling, WordShingles, simhash_doc};
use priorart_index::{Layout, VerifiedPair, all_pairs};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Texts of random words from a small vocabulary, a third of them near
/// copies (a few words replaced) of an earlier one, some exact copies.
fn corpus(count: usize, seed: u64) -> Vec<String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let vocabulary: Vec<String> = (0..400)
        .map(|_| (0..rng.usize(2..9)).map(|_| rng.alphabetic().to_ascii_lowercase()).collect())
        .collect();
    let mut texts: Vec<String> = Vec::with_capacity(count);
    for i in 0..count {
        let text = if i > 0 && rng.u32(..3) == 0 {
            let mut words: Vec<String> = texts[rng.usize(..i)].split(' ').map(str::to_owned).collect();
            for _ in 0..rng.usize(0..4) {
                let at = rng.usize(..words.len());
                words[at] = vocabulary[rng.usize(..vocabulary.len())].clone();
            }
            words.join(" ")
        } else {
            let length = rng.usize(3..300);
            (0..length)
                .map(|_| vocabulary[rng.usize(..vocabulary.len())].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        texts.push(text);
    }
    texts
}

/// Texts served from memory, at places in three inputs in another order
/// than the documents'; every call's places must come in place order.
struct MemoryTexts {
    texts: HashMap<(u32, u64), String>,
    reads: Mutex<usize>,
}

impl Reread for MemoryTexts {
    fn texts(&self, places: &[Place]) -> Result<Vec<String>, RereadError> {
        assert!(places.windows(2).all(|pair| pair[0].order() < pair[1].order()), "reads go forward");
        *self.reads.lock().unwrap() += places.len();
        places
            .iter()
            .map(|place| {
                self.texts.get(&(place.input, place.offset)).cloned().ok_or_else(|| "no such place".into())
            })
            .collect()
    }
}

fn place_of(number: usize) -> Place {
    Place { input: (number % 3) as u32, offset: ((number * 7919) % 100_003) as u64, extent: 0 }
}

/// Settings with candidates by simhash-doc distance `k`.
fn by_simhash(k: u32, min: f64) -> Settings {
    Settings::new(k, min, Shingling::default()).unwrap().with_candidates(Candidates::Simhash).unwrap()
}

/// Settings with candidates by MinHash bands.
fn by_minhash(min: f64) -> Settings {
    Settings::new(6, min, Shingling::default()).unwrap().with_candidates(Candidates::Minhash).unwrap()
}

/// The catalog pass 1 leaves for `settings` (band keys when MinHash).
fn catalog_for(texts: &[String], settings: &Settings) -> (Catalog<Places>, MemoryTexts) {
    let lsh = settings.lsh();
    let mut catalog: Catalog<Places> = match lsh {
        Some(lsh) => Catalog::with_band_keys(lsh, None).unwrap(),
        None => Catalog::new(),
    };
    let mut stored = HashMap::new();
    let mut keys = Vec::new();
    for (number, text) in texts.iter().enumerate() {
        let place = place_of(number);
        keys.clear();
        if let Some(lsh) = lsh {
            lsh.band_keys(&WordShingles::of(text, settings.shingling), &mut keys);
        }
        catalog.push(&format!("doc-{number}"), simhash_doc(text).0, place, text.len(), &keys).unwrap();
        stored.insert((place.input, place.offset), text.clone());
    }
    (catalog, MemoryTexts { texts: stored, reads: Mutex::new(0) })
}

fn catalog_of(texts: &[String]) -> (Catalog<Places>, MemoryTexts) {
    catalog_for(texts, &by_simhash(6, 0.8))
}

/// Every pair of `texts` whose Jaccard similarity is at least `min`,
/// comparing all of them.
fn brute_force(texts: &[String], min: f64) -> Vec<(u32, u32, f64)> {
    let shingles: Vec<WordShingles> =
        texts.iter().map(|text| WordShingles::of(text, Shingling::default())).collect();
    let mut pairs = Vec::new();
    for (a, x) in (0u32..).zip(&shingles) {
        for (b, y) in (a + 1..).zip(&shingles[a as usize + 1..]) {
            let jaccard = x.jaccard(y);
            if jaccard >= min {
                pairs.push((a, b, jaccard));
            }
        }
    }
    pairs
}

/// What `dedup` answered when it held every shingle set.
fn in_memory(texts: &[String], k: u32, min: f64) -> Vec<VerifiedPair> {
    let shingles: Vec<WordShingles> =
        texts.iter().map(|text| WordShingles::of(text, Shingling::default())).collect();
    let values: Vec<u64> = texts.iter().map(|text| simhash_doc(text).0).collect();
    all_pairs(&values, &Layout::for_distance(k).unwrap(), k)
        .unwrap()
        .into_iter()
        .filter_map(|pair| {
            let jaccard = shingles[pair.a as usize].jaccard(&shingles[pair.b as usize]);
            (jaccard >= min).then_some(VerifiedPair {
                a: pair.a,
                b: pair.b,
                distance: pair.distance,
                jaccard,
            })
        })
        .collect()
}

fn control(stop: &AtomicBool) -> Control<'_> {
    Control { progress: &Quiet, stop }
}

#[test]
fn rereading_in_place_order_finds_the_in_memory_pairs_with_any_working_set() {
    let texts = corpus(1_500, 1);
    let expected = in_memory(&texts, 6, 0.8);
    assert!(expected.len() > 100, "{} pairs", expected.len());
    let (mut catalog, reader) = catalog_of(&texts);
    let stop = AtomicBool::new(false);
    for working_set in [1, 3_000, 40_000, 1 << 30] {
        let settings = by_simhash(6, 0.8).with_working_set(working_set);
        let outcome = deduplicate(&mut catalog, &settings, &reader, control(&stop)).unwrap();
        assert_eq!(outcome.pairs, expected, "working set {working_set}");
        assert!(!outcome.estimated);
        let clusters = priorart_index::clusters(texts.len(), expected.iter().map(|pair| (pair.a, pair.b)));
        assert_eq!(outcome.clusters, clusters);
    }
    // The whole working set reads each candidate document once.
    let candidates: std::collections::HashSet<u32> =
        all_pairs(catalog.simhashes(), &Layout::for_distance(6).unwrap(), 6)
            .unwrap()
            .iter()
            .flat_map(|pair| [pair.a, pair.b])
            .collect();
    *reader.reads.lock().unwrap() = 0;
    let settings = by_simhash(6, 0.8).with_working_set(1 << 30);
    deduplicate(&mut catalog, &settings, &reader, control(&stop)).unwrap();
    assert_eq!(*reader.reads.lock().unwrap(), candidates.len());
}

#[test]
fn minhash_candidates_find_the_near_copies_that_comparing_every_pair_finds() {
    let texts = corpus(1_200, 5);
    let truth = brute_force(&texts, 0.8);
    assert!(truth.len() > 100, "{} pairs", truth.len());
    let settings = by_minhash(0.8);
    let (mut catalog, reader) = catalog_for(&texts, &settings);
    let stop = AtomicBool::new(false);
    let mut answers = Vec::new();
    for working_set in [1, 5_000, 1 << 30] {
        let outcome = deduplicate(
            &mut catalog,
            &settings.clone().with_working_set(working_set),
            &reader,
            control(&stop),
        )
        .unwrap();
        answers.push(outcome);
    }
    assert!(answers.windows(2).all(|two| two[0] == two[1]), "the same answer with any working set");
    let found: Vec<(u32, u32, f64)> =
        answers[0].pairs.iter().map(|pair| (pair.a, pair.b, pair.jaccard)).collect();
    // Verified: every pair found is a true pair (precision 1).
    assert!(found.iter().all(|pair| truth.contains(pair)), "only pairs at or above the threshold");
    // Above 0.9 a pair is missed with probability about 10⁻⁷: every one found.
    for pair in truth.iter().filter(|pair| pair.2 >= 0.9) {
        assert!(found.contains(pair), "{pair:?} missed");
    }
    // At 0.8 to 0.9, at most one in a thousand is missed.
    assert!(found.len() * 1000 >= truth.len() * 999, "{} of {} pairs", found.len(), truth.len());
    // And the distances are the simhash-doc distances of the pair.
    let values: Vec<u64> = texts.iter().map(|text| simhash_doc(text).0).collect();
    for pair in &answers[0].pairs {
        assert_eq!(pair.distance, (values[pair.a as usize] ^ values[pair.b as usize]).count_ones());
    }
}

#[test]
fn thousands_of_equal_documents_stay_one_bounded_cluster() {
    // 3,000 copies of one text share every band key: pairing them all
    // would be 4.5 million candidates; windows bound them per document.
    let mut texts = vec!["the same boilerplate page of a site, again and again and again".to_owned(); 3_000];
    texts.extend(corpus(200, 6));
    let settings = by_minhash(0.8);
    let (mut catalog, reader) = catalog_for(&texts, &settings);
    let stop = AtomicBool::new(false);
    let outcome = deduplicate(&mut catalog, &settings, &reader, control(&stop)).unwrap();
    let bands = settings.lsh().unwrap().bands as usize;
    assert!(outcome.candidates <= texts.len() * WINDOW * bands, "{} candidates", outcome.candidates);
    assert!(outcome.candidates < 3_000 * WINDOW + 20_000, "{} candidates", outcome.candidates);
    let largest = outcome.clusters.iter().map(Vec::len).max().unwrap();
    assert!(largest >= 3_000, "the copies are one cluster ({largest})");
    assert_eq!(outcome.clusters[0][..3_000], (0..3_000).collect::<Vec<u32>>()[..]);
}

#[test]
fn the_output_lines_are_the_dedup_formats() {
    let texts = vec!["one two three four five six".to_owned(), "one two three four five six".to_owned()];
    let (mut catalog, reader) = catalog_of(&texts);
    let stop = AtomicBool::new(false);
    let outcome = deduplicate(&mut catalog, &by_simhash(3, 0.8), &reader, control(&stop)).unwrap();
    let simhash = priorart_fingerprint::SimhashDoc(catalog.simhashes()[0]).to_string();
    assert_eq!(
        String::from_utf8(output::pair_lines(&catalog, &outcome, None)).unwrap(),
        "{\"a\":\"doc-0\",\"b\":\"doc-1\",\"hamming\":0,\"jaccard\":1.0}\n"
    );
    assert_eq!(
        String::from_utf8(output::cluster_lines(&catalog, &outcome)).unwrap(),
        format!(
            "{{\"representative\":\"doc-0\",\"size\":2,\"members\":[\"doc-0\",\"doc-1\"],\"simhash-doc\":\"{simhash}\"}}\n"
        )
    );
}

#[test]
fn sketches_estimate_within_their_stated_error() {
    // Long texts (sketches hold 256 of their shingles) and short ones
    // (whole sets: exact).
    let mut texts = corpus(600, 2);
    let long: Vec<String> = texts.iter().take(200).map(|text| format!("{text} {text} {text}")).collect();
    texts.extend(long);
    let exact = in_memory(&texts, 6, 0.0);
    let mut catalog: Catalog<Sketches> = Catalog::new();
    for (number, text) in texts.iter().enumerate() {
        catalog
            .push(
                &format!("doc-{number}"),
                simhash_doc(text).0,
                &WordShingles::of(text, Shingling::default()),
            )
            .unwrap();
    }
    let stop = AtomicBool::new(false);
    let outcome =
        deduplicate_sketches(&catalog, &Settings::new(6, 0.0, Shingling::default()).unwrap(), control(&stop))
            .unwrap();
    assert!(outcome.estimated);
    assert_eq!(outcome.pairs.len(), exact.len());
    let (mut estimated, mut outside) = (0, 0);
    for (found, truth) in outcome.pairs.iter().zip(&exact) {
        assert_eq!((found.a, found.b), (truth.a, truth.b));
        if catalog.kept().exact(found.a, found.b) {
            assert_eq!(found.jaccard, truth.jaccard);
        } else {
            estimated += 1;
            let error = standard_error(truth.jaccard, false).max(1e-9);
            outside += usize::from((found.jaccard - truth.jaccard).abs() > 3.0 * error);
        }
    }
    assert!(estimated > 20, "{estimated} estimated pairs");
    // Three standard errors: about 0.3% of estimates beyond, by chance.
    assert!(outside * 50 <= estimated, "{outside} of {estimated} beyond three standard errors");
    let lines = String::from_utf8(output::pair_lines(&catalog, &outcome, Some(catalog.kept()))).unwrap();
    assert!(lines.lines().all(|line| line.contains("\"jaccard_standard_error\":")), "{lines}");
}

#[test]
fn a_document_that_changed_since_pass_one_ends_the_run() {
    let texts = corpus(300, 3);
    let (mut catalog, mut reader) = catalog_of(&texts);
    let first_pair = in_memory(&texts, 6, 0.8)[0];
    let place = place_of(first_pair.b as usize);
    reader.texts.get_mut(&(place.input, place.offset)).unwrap().push_str(" appended");
    let stop = AtomicBool::new(false);
    let err = deduplicate(&mut catalog, &by_simhash(6, 0.8), &reader, control(&stop)).unwrap_err();
    assert!(
        matches!(&err, DedupError::Changed { id, .. } if *id == format!("doc-{}", first_pair.b)),
        "{err}"
    );
    assert_eq!(err.reason(), "changed");
    reader.texts.clear();
    let err = deduplicate(&mut catalog, &by_simhash(6, 0.8), &reader, control(&stop)).unwrap_err();
    assert_eq!(err.reason(), "reread");
}

/// Sets the stop flag once verification has made progress (shared with
/// the passage search's tests).
pub(crate) struct StopAfterProgress<'a>(pub(crate) &'a AtomicBool);

impl priorart_dedup::Progress for StopAfterProgress<'_> {
    fn phase(&self, _: priorart_dedup::Phase, _: u64) {}
    fn advance(&self, _: u64) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[test]
fn a_stop_request_ends_the_run_without_an_answer() {
    let texts = corpus(800, 4);
    for settings in [by_simhash(6, 0.8), by_minhash(0.8)] {
        let (mut catalog, reader) = catalog_for(&texts, &settings);
        let stop = AtomicBool::new(false);
        let progress = StopAfterProgress(&stop);
        let settings = settings.with_working_set(2_000);
        let err = deduplicate(&mut catalog, &settings, &reader, Control { progress: &progress, stop: &stop })
            .unwrap_err();
        assert!(matches!(err, DedupError::Interrupted), "{err}");
    }
}

#[test]
fn settings_are_checked() {
    assert_eq!(Settings::new(6, 1.5, Shingling::default()).unwrap_err().reason(), "threshold");
    assert_eq!(Settings::new(40, 0.8, Shingling::default()).unwrap_err().reason(), "distance_too_large");
    // MinHash is the default where it has bands for the threshold.
    assert_eq!(Settings::new(6, 0.8, Shingling::default()).unwrap().candidates(), Candidates::Minhash);
    let low = Settings::new(6, 0.1, Shingling::default()).unwrap();
    assert_eq!(low.candidates(), Candidates::Simhash);
    assert_eq!(low.with_candidates(Candidates::Minhash).unwrap_err().reason(), "minhash_threshold");
    // A catalog without band keys cannot give MinHash candidates.
    let (mut catalog, reader) = catalog_of(&corpus(10, 7));
    let stop = AtomicBool::new(false);
    let err = deduplicate(&mut catalog, &by_minhash(0.8), &reader, control(&stop)).unwrap_err();
    assert_eq!(err.reason(), "band_keys");
}

#[test]
#[should_panic(expected = "a catalog that keeps simhash-doc values")]
fn deduplicating_a_catalog_without_simhashes_is_a_callers_mistake() {
    let mut catalog: Catalog<Sketches> = Catalog::without_simhashes();
    for text in ["one two three four five six", "one two three four five seven"] {
        catalog.push(text, simhash_doc(text).0, &WordShingles::of(text, Shingling::default())).unwrap();
    }
    let stop = AtomicBool::new(false);
    let _ =
        deduplicate_sketches(&catalog, &Settings::new(6, 0.0, Shingling::default()).unwrap(), control(&stop));
}
