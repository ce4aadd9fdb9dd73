//! A lookup in a local near-duplicate index and how its answer is printed:
//! shared by `index query` and `check --index`, so that both say the same.

use anyhow::Result;
use priorart_fingerprint::{EqualityFingerprint, Fingerprinter, Scheme, Shingling, SimhashDoc};
pub(crate) use priorart_index::Answer;
use priorart_index::{AnswerJson, Index, Query};
use std::io::Write;

/// One lookup: its name (the file, or the value looked up), the query and
/// the scheme of its simhash-doc value (the index's; none for `X` alone).
pub(crate) struct Lookup {
    name: String,
    query: Query,
    scheme: Option<Scheme>,
}

impl Lookup {
    /// A document's lookup: its simhash-doc, X and shingle sketch (cut by
    /// the index's shingling).
    pub(crate) fn of_text(
        name: &str,
        text: &str,
        shingling: Shingling,
        fingerprinter: &mut Fingerprinter,
    ) -> Lookup {
        Lookup {
            name: name.to_owned(),
            query: Query::of_text(text, shingling, fingerprinter),
            scheme: Some(shingling.token_rule().simhash_scheme()),
        }
    }

    /// A lookup of one `X` alone (no text: no near copies, no similarity).
    pub(crate) fn of_x(x: &EqualityFingerprint) -> Lookup {
        Lookup { name: x.to_string(), query: Query::of_x(x.0), scheme: None }
    }

    /// A lookup of one simhash-doc value alone (no similarity estimate), of
    /// the index's `shingling`'s scheme.
    pub(crate) fn of_simhash(simhash: SimhashDoc, shingling: Shingling) -> Lookup {
        let scheme = Some(shingling.token_rule().simhash_scheme());
        Lookup { name: simhash.to_string(), query: Query::of_simhash(simhash.0), scheme }
    }

    /// What is looked up: the file's name, or the value.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The X looked up, if any (a document's lookup always has one).
    pub(crate) fn x(&self) -> Option<EqualityFingerprint> {
        self.query.x.map(EqualityFingerprint)
    }

    /// The documents of `index` within `k` bits, and those with the same X.
    pub(crate) fn run(&self, index: &Index, k: u32) -> Result<Answer> {
        Ok(index.query(&self.query, k)?)
    }
}

/// One lookup's answer as the JSON object `index query --json` prints
/// ([`priorart_index::AnswerJson`], whose schema is in `schemas/`).
pub(crate) fn answer_json<'a>(lookup: &'a Lookup, answer: &'a Answer) -> AnswerJson<'a> {
    AnswerJson::new(&lookup.name, &lookup.query, lookup.scheme, answer)
}

/// One lookup's answer as `index query` prints it.
pub(crate) fn write_answer(
    out: &mut impl Write,
    lookup: &Lookup,
    answer: &Answer,
    k: u32,
) -> std::io::Result<()> {
    let Answer { near, same_x } = answer;
    writeln!(out, "{}: {} within distance {k}, {} with the same X", lookup.name, near.len(), same_x.len())?;
    for m in near {
        let jaccard = match m.jaccard_estimate {
            Some(j) => format!("  jaccard ~{j:.2} (estimated from sketches)"),
            // A text looked up, a document without a sketch (imported from a list).
            None if lookup.query.sketch.is_some() => "  unverified (no sketch in the index)".to_owned(),
            None => String::new(),
        };
        let x = if answer.has_same_x(&m.id) { "  same X" } else { "" };
        writeln!(out, "  {}  distance {}{jaccard}{x}", m.id, m.distance)?;
    }
    for m in same_x.iter().filter(|x| !answer.has_near(&x.id)) {
        let distance = lookup.query.simhash.map_or(0, |s| (s ^ m.simhash).count_ones());
        // The estimate is what tells a copy from an advisory collision of X.
        let jaccard = match m.jaccard_estimate {
            Some(j) => format!(", jaccard ~{j:.2} estimated from sketches"),
            None if lookup.query.sketch.is_some() => ", unverified (no sketch in the index)".to_owned(),
            None => String::new(),
        };
        writeln!(out, "  {}  same X (distance {distance}{jaccard})", m.id)?;
    }
    Ok(())
}
