//! Character classes, exactly as the JavaScript reference's regular
//! expressions see them.
//!
//! Every table comes from ICU4X 2.3 compiled data, which is generated from
//! ICU 78 / Unicode 17.0: the same Unicode version as the reference
//! (simhash-ts on Node 20 with ICU 78). The crate pins ICU4X to `=2.3.0` for
//! that reason; a newer Unicode version would assign new letters and marks
//! and so change fingerprints of text that uses them.

use icu_properties::props::{CaseIgnorable, Cased, GeneralCategory, GeneralCategoryGroup};
use icu_properties::{
    CodePointMapData, CodePointMapDataBorrowed, CodePointSetData, CodePointSetDataBorrowed,
};

const GENERAL_CATEGORY: CodePointMapDataBorrowed<'static, GeneralCategory> =
    CodePointMapData::<GeneralCategory>::new();
const CASE_IGNORABLE: CodePointSetDataBorrowed<'static> = CodePointSetData::new::<CaseIgnorable>();
const CASED: CodePointSetDataBorrowed<'static> = CodePointSetData::new::<Cased>();

/// Whether the first character of `chars` that is not case-ignorable is
/// cased (the two halves of Unicode's Final_Sigma context); `None` if every
/// character is case-ignorable.
pub(crate) fn cased_first(mut chars: impl Iterator<Item = char>) -> Option<bool> {
    chars.find(|&c| !CASE_IGNORABLE.contains(c)).map(|c| CASED.contains(c))
}

/// What a character of lowercased text means to canonicalization steps 5–10.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// ECMAScript `\s`: Zs, TAB, LF, VT, FF, CR, U+2028, U+2029, U+FEFF.
    /// (U+0085 and U+180E are *not* whitespace in ECMAScript.)
    Space,
    /// U+200B, U+200C, U+200D: deleted by step 6. U+FEFF is deleted too but
    /// is [`Class::Space`] for the URL rule, which runs before step 6.
    ZeroWidth,
    /// `\p{P}` or `\p{S}`: replaced by a space (step 7).
    PunctuationOrSymbol,
    /// `\p{N}`: any number category, Nd, Nl and No (step 8).
    Number,
    /// `\p{L}`: part of a token.
    Letter,
    /// Anything else (controls, format characters, private use, unassigned,
    /// marks produced after step 2): kept in the canonical text, but it
    /// separates tokens.
    Other,
}

/// ASCII classes, so the common case needs no table lookup.
pub(crate) const ASCII_CLASSES: [Class; 128] = {
    let mut table = [Class::Other; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        table[i] = match b {
            b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' => Class::Space,
            b'0'..=b'9' => Class::Number,
            b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
            0x21..=0x7e => Class::PunctuationOrSymbol,
            _ => Class::Other,
        };
        i += 1;
    }
    table
};

pub(crate) fn classify(c: char) -> Class {
    if c.is_ascii() {
        return ASCII_CLASSES[c as usize];
    }
    match c {
        '\u{2028}' | '\u{2029}' | '\u{FEFF}' => return Class::Space,
        '\u{200B}'..='\u{200D}' => return Class::ZeroWidth,
        _ => {}
    }
    let category = GENERAL_CATEGORY.get(c);
    if category == GeneralCategory::SpaceSeparator {
        Class::Space
    } else if GeneralCategoryGroup::Letter.contains(category) {
        Class::Letter
    } else if GeneralCategoryGroup::Number.contains(category) {
        Class::Number
    } else if GeneralCategoryGroup::Punctuation.contains(category)
        || GeneralCategoryGroup::Symbol.contains(category)
    {
        Class::PunctuationOrSymbol
    } else {
        Class::Other
    }
}

/// ECMAScript `\s` (used by the URL rule's `\S+`).
pub(crate) fn is_js_whitespace(c: char) -> bool {
    classify(c) == Class::Space
}

/// `\p{M}`: the combining marks stripped after NFKD (step 2).
pub(crate) fn is_mark(c: char) -> bool {
    !c.is_ascii() && GeneralCategoryGroup::Mark.contains(GENERAL_CATEGORY.get(c))
}

/// Python's `\w` in a `str` pattern (`str.isalnum()` or `_`): a letter
/// (`\p{L}`), a number (`\p{N}`: Nd, Nl, No) or `_`. Marks are not word
/// characters, so a combining mark ends a word.
pub(crate) fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    let category = GENERAL_CATEGORY.get(c);
    GeneralCategoryGroup::Letter.contains(category) || GeneralCategoryGroup::Number.contains(category)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecmascript_whitespace_set() {
        for c in ['\u{A0}', '\u{1680}', '\u{2000}', '\u{200A}', '\u{202F}', '\u{3000}', '\u{FEFF}'] {
            assert_eq!(classify(c), Class::Space, "{c:?}");
        }
        // Not whitespace in ECMAScript, unlike Rust's `char::is_whitespace`.
        assert_eq!(classify('\u{85}'), Class::Other);
        assert_eq!(classify('\u{180E}'), Class::Other);
    }

    #[test]
    fn number_is_every_number_category() {
        assert_eq!(classify('٣'), Class::Number); // Nd
        assert_eq!(classify('Ⅻ'), Class::Number); // Nl
        assert_eq!(classify('½'), Class::Number); // No
    }

    #[test]
    fn marks_and_letters() {
        assert!(is_mark('\u{301}'));
        assert!(!is_mark('e'));
        for c in ['ß', '中', 'ǅ'] {
            assert_eq!(classify(c), Class::Letter);
        }
        assert_eq!(classify('_'), Class::PunctuationOrSymbol);
    }
}
