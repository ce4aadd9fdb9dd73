//! A lookup in a local near-duplicate index and how its answer is printed:
//! shared by `index query` and `check --index`, so that both say the same.

use anyhow::Result;
use priorart_fingerprint::{EqualityFingerprint, Fingerprinter, Shingling, SimhashDoc};
pub(crate) use priorart_index::Answer;
use priorart_index::{Index, Match, Query, Verification};
use serde_json::json;
use std::io::Write;

/// One lookup: its name (the file, or the value looked up) and the query.
pub(crate) struct Lookup {
    name: String,
    query: Query,
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
        Lookup { name: name.to_owned(), query: Query::of_text(text, shingling, fingerprinter) }
    }

    /// A lookup of one `X` alone (no text: no near copies, no similarity).
    pub(crate) fn of_x(x: &EqualityFingerprint) -> Lookup {
        Lookup { name: x.to_string(), query: Query::of_x(x.0) }
    }

    /// A lookup of one simhash-doc value alone (no similarity estimate).
    pub(crate) fn of_simhash(simhash: SimhashDoc) -> Lookup {
        Lookup { name: simhash.to_string(), query: Query::of_simhash(simhash.0) }
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

/// How a near match's similarity is known: estimated from sketches, or
/// unverified (found by distance alone: the lookup or the document has no
/// sketch).
fn verification(m: &Match) -> Verification {
    if m.jaccard_estimate.is_some() { Verification::Estimated } else { Verification::Unverified }
}

/// One lookup's answer as the JSON object `index query --json` prints.
/// The similarity is `jaccard_estimate`: estimated from sketches, not the
/// exact value `compare` computes from both texts; `verification` says
/// whether there is one.
pub(crate) fn answer_json(lookup: &Lookup, answer: &Answer) -> serde_json::Value {
    let near: Vec<_> = answer
        .near
        .iter()
        .map(|m| {
            json!({
                "id": m.id,
                "simhash-doc": SimhashDoc(m.simhash).to_string(),
                "distance": m.distance,
                "similarity": 1.0 - f64::from(m.distance) / 64.0,
                "jaccard_estimate": m.jaccard_estimate,
                "verification": verification(m).name(),
                "same_x": answer.has_same_x(&m.id),
            })
        })
        .collect();
    json!({
        "query": lookup.name,
        "simhash-doc": lookup.query.simhash.map(|s| SimhashDoc(s).to_string()),
        "minhash-equality-v1": lookup.x().map(|x| x.to_string()),
        "near": near,
        "same_x": answer.same_x.iter().map(|m| &m.id).collect::<Vec<_>>(),
    })
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
