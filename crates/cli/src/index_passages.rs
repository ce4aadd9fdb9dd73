//! Passage lookups in a local index (`index query --passages`, `check
//! --index`): the options and how an answer is printed. The lookup is
//! the index crate's (`Index::query_passages`), so that the Python
//! package finds the same passages.

use clap::Args as ClapArgs;
use priorart_index::{PassageAnswer, PassageSearch};
use std::io::Write;

/// How a passage lookup is asked.
#[derive(ClapArgs, Debug, Clone)]
pub(crate) struct PassageArgs {
    /// Fewest words (stopwords included; two Chinese, Japanese or Thai
    /// letters count one) of a passage reported, on FILE's side.
    #[arg(long, value_name = "N", default_value_t = PassageSearch::DEFAULT_MIN_WORDS)]
    min_words: usize,
    /// Fewest winnowing marks a passage shares with an indexed document.
    #[arg(long, value_name = "N", default_value_t = PassageSearch::DEFAULT_MIN_MARKS)]
    min_marks: u32,
    /// A passage held by more indexed documents than this is boilerplate:
    /// reported once, pairing nothing.
    #[arg(long, value_name = "DOCS", default_value_t = PassageSearch::DEFAULT_BOILERPLATE)]
    boilerplate: u32,
    /// Smallest share of FILE's winnowing marks in a passage that the
    /// indexed document holds there (1 for a verbatim copy, about 0.6 with
    /// one word in ten replaced).
    #[arg(long, value_name = "SHARE", default_value_t = PassageSearch::DEFAULT_MIN_SIMILARITY)]
    min_similarity: f64,
}

impl PassageArgs {
    /// The search asked for, checked (at least one word, one mark, two
    /// documents, a share of 0 to 1).
    pub(crate) fn search(&self) -> Result<PassageSearch, crate::exit::UsageError> {
        let bad = |what: &str| Err(crate::exit::UsageError(what.to_owned()));
        if self.min_words == 0 {
            return bad("--min-words must be at least 1");
        }
        if self.min_marks == 0 {
            return bad("--min-marks must be at least 1");
        }
        if self.boilerplate < 2 {
            return bad("--boilerplate must be at least 2 documents");
        }
        if !(0.0..=1.0).contains(&self.min_similarity) {
            return bad("--min-similarity must be 0 to 1");
        }
        Ok(PassageSearch {
            min_words: self.min_words,
            min_marks: self.min_marks,
            boilerplate: self.boilerplate,
            min_similarity: self.min_similarity,
        })
    }
}

/// Characters of a passage's text shown (`--json` has all of it).
const SHOWN_CHARS: usize = 120;

/// The answer for FILE `name` (text `text`) for people.
pub(crate) fn write_answer(
    out: &mut impl Write,
    name: &str,
    text: &str,
    answer: &PassageAnswer,
) -> std::io::Result<()> {
    let passages: usize = answer.documents.iter().map(|found| found.passages.len()).sum();
    writeln!(
        out,
        "{name}: {} in {} indexed document(s) ({} winnowing marks looked up)",
        counted(passages, "shared passage"),
        answer.documents.len(),
        answer.marks
    )?;
    for found in &answer.documents {
        writeln!(
            out,
            "  {}: {}, {} shared marks",
            found.id,
            counted(found.passages.len(), "passage"),
            found.marks
        )?;
        for passage in &found.passages {
            let span = &passage.text;
            let words = priorart_align::word_count(&text[span.bytes()]);
            writeln!(
                out,
                "    chars {}..{} ({words} words) ~ bytes {}..{} of {}: {} marks, similarity {:.2}",
                span.char_offset,
                span.char_offset + span.char_length,
                passage.indexed.start,
                passage.indexed.end,
                found.id,
                passage.marks,
                passage.similarity
            )?;
            writeln!(out, "      \"{}\"", shown(&text[span.bytes()]))?;
        }
    }
    for boilerplate in &answer.boilerplate {
        let span = &boilerplate.text;
        writeln!(
            out,
            "  boilerplate: chars {}..{}, held by {} indexed documents or more: \"{}\"",
            span.char_offset,
            span.char_offset + span.char_length,
            boilerplate.documents,
            shown(&text[span.bytes()])
        )?;
    }
    Ok(())
}

/// The start of a passage on one line.
fn shown(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

fn counted(n: usize, noun: &str) -> String {
    crate::counted(n as u64, noun)
}
