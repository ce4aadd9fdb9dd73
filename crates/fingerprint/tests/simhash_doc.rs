//! `vectors/simhash-doc.json` and `vectors/simhash-doc-v2.json`: the
//! published test vectors of `simhash-doc` and `simhash-doc-v2`.
//!
//! The inputs are listed here, the same for both; each file holds them with
//! priorart's answers (tokens, 64-bit hex, base32hex) and is checked in
//! full. To regenerate them after a deliberate change of inputs (never of
//! answers: a scheme is frozen once published), run
//!
//! ```sh
//! PRIORART_REGENERATE_VECTORS=1 cargo test -p priorart-fingerprint --test integration simhash_doc
//! ```

use priorart_fingerprint::{
    Fingerprint, Fingerprinter, Scheme, SimhashDoc, TokenRule, explain_simhash_doc, hashlittle2,
};
use serde::{Deserialize, Serialize};

/// The vector file of the scheme of `rule`.
fn vectors_path(rule: TokenRule) -> String {
    let scheme = rule.simhash_scheme();
    format!("{}/../../vectors/{scheme}.json", env!("CARGO_MANIFEST_DIR"))
}

/// (name, input) of every case, in file order.
fn inputs() -> Vec<(&'static str, String)> {
    let jabberwocky = "'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\nAll mimsy were the borogoves,\nAnd the mome raths outgrabe.";
    let mut cases: Vec<(&'static str, String)> = vec![
        ("empty", ""),
        ("whitespace only", " \t\r\n\u{A0}\u{3000}\u{2028}"),
        ("punctuation only", "!!! ??? ... --- ***"),
        ("numbers only", "1 22 333 4.5 6,789 2024-01-01 ١٢٣ ๑๒๓"),
        ("single letter", "a"),
        ("single word", "Jabberwock"),
        ("two words tie at zero", "a b"),
        ("repetition counts", "the the the cat"),
        ("repetition counts, once", "the cat"),
        ("case folds", "HELLO Hello hello hELLo"),
        ("english sentence", "The quick brown fox jumps over the lazy dog."),
        ("jabberwocky", jabberwocky),
        ("apostrophes and hyphens", "Don't stop: a well-known state-of-the-art O'Reilly book"),
        ("underscores are word characters", "snake_case __init__ _ a_1 1_a"),
        ("alphanumeric kept, numbers dropped", "COVID19 B2B 3D mp3 H2O 42 1e10"),
        ("urls dropped", "Read https://example.org/a?b=1 and http://x.y/z, then ftp://files.example.net now"),
        ("www and email dropped", "Visit www.Example.com or mail someone@example.org (or @handle) today"),
        (
            "doi and identifiers dropped",
            "See doi:10.1000/182 and 10.1038/nphys1170. Also arXiv:1706.03762 urn:isbn:0451450523",
        ),
        ("dotted words are not urls", "e.g. i.e. U.S.A. end. Mr. Smith"),
        ("markdown link", "[the spec](https://example.org/spec) says so"),
        ("german", "Die Straße ist groß. ÜBER ÄRGER Öl STRASSE"),
        ("french precomposed", "Café, déjà vu, naïve façade, élève"),
        (
            "french decomposed",
            "Cafe\u{301}, de\u{301}ja\u{300} vu, nai\u{308}ve fac\u{327}ade, e\u{301}le\u{300}ve",
        ),
        ("greek final sigma", "ΟΔΥΣΣΕΥΣ Οδυσσεύς οδυσσευς ΌΣΟΣ"),
        ("russian", "Съешь же ещё этих мягких французских булок, да выпей чаю. ЁЛКА ёлка"),
        ("ukrainian", "Гей, хлопці, не вспію — на ґанку ваша файна їжа знищується бурундучком."),
        ("turkish dotted i", "İstanbul ISTANBUL ıstakoz Iğdır"),
        ("arabic with harakat", "اللُّغَةُ الْعَرَبِيَّةُ جميلة"),
        ("arabic tatweel", "عـــربي عربي"),
        ("persian zwnj", "می\u{200C}خواهم کتاب\u{200C}ها"),
        ("hebrew with niqqud", "שָׁלוֹם עוֹלָם שלום עולם"),
        ("hindi devanagari", "हिंदी भाषा भारत की राजभाषा है।"),
        ("bengali", "আমার সোনার বাংলা"),
        ("tamil", "தமிழ் மொழி"),
        ("thai without spaces", "ภาษาไทยเป็นภาษาที่สวยงาม"),
        ("chinese", "中文信息处理，自然语言。"),
        ("japanese mixed", "日本語のテキスト、カタカナとひらがな。ＡＢＣ１２３（全角）"),
        ("korean precomposed", "한국어 텍스트 처리"),
        ("korean conjoining jamo", "\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}\u{110B}\u{1165}"),
        ("mixed scripts", "Tokyo東京 Москва2024 Αθήνα-Athens"),
        ("emoji", "I ❤️ 🍕 and 👩‍👩‍👧‍👦 family 🇫🇷 👍🏽"),
        (
            "zero width characters join",
            "zero\u{200B}width soft\u{AD}hyphen word\u{2060}joiner bom\u{FEFF}here zw\u{200D}j",
        ),
        ("variation selectors", "a\u{FE0F}b 葛\u{E0100}飾"),
        ("ligatures and compatibility", "ﬁnd ﬂow ﬀ Ⅻ ½ x² ⓐⓑⓒ ＦＵＬＬ ℌ𝔢𝔩𝔩𝔬 𝐁𝐨𝐥𝐝"),
        ("combining marks alone", "\u{301}\u{308} a\u{301}\u{301} \u{20DD}"),
        ("non-bmp letters", "𐌰𐌱𐌲 𠀀𠀁 𝒜𝒷"),
        ("controls and nul", "ab\u{0}cd\u{7}ef\u{1F}gh\u{85}ij"),
        ("nbsp and other spaces", "one\u{A0}two\u{2009}three\u{3000}four\u{1680}five"),
        ("rtl and ltr marks", "abc\u{200F}def \u{202E}ghi\u{202C}"),
        ("line breaks", "line\none\r\nline\ttwo\u{2029}para"),
        ("chinese sentence", "但它也常常保留了某些不再开发的软件包版本。"),
        ("chinese with latin and digits", "Debian的apt工具在第3章介绍，Linux内核2.6版本"),
        ("japanese sentence", "パッケージの依存関係を確認してください。コーヒーと人々"),
        ("half-width katakana", "ｶﾀｶﾅ ﾃｷｽﾄ"),
        ("thai marks", "นักเรียนไปโรงเรียน ภาษาไทย"),
        ("lao", "ພາສາລາວ"),
        ("khmer", "ភាសាខ្មែរ"),
        ("myanmar", "မြန်မာဘာသာ"),
        ("devanagari spacing marks", "हिंदी किताब पढ़ना"),
        ("korean with hanja", "한국어 韓國語 텍스트"),
    ]
    .into_iter()
    .map(|(name, input)| (name, input.to_owned()))
    .collect();
    cases.push(("long repeated text", "All work and no play makes Jack a dull boy. ".repeat(300)));
    let paragraph = "Similarity hashing is often used as an optimization on top of similarity measures: \
        the hashes of all documents are pre-computed and then sorted, and only those documents within a \
        fixed distance in the sorted list need to be compared.";
    cases.push(("paragraph", paragraph.to_owned()));
    cases.push(("paragraph, one word changed", paragraph.replace("sorted list", "sorted table")));
    cases.push(("paragraph, upper case", paragraph.to_uppercase()));
    cases
}

