//! The report for people: the table of what each relay answered and what
//! was found, and the verdict line (what `priorart check` prints).

use super::answer::Ending;
use super::content::XCheck;
use super::report::{CheckReport, CheckStatus};
use super::verdict::NO_HEADERS;
use std::fmt::Write;

impl CheckReport {
    /// Everything found, one line per relay, proof and event; with
    /// `colour`, ANSI bold for proven authors and red for refusals. Without
    /// relays (no answers), only the `X` line.
    pub fn table_text(&self, colour: bool) -> String {
        let mut out = String::new();
        self.write_table(&mut out, colour).expect("writing to a String cannot fail");
        out
    }

    /// `verdict: …` and a newline; bold with `colour`. `header_advice`
    /// (how this front end is given block headers) follows the words that
    /// say an `unverified` verdict's proofs lacked them.
    pub fn verdict_line(&self, colour: bool, header_advice: Option<&str>) -> String {
        let mut text = self.verdict.text.clone();
        if let (CheckStatus::Unverified, Some(advice)) = (self.verdict.status, header_advice) {
            text = text.replacen(NO_HEADERS, &format!("{NO_HEADERS} ({advice})"), 1);
        }
        if colour { format!("verdict: \x1b[1m{text}\x1b[0m\n") } else { format!("verdict: {text}\n") }
    }

    fn write_table(&self, out: &mut String, colour: bool) -> std::fmt::Result {
        writeln!(out, "X {} ({})", self.x, self.network.name())?;
        if self.relays.is_empty() {
            return Ok(());
        }
        self.write_relays(out)?;
        self.write_proofs(out, colour)?;
        self.write_contents(out)?;
        self.write_near_copies(out, colour)
    }

    fn write_near_copies(&self, out: &mut String, colour: bool) -> std::fmt::Result {
        let Some(fuzzy) = &self.fuzzy else { return Ok(()) };
        writeln!(
            out,
            "near copies (simhash-doc {} within {} bits, word 5-gram Jaccard >= {}; {} keys, {} candidate(s)):",
            fuzzy.simhash_doc, fuzzy.k, fuzzy.min_jaccard, fuzzy.keys, fuzzy.candidates
        )?;
        for relay in &fuzzy.relays {
            writeln!(out, "  {}  {}  {} candidate(s)", relay.url, relay.ending, relay.events)?;
        }
        if fuzzy.near_copies.is_empty() {
            writeln!(out, "  none")?;
        }
        for copy in &fuzzy.near_copies {
            writeln!(
                out,
                "  {}  kind {}  {}  distance {}  Jaccard {:.2}  X {}  {} on {}",
                copy.event.npub,
                copy.event.kind,
                copy.event.utc,
                copy.distance,
                copy.jaccard,
                copy.x,
                copy.event.event_id,
                copy.relays.join(", ")
            )?;
            for proof in &copy.proofs {
                let npub = if colour { format!("\x1b[1m{}\x1b[0m", proof.npub) } else { proof.npub.clone() };
                writeln!(
                    out,
                    "      #{} {npub}  block {}  {}  proof {}",
                    proof.rank, proof.block.height, proof.block.utc, proof.event_id
                )?;
            }
            if copy.proofs.is_empty() {
                writeln!(out, "      no valid proof")?;
            }
            for proof in &copy.unverified {
                writeln!(
                    out,
                    "      UNVERIFIED (no block headers to check it) {}  proof {}",
                    proof.npub, proof.event_id
                )?;
            }
            for proof in &copy.refused {
                writeln!(out, "      refused proof {} [{}]", proof.event_id, proof.reasons.join(", "))?;
            }
        }
        for skipped in &fuzzy.not_reported {
            let reason = serde_json::to_value(skipped.reason).unwrap_or_default();
            writeln!(out, "  not reported: {} × {}", skipped.count, reason.as_str().unwrap_or("unknown"))?;
        }
        writeln!(out, "near copies: {}", fuzzy.text)
    }

