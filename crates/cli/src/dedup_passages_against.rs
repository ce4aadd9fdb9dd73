//! `priorart dedup --passages --against INDEX`: besides the pairs of new
//! documents (`dedup_passages`), each new document read again and looked
//! up in the index's passage marks; the pairs and their lines are
//! `priorart_dedup::passages_against`'s. The index is opened and checked
//! before any input is read, so an index without marks fails at once.

use crate::dedup_run::{Args, Bars, Run};
use anyhow::{Result, bail};
use priorart_dedup::passage_files::PassageFiles;
use priorart_dedup::passages::PassageSettings;
use priorart_dedup::passages_against::{IndexPassageOutcome, passages_against_index};
use priorart_dedup::{Catalog, Places, Reread};
use priorart_index::{Index, IndexError, PassageSearch};
use std::path::PathBuf;

/// The index new documents are looked up in, and how.
pub(crate) struct AgainstIndex {
    path: PathBuf,
    index: Index,
    search: PassageSearch,
}

impl AgainstIndex {
    /// The `--against` index, if one is given, checked to hold passage marks.
    pub(crate) fn open(args: &Args, settings: &PassageSettings) -> Result<Option<AgainstIndex>> {
        let Some(path) = &args.against else { return Ok(None) };
        let index = Index::open(path)?;
        if !index.has_marks() {
            bail!(IndexError::NoMarks(path.clone()));
        }
        let search = PassageSearch {
            min_words: settings.min_words,
            min_marks: settings.min_marks,
            boilerplate: settings.boilerplate,
            ..PassageSearch::default()
        };
        Ok(Some(AgainstIndex { path: path.clone(), index, search }))
    }

    /// Every document of `catalog` looked up, the lines of its pairs with
    /// the index's documents written to `out`.
    pub(crate) fn run(
        &self,
        run: &Run<'_>,
        catalog: &Catalog<Places>,
        settings: &PassageSettings,
        reread: &dyn Reread,
        out: &mut PassageFiles,
    ) -> Result<IndexPassageOutcome> {
        let bars = Bars::default();
        let outcome = passages_against_index(
            &self.index,
            catalog,
            &self.search,
            settings,
            reread,
            run.control(&bars),
            |pairs| pairs.iter().try_for_each(|pair| out.write_line(&pair.line)),
        );
        bars.finish();
        let outcome = outcome?;
        note!(
            "priorart: against {} ({}): {} sharing passages with {} of the documents{}",
            self.path.display(),
            crate::counted(self.index.len() as u64, "indexed document"),
            crate::counted(outcome.pairs as u64, "pair"),
            outcome.documents - outcome.refused,
            if outcome.refused > 0 {
                format!(" ({} too large to look up)", outcome.refused)
            } else {
                String::new()
            }
        );
        Ok(outcome)
    }
}
