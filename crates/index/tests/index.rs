//! The index against brute force: every layout finds every pair within its
//! distance and nothing beyond; segments built in steps answer as one built
//! at once; damaged files are refused.

use priorart_fingerprint::Shingling;
use priorart_index::{Entry, Index, Layout, Segment, SegmentError, encode};

fn entry(i: usize, simhash: u64) -> Entry {
    let mut x = [0u8; 32];
    x[..8].copy_from_slice(&(i as u64 % 7).to_le_bytes());
    Entry { id: format!("doc-{i}"), simhash, x: Some(x), sketch: Some(vec![i as u64, i as u64 + 1]) }
}

/// Random fingerprints, and near copies of some of them with 1..=flips bits flipped.
fn corpus(rng: &mut fastrand::Rng, count: usize, flips: u32) -> Vec<u64> {
    let mut values: Vec<u64> = (0..count).map(|_| rng.u64(..)).collect();
    for i in 0..count / 2 {
        let mut near = values[i];
        for _ in 0..rng.u32(1..=flips) {
            near ^= 1 << rng.u32(0..64);
        }
        values.push(near);
    }
    values
}

fn brute_force(values: &[u64], query: u64, k: u32) -> Vec<usize> {
    (0..values.len()).filter(|&i| (values[i] ^ query).count_ones() <= k).collect()
}

#[test]
fn every_layout_finds_exactly_the_pairs_within_its_distance() {
    let mut rng = fastrand::Rng::with_seed(7);
    let layouts = [
        Layout::manku_16x28(),
        Layout::pigeonhole(6, 3).unwrap(),
        Layout::for_distance(5).unwrap(),
        Layout::for_distance(8).unwrap(),
    ];
    for layout in layouts {
        let k = layout.max_distance;
        let values = corpus(&mut rng, 2000, k + 2);
        let entries: Vec<Entry> = values.iter().enumerate().map(|(i, &v)| entry(i, v)).collect();
        let segment = Segment::from_bytes(encode(&layout, &entries, 4).unwrap()).unwrap();
        for (q, &query) in values.iter().enumerate().step_by(7) {
            for distance in 0..=k {
                let mut found: Vec<usize> =
                    segment.near(query, distance).iter().map(|hit| hit.number as usize).collect();
                found.sort_unstable();
                assert_eq!(
                    found,
                    brute_force(&values, query, distance),
                    "{} query {q} k={distance}",
                    layout.name
                );
            }
        }
        // Flipping up to k bits of a stored value always finds it.
        for i in (0..values.len()).step_by(13) {
            let mut query = values[i];
            let mut flipped = 0;
            while flipped < k {
                let bit = 1 << rng.u32(0..64);
                if (query ^ values[i]) & bit == 0 {
                    query ^= bit;
                    flipped += 1;
                }
            }
            assert!(
                segment.near(query, k).iter().any(|hit| hit.number as usize == i),
                "{} doc {i}",
                layout.name
            );
        }
    }
}

#[test]
fn add_then_query_equals_build_then_query_and_compact_keeps_everything() {
    let mut rng = fastrand::Rng::with_seed(11);
    let values = corpus(&mut rng, 600, 3);
    let entries: Vec<Entry> = values.iter().enumerate().map(|(i, &v)| entry(i, v)).collect();
    let (one, steps) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let built = Index::build(one.path(), Layout::manku_16x28(), 4, Shingling::Tokens, &entries).unwrap();
    let mut added =
        Index::build(steps.path(), Layout::manku_16x28(), 4, Shingling::Tokens, &entries[..100]).unwrap();
    added.add(&entries[100..500]).unwrap();
    added.add(&entries[500..]).unwrap();
    let added = Index::open(steps.path()).unwrap();
    assert_eq!((added.segment_count(), added.len()), (3, entries.len()));
    let answers = |index: &Index, query: u64| {
        let mut ids: Vec<(String, u32)> =
            index.near(query, 3, None).unwrap().into_iter().map(|m| (m.id, m.distance)).collect();
        ids.sort();
        ids
    };
    for &query in values.iter().step_by(5) {
        assert_eq!(answers(&built, query), answers(&added, query));
    }
    let mut compacted = Index::open(steps.path()).unwrap();
    compacted.compact().unwrap();
    assert_eq!((compacted.segment_count(), compacted.len()), (1, entries.len()));
    assert_eq!(compacted.entries(), entries);
    for &query in values.iter().step_by(5) {
        assert_eq!(answers(&built, query), answers(&compacted, query));
    }
    // Only the compacted segment is left on disk, beside the manifest.
    assert_eq!(std::fs::read_dir(steps.path()).unwrap().count(), 2);
    // Exact X equality over every segment.
    let x = entries[3].x.unwrap();
    let same: Vec<String> = compacted.same_x(&x).into_iter().map(|m| m.id).collect();
    assert_eq!(same.len(), entries.iter().filter(|e| e.x == Some(x)).count());
    assert!(same.contains(&"doc-3".to_owned()));
    // A distance the layout cannot guarantee is refused, not answered partly.
    assert!(compacted.near(0, 4, None).is_err());
}

