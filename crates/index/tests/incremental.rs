//! What incremental and cross-archive deduplication needs of the index:
//! documents without a sketch or an `X` (imported simhash-doc lists),
//! indexes written by earlier versions, the export → import round trip,
//! and new documents joined with an index (`Index::pairs_with`).

use priorart_fingerprint::{Fingerprinter, Shingling, WordShingles};
use priorart_index::{
    Entry, Index, Layout, MemoryIndex, Query, SKETCH_WIDTH, Verification, list_line, read_list,
};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// The texts the version 1 index in `tests/data/v1-index` was built from
/// (by `priorart index build` of commit 15b92b51, before segment version 2,
/// with ids the file names).
fn v1_texts() -> Vec<(String, String)> {
    ["heather.txt", "lighthouse.txt", "tide.txt"]
        .iter()
        .map(|name| (name.to_string(), std::fs::read_to_string(data("v1-texts").join(name)).unwrap()))
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for file in std::fs::read_dir(from).unwrap() {
        let file = file.unwrap();
        std::fs::copy(file.path(), to.join(file.file_name())).unwrap();
    }
}

#[test]
fn an_index_written_by_the_previous_version_opens_answers_and_migrates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1");
    copy_dir(&data("v1-index"), &path);
    let mut index = Index::open(&path).unwrap();
    assert_eq!(index.len(), 3);
    // Its manifest predates `shingles`: its sketches are of simhash-doc tokens.
    assert_eq!(index.shingling(), Shingling::TokensV1);
    assert_eq!(Index::shingling_of(&path).unwrap(), Shingling::TokensV1);
    let mut fingerprinter = Fingerprinter::new();
    let ask = |index: &Index, text: &str, fingerprinter: &mut Fingerprinter| {
        index.query(&Query::of_text(text, index.shingling(), fingerprinter), 3).unwrap()
    };
    for (id, text) in v1_texts() {
        let held = index.with_ids(&[id.as_str()].into());
        let expected = Entry::of_text(id.clone(), &text, Shingling::TokensV1, &mut fingerprinter);
        assert_eq!(held, [expected], "every document has its X and its sketch");
        let answer = ask(&index, &text, &mut fingerprinter);
        assert_eq!(answer.near[0].id, id);
        assert_eq!(answer.near[0].jaccard_estimate, Some(1.0));
        assert!(answer.has_same_x(&id));
    }
    // Adding writes a version 2 segment beside the version 1 one.
    let added =
        "Salt marshes flood twice a day, and the samphire that grows on them is picked by hand in July.";
    index.add(&[Entry::of_text("marsh", added, index.shingling(), &mut fingerprinter)]).unwrap();
    let index = Index::open(&path).unwrap();
    assert_eq!((index.len(), index.segment_count()), (4, 2));
    assert_eq!(ask(&index, added, &mut fingerprinter).near[0].jaccard_estimate, Some(1.0));
    // Compacting migrates it whole to version 2, with the same answers.
    let before: Vec<_> = v1_texts().iter().map(|(_, text)| ask(&index, text, &mut fingerprinter)).collect();
    let entries = index.entries();
    let mut index = index;
    index.compact().unwrap();
    assert_eq!(index.segment_count(), 1);
    assert_eq!(index.entries(), entries);
    let after: Vec<_> = v1_texts().iter().map(|(_, text)| ask(&index, text, &mut fingerprinter)).collect();
    assert_eq!(before, after);
    let segment = std::fs::read(path.join("seg-000003.pai")).unwrap();
    assert_eq!(u32::from_le_bytes(segment[16..20].try_into().unwrap()), 2, "version 2");
}

/// Pseudo-random prose: `words` words of three thousand, so that unrelated
/// texts share no 5-gram and sit far apart in simhash-doc.
fn prose(rng: &mut fastrand::Rng, words: usize) -> String {
    let word = |i: u32| -> String {
        [i % 26, i / 26 % 26, i / 676].map(|d| char::from(b'a' + d as u8)).iter().collect()
    };
    (0..words).map(|_| word(rng.u32(..3000))).collect::<Vec<_>>().join(" ")
}

/// `text` with `edits` words replaced.
fn edited(rng: &mut fastrand::Rng, text: &str, edits: usize) -> String {
    let mut words: Vec<&str> = text.split(' ').collect();
    for _ in 0..edits {
        let at = rng.usize(..words.len());
        words[at] = "changed";
    }
    words.join(" ")
}

