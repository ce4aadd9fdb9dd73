//! `priorart dedup`: every near-duplicate pair of a collection, verified.
//!
//! The engine is `priorart_dedup` (memory that does not grow with the
//! texts: pass 1 keeps each document's simhash-doc value, place and, for
//! MinHash candidates, band keys on disk; pass 2 re-reads only the
//! candidates); this reads the inputs (`corpus`), computes the band keys on
//! all cores, shows progress (and each phase's time when it ends), and
//! writes the two files whole. Standard input cannot be read
//! twice: with `-` among the inputs, every document keeps a sketch instead
//! and similarities are estimates (their standard error is in the output).
//! With `--against INDEX`, the documents are also paired with the index's
//! (`dedup_against`, which holds the new documents' shingles in memory).
//! The arguments, the run and the bars every mode shares are in
//! `dedup_run.rs`.

use crate::corpus;
use crate::dedup_run::{Bars, CLUSTERS, PAIRS, Run, interrupt_flag, left_as_it_was};
use crate::exit::{self, UsageError};
use crate::input;
use anyhow::{Result, bail};
use priorart_corpus::{Wanted, WithX};
use priorart_dedup::{Candidates, Catalog, DedupError, Kept, Outcome, Places, Settings, Sketches, output};
use rayon::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

pub use crate::dedup_run::Args;

/// Why a run of `args` has no pass 2 re-reading its documents a working
/// set at a time, if it has none.
fn without_pass_2(args: &Args, reads_stdin: bool) -> Option<&'static str> {
    if args.passages {
        None
    } else if args.against.is_some() {
        Some("--against without --passages holds the new documents' shingles instead")
    } else if reads_stdin {
        Some("standard input is read once, its documents sketched")
    } else {
        None
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let shingling = args.shingles.unwrap_or_default();
    let mut settings =
        Settings::new(args.k, args.min_jaccard, shingling).map_err(|err| UsageError(err.to_string()))?;
    if let Some(candidates) = args.candidates {
        settings = settings.with_candidates(candidates).map_err(|err| UsageError(err.to_string()))?;
    }
    let reads_stdin = args.corpus.inputs.iter().any(|name| name == input::STDIN);
    if let Some(bytes) = args.working_set {
        if let Some(why) = without_pass_2(&args, reads_stdin) {
            bail!(UsageError(format!("--working-set sets what pass 2 holds: {why}")));
        }
        settings = settings.with_working_set(bytes);
    }
    if let Some(index) = args.against.as_ref().filter(|_| !args.passages) {
        return crate::dedup_against::run(&args, index, settings.layout());
    }
    if args.passages && reads_stdin {
        bail!(UsageError(
            "--passages reads its inputs twice (the candidates' texts again to align them): standard input \
             cannot be read twice; save it to a file"
                .into()
        ));
    }
    let stop = interrupt_flag()?;
    let outputs = if args.passages {
        priorart_dedup::passage_files::PassageFiles::paths(&args.out)
    } else {
        [args.out.join(PAIRS), args.out.join(CLUSTERS)]
    };
    let run = Run { args: &args, settings: &settings, stop: &stop, outputs: &outputs };
    let result = if args.passages {
        run.passages()
    } else if reads_stdin {
        if args.candidates == Some(Candidates::Minhash) {
            note!("priorart: standard input cannot be read twice: candidates by simhash-doc (-k {})", args.k);
        }
        run.sketched()
    } else {
        run.reread()
    };
    match result {
        Err(err) if err.chain().any(|cause| matches!(cause.downcast_ref::<DedupError>(), Some(DedupError::Interrupted))) => {
            let earlier = outputs.iter().any(|path| path.exists());
            note!("priorart: interrupted{}", left_as_it_was(&args.out, earlier));
            Ok(ExitCode::from(exit::INTERRUPTED))
        }
        other => other,
    }
}

