//! PDF → text, from the text layer, with `pdf_oxide`.
//!
//! `pdf_oxide`'s page text pass orders text blocks by column and joins most
//! line-end hyphens; we drop running heads and page numbers (lines recurring at
//! the top or bottom of many pages) and join the hyphens it leaves (`exam-` / `ple` → `example` when a
//! lower-case letter follows). The parser runs in a worker thread with a large
//! stack, under `catch_unwind`, and is abandoned when the time budget runs out:
//! PDF parsers have open reports of panics and runaway loops on hostile files,
//! and none of that may take the caller down.

use crate::budget::Budget;
use crate::{ExtractError, Limits};
use pdf_oxide::PdfDocument;
use pdf_oxide::converters::ConversionOptions;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// Stack of the PDF worker: deep (but finite) object graphs recurse.
const WORKER_STACK_BYTES: usize = 64 << 20;

pub(crate) fn extract(bytes: &[u8], limits: &Limits, budget: &Budget) -> Result<String, ExtractError> {
    let data = bytes.to_vec();
    let max_pages = limits.max_pdf_pages;
    let worker_budget = *budget;
    let (sender, receiver) = mpsc::channel();
    thread::Builder::new()
        .name("priorart-pdf".into())
        .stack_size(WORKER_STACK_BYTES)
        .spawn(move || {
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| read(data, max_pages, &worker_budget)));
            // The receiver is gone only if the caller already gave up on us.
            let _ = sender.send(outcome);
        })
        .map_err(|err| ExtractError::Unsupported(format!("cannot start the PDF worker thread: {err}")))?;
    let wait = budget.remaining().unwrap_or(Duration::from_secs(u64::from(u32::MAX)));
    match receiver.recv_timeout(wait) {
        Ok(Ok(result)) => result,
        Ok(Err(payload)) => Err(ExtractError::ParserPanic(panic_message(payload.as_ref()))),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(ExtractError::Timeout { limit: budget.limit() }),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(ExtractError::ParserPanic("worker ended early".into()))
        }
    }
}

fn read(data: Vec<u8>, max_pages: usize, budget: &Budget) -> Result<String, ExtractError> {
    let document = PdfDocument::from_bytes(data).map_err(pdf_error)?;
    let pages = document.page_count().map_err(pdf_error)?;
    if pages > max_pages {
        return Err(ExtractError::TooLarge { size: pages as u64, limit: max_pages as u64 });
    }
    let options = ConversionOptions { extract_tables: true, ..Default::default() };
    let mut page_texts = Vec::with_capacity(pages);
    let mut first_error = None;
    for page in 0..pages {
        budget.check()?;
        match document.extract_text_with_options(page, &options) {
            Ok(page_text) => page_texts.push(page_text),
            Err(err) => {
                first_error.get_or_insert(err);
            }
        }
    }
    let text = without_running_heads(&page_texts);
    match first_error {
        // A page that cannot be read fails the document only if no page could be.
        Some(err) if text.trim().is_empty() => Err(pdf_error(err)),
        _ if text.trim().is_empty() => Err(ExtractError::NoTextLayer),
        _ => Ok(join_hyphenated_lines(&text)),
    }
}

/// Lines at the top or bottom of a page that recur (digits and roman numerals
/// aside) on at least a quarter of the pages, and on three or more: running heads
/// and feet, page numbers. Other media of the same document do not have them.
fn without_running_heads(pages: &[String]) -> String {
    let edges = |page: &str| -> Vec<String> {
        let lines: Vec<&str> = page.lines().filter(|l| !l.trim().is_empty()).collect();
        let mut edge: Vec<&str> = lines.iter().take(2).chain(lines.iter().rev().take(2)).copied().collect();
        edge.dedup();
        edge.into_iter().map(running_head_key).collect()
    };
    let mut counts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for page in pages {
        let mut keys = edges(page);
        keys.sort();
        keys.dedup();
        for key in keys {
            *counts.entry(key).or_default() += 1;
        }
    }
    let threshold = (pages.len() / 4).max(3);
    let is_running = |line: &str| counts.get(&running_head_key(line)).is_some_and(|&n| n >= threshold);
    let mut text = String::new();
    for page in pages {
        let lines: Vec<&str> = page.lines().collect();
        let content: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].trim().is_empty()).collect();
        let edge: Vec<usize> = content.iter().take(2).chain(content.iter().rev().take(2)).copied().collect();
        for (i, line) in lines.iter().enumerate() {
            if !(edge.contains(&i) && is_running(line)) {
                text.push_str(line);
                text.push('\n');
            }
        }
        text.push('\n');
    }
    text
}

/// A line with digits, roman numerals and `/` removed, lower-cased: page `ii`
/// and page `3 / 57` of the same running head get the same key.
fn running_head_key(line: &str) -> String {
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c.is_ascii_digit() || c == '/')
        .filter(|w| !w.is_empty() && !w.chars().all(|c| "ivxlcdm".contains(c)))
        .collect();
    words.join(" ")
}

fn pdf_error(err: pdf_oxide::Error) -> ExtractError {
    match err {
        pdf_oxide::Error::CircularReference(object) => ExtractError::CyclicPdf(format!("object {object:?}")),
        pdf_oxide::Error::EncryptedPdf => ExtractError::Encrypted("PDF"),
        other => ExtractError::malformed("PDF", other),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic without a message".into())
}

/// Joins `word-` at a line end with the next line when that starts with a
/// lower-case letter: typeset hyphenation, not a compound such as `Franco-British`.
pub(crate) fn join_hyphenated_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_end();
        let next_starts_lower =
            lines.peek().and_then(|next| next.trim_start().chars().next()).is_some_and(char::is_lowercase);
        let hyphen_after_letter = trimmed
            .strip_suffix(['-', '\u{2010}'])
            .and_then(|stem| stem.chars().next_back())
            .is_some_and(char::is_alphabetic);
        if hyphen_after_letter && next_starts_lower {
            out.push_str(&trimmed[..trimmed.len() - trimmed.chars().next_back().map_or(0, char::len_utf8)]);
            if let Some(next) = lines.next() {
                let next = next.trim_start();
                let (rest_of_word, rest) =
                    next.split_at(next.find(char::is_whitespace).unwrap_or(next.len()));
                out.push_str(rest_of_word);
                out.push('\n');
                out.push_str(rest.trim_start());
            }
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_heads_are_dropped() {
        let pages: Vec<String> = ["alpha", "beta", "gamma", "delta"]
            .iter()
            .enumerate()
            .map(|(n, word)| format!("Guide {n} / 4\nBody {word}.\nMore {word}.\nGuide {n} / 4\n"))
            .chain(["Guide iv\nPreface body.\n".to_string()])
            .collect();
        let text = without_running_heads(&pages);
        assert!(!text.contains("Guide"), "{text}");
        assert!(text.contains("Body gamma.\nMore gamma.") && text.contains("Preface body."), "{text}");
        // Two pages are not enough to call a line a running head.
        assert!(without_running_heads(&pages[..2]).contains("Guide 1 / 4"));
    }

    #[test]
    fn hyphens_at_line_ends_are_joined() {
        assert_eq!(
            join_hyphenated_lines("a short ar-\nticle here\nFranco-\nBritish"),
            "a short article\nhere\nFranco-\nBritish\n"
        );
    }
}
