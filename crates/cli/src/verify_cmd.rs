//! `priorart verify`: run the NIP-FF-3 client verification algorithm on a
//! kind 1041 (or check a NIP-03 kind 1040) and report every step.

use crate::exit;
use crate::input;
use crate::args::HeaderArgs;
use anyhow::Result;
use clap::Parser;
use priorart_nip::{Reason, Report, Status, Step, Verdict};
use std::io::Write;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    after_help = "Exit codes: 0 valid (NIP-03: valid but forgeable); 1 invalid, not a NIP-FF-3 proof, --content \
that does not match X, or unreadable input; 2 usage error; 3 unverified (every check that could run passed, \
but no block header to check the Bitcoin proof against)."
)]
pub struct Args {
    /// The event JSON (`-`: standard input).
    event: String,
    /// The plaintext: also check that its fingerprint is the attested X
    /// (what only a holder of the text can confirm).
    #[arg(long, value_name = "FILE")]
    content: Option<String>,
    /// Print the report as JSON (format priorart-verify/1).
    #[arg(long)]
    json: bool,
    /// How `--content` is read.
    #[command(flatten)]
    document: input::DocumentArgs,
    #[command(flatten)]
    headers: HeaderArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let json = input::read_text(&args.event)?;
    let plaintext =
        args.content.as_deref().map(|name| input::read_document(name, &args.document)).transpose()?;
    let source = args.headers.source()?;
    let mut report = priorart_nip::verify_event_json(json.trim(), source.as_ref(), args.headers.network());
    if let Some(document) = &plaintext {
        report.check_content(&document.text);
        if let Some(warning) = short_content_warning(&document.text) {
            note!("priorart: note: {warning}");
        }
        if report.content.is_none() {
            note!("priorart: --content not checked: the event attests no fingerprint (see step 3)");
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        writeln!(out, "{}", report.to_json())?;
    } else {
        write_report(&mut out, &report)?;
    }
    let content_mismatch = report.content.as_ref().is_some_and(|c| !c.matches_x);
    if report.verdict == Verdict::Unverified {
        note!("priorart: {}", exit::HEADER_SOURCE_HINT);
        return Ok(ExitCode::from(if content_mismatch { exit::BAD_INPUT } else { exit::UNVERIFIED }));
    }
    Ok(ExitCode::from(if report.is_valid() && !content_mismatch { exit::OK } else { exit::BAD_INPUT }))
}

/// The headline: the verdict on everything the command was asked, so a
/// valid proof of another text does not headline as valid.
fn headline(report: &Report) -> &'static str {
    let content_mismatch = report.content.as_ref().is_some_and(|c| !c.matches_x);
    if is_attestation(report) {
        return "NOT A PROOF: this is a kind 1042 attestation, not a proof; build the proof with \
                `priorart proof` (after `priorart timestamp` and `priorart ots upgrade`)";
    }
    match report.verdict {
        Verdict::Valid if content_mismatch => {
            "CONTENT DOES NOT MATCH: a valid NIP-FF-3 proof, but of another text (the content's fingerprint is not X)"
        }
        Verdict::Unverified if content_mismatch => {
            "CONTENT DOES NOT MATCH: the event attests another text (the content's fingerprint is not X); \
             its Bitcoin proof was not checked for lack of block headers"
        }
        Verdict::Valid => "VALID NIP-FF-3 proof",
        Verdict::ValidButForgeable => {
            "VALID NIP-03 timestamp, but FORGEABLE by pre-stamping (not an authorship proof)"
        }
        Verdict::Invalid => "INVALID",
        Verdict::Unverified => {
            "UNVERIFIED: every check that could run passed; the Bitcoin proof could not be checked \
             for lack of block headers (not a judgement on the proof)"
        }
        Verdict::NotNipFf3 => "NOT A NIP-FF-3 PROOF (a kind 1041 of another scheme)",
        _ => "UNKNOWN VERDICT",
    }
}

