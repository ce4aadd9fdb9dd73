//! What front ends print about passages, written once: the JSON document
//! (`priorart-passages/1`: the CLI's `compare --passages --json` and the
//! Python package's typed results) and PAN's text-alignment XML, which
//! PAN's evaluators score.

use crate::Passage;
use serde::Serialize;
use serde_json::Value;

/// The JSON document's format name.
pub const FORMAT: &str = "priorart-passages/1";

/// What the offsets count, as the JSON document states it.
pub const OFFSETS: &str = "offsets count from the start of each document's text: characters (Unicode scalar \
     values) and bytes of its UTF-8; for a plain-text file the decoded file, for other formats the extracted \
     text (`priorart extract`)";

/// A text and the name it is reported under.
#[derive(Debug, Clone, Copy)]
pub struct Named<'t> {
    /// The name (a file name, a reference).
    pub name: &'t str,
    /// The text the passages were found in.
    pub text: &'t str,
}

/// The `priorart-passages/1` document: both texts' names and sizes, and
/// each passage with its offsets, its text on each side and its similarity.
pub fn json(a: Named<'_>, b: Named<'_>, passages: &[Passage]) -> Value {
    serde_json::to_value(document(a, b, passages)).expect("a passages document serializes")
}

/// [`json`] as text, its members in the documented order whatever map
/// serde_json is built with (a binding without `preserve_order` writes the
/// same bytes as the CLI).
pub fn json_text(a: Named<'_>, b: Named<'_>, passages: &[Passage]) -> String {
    serde_json::to_string(&document(a, b, passages)).expect("a passages document serializes")
}

/// The typed `priorart-passages/1` document ([`json_text`]).
pub fn document<'t>(a: Named<'t>, b: Named<'t>, passages: &'t [Passage]) -> Document<'t> {
    let text = |named: Named<'t>| Text {
        name: named.name,
        chars: named.text.chars().count(),
        bytes: named.text.len(),
    };
    Document {
        format: FORMAT,
        offsets: OFFSETS,
        a: text(a),
        b: text(b),
        passages: passages.iter().map(|passage| Shared::of(a.text, b.text, passage)).collect(),
    }
}

/// The `priorart-passages/1` document, its members in their documented order.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "PassagesReport"))]
pub struct Document<'t> {
    /// Always [`FORMAT`].
    #[cfg_attr(feature = "schema", schemars(extend("const" = FORMAT)))]
    format: &'static str,
    /// What the offsets count ([`OFFSETS`]).
    offsets: &'static str,
    /// The first text.
    a: Text<'t>,
    /// The second text.
    b: Text<'t>,
    /// The passages they share, in the order of the first text.
    passages: Vec<Shared<'t>>,
}

/// One of the two texts of a [`Document`].
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "PassagesText"))]
struct Text<'t> {
    /// The name it is reported under (a file name, a reference).
    name: &'t str,
    /// Its length in characters (Unicode scalar values).
    chars: usize,
    /// Its length in bytes of UTF-8.
    bytes: usize,
}

/// One passage as the `priorart-passages/1` document writes it (its
/// `passages` members): where it is (and its text) in each text, its
/// similarity and seeds. `dedup --passages` writes these too, so both
/// read alike.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "Passage"))]
pub struct Shared<'t> {
    /// Where it is in the first text (and its text there).
    a: Side<'t>,
    /// Where it is in the second text (and its text there).
    b: Side<'t>,
    /// How alike the two sides are (shared content words, Dice: 0 to 1).
    similarity: f64,
    /// How many seeds (shared word n-grams) it was found from.
    seeds: usize,
}

impl<'t> Shared<'t> {
    /// `passage`, found between `a` and `b`, with its text on each side.
    pub fn of(a: &'t str, b: &'t str, passage: &Passage) -> Shared<'t> {
        Shared::with_texts(Some([a, b]), passage)
    }

    /// `passage` with its text on each side when `texts` (the first text and
    /// the second) are given, else with its offsets alone.
    pub fn with_texts(texts: Option<[&'t str; 2]>, passage: &Passage) -> Shared<'t> {
        let side = |text: Option<&'t str>, span: &crate::Span| Side {
            char_offset: span.char_offset,
            char_length: span.char_length,
            byte_offset: span.byte_offset,
            byte_length: span.byte_length,
            text: text.map(|text| &text[span.bytes()]),
        };
        Shared {
            a: side(texts.map(|[a, _]| a), &passage.a),
            b: side(texts.map(|[_, b]| b), &passage.b),
            similarity: passage.similarity,
            seeds: passage.seeds,
        }
    }
}

/// One side of a passage.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "PassageSide"))]
struct Side<'t> {
    /// Its first character's offset, in characters.
    char_offset: usize,
    /// Its length in characters.
    char_length: usize,
    /// Its first byte's offset in the UTF-8 text.
    byte_offset: usize,
    /// Its length in bytes.
    byte_length: usize,
    /// Its text: always in the `priorart-passages/1` document; in a
    /// `dedup --passages` line only when asked for (`--passage-text`), as
    /// a collection's shared passages can outweigh the collection.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    text: Option<&'t str>,
}

/// PAN's detection file for the pair: one `detected-plagiarism` feature
/// per passage, `this_*` in the first text (PAN's suspicious document),
/// `source_*` in the second, offsets and lengths in characters.
pub fn pan_xml(this_reference: &str, source_reference: &str, passages: &[Passage]) -> String {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!("<document reference=\"{}\">\n", escape(this_reference)));
    for passage in passages {
        xml.push_str(&format!(
            "<feature name=\"detected-plagiarism\" this_offset=\"{}\" this_length=\"{}\" source_reference=\"{}\" \
             source_offset=\"{}\" source_length=\"{}\"/>\n",
            passage.a.char_offset,
            passage.a.char_length,
            escape(source_reference),
            passage.b.char_offset,
            passage.b.char_length,
        ));
    }
    xml.push_str("</document>\n");
    xml
}

/// `text` as an XML attribute value (in double quotes). Characters XML 1.0
/// cannot hold at all (most controls) become U+FFFD.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\t' | '\n' | '\r' => escaped.push_str(&format!("&#{};", u32::from(c))),
            c if c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' => escaped.push('\u{FFFD}'),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_values_are_escaped() {
        assert_eq!(escape(r#"a&b<c>"d'"#), "a&amp;b&lt;c&gt;&quot;d'");
        assert_eq!(escape("x\ny\u{1}"), "x&#10;y\u{FFFD}");
    }
}
