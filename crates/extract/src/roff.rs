//! roff man pages (the man(7) and mdoc(7) macros) → the text `man` shows:
//! requests, macro names, comments, definitions and escapes dropped; the words
//! of headings, font and tag macros kept; tables read row by row.
//!
//! Not a roff interpreter: no macro or string is expanded (a page's own `.de`
//! definitions and `.ds` strings are skipped), so the work is one pass over the
//! lines, linear in the input whatever it holds. What `man` shows in its header
//! and footer (`.TH`, `.Dd`, `.Dt`, `.Os`) is no part of the text.

use crate::clean::TextSink;
use crate::{ExtractError, decode};
use encoding_rs::Encoding;

/// Lines of the start of a file in which a man page shows its title macro.
const TITLE_LINES: usize = 400;

/// Whether `prefix` (the decoded start of a file) is a man page: its first
/// line that is not blank is a roff request or comment, and a title macro
/// (`.TH` of man(7), `.Dd` or `.Dt` of mdoc(7)) follows within the first
/// lines (after pod2man's long preamble of definitions, too).
pub(crate) fn is_man_page(prefix: &str) -> bool {
    let prefix = prefix.trim_start_matches('\u{FEFF}');
    let mut lines = prefix.lines().filter(|line| !line.trim().is_empty());
    let Some(first) = lines.next() else { return false };
    if !(first.starts_with('.') || first.starts_with('\'')) {
        return false;
    }
    std::iter::once(first).chain(lines).take(TITLE_LINES).any(|line| {
        let request = line.strip_prefix('.').map(str::trim_start).unwrap_or_default();
        ["TH", "Dd", "Dt"].iter().any(|title| {
            request.strip_prefix(title).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
        })
    })
}

/// The text of a man page.
pub(crate) fn extract(bytes: &[u8], charset: Option<&'static Encoding>) -> Result<String, ExtractError> {
    let source = decode::decode_text(bytes, charset)?;
    Ok(to_text(&source))
}

/// What the lines read so far leave pending.
#[derive(Default)]
struct State {
    sink: TextSink,
    /// `.nf`/`.EX`: each input line is an output line.
    no_fill: bool,
    /// After `.TP`/`.TQ`: the next text line is a tag, on a line of its own.
    tag_next: bool,
    /// After `.SH` or `.SS` without words: the next text line is the heading.
    heading_next: bool,
    /// Inside `.TS`…`.TE`: `Options` until the format lines end with `.`.
    table: Table,
    /// The table's cell separator (tbl's `tab(x)` option; a tab by default).
    tab: char,
    /// mdoc's `.Nm name`, which a later `.Nm` alone repeats.
    name: String,
}

#[derive(Default, PartialEq, Eq)]
enum Table {
    #[default]
    Outside,
    Format,
    Rows,
}

