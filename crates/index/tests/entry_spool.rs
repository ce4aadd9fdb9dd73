//! Documents spooled to disk as they are read (`EntrySpool`) build and add
//! to an index the files the same entries held in memory do, byte for
//! byte, with and without passage marks; a spooled build or add that fails
//! leaves the index as it was and no file of its own, and its spools
//! whole, to be written again.

use crate::passages::spool_of;
use priorart_fingerprint::{Fingerprinter, Shingling};
use priorart_index::{Entry, EntrySpool, Index, IndexError, Layout, MarkSpool, SKETCH_WIDTH};
use priorart_testkit::files_in;
use std::path::Path;

/// `count` documents of a few hundred made-up words, with their passage
/// marks, and two imported from a list (no sketch; one without an `X`).
fn documents(count: usize) -> (Vec<Entry>, Vec<Vec<priorart_align::Mark>>) {
    let mut rng = fastrand::Rng::with_seed(71);
    let mut fingerprinter = Fingerprinter::new();
    let winnowing = Index::passage_winnowing();
    let texts: Vec<String> = (0..count)
        .map(|_| {
            (0..rng.usize(50..400)).map(|_| format!("w{}", rng.u32(0..3_000))).collect::<Vec<_>>().join(" ")
        })
        .collect();
    let mut entries: Vec<Entry> = texts
        .iter()
        .enumerate()
        .map(|(n, text)| Entry::of_text(format!("doc-{n}"), text, Shingling::Words, &mut fingerprinter))
        .collect();
    let mut marks: Vec<Vec<priorart_align::Mark>> =
        texts.iter().map(|text| winnowing.marks(text).unwrap()).collect();
    entries.push(Entry { id: "listed-1".into(), simhash: 0x1234, x: Some([7; 32]), sketch: None });
    entries.push(Entry { id: "listed-2".into(), simhash: 0x1234, x: None, sketch: None });
    marks.extend([Vec::new(), Vec::new()]);
    (entries, marks)
}

#[test]
fn spooled_entries_build_and_add_the_files_of_entries_in_memory() {
    let (entries, marks) = documents(40);
    for with_marks in [false, true] {
        let (memory, spooled) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let layout = || Layout::for_distance(4).unwrap();
        let first = &entries[..25];
        let mut in_memory = if with_marks {
            Index::build_with_marks(
                memory.path(),
                layout(),
                SKETCH_WIDTH,
                Shingling::Words,
                first,
                &marks[..25],
            )
        } else {
            Index::build(memory.path(), layout(), SKETCH_WIDTH, Shingling::Words, first)
        }
        .unwrap();
        let mut spool = EntrySpool::of(spooled.path(), first).unwrap();
        let mut marked = with_marks.then(|| spool_of(spooled.path(), &marks[..25]));
        let mut from_spool = Index::build_from_spool(
            spooled.path(),
            layout(),
            SKETCH_WIDTH,
            Shingling::Words,
            &mut spool,
            marked.as_mut(),
        )
        .unwrap();
        drop((spool, marked));
        assert_eq!(files_in(spooled.path()), files_in(memory.path()), "built, marks {with_marks}");
        // Added: documents 25.., of which the caller leaves out every third.
        let keep = |n: usize| !n.is_multiple_of(3);
        let kept: Vec<Entry> =
            entries[25..].iter().enumerate().filter(|(n, _)| keep(*n)).map(|(_, e)| e.clone()).collect();
        let kept_marks: Vec<_> =
            marks[25..].iter().enumerate().filter(|(n, _)| keep(*n)).map(|(_, m)| m.clone()).collect();
        if with_marks {
            in_memory.add_with_marks(&kept, &kept_marks).unwrap();
        } else {
            in_memory.add(&kept).unwrap();
        }
        let mut spool = EntrySpool::of(spooled.path(), &entries[25..]).unwrap();
        spool.retain(keep);
        let mut marked = with_marks.then(|| spool_of(spooled.path(), &marks[25..]));
        if let Some(marked) = &mut marked {
            marked.retain(keep);
        }
        from_spool.add_from_spool(&mut spool, marked.as_mut()).unwrap();
        drop((spool, marked));
        assert_eq!(files_in(spooled.path()), files_in(memory.path()), "added, marks {with_marks}");
        assert_eq!(from_spool.len(), 25 + kept.len());
        assert_eq!(from_spool.documents().collect::<Vec<_>>(), [&entries[..25], &kept].concat());
    }
}

