//! The check behind the fuzz target: run by it on generated inputs, and by
//! `tests/fuzz_regression.rs` on the committed minimized corpus.

use priorart_align::{Aligner, MarkedText, Params, Span};

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
    if let Ok(passages) = aligner.align_marked(&text, &text, shared) {
        for passage in &passages {
            let _ = text.word_count(&passage.a);
            let _ = text.coverage(&passage.a, &text, &passage.b);
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
