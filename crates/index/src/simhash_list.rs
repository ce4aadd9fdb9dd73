//! Lists of simhash-doc values, the form in which two archives compare
//! collections without sharing texts: one document per line,
//! `id<TAB>simhash-doc`, and a third column, its `X` (64 hex digits), where
//! it is known. `priorart index export` writes one ([`list_line`]);
//! `priorart index add --simhash` reads one ([`read_list`]) from this or
//! any other tool that computes simhash-doc (13 base32hex digits, or 16 hex
//! digits, as `SimhashDoc` parses them).
//!
//! An id may hold any character: a tab, line feed, carriage return or
//! backslash in it is written `\t`, `\n`, `\r`, `\\`. Blank lines are
//! skipped and a line may end in CR LF. A document read from a list has no
//! sketch (the index never saw its text), so a match with it is found by
//! distance alone and reported unverified.

use crate::segment::Entry;
use priorart_fingerprint::{EqualityFingerprint, SimhashDoc};
use std::io::{BufRead, Read};

/// The longest line read (an id of up to about 64 KiB).
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// Why a list is refused (nothing of it is indexed).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ListError {
    /// The list could not be read.
    #[error("line {line}: cannot read")]
    Read {
        /// The line (1-based).
        line: u64,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A line longer than [`MAX_LINE_BYTES`].
    #[error("line {line}: longer than {MAX_LINE_BYTES} bytes")]
    TooLong {
        /// The line.
        line: u64,
    },
    /// A line that is not UTF-8.
    #[error("line {line}: not UTF-8")]
    NotUtf8 {
        /// The line.
        line: u64,
    },
    /// Not two or three tab-separated columns.
    #[error("line {line}: {columns} column(s); expected id<TAB>simhash-doc or id<TAB>simhash-doc<TAB>X")]
    Columns {
        /// The line.
        line: u64,
        /// Columns found.
        columns: usize,
    },
    /// An empty id, or a backslash not followed by `t`, `n`, `r` or `\`.
    #[error("line {line}: bad id ({detail})")]
    Id {
        /// The line.
        line: u64,
        /// What is wrong.
        detail: &'static str,
    },
    /// The second column is not a simhash-doc value.
    #[error("line {line}: {value:?} is not a simhash-doc value (13 base32hex or 16 hex digits)")]
    Simhash {
        /// The line.
        line: u64,
        /// The column (cut to a few dozen characters).
        value: String,
    },
    /// The third column is not an `X`.
    #[error("line {line}: {value:?} is not an X (64 hex digits)")]
    X {
        /// The line.
        line: u64,
        /// The column (cut to a few dozen characters).
        value: String,
    },
}

reason_names!(ListError {
    Read => "read",
    TooLong => "too_long",
    NotUtf8 => "not_utf8",
    Columns => "columns",
    Id => "id",
    Simhash => "simhash",
    X => "x",
});

/// The list line of `entry`, without its line feed: its id (escaped), its
/// simhash-doc value, and its `X` when it has one.
pub fn list_line(entry: &Entry) -> String {
    let mut line = String::with_capacity(entry.id.len() + 80);
    for c in entry.id.chars() {
        match c {
            '\t' => line.push_str("\\t"),
            '\n' => line.push_str("\\n"),
            '\r' => line.push_str("\\r"),
            '\\' => line.push_str("\\\\"),
            c => line.push(c),
        }
    }
    line.push('\t');
    line.push_str(&SimhashDoc(entry.simhash).to_string());
    if let Some(x) = entry.x {
        line.push('\t');
        line.push_str(&EqualityFingerprint(x).to_string());
    }
    line
}

/// Every document of a list, in order (entries without a sketch), or the
/// first line that is wrong.
pub fn read_list(mut reader: impl BufRead) -> Result<Vec<Entry>, ListError> {
    let mut entries = Vec::new();
    let mut bytes = Vec::new();
    for line in 1u64.. {
        bytes.clear();
        let read = Read::take(&mut reader, MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut bytes)
            .map_err(|source| ListError::Read { line, source })?;
        if read == 0 {
            break;
        }
        let content = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        if content.len() > MAX_LINE_BYTES {
            return Err(ListError::TooLong { line });
        }
        let content = content.strip_suffix(b"\r").unwrap_or(content);
        let text = std::str::from_utf8(content).map_err(|_| ListError::NotUtf8 { line })?;
        if let Some(entry) = parse_line(text, line)? {
            entries.push(entry);
        }
    }
    Ok(entries)
}

