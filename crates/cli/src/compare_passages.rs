//! `priorart compare --passages A B`: the passages two documents share
//! ([`priorart_align`]), printed side by side for people, as the
//! `priorart-passages/1` JSON document, or as PAN's XML.

use crate::input;
use anyhow::Result;
use priorart_align::report::{self, Named};
use priorart_align::{Passage, Span};
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

/// How the passages are printed.
pub enum Output {
    SideBySide,
    Json,
    Pan,
}

/// Characters per column of the side-by-side view.
const COLUMN: usize = 58;
/// Lines of text shown per passage side by side; `--json` has all of it.
const MAX_LINES: usize = 16;

pub fn run(a_name: &str, b_name: &str, document: &input::DocumentArgs, output: Output) -> Result<ExitCode> {
    let a = input::read_document(a_name, document)?.text;
    let b = input::read_document(b_name, document)?.text;
    let passages = priorart_align::align(&a, &b)?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match output {
        Output::Json => {
            let document =
                report::json(Named { name: a_name, text: &a }, Named { name: b_name, text: &b }, &passages);
            writeln!(out, "{document}")?;
        }
        Output::Pan => {
            out.write_all(report::pan_xml(&reference(a_name), &reference(b_name), &passages).as_bytes())?
        }
        Output::SideBySide => write_side_by_side(&mut out, (a_name, &a), (b_name, &b), &passages)?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A document's name in PAN's XML: its file name, as PAN's corpora name
/// documents (`suspicious-document00001.txt`).
fn reference(name: &str) -> String {
    Path::new(name).file_name().map_or_else(|| name.to_owned(), |file| file.to_string_lossy().into_owned())
}

fn write_side_by_side(
    out: &mut impl Write,
    (a_name, a): (&str, &str),
    (b_name, b): (&str, &str),
    passages: &[Passage],
) -> io::Result<()> {
    if passages.is_empty() {
        return writeln!(out, "no passage shared between {a_name} and {b_name}");
    }
    let shared: usize = passages.iter().map(|p| p.a.char_length).sum();
    writeln!(
        out,
        "{} passage{} shared; {shared} of {}'s {} characters are in one",
        passages.len(),
        if passages.len() == 1 { "" } else { "s" },
        a_name,
        a.chars().count(),
    )?;
    writeln!(
        out,
        "(offsets: characters of the text as read; `priorart extract` prints it for other formats)"
    )?;
    for (number, passage) in passages.iter().enumerate() {
        writeln!(out)?;
        writeln!(
            out,
            "passage {}: similarity {:.2}, {} seeds",
            number + 1,
            passage.similarity,
            passage.seeds
        )?;
        writeln!(out, "{:COLUMN$} │ {}", where_in(a_name, &passage.a), where_in(b_name, &passage.b))?;
        writeln!(out, "{:─<COLUMN$}─┼─{:─<COLUMN$}", "", "")?;
        let left = wrap(&a[passage.a.bytes()], COLUMN);
        let right = wrap(&b[passage.b.bytes()], COLUMN);
        let lines = left.len().max(right.len());
        for line in 0..lines.min(MAX_LINES) {
            let cell = |column: &[String]| column.get(line).cloned().unwrap_or_default();
            let left_cell = cell(&left);
            let pad = COLUMN.saturating_sub(left_cell.chars().count());
            writeln!(out, "{left_cell}{:pad$} │ {}", "", cell(&right))?;
        }
        if lines > MAX_LINES {
            writeln!(out, "… {} more lines (--json has the whole text)", lines - MAX_LINES)?;
        }
    }
    Ok(())
}

/// "a.txt chars 120..980" for a passage's side.
fn where_in(name: &str, span: &Span) -> String {
    format!("{name} chars {}..{}", span.char_offset, span.chars().end)
}

/// `text` with its white space collapsed, cut into lines of at most `width`
/// characters at spaces (a longer word is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut line_chars = 0;
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > width {
            if line_chars > 0 {
                lines.push(std::mem::take(&mut line));
                line_chars = 0;
            }
            lines.push(word.drain(..width).collect());
        }
        if line_chars > 0 && line_chars + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
            line_chars = 0;
        }
        if line_chars > 0 {
            line.push(' ');
            line_chars += 1;
        }
        line.extend(word.iter());
        line_chars += word.len();
    }
    if line_chars > 0 {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wrapping_keeps_every_word_within_the_width() {
        let lines = wrap("one  two\nthree four fivesixseveneight", 9);
        assert_eq!(lines, ["one two", "three", "four", "fivesixse", "veneight"]);
        assert!(wrap(" \n ", 9).is_empty());
    }
}