fn to_text(source: &str) -> String {
    let mut state = State::default();
    // Lines skipped up to the end of a definition (`..`) or of a
    // conditional block (`\}`), counted so nested blocks end right.
    let mut skip_definition = false;
    let mut open_blocks: usize = 0;
    for line in source.lines() {
        if skip_definition {
            skip_definition = line.trim() != "..";
            continue;
        }
        if open_blocks > 0 {
            open_blocks =
                (open_blocks + line.matches("\\{").count()).saturating_sub(line.matches("\\}").count());
            continue;
        }
        let Some(request) = line.strip_prefix('.').or_else(|| line.strip_prefix('\'')) else {
            text_line(&mut state, line);
            continue;
        };
        let request = request.trim_start();
        let (name, rest) = match request.find([' ', '\t']) {
            Some(at) => (&request[..at], request[at..].trim_start()),
            None => (request, ""),
        };
        match name {
            // Definitions and ignored blocks, to their `..`.
            "de" | "de1" | "am" | "am1" | "ig" => skip_definition = true,
            // Conditionals and everything that only sets the layout or
            // defines something: no text of their own (a conditional block
            // opened by `\{` is skipped to its `\}`).
            "if" | "ie" | "el" | "while" => {
                open_blocks = line.matches("\\{").count().saturating_sub(line.matches("\\}").count());
            }
            "TS" => {
                state.table = Table::Format;
                state.tab = '\t';
                state.sink.paragraph();
            }
            "TE" => {
                state.table = Table::Outside;
                state.sink.paragraph();
            }
            "nf" | "EX" => {
                state.no_fill = true;
                state.sink.paragraph();
            }
            "fi" | "EE" => {
                state.no_fill = false;
                state.sink.paragraph();
            }
            "SH" | "SS" | "Sh" | "Ss" => {
                state.sink.paragraph();
                let words = arguments(rest);
                if words.is_empty() {
                    state.heading_next = true;
                } else {
                    state.sink.text(&unescape(&words.join(" ")));
                    state.sink.paragraph();
                }
            }
            "PP" | "LP" | "P" | "Pp" | "Lp" | "sp" | "HP" | "RS" | "RE" | "Bl" | "El" | "Bd" | "Ed"
            | "SY" | "YS" => state.sink.paragraph(),
            "br" => state.sink.line_break(),
            "TP" | "TQ" => {
                state.sink.paragraph();
                state.tag_next = true;
            }
            "IP" => {
                state.sink.paragraph();
                if let Some(tag) = arguments(rest).first() {
                    state.sink.text(&unescape(tag));
                    state.sink.line_break();
                }
            }
            // Words in a font, all of them in one (separated) or alternating
            // between two (joined: `.BR ls (1)` is "ls(1)").
            "B" | "I" | "SM" | "SB" | "CW" => {
                state.sink.text(&unescape(&arguments(rest).join(" ")));
                after_words(&mut state);
            }
            "BI" | "BR" | "IB" | "IR" | "RB" | "RI" => {
                state.sink.space();
                state.sink.text(&unescape(&arguments(rest).concat()));
                after_words(&mut state);
            }
            "OP" => state.sink.text(&format!("[{}]", unescape(&arguments(rest).join(" ")))),
            // A link's address is no text; what follows its end is.
            "UR" | "MT" => {}
            "UE" | "ME" => state.sink.text(&unescape(&arguments(rest).concat())),
            // Text whose first word may be an mdoc macro: its words, macro
            // names left out.
            _ if MDOC_TEXT.contains(&name) => mdoc_line(&mut state, name, rest),
            // Everything else sets the layout or defines something.
            _ => {}
        }
    }
    state.sink.into_string()
}

/// After the words of a line: a tag or heading ends its line, a line of
/// `.nf` text is a line, filled text goes on.
fn after_words(state: &mut State) {
    if state.heading_next {
        state.sink.paragraph();
    } else if state.tag_next || state.no_fill {
        state.sink.line_break();
    } else {
        state.sink.space();
    }
    state.tag_next = false;
    state.heading_next = false;
}

/// A line that is not a request.
fn text_line(state: &mut State, line: &str) {
    if state.table != Table::Outside {
        return table_line(state, line);
    }
    if line.trim().is_empty() {
        // A blank line in the text is a blank line in the output.
        state.sink.paragraph();
        return;
    }
    if line.starts_with([' ', '\t']) {
        state.sink.line_break();
    }
    state.sink.text(&unescape(line));
    after_words(state);
}

/// A line of a tbl(1) table: options and format lines skipped, then each
/// row's cells separated (tabs by default), rules left out.
fn table_line(state: &mut State, line: &str) {
    if state.table == Table::Format {
        // Options end with `;`, the format with `.`.
        if line.trim_end().ends_with(';')
            && let Some(at) = line.find("tab(")
            && let Some(tab) = line[at + 4..].chars().next()
        {
            state.tab = tab;
        }
        if line.trim_end().ends_with('.') {
            state.table = Table::Rows;
        }
        return;
    }
    let row = line.trim();
    if row == "_" || row == "=" || row.is_empty() {
        return;
    }
    for cell in row.split(state.tab) {
        let cell = cell.trim_start_matches("T{").trim_end_matches("T}");
        state.sink.text(&unescape(cell));
        state.sink.space();
    }
    state.sink.line_break();
}

/// mdoc macros that carry text on their line.
const MDOC_TEXT: &[&str] = &[
    "Nm", "Nd", "Fl", "Ar", "Op", "Oo", "Oc", "Pa", "Xr", "Em", "Sy", "Li", "Dv", "Ev", "Cm", "Ic", "Va",
    "Fn", "Ft", "Fa", "Vt", "It", "Ql", "Dq", "Sq", "Pq", "Qq", "Aq", "Bq", "Brq", "No", "Ns", "Xo", "Xc",
    "St", "Lb", "In", "Cd", "Er", "An", "Tn", "Ux", "Bx", "At", "Dl", "D1", "Ad", "Ms", "Mt", "Lk",
];

