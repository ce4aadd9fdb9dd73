//! Passage lookups in an index (`Index::query_passages`): a passage of
//! one indexed document pasted into a text, verbatim or with words
//! replaced, is found in that document alone, its offsets slicing the
//! pasted words out of the text and the indexed document; unrelated texts
//! find nothing; a passage many documents hold is boilerplate; the marks
//! survive adding, compacting and reopening; an index without marks says
//! so; marks spooled to disk as documents are read write the files the
//! marks held in memory write, and a build that fails leaves the index
//! it would have replaced as it was, with no file of its own.

use priorart_fingerprint::{Fingerprinter, Shingling};
use priorart_index::{
    Entry, Index, IndexError, Layout, MarkSpool, PassageAnswer, PassageSearch, SKETCH_WIDTH,
};
use priorart_testkit::files_in;
use std::path::Path;

/// `count` words drawn from a vocabulary of 20,000 made-up ones.
fn prose(rng: &mut fastrand::Rng, count: usize) -> Vec<String> {
    (0..count).map(|_| format!("w{}", rng.u32(0..20_000))).collect()
}

fn entries_and_marks(texts: &[String]) -> (Vec<Entry>, Vec<Vec<priorart_align::Mark>>) {
    let mut fingerprinter = Fingerprinter::new();
    let winnowing = Index::passage_winnowing();
    let entries = texts
        .iter()
        .enumerate()
        .map(|(n, text)| Entry::of_text(format!("doc-{n}"), text, Shingling::Words, &mut fingerprinter))
        .collect();
    (entries, texts.iter().map(|text| winnowing.marks(text).unwrap()).collect())
}

fn build(dir: &Path, texts: &[String]) -> Index {
    let (entries, marks) = entries_and_marks(texts);
    Index::build_with_marks(dir, Layout::manku_16x28(), SKETCH_WIDTH, Shingling::Words, &entries, &marks)
        .unwrap()
}

/// Six documents of 1,500 words, and a text of 800 others with words
/// 300..450 of document 3 pasted after its 400th word (with every
/// `replace_every`-th word of the passage replaced, if any).
fn collection(replace_every: Option<usize>) -> (Vec<String>, String, Vec<String>) {
    let mut rng = fastrand::Rng::with_seed(33);
    let documents: Vec<Vec<String>> = (0..6).map(|_| prose(&mut rng, 1_500)).collect();
    let mut passage: Vec<String> = documents[3][300..450].to_vec();
    if let Some(every) = replace_every {
        for (at, word) in passage.iter_mut().enumerate() {
            if at % every == every / 2 {
                *word = format!("replaced{at}");
            }
        }
    }
    let host = prose(&mut rng, 800);
    let text = [&host[..400], &passage[..], &host[400..]].concat().join(" ");
    (documents.iter().map(|words| words.join(" ")).collect(), text, passage)
}

/// The one passage found, in document 3, slicing the pasted words out of
/// the text and document 3's words 300..450 out of it.
fn assert_found_in_document_3(answer: &PassageAnswer, texts: &[String], text: &str, passage: &[String]) {
    assert_eq!(answer.documents.len(), 1, "{answer:#?}");
    let found = &answer.documents[0];
    assert_eq!(found.id, "doc-3");
    assert_eq!(found.passages.len(), 1, "{found:#?}");
    let shared = &found.passages[0];
    let sliced = &text[shared.text.bytes()];
    assert_eq!(sliced.chars().count(), shared.text.char_length);
    assert_eq!(text[..shared.text.byte_offset].chars().count(), shared.text.char_offset);
    // The marked stretch lies inside the passage and covers nearly all of
    // it (a mark is sure within every 6 content words).
    let pasted = passage.join(" ");
    assert!(pasted.contains(sliced), "{sliced}");
    assert!(sliced.split(' ').count() >= 140, "{sliced}");
    let indexed = &texts[3][shared.indexed.clone()];
    let original = texts[3].split(' ').skip(300).take(150).collect::<Vec<_>>().join(" ");
    assert!(original.contains(indexed), "{indexed}");
    assert!(indexed.split(' ').count() >= 140);
    assert!(shared.marks >= 20, "{shared:?}");
    assert_eq!(found.marks, shared.marks);
}

