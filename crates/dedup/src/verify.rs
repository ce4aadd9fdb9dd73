//! Pass 2 with places: the candidate documents re-read in the order of
//! their places, a bounded working set at a time.
//!
//! The candidate documents are ranked by place, and each pair is verified
//! in the round of its earlier document. A round holds the shingles of a
//! chunk of consecutive ranks (three quarters of the working set's text)
//! and verifies the pairs inside it; the later documents paired with the
//! chunk are then streamed past it in rank order, a quarter of the working
//! set at a time, and dropped. Each pair is verified exactly once; each
//! document is read once as part of a chunk and at most once per round
//! that pairs it with an earlier chunk, always in rank order, so the reads
//! of a round go forward through the inputs. Memory is the working set's
//! shingles, whatever the collection's size.

use crate::catalog::{Catalog, Places};
use crate::error::DedupError;
use crate::{Control, Phase, Settings};
use priorart_fingerprint::{Shingling, WordShingles};
use priorart_index::{Pair, VerifiedPair};
use rayon::prelude::*;
use std::ops::Range;

/// Why a front end could not read a document again.
pub type RereadError = Box<dyn std::error::Error + Send + Sync>;

/// A front end's way back to its documents.
pub trait Reread: Sync {
    /// The texts of the documents at `places`, in that order (sorted by
    /// [`crate::Place::order`]): each exactly the text pass 1 fingerprinted.
    fn texts(&self, places: &[crate::Place]) -> Result<Vec<String>, RereadError>;
}

/// Candidate pairs by rank: `(earlier rank, later rank, candidate index)`.
type Ranked = (u32, u32, u32);

pub(crate) fn by_rereading(
    catalog: &Catalog<Places>,
    candidates: &[Pair],
    settings: &Settings,
    reread: &dyn Reread,
    control: Control<'_>,
) -> Result<Vec<VerifiedPair>, DedupError> {
    control.progress.phase(Phase::Verifying, candidates.len() as u64);
    let documents = in_place_order(catalog, candidates);
    let ranked = ranked_pairs(catalog.len(), &documents, candidates);
    let reader = Reader {
        catalog,
        documents: &documents,
        reread,
        stream_bytes: (settings.working_set / 4).max(1),
        shingling: settings.shingling,
        control,
    };
    let held_bytes = (settings.working_set * 3 / 4).max(1);
    let round = Round { reader: &reader, candidates, min: settings.min_jaccard };
    let mut verified = Vec::new();
    let mut start = 0;
    while start < ranked.len() {
        control.check()?;
        let chunk = reader.chunk(ranked[start].0 as usize, held_bytes);
        let end = start + ranked[start..].partition_point(|pair| (pair.0 as usize) < chunk.end);
        verified.extend(round.verify(&ranked[start..end], chunk.end as u32)?);
        start = end;
    }
    control.check()?;
    Ok(verified)
}

/// The documents of the candidate pairs, each once, in place order.
fn in_place_order(catalog: &Catalog<Places>, candidates: &[Pair]) -> Vec<u32> {
    let mut documents: Vec<u32> = candidates.iter().flat_map(|pair| [pair.a, pair.b]).collect();
    documents.par_sort_unstable();
    documents.dedup();
    let places = catalog.kept();
    documents.par_sort_unstable_by_key(|&number| places.place(number).order());
    documents
}

/// The pairs by the ranks of their documents, sorted.
fn ranked_pairs(count: usize, documents: &[u32], candidates: &[Pair]) -> Vec<Ranked> {
    let mut rank = vec![u32::MAX; count];
    for (position, &number) in (0u32..).zip(documents) {
        rank[number as usize] = position;
    }
    let mut ranked: Vec<Ranked> = (0u32..)
        .zip(candidates)
        .map(|(index, pair)| {
            let (x, y) = (rank[pair.a as usize], rank[pair.b as usize]);
            (x.min(y), x.max(y), index)
        })
        .collect();
    ranked.par_sort_unstable();
    ranked
}

/// Reads ranked documents back and shingles them.
struct Reader<'a> {
    catalog: &'a Catalog<Places>,
    documents: &'a [u32],
    reread: &'a dyn Reread,
    /// How the texts read back are cut into words.
    shingling: Shingling,
    /// Text bytes read at once.
    stream_bytes: u64,
    control: Control<'a>,
}