/// Callable mdoc macros: names inside a line that are no words of the text.
const MDOC_CALLABLE: &[&str] = &[
    "Fl", "Ar", "Op", "Oo", "Oc", "Pa", "Xr", "Em", "Sy", "Li", "Dv", "Ev", "Cm", "Ic", "Va", "Fn", "Ft",
    "Fa", "Vt", "Ql", "Dq", "Sq", "Pq", "Qq", "Aq", "Bq", "Brq", "No", "Ns", "Nm", "Xo", "Xc", "Ad", "Ms",
    "Mt", "Lk", "Tn", "Ux", "Bx", "At", "Er", "Cd",
];

/// One mdoc line: its words in order, `Fl x` as `-x`, `Xr name 1` as
/// `name(1)`, `Op …` in brackets, `Nm` alone as the page's name.
fn mdoc_line(state: &mut State, name: &str, rest: &str) {
    let words = arguments(rest);
    if name == "It" || name == "Dl" || name == "D1" {
        state.sink.line_break();
    }
    if name == "Nm" && !words.is_empty() && state.name.is_empty() {
        state.name = words[0].clone();
    }
    let mut out: Vec<String> = Vec::new();
    let mut previous = name;
    let mut closing = 0;
    if name == "Op" {
        out.push("[".into());
        closing += 1;
    }
    if name == "Nm" && words.first().is_none_or(|word| MDOC_CALLABLE.contains(&word.as_str())) {
        out.push(state.name.clone());
    }
    if name == "Nd" {
        out.push("-".into());
    }
    let mut iter = words.iter().peekable();
    while let Some(word) = iter.next() {
        let word = word.as_str();
        if MDOC_CALLABLE.contains(&word) {
            match word {
                "Op" => {
                    out.push("[".into());
                    closing += 1;
                }
                "Nm" if iter.peek().is_none_or(|next| MDOC_CALLABLE.contains(&next.as_str())) => {
                    out.push(state.name.clone())
                }
                _ => {}
            }
            previous = word;
            continue;
        }
        match previous {
            "Fl" => out.push(format!("-{}", unescape(word))),
            "Xr" => match iter.peek() {
                Some(section) if section.chars().all(|c| c.is_ascii_alphanumeric()) => {
                    out.push(format!("{}({})", unescape(word), section));
                    iter.next();
                }
                _ => out.push(unescape(word)),
            },
            _ => out.push(unescape(word)),
        }
        previous = "";
    }
    if name == "Fl" && words.is_empty() {
        out.push("-".into());
    }
    out.extend(std::iter::repeat_n("]".to_owned(), closing));
    state.sink.text(&out.join(" "));
    state.sink.space();
}

/// A request's arguments: separated by spaces, `"…"` quoting one with
/// spaces (`""` inside quotes is a quote), and a comment (`\"`) ending them.
fn arguments(rest: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut chars = rest.chars().peekable();
    loop {
        while chars.next_if(|c| *c == ' ' || *c == '\t').is_some() {}
        let Some(&first) = chars.peek() else { break };
        let mut arg = String::new();
        if first == '"' {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '"' if chars.peek() == Some(&'"') => {
                        chars.next();
                        arg.push('"');
                    }
                    '"' => break,
                    _ => arg.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == ' ' || c == '\t' {
                    break;
                }
                chars.next();
                if c == '\\' && chars.peek() == Some(&'"') {
                    // A comment: the rest of the line is none of the arguments.
                    if !arg.is_empty() {
                        args.push(arg);
                    }
                    return args;
                }
                arg.push(c);
                if c == '\\' {
                    // An escaped character is part of the argument, even a space.
                    if let Some(escaped) = chars.next() {
                        arg.push(escaped);
                    }
                }
            }
        }
        args.push(arg);
    }
    args
}

