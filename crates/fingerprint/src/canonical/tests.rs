use super::*;

fn canonical(input: &str) -> (String, Vec<String>) {
    let mut c = Canonical::default();
    c.fill(input);
    let tokens = c.token_strs().map(str::to_owned).collect();
    (c.text, tokens)
}

/// Fewer than `max` of `pieces`, chosen by `rng`, one after another.
fn spliced(rng: &mut fastrand::Rng, pieces: &[&str], max: usize) -> String {
    (0..rng.usize(..max)).map(|_| pieces[rng.usize(..pieces.len())]).collect()
}

#[test]
fn every_combining_character_is_a_mark() {
    // The per-character NFKD of `Canonical::fold` relies on this.
    use icu_properties::CodePointMapData;
    use icu_properties::props::CanonicalCombiningClass;
    let ccc = CodePointMapData::<CanonicalCombiningClass>::new();
    for c in (0..=0x10FFFF).filter_map(char::from_u32) {
        if ccc.get(c) != CanonicalCombiningClass::NotReordered {
            assert!(unicode::is_mark(c), "{c:?} combines but is not a mark");
        }
    }
}

#[test]
fn lowercasing_keeps_the_backward_sigma_context() {
    // `FoldCache::folded_in_context` reads the context before a sigma
    // from the folded text, which relies on this for every character
    // that the unmarked text can hold (any but a mark).
    for c in (0..=0x10FFFF).filter_map(char::from_u32).filter(|&c| !unicode::is_mark(c)) {
        let mut buf = [0; 4];
        let lowered = CASE_MAPPER.lowercase_to_string(c.encode_utf8(&mut buf), &LanguageIdentifier::UNKNOWN);
        let folded = unicode::cased_first(chars_before(lowered.as_bytes()));
        assert_eq!(folded, unicode::cased_first(std::iter::once(c)), "{c:?}");
    }
}

#[test]
fn folding_per_character_equals_icu_on_the_whole_text() {
    // `Canonical::fold` folds character by character, with the sigma
    // context read around each capital sigma; ICU4X here runs NFKD and
    // lowercasing on the whole text at once.
    const PIECES: &[&str] = &[
        "Σ",
        "ΑΣ",
        "σ",
        "ς",
        "\u{3F9}",
        "\u{1D6BA}",
        "\u{301}",
        "'",
        ".",
        " ",
        "a",
        "B",
        "İ",
        "ﬁ",
        "Ａ",
        "\u{345}",
        "ǅ",
        "ẞ",
        "½",
        "x\u{307}",
        "\u{200B}",
        ":",
        "ὈΔΥΣΣΕΎΣ",
        "é",
        "\u{FDFA}",
        "Ⓢ",
        "\u{AD}",
        "\u{1F3FB}",
        "1",
        "\u{2B0}",
        "\u{2160}",
        "\u{130}\u{3A3}",
    ];
    let mut rng = fastrand::Rng::with_seed(0x2545_F491_4F6C_DD1D);
    let mut canonical = Canonical::default();
    for _ in 0..20_000 {
        let text = spliced(&mut rng, PIECES, 9);
        canonical.fold::<false>(&text);
        let unmarked: String = NFKD.normalize(&text).chars().filter(|&c| !unicode::is_mark(c)).collect();
        let expected =
            CASE_MAPPER.lowercase(&unmarked, &LanguageIdentifier::UNKNOWN).write_to_string().into_owned();
        assert_eq!(canonical.folded, expected + PADDING, "{text:?}");
    }
}

/// What [`push_ascii_lowercase`] with [`json_plain_lanes`] should make
/// of `body`, read a byte at a time: the folded bytes up to the first
/// that stops, whitespace escapes as two spaces where both their bytes
/// are in one whole word (the last bytes, fewer than eight, stop at
/// every escape).
fn json_plain_by_bytes(body: &[u8]) -> (Vec<u8>, usize) {
    let (mut out, mut at) = (Vec::new(), 0);
    let words = body.len() / 8 * 8;
    while let Some(&b) = body.get(at) {
        let in_a_word = at + 1 < words && at / 8 == (at + 1) / 8;
        if in_a_word && b == b'\\' && b"nrtf".contains(&body[at + 1]) {
            out.extend_from_slice(b"  ");
            at += 2;
        } else if b.is_ascii() && b != b'"' && b != b'\\' && b >= 0x20 {
            out.push(b.to_ascii_lowercase());
            at += 1;
        } else {
            break;
        }
    }
    (out, at)
}

