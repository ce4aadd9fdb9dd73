//! Deduplication of texts a caller hands over in batches (the Python
//! package's `dedup`, Spark workers): no file to re-read, so pass 1 writes
//! each text to a temporary spill file as it arrives (its [`Place`] is its
//! offset there) and pass 2 re-reads the candidates from it. Memory stays
//! that of a file-backed run: the catalog, the candidates and the working
//! set, whatever the texts' total size; the disk holds the texts once.
//! [`PassageCollection`] does the same for the passage search.

use crate::catalog::{Catalog, Place, Places};
use crate::error::DedupError;
use crate::passages::{Found, PassageOutcome, PassageSettings, Postings, find_passages};
use crate::verify::{Reread, RereadError};
use crate::{Control, Outcome, Settings};
use priorart_align::Mark;
use priorart_fingerprint::{Fingerprinter, WordShingles};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Whether a text is empty or only white space: nothing to compare (every
/// such text has the same fingerprints, so they would all pair with each
/// other); front ends skip and count them.
pub fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// One document of a batch: its id and its text.
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    /// The caller's id (each document needs its own).
    pub id: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// The texts written so far, in one temporary file (deleted when dropped).
#[derive(Debug)]
pub struct Spill {
    writer: BufWriter<File>,
    written: u64,
}

impl Spill {
    /// An empty spill file in `temp_dir` (the system's when `None`).
    pub fn new(temp_dir: Option<&Path>) -> Result<Spill, DedupError> {
        let file = crate::runs::temp_file(temp_dir).map_err(DedupError::Spill)?;
        Ok(Spill { writer: BufWriter::with_capacity(1 << 20, file), written: 0 })
    }

    /// Appends `text`; where it is (input 0, its offset, its length as the
    /// extent).
    pub fn append(&mut self, text: &str) -> Result<Place, DedupError> {
        let extent =
            u32::try_from(text.len()).map_err(|_| DedupError::TextTooLong { bytes: text.len() as u64 })?;
        self.writer.write_all(text.as_bytes()).map_err(DedupError::Spill)?;
        let place = Place { input: 0, offset: self.written, extent };
        self.written += text.len() as u64;
        Ok(place)
    }

    /// Bytes written.
    pub fn len(&self) -> u64 {
        self.written
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.written == 0
    }

    /// The file, every text flushed to it, to read back.
    pub fn finish(self) -> Result<SpillReader, DedupError> {
        let file = self.writer.into_inner().map_err(|err| DedupError::Spill(err.into_error()))?;
        Ok(SpillReader { file })
    }
}

/// A finished [`Spill`], read back by place.
#[derive(Debug)]
pub struct SpillReader {
    file: File,
}

impl Reread for SpillReader {
    fn texts(&self, places: &[Place]) -> Result<Vec<String>, RereadError> {
        places
            .par_iter()
            .map(|place| {
                let mut bytes = vec![0; place.extent as usize];
                self.file.read_exact_at(&mut bytes, place.offset)?;
                // Written from a `&str`: valid UTF-8 unless the file was changed.
                String::from_utf8(bytes).map_err(RereadError::from)
            })
            .collect()
    }
}

/// A collection of texts being catalogued: batches go in
/// ([`TextCollection::push`]), then [`TextCollection::deduplicate`] finds
/// the verified pairs as `priorart dedup` does for files (the same
/// settings, candidates, shingling and verification).
#[derive(Debug)]
pub struct TextCollection {
    settings: Settings,
    catalog: Catalog<Places>,
    spill: Spill,
    empty: u64,
}

impl TextCollection {
    /// An empty collection for `settings`; its spill file and band keys go
    /// in `temp_dir` (the system's when `None`).
    pub fn new(settings: Settings, temp_dir: Option<&Path>) -> Result<TextCollection, DedupError> {
        let catalog = match settings.lsh() {
            Some(lsh) => Catalog::with_band_keys(lsh, temp_dir)?,
            None => Catalog::new(),
        };
        Ok(TextCollection { settings, catalog, spill: Spill::new(temp_dir)?, empty: 0 })
    }

    /// Adds a batch: fingerprints and band keys computed on all cores (of
    /// the current rayon pool), texts spilled in order. Blank texts are
    /// skipped and counted ([`TextCollection::empty`]).
    pub fn push(&mut self, batch: &[Document<'_>]) -> Result<(), DedupError> {
        let lsh = self.settings.lsh();
        let shingling = self.settings.shingling;
        let fingerprinted: Vec<Option<(u64, Vec<u32>)>> = batch
            .par_iter()
            .map_init(Fingerprinter::new, |fingerprinter, document| {
                if is_blank(document.text) {
                    return None;
                }
                let simhash = fingerprinter.simhash_doc(document.text, shingling.token_rule()).0;
                let mut keys = Vec::new();
                if let Some(lsh) = lsh {
                    lsh.band_keys(&WordShingles::of(document.text, shingling), &mut keys);
                }
                Some((simhash, keys))
            })
            .collect();
        for (document, found) in batch.iter().zip(fingerprinted) {
            let Some((simhash, keys)) = found else {
                self.empty += 1;
                continue;
            };
            let place = self.spill.append(document.text)?;
            self.catalog.push(document.id, simhash, place, document.text.len(), &keys)?;
        }
        Ok(())
    }

    /// Documents kept (blank ones are not).
    pub fn len(&self) -> usize {
        self.catalog.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.catalog.is_empty()
    }

    /// Blank texts skipped.
    pub fn empty(&self) -> u64 {
        self.empty
    }

    /// The catalog so far (ids, simhash-doc values).
    pub fn catalog(&self) -> &Catalog<Places> {
        &self.catalog
    }

    /// Every verified pair and cluster, and the catalog their document
    /// numbers refer to (for [`crate::output`]). Refuses an id given to two
    /// documents ([`DedupError::RepeatedId`]).
    pub fn deduplicate(mut self, control: Control<'_>) -> Result<(Catalog<Places>, Outcome), DedupError> {
        refuse_repeated_ids(&self.catalog)?;
        let reader = self.spill.finish()?;
        let outcome = crate::deduplicate(&mut self.catalog, &self.settings, &reader, control)?;
        Ok((self.catalog, outcome))
    }
}

/// A collection of texts searched for shared passages as `priorart dedup
/// --passages` searches files: batches go in ([`PassageCollection::push`]:
/// winnowing marks computed on all cores, texts spilled in order), then
/// [`PassageCollection::search`] runs [`crate::passages::find_passages`] on them,
/// the candidates re-read from the spill file.
pub struct PassageCollection {
    settings: PassageSettings,
    catalog: Catalog<Places>,
    postings: Postings,
    spill: Spill,
    empty: u64,
    unmarked: u64,
}

impl PassageCollection {
    /// An empty collection searched with `settings`; its spill file and
    /// sorted runs go in `settings.temp_dir`.
    pub fn new(settings: PassageSettings) -> Result<PassageCollection, DedupError> {
        let spill = Spill::new(settings.temp_dir.as_deref())?;
        let postings = Postings::new(&settings);
        Ok(PassageCollection {
            settings,
            catalog: Catalog::without_simhashes(),
            postings,
            spill,
            empty: 0,
            unmarked: 0,
        })
    }

    /// Adds a batch, in order. Blank texts are skipped and counted
    /// ([`PassageCollection::empty`]), as the CLI skips them; a text
    /// winnowing refuses (too large) is kept without marks, so in no pair
    /// ([`PassageCollection::unmarked`]).
    pub fn push(&mut self, batch: &[Document<'_>]) -> Result<(), DedupError> {
        let winnowing = &self.settings.winnowing;
        let marked: Vec<Option<Result<Vec<Mark>, _>>> = batch
            .par_iter()
            .map(|document| (!is_blank(document.text)).then(|| winnowing.marks(document.text)))
            .collect();
        for (document, marks) in batch.iter().zip(marked) {
            let Some(marks) = marks else {
                self.empty += 1;
                continue;
            };
            let number = u32::try_from(self.catalog.len()).map_err(|_| DedupError::TooManyDocuments)?;
            let place = self.spill.append(document.text)?;
            // The search needs no simhash-doc value.
            self.catalog.push(document.id, 0, place, document.text.len(), &[])?;
            match marks {
                Ok(marks) => self.postings.add(number, &marks)?,
                Err(_) => self.unmarked += 1,
            }
        }
        Ok(())
    }

    /// Documents kept (blank ones are not).
    pub fn len(&self) -> usize {
        self.catalog.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.catalog.is_empty()
    }

    /// Blank texts skipped.
    pub fn empty(&self) -> u64 {
        self.empty
    }

    /// Texts kept without marks (too large to winnow).
    pub fn unmarked(&self) -> u64 {
        self.unmarked
    }

    /// Every pair sharing passages, handed to `found` a round at a time as
    /// [`crate::passages::find_passages`] finds them, and the outcome (with the
    /// boilerplate) and the catalog its document numbers refer to (for
    /// [`crate::passages::boilerplate_line`]). Refuses an id given to two
    /// documents ([`DedupError::RepeatedId`]).
    pub fn search(
        self,
        control: Control<'_>,
        found: impl FnMut(Vec<Found>) -> Result<(), DedupError>,
    ) -> Result<(Catalog<Places>, PassageOutcome), DedupError> {
        refuse_repeated_ids(&self.catalog)?;
        let reader = self.spill.finish()?;
        let outcome = find_passages(&self.catalog, self.postings, &self.settings, &reader, control, found)?;
        Ok((self.catalog, outcome))
    }
}

/// [`DedupError::RepeatedId`] for the first id given to two documents.
fn refuse_repeated_ids(catalog: &Catalog<Places>) -> Result<(), DedupError> {
    let (repeated, count) = catalog.ids().repeated(1);
    match repeated.first() {
        None => Ok(()),
        Some(&(earlier, later)) => Err(DedupError::RepeatedId {
            id: catalog.ids().get(later).to_owned(),
            first: earlier,
            second: later,
            count,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Quiet;
    use priorart_fingerprint::Shingling;
    use std::sync::atomic::AtomicBool;

    /// A text of 120 distinct words.
    fn base() -> String {
        (0..120).map(|n| format!("word{n} ")).collect()
    }

    fn run(texts: &[(&str, &str)]) -> Result<(Catalog<Places>, Outcome, u64), DedupError> {
        let settings = Settings::new(6, 0.8, Shingling::default())?.with_working_set(64);
        let mut collection = TextCollection::new(settings, None)?;
        let batch: Vec<Document<'_>> = texts.iter().map(|&(id, text)| Document { id, text }).collect();
        // Two batches: places continue across them.
        let (first, second) = batch.split_at(batch.len() / 2);
        collection.push(first)?;
        collection.push(second)?;
        let empty = collection.empty();
        let stop = AtomicBool::new(false);
        let (catalog, outcome) = collection.deduplicate(Control { progress: &Quiet, stop: &stop })?;
        Ok((catalog, outcome, empty))
    }

    #[test]
    fn near_copies_are_paired_blank_texts_skipped_and_counted() {
        let base = base();
        // One word changed: 5 of 116 5-grams differ (J = 111/121).
        let copy = base.replace("word60 ", "changed ");
        let other = "an entirely different text about compilers, linkers and loaders of many kinds";
        let (catalog, outcome, empty) =
            run(&[("a", &base), ("blank", "  \n"), ("other", other), ("", ""), ("b", &copy)]).unwrap();
        assert_eq!(empty, 2);
        assert_eq!(catalog.len(), 3);
        assert_eq!(outcome.pairs.len(), 1);
        let pair = outcome.pairs[0];
        assert_eq!((catalog.ids().get(pair.a), catalog.ids().get(pair.b)), ("a", "b"));
        let expected = WordShingles::of(&base, Shingling::default())
            .jaccard(&WordShingles::of(&copy, Shingling::default()));
        assert_eq!(pair.jaccard, expected);
        assert_eq!(outcome.clusters, vec![vec![0, 2]]);
    }

    #[test]
    fn an_id_given_twice_is_refused() {
        let err = run(&[("a", &base()), ("b", "other words here"), ("a", "more words")]).unwrap_err();
        assert!(matches!(err, DedupError::RepeatedId { first: 0, second: 2, count: 1, .. }), "{err}");
    }
}
