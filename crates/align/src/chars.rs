//! What the aligner's words ask of a character beyond ASCII, answered from
//! tables of the Basic Multilingual Plane built once from the standard
//! library's and `priorart_fingerprint`'s own answers.
//!
//! Why: `char::is_alphanumeric` and `char::to_lowercase` search Unicode's
//! tables on every call, and `is_unspaced` looks a character's general
//! category up in a trie. On the Debian corpus (16 % of its bytes beyond
//! ASCII: Chinese, Japanese, Russian, …) the two searches were a fifth of
//! the time spent cutting texts into words. A bit per character and
//! question is one load; the answers are the same by construction (the
//! tables are filled by asking the slow functions) and a test compares
//! them on every character of the plane. Characters above it (rare in
//! text) are asked directly.

use std::sync::LazyLock;

/// Characters of the Basic Multilingual Plane.
const PLANE: usize = 1 << 16;

/// One bit per character of the plane.
struct Bits(Box<[u64]>);

impl Bits {
    fn of(question: impl Fn(char) -> bool) -> Bits {
        let mut bits = vec![0u64; PLANE / 64].into_boxed_slice();
        for code in 0..PLANE as u32 {
            if char::from_u32(code).is_some_and(&question) {
                bits[code as usize / 64] |= 1 << (code % 64);
            }
        }
        Bits(bits)
    }

    fn get(&self, code: u32) -> bool {
        self.0[code as usize / 64] >> (code % 64) & 1 == 1
    }
}

/// The three answers for every character of the plane.
struct Tables {
    word: Bits,
    cased: Bits,
    unspaced: Bits,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| Tables {
    word: Bits::of(is_word_slow),
    cased: Bits::of(lowers_slow),
    unspaced: Bits::of(priorart_fingerprint::is_unspaced),
});

/// Whether `c` is part of a word: alphanumeric (Unicode's `Alphabetic` or
/// `Numeric`) or a combining mark.
fn is_word_slow(c: char) -> bool {
    c.is_alphanumeric() || priorart_fingerprint::is_combining_mark(c)
}

/// Whether lowercasing changes `c`.
fn lowers_slow(c: char) -> bool {
    let mut lower = c.to_lowercase();
    !(lower.next() == Some(c) && lower.next().is_none())
}

/// Whether `c` is part of a word ([`is_word_slow`]).
pub(crate) fn is_word(c: char) -> bool {
    let code = u32::from(c);
    if (code as usize) < PLANE { TABLES.word.get(code) } else { is_word_slow(c) }
}

/// Calls `each` with the characters of `c` lowercased (`c` itself when it
/// has no lowercase).
pub(crate) fn each_lower(c: char, mut each: impl FnMut(char)) {
    let code = u32::from(c);
    if (code as usize) < PLANE && !TABLES.cased.get(code) {
        return each(c);
    }
    c.to_lowercase().for_each(each);
}

/// Whether `c` is a letter of a script written without spaces
/// ([`priorart_fingerprint::is_unspaced`]).
pub(crate) fn is_unspaced(c: char) -> bool {
    let code = u32::from(c);
    if (code as usize) < PLANE { TABLES.unspaced.get(code) } else { priorart_fingerprint::is_unspaced(c) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_answer_as_the_slow_functions_on_every_character_of_the_plane() {
        for c in (0..PLANE as u32).filter_map(char::from_u32) {
            assert_eq!(is_word(c), is_word_slow(c), "{c:?}");
            assert_eq!(is_unspaced(c), priorart_fingerprint::is_unspaced(c), "{c:?}");
            let mut lowered = String::new();
            each_lower(c, |lower| lowered.push(lower));
            assert_eq!(lowered, c.to_lowercase().to_string(), "{c:?}");
        }
    }

    #[test]
    fn characters_above_the_plane_are_asked_directly() {
        for c in ['𝐀', '𠀀', '😀', '𐐀'] {
            assert_eq!(is_word(c), is_word_slow(c), "{c:?}");
            assert_eq!(is_unspaced(c), priorart_fingerprint::is_unspaced(c), "{c:?}");
            let mut lowered = String::new();
            each_lower(c, |lower| lowered.push(lower));
            assert_eq!(lowered, c.to_lowercase().to_string(), "{c:?}");
        }
    }
}