#[test]
fn documents_without_a_sketch_or_an_x_are_found_by_distance_alone() {
    let mut rng = fastrand::Rng::with_seed(5);
    let mut fingerprinter = Fingerprinter::new();
    let text = prose(&mut rng, 400);
    let with_text = Entry::of_text("text", &text, Shingling::Words, &mut fingerprinter);
    let listed = Entry { id: "listed".into(), simhash: with_text.simhash ^ 0b101, x: None, sketch: None };
    let listed_x = Entry { id: "listed-x".into(), x: with_text.x, ..listed.clone() };
    let dir = tempfile::tempdir().unwrap();
    let entries = [listed.clone(), with_text.clone(), listed_x.clone()];
    let index =
        Index::build(dir.path(), Layout::manku_16x28(), SKETCH_WIDTH, Shingling::Words, &entries).unwrap();
    assert_eq!(index.entries(), entries, "no sketch and no X read back as none");
    let answer = index.query(&Query::of_text(&text, Shingling::Words, &mut fingerprinter), 3).unwrap();
    let near: Vec<(&str, u32, Option<f64>)> =
        answer.near.iter().map(|m| (m.id.as_str(), m.distance, m.jaccard_estimate)).collect();
    assert_eq!(near, [("text", 0, Some(1.0)), ("listed", 2, None), ("listed-x", 2, None)]);
    let mut same_x: Vec<&str> = answer.same_x.iter().map(|m| m.id.as_str()).collect();
    same_x.sort();
    assert_eq!(same_x, ["listed-x", "text"], "a document without X never matches one");
    // A memory index answers the same.
    let mut memory = MemoryIndex::new(Layout::manku_16x28(), Shingling::Words);
    for entry in entries {
        memory.insert(entry).unwrap();
    }
    let query = Query::of_text(&text, Shingling::Words, &mut fingerprinter);
    assert_eq!(memory.query(&query, 3).unwrap().near, index.query(&query, 3).unwrap().near);
}

#[test]
fn an_exported_list_imported_into_a_new_index_answers_the_same_by_distance() {
    let mut rng = fastrand::Rng::with_seed(8);
    let mut fingerprinter = Fingerprinter::new();
    let mut texts = Vec::new();
    for i in 0..40 {
        let text = prose(&mut rng, 300);
        texts.push((format!("doc {i}\twith a tab"), edited(&mut rng, &text, 6)));
        texts.push((format!("doc {i}"), text));
    }
    let entries: Vec<Entry> = texts
        .iter()
        .map(|(id, text)| Entry::of_text(id.clone(), text, Shingling::Words, &mut fingerprinter))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let layout = Layout::for_distance(6).unwrap();
    let ours =
        Index::build(&dir.path().join("ours"), layout.clone(), SKETCH_WIDTH, Shingling::Words, &entries)
            .unwrap();
    let list: String = ours.documents().map(|entry| list_line(&entry) + "\n").collect();
    let imported = read_list(list.as_bytes()).unwrap();
    assert_eq!(imported.len(), entries.len());
    let theirs =
        Index::build(&dir.path().join("theirs"), layout, SKETCH_WIDTH, Shingling::Words, &imported).unwrap();
    let mut found = 0;
    for (_, text) in &texts {
        let query = Query::of_text(text, Shingling::Words, &mut fingerprinter);
        let (a, b) = (ours.query(&query, 6).unwrap(), theirs.query(&query, 6).unwrap());
        let by_distance = |answer: &priorart_index::Answer| {
            let mut near: Vec<(String, u32)> =
                answer.near.iter().map(|m| (m.id.clone(), m.distance)).collect();
            near.sort();
            near
        };
        assert_eq!(by_distance(&a), by_distance(&b));
        let same_x = |answer: &priorart_index::Answer| {
            answer.same_x.iter().map(|m| (m.id.clone(), m.distance)).collect::<Vec<_>>()
        };
        assert_eq!(same_x(&a), same_x(&b), "X travels in the list");
        assert!(b.same_x.iter().all(|m| m.jaccard_estimate.is_none()), "no sketch: unverified");
        assert!(a.near.iter().all(|m| m.jaccard_estimate.is_some()));
        assert!(b.near.iter().all(|m| m.jaccard_estimate.is_none()), "no sketch: unverified");
        found += a.near.len();
    }
    assert!(found > texts.len(), "the edited copies are found ({found})");
}