#[test]
fn json_whitespace_escapes_are_spaces_in_every_lane() {
    const BYTES: &[u8] = b"\\\\nrtfu\"aZ \x01\x1f\x7f\x80\xc3";
    let mut rng = fastrand::Rng::with_seed(0x0123_4567_89AB_CDEF);
    for _ in 0..200_000 {
        let body: Vec<u8> = (0..rng.usize(..20)).map(|_| BYTES[rng.usize(..BYTES.len())]).collect();
        let mut out = Vec::new();
        let end = push_ascii_lowercase(&body, 0, &mut out, json_plain_lanes);
        assert_eq!((out, end), json_plain_by_bytes(&body), "{body:?}");
    }
}

#[test]
fn stand_ins_tokenize_as_what_they_stand_for() {
    // Tokens of the token path (with stand-ins, from text and from a
    // JSON body) equal the tokens of the canonical text (without).
    const PIECES: &[&str] = &[
        "word",
        "Σ",
        "ΑΣ",
        " ",
        "\u{A0}",
        "\u{3000}",
        "\u{2028}",
        "\u{FEFF}",
        "\u{200B}",
        "—",
        "…",
        "\u{2019}",
        "'",
        "\u{B7}",
        "\u{5E}",
        "\u{2E2F}",
        "٣",
        "½",
        "1",
        "https://",
        "http:",
        "//",
        "x",
        "\u{1F150}",
        "\u{24C8}",
        "é",
    ];
    let mut rng = fastrand::Rng::with_seed(0x3C6E_F372_FE94_F82B);
    let (mut canonical, mut reference) = (Canonical::default(), Canonical::default());
    for _ in 0..20_000 {
        let text = spliced(&mut rng, PIECES, 24);
        reference.fill(&text);
        let expected: Vec<String> = reference.token_strs().map(str::to_owned).collect();
        let mut tokens = Vec::new();
        canonical.for_each_token(&text, |token| tokens.push(token.text.to_owned()));
        assert_eq!(tokens, expected, "{text:?}");
        let json = serde_json::to_string(&text).expect("strings serialize");
        tokens.clear();
        let read = canonical.for_each_token_of_json(&json[1..], |token| tokens.push(token.text.to_owned()));
        assert_eq!(read.map(|(_, len)| len), Ok(json.len() - 2));
        assert_eq!(tokens, expected, "{text:?}");
    }
}

#[test]
fn stand_ins_are_ascii_of_the_same_class() {
    let mut stood_in = 0;
    for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
        let Some(ascii) = stand_in(c.encode_utf8(&mut [0; 4])) else { continue };
        let ascii = char::from(ascii);
        assert_eq!(unicode::classify(ascii), unicode::classify(c), "{c:?}");
        assert_eq!(unicode::cased_first(Some(ascii).into_iter()), unicode::cased_first(Some(c).into_iter()));
        assert_ne!(unicode::classify(c), Class::Letter, "{c:?}");
        stood_in += 1;
    }
    assert!(stood_in > 5000, "{stood_in}");
}

#[test]
fn swar_classes_agree_with_the_byte_table() {
    for b in 0..=255u8 {
        for lane in 0..8 {
            let mut word = [b'a'; 8];
            word[lane] = b;
            let word = u64::from_le_bytes(word);
            let bit = 0x80u64 << (8 * lane);
            let class = BYTES[usize::from(b)];
            assert_eq!(ascii_letter_bits(word) & bit != 0, class == Byte::Letter, "{b:#x}");
            assert_eq!(non_separator_bits(word) & bit == 0, class == Byte::Separator, "{b:#x}");
            let mut out = Vec::new();
            let end = push_ascii_lowercase(&word.to_le_bytes(), 0, &mut out, |word| (word & HIGH_BITS, 0));
            assert_eq!(end, if b.is_ascii() { 8 } else { lane }, "{b:#x}");
            assert_eq!(out, word.to_le_bytes()[..end].to_ascii_lowercase(), "{b:#x}");
        }
    }
}