/// The text of a line with its escapes resolved: fonts, sizes, motions,
/// registers and comments dropped; special characters and the common
/// strings as the characters `man` prints.
pub(crate) fn unescape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escape) = chars.next() else { break };
        match escape {
            '"' | '#' => break,
            'e' | '\\' => out.push('\\'),
            '-' => out.push('-'),
            '.' => out.push('.'),
            '`' => out.push('`'),
            '\'' => out.push('\''),
            ' ' | '~' | '0' | 't' => out.push(' '),
            '&' | '|' | '^' | '%' | ':' | ',' | '/' | ')' | 'c' | 'd' | 'u' | 'p' | 'r' | 'a' | '{' | '}'
            | '!' | 'z' => {}
            'f' | 'n' | 'm' | 'M' | 'F' | 'g' | 'Y' | 'V' | 'k' | '$' => {
                if escape == 'n' {
                    // `\n+x`, `\n-x`: an auto-incremented register.
                    chars.next_if(|c| *c == '+' || *c == '-');
                }
                name(&mut chars);
            }
            '(' | '[' => {
                let special = if escape == '(' { two(&mut chars) } else { bracketed(&mut chars) };
                out.push_str(&special_character(&special));
            }
            '*' => out.push_str(string(&name(&mut chars))),
            's' => {
                chars.next_if(|c| *c == '+' || *c == '-');
                match chars.peek() {
                    Some('(') => {
                        chars.next();
                        two(&mut chars);
                    }
                    Some('[') | Some('\'') => {
                        name(&mut chars);
                    }
                    _ => {
                        chars.next_if(char::is_ascii_digit);
                    }
                }
            }
            'C' => out.push_str(&special_character(&delimited(&mut chars))),
            'h' | 'v' | 'w' | 'o' | 'l' | 'L' | 'N' | 'X' | 'Z' | 'b' | 'x' | 'D' | 'R' | 'S' | 'H' | 'A'
            | 'B' => {
                delimited(&mut chars);
            }
            other => out.push(other),
        }
    }
    out
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// A name after an escape: `x`, `(xx` or `[name]`.
fn name(chars: &mut Chars<'_>) -> String {
    match chars.next() {
        Some('(') => two(chars),
        Some('[') => bracketed(chars),
        Some('\'') => chars.by_ref().take_while(|c| *c != '\'').collect(),
        Some(c) => c.to_string(),
        None => String::new(),
    }
}

fn two(chars: &mut Chars<'_>) -> String {
    chars.by_ref().take(2).collect()
}

fn bracketed(chars: &mut Chars<'_>) -> String {
    chars.by_ref().take_while(|c| *c != ']').collect()
}

/// An argument between two copies of a delimiter: `'…'`.
fn delimited(chars: &mut Chars<'_>) -> String {
    match chars.next() {
        Some(delimiter) => chars.by_ref().take_while(|c| *c != delimiter).collect(),
        None => String::new(),
    }
}

/// The common strings of the man and mdoc macro packages.
fn string(name: &str) -> &'static str {
    match name {
        "lq" | "L\"" | "Lq" => "\u{201C}",
        "rq" | "R\"" | "Rq" => "\u{201D}",
        "R" | "rg" => "\u{00AE}",
        "Tm" | "tm" => "\u{2122}",
        "Aq" | "aq" | "q" => "'",
        "C+" => "C++",
        "Ba" => "|",
        _ => "",
    }
}

