//! Passages found where they were planted, with offsets that slice the
//! original texts, through edits, reordering and moves; none between
//! unrelated texts; limits on input.

use priorart_align::{AlignError, Aligner, Params, Passage, Side, Winnowing, align};

/// English function words, the commonest ranks of [`prose`]'s vocabulary.
const FUNCTION_WORDS: &[&str] = &[
    "the", "of", "and", "to", "a", "in", "is", "it", "that", "for", "was", "on", "are", "as", "with", "be",
    "at", "by", "this", "from", "or", "an", "but", "not", "which", "have", "they", "you", "were", "their",
    "one", "all", "we", "can", "her", "has", "there", "been", "if", "more", "when", "will", "would", "who",
    "so", "no",
];

/// Deterministic prose-like text: words of a Zipf-like vocabulary (English
/// function words first, about half the text as in English, then many
/// made-up content words), with punctuation and line breaks.
pub fn prose(seed: u64, words: usize) -> String {
    let mut rng = fastrand::Rng::with_seed(seed);
    let vocabulary: Vec<String> =
        FUNCTION_WORDS.iter().map(|w| (*w).to_owned()).chain((0..20_000u64).map(word_of)).collect();
    let mut text = String::new();
    for at in 0..words {
        // Log-uniform ranks: P(rank r) ~ 1/r (Zipf), the commonest word
        // about 7% of the text, as "the" is in English.
        let rank =
            ((rng.f64() * (vocabulary.len() as f64).ln()).exp() as usize - 1).min(vocabulary.len() - 1);
        text.push_str(&vocabulary[rank]);
        text.push_str(if at % 17 == 16 {
            ".\n"
        } else if at % 5 == 4 {
            ", "
        } else {
            " "
        });
    }
    text
}

/// A pronounceable word for a vocabulary rank.
fn word_of(rank: u64) -> String {
    const SYLLABLES: [&str; 16] =
        ["ka", "lo", "mi", "ne", "su", "ta", "ri", "vo", "pe", "du", "ga", "zo", "bi", "fe", "hu", "ya"];
    let mut word = String::new();
    let mut n = rank + 1;
    while n > 0 {
        word.push_str(SYLLABLES[(n % 16) as usize]);
        n /= 16;
    }
    word
}

/// The text of a passage's side in a text.
fn side<'t>(text: &'t str, span: &priorart_align::Span) -> &'t str {
    &text[span.bytes()]
}

/// Whether a passage found covers `chars` but for `slack` characters at
/// either end (a function word at the edge of a passage is not part of any
/// seed, so it may be left out).
fn covers(passage_span: &priorart_align::Span, chars: std::ops::Range<usize>, slack: usize) -> bool {
    passage_span.char_offset <= chars.start + slack && passage_span.chars().end + slack >= chars.end
}

/// Characters of `text` before byte offset `at`.
fn chars_before(text: &str, at: usize) -> usize {
    text[..at].chars().count()
}

#[test]
fn an_inserted_passage_is_found_with_offsets_into_both_originals() {
    let source = format!("Ünïcödé prélude — {}", prose(1, 300));
    let end = source[..source.len() - 200].rfind(' ').unwrap();
    let passage_bytes = source.find('\n').unwrap() + 1..end;
    let passage = &source[passage_bytes.clone()];
    let host = prose(2, 400);
    let cut = host.find(".\n").unwrap() + 2;
    let suspicious = format!("{}Ωmega: {}{}", &host[..cut], passage, &host[cut..]);
    let found = align(&suspicious, &source).unwrap();
    assert_eq!(found.len(), 1, "{found:#?}");
    let p = &found[0];
    // Bytes and characters name the same stretch of each original text.
    for (text, span) in [(&suspicious, &p.a), (&source, &p.b)] {
        let by_chars: String = text.chars().skip(span.char_offset).take(span.char_length).collect();
        assert_eq!(by_chars, side(text, span));
        assert_eq!(span.char_offset, chars_before(text, span.byte_offset));
    }
    let planted_at = suspicious.find(passage).unwrap();
    let planted =
        chars_before(&suspicious, planted_at)..chars_before(&suspicious, planted_at + passage.len());
    let source_chars = chars_before(&source, passage_bytes.start)..chars_before(&source, passage_bytes.end);
    assert!(covers(&p.a, planted.clone(), 12), "{:?} vs {planted:?}", p.a);
    assert!(covers(&p.b, source_chars.clone(), 12), "{:?} vs {source_chars:?}", p.b);
    assert!(p.a.char_length <= planted.len() + 2 && p.b.char_length <= source_chars.len() + 2);
    assert!(p.similarity > 0.99, "{}", p.similarity);
    assert_eq!(side(&suspicious, &p.a), side(&source, &p.b));
}