#[test]
fn a_pasted_passage_is_found_in_its_document_alone() {
    let (texts, text, passage) = collection(None);
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path(), &texts);
    assert!(index.has_marks());
    let answer = index.query_passages(&text, &PassageSearch::default()).unwrap();
    assert_found_in_document_3(&answer, &texts, &text, &passage);
    assert!(answer.documents[0].passages[0].similarity > 0.95, "{answer:?}");
    assert!(answer.boilerplate.is_empty());
}

#[test]
fn a_passage_with_one_word_in_ten_replaced_is_found() {
    let (texts, text, passage) = collection(Some(10));
    let dir = tempfile::tempdir().unwrap();
    let answer = build(dir.path(), &texts).query_passages(&text, &PassageSearch::default()).unwrap();
    assert_found_in_document_3(&answer, &texts, &text, &passage);
    let similarity = answer.documents[0].passages[0].similarity;
    assert!((0.3..0.95).contains(&similarity), "{similarity}");
}

#[test]
fn unrelated_texts_and_short_ones_find_nothing() {
    let (texts, _, _) = collection(None);
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path(), &texts);
    let mut rng = fastrand::Rng::with_seed(99);
    let unrelated = prose(&mut rng, 3_000).join(" ");
    let answer = index.query_passages(&unrelated, &PassageSearch::default()).unwrap();
    assert!(answer.documents.is_empty(), "{answer:?}");
    assert!(answer.marks > 1_000);
    // 40 words of a document: shorter than a passage.
    let short = texts[2].split(' ').skip(100).take(40).collect::<Vec<_>>().join(" ");
    assert!(index.query_passages(&short, &PassageSearch::default()).unwrap().documents.is_empty());
    let lenient = PassageSearch { min_words: 30, ..PassageSearch::default() };
    let found = index.query_passages(&short, &lenient).unwrap();
    assert_eq!(found.documents.len(), 1);
    assert_eq!(found.documents[0].id, "doc-2");
    assert!(index.query_passages("", &PassageSearch::default()).unwrap().documents.is_empty());
}

#[test]
fn a_passage_many_documents_hold_is_boilerplate_not_matches() {
    let mut rng = fastrand::Rng::with_seed(5);
    let license = prose(&mut rng, 80).join(" ");
    let texts: Vec<String> = (0..6)
        .map(|_| format!("{} {license} {}", prose(&mut rng, 300).join(" "), prose(&mut rng, 300).join(" ")))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path(), &texts);
    let text = format!("{} {license} {}", prose(&mut rng, 200).join(" "), prose(&mut rng, 200).join(" "));
    let search = PassageSearch { boilerplate: 4, ..PassageSearch::default() };
    let answer = index.query_passages(&text, &search).unwrap();
    assert!(answer.documents.is_empty(), "{answer:?}");
    assert_eq!(answer.boilerplate.len(), 1, "{answer:?}");
    assert!(answer.boilerplate[0].documents > 4);
    assert!(license.contains(&text[answer.boilerplate[0].text.bytes()]));
    // Under a threshold above the six documents, each holds the passage.
    let answer = index.query_passages(&text, &PassageSearch::default()).unwrap();
    assert_eq!(answer.documents.len(), 6, "{answer:?}");
    assert!(answer.boilerplate.is_empty());
}

