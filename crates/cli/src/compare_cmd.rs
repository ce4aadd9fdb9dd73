//! `priorart compare A B`: two documents side by side under both kinds of
//! scheme: the NIP-FF-3 `X` tag (equal or not) and `simhash-doc` (how far).

use crate::exit::UsageError;
use crate::input;
use anyhow::{Result, bail};
use clap::Parser;
use priorart_fingerprint::{Fingerprint, Fingerprinter, LOOKUP_DISTANCE, Scheme, SimhashDoc};
use serde_json::{Value, json};
use std::io::{self, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(after_help = "Exit codes: 0 compared (whatever the verdict), 1 bad input, 2 usage error.")]
pub struct Args {
    /// The first document (`-`: standard input).
    a: String,
    /// The second document (`-`: standard input).
    b: String,
    /// How both documents are read.
    #[command(flatten)]
    document: input::DocumentArgs,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// The fingerprints of one document.
struct Side {
    name: String,
    x: Fingerprint,
    simhash: SimhashDoc,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.a == input::STDIN && args.b == input::STDIN {
        bail!(UsageError("standard input (`-`) can be named only once".into()));
    }
    let mut fingerprinter = Fingerprinter::new();
    let a = side(&mut fingerprinter, &args.a, &args.document)?;
    let b = side(&mut fingerprinter, &args.b, &args.document)?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if args.json {
        writeln!(out, "{}", comparison_json(&a, &b))?;
    } else {
        write_comparison(&mut out, &a, &b)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The fingerprints of one document, read as every command reads one.
fn side(fingerprinter: &mut Fingerprinter, name: &str, document: &input::DocumentArgs) -> Result<Side> {
    let text = input::read_document(name, document)?.text;
    let x = fingerprinter.fingerprint(&text, &[Scheme::MinhashEqualityV1])[0];
    let simhash = fingerprinter.simhash_doc(&text);
    Ok(Side { name: name.to_owned(), x, simhash })
}

fn side_json(side: &Side) -> Value {
    json!({
        "file": side.name,
        Scheme::MinhashEqualityV1.id(): side.x.to_string(),
        Scheme::SimhashDoc.id(): side.simhash.to_string(),
    })
}

fn comparison_json(a: &Side, b: &Side) -> Value {
    let distance = a.simhash.distance(b.simhash);
    json!({
        "a": side_json(a),
        "b": side_json(b),
        Scheme::MinhashEqualityV1.id(): { "equal": a.x == b.x },
        Scheme::SimhashDoc.id(): {
            "distance": distance,
            "similarity": a.simhash.similarity(b.simhash),
            "band": a.simhash.band(b.simhash).name(),
            "within_k3": distance <= LOOKUP_DISTANCE,
        },
    })
}

fn write_comparison(out: &mut impl Write, a: &Side, b: &Side) -> io::Result<()> {
    let width = a.name.chars().count().max(b.name.chars().count());
    for side in [a, b] {
        writeln!(out, "{:width$}  {}  {}", side.name, side.x, side.simhash)?;
    }
    let verdict = if a.x == b.x { "equal" } else { "different" };
    writeln!(out, "{}: {verdict}", Scheme::MinhashEqualityV1)?;
    let distance = a.simhash.distance(b.simhash);
    let within = if distance <= LOOKUP_DISTANCE { "yes" } else { "no" };
    writeln!(
        out,
        "{}: distance {distance}/64, similarity {:.4}, band {}, within k={LOOKUP_DISTANCE}: {within}",
        Scheme::SimhashDoc,
        a.simhash.similarity(b.simhash),
        a.simhash.band(b.simhash),
    )
}