#[test]
fn damaged_and_foreign_files_are_refused() {
    let entries: Vec<Entry> =
        (0..50).map(|i| entry(i, (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))).collect();
    let bytes = encode(&Layout::manku_16x28(), &entries, 4).unwrap();
    Segment::from_bytes(bytes.clone()).unwrap();
    for cut in [0, 10, 127, 128, 500, bytes.len() - 1] {
        let err = Segment::from_bytes(bytes[..cut].to_vec()).err().expect("truncated");
        assert!(
            matches!(err, SegmentError::Foreign { .. } | SegmentError::Corrupt { .. }),
            "cut {cut}: {err}"
        );
    }
    let mut rng = fastrand::Rng::with_seed(3);
    for _ in 0..200 {
        let mut damaged = bytes.clone();
        let at = rng.usize(..damaged.len());
        damaged[at] ^= 1 << rng.u32(0..8);
        assert!(Segment::from_bytes(damaged).is_err(), "bit flip at {at} accepted");
    }
    assert!(matches!(
        Segment::from_bytes(b"PK\x03\x04 not an index at all".repeat(10)),
        Err(SegmentError::Foreign { .. })
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Segment::from_bytes(longer).is_err());
}

/// A segment file is hashed as read from the file, a block at a time
/// (not through its map): a bit flipped anywhere, in the first block, the
/// checksum's bytes or a later block, is refused as when held in memory.
#[test]
fn a_damaged_segment_file_is_refused_when_opened() {
    let entries: Vec<Entry> = (0..700)
        .map(|i| Entry {
            sketch: Some((0..256).map(|h| h * 7 + i as u64).collect()),
            ..entry(i, i as u64 * 31)
        })
        .collect();
    let bytes = encode(&Layout::manku_16x28(), &entries, 256).unwrap();
    assert!(bytes.len() > 1 << 20, "more than one block read");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seg-000001.pai");
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(Segment::open(&path).unwrap().len(), 700);
    let mut rng = fastrand::Rng::with_seed(5);
    let mut places = vec![0, 55, 56, 87, 88, 200, (1 << 20) - 1, 1 << 20, bytes.len() - 1];
    places.extend((0..20).map(|_| rng.usize(..bytes.len())));
    for at in places {
        let mut damaged = bytes.clone();
        damaged[at] ^= 1 << rng.u32(0..8);
        std::fs::write(&path, &damaged).unwrap();
        assert!(Segment::open(&path).is_err(), "bit flip at {at} accepted");
    }
}

#[test]
fn a_failed_build_leaves_the_previous_index_intact() {
    let dir = tempfile::tempdir().unwrap();
    let entries: Vec<Entry> = (0..20).map(|i| entry(i, i as u64)).collect();
    Index::build(dir.path(), Layout::manku_16x28(), 4, Shingling::Tokens, &entries).unwrap();
    // A manifest that names a missing segment is an error, and leaves the files alone.
    let manifest = std::fs::read_to_string(dir.path().join("manifest.json")).unwrap();
    std::fs::write(dir.path().join("manifest.json"), manifest.replace("seg-000001", "seg-000009")).unwrap();
    assert!(Index::open(dir.path()).is_err());
    std::fs::write(dir.path().join("manifest.json"), &manifest).unwrap();
    assert_eq!(Index::open(dir.path()).unwrap().len(), 20);
    // A manifest naming a path outside the directory is refused.
    std::fs::write(dir.path().join("manifest.json"), manifest.replace("seg-000001.pai", "../../etc/passwd"))
        .unwrap();
    assert!(Index::open(dir.path()).is_err());
}

/// Texts: a few articles and near copies of them (one word changed).
fn texts() -> Vec<(String, String)> {
    let articles = [
        "Tide mills ground the grain of European estuaries for eight centuries, turning the rise and fall \
         of the sea into flour; a pond filled at high tide and emptied through the wheel as it ebbed.",
        "The lighthouse keepers of the northern coast trimmed their wicks every four hours through the \
         winter, logging the weather, the ships that passed and the oil that burned in each lamp.",
        "Bees that forage on heather carry its pollen home in baskets on their hind legs, and the honey \
         they make from it sets into a jelly that beekeepers press from the comb by hand.",
    ];
    let mut texts = Vec::new();
    for (i, article) in articles.iter().enumerate() {
        texts.push((format!("article-{i}"), article.to_string()));
        texts.push((format!("copy-{i}"), article.replacen("the", "a", 1)));
    }
    texts
}

#[test]
fn a_memory_index_answers_as_the_index_it_saves() {
    use priorart_fingerprint::Fingerprinter;
    use priorart_index::{MemoryIndex, Query};
    let mut fingerprinter = Fingerprinter::new();
    let mut memory = MemoryIndex::new(Layout::for_distance(6).unwrap(), Shingling::Words);
    for (id, text) in texts() {
        memory.insert_text(&id, &text, &mut fingerprinter).unwrap();
    }
    assert_eq!(memory.len(), 6);
    // One id names one document.
    let err = memory.insert_text("copy-1", "another text", &mut fingerprinter).unwrap_err();
    assert!(err.to_string().contains("\"copy-1\""), "{err}");
    assert_eq!(memory.len(), 6);
    let dir = tempfile::tempdir().unwrap();
    let saved = memory.save(&dir.path().join("idx")).unwrap();
    let opened = Index::open(&dir.path().join("idx")).unwrap();
    assert_eq!(opened.len(), 6);
    for (id, text) in texts() {
        let query = Query::of_text(&text, Shingling::Words, &mut fingerprinter);
        for k in [0, 3, 6] {
            let in_memory = memory.query(&query, k).unwrap();
            assert_eq!(in_memory, saved.query(&query, k).unwrap(), "{id} k={k}");
            assert_eq!(in_memory, opened.query(&query, k).unwrap(), "{id} k={k}");
        }
        let answer = memory.query(&query, 6).unwrap();
        // The document itself comes first, with an estimate of 1.
        assert_eq!(answer.near[0].id, id);
        assert_eq!(answer.near[0].jaccard_estimate, Some(1.0));
        assert!(answer.has_same_x(&id));
        let by_simhash = memory.query(&Query::of_simhash(query.simhash.unwrap()), 6).unwrap();
        assert!(by_simhash.near.iter().all(|m| m.jaccard_estimate.is_none()));
        // By X alone: the same documents, without the distance and estimate
        // that only a text's value and sketch give.
        let by_x = memory.query(&Query::of_x(query.x.unwrap()), 0).unwrap().same_x;
        let ids =
            |matches: &[priorart_index::Match]| matches.iter().map(|m| m.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&by_x), ids(&answer.same_x));
        assert!(by_x.iter().all(|m| m.jaccard_estimate.is_none()));
        assert!(
            answer.same_x.iter().all(|m| m.jaccard_estimate.is_some()),
            "a same-X match says how alike it is"
        );
    }
    // Loaded back into memory: the same documents, and more can be inserted.
    let mut reloaded = MemoryIndex::from_index(&opened);
    assert_eq!(reloaded.entries(), memory.entries());
    assert!(reloaded.insert_text("article-0", "again", &mut fingerprinter).is_err());
    reloaded.insert_text("new", "A new text about something else entirely.", &mut fingerprinter).unwrap();
    assert_eq!(reloaded.save(&dir.path().join("idx")).unwrap().len(), 7);
    // A distance beyond the layout is refused in memory as on disk.
    assert!(memory.query(&Query::of_simhash(0), 7).is_err());
    assert!(opened.query(&Query::of_simhash(0), 7).is_err());
}

#[test]
fn an_id_is_never_indexed_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx");
    let twice = vec![entry(1, 10), entry(2, 20), entry(1, 11)];
    let Err(err) = Index::build(&path, Layout::manku_16x28(), 4, Shingling::Tokens, &twice) else {
        panic!("built")
    };
    assert!(err.to_string().contains("\"doc-1\""), "{err}");
    assert!(!path.join("manifest.json").exists(), "nothing written");
    let mut index =
        Index::build(&path, Layout::manku_16x28(), 4, Shingling::Tokens, &[entry(1, 10), entry(2, 20)])
            .unwrap();
    for again in [vec![entry(2, 20)], vec![entry(3, 30), entry(3, 31)]] {
        let err = index.add(&again).unwrap_err();
        assert!(matches!(err, priorart_index::IndexError::DuplicateIds { .. }), "{err}");
        assert_eq!((index.len(), index.segment_count()), (2, 1), "nothing added");
    }
    index.add(&[entry(3, 30)]).unwrap();
    assert_eq!(Index::open(&path).unwrap().len(), 3);
    let ids: std::collections::HashSet<&str> = ["doc-2", "doc-9"].into();
    assert_eq!(index.with_ids(&ids), vec![entry(2, 20)]);
}