#[test]
fn marks_survive_adding_compacting_and_reopening() {
    let (texts, text, _) = collection(None);
    let dir = tempfile::tempdir().unwrap();
    let mut index = build(dir.path(), &texts[..3]);
    let (entries, marks) = entries_and_marks(&texts);
    index.add_with_marks(&entries[3..5], &marks[3..5]).unwrap();
    // Added without marks: indexed, never found by passages.
    index.add(&entries[5..]).unwrap();
    let search = PassageSearch::default();
    let before = index.query_passages(&text, &search).unwrap();
    assert_eq!(before.documents.len(), 1);
    assert_eq!(before.documents[0].id, "doc-3");
    let copy_of_5 = texts[5].split(' ').take(200).collect::<Vec<_>>().join(" ");
    assert!(index.query_passages(&copy_of_5, &search).unwrap().documents.is_empty());
    assert_eq!(Index::open(dir.path()).unwrap().query_passages(&text, &search).unwrap(), before);
    index.compact().unwrap();
    assert_eq!(index.segment_count(), 1);
    assert_eq!(index.query_passages(&text, &search).unwrap(), before);
    let files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files.iter().filter(|name| name.ends_with(".pam")).count(), 1, "{files:?}");
    let manifest = std::fs::read_to_string(dir.path().join("manifest.json")).unwrap();
    assert!(manifest.contains("\"priorart-index/3\""), "{manifest}");
}

#[test]
fn an_index_without_marks_says_so() {
    let (texts, text, _) = collection(None);
    let dir = tempfile::tempdir().unwrap();
    let (entries, marks) = entries_and_marks(&texts);
    let mut index =
        Index::build(dir.path(), Layout::manku_16x28(), SKETCH_WIDTH, Shingling::Words, &entries[..4])
            .unwrap();
    assert!(!index.has_marks());
    let manifest = std::fs::read_to_string(dir.path().join("manifest.json")).unwrap();
    assert!(manifest.contains("\"priorart-index/2\""), "{manifest}");
    // Marks added to an index without any are not kept.
    index.add_with_marks(&entries[4..], &marks[4..]).unwrap();
    let err = Index::open(dir.path()).unwrap().query_passages(&text, &PassageSearch::default()).unwrap_err();
    assert!(matches!(err, IndexError::NoMarks(_)));
    assert!(err.to_string().contains("rebuild it"), "{err}");
    let mismatched = Index::build_with_marks(
        &dir.path().join("other"),
        Layout::manku_16x28(),
        SKETCH_WIDTH,
        Shingling::Words,
        &entries,
        &marks[1..],
    );
    assert!(matches!(mismatched, Err(IndexError::MarksCount { entries: 6, marks: 5 })));
}

#[test]
fn a_damaged_or_missing_marks_file_is_refused_when_searched() {
    let (texts, text, _) = collection(None);
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &texts);
    let path = dir.path().join("seg-000001.pam");
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&path, bytes).unwrap();
    // Near copies are looked up without reading the marks.
    let index = Index::open(dir.path()).unwrap();
    let searched = index.query_passages(&text, &PassageSearch::default());
    assert!(matches!(searched, Err(IndexError::Segment(_))), "{searched:?}");
    std::fs::remove_file(&path).unwrap();
    let searched = Index::open(dir.path()).unwrap().query_passages(&text, &PassageSearch::default());
    assert!(matches!(searched, Err(IndexError::Segment(_))), "{searched:?}");
}

#[test]
fn phrases_the_document_repeats_elsewhere_neither_stretch_nor_split_the_passage() {
    let (mut texts, text, passage) = collection(None);
    // Document 3 repeats phrases of the passage: two far from it, one just
    // before it (within a chain's reach).
    let mut words: Vec<String> = texts[3].split(' ').map(str::to_owned).collect();
    for (from, at) in [(310, 1_000), (360, 1_100), (330, 285)] {
        let phrase: Vec<String> = words[from..from + 15].to_vec();
        words.splice(at..at, phrase);
    }
    texts[3] = words.join(" ");
    let dir = tempfile::tempdir().unwrap();
    let answer = build(dir.path(), &texts).query_passages(&text, &PassageSearch::default()).unwrap();
    assert_eq!(answer.documents.len(), 1, "{answer:#?}");
    let found = &answer.documents[0];
    assert_eq!(found.passages.len(), 1, "{found:#?}");
    let indexed = &texts[3][found.passages[0].indexed.clone()];
    assert!(passage.join(" ").contains(indexed), "{indexed}");
}