impl Reader<'_> {
    fn text_bytes(&self, rank: u32) -> u64 {
        u64::from(self.catalog.kept().text_bytes(self.documents[rank as usize]))
    }

    /// Ranks from `first` on whose texts total at most `bytes` (at least one).
    fn chunk(&self, first: usize, bytes: u64) -> Range<usize> {
        let mut total = 0;
        let mut end = first;
        while end < self.documents.len() && (end == first || total + self.text_bytes(end as u32) <= bytes) {
            total += self.text_bytes(end as u32);
            end += 1;
        }
        first..end
    }

    /// `ranks` (sorted) cut into runs of at most `stream_bytes` of text.
    fn batches<'r>(&self, ranks: &'r [u32]) -> Vec<&'r [u32]> {
        let mut batches = Vec::new();
        let mut rest = ranks;
        while !rest.is_empty() {
            let (mut total, mut take) = (0, 0);
            while take < rest.len() && (take == 0 || total + self.text_bytes(rest[take]) <= self.stream_bytes)
            {
                total += self.text_bytes(rest[take]);
                take += 1;
            }
            let (batch, after) = rest.split_at(take);
            batches.push(batch);
            rest = after;
        }
        batches
    }

    /// The shingles of one batch of ranks, read in rank order.
    fn shingles(&self, ranks: &[u32]) -> Result<Vec<WordShingles>, DedupError> {
        self.control.check()?;
        let places = self.catalog.kept();
        let numbers: Vec<u32> = ranks.iter().map(|&rank| self.documents[rank as usize]).collect();
        let at: Vec<crate::Place> = numbers.iter().map(|&number| places.place(number)).collect();
        let texts = self.reread.texts(&at).map_err(DedupError::Reread)?;
        if texts.len() != numbers.len() {
            return Err(DedupError::Reread(
                format!("{} texts for {} documents", texts.len(), numbers.len()).into(),
            ));
        }
        for (&number, text) in numbers.iter().zip(&texts) {
            let again = u32::try_from(text.len()).unwrap_or(u32::MAX);
            if again != places.text_bytes(number) {
                return Err(DedupError::Changed {
                    id: self.catalog.ids().get(number).to_owned(),
                    first: u64::from(places.text_bytes(number)),
                    again: text.len() as u64,
                });
            }
        }
        Ok(texts.par_iter().map(|text| WordShingles::of(text, self.shingling)).collect())
    }
}

/// One round's work: the pairs whose earlier document is in a chunk.
struct Round<'a> {
    reader: &'a Reader<'a>,
    candidates: &'a [Pair],
    min: f64,
}

impl Round<'_> {
    /// Verifies `pairs` (their earlier ranks in the chunk, which ends at
    /// rank `end`).
    fn verify(&self, pairs: &[Ranked], end: u32) -> Result<Vec<VerifiedPair>, DedupError> {
        let mut held_ranks: Vec<u32> =
            pairs.iter().flat_map(|&(x, y, _)| std::iter::once(x).chain((y < end).then_some(y))).collect();
        held_ranks.sort_unstable();
        held_ranks.dedup();
        let mut held: Vec<WordShingles> = Vec::with_capacity(held_ranks.len());
        for batch in self.reader.batches(&held_ranks) {
            held.extend(self.reader.shingles(batch)?);
        }
        let held_of = |rank: u32| &held[held_ranks.binary_search(&rank).expect("a held rank")];
        let (inside, mut later): (Vec<Ranked>, Vec<Ranked>) = pairs.iter().partition(|pair| pair.1 < end);
        let mut verified: Vec<VerifiedPair> = inside
            .par_iter()
            .filter_map(|&(x, y, index)| self.check(index, held_of(x), held_of(y)))
            .collect();
        self.reader.control.progress.advance(inside.len() as u64);
        later.sort_unstable_by_key(|pair| pair.1);
        let mut partners: Vec<u32> = later.iter().map(|pair| pair.1).collect();
        partners.dedup();
        let mut rest = &later[..];
        for batch in self.reader.batches(&partners) {
            let streamed = self.reader.shingles(batch)?;
            let last = *batch.last().expect("batches are not empty");
            let here = rest.partition_point(|pair| pair.1 <= last);
            let (now, after) = rest.split_at(here);
            verified.par_extend(now.par_iter().filter_map(|&(x, y, index)| {
                let position = batch.binary_search(&y).expect("a streamed rank");
                self.check(index, held_of(x), &streamed[position])
            }));
            self.reader.control.progress.advance(now.len() as u64);
            rest = after;
        }
        Ok(verified)
    }

    fn check(&self, index: u32, x: &WordShingles, y: &WordShingles) -> Option<VerifiedPair> {
        let Pair { a, b, distance } = self.candidates[index as usize];
        let jaccard = x.jaccard(y);
        (jaccard >= self.min).then_some(VerifiedPair { a, b, distance, jaccard })
    }
}
