//! XML → text: JATS and TEI articles by their structure, any other vocabulary as
//! the text of all its elements.
//!
//! quick-xml streams the events; no DTD is read, so neither external entities nor
//! entity-expansion bombs can reach us. Named references are resolved from the
//! XML and HTML5 entity tables (which cover what the JATS and TEI DTDs declare);
//! unknown ones are dropped.
//!
//! - JATS (`<article>`): from `<front>` only the article title, subtitle and
//!   abstracts; then body, back matter (references, acknowledgements,
//!   appendices, footnotes) and floats (figure captions, tables).
//! - TEI (`<TEI>`): from `<teiHeader>` only the title statement's titles and the
//!   abstract; then the whole `<text>`, without running heads (`fw`) and
//!   editorial alternatives (`sic`, `orig`, `abbr` inside `choice`).
//! - Both: identifiers (`pub-id`, `ext-link`, `uri`, `email`, `idno`, `ptr`, …)
//!   and TeX sources of formulas are dropped.

use crate::budget::Budget;
use crate::clean::TextSink;
use crate::{ExtractError, Limits, decode};
use encoding_rs::Encoding;
use quick_xml::escape::{resolve_html5_entity, resolve_xml_entity};
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::reader::Reader;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Jats,
    Tei,
    Generic,
}

/// Identifiers and non-text in any dialect.
const SKIPPED: &[&str] = &[
    "pub-id",
    "ext-link",
    "uri",
    "self-uri",
    "object-id",
    "email",
    "issn",
    "isbn",
    "tex-math",
    "alt-text",
    "permissions",
    "idno",
    "ptr",
    "fw",
    "facsimile",
    "sourceDoc",
    "annotation",
    "annotation-xml",
    "graphic",
    "inline-graphic",
    "processing-meta",
    "custom-meta-group",
];

/// JATS and TEI elements that are part of a word or sentence: no separator at
/// their edges. (In other vocabularies every element separates words.)
const INLINE: &[&str] = &[
    "italic",
    "bold",
    "sup",
    "sub",
    "sc",
    "monospace",
    "underline",
    "overline",
    "roman",
    "sans-serif",
    "strike",
    "named-content",
    "styled-content",
    "inline-formula",
    "abbrev",
    "hi",
    "emph",
    "foreign",
    "term",
    "mentioned",
    "soCalled",
    "seg",
    "w",
    "c",
    "pc",
    "choice",
    "corr",
    "reg",
    "expan",
    "abbr",
    "add",
    "unclear",
    "supplied",
    "emphasis",
    "i",
    "b",
    "em",
    "strong",
    "span",
    "a",
    "phrase",
    "quote",
    "q",
    "rs",
];

/// Elements that end a paragraph.
const BLOCKS: &[&str] = &[
    "p",
    "sec",
    "title",
    "article-title",
    "subtitle",
    "abstract",
    "trans-abstract",
    "caption",
    "fig",
    "table-wrap",
    "disp-quote",
    "boxed-text",
    "ack",
    "app",
    "fn",
    "statement",
    "body",
    "back",
    "ref-list",
    "head",
    "div",
    "ab",
    "lg",
    "figure",
    "figDesc",
    "listBibl",
    "note",
    "para",
    "simpara",
    "section",
    "chapter",
    "sect1",
    "sect2",
    "sect3",
    "list",
    "table",
];

/// Elements that end a line.
const LINES: &[&str] =
    &["tr", "row", "l", "item", "list-item", "ref", "bibl", "biblStruct", "listitem", "def-item", "lb"];

/// Decodes `bytes` (see `decode::decode_xml`) and extracts the text.
pub(crate) fn extract(
    bytes: &[u8],
    transport: Option<&'static Encoding>,
    limits: &Limits,
    budget: &Budget,
) -> Result<String, ExtractError> {
    let source = decode::decode_xml(bytes, transport)?;
    extract_str(&source, limits, budget)
}

struct Walker<'a> {
    limits: &'a Limits,
    dialect: Option<Dialect>,
    /// Local names of the open elements.
    stack: Vec<String>,
    /// Depth of the skipped element we are inside, if any.
    skip_depth: Option<usize>,
    /// Open metadata containers (`front`, `teiHeader`), and open kept parts of them.
    in_metadata: usize,
    in_kept_metadata: usize,
    sink: TextSink,
}