/// A spool of `marks` sorting a few rows at a time (many runs to merge).
pub(crate) fn spool_of(dir: &Path, marks: &[Vec<priorart_align::Mark>]) -> MarkSpool {
    let mut spool = MarkSpool::with_run_rows(dir, 97).unwrap();
    for held in marks {
        spool.push(held).unwrap();
    }
    spool
}

#[test]
fn marks_spooled_write_the_files_of_marks_in_memory() {
    let (texts, text, _) = collection(None);
    let (entries, marks) = entries_and_marks(&texts);
    let (memory, spooled) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let layout = || Layout::manku_16x28();
    let mut in_memory = Index::build_with_marks(
        memory.path(),
        layout(),
        SKETCH_WIDTH,
        Shingling::Words,
        &entries[..3],
        &marks[..3],
    )
    .unwrap();
    let mut from_spool = Index::build_spooled(
        spooled.path(),
        layout(),
        SKETCH_WIDTH,
        Shingling::Words,
        &entries[..3],
        &mut spool_of(spooled.path(), &marks[..3]),
    )
    .unwrap();
    assert_eq!(files_in(spooled.path()), files_in(memory.path()), "built");
    // Added: documents 3..6, of which the caller leaves out document 4.
    let kept: Vec<Entry> = [3, 5].map(|n| entries[n].clone()).to_vec();
    in_memory.add_with_marks(&kept, &[marks[3].clone(), marks[5].clone()]).unwrap();
    let mut spool = spool_of(spooled.path(), &marks[3..]);
    spool.retain(|n| n != 1);
    from_spool.add_spooled(&kept, &mut spool).unwrap();
    drop(spool);
    assert_eq!(files_in(spooled.path()), files_in(memory.path()), "added");
    in_memory.compact().unwrap();
    from_spool.compact().unwrap();
    assert_eq!(files_in(spooled.path()), files_in(memory.path()), "compacted");
    let search = PassageSearch::default();
    assert_eq!(from_spool.query_passages(&text, &search).unwrap().documents[0].id, "doc-3");
}

#[test]
fn a_build_or_add_that_fails_leaves_the_index_as_it_was_and_no_file_of_its_own() {
    let (texts, text, _) = collection(None);
    let (entries, marks) = entries_and_marks(&texts);
    let dir = tempfile::tempdir().unwrap();
    let mut index = build(dir.path(), &texts[..3]);
    let before = files_in(dir.path());
    let build_spooled = |entries: &[Entry], spool: &mut MarkSpool| {
        Index::build_spooled(
            dir.path(),
            Layout::manku_16x28(),
            SKETCH_WIDTH,
            Shingling::Words,
            entries,
            spool,
        )
    };
    // An id given twice, found once every mark is spooled.
    let twice = [&entries[3..], &entries[3..4]].concat();
    let spooled = build_spooled(&twice, &mut spool_of(dir.path(), &[&marks[3..], &marks[3..4]].concat()));
    assert!(matches!(spooled, Err(IndexError::DuplicateIds { .. })), "{:?}", spooled.err());
    assert_eq!(files_in(dir.path()), before);
    // Marks of other documents than the entries.
    let spooled = build_spooled(&entries[3..], &mut spool_of(dir.path(), &marks[4..]));
    assert!(matches!(spooled, Err(IndexError::MarksCount { entries: 3, marks: 2 })), "{:?}", spooled.err());
    let added = index.add_spooled(&entries[3..], &mut spool_of(dir.path(), &marks[4..]));
    assert!(matches!(added, Err(IndexError::MarksCount { entries: 3, marks: 2 })), "{added:?}");
    assert_eq!(files_in(dir.path()), before);
    // The marks file cannot be written (its name is taken) once the
    // segment is: the segment is removed again.
    let taken = dir.path().join("seg-000002.pam");
    std::fs::create_dir(&taken).unwrap();
    let spooled = build_spooled(&entries[3..], &mut spool_of(dir.path(), &marks[3..]));
    assert!(matches!(spooled, Err(IndexError::Segment(_))), "{:?}", spooled.err());
    // A spool whose add failed is left whole: the same spool adds them later.
    let mut spool = spool_of(dir.path(), &marks[3..]);
    let added = index.add_spooled(&entries[3..], &mut spool);
    assert!(matches!(added, Err(IndexError::Segment(_))), "{added:?}");
    std::fs::remove_dir(&taken).unwrap();
    let without_spool =
        |dir: &Path| files_in(dir).into_iter().filter(|(name, _)| !name.starts_with(".marks-spool-"));
    assert!(without_spool(dir.path()).eq(before.iter().cloned()), "the index as it was");
    assert_eq!(Index::open(dir.path()).unwrap().len(), 3);
    assert!(index.query_passages(&text, &PassageSearch::default()).unwrap().documents.is_empty());
    index.add_spooled(&entries[3..], &mut spool).unwrap();
    drop(spool);
    assert_eq!(index.query_passages(&text, &PassageSearch::default()).unwrap().documents[0].id, "doc-3");
}