impl Run<'_> {
    /// Two passes: places (and band keys) first, then the candidates read
    /// again.
    fn reread(&self) -> Result<ExitCode> {
        let lsh = self.settings.lsh();
        let mut catalog: Catalog<Places> = match lsh {
            Some(lsh) => Catalog::with_band_keys(lsh, None)?,
            None => Catalog::new(),
        };
        let wanted = Wanted {
            x: WithX::No,
            simhash: Some(self.settings.shingling.token_rule()),
            shingles: lsh.map(|_| self.settings.shingling),
            unique_ids: false,
            marks: None,
        };
        let started = Instant::now();
        let read = corpus::read_all(&self.args.corpus, &wanted, |batch| {
            self.check()?;
            let keys: Vec<Vec<u32>> = match lsh {
                Some(lsh) => batch
                    .par_iter()
                    .map(|document| {
                        let mut keys = Vec::new();
                        lsh.band_keys(&document.shingles, &mut keys);
                        keys
                    })
                    .collect(),
                None => vec![Vec::new(); batch.len()],
            };
            for (document, keys) in batch.iter().zip(&keys) {
                catalog.push(&document.id, document.simhash.0, document.place, document.text_bytes, keys)?;
            }
            Ok(())
        })?;
        note!("priorart: fingerprinting ({}): {:.1} s", crate::counted(catalog.len() as u64, "document"), started.elapsed().as_secs_f64());
        let rereader = self.args.corpus.rereader(&read);
        self.check_inputs(&catalog, &read, |number| rereader.origin(catalog.kept().place(number)))?;
        let bars = Bars::default();
        let outcome = priorart_dedup::deduplicate(&mut catalog, self.settings, &rereader, self.control(&bars))?;
        bars.finish();
        self.write(&catalog, &outcome, None, &read)
    }

    /// One pass, keeping sketches (standard input cannot be read twice).
    fn sketched(&self) -> Result<ExitCode> {
        let mut catalog: Catalog<Sketches> = Catalog::new();
        let wanted = Wanted {
            x: WithX::No,
            simhash: Some(self.settings.shingling.token_rule()),
            shingles: Some(self.settings.shingling),
            unique_ids: false,
            marks: None,
        };
        let read = corpus::read_all(&self.args.corpus, &wanted, |batch| {
            self.check()?;
            for document in batch {
                catalog.push(&document.id, document.simhash.0, &document.shingles)?;
            }
            Ok(())
        })?;
        self.check_inputs(&catalog, &read, |number| format!("document {}", u64::from(number) + 1))?;
        note!(
            "priorart: standard input cannot be read twice: similarities are estimated from {}-hash sketches \
             (standard error about 0.025 at 0.8; each pair's is in its jaccard_standard_error)",
            priorart_dedup::SKETCH_WIDTH
        );
        let bars = Bars::default();
        let outcome = priorart_dedup::deduplicate_sketches(&catalog, self.settings, self.control(&bars))?;
        bars.finish();
        self.write(&catalog, &outcome, Some(catalog.kept()), &read)
    }

    fn write<K: Kept>(
        &self,
        catalog: &Catalog<K>,
        outcome: &Outcome,
        sketches: Option<&Sketches>,
        read: &priorart_corpus::Summary,
    ) -> Result<ExitCode> {
        let earlier = self.outputs.iter().any(|path| path.exists());
        let mut files = vec![
            (self.outputs[0].clone(), output::pair_lines(catalog, outcome, sketches)),
            (self.outputs[1].clone(), output::cluster_lines(catalog, outcome)),
        ];
        if self.args.corpus.skip_unreadable {
            files.push((self.args.out.join(priorart_corpus::SKIPPED), read.unreadable_lines()));
        }
        // The last moment to stop with nothing written.
        self.check()?;
        priorart_files::replace_all(&files)?;
        let generator = match (sketches, self.settings.lsh()) {
            (None, Some(lsh)) => format!("sharing a MinHash band key ({} bands of {} rows)", lsh.bands, lsh.rows),
            _ => format!("within k={}", self.settings.k),
        };
        note!(
            "priorart: {} ({} skipped), {} {generator}, {} verified at jaccard >= {}{}, {}, {} removable",
            crate::counted(catalog.len() as u64, "document"),
            read.skipped(),
            crate::counted(outcome.candidates as u64, "candidate pair"),
            outcome.pairs.len(),
            self.settings.min_jaccard,
            if outcome.estimated { " (estimated)" } else { "" },
            crate::counted(outcome.clusters.len() as u64, "cluster"),
            crate::counted(outcome.removable() as u64, "document")
        );
        let verb = if earlier { "replaced the earlier results in" } else { "wrote" };
        note!("priorart: {verb} {} and {}", self.outputs[0].display(), self.outputs[1].display());
        if self.args.corpus.skip_unreadable && !read.unreadable.is_empty() {
            note!(
                "priorart: {} skipped, listed in {}",
                crate::counted(read.unreadable.len() as u64, "unreadable input"),
                self.args.out.join(priorart_corpus::SKIPPED).display()
            );
        }
        Ok(ExitCode::from(if read.had_errors() { exit::BAD_INPUT } else { exit::OK }))
    }
}
