//! What every mode of `priorart dedup` shares (pairs, `--against`,
//! `--passages` and both together): its arguments, a run (its stop flag,
//! output files and input checks) and the progress bars. Each mode's file
//! imports this one, and `dedup_cmd.rs` chooses the mode, so the imports
//! point one way.

use crate::corpus::CorpusArgs;
use crate::exit;
use anyhow::{Result, bail};
use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use priorart_dedup::{Candidates, Catalog, Control, DedupError, Kept, Phase, Settings};
use priorart_fingerprint::Shingling;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

#[derive(Parser)]
#[command(after_help = "\
Writes OUT/pairs.jsonl ({\"a\", \"b\", \"hamming\", \"jaccard\"} per verified pair) and
OUT/clusters.jsonl ({\"representative\", \"size\", \"members\"} per cluster of two or more).

Examples:
  priorart dedup corpus/*.html --out dups
  priorart dedup --jsonl docs.jsonl --id-field id -k 3 --min-jaccard 0.9 --out dups
  priorart dedup --jsonl new.jsonl --id-field id --against archive.idx --add --out dups
  priorart dedup --passages --jsonl essays.jsonl --id-field id --out copied

Memory does not grow with the texts: the inputs are read twice, first for fingerprints, then
only the candidate documents, a working set at a time. Candidates are documents that share a
MinHash LSH band key of their word 5-grams (--candidates minhash, the default: bands and rows
chosen for --min-jaccard, keys kept in temporary files under TMPDIR, 4 bytes per document and
band), or that are within simhash-doc distance -k (--candidates simhash; the default below
--min-jaccard 0.3, where MinHash bands would pair nearly everything). Standard input (-) cannot be read twice:
similarities are then estimated from 256-hash sketches (standard error about 0.025 at 0.8,
\"jaccard_standard_error\" in each pair).

With --against INDEX, the documents are paired with each other and with INDEX's documents
(never INDEX's with each other): a pair with an index document has `a` from the index and
\"verification\": \"estimated\" (its jaccard estimated from the index's sketches) or \"unverified\"
(the index document has no sketch: found by distance alone); pairs of two new documents are
\"exact\". OUT/survivors.jsonl ({\"id\"} per line) lists the documents that are no near copy of
INDEX or of an earlier document; --add adds them to INDEX. The new documents' shingles are held in
memory on this path.

With --passages, partial copies instead: every pair of documents sharing a passage of --min-words
words or more (a paragraph pasted into another text, verbatim or with words replaced), in
OUT/passages.jsonl ({\"a\", \"b\", \"marks\", \"passages\"} per pair, each passage as `compare
--passages --json` writes it: offsets in both documents, similarity, seeds; with --passage-text
its text on both sides too), found by
winnowing (hashes of three content words, six letters in Chinese, Japanese or Thai, the smallest
of every four) and verified by aligning
the candidates, each read again, on the hashes they share (the alignment's seeds, each passage's
ends moved outward over the words both have there). A hash held by more than --boilerplate
documents makes no pair;
the passages made of such hashes are listed once each in OUT/boilerplate.jsonl ({\"documents\",
\"marks\", \"example\", offsets in the example, \"text\"}). Memory: sort buffers and a working set;
the hashes (16 bytes per mark) and the pairs sharing them are sorted in temporary files, the
candidate pairs are kept there (12 bytes each), and so are the documents read again more than
once, prepared (about 3.5 times their text).
With --passages --against INDEX, each document is also looked up in INDEX's passage marks (as
`index query --passages`): a pair with an indexed document is a line with \"from_index\": true,
\"a\" the indexed document, whose side of each passage is a byte range (the index keeps no
text); the index's documents are never paired with each other.

An input named twice (or two names of one file) is read once; an id given to two documents
(--id-field) is an error; empty texts are skipped and counted. A run that read no document, that
could not read an input while OUT holds earlier results (unless --skip-unreadable: then the
unreadable inputs are skipped and listed in OUT/skipped.jsonl, {\"input\", \"error\"} per line), or
that was interrupted (Ctrl-C), writes nothing and says so.

Exit codes: 0 ok, 1 bad input (reported, the rest still processed), 2 usage error, 130 interrupted.")]
pub struct Args {
    #[command(flatten)]
    pub(crate) corpus: CorpusArgs,
    /// How candidate pairs are found: minhash (documents sharing a MinHash
    /// LSH band key of their word 5-grams; the default: on the Debian corpus
    /// every J5 >= 0.8 pair from 11 times fewer candidates than simhash at
    /// k = 6) or simhash (within simhash-doc distance -k; in texts of one
    /// language their number grows with the square of the collection).
    /// Standard input and --against use simhash.
    #[arg(long, value_name = "GENERATOR", conflicts_with = "against")]
    pub(crate) candidates: Option<Candidates>,
    /// Largest simhash-doc distance of a candidate pair (--candidates
    /// simhash, standard input, --against). 6 by default: verification
    /// removes the extra candidates, and on the Debian corpus k = 6 finds
    /// 0.99 of the J5 >= 0.8 pairs where k = 3 (the lookup distance of the
    /// spec) finds 0.91 (BENCHMARKS.md).
    #[arg(short, long, default_value_t = 6)]
    pub(crate) k: u32,
    /// Smallest Jaccard similarity of word 5-grams of a kept pair.
    #[arg(long, default_value_t = 0.8)]
    pub(crate) min_jaccard: f64,
    /// How texts are cut into words for their 5-grams: words (lowercased
    /// \w+ runs, as other dedup tools and ground truths; the default) or
    /// tokens (simhash-doc-v2's tokens: numbers and identifiers dropped);
    /// Chinese, Japanese, Thai… as character bigrams (words-v1, tokens-v1:
    /// as before simhash-doc-v2). With --against, the index's.
    #[arg(long, value_name = "SHINGLING")]
    pub(crate) shingles: Option<Shingling>,
    /// Also pair the documents with those of this index (`priorart index
    /// build`), and list the survivors; with --passages, the documents
    /// sharing passages with the index's (from its passage marks).
    #[arg(long, value_name = "INDEX")]
    pub(crate) against: Option<PathBuf>,
    /// Add the survivors to the --against index (one new segment).
    #[arg(long, requires = "against", conflicts_with = "passages")]
    pub(crate) add: bool,
    /// Find the pairs of documents that share passages (partial copies: a
    /// paragraph pasted into another text), with the passages, instead of
    /// whole near-duplicates: OUT/passages.jsonl and OUT/boilerplate.jsonl.
    #[arg(long, conflicts_with_all = ["candidates", "min_jaccard", "shingles"])]
    pub(crate) passages: bool,
    /// With --passages: the fewest words (stopwords included; two Chinese,
    /// Japanese or Thai letters count one) on both sides of a reported
    /// passage.
    #[arg(long, requires = "passages", value_name = "N",
          default_value_t = priorart_dedup::passages::PassageSettings::DEFAULT_MIN_WORDS)]
    pub(crate) min_words: usize,
    /// With --passages: a winnowing hash held by more documents than this
    /// is boilerplate (a license, a header): it makes no pair, and the
    /// passage it is in is reported once in OUT/boilerplate.jsonl.
    #[arg(long, requires = "passages", value_name = "DOCUMENTS",
          default_value_t = priorart_dedup::passages::PassageSettings::DEFAULT_BOILERPLATE)]
    pub(crate) boilerplate: u32,
    /// With --passages: the fewest winnowing hashes two documents share to
    /// be aligned (five of them, or all when fewer, within 64 content words).
    #[arg(long, requires = "passages", value_name = "HASHES",
          default_value_t = priorart_dedup::passages::PassageSettings::DEFAULT_MIN_MARKS)]
    pub(crate) min_marks: u32,
    /// With --passages: the smallest share of one side's content words
    /// found on the other side in runs of three (0 to 1): two texts sharing
    /// many words but few runs of them (a translation, a template filled
    /// in) share no passage.
    #[arg(long, requires = "passages", value_name = "SHARE",
          default_value_t = priorart_dedup::passages::PassageSettings::DEFAULT_MIN_COVERAGE)]
    pub(crate) min_coverage: f64,
    /// With --passages: each passage's text on both sides in
    /// OUT/passages.jsonl, not only its offsets (a collection's shared
    /// passages can be larger than the collection: 10.9 GB of lines for 3
    /// GB of generated documents).
    #[arg(long, requires = "passages")]
    pub(crate) passage_text: bool,
    /// Bytes pass 2 holds at once of the documents it reads again (K, M or
    /// G: 512M): 256M of text by default; with --passages 1G of prepared
    /// texts, each counted with its words and marks (about 4 times its
    /// text in English, 7 in Chinese or Japanese), so that memory is the
    /// same whatever the script, and less past about 6 million documents,
    /// so that the search stays under 2 GiB (635M with 12 million short
    /// documents). More memory, fewer rounds, up to a point:
    /// on the 3 GB generated corpus, --passages verified no faster with 2G
    /// (BENCHMARKS.md). Not with --against without --passages, which holds
    /// the new documents' shingles, nor with standard input, which is
    /// sketched.
    #[arg(long, value_name = "SIZE", value_parser = crate::input::parse_bytes)]
    pub(crate) working_set: Option<u64>,
    /// Output directory (created).
    #[arg(long)]
    pub(crate) out: PathBuf,
}

/// A flag Ctrl-C (SIGINT) and SIGTERM set, checked between steps; a
/// second Ctrl-C ends the process at once (files are written under
/// temporary names and renamed, so nothing complete-looking is left).
pub(crate) fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(
            signal,
            exit::INTERRUPTED.into(),
            Arc::clone(&stop),
        )?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    Ok(stop)
}

/// The pairs file of an output directory.
pub(crate) const PAIRS: &str = "pairs.jsonl";
/// The clusters file of an output directory.
pub(crate) const CLUSTERS: &str = "clusters.jsonl";

/// One run: what it was asked, its stop flag and its two output files.
pub(crate) struct Run<'a> {
    pub(crate) args: &'a Args,
    pub(crate) settings: &'a Settings,
    pub(crate) stop: &'a AtomicBool,
    pub(crate) outputs: &'a [PathBuf; 2],
}

impl Run<'_> {
    pub(crate) fn check(&self) -> Result<(), DedupError> {
        if self.stop.load(Ordering::Relaxed) { Err(DedupError::Interrupted) } else { Ok(()) }
    }

    pub(crate) fn control<'b>(&'b self, bars: &'b Bars) -> Control<'b> {
        Control { progress: bars, stop: self.stop }
    }

    /// Refuses a run with nothing to deduplicate, with an input missing
    /// while earlier results exist, or with an id given twice.
    pub(crate) fn check_inputs<K: Kept>(
        &self,
        catalog: &Catalog<K>,
        read: &priorart_corpus::Summary,
        origin: impl Fn(u32) -> String,
    ) -> Result<()> {
        let earlier = self.outputs.iter().any(|path| path.exists());
        if catalog.is_empty() {
            bail!("no document to deduplicate{}", left_as_it_was(&self.args.out, earlier));
        }
        // Results without a whole input are not the results the user had:
        // keep those until every input is read, unless told to skip.
        self.args.corpus.refuse_missing_inputs(
            read,
            earlier,
            "the results",
            &left_as_it_was(&self.args.out, earlier),
        )?;
        Ok(priorart_corpus::refuse_repeated_ids(catalog, origin)?)
    }
}

/// "; OUT left as it was" (or "; nothing written").
pub(crate) fn left_as_it_was(out: &Path, earlier: bool) -> String {
    if earlier { format!("; {} left as it was", out.display()) } else { "; nothing written".to_owned() }
}

/// One progress bar, restyled per phase; each phase's time is noted when
/// it ends (a line that stays in logs, where the bar is not drawn).
pub(crate) struct Bars(ProgressBar, Mutex<Option<(Phase, Instant)>>);

impl Default for Bars {
    fn default() -> Self {
        Bars(ProgressBar::hidden(), Mutex::new(None))
    }
}

impl Bars {
    /// Clears the bar and notes the last phase's time.
    pub(crate) fn finish(&self) {
        self.0.finish_and_clear();
        self.end_phase(None);
    }

    fn end_phase(&self, next: Option<Phase>) {
        let mut current = self.1.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((phase, started)) = current.take() {
            // Read the bar before `suspend`, which holds its state's lock.
            let steps = match phase {
                Phase::Candidates if self.0.length() == Some(0) => String::new(),
                Phase::Candidates => format!(" ({} bands)", self.0.position()),
                Phase::Verifying => format!(" ({})", crate::counted(self.0.position(), "candidate pair")),
            };
            let line = format!("priorart: {}{steps}: {:.1} s", phase.name(), started.elapsed().as_secs_f64());
            self.0.suspend(|| note!("{line}"));
        }
        *current = next.map(|phase| (phase, Instant::now()));
    }
}

impl priorart_dedup::Progress for Bars {
    fn phase(&self, phase: Phase, steps: u64) {
        self.end_phase(Some(phase));
        let template = if steps == 0 {
            "{spinner} {msg} {elapsed}"
        } else {
            "{msg}: {wide_bar} {human_pos}/{human_len} {per_sec} eta {eta}"
        };
        self.0.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        self.0.set_style(ProgressStyle::with_template(template).expect("a valid template"));
        self.0.set_length(steps);
        self.0.set_position(0);
        self.0.set_message(phase.name());
        self.0.enable_steady_tick(std::time::Duration::from_millis(200));
    }

    fn advance(&self, steps: u64) {
        self.0.inc(steps);
    }
}