#[test]
fn a_spooled_build_or_add_that_fails_leaves_the_index_as_it_was_and_no_file_of_its_own() {
    let (entries, marks) = documents(12);
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::build_with_marks(
        dir.path(),
        Layout::manku_16x28(),
        SKETCH_WIDTH,
        Shingling::Words,
        &entries[..4],
        &marks[..4],
    )
    .unwrap();
    let before = files_in(dir.path());
    let build = |spool: &mut EntrySpool, marks: Option<&mut MarkSpool>| {
        Index::build_from_spool(
            dir.path(),
            Layout::manku_16x28(),
            SKETCH_WIDTH,
            Shingling::Words,
            spool,
            marks,
        )
    };
    // An id given twice, found once every document is spooled.
    let twice = [&entries[4..], &entries[4..5]].concat();
    let built = build(&mut EntrySpool::of(dir.path(), &twice).unwrap(), None);
    assert!(
        matches!(built, Err(IndexError::DuplicateIds { ref ids }) if ids == &["doc-4"]),
        "{:?}",
        built.err()
    );
    // An id the index holds, added.
    let added = index.add_from_spool(&mut EntrySpool::of(dir.path(), &entries[3..]).unwrap(), None);
    assert!(matches!(added, Err(IndexError::DuplicateIds { ref ids }) if ids == &["doc-3"]), "{added:?}");
    // Marks of other documents than the entries.
    let mut spool = EntrySpool::of(dir.path(), &entries[4..]).unwrap();
    let built = build(&mut spool, Some(&mut spool_of(dir.path(), &marks[5..])));
    assert!(matches!(built, Err(IndexError::MarksCount { entries: 10, marks: 9 })), "{:?}", built.err());
    drop(spool);
    assert_eq!(files_in(dir.path()), before);
    // The segment cannot be written (the temporary name it is written
    // under is taken): the spools are left whole, and add the documents
    // once it can.
    let taken = dir.path().join(format!("seg-000002.pai.tmp{}", std::process::id()));
    std::fs::create_dir(&taken).unwrap();
    let mut spool = EntrySpool::of(dir.path(), &entries[4..]).unwrap();
    let mut marked = spool_of(dir.path(), &marks[4..]);
    let added = index.add_from_spool(&mut spool, Some(&mut marked));
    assert!(matches!(added, Err(IndexError::Segment(_))), "{added:?}");
    let built = build(&mut spool, Some(&mut marked));
    assert!(matches!(built, Err(IndexError::Segment(_))), "{:?}", built.err());
    std::fs::remove_dir(&taken).unwrap();
    let spools = |name: &str| name.starts_with(".entries-spool-") || name.starts_with(".marks-spool-");
    let without_spools =
        files_in(dir.path()).into_iter().filter(|(name, _)| !spools(name)).collect::<Vec<_>>();
    assert_eq!(without_spools, before, "the index as it was");
    assert_eq!(Index::open(dir.path()).unwrap().len(), 4);
    index.add_from_spool(&mut spool, Some(&mut marked)).unwrap();
    drop((spool, marked));
    assert_eq!(index.documents().collect::<Vec<_>>(), entries);
    assert!(files_in(dir.path()).iter().all(|(name, _)| !spools(name)), "no spool left");
}

#[test]
fn a_spool_abandoned_before_a_build_leaves_no_directory() {
    let (entries, marks) = documents(3);
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("new.idx");
    // As the CLI makes them: the documents' spool first, dropped last.
    let spool = EntrySpool::of(&index, &entries).unwrap();
    let marked = spool_of(&index, &marks);
    drop(marked);
    drop(spool);
    assert!(!index.exists());
}

/// The bytes of the one file of `dir` whose name ends in `.extension`.
fn only_file(dir: &Path, extension: &str) -> Vec<u8> {
    let suffix = format!(".{extension}");
    let mut found: Vec<(String, Vec<u8>)> =
        files_in(dir).into_iter().filter(|(name, _)| name.ends_with(&suffix)).collect();
    assert_eq!(found.len(), 1, "{:?}", found.iter().map(|(name, _)| name).collect::<Vec<_>>());
    found.remove(0).1
}

