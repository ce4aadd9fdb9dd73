//! What the index keeps of one document ([`Entry`]): its simhash-doc value,
//! its `X` and a sketch of its word shingles, computed here from its text so
//! that every front end (the CLI, the Python package) indexes a text the
//! same way. The shingling (how the text is cut into words) is the
//! index's own ([`crate::Index::shingling`]): sketches of two shinglings
//! cannot be compared. Its token rule also says which simhash-doc the
//! index holds (simhash-doc-v2, or simhash-doc for an index built before).

use crate::segment::Entry;
use priorart_fingerprint::{Fingerprint, Fingerprinter, Scheme, Shingling, TokenRule, WordShingles};

/// Shingle hashes kept per document (the smallest ones): the Jaccard
/// similarity of two documents estimated from their sketches has a
/// standard error of about 0.025 at J = 0.8. An estimate, not the exact
/// value `priorart compare` computes from both texts.
pub const SKETCH_WIDTH: u32 = 256;

/// The sketch of a document's word shingles: its `width` smallest shingle
/// hashes, sorted (fewer when the text has fewer shingles).
pub fn sketch(shingles: &WordShingles, width: u32) -> Vec<u64> {
    shingles.hashes().iter().take(width as usize).copied().collect()
}

impl Entry {
    /// The entry of a document from its text: simhash-doc (of
    /// `shingling`'s token rule), `X` (minhash-equality-v1) and a sketch
    /// [`SKETCH_WIDTH`] hashes wide of its shingles under `shingling`.
    pub fn of_text(
        id: impl Into<String>,
        text: &str,
        shingling: Shingling,
        fingerprinter: &mut Fingerprinter,
    ) -> Entry {
        let (x, simhash) = fingerprints(text, shingling.token_rule(), fingerprinter);
        Entry::from_fingerprints(id, simhash, x, &WordShingles::of(text, shingling))
    }

    /// The entry of a document whose fingerprints and shingles are
    /// already computed (a batch pipeline that also verifies pairs with the
    /// full shingle sets).
    pub fn from_fingerprints(
        id: impl Into<String>,
        simhash: u64,
        x: Option<[u8; 32]>,
        shingles: &WordShingles,
    ) -> Entry {
        Entry { id: id.into(), simhash, x, sketch: Some(sketch(shingles, SKETCH_WIDTH)) }
    }
}

/// `X` and the simhash-doc of `rule` of `text`, in one pass of the
/// fingerprinter.
pub(crate) fn fingerprints(
    text: &str,
    rule: TokenRule,
    fingerprinter: &mut Fingerprinter,
) -> (Option<[u8; 32]>, u64) {
    let (mut x, mut simhash) = (None, 0);
    for found in fingerprinter.fingerprint(text, &[Scheme::MinhashEqualityV1, rule.simhash_scheme()]) {
        match found {
            Fingerprint::Equality(value) => x = Some(value.0),
            Fingerprint::SimhashDoc(value) => simhash = value.0,
            _ => {}
        }
    }
    (x, simhash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_of_text_holds_the_fingerprints_every_command_computes() {
        let text = "Tide mills ground the grain of European estuaries for eight centuries, \
                    turning the sea's rise and fall into flour. 潮汐磨坊把海水的涨落变成面粉。";
        for shingling in Shingling::ALL {
            let entry = Entry::of_text("mills", text, shingling, &mut Fingerprinter::new());
            assert_eq!(entry.id, "mills");
            let simhash = Fingerprinter::new().simhash_doc(text, shingling.token_rule());
            assert_eq!(entry.simhash, simhash.0);
            assert_eq!(entry.x, Some(priorart_fingerprint::minhash_equality_v1(text).0));
            let sketch = entry.sketch.unwrap();
            assert_eq!(sketch, WordShingles::of(text, shingling).hashes());
            assert!(sketch.windows(2).all(|pair| pair[0] < pair[1]), "sorted");
        }
    }

    #[test]
    fn a_sketch_keeps_the_smallest_hashes_up_to_its_width() {
        // Two thousand distinct words of letters.
        let word = |i: u32| -> String {
            [i % 26, i / 26 % 26, i / 676].map(|d| char::from(b'a' + d as u8)).iter().collect()
        };
        let text: String = (0..2_000).map(|i| word(i) + " ").collect();
        let shingles = WordShingles::of(&text, Shingling::Tokens);
        assert!(shingles.hashes().len() > SKETCH_WIDTH as usize);
        let kept = sketch(&shingles, SKETCH_WIDTH);
        assert_eq!(kept, shingles.hashes()[..SKETCH_WIDTH as usize]);
        assert_eq!(sketch(&shingles, 3), shingles.hashes()[..3]);
    }
}