#[test]
fn new_documents_pair_with_the_index_never_the_index_with_itself() {
    let mut rng = fastrand::Rng::with_seed(13);
    let mut fingerprinter = Fingerprinter::new();
    // The index: originals, and a near copy of each inside the index.
    let originals: Vec<String> = (0..30).map(|_| prose(&mut rng, 500)).collect();
    let mut held = Vec::new();
    for (i, text) in originals.iter().enumerate() {
        held.push(Entry::of_text(format!("old-{i}"), text, Shingling::Words, &mut fingerprinter));
        let copy = edited(&mut rng, text, 2);
        held.push(Entry::of_text(format!("old-copy-{i}"), &copy, Shingling::Words, &mut fingerprinter));
    }
    // One document known by its value alone.
    held.push(Entry { id: "listed".into(), simhash: held[0].simhash ^ 1, x: None, sketch: None });
    let dir = tempfile::tempdir().unwrap();
    let index =
        Index::build(dir.path(), Layout::manku_16x28(), SKETCH_WIDTH, Shingling::Words, &held).unwrap();
    // New documents: copies of the originals with more and more edits, and new texts.
    let mut new_texts: Vec<String> =
        originals.iter().enumerate().map(|(i, text)| edited(&mut rng, text, i)).collect();
    new_texts.extend((0..10).map(|_| prose(&mut rng, 500)));
    let shingles: Vec<WordShingles> =
        new_texts.iter().map(|t| WordShingles::of(t, Shingling::Words)).collect();
    let new: Vec<(u64, &WordShingles)> = new_texts
        .iter()
        .zip(&shingles)
        .map(|(text, shingles)| (priorart_fingerprint::simhash_doc(text).0, shingles))
        .collect();
    let layout = Layout::for_distance(8).unwrap();
    let everything = index.pairs_with(&new, &layout, 8, 0.0).unwrap();
    assert!(everything.len() >= 20, "{}", everything.len());
    let exact_of = |pair: &priorart_index::IndexPair| {
        let original = pair.id.strip_prefix("old-copy-").or_else(|| pair.id.strip_prefix("old-")).unwrap();
        let held_text = if pair.id.starts_with("old-copy-") {
            None
        } else {
            Some(&originals[original.parse::<usize>().unwrap()])
        };
        held_text.map(|text| shingles[pair.new as usize].jaccard(&WordShingles::of(text, Shingling::Words)))
    };
    let mut compared = 0;
    for pair in &everything {
        assert!(
            !pair.id.is_empty() && (pair.new as usize) < new.len(),
            "a pair of a new and an index document"
        );
        assert_eq!(
            pair.distance,
            (new[pair.new as usize].0 ^ index.document(pair.document as usize).unwrap().simhash).count_ones()
        );
        if pair.id == "listed" {
            assert_eq!(pair.verification(), Verification::Unverified);
            continue;
        }
        assert_eq!(pair.verification(), Verification::Estimated);
        if let Some(exact) = exact_of(pair) {
            // Four standard errors: a bottom-256 estimate strays further about once in 15,000 pairs.
            let bound = 4.0 * priorart_index::standard_error(exact, SKETCH_WIDTH) + 1e-9;
            let estimate = pair.jaccard_estimate.unwrap();
            assert!(
                (estimate - exact).abs() <= bound.max(0.02),
                "{}: estimate {estimate}, exact {exact}",
                pair.id
            );
            compared += 1;
        }
    }
    assert!(compared >= 10, "{compared}");
    // The threshold keeps the pairs estimated at or above it, and every unverified one.
    let kept = index.pairs_with(&new, &layout, 8, 0.8).unwrap();
    let expected: Vec<_> =
        everything.iter().filter(|p| p.jaccard_estimate.is_none_or(|j| j >= 0.8)).cloned().collect();
    assert_eq!(kept, expected);
    assert!(kept.iter().any(|p| p.jaccard_estimate.is_some()) && kept.len() < everything.len());
    // Survivors: the new texts and the copies estimated below 0.8.
    let survivors = priorart_index::survivors(new.len(), &kept, []);
    for n in 30..40 {
        assert!(survivors.contains(&n), "new text {n} survives");
    }
    assert!(!survivors.contains(&0), "an exact copy of the index does not");
}

/// An index of format 1 was built before simhash-doc-v2: its `words` are
/// the v1 words and its values simhash-doc, so a Chinese text is looked
/// up as it was indexed; a new index is of v2, where an edited Chinese
/// copy is found.
#[test]
fn a_format_1_index_keeps_the_v1_token_rule_and_a_new_one_finds_edited_chinese() {
    let text = "但它也常常保留了某些不再开发的软件包版本，因为用户仍然需要它们。\
                稳定版本的软件包会得到安全更新，而测试版本则不断变化。"
        .repeat(4);
    let copy = text.replacen('某', "一", 1).replacen('安', "完", 1);
    let mut fingerprinter = Fingerprinter::new();
    let dir = tempfile::tempdir().unwrap();
    let entries = [Entry::of_text("zh", &text, Shingling::Words, &mut fingerprinter)];
    let index =
        Index::build(dir.path(), Layout::manku_16x28(), SKETCH_WIDTH, Shingling::Words, &entries).unwrap();
    let answer = index.query(&Query::of_text(&copy, index.shingling(), &mut fingerprinter), 3).unwrap();
    assert!(answer.near.first().is_some_and(|found| found.jaccard_estimate.unwrap() > 0.6), "{answer:?}");

    let manifest = dir.path().join("manifest.json");
    let written = std::fs::read_to_string(&manifest).unwrap();
    assert!(written.contains("\"priorart-index/2\""));
    std::fs::write(&manifest, written.replace("priorart-index/2", "priorart-index/1")).unwrap();
    let old = Index::open(dir.path()).unwrap();
    assert_eq!(old.shingling(), Shingling::WordsV1);
    assert_eq!(Index::shingling_of(dir.path()).unwrap(), Shingling::WordsV1);
}