/// An index of `entries` and their `marks` built in `dir`, in one segment.
fn built(dir: &Path, entries: &[Entry], marks: &[Vec<priorart_align::Mark>]) -> Index {
    let layout = Layout::for_distance(4).unwrap();
    Index::build_with_marks(dir, layout, SKETCH_WIDTH, Shingling::Words, entries, marks).unwrap()
}

#[test]
fn compacting_writes_the_segment_one_build_of_the_same_documents_writes() {
    let (entries, marks) = documents(60);
    let (whole, pieces) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let build = |dir: &Path, upto: usize| built(dir, &entries[..upto], &marks[..upto]);
    build(whole.path(), entries.len());
    let mut index = build(pieces.path(), 20);
    index.add_with_marks(&entries[20..45], &marks[20..45]).unwrap();
    index.add_with_marks(&entries[45..], &marks[45..]).unwrap();
    assert_eq!(index.segment_count(), 3);
    index.compact().unwrap();
    assert_eq!(index.segment_count(), 1);
    assert_eq!(index.entries(), entries);
    for extension in ["pai", "pam"] {
        assert!(only_file(whole.path(), extension) == only_file(pieces.path(), extension), "{extension}");
    }
}

/// Compaction reads the segments and marks files it merges back from
/// disk (not through their maps): one truncated or damaged since the index
/// was opened (a segment, whose map would have raised SIGBUS), or a marks
/// file damaged (checked at its first use), is a typed error that leaves
/// the index as it was; repaired, the index compacts as one build.
#[test]
fn a_damaged_file_fails_compaction_and_leaves_the_index_as_it_was() {
    let (entries, marks) = documents(30);
    let (whole, pieces) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let build = |dir: &Path, upto: usize| built(dir, &entries[..upto], &marks[..upto]);
    build(whole.path(), entries.len());
    let mut index = build(pieces.path(), 10);
    index.add_with_marks(&entries[10..], &marks[10..]).unwrap();
    let before = files_in(pieces.path());
    let read = |name: &str| std::fs::read(pieces.path().join(name)).unwrap();
    let (segment, marked) = (read("seg-000002.pai"), read("seg-000001.pam"));
    let u64_at = |at: usize| u64::from_le_bytes(segment[at..at + 8].try_into().unwrap()) as usize;
    let id_offsets = (128 + u64_at(48)).next_multiple_of(8);
    let first_id = id_offsets + 8 * (u64_at(24) + 1);
    let damaged = |bytes: &[u8], at: usize, with: &[u8]| {
        let mut damaged = bytes.to_vec();
        damaged[at..at + with.len()].copy_from_slice(with);
        damaged
    };
    let cases = [
        ("seg-000002.pai", segment[..segment.len() / 2].to_vec(), "bytes where the header implies"),
        ("seg-000002.pai", damaged(&segment, id_offsets, &5u64.to_le_bytes()), "id offsets are out of order"),
        ("seg-000002.pai", damaged(&segment, first_id, b"\xff"), "not UTF-8"),
        ("seg-000001.pam", damaged(&marked, marked.len() / 2, b"\xff"), "checksum mismatch"),
        ("seg-000001.pam", marked[..marked.len() - 8].to_vec(), "bytes where the header implies"),
    ];
    for (name, bytes, message) in cases {
        let mut opened = Index::open(pieces.path()).unwrap();
        std::fs::write(pieces.path().join(name), &bytes).unwrap();
        let err = opened.compact().unwrap_err();
        assert!(matches!(err, IndexError::Segment(_)), "{name}: {err:?}");
        assert!(err.to_string().contains(message), "{name}: {err}");
        std::fs::write(pieces.path().join(name), if name.ends_with(".pai") { &segment } else { &marked })
            .unwrap();
        assert_eq!(files_in(pieces.path()), before, "{name}: the index as it was");
    }
    index.compact().unwrap();
    for extension in ["pai", "pam"] {
        assert!(only_file(whole.path(), extension) == only_file(pieces.path(), extension), "{extension}");
    }
}