/// One line's document (`None` for a blank line).
fn parse_line(text: &str, line: u64) -> Result<Option<Entry>, ListError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let columns: Vec<&str> = text.split('\t').collect();
    let (id, simhash, x) = match columns[..] {
        [id, simhash] => (id, simhash, None),
        [id, simhash, x] => (id, simhash, Some(x)),
        _ => return Err(ListError::Columns { line, columns: columns.len() }),
    };
    let id = unescape(id).map_err(|detail| ListError::Id { line, detail })?;
    let simhash = simhash
        .trim()
        .parse::<SimhashDoc>()
        .map_err(|_| ListError::Simhash { line, value: shown(simhash) })?;
    let x = x
        .map(|x| x.trim().parse::<EqualityFingerprint>().map_err(|_| ListError::X { line, value: shown(x) }))
        .transpose()?;
    Ok(Some(Entry { id, simhash: simhash.0, x: x.map(|x| x.0), sketch: None }))
}

/// An id as written by [`list_line`].
fn unescape(escaped: &str) -> Result<String, &'static str> {
    if escaped.is_empty() {
        return Err("empty");
    }
    let mut id = String::with_capacity(escaped.len());
    let mut chars = escaped.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            id.push(c);
            continue;
        }
        id.push(match chars.next() {
            Some('t') => '\t',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('\\') => '\\',
            _ => return Err("a backslash is written \\\\"),
        });
    }
    Ok(id)
}

/// A column as an error shows it: at most 40 characters.
fn shown(column: &str) -> String {
    column.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, simhash: u64, x: Option<[u8; 32]>) -> Entry {
        Entry { id: id.to_owned(), simhash, x, sketch: None }
    }

    #[test]
    fn lines_read_back_as_written() {
        let entries = [
            entry("plain", 0x0123_4567_89ab_cdef, None),
            entry("with\ttab\nand\rbreaks \\ slash", u64::MAX, Some([7; 32])),
            entry("ünïcødé 文書", 0, Some([0xab; 32])),
        ];
        let list: String = entries.iter().map(|entry| list_line(entry) + "\n").collect();
        assert_eq!(list.lines().count(), 3, "one line per document: {list:?}");
        assert!(list.starts_with("plain\t04HKAPS9LF6UU\n"), "{list}");
        assert_eq!(read_list(list.as_bytes()).unwrap(), entries);
        // CR LF line ends, blank lines and 16 hex digits are read too.
        let crlf = "a\t0123456789abcdef\r\n\r\n\nb\t04HKAPS9LF6UU\r\n";
        let read = read_list(crlf.as_bytes()).unwrap();
        assert_eq!(read, [entry("a", 0x0123_4567_89ab_cdef, None), entry("b", 0x0123_4567_89ab_cdef, None)]);
    }

    #[test]
    fn a_wrong_line_is_named_with_its_reason() {
        let cases: [(&[u8], &str, u64); 8] = [
            (b"only-an-id\n", "columns", 1),
            (b"a\t04HKAPS9LF6UU\nb\tc\td\te\n", "columns", 2),
            (b"\t04HKAPS9LF6UU\n", "id", 1),
            (b"a\\x\t04HKAPS9LF6UU\n", "id", 1),
            (b"a\tnot-a-value\n", "simhash", 1),
            (b"a\t04HKAPS9LF6UU\tabc\n", "x", 1),
            (b"a\xff\t04HKAPS9LF6UU\n", "not_utf8", 1),
            (b"a\t04HKAPS9LF6UU\t\t\n", "columns", 1),
        ];
        for (list, reason, line) in cases {
            let err = read_list(list).unwrap_err();
            assert_eq!(err.reason(), reason, "{err}");
            assert!(err.to_string().starts_with(&format!("line {line}:")), "{err}");
        }
        let long = format!("{}\t04HKAPS9LF6UU\n", "a".repeat(MAX_LINE_BYTES));
        assert_eq!(read_list(long.as_bytes()).unwrap_err().reason(), "too_long");
        let longest = format!("{}\t04HKAPS9LF6UU\n", "a".repeat(MAX_LINE_BYTES - 14));
        assert_eq!(read_list(longest.as_bytes()).unwrap().len(), 1);
    }
}
