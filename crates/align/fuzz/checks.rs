//! The checks behind the fuzz targets, one per target: run by it on
//! generated inputs, and by `tests/fuzz_regression.rs` on the committed
//! minimized corpora.

use priorart_align::{Aligner, Mark, MarkedText, Params, Side, Span, UnspacedLetters, Winnowing};

/// Any bytes as a prepared text read back ([`MarkedText::read_from`]):
/// reading never panics; what is read writes back to exactly the bytes it
/// was read from; and what the passage search asks of a text read back
/// (aligning it with itself on its marks, its passages' word counts and
/// coverage) runs without panicking, whatever the record claims.
pub fn stored(data: &[u8]) {
    let Ok((text, rest)) = MarkedText::read_from(data) else { return };
    let mut again = Vec::new();
    text.write_to(&mut again);
    assert_eq!(again, data[..data.len() - rest.len()], "a record read back writes back the same");
    let aligner = Aligner::new(Params::default()).expect("the default parameters are in range");
    let shared = aligner.shared_marks(&text, &text);
    if let Ok(found) = aligner.align_marked(&text, &text, shared) {
        for found in &found {
            let _ = found.word_counts(&text, &text);
            let _ = found.coverage(Side::A, &text, &text);
            let _ = text.word_count(&found.passage.a);
            let _ = text.coverage(&found.passage.a, &text, &found.passage.b);
        }
    }
    let whole = Span {
        char_offset: 0,
        char_length: text.text().chars().count(),
        byte_offset: 0,
        byte_length: text.text().len(),
    };
    let _ = text.word_count(&whole);
    let _ = text.coverage(&whole, &text, &whole);
}

/// Any bytes as a text (decoded lossily) winnowed as a passage search's
/// two passes winnow it, with and without the English stopwords, letters
/// of unspaced scripts two or one to a word: the marks of pass 1
/// ([`Winnowing::marks`], the postings) are exactly those pass 2 prepares
/// for the aligner ([`Aligner::mark`]), each on the text's characters and
/// in word order; a text shares every mark with itself; aligning it with
/// itself runs without panicking.
pub fn marks(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for english_stopwords in [false, true] {
        for letters in [UnspacedLetters::TwoToAWord, UnspacedLetters::OneWordEach] {
            let default = Winnowing::default();
            let winnowing = Winnowing::new(default.k(), default.w(), english_stopwords)
                .expect("the default winnowing is in range")
                .with_unspaced_letters(letters);
            let aligner = Aligner::new(Params { english_stopwords, ..Params::default() })
                .expect("the default parameters are in range");
            let Ok(pass_one) = winnowing.marks(&text) else { return };
            for mark in &pass_one {
                let (start, end) = (mark.start as usize, mark.end as usize);
                assert!(start < end && end <= text.len(), "{mark:?} outside the text");
                assert!(
                    text.is_char_boundary(start) && text.is_char_boundary(end),
                    "{mark:?} inside a character"
                );
            }
            assert!(pass_one.windows(2).all(|pair| pair[0].word < pair[1].word), "marks in word order");
            let mut pass_two: Vec<Mark> = Vec::new();
            let prepared = aligner
                .mark(text.to_string(), &winnowing, |mark| {
                    pass_two.push(*mark);
                    true
                })
                .expect("a text the winnowing takes is prepared");
            assert_eq!(pass_two, pass_one, "pass 2 prepares the marks pass 1 posted");
            let shared = aligner.shared_marks(&prepared, &prepared);
            let mut words: Vec<u32> = pass_one.iter().map(|mark| mark.word).collect();
            words.sort_unstable();
            assert_eq!(shared.words(), words, "a text shares every mark with itself");
            let _ = aligner.align_marked(&prepared, &prepared, shared);
        }
    }
}
