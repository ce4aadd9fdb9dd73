//! The passage search against what was planted: passages copied from one
//! document into another, verbatim or with words replaced, are found with
//! their places on both sides, whatever the sort memory and working set;
//! unrelated documents are not paired; a passage planted in more documents
//! than the boilerplate threshold is reported once, as boilerplate; a stop
//! request ends the run; every pair checked alone ([`PairChecker`]) gives
//! what the search reports, and pairs sharing only scattered phrases are
//! not aligned.

use crate::dedup::StopAfterProgress;
use priorart_dedup::passages::{
    Found, PairCheck, PairChecker, PassageOutcome, PassageSettings, Postings, boilerplate_line, find_passages,
};
use priorart_dedup::{
    Catalog, Control, DedupError, Document, PassageCollection, Place, Places, Quiet, Reread, RereadError,
};
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

/// Random words from a vocabulary of 5,000.
fn words(rng: &mut fastrand::Rng, vocabulary: &[String], count: usize) -> Vec<String> {
    (0..count).map(|_| vocabulary[rng.usize(..vocabulary.len())].clone()).collect()
}

/// A copied passage: the documents and the byte ranges in each.
#[derive(Debug)]
struct Planted {
    source: usize,
    host: usize,
    in_source: std::ops::Range<usize>,
    in_host: std::ops::Range<usize>,
}

/// The byte range of words `from..to` of `words` joined by spaces.
fn byte_range(words: &[String], from: usize, to: usize) -> std::ops::Range<usize> {
    let start: usize = words[..from].iter().map(|word| word.len() + 1).sum();
    let length: usize = words[from..to].iter().map(|word| word.len() + 1).sum::<usize>() - 1;
    start..start + length
}

/// 60 documents of 400 to 800 random words; 10 passages of 80 to 200 words
/// copied from one document into another (every other one with one word
/// in ten replaced); and a 120-word "license" at the end of the last 40.
fn collection(seed: u64) -> (Vec<String>, Vec<Planted>, String) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let vocabulary: Vec<String> = (0..5000)
        .map(|_| (0..rng.usize(3..10)).map(|_| rng.alphabetic().to_ascii_lowercase()).collect())
        .collect();
    let mut documents: Vec<Vec<String>> = (0..60)
        .map(|_| {
            let n = rng.usize(400..800);
            words(&mut rng, &vocabulary, n)
        })
        .collect();
    let license = words(&mut rng, &vocabulary, 120);
    for document in &mut documents[20..] {
        document.extend(license.iter().cloned());
    }
    let mut copies = Vec::new();
    for copy in 0..10 {
        let (source, host) = (copy * 2, copy * 2 + 1);
        let length = rng.usize(80..=200);
        let from = rng.usize(..300);
        let mut passage: Vec<String> = documents[source][from..from + length].to_vec();
        if copy % 2 == 1 {
            for word in passage.iter_mut().step_by(10) {
                *word = vocabulary[rng.usize(..vocabulary.len())].clone();
            }
        }
        let at = rng.usize(..200);
        let in_source = byte_range(&documents[source], from, from + length);
        documents[host].splice(at..at, passage);
        copies.push(Planted {
            source,
            host,
            in_source,
            in_host: byte_range(&documents[host], at, at + length),
        });
    }
    (documents.iter().map(|words| words.join(" ")).collect(), copies, license.join(" "))
}

struct MemoryTexts(HashMap<u64, String>);

impl Reread for MemoryTexts {
    fn texts(&self, places: &[Place]) -> Result<Vec<String>, RereadError> {
        assert!(places.windows(2).all(|pair| pair[0].order() < pair[1].order()), "reads go forward");
        places
            .iter()
            .map(|place| self.0.get(&place.offset).cloned().ok_or_else(|| "no such place".into()))
            .collect()
    }
}

/// Pass 1 over `texts`: the catalog, the postings and a reader.
fn pass_one(texts: &[String], settings: &PassageSettings) -> (Catalog<Places>, Postings, MemoryTexts) {
    let mut catalog: Catalog<Places> = Catalog::without_simhashes();
    let mut postings = Postings::new(settings);
    let mut stored = HashMap::new();
    for (number, text) in texts.iter().enumerate() {
        // Places in another order than the documents'.
        let place = Place { input: 0, offset: ((number * 7919) % 100_003) as u64, extent: 0 };
        catalog.push(&format!("doc-{number}"), 0, place, text.len(), &[]).unwrap();
        postings.add(number as u32, &settings.winnowing.marks(text).unwrap()).unwrap();
        stored.insert(place.offset, text.clone());
    }
    (catalog, postings, MemoryTexts(stored))
}