/// Whether the event is a kind 1042 attestation given where a proof was expected.
fn is_attestation(report: &Report) -> bool {
    report.kind == Some(priorart_nip::ATTESTATION_KIND) && report.failures().contains(&Reason::WrongKind)
}

fn write_report(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    writeln!(out, "verdict: {}", headline(report))?;
    write_steps(out, &report.steps)?;
    if let Some(author) = &report.author {
        writeln!(out, "author:      {author}")?;
    }
    if let Some(fingerprint) = &report.fingerprint {
        writeln!(out, "fingerprint: {fingerprint}")?;
    }
    if let Some(commitment) = &report.commitment {
        writeln!(out, "commitment:  {commitment}")?;
    }
    if let Some(block) = &report.bitcoin {
        let date = priorart_ots::UtcTime::from_unix(block.time);
        let chain = if report.network == Some("regtest") { "REGTEST (not Bitcoin) " } else { "" };
        writeln!(out, "bitcoin:     {chain}block {} ({}), {date} (time {})", block.height, block.block_hash, block.time)?;
    }
    if let Some(cost) = &report.cost_to_forge {
        writeln!(out, "forge cost:  {cost}")?;
    }
    if let Some(content) = &report.content {
        let verdict = if content.matches_x { "matches X" } else { "DOES NOT match X" };
        writeln!(out, "content:     fingerprint {} {verdict}", content.fingerprint)?;
    }
    for warning in &report.warnings {
        writeln!(out, "warning [{}]: {}", warning.reason, warning.detail)?;
    }
    Ok(())
}

/// One line per step; a run of steps skipped for the same reason is one line
/// (`2-8 skip`), since the reason says it all.
fn write_steps(out: &mut impl Write, steps: &[Step]) -> std::io::Result<()> {
    let mut rest = steps;
    while let Some(step) = rest.first() {
        let run = match step.status {
            Status::Skip => rest.iter().take_while(|s| s.status == Status::Skip && s.detail == step.detail).count(),
            _ => 1,
        };
        if run > 1 {
            writeln!(out, "  {}-{} skip  {}", step.step, rest[run - 1].step, step.detail)?;
        } else {
            let status = match step.status {
                Status::Pass => "pass",
                // Headers that could not be had (or failed their own checks)
                // leave the proof unverified, not invalid: the step says so
                // as the verdict does (the JSON keeps `fail` and the reason).
                Status::Fail if step.reason.is_some_and(|r| r.leaves_unverified()) => "UNVERIFIED",
                Status::Fail => "FAIL",
                Status::Skip => "skip",
            };
            let reason = step.reason.map(|r| format!(" [{r}]")).unwrap_or_default();
            writeln!(out, "  {} {status}{reason}  {}: {}", step.step, step.check, step.detail)?;
        }
        rest = &rest[run..];
    }
    Ok(())
}

/// What "matches X" is worth for a short text: when the text has fewer
/// distinct kept words than X has buckets, every word of it is in X, so
/// one edited word changes X, and any text of the same few words shares it.
fn short_content_warning(text: &str) -> Option<String> {
    let explanation = priorart_fingerprint::explain(text, priorart_fingerprint::Scheme::MinhashEqualityV1)?;
    let filled = explanation.buckets.iter().filter(|bucket| bucket.is_some()).count();
    (filled < explanation.buckets.len()).then(|| {
        format!(
            "the content is short: {filled} of X's {} buckets hold a word, so X is not edit-durable here \
             (one changed word changes it) and other texts of the same words share it; compare the texts themselves",
            explanation.buckets.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_contents_are_flagged_and_long_ones_are_not() {
        assert!(short_content_warning("gm nostr").unwrap().contains("not edit-durable"));
        // 400 distinct letter-only words (digits are not word characters in X).
        let word = |i: u32| -> String {
            (0..4).map(|d| char::from(b'a' + (((i * 7919) >> (5 * d)) % 26) as u8)).collect::<String>() + "ing "
        };
        let long: String = (0..400).map(word).collect();
        assert_eq!(short_content_warning(&long), None);
    }
}
