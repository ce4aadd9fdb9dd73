//! `priorart compare A B`: two documents side by side under both kinds of
//! scheme: the NIP-FF-3 `X` tag (equal or not) and `simhash-doc` (how far);
//! with `--passages`, the passages they share instead (`compare_passages.rs`).

use crate::exit::UsageError;
use crate::{compare_passages, input};
use anyhow::{Result, bail};
use clap::Parser;
use priorart_fingerprint::{
    Fingerprint, Fingerprinter, LOOKUP_DISTANCE, SHINGLE_WORDS, Scheme, Shingling, SimhashDoc, WordShingles,
};
use serde_json::{Value, json};
use std::io::{self, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(after_help = "Exit codes: 0 compared (whatever the verdict or the passages found), 1 bad input, 2 usage error.")]
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
    /// The passages A and B share instead of their fingerprints: where each
    /// is in both texts (character and byte offsets of the text as read),
    /// its text side by side and its similarity.
    #[arg(long)]
    passages: bool,
    /// The passages as PAN's text-alignment XML (A is PAN's suspicious
    /// document, B the source; offsets and lengths in characters): implies
    /// --passages.
    #[arg(long, conflicts_with = "json")]
    pan: bool,
    /// How texts are cut into words for the overlap's 5-grams: words
    /// (lowercased \w+ runs, as other dedup tools) or tokens (simhash-doc-v2's
    /// tokens: numbers and identifiers dropped); Chinese, Japanese, Thai… as
    /// character bigrams. words-v1 and tokens-v1 cut them as before
    /// simhash-doc-v2 (and compare simhash-doc values).
    #[arg(long, value_name = "SHINGLING", default_value_t = Shingling::default())]
    shingles: Shingling,
}

/// The fingerprints of one document.
struct Side {
    name: String,
    /// Whether its text is empty (or only white space): its fingerprints
    /// are every empty text's, and say nothing about similarity.
    empty: bool,
    x: Fingerprint,
    simhash: SimhashDoc,
    shingles: WordShingles,
    /// How `shingles` were cut (the same for both sides).
    shingling: Shingling,
}

/// Share of common word 5-grams at or above which two texts are near-identical
/// (the usual near-duplicate threshold).
const NEAR_IDENTICAL: f64 = 0.8;
/// At or below this share, two texts have little wording in common; unrelated
/// texts share none (0%), apart from boilerplate phrases.
const LITTLE_IN_COMMON: f64 = 0.1;

/// A share as a whole percentage, never rounded up to 100% (0.997 of the
/// 5-grams is not all of them) nor down to 0% (unrelated texts share none:
/// a few shared 5-grams are not none).
fn share(overlap: f64) -> String {
    let percent = overlap * 100.0;
    let shown = if overlap < 1.0 && percent > 99.0 {
        99.0
    } else if overlap > 0.0 && percent < 1.0 {
        return "under 1%".to_owned();
    } else {
        percent.round()
    };
    format!("{shown:.0}%")
}