/// `count` letters of a made-up script written without spaces (CJK
/// ideographs), with a full stop every 20.
fn unspaced_prose(rng: &mut fastrand::Rng, count: usize) -> String {
    (0..count)
        .map(|at| {
            let letter = char::from_u32(0x4E00 + rng.u32(0..3_000)).unwrap();
            if at % 20 == 19 { format!("{letter}。") } else { letter.to_string() }
        })
        .collect()
}

#[test]
fn an_index_from_before_unspaced_letters_were_paired_is_still_searched_its_way() {
    let mut rng = fastrand::Rng::with_seed(5);
    let texts: Vec<String> = (0..4).map(|_| unspaced_prose(&mut rng, 3_000)).collect();
    let source: Vec<char> = texts[2].chars().collect();
    let pasted: String = source[1_000..1_400].iter().collect();
    let text = format!("{}{pasted}{}", unspaced_prose(&mut rng, 600), unspaced_prose(&mut rng, 600));
    let one_each =
        Index::passage_winnowing().with_unspaced_letters(priorart_align::UnspacedLetters::OneWordEach);
    let (entries, _) = entries_and_marks(&texts);
    let old_marks: Vec<Vec<priorart_align::Mark>> =
        texts.iter().map(|t| one_each.marks(t).unwrap()).collect();
    let build_old = |dir: &Path| {
        Index::build_with_marks(
            dir,
            Layout::manku_16x28(),
            SKETCH_WIDTH,
            Shingling::Words,
            &entries,
            &old_marks,
        )
        .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    build_old(dir.path());
    // A manifest written before the field existed.
    let manifest_path = dir.path().join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    let marks = manifest["marks"].as_object_mut().unwrap();
    assert_eq!(marks.remove("unspaced_letters_paired"), Some(serde_json::Value::Bool(true)));
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let mut index = Index::open(dir.path()).unwrap();
    let winnowing = index.marks_winnowing().unwrap().clone();
    assert_eq!(winnowing.unspaced_letters(), priorart_align::UnspacedLetters::OneWordEach);
    let found = |index: &Index| {
        let answer = index.query_passages(&text, &PassageSearch::default()).unwrap();
        answer.documents.iter().map(|document| document.id.clone()).collect::<Vec<_>>()
    };
    assert_eq!(found(&index), ["doc-2"]);
    // Documents added are winnowed the index's way, and found.
    let added_text = pasted.clone() + &unspaced_prose(&mut rng, 500);
    let (mut added, _) = entries_and_marks(std::slice::from_ref(&added_text));
    added[0].id = "added".into();
    let added_marks = vec![winnowing.marks(&added_text).unwrap()];
    index.add_with_marks(&added, &added_marks).unwrap();
    assert_eq!(found(&Index::open(dir.path()).unwrap()).len(), 2);
    // Its marks are not a new index's: searched the new way, nothing.
    let new_dir = tempfile::tempdir().unwrap();
    let new_index = build_old(new_dir.path());
    assert_eq!(
        new_index.marks_winnowing().unwrap().unspaced_letters(),
        priorart_align::UnspacedLetters::TwoToAWord
    );
    assert!(found(&new_index).is_empty());
}