#[test]
fn moved_and_reordered_paragraphs_are_separate_passages() {
    let paragraphs: Vec<String> = (10..14).map(|seed| prose(seed, 120)).collect();
    let source = paragraphs.join("\n\n");
    // The host has paragraphs 3 and 1 of the source, in that order, among
    // its own text; 0 and 2 are not there.
    let suspicious =
        format!("{}\n\n{}\n\n{}\n\n{}", prose(20, 100), paragraphs[3], prose(21, 100), paragraphs[1]);
    let found = align(&suspicious, &source).unwrap();
    assert_eq!(found.len(), 2, "{found:#?}");
    for (passage, paragraph) in found.iter().zip([3, 1]) {
        let wanted = &paragraphs[paragraph];
        let at = source.find(wanted.as_str()).unwrap();
        let chars = chars_before(&source, at)..chars_before(&source, at + wanted.len());
        assert!(covers(&passage.b, chars.clone(), 12), "paragraph {paragraph}: {:?} vs {chars:?}", passage.b);
        assert!(passage.b.char_length <= chars.len());
    }
}

/// `text` with every `every`-th word replaced by a word no text has.
fn replace_words(text: &str, every: usize) -> String {
    text.split(' ')
        .enumerate()
        .map(|(i, word)| if i % every == every - 1 { "xqzzy".to_owned() } else { word.to_owned() })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` with neighbouring words swapped in pairs.
fn swap_pairs(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    for pair in words.chunks(2) {
        out.extend(pair.iter().rev());
    }
    out.join(" ")
}

#[test]
fn edits_inside_a_passage_do_not_cut_it() {
    let passage = prose(30, 250);
    let source = format!("{}\n{}\n{}", prose(31, 200), passage, prose(32, 200));
    for (edit, edited) in [("replaced", replace_words(&passage, 5)), ("swapped", swap_pairs(&passage))] {
        assert_ne!(edited, passage);
        let suspicious = format!("{}\n{}\n{}", prose(33, 150), edited, prose(34, 150));
        let found = align(&suspicious, &source).unwrap();
        assert_eq!(found.len(), 1, "{edit}: {found:#?}");
        let at = suspicious.find(edited.as_str()).unwrap();
        let planted = chars_before(&suspicious, at)..chars_before(&suspicious, at + edited.len());
        assert!(covers(&found[0].a, planted.clone(), 40), "{edit}: {:?} vs {planted:?}", found[0].a);
        assert!(found[0].similarity > 0.6, "{edit}: {}", found[0].similarity);
    }
}

#[test]
fn unrelated_texts_share_no_passage() {
    for seed in 0..5 {
        let found = align(&prose(100 + seed, 3000), &prose(200 + seed, 3000)).unwrap();
        assert_eq!(found, Vec::<Passage>::new(), "seed {seed}");
    }
    assert_eq!(align("", "").unwrap(), []);
    assert_eq!(align("one", &prose(1, 100)).unwrap(), []);
}

#[test]
fn repeated_boilerplate_stays_bounded() {
    // Every seed key of one text repeats thousands of times in the other:
    // too common to locate anything, so they are ignored, not multiplied.
    let repeated = "alpha beta ".repeat(20_000);
    assert_eq!(align(&repeated, &repeated).unwrap(), []);
}

#[test]
fn texts_with_too_many_seeds_are_refused() {
    // 31 distinct phrases, each 30 times in the second text (under the
    // key limit), all in the first: 30 seeds per word pair.
    let phrases: Vec<String> = (0..31).map(|i| format!("alpha{i} beta{i} gamma{i}")).collect();
    let source = phrases.join(" ").repeat(30);
    let params = Params { max_seeds: 10_000, ..Params::default() };
    let error = Aligner::new(params).unwrap().align(&source.repeat(4), &source).unwrap_err();
    assert_eq!(error.reason(), "too_many_seeds");
}

#[test]
fn the_input_limit_is_kept() {
    let params = Params { max_text_bytes: 1000, ..Params::default() };
    let aligner = Aligner::new(params).unwrap();
    let long = "word ".repeat(201);
    let error = aligner.align("short", &long).unwrap_err();
    assert_eq!(error, AlignError::TextTooLarge { side: Side::B, bytes: 1005, limit: 1000 });
    assert_eq!(error.reason(), "text_too_large");
    assert!(aligner.align(&long[..1000], "short").is_ok());
}

#[test]
fn parameters_out_of_range_are_refused() {
    for params in [
        Params { seed_words: 0, ..Params::default() },
        Params { seed_words: priorart_align::MAX_SEED_WORDS + 1, ..Params::default() },
        Params { min_similarity: 1.5, ..Params::default() },
        Params { max_key_occurrences: 0, ..Params::default() },
        Params { max_seeds: 0, ..Params::default() },
        Params { max_text_bytes: priorart_align::MAX_TEXT_BYTES + 1, ..Params::default() },
    ] {
        assert_eq!(Aligner::new(params).unwrap_err().reason(), "bad_parameter");
    }
}

/// A specification's repetitive prose, as dpkg's spec/triggers.txt is: each
/// section is about a few things and names them over and over ("the
/// switchboard", "versioned Breaks", "list of awaited packages"), so the
/// sentences around a passage share many of its phrases, at other places.
fn repetitive_spec(seed: u64, sections: usize) -> String {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut text = String::new();
    for _ in 0..sections {
        // The section's own phrases: three words each, made up for it.
        let phrases: Vec<String> = (0..6)
            .map(|_| (0..3).map(|_| word_of(rng.u64(100..20_000))).collect::<Vec<_>>().join(" "))
            .collect();
        for at in 0..12 {
            let pick = |rng: &mut fastrand::Rng| phrases[rng.usize(..phrases.len())].clone();
            let (first, second) = (pick(&mut rng), pick(&mut rng));
            let own: Vec<String> = (0..6).map(|_| word_of(rng.u64(100..20_000))).collect();
            text.push_str(&format!(
                "When the {first} is {} {} {}, {} the {second} {} {}.",
                own[0], own[1], own[2], own[3], own[4], own[5]
            ));
            text.push_str(if at % 4 == 3 { "\n\n" } else { " " });
        }
    }
    text
}

#[test]
fn passages_pasted_from_a_repetitive_source_are_marked_where_they_are_in_it() {
    let source = repetitive_spec(7, 30);
    // Three passages of whole sentences, pasted between unrelated prose.
    // Sentences start with "When"; a passage runs to the full stop before the next.
    let sentence_starts: Vec<usize> = source.match_indices("When ").map(|(at, _)| at).collect();
    let picks = [(40, 44), (150, 153), (300, 305)].map(|(from, to)| {
        let end = source[..sentence_starts[to]].trim_end().len();
        (sentence_starts[from], end)
    });
    let mut pasted = String::new();
    let mut planted = Vec::new();
    for (n, &(start, end)) in picks.iter().enumerate() {
        pasted.push_str(&prose(100 + n as u64, 300));
        pasted.push_str("\n\n");
        planted.push(pasted.chars().count()..pasted.chars().count() + source[start..end].chars().count());
        pasted.push_str(&source[start..end]);
        pasted.push_str("\n\n");
    }
    pasted.push_str(&prose(200, 300));
    let passages = align(&pasted, &source).unwrap();
    let truth: Vec<std::ops::Range<usize>> = picks
        .iter()
        .map(|&(start, end)| source[..start].chars().count()..source[..end].chars().count())
        .collect();
    let overlap = |x: &std::ops::Range<usize>, y: &std::ops::Range<usize>| {
        x.end.min(y.end).saturating_sub(x.start.max(y.start))
    };
    for (range, planted) in truth.iter().zip(&planted) {
        assert!(
            passages.iter().any(|p| overlap(&p.b.chars(), range) > 0 && overlap(&p.a.chars(), planted) > 0),
            "{range:?} found: {passages:?}"
        );
    }
    let marked: usize = passages.iter().map(|p| p.b.char_length).sum();
    let inside: usize =
        passages.iter().map(|p| truth.iter().map(|t| overlap(&p.b.chars(), t)).sum::<usize>()).sum();
    let precision = inside as f64 / marked as f64;
    assert!(
        precision >= 0.95,
        "{:.1}% of the source's marked characters are in the passages: {passages:?}",
        precision * 100.0
    );
    let marked_a: usize = passages.iter().map(|p| p.a.char_length).sum();
    let inside_a: usize =
        passages.iter().map(|p| planted.iter().map(|t| overlap(&p.a.chars(), t)).sum::<usize>()).sum();
    assert!(inside_a as f64 >= 0.95 * marked_a as f64, "{passages:?}");
}

/// A host of `prose` holding two passages of a longer source: 150 words
/// with every 9th replaced, and 120 verbatim; with both passages' text, as
/// in the host and as in the source.
fn host_of_two_passages(seed: u64) -> (String, String, [(String, String); 2]) {
    let source = prose(seed, 3000);
    let words: Vec<&str> = source.split(' ').collect();
    let borrowed = |from: usize, count: usize| words[from..from + count].join(" ");
    let (first, second) = (borrowed(400, 150), borrowed(2200, 120));
    let host = format!(
        "{}\n{}\n{}\n{}\n{}",
        prose(seed + 100, 600),
        replace_words(&first, 9),
        prose(seed + 200, 900),
        second,
        prose(seed + 300, 400)
    );
    (host, source, [(replace_words(&first, 9), first), (second.clone(), second)])
}

/// The characters of `passage`'s place in `text`.
fn chars_of(text: &str, passage: &str) -> std::ops::Range<usize> {
    let at = text.find(passage).unwrap();
    chars_before(text, at)..chars_before(text, at + passage.len())
}

#[test]
fn passages_aligned_on_shared_marks_are_where_they_were_planted() {
    let aligner = Aligner::new(Params::default()).unwrap();
    let winnowing = Winnowing::default();
    for seed in 0..10 {
        let (host, source, planted) = host_of_two_passages(seed);
        let mark = |text: &str| aligner.mark(text.to_owned(), &winnowing, |_| true).unwrap();
        let (a, b) = (mark(&host), mark(&source));
        assert_eq!(a.text(), host);
        let found = passages_of(aligner.align_marked(&a, &b, aligner.shared_marks(&a, &b)).unwrap());
        assert_eq!(found.len(), 2, "seed {seed}: {found:?}");
        for (passage, (in_host, in_source)) in found.iter().zip(&planted) {
            let (in_host, in_source) = (chars_of(&host, in_host), chars_of(&source, in_source));
            assert!(covers(&passage.a, in_host.clone(), 12), "seed {seed}: {:?} vs {in_host:?}", passage.a);
            assert!(
                passage.a.char_length <= in_host.len() + 2,
                "seed {seed}: {:?} vs {in_host:?}",
                passage.a
            );
            assert!(passage.b.char_offset <= in_source.start + 12, "seed {seed}: {:?}", passage.b);
        }
        assert_eq!(side(&host, &found[1].a), side(&source, &found[1].b));
        // Unrelated texts share no passage.
        let other = mark(&prose(seed + 500, 3000));
        assert!(aligner.align_marked(&a, &other, aligner.shared_marks(&a, &other)).unwrap().is_empty());
    }
}

#[test]
fn aligning_for_long_passages_keeps_every_long_passage() {
    let aligner = Aligner::new(Params::default()).unwrap();
    let winnowing = Winnowing::default();
    let mark = |text: &str| aligner.mark(text.to_owned(), &winnowing, |_| true).unwrap();
    let mut given_up = 0;
    for seed in 0..6 {
        let (host, source, _) = host_of_two_passages(seed);
        // Passages of 150 and 120 words, and pieces of them shorter or
        // longer than the threshold.
        let pieces = [&host[..host.len() / 3], &host[host.len() / 3..], &host];
        for (piece, min_words) in
            pieces.into_iter().flat_map(|piece| [0, 50, 140, 200, 400].map(|m| (piece, m)))
        {
            let (a, b) = (mark(piece), mark(&source));
            let long = |found: Vec<priorart_align::MarkedPassage>| -> Vec<Passage> {
                let kept = found
                    .into_iter()
                    .filter(|found| found.word_counts(&a, &b).iter().all(|&n| n >= min_words));
                kept.map(|found| found.passage).collect()
            };
            let all = aligner.align_marked(&a, &b, aligner.shared_marks(&a, &b)).unwrap();
            let of = aligner.align_marked_of(&a, &b, aligner.shared_marks(&a, &b), min_words).unwrap();
            given_up += usize::from(of.is_empty() && !all.is_empty());
            assert_eq!(long(of), long(all), "seed {seed}, {min_words} words");
        }
    }
    assert!(given_up > 0, "some pairs are given up early");
}

#[test]
fn a_passage_whose_marks_are_left_out_is_not_found() {
    let aligner = Aligner::new(Params::default()).unwrap();
    let winnowing = Winnowing::default();
    let (host, source, planted) = host_of_two_passages(3);
    let second = host.find(&planted[1].0).unwrap() as u32;
    let a = aligner.mark(host.clone(), &winnowing, |mark| mark.start < second).unwrap();
    let b = aligner.mark(source.clone(), &winnowing, |_| true).unwrap();
    let found = passages_of(aligner.align_marked(&a, &b, aligner.shared_marks(&a, &b)).unwrap());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(covers(&found[0].a, chars_of(&host, &planted[0].0), 12));
    // The words of the shared marks: each place in the host of each hash
    // both hold, of the marks kept.
    let (host_marks, source_marks) = (winnowing.marks(&host).unwrap(), winnowing.marks(&source).unwrap());
    let mut expected: Vec<u32> = host_marks
        .iter()
        .filter(|mark| mark.start < second && source_marks.iter().any(|theirs| theirs.hash == mark.hash))
        .map(|mark| mark.word)
        .collect();
    expected.sort_unstable();
    assert!(!expected.is_empty());
    assert_eq!(aligner.shared_marks(&a, &b).words(), expected);
    let nothing = aligner.mark(host, &winnowing, |_| false).unwrap();
    assert!(aligner.shared_marks(&nothing, &b).words().is_empty());
    assert!(aligner.align_marked(&nothing, &b, aligner.shared_marks(&nothing, &b)).unwrap().is_empty());
}

#[test]
fn marking_keeps_the_aligner_limits_and_stopwords() {
    let limited = Aligner::new(Params { max_text_bytes: 10, ..Params::default() }).unwrap();
    let winnowing = Winnowing::default();
    assert!(matches!(
        limited.mark("eleven bytes".into(), &winnowing, |_| true),
        Err(AlignError::TextTooLarge { bytes: 12, .. })
    ));
    let aligner = Aligner::new(Params::default()).unwrap();
    let every_word = Winnowing::new(3, 4, false).unwrap();
    assert!(matches!(aligner.mark("text".into(), &every_word, |_| true), Err(AlignError::BadParameter(_))));
    // Texts repeating one phrase are refused past the seed limit.
    let few = Aligner::new(Params { max_seeds: 10, ..Params::default() }).unwrap();
    let repeated = "alpha beta gamma delta. ".repeat(30);
    let a = few.mark(repeated.clone(), &winnowing, |_| true).unwrap();
    assert!(matches!(
        few.align_marked(&a, &a, few.shared_marks(&a, &a)),
        Err(AlignError::TooManySeeds { .. })
    ));
}

#[test]
fn coverage_of_passage_sides_counts_runs_of_their_words() {
    let aligner = Aligner::new(Params::default()).unwrap();
    let winnowing = Winnowing::default();
    let (host, source, _) = host_of_two_passages(4);
    let (a, b) = (
        aligner.mark(host.clone(), &winnowing, |_| true).unwrap(),
        aligner.mark(source.clone(), &winnowing, |_| true).unwrap(),
    );
    let found = aligner.align_marked(&a, &b, aligner.shared_marks(&a, &b)).unwrap();
    let [replaced, verbatim] = found.as_slice() else { panic!("two passages: {found:?}") };
    assert_eq!(a.coverage(&verbatim.passage.a, &b, &verbatim.passage.b), 1.0);
    // One word in nine replaced: each costs up to three words of runs of 3.
    let covered = a.coverage(&replaced.passage.a, &b, &replaced.passage.b);
    assert!((0.6..0.95).contains(&covered), "{covered}");
    // A passage measures itself as its spans measure.
    for found in &found {
        let (passage, ab) = (&found.passage, (&a, &b));
        assert_eq!(found.coverage(Side::A, ab.0, ab.1), a.coverage(&passage.a, &b, &passage.b));
        assert_eq!(found.coverage(Side::B, ab.0, ab.1), b.coverage(&passage.b, &a, &passage.a));
        assert_eq!(found.word_counts(&a, &b), [a.word_count(&passage.a), b.word_count(&passage.b)]);
    }
    // A side against an unrelated stretch of the same length.
    let elsewhere = priorart_align::Span { byte_offset: 0, ..replaced.passage.b };
    assert!(a.coverage(&replaced.passage.a, &b, &elsewhere) < 0.1);
}

/// The passages of what [`Aligner::align_marked`] found.
fn passages_of(found: Vec<priorart_align::MarkedPassage>) -> Vec<Passage> {
    found.into_iter().map(|found| found.passage).collect()
}