/// Tokens whose lookup3 feature is listed on its own.
const FEATURE_TOKENS: [&str; 12] = [
    "",
    "a",
    "the",
    "jabberwock",
    "Jabberwock",
    "hello world",
    "Four score and seven years ago",
    "été",
    "twelve bytes",
    "thirteen bytes",
    "中文",
    "𐌰𐌱𐌲",
];

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Vectors {
    scheme: String,
    specification: String,
    unicode_version: String,
    regenerate: String,
    features: Vec<Feature>,
    cases: Vec<Case>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Feature {
    token: String,
    utf8_hex: String,
    c: String,
    b: String,
    feature: String,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Case {
    name: String,
    input: String,
    tokens: Vec<String>,
    hex: String,
    base32: String,
}

fn generate(rule: TokenRule) -> Vectors {
    let features = FEATURE_TOKENS
        .iter()
        .map(|token| {
            let hash = hashlittle2(token.as_bytes(), 0, 0);
            Feature {
                token: (*token).to_owned(),
                utf8_hex: token.bytes().map(|b| format!("{b:02x}")).collect(),
                c: format!("{:08x}", hash.c),
                b: format!("{:08x}", hash.b),
                feature: format!("{:016X}", hash.feature()),
            }
        })
        .collect();
    let cases = inputs()
        .into_iter()
        .map(|(name, input)| {
            let explanation = explain_simhash_doc(&input, rule);
            let value = explanation.fingerprint;
            Case {
                name: name.to_owned(),
                tokens: explanation.tokens,
                hex: value.to_hex(),
                base32: value.to_string(),
                input,
            }
        })
        .collect();
    let scheme = rule.simhash_scheme();
    Vectors {
        scheme: scheme.id().to_owned(),
        specification: format!("docs/{scheme}.md"),
        unicode_version: "17.0.0".to_owned(),
        regenerate:
            "PRIORART_REGENERATE_VECTORS=1 cargo test -p priorart-fingerprint --test integration simhash_doc"
                .to_owned(),
        features,
        cases,
    }
}

fn published(rule: TokenRule) -> Vectors {
    let text = std::fs::read_to_string(vectors_path(rule)).expect("the vector file is in the repository");
    serde_json::from_str(&text).expect("the vector file is valid JSON")
}

#[test]
fn vectors_match_the_published_files() {
    for rule in TokenRule::ALL {
        if std::env::var_os("PRIORART_REGENERATE_VECTORS").is_some() {
            let json = serde_json::to_string_pretty(&generate(rule)).expect("vectors serialize");
            std::fs::write(vectors_path(rule), json + "\n").expect("the vector file is writable");
            eprintln!("regenerated {}", vectors_path(rule));
            continue;
        }
        let (published, generated) = (published(rule), generate(rule));
        assert_eq!(published.features, generated.features);
        assert_eq!(published.cases.len(), generated.cases.len(), "inputs were added: regenerate");
        for (want, got) in published.cases.iter().zip(&generated.cases) {
            assert_eq!(want, got, "{rule}: case {:?}", want.name);
        }
        assert_eq!(published, generated);
    }
}

/// The published values through every public entry point, not only the
/// explanation the generator uses.
#[test]
fn every_entry_point_agrees_with_the_vectors() {
    let mut fingerprinter = Fingerprinter::new();
    for rule in TokenRule::ALL {
        let scheme = rule.simhash_scheme();
        let simhash_doc = match rule {
            TokenRule::V1 => priorart_fingerprint::simhash_doc,
            TokenRule::V2 => priorart_fingerprint::simhash_doc_v2,
        };
        for case in published(rule).cases {
            let value: SimhashDoc = case.base32.parse().expect("base32 parses");
            assert_eq!(value.to_hex(), case.hex, "{}", case.name);
            assert_eq!(simhash_doc(&case.input), value, "{}", case.name);
            assert_eq!(fingerprinter.simhash_doc(&case.input, rule), value, "{}", case.name);
            let literal = priorart_fingerprint::simhash_doc_by_definition(&case.input, rule);
            assert_eq!(literal, value, "{}", case.name);
            let both = fingerprinter.fingerprint(&case.input, &[Scheme::MinhashEqualityV1, scheme]);
            assert_eq!(both[1], Fingerprint::SimhashDoc(value), "{}", case.name);
            assert_eq!(both[1].to_string(), case.base32);
        }
    }
}

/// The two schemes differ only where v2 cuts differently: on letters of
/// scripts written without spaces and on spacing marks (all of which, in
/// these inputs, are Indic, U+0900 to U+0DFF).
#[test]
fn the_schemes_differ_only_on_unspaced_scripts_and_spacing_marks() {
    let (v1, v2) = (published(TokenRule::V1).cases, published(TokenRule::V2).cases);
    let mut differ = 0;
    for (one, two) in v1.iter().zip(&v2) {
        let affected = one
            .input
            .chars()
            .any(|c| priorart_fingerprint::is_unspaced(c) || matches!(c, '\u{0900}'..='\u{0DFF}'));
        if one.tokens != two.tokens {
            assert!(affected, "{}: {:?} / {:?}", one.name, one.tokens, two.tokens);
            differ += 1;
        }
        assert_eq!(one.hex == two.hex, one.tokens == two.tokens, "{}", one.name);
    }
    assert!(differ >= 15, "only {differ} cases tell the rules apart");
    let find = |name: &str| v2.iter().find(|c| c.name == name).expect("case exists");
    assert_eq!(find("chinese sentence").tokens[..3], ["但它", "它也", "也常"]);
    assert_eq!(find("devanagari spacing marks").tokens, ["हिंदी", "किताब", "पढ़ना"]);
}

/// The weights are occurrence counts, the tie rule gives 0, and a simhash
/// of one token is its feature: checked from the features alone.
#[test]
fn vectors_follow_the_counting_rules() {
    let cases = published(TokenRule::V1).cases;
    let find = |name: &str| cases.iter().find(|c| c.name == name).expect("case exists");
    let feature = |token: &str| hashlittle2(token.as_bytes(), 0, 0).feature();
    assert_eq!(find("empty").hex, "0000000000000000");
    assert_eq!(find("numbers only").tokens, Vec::<String>::new());
    assert_eq!(find("single letter").hex, format!("{:016X}", feature("a")));
    assert_eq!(find("single word").hex, format!("{:016X}", feature("jabberwock")));
    assert_eq!(find("two words tie at zero").hex, format!("{:016X}", feature("a") & feature("b")));
    // Three "the" and one "cat": "the" wins every bit.
    assert_eq!(find("repetition counts").hex, format!("{:016X}", feature("the")));
    // Once each: a tie wherever they differ.
    assert_eq!(find("repetition counts, once").hex, format!("{:016X}", feature("the") & feature("cat")));
    assert_eq!(find("french precomposed").hex, find("french decomposed").hex);
    assert_eq!(find("paragraph").hex, find("paragraph, upper case").hex);
    let (a, b) =
        (find("paragraph").base32.parse::<SimhashDoc>(), find("paragraph, one word changed").base32.parse());
    let distance = a.expect("parses").distance(b.expect("parses"));
    assert!(distance <= 12, "one changed word of 40 moved {distance} bits");
}