    fn write_relays(&self, out: &mut String) -> std::fmt::Result {
        writeln!(out, "relays:")?;
        for relay in &self.relays {
            writeln!(
                out,
                "  {}  {}  {} event(s) kept  {:.2}s",
                relay.url,
                relay.ending,
                relay.events,
                relay.elapsed.as_secs_f64()
            )?;
            for skipped in &relay.skipped {
                let reason = serde_json::to_value(skipped.reason).unwrap_or_default();
                let reason = reason.as_str().unwrap_or("unknown");
                writeln!(out, "      skipped {} × {reason} (first: {})", skipped.count, skipped.example)?;
            }
            for notice in &relay.notices {
                writeln!(out, "      notice: {notice}")?;
            }
        }
        Ok(())
    }

    fn write_proofs(&self, out: &mut String, colour: bool) -> std::fmt::Result {
        let paint = |code: &str, text: &str| {
            if colour { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
        };
        writeln!(out, "proofs, earliest Bitcoin block first:")?;
        if self.proofs.is_empty() {
            writeln!(out, "  none valid")?;
        }
        for proof in &self.proofs {
            let content = match &proof.content {
                Some(reference) => format!(
                    "{} {} ({})",
                    reference.tag,
                    reference.reference,
                    if reference.found { "found" } else { "not among the answers" }
                ),
                None => "no content reference".into(),
            };
            writeln!(
                out,
                "  #{} {}  block {}  {}",
                proof.rank,
                paint("1", &proof.npub),
                proof.block.height,
                proof.block.utc
            )?;
            writeln!(
                out,
                "      content {content}; proof {} on {}",
                proof.event_id,
                proof.relays.join(", ")
            )?;
        }
        for proof in &self.unverified {
            writeln!(
                out,
                "  UNVERIFIED (no block headers to check it) {}  proof {}",
                proof.npub, proof.event_id
            )?;
        }
        if !self.refused.is_empty() {
            writeln!(out, "refused kind 1041 events:")?;
        }
        for proof in &self.refused {
            let verdict = serde_json::to_value(proof.verdict).unwrap_or_default();
            let claim =
                proof.claimed_author.as_deref().map(|author| format!(" claims {}", super::npub(author)));
            writeln!(
                out,
                "  {} {} [{}]{} on {}",
                proof.event_id,
                paint("31", &verdict.as_str().unwrap_or("invalid").to_uppercase()),
                proof.reasons.join(", "),
                claim.unwrap_or_default(),
                proof.relays.join(", ")
            )?;
        }
        for other in &self.set_aside {
            writeln!(
                out,
                "  set aside: {} is not a NIP-FF-3 proof (a kind 1041 of another scheme) on {}",
                other.event_id,
                other.relays.join(", ")
            )?;
        }
        Ok(())
    }

    fn write_contents(&self, out: &mut String) -> std::fmt::Result {
        writeln!(out, "content events (created_at is the author's claim, untrusted):")?;
        if self.content_events.is_empty() {
            writeln!(out, "  none")?;
        }
        for content in &self.content_events {
            let check = match &content.x_check {
                XCheck::Matches => "X matches the content".to_owned(),
                XCheck::DoesNotMatch(fingerprint) => {
                    format!("X does NOT match the content (its X: {fingerprint})")
                }
                XCheck::CannotCheck(why) => format!("X cannot be checked ({} content)", why.name()),
            };
            writeln!(
                out,
                "  {}  kind {}  {}  {check}  {} on {}",
                content.event.npub,
                content.event.kind,
                content.event.utc,
                content.event.event_id,
                content.relays.join(", ")
            )?;
        }
        Ok(())
    }
}

/// How a relay's answer ended, in a few words: `EOSE`, `TIMEOUT (no EOSE)`…
impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Eose => f.write_str("EOSE"),
            Ending::Closed { message } => write!(f, "CLOSED ({message})"),
            Ending::Timeout => f.write_str("TIMEOUT (no EOSE)"),
            Ending::Unreachable { error } => write!(f, "UNREACHABLE ({error})"),
            Ending::Disconnected { error } => write!(f, "DISCONNECTED before EOSE ({error})"),
            Ending::EventLimit { limit } => write!(f, "CUT OFF at {limit} events"),
            Ending::ByteLimit { limit } => write!(f, "CUT OFF at {limit} bytes"),
        }
    }
}
