//! `priorart dedup --passages`: every pair of documents that share a
//! passage (a partial copy), with the passages, and the boilerplate set
//! apart. The search is `priorart_dedup::passages` (winnowing postings
//! sorted on disk, candidate pairs counted on disk, the candidates
//! re-read and aligned); this reads the inputs (`corpus`, marks computed
//! on all cores), shows progress, and writes the pairs as they are found
//! (`priorart_dedup::passage_files`: to a temporary file that takes its
//! name only when the run is complete).

use crate::corpus;
use crate::dedup_passages_against::AgainstIndex;
use crate::dedup_run::{Bars, Run};
use crate::exit;
use anyhow::Result;
use priorart_corpus::{Wanted, WithX};
use priorart_dedup::passage_files::PassageFiles;
use priorart_dedup::passages::{PassageSettings, Postings, boilerplate_line, find_passages};
use priorart_dedup::{Catalog, DedupError, Places};
use std::process::ExitCode;
use std::time::Instant;

impl Run<'_> {
    /// Two passes: marks first, then the candidates read again and aligned.
    pub(crate) fn passages(&self) -> Result<ExitCode> {
        let args = self.args;
        let mut settings = PassageSettings::new(args.min_words, args.boilerplate)
            .and_then(|settings| settings.with_min_marks(args.min_marks))
            .and_then(|settings| settings.with_min_coverage(args.min_coverage))
            .map(|settings| settings.with_passage_text(args.passage_text))
            .map_err(|err| exit::UsageError(err.to_string()))?;
        if let Some(bytes) = args.working_set {
            settings.working_set = Some(bytes);
        }
        let against = AgainstIndex::open(args, &settings)?;
        let mut catalog: Catalog<Places> = Catalog::without_simhashes();
        let mut postings = Postings::new(&settings);
        let wanted = Wanted {
            x: WithX::No,
            simhash: None,
            shingles: None,
            unique_ids: false,
            marks: Some(settings.winnowing.clone()),
        };
        let started = Instant::now();
        let mut unmarked = 0usize;
        let read = corpus::read_all(&args.corpus, &wanted, |batch| {
            self.check()?;
            for document in batch {
                let number = u32::try_from(catalog.len()).map_err(|_| DedupError::TooManyDocuments)?;
                catalog.push(&document.id, document.simhash.0, document.place, document.text_bytes, &[])?;
                match &document.marks {
                    Ok(marks) => postings.add(number, marks)?,
                    Err(err) => {
                        note!("priorart: {}: not searched for passages: {err}", document.id);
                        unmarked += 1;
                    }
                }
            }
            Ok(())
        })?;
        note!(
            "priorart: winnowing ({}, {}): {:.1} s",
            crate::counted(catalog.len() as u64, "document"),
            crate::counted(postings.len(), "winnowing mark"),
            started.elapsed().as_secs_f64()
        );
        let rereader = args.corpus.rereader(&read);
        self.check_inputs(&catalog, &read, |number| rereader.origin(catalog.kept().place(number)))?;
        let earlier = self.outputs.iter().any(|path| path.exists());
        let mut files = PassageFiles::create(&args.out)?;
        let bars = Bars::default();
        let outcome = find_passages(&catalog, postings, &settings, &rereader, self.control(&bars), |round| {
            round.iter().try_for_each(|found| files.write_line(&found.line))
        });
        bars.finish();
        let outcome = outcome?;
        if let Some(against) = &against {
            against.run(self, &catalog, &settings, &rereader, &mut files)?;
        }
        let files = files.complete()?;
        let boilerplate: String =
            outcome.boilerplate.iter().map(|found| boilerplate_line(&catalog, found)).collect();
        let mut others = Vec::new();
        if args.corpus.skip_unreadable {
            others.push((args.out.join(priorart_corpus::SKIPPED), read.unreadable_lines()));
        }
        // The last moment to stop with nothing written.
        self.check()?;
        files.place(boilerplate.as_bytes(), &others)?;
        note!(
            "priorart: {} ({} skipped{}), {} sharing {} winnowing hashes or more ({} of them close together, \
             aligned), {} sharing passages of {} words or more ({}){}, {} (hashes in more than {})",
            crate::counted(catalog.len() as u64, "document"),
            read.skipped(),
            if unmarked > 0 { format!(", {unmarked} too large to search") } else { String::new() },
            crate::counted(outcome.sharing as u64, "pair"),
            settings.min_marks,
            outcome.candidates,
            crate::counted(outcome.pairs as u64, "pair"),
            settings.min_words,
            crate::counted(outcome.passages as u64, "passage"),
            if outcome.unaligned > 0 {
                format!(", {} the aligner refused (too large or too repetitive)", outcome.unaligned)
            } else {
                String::new()
            },
            crate::counted(outcome.boilerplate.len() as u64, "boilerplate passage"),
            crate::counted(u64::from(settings.boilerplate), "document"),
        );
        if args.working_set.is_none() && outcome.working_set < PassageSettings::DEFAULT_WORKING_SET {
            note!(
                "priorart: pass 2 held {} MiB of texts at once, not {} MiB: the catalog of {} took the rest \
                 (--working-set sets it)",
                outcome.working_set >> 20,
                PassageSettings::DEFAULT_WORKING_SET >> 20,
                crate::counted(catalog.len() as u64, "document"),
            );
        }
        let verb = if earlier { "replaced the earlier results in" } else { "wrote" };
        note!("priorart: {verb} {} and {}", self.outputs[0].display(), self.outputs[1].display());
        if args.corpus.skip_unreadable && !read.unreadable.is_empty() {
            note!(
                "priorart: {} skipped, listed in {}",
                crate::counted(read.unreadable.len() as u64, "unreadable input"),
                args.out.join(priorart_corpus::SKIPPED).display()
            );
        }
        Ok(ExitCode::from(if read.had_errors() { exit::BAD_INPUT } else { exit::OK }))
    }
}