fn quiet(stop: &AtomicBool) -> Control<'_> {
    Control { progress: &Quiet, stop }
}

fn overlap(x: &std::ops::Range<usize>, y: &std::ops::Range<usize>) -> usize {
    x.end.min(y.end).saturating_sub(x.start.max(y.start))
}

#[test]
fn planted_passages_are_found_in_both_documents_with_any_memory() {
    let (texts, planted, license) = collection(5);
    let mut answers = Vec::new();
    // The small memory: the candidates' ranks (12 bytes each) sorted in
    // runs of 3 on disk, and pass 2 in many rounds; the lines with the
    // passages' texts, then without.
    for (sort_memory, working_set, passage_text) in [(256 << 20, 256 << 20, true), (12 * 3, 3_000, false)] {
        let settings = PassageSettings {
            sort_memory,
            working_set: Some(working_set),
            passage_text,
            ..PassageSettings::default()
        };
        let (catalog, found, outcome) = search(&texts, &settings);
        let pairs: Vec<(u32, u32)> = found.iter().map(|found| (found.pair.a, found.pair.b)).collect();
        let expected: Vec<(u32, u32)> =
            planted.iter().map(|copy| (copy.source as u32, copy.host as u32)).collect();
        let mut sorted = pairs.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, expected, "exactly the planted pairs, not the license's");
        for copy in &planted {
            let found = found.iter().find(|found| found.pair.a == copy.source as u32).unwrap();
            let [passage] = found.pair.passages[..] else { panic!("one passage: {:?}", found.pair) };
            let (a, b) = (passage.a.bytes(), passage.b.bytes());
            assert!(overlap(&a, &copy.in_source) * 10 >= copy.in_source.len() * 9, "{copy:?} {a:?}");
            assert!(overlap(&b, &copy.in_host) * 10 >= copy.in_host.len() * 9, "{copy:?} {b:?}");
            assert!(
                found
                    .line
                    .starts_with(&format!("{{\"a\":\"doc-{}\",\"b\":\"doc-{}\",", copy.source, copy.host))
            );
            let line: serde_json::Value = serde_json::from_str(&found.line).unwrap();
            let text = line["passages"][0]["b"]["text"].as_str();
            assert_eq!(text, passage_text.then(|| &texts[copy.host][b.clone()]));
        }
        assert_eq!(outcome.pairs, planted.len());
        assert!(outcome.candidates > 3 * 2, "{} candidates: the small memory spills", outcome.candidates);
        let [boilerplate] = &outcome.boilerplate[..] else {
            panic!("one boilerplate: {:?}", outcome.boilerplate)
        };
        assert_eq!(boilerplate.documents, 40);
        assert_eq!(boilerplate.example, 20);
        let example = &texts[20][boilerplate.span.bytes()];
        assert!(license.contains(example) && example.len() * 10 >= license.len() * 9, "{example}");
        let line: serde_json::Value = serde_json::from_str(&boilerplate_line(&catalog, boilerplate)).unwrap();
        assert_eq!((line["documents"].as_u64(), line["example"].as_str()), (Some(40), Some("doc-20")));
        let mut pairs: Vec<_> = found.into_iter().map(|found| found.pair).collect();
        pairs.sort_unstable_by_key(|pair| (pair.a, pair.b));
        answers.push(pairs);
    }
    assert_eq!(answers[0], answers[1]);
}

#[test]
fn below_the_boilerplate_threshold_a_shared_passage_makes_pairs() {
    let (texts, planted, _) = collection(6);
    // 40 documents hold the license: under a threshold of 64 they pair.
    let settings = PassageSettings::new(50, 64).unwrap();
    let (_, found, outcome) = search(&texts, &settings);
    assert!(outcome.boilerplate.is_empty());
    assert_eq!(
        found.len(),
        40 * 39 / 2 + planted.len() - planted.iter().filter(|copy| copy.source >= 20).count()
    );
}

/// Pass 1 of a collection searched in many rounds (a working set of
/// 2,000 bytes), and the settings.
fn in_many_rounds() -> (PassageSettings, Catalog<Places>, Postings, MemoryTexts) {
    let (texts, _, _) = collection(7);
    let settings = PassageSettings { working_set: Some(2_000), ..PassageSettings::default() };
    let (catalog, postings, reader) = pass_one(&texts, &settings);
    (settings, catalog, postings, reader)
}