#[test]
fn block_path_equals_the_byte_path() {
    // Texts that put URLs, colons, digits, non-ASCII letters and
    // zero-width characters everywhere around the edges of blocks.
    const PIECES: &[&str] = &[
        "word",
        "Letters",
        "x",
        " ",
        "  ",
        ". ",
        ",",
        "-",
        ":",
        "://",
        "http",
        "https",
        "http://a.b/c",
        "xhttps://y",
        "12",
        "3.5",
        "é",
        "中",
        "\u{200B}",
        "\u{200D}",
        "\u{FEFF}",
        "\u{A0}",
        "—",
        "\u{1}",
        "\t",
        "\n",
        "ΑΣ",
        "a1b",
        "longerthaneightletters",
        "quiteabitlongerthansixteenletters",
    ];
    let mut rng = fastrand::Rng::with_seed(0x5DEE_CE66_D1CE_4E5B);
    let mut canonical = Canonical::default();
    for _ in 0..20_000 {
        let text = spliced(&mut rng, PIECES, 80);
        canonical.fold::<false>(&text);
        let by = |blocks: bool| {
            let (mut text, mut tokens) = (String::new(), Vec::new());
            let mut writer = Writer {
                folded: &canonical.folded,
                text: &mut text,
                tokens: &mut tokens,
                pending_space: false,
                token: None,
            };
            if blocks {
                scan::<true>(&canonical.folded, &mut writer);
            } else {
                scan::<false>(&canonical.folded, &mut writer);
            }
            writer.end_token();
            (text, tokens)
        };
        assert_eq!(by(true), by(false), "{text:?}");
    }
}

#[test]
fn token_lengths_are_utf16_units() {
    let mut c = Canonical::default();
    c.fill("𝔞𝔟 abc ĳ");
    let lengths: Vec<usize> = c.tokens.iter().map(|t| t.utf16_len).collect();
    assert_eq!(c.text, "ab abc ij");
    assert_eq!(lengths, [2, 3, 2]);
    c.fill("中文𐐀 num");
    assert_eq!(c.tokens.iter().map(|t| t.utf16_len).collect::<Vec<_>>(), [4, 3]);
}

#[test]
fn spec_examples() {
    assert_eq!(canonical("Café déjà vu").0, "cafe deja vu");
    assert_eq!(canonical("  a1b  ").0, "a num b");
    assert_eq!(canonical("see https://x.org/a?b=1 now").0, "see url now");
    assert_eq!(canonical("!!! ??? ...").0, "");
    assert_eq!(canonical("ΌΣΟΣ").0, "οσος");
}

#[test]
fn url_rule_runs_before_zero_width_removal() {
    // U+200B is not whitespace: it stays inside the URL.
    assert_eq!(canonical("a https://x\u{200B}y b").0, "a url b");
    // U+FEFF is ECMAScript whitespace: it ends the URL, then is deleted.
    assert_eq!(canonical("a https://x\u{FEFF}yz b").0, "a url yz b");
    // A zero-width character splitting the scheme defeats the URL rule.
    assert_eq!(canonical("http\u{200B}://x").0, "http x");
    assert_eq!(canonical("http:// x").0, "http x");
}

#[test]
fn urls_inside_letter_runs() {
    assert_eq!(canonical("xhttp://a b").0, "x url b");
    assert_eq!(canonical("xxhttps://a b").0, "xx url b");
    assert_eq!(canonical("https: http").0, "https http");
    assert_eq!(canonical("abc: d").0, "abc d");
}

#[test]
fn final_sigma_context_crosses_ascii() {
    assert_eq!(canonical("ΑΣ b").0, "ας b");
    assert_eq!(canonical("ΑΣb").0, "ασb");
    assert_eq!(canonical("aΣ").0, "aς");
    assert_eq!(canonical("Σ").0, "σ");
    assert_eq!(canonical("a.Σ").0, "a ς"); // `.` is case-ignorable
}

#[test]
fn zero_width_joins_neighbours() {
    assert_eq!(canonical("1\u{200B}2").0, "num");
    assert_eq!(canonical("ab\u{200D}cd"), ("abcd".into(), vec!["abcd".into()]));
}

#[test]
fn other_characters_split_tokens_but_stay_in_text() {
    assert_eq!(canonical("ab\u{AD}cd"), ("ab\u{AD}cd".into(), vec!["ab".into(), "cd".into()]));
    assert_eq!(canonical("\u{0}"), ("\u{0}".into(), vec![]));
}

#[test]
fn low_bytes_is_the_128_bit_shift_it_replaces() {
    for len in 1..=16u32 {
        assert_eq!(super::low_bytes(len), u128::MAX >> (128 - 8 * len), "{len}");
    }
}