/// A special character by its groff name (`em`, `u00E9`, …); an unknown
/// one prints nothing, as it would print nothing readable.
fn special_character(name: &str) -> String {
    if let Some(hex) = name.strip_prefix('u')
        && let Some(c) = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
    {
        return c.to_string();
    }
    let c = match name {
        "em" => "\u{2014}",
        "en" => "\u{2013}",
        "hy" | "-" | "-D" => "-",
        "mi" => "\u{2212}",
        "bu" => "\u{2022}",
        "co" => "\u{00A9}",
        "rg" => "\u{00AE}",
        "tm" => "\u{2122}",
        "aq" => "'",
        "rs" => "\\",
        "dq" => "\"",
        "lq" => "\u{201C}",
        "rq" => "\u{201D}",
        "oq" => "\u{2018}",
        "cq" => "\u{2019}",
        "ti" | "ap" => "~",
        "ha" | "a^" => "^",
        "sl" => "/",
        "ba" | "or" => "|",
        "pl" => "+",
        "eq" => "=",
        "mu" => "\u{00D7}",
        "di" => "\u{00F7}",
        "de" => "\u{00B0}",
        "Fo" => "\u{00AB}",
        "Fc" => "\u{00BB}",
        "fo" => "\u{2039}",
        "fc" => "\u{203A}",
        "la" => "\u{27E8}",
        "ra" => "\u{27E9}",
        "<=" => "\u{2264}",
        ">=" => "\u{2265}",
        "!=" => "\u{2260}",
        "->" => "\u{2192}",
        "<-" => "\u{2190}",
        "ua" => "\u{2191}",
        "da" => "\u{2193}",
        "ss" => "\u{00DF}",
        "at" => "@",
        "sh" => "#",
        "Do" => "$",
        "ct" => "\u{00A2}",
        "Po" => "\u{00A3}",
        "Eu" | "eu" => "\u{20AC}",
        "ps" => "\u{00B6}",
        "sc" => "\u{00A7}",
        "dg" => "\u{2020}",
        "lh" => "\u{261C}",
        "rh" => "\u{261E}",
        "dd" => "\u{2021}",
        "rn" => "\u{203E}",
        "ul" => "_",
        "lB" => "[",
        "rB" => "]",
        "lC" => "{",
        "rC" => "}",
        "fm" => "\u{2032}",
        "'e" => "\u{00E9}",
        "'a" => "\u{00E1}",
        "`e" => "\u{00E8}",
        "`a" => "\u{00E0}",
        ":a" => "\u{00E4}",
        ":o" => "\u{00F6}",
        ":u" => "\u{00FC}",
        ":A" => "\u{00C4}",
        ":O" => "\u{00D6}",
        ":U" => "\u{00DC}",
        ",c" => "\u{00E7}",
        "~n" => "\u{00F1}",
        _ => "",
    };
    c.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_become_the_characters_man_prints() {
        assert_eq!(
            unescape(r"\fBls\fR \-l \(em a\ file\(cqs \*(lqname\*(rq"),
            "ls -l \u{2014} a file\u{2019}s \u{201C}name\u{201D}"
        );
        assert_eq!(
            unescape(r#"\f[B]bold\f[] \s-1SMALL\s0 \[u00E9]t\['e] x\h'2n'y \" a comment"#),
            "bold SMALL \u{e9}t\u{e9} xy "
        );
        assert_eq!(unescape(r"a\&.b\e\\c \n(.g\n[reg]d"), "a.b\\\\c d");
        // Ends of line inside an escape are no panic.
        for cut in [r"\", r"\(", r"\[ab", r"\f", r"\s+", r"\h'", r"\*("] {
            let _ = unescape(cut);
        }
    }

    #[test]
    fn requests_definitions_and_conditionals_are_no_text() {
        let page = ".\\\" a comment\n.de XX\nhidden definition\n..\n.ie n \\{\\\nhidden branch\n.\\}\n.TH LS 1\n.SH NAME\nls \\- list\n.SH DESCRIPTION\nList \\fBfiles\\fR.\n.TP\n.B \\-a\nall of them\n.PP\nSee\n.BR dir (1).\n";
        assert!(is_man_page(page));
        let text = crate::clean::finish(&to_text(page));
        assert_eq!(text, "NAME\n\nls - list\n\nDESCRIPTION\n\nList files.\n\n-a\nall of them\n\nSee dir(1).");
    }

    #[test]
    fn any_line_of_roff_characters_is_read_without_a_panic() {
        // Lines drawn from the characters that mean something to roff
        // (a simple LCG, so the run is the same every time).
        const ALPHABET: &[char] = &[
            '.', '\\', '\'', '"', '(', '[', ']', '*', 'f', 's', 'n', '{', '}', ' ', '\t', '\n', 'T', 'S',
            'H', 'P', 'B', 'R', 'I', 'a', '1', '+', '-', '@', ';', 'é',
        ];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..20_000 {
            let mut text = String::new();
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            for _ in 0..(state >> 58) {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                text.push(ALPHABET[(state >> 33) as usize % ALPHABET.len()]);
            }
            let _ = is_man_page(&text);
            let _ = to_text(&text);
        }
    }

    #[test]
    fn man_pages_are_told_from_text_that_starts_with_a_dot() {
        assert!(is_man_page(".TH X 1\n"));
        assert!(is_man_page("'\\\" t\n.TH X 1\n"));
        assert!(is_man_page(".\\\" pod2man\n.de Vb\n..\n.Dd May 1, 2020\n.Dt X 1\n"));
        assert!(!is_man_page("...and so it began.\nTH\n"));
        assert!(!is_man_page("A plain text.\n.TH X 1\n"));
    }
}