/// The sentence a person acts on: what `X` equality means given the
/// measured overlap of the two texts.
fn verdict(same_x: bool, overlap: f64) -> String {
    let share = share(overlap);
    match (same_x, overlap) {
        (true, o) if o >= NEAR_IDENTICAL => format!("same X and {share} of word {SHINGLE_WORDS}-grams shared: near-identical texts"),
        (true, o) if o <= LITTLE_IN_COMMON => format!(
            "same X, but the texts share {share} of their word {SHINGLE_WORDS}-grams: an advisory collision, not a copy \
             (X keeps only a few words; unrelated texts share 0%)"
        ),
        (true, _) => format!("same X and {share} of word {SHINGLE_WORDS}-grams shared: much of the wording is common"),
        (false, o) if o >= NEAR_IDENTICAL => {
            format!("different X, yet {share} of word {SHINGLE_WORDS}-grams shared: near-identical texts that X does not match")
        }
        (false, _) => format!("different X; {share} of word {SHINGLE_WORDS}-grams shared (unrelated texts share 0%)"),
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.a == input::STDIN && args.b == input::STDIN {
        bail!(UsageError("standard input (`-`) can be named only once".into()));
    }
    if args.passages || args.pan {
        let output = if args.pan {
            compare_passages::Output::Pan
        } else if args.json {
            compare_passages::Output::Json
        } else {
            compare_passages::Output::SideBySide
        };
        return compare_passages::run(&args.a, &args.b, &args.document, output);
    }
    let mut fingerprinter = Fingerprinter::new();
    let a = side(&mut fingerprinter, &args.a, &args.document, args.shingles)?;
    let b = side(&mut fingerprinter, &args.b, &args.document, args.shingles)?;
    if let Some(empty) = empty_sides(&a, &b) {
        note!("priorart: warning: {empty}: no similarity verdict");
    }
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
fn side(
    fingerprinter: &mut Fingerprinter,
    name: &str,
    document: &input::DocumentArgs,
    shingling: Shingling,
) -> Result<Side> {
    let text = input::read_document(name, document)?.text;
    let x = fingerprinter.fingerprint(&text, &[Scheme::MinhashEqualityV1])[0];
    let simhash = fingerprinter.simhash_doc(&text, shingling.token_rule());
    let shingles = WordShingles::of(&text, shingling);
    Ok(Side { name: name.to_owned(), empty: priorart_corpus::is_blank(&text), x, simhash, shingles, shingling })
}

/// "A's text is empty" (or both), when a side has no text.
fn empty_sides(a: &Side, b: &Side) -> Option<String> {
    match (a.empty, b.empty) {
        (false, false) => None,
        (true, true) => Some(format!("both texts are empty ({} and {})", a.name, b.name)),
        (true, false) => Some(format!("the text of {} is empty", a.name)),
        (false, true) => Some(format!("the text of {} is empty", b.name)),
    }
}

/// The overlap of word shingles and the verdict, or why there is none.
fn overlap_and_verdict(a: &Side, b: &Side) -> (Option<f64>, String) {
    if let Some(empty) = empty_sides(a, b) {
        return (None, format!("{empty}: no similarity verdict (an empty text has every empty text's fingerprints)"));
    }
    let overlap = a.shingles.jaccard(&b.shingles);
    (Some(overlap), verdict(a.x == b.x, overlap))
}

fn side_json(side: &Side) -> Value {
    json!({
        "file": side.name,
        "empty": side.empty,
        Scheme::MinhashEqualityV1.id(): side.x.to_string(),
        side.shingling.token_rule().simhash_scheme().id(): side.simhash.to_string(),
    })
}

fn comparison_json(a: &Side, b: &Side) -> Value {
    let distance = a.simhash.distance(b.simhash);
    let (overlap, verdict) = overlap_and_verdict(a, b);
    json!({
        "a": side_json(a),
        "b": side_json(b),
        "overlap": {
            "measure": format!("jaccard of word {SHINGLE_WORDS}-grams"),
            "shingles": a.shingling.name(),
            "value": overlap,
        },
        "verdict": verdict,
        Scheme::MinhashEqualityV1.id(): { "equal": a.x == b.x },
        a.shingling.token_rule().simhash_scheme().id(): {
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
    let equality = if a.x == b.x { "equal" } else { "different" };
    writeln!(out, "{}: {equality}", Scheme::MinhashEqualityV1)?;
    let distance = a.simhash.distance(b.simhash);
    let within = if distance <= LOOKUP_DISTANCE { "yes" } else { "no" };
    writeln!(
        out,
        "{}: distance {distance}/64, similarity {:.4}, band {}, within k={LOOKUP_DISTANCE}: {within}",
        a.shingling.token_rule().simhash_scheme(),
        a.simhash.similarity(b.simhash),
        a.simhash.band(b.simhash),
    )?;
    let (overlap, verdict) = overlap_and_verdict(a, b);
    match overlap {
        Some(overlap) => {
            writeln!(out, "overlap: {overlap:.4} (jaccard of word {SHINGLE_WORDS}-grams, {} shingles)", a.shingling)?
        }
        None => writeln!(out, "overlap: none (a text is empty)")?,
    }
    writeln!(out, "verdict: {verdict}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_says_what_equal_x_means() {
        assert!(verdict(true, 0.03).contains("advisory collision, not a copy"));
        assert!(verdict(true, 0.91).contains("near-identical"));
        assert!(verdict(false, 0.95).contains("near-identical texts that X does not match"));
        assert!(verdict(false, 0.0).starts_with("different X; 0%"));
    }

    #[test]
    fn a_share_short_of_all_or_none_is_never_shown_as_all_or_none() {
        assert!(verdict(true, 0.997).starts_with("same X and 99% of word 5-grams"), "{}", verdict(true, 0.997));
        assert!(verdict(true, 1.0).starts_with("same X and 100% of word 5-grams"));
        assert!(verdict(false, 0.004).starts_with("different X; under 1%"));
        assert_eq!(share(0.5), "50%");
    }
}