pub(crate) fn extract_str(source: &str, limits: &Limits, budget: &Budget) -> Result<String, ExtractError> {
    let mut reader = Reader::from_str(source);
    let config = reader.config_mut();
    config.allow_dangling_amp = true;
    config.allow_unmatched_ends = true;
    config.check_end_names = false;
    let mut walker = Walker {
        limits,
        dialect: None,
        stack: Vec::new(),
        skip_depth: None,
        in_metadata: 0,
        in_kept_metadata: 0,
        sink: TextSink::default(),
    };
    for step in 0u64.. {
        if step % 4096 == 0 {
            budget.check()?;
        }
        let event = reader.read_event().map_err(|err| {
            ExtractError::malformed("XML", format!("{err} at byte {}", reader.error_position()))
        })?;
        match event {
            Event::Start(start) => walker.open(&start)?,
            Event::Empty(start) => {
                walker.open(&start)?;
                walker.close();
            }
            Event::End(_) => walker.close(),
            Event::Text(text) => walker.text(&text.xml10_content()),
            Event::CData(data) => walker.text(&data.xml10_content()),
            Event::GeneralRef(reference) => walker.reference(&reference),
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    Ok(walker.sink.into_string())
}

impl Walker<'_> {
    fn open(&mut self, start: &BytesStart<'_>) -> Result<(), ExtractError> {
        let local = start.local_name();
        let name: &str = local.as_ref();
        if self.stack.len() >= self.limits.max_depth {
            return Err(ExtractError::TooDeep { limit: self.limits.max_depth });
        }
        let dialect = *self.dialect.get_or_insert_with(|| dialect_of(name));
        let parent = self.stack.last().cloned().unwrap_or_default();
        self.stack.push(name.to_owned());
        let depth = self.stack.len();
        if self.skip_depth.is_some() {
            return Ok(());
        }
        let parent = parent.as_str();
        if is_skipped(dialect, name, parent, start) {
            self.skip_depth = Some(depth);
            return Ok(());
        }
        if is_metadata_container(dialect, name) {
            self.in_metadata += 1;
        } else if self.in_metadata > 0 && is_kept_metadata(dialect, name, parent) {
            self.in_kept_metadata += 1;
        }
        self.separate(name, start);
        Ok(())
    }

    fn close(&mut self) {
        let depth = self.stack.len();
        let Some(name) = self.stack.pop() else { return };
        if self.skip_depth == Some(depth) {
            self.skip_depth = None;
            return;
        }
        if self.skip_depth.is_some() {
            return;
        }
        let dialect = self.dialect.unwrap_or(Dialect::Generic);
        let parent = self.stack.last().map(String::as_str).unwrap_or("");
        if is_metadata_container(dialect, &name) {
            self.in_metadata = self.in_metadata.saturating_sub(1);
        } else if self.in_metadata > 0 && is_kept_metadata(dialect, &name, parent) {
            self.in_kept_metadata = self.in_kept_metadata.saturating_sub(1);
        }
        if !matches!(name.as_str(), "lb" | "pb" | "cb") {
            self.separate_end(&name);
        }
    }

    fn emitting(&self) -> bool {
        self.skip_depth.is_none() && (self.in_metadata == 0 || self.in_kept_metadata > 0)
    }

    fn text(&mut self, text: &str) {
        if self.emitting() {
            self.sink.text(text);
        }
    }

    fn reference(&mut self, reference: &BytesRef<'_>) {
        if !self.emitting() {
            return;
        }
        if reference.is_char_ref() {
            if let Ok(Some(ch)) = reference.resolve_char_ref() {
                self.sink.text(ch.encode_utf8(&mut [0; 4]));
            }
            return;
        }
        let name = reference.xml10_content();
        if let Some(value) = resolve_xml_entity(&name).or_else(|| resolve_html5_entity(&name)) {
            self.sink.text(value);
        }
    }

    /// Separator at an element's start: TEI `<lb break="no"/>` joins a word.
    fn separate(&mut self, name: &str, start: &BytesStart<'_>) {
        if matches!(name, "lb" | "pb" | "cb") && attribute_is(start, "break", "no") {
            return;
        }
        self.separate_end(name);
    }

    /// Separators only take effect before the next emitted text, so they need
    /// no guard for skipped or metadata regions.
    fn separate_end(&mut self, name: &str) {
        let inline = self.dialect != Some(Dialect::Generic) && INLINE.contains(&name);
        if BLOCKS.contains(&name) {
            self.sink.paragraph();
        } else if LINES.contains(&name) && name != "lb" {
            self.sink.line_break();
        } else if !inline {
            self.sink.space();
        }
    }
}

fn dialect_of(root: &str) -> Dialect {
    match root {
        "article" => Dialect::Jats,
        "TEI" | "TEI.2" | "teiCorpus" => Dialect::Tei,
        _ => Dialect::Generic,
    }
}

fn is_skipped(dialect: Dialect, name: &str, parent: &str, start: &BytesStart<'_>) -> bool {
    if dialect == Dialect::Generic {
        return false;
    }
    SKIPPED.contains(&name)
        || (parent == "choice" && matches!(name, "sic" | "orig" | "abbr"))
        || (name == "note" && attribute_is(start, "type", "raw_reference"))
}

fn is_metadata_container(dialect: Dialect, name: &str) -> bool {
    match dialect {
        Dialect::Jats => matches!(name, "front" | "front-stub"),
        Dialect::Tei => name == "teiHeader",
        Dialect::Generic => false,
    }
}

fn is_kept_metadata(dialect: Dialect, name: &str, parent: &str) -> bool {
    match dialect {
        Dialect::Jats => {
            matches!(name, "abstract" | "trans-abstract")
                || (matches!(parent, "title-group" | "trans-title-group")
                    && matches!(name, "article-title" | "subtitle" | "trans-title" | "trans-subtitle"))
        }
        Dialect::Tei => name == "abstract" || (parent == "titleStmt" && name == "title"),
        Dialect::Generic => false,
    }
}

fn attribute_is(start: &BytesStart<'_>, key: &str, value: &str) -> bool {
    matches!(start.try_get_attribute(key), Ok(Some(attr)) if attr.value == value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(xml: &str) -> String {
        let limits = Limits::default();
        crate::clean::finish(&extract_str(xml, &limits, &Budget::start(limits.max_time)).unwrap())
    }

    #[test]
    fn generic_xml_is_all_text() {
        assert_eq!(text("<?xml version='1.0'?><a><b>one</b><c>two &amp; &#x33;</c></a>"), "one two & 3");
    }

    #[test]
    fn jats_front_is_reduced_to_title_and_abstract() {
        let xml = "<article><front><journal-meta><journal-title>J</journal-title></journal-meta>\
            <article-meta><title-group><article-title>Mills</article-title></title-group>\
            <contrib-group><contrib><name><surname>Doe</surname></name></contrib></contrib-group>\
            <abstract><p>Short.</p></abstract></article-meta></front>\
            <body><p>Tidal <italic>mills</italic><xref>1</xref>.</p></body>\
            <back><ref-list><ref><mixed-citation><person-group><name><surname>Minchinton</surname>\
            <given-names>W</given-names></name></person-group>. Early tide mills. \
            <pub-id pub-id-type=\"doi\">10.2307/3104116</pub-id></mixed-citation></ref></ref-list></back></article>";
        assert_eq!(text(xml), "Mills\n\nShort.\n\nTidal mills 1 .\n\nMinchinton W . Early tide mills.");
    }

    #[test]
    fn tei_line_breaks_inside_words() {
        let xml = "<TEI><teiHeader><fileDesc><titleStmt><title>Poem</title></titleStmt>\
            <publicationStmt><idno>x</idno><p>Publisher</p></publicationStmt></fileDesc></teiHeader>\
            <text><body><p>moun<lb break=\"no\"/>tain<lb/>river<fw>12</fw></p></body></text></TEI>";
        assert_eq!(text(xml), "Poem\n\nmountain river");
    }

    #[test]
    fn depth_is_limited() {
        let deep = "<a>".repeat(600);
        let limits = Limits::default();
        let err = extract_str(&deep, &limits, &Budget::start(limits.max_time)).unwrap_err();
        assert_eq!(err, ExtractError::TooDeep { limit: 512 });
    }
}
