//! The text every extractor produces, and the final clean-up shared by all formats.
//!
//! Extractors feed a [`TextSink`] with text runs and structural breaks; [`finish`]
//! then normalizes whitespace and drops URLs and identifiers, the same way for
//! every format, so that the same document in two media yields the same words.

/// Collects text runs, collapsing whitespace, and turns block boundaries into
/// line or paragraph breaks.
#[derive(Debug, Default)]
pub(crate) struct TextSink {
    out: String,
    pending_space: bool,
    pending_break: Break,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Break {
    #[default]
    None,
    Line,
    Paragraph,
}

impl TextSink {
    /// Appends a run of text; runs of whitespace become one space.
    pub(crate) fn text(&mut self, run: &str) {
        for ch in run.chars() {
            if ch.is_whitespace() {
                self.pending_space = true;
            } else {
                self.flush_separator();
                self.out.push(ch);
            }
        }
    }

    /// Separates what follows from what precedes by at least a space (table cells,
    /// inline elements that are not part of a word).
    pub(crate) fn space(&mut self) {
        self.pending_space = true;
    }

    /// Ends the current line (list items, table rows, `<br>`).
    pub(crate) fn line_break(&mut self) {
        self.pending_break = self.pending_break.max(Break::Line);
    }

    /// Ends the current paragraph (block elements).
    pub(crate) fn paragraph(&mut self) {
        self.pending_break = Break::Paragraph;
    }

    pub(crate) fn into_string(self) -> String {
        self.out
    }

    fn flush_separator(&mut self) {
        if !self.out.is_empty() {
            match self.pending_break {
                Break::Paragraph => self.out.push_str("\n\n"),
                Break::Line => self.out.push('\n'),
                Break::None if self.pending_space => self.out.push(' '),
                Break::None => {}
            }
        }
        self.pending_space = false;
        self.pending_break = Break::None;
    }
}

/// Final form of extracted text: words separated by single spaces, lines kept,
/// runs of blank lines collapsed to one, soft hyphens and control characters
/// removed, URLs and identifiers dropped.
pub(crate) fn finish(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut blank_pending = false;
    for line in raw.lines() {
        if line.trim().is_empty() {
            blank_pending = true;
            continue;
        }
        let mut first = true;
        let mut kept_any = false;
        for word in line.split(|c: char| c.is_whitespace() || (c.is_control() && c != '\u{AD}')) {
            let word = word.trim_matches('\u{AD}');
            if word.is_empty() || is_identifier(word) {
                continue;
            }
            if first {
                if !out.is_empty() {
                    out.push_str(if blank_pending { "\n\n" } else { "\n" });
                }
                first = false;
            } else {
                out.push(' ');
            }
            out.extend(word.chars().filter(|&c| c != '\u{AD}'));
            kept_any = true;
        }
        if kept_any {
            blank_pending = false;
        }
    }
    out
}

/// Opening punctuation that may wrap a URL or identifier in running text.
const OPENERS: &[char] = &['(', '[', '{', '<', '"', '\'', '“', '‘', '«'];
/// Closing punctuation that may follow one.
const CLOSERS: &[char] = &[')', ']', '}', '>', '"', '\'', '”', '’', '»', '.', ',', ';', ':', '!', '?'];

/// Is `word` (one whitespace-delimited token) a URL, DOI, e-mail address or other
/// identifier, whose tokens the lsh-interop spec says not to hash?
///
/// The first of two layers: simhash-doc drops identifier chunks again by its
/// own definition (`priorart-fingerprint`'s `simhash_tokens.rs`), for text that
/// did not come through extraction. This one drops a superset; the shared cases
/// are in `crates/cli/tests/identifier_layers.rs`.
pub(crate) fn is_identifier(word: &str) -> bool {
    let core = word.trim_start_matches(OPENERS).trim_end_matches(CLOSERS);
    if core.is_empty() {
        return false;
    }
    let lower = core.to_ascii_lowercase();
    const PREFIXES: &[&str] =
        &["doi:", "urn:", "arxiv:", "hdl:", "pmid:", "pmcid:", "isbn:", "issn:", "mailto:", "www.", "orcid:"];
    lower.contains("://")
        || PREFIXES.iter().any(|p| lower.starts_with(p))
        || lower == "doi"
        || is_doi(&lower)
        || is_email(&lower)
        || is_orcid(&lower)
        || is_bare_url(&lower)
}

/// `10.NNNN/suffix`, the DOI syntax of ISO 26324.
fn is_doi(word: &str) -> bool {
    let Some(rest) = word.strip_prefix("10.") else { return false };
    let Some((registrant, suffix)) = rest.split_once('/') else { return false };
    (4..=9).contains(&registrant.len())
        && registrant.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && !suffix.is_empty()
}

fn is_email(word: &str) -> bool {
    let Some((local, domain)) = word.split_once('@') else { return false };
    !local.is_empty() && domain.contains('.') && !domain.starts_with('.') && !domain.ends_with('.')
}

/// `0000-0002-1825-009X`
fn is_orcid(word: &str) -> bool {
    let groups: Vec<&str> = word.split('-').collect();
    groups.len() == 4
        && groups.iter().all(|g| g.len() == 4)
        && groups[..3].iter().all(|g| g.bytes().all(|b| b.is_ascii_digit()))
        && groups[3].bytes().enumerate().all(|(i, b)| b.is_ascii_digit() || (i == 3 && b == b'x'))
}

/// `example.org/path`: a host name with a top-level domain, then a path.
fn is_bare_url(word: &str) -> bool {
    let Some((host, _path)) = word.split_once('/') else { return false };
    let Some((name, tld)) = host.rsplit_once('.') else { return false };
    !name.is_empty()
        && (2..=6).contains(&tld.len())
        && tld.bytes().all(|b| b.is_ascii_lowercase())
        && host.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_recognized() {
        for id in [
            "https://example.org/a",
            "(http://x.y/z).",
            "doi:10.1000/182",
            "10.1371/journal.pone.0000001",
            "DOI",
            "someone@example.org",
            "<mailto:a@b.c>",
            "www.example.com",
            "0000-0002-1825-009X",
            "arXiv:2101.00001",
            "dx.doi.org/10.1/x",
        ] {
            assert!(is_identifier(id), "{id}");
        }
        for word in ["and/or", "1.5", "U.S.", "e.g.", "mills", "10.5", "km/h", "Figure"] {
            assert!(!is_identifier(word), "{word}");
        }
    }

    #[test]
    fn finish_collapses_and_drops() {
        let raw = "  Tidal\tmills  see https://x.org/a \n\n\n\nsoft\u{AD}hyphen  \nonly doi:10.1/2\n\nend";
        assert_eq!(finish(raw), "Tidal mills see\n\nsofthyphen\nonly\n\nend");
        assert_eq!(finish("https://a.b/c\n\nword"), "word");
    }

    #[test]
    fn sink_separates_blocks() {
        let mut sink = TextSink::default();
        sink.paragraph();
        sink.text("  a  b ");
        sink.line_break();
        sink.text("c");
        sink.space();
        sink.text("d");
        sink.paragraph();
        sink.paragraph();
        sink.text("e");
        assert_eq!(sink.into_string(), "a b\nc d\n\ne");
    }
}