#[test]
fn a_stop_request_ends_the_search() {
    let (settings, catalog, postings, reader) = in_many_rounds();
    let stop = AtomicBool::new(false);
    let control = Control { progress: &StopAfterProgress(&stop), stop: &stop };
    let err = find_passages(&catalog, postings, &settings, &reader, control, |_| Ok(())).unwrap_err();
    assert!(matches!(err, DedupError::Interrupted), "{err}");
}

#[test]
fn a_failure_to_take_the_results_ends_the_search_with_it() {
    // Many rounds, so that results are handed over while more are checked.
    let (settings, catalog, postings, reader) = in_many_rounds();
    let stop = AtomicBool::new(false);
    let mut calls = 0;
    let err = find_passages(&catalog, postings, &settings, &reader, quiet(&stop), |_| {
        calls += 1;
        match calls {
            2 => Err(DedupError::Output(std::io::Error::other("disk full"))),
            _ => Ok(()),
        }
    })
    .unwrap_err();
    assert!(matches!(&err, DedupError::Output(error) if error.to_string() == "disk full"), "{err}");
    assert_eq!(calls, 2, "nothing is handed over after the failure");
}

#[test]
fn passage_settings_are_checked() {
    assert_eq!(PassageSettings::new(0, 32).unwrap_err().reason(), "passage_settings");
    assert_eq!(PassageSettings::new(50, 1).unwrap_err().reason(), "passage_settings");
    assert_eq!(PassageSettings::default().with_min_marks(0).unwrap_err().reason(), "passage_settings");
}

#[test]
fn each_pair_checked_alone_gives_what_the_search_reports() {
    let (mut texts, planted, _) = collection(8);
    // Documents 40 to 50 share five 6-word phrases (each sure to share a
    // mark), 75 words apart: marks enough to be counted, few close
    // together.
    let mut rng = fastrand::Rng::with_seed(80);
    let phrases: Vec<String> = (0..5)
        .map(|_| (0..6).map(|_| format!("p{}", rng.u32(..1_000_000))).collect::<Vec<_>>().join(" "))
        .collect();
    for (shift, text) in texts[40..=50].iter_mut().enumerate() {
        let mut words: Vec<String> = text.split(' ').map(str::to_owned).collect();
        for (at, phrase) in phrases.iter().enumerate().rev() {
            words.insert(at * 75 + shift % 3, phrase.clone());
        }
        *text = words.join(" ");
    }
    let settings = PassageSettings::default();
    let (_, found, outcome) = search(&texts, &settings);
    assert_eq!(found.len(), planted.len());
    assert!(outcome.sharing >= 11 * 10 / 2 && outcome.sharing > outcome.candidates, "{outcome:?}");
    // The boilerplate hashes as a front end finds them: held by more
    // documents than the threshold.
    let mut holders: HashMap<u64, u32> = HashMap::new();
    for text in &texts {
        let mut hashes: Vec<u64> =
            settings.winnowing.marks(text).unwrap().iter().map(|mark| mark.hash).collect();
        hashes.sort_unstable();
        hashes.dedup();
        hashes.into_iter().for_each(|hash| *holders.entry(hash).or_default() += 1);
    }
    let boilerplate =
        holders.into_iter().filter(|&(_, count)| count > settings.boilerplate).map(|(hash, _)| hash);
    let checker = PairChecker::new(&settings, boilerplate.collect());
    let prepared: Vec<_> = texts.iter().map(|text| checker.prepare(text.clone())).collect();
    for a in 0..texts.len() {
        for b in a + 1..texts.len() {
            let reported = found.iter().find(|found| (found.pair.a, found.pair.b) == (a as u32, b as u32));
            let expected = match reported {
                Some(found) => PairCheck::Passages(found.pair.passages.clone()),
                None => PairCheck::Unrelated,
            };
            assert_eq!(checker.check(&prepared[a], &prepared[b]), expected, "pair {a} {b}");
        }
    }
}
#[test]
fn a_search_winnowing_stopwords_too_aligns_with_them_and_finds_the_planted_pairs() {
    let (texts, planted, _) = collection(9);
    let winnowing = priorart_align::Winnowing::new(3, 4, false).unwrap();
    let settings = PassageSettings { winnowing, ..PassageSettings::default() };
    let (_, found, outcome) = search(&texts, &settings);
    assert_eq!(outcome.unaligned, 0, "{outcome:?}");
    let mut pairs: Vec<(u32, u32)> = found.iter().map(|found| (found.pair.a, found.pair.b)).collect();
    pairs.sort_unstable();
    let expected: Vec<(u32, u32)> =
        planted.iter().map(|copy| (copy.source as u32, copy.host as u32)).collect();
    assert_eq!(pairs, expected);
}

/// Every line of a search of `texts` (ids `doc-N`) in memory.
/// Every pair the search finds in `texts`, and what it says of them.
fn search(texts: &[String], settings: &PassageSettings) -> (Catalog<Places>, Vec<Found>, PassageOutcome) {
    let (catalog, postings, reader) = pass_one(texts, settings);
    let stop = AtomicBool::new(false);
    let mut found: Vec<Found> = Vec::new();
    let outcome = find_passages(&catalog, postings, settings, &reader, quiet(&stop), |round| {
        found.extend(round);
        Ok(())
    })
    .unwrap();
    (catalog, found, outcome)
}

fn lines_of(texts: &[String], settings: &PassageSettings) -> (Vec<String>, Vec<String>) {
    let (catalog, found, outcome) = search(texts, settings);
    let lines = found.into_iter().map(|found| found.line).collect();
    (lines, outcome.boilerplate.iter().map(|found| boilerplate_line(&catalog, found)).collect())
}

#[test]
fn the_default_working_set_is_what_the_rest_leaves_and_finds_the_same_passages() {
    let (texts, _, _) = collection(9);
    let small = PassageSettings::default();
    let (_, found, outcome) = search(&texts, &small);
    assert_eq!(outcome.working_set, PassageSettings::DEFAULT_WORKING_SET);
    // Sort buffers as large as the target leave the least working set
    // (buffers grow as records come: none of this is allocated).
    let crowded =
        PassageSettings { sort_memory: PassageSettings::MEMORY_TARGET, ..PassageSettings::default() };
    let (_, crowded_found, crowded_outcome) = search(&texts, &crowded);
    assert_eq!(crowded_outcome.working_set, PassageSettings::LEAST_WORKING_SET);
    let lines = |found: Vec<Found>| found.into_iter().map(|found| found.line).collect::<Vec<_>>();
    assert!(!found.is_empty());
    assert_eq!(lines(crowded_found), lines(found));
    // One set is kept, whatever the rest holds.
    let set = PassageSettings { working_set: Some(5_000), ..crowded };
    assert_eq!(search(&texts, &set).2.working_set, 5_000);
}

#[test]
fn a_passage_collection_finds_what_the_search_of_files_finds() {
    let (texts, _, _) = collection(8);
    let settings = PassageSettings::default();
    let expected = lines_of(&texts, &settings);
    let mut collection = PassageCollection::new(settings).unwrap();
    let ids: Vec<String> = (0..texts.len()).map(|number| format!("doc-{number}")).collect();
    let documents: Vec<Document<'_>> =
        ids.iter().zip(&texts).map(|(id, text)| Document { id, text }).collect();
    // Blank texts between the batches: skipped, counted, numbering unchanged.
    collection.push(&documents[..25]).unwrap();
    collection.push(&[Document { id: "blank", text: " \n" }, Document { id: "empty", text: "" }]).unwrap();
    collection.push(&documents[25..]).unwrap();
    assert_eq!((collection.len(), collection.empty(), collection.unmarked()), (texts.len(), 2, 0));
    let stop = AtomicBool::new(false);
    let mut lines = Vec::new();
    let (catalog, outcome) = collection
        .search(quiet(&stop), |round| {
            lines.extend(round.into_iter().map(|found| found.line));
            Ok(())
        })
        .unwrap();
    let boilerplate: Vec<String> =
        outcome.boilerplate.iter().map(|found| boilerplate_line(&catalog, found)).collect();
    assert!(!lines.is_empty() && !boilerplate.is_empty());
    // The same lines; rounds follow the places, which the file search
    // above scrambles.
    let sorted = |mut lines: Vec<String>| {
        lines.sort_unstable();
        lines
    };
    assert_eq!((sorted(lines), boilerplate), (sorted(expected.0), expected.1));
}

#[test]
fn a_passage_collection_refuses_an_id_given_twice() {
    let (texts, _, _) = collection(9);
    let mut collection = PassageCollection::new(PassageSettings::default()).unwrap();
    collection.push(&[Document { id: "x", text: &texts[0] }, Document { id: "x", text: &texts[1] }]).unwrap();
    let stop = AtomicBool::new(false);
    let err = collection.search(quiet(&stop), |_| Ok(())).unwrap_err();
    assert!(matches!(err, DedupError::RepeatedId { first: 0, second: 1, .. }), "{err}");
}
