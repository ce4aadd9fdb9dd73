//! Pass 2 with places: the candidate documents re-read in the order of
//! their places, a bounded working set at a time. The schedule
//! (`each_pair`) is shared: `dedup` compares word shingles, the passage
//! search aligns the texts.
//!
//! The candidate documents are ranked by place, and each pair is verified
//! in the round of its earlier document. The pairs come from the front end
//! as it holds them ([`CandidatePairs`]: in memory for `dedup`, in a
//! temporary file for the passage search, whose candidates are tens of
//! millions on a few GB) and are sorted by rank in an external sort
//! ([`Runs`]), so that pass 2 holds one round's pairs at a time. A round
//! holds the shingles of a chunk of consecutive ranks (three quarters of
//! the working set's text) and verifies the pairs inside it; the later
//! documents paired with the chunk are then streamed past it in rank
//! order, an eighth of the working set at a time (the next eighth read
//! while the pairs of this one are checked), and dropped. What the checks
//! return is handed to the front end on the calling thread while the next
//! checks run ([`Handing`]). Each pair is verified exactly once; each
//! document is read once as part of a chunk and at most once per round
//! that pairs it with an earlier chunk, always in rank order, so the reads
//! of a round go forward through the inputs. Memory is the working set's
//! shingles, whatever the collection's size.
//!
//! A document streamed past many rounds (in a collection whose documents
//! each share passages with others all over it, nearly every later
//! document is streamed past nearly every round) would be read and
//! prepared again each time: what a front end's [`Stored`] can write is
//! kept in a temporary file the first time a document is streamed, and
//! read back afterwards (a copy, where preparing it again meant parsing
//! its record and cutting and winnowing its text).

use crate::catalog::{Catalog, Places};
use crate::error::DedupError;
use crate::runs::{Merged, Runs, Spooled};
use crate::spare::Spare;
use crate::{Control, Phase, Settings};
use priorart_fingerprint::WordShingles;
use priorart_index::{Pair, VerifiedPair};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why a front end could not read a document again.
pub type RereadError = Box<dyn std::error::Error + Send + Sync>;

/// A front end's way back to its documents.
pub trait Reread: Sync {
    /// The texts of the documents at `places`, in that order (sorted by
    /// [`crate::Place::order`]): each exactly the text pass 1 fingerprinted.
    fn texts(&self, places: &[crate::Place]) -> Result<Vec<String>, RereadError>;
}

/// How what `prepare` makes of a text is written to a temporary file
/// (`write`) and read back (`read`: checked, a damaged record refused).
pub(crate) struct Stored<T> {
    pub(crate) write: fn(&T, &mut Vec<u8>),
    pub(crate) read: fn(&[u8]) -> Result<T, DedupError>,
}

/// What pass 2 holds: `working_set` bytes of prepared texts at once (see
/// [`crate::Settings::working_set`]), each document counted as
/// `held_bytes` says (by its number: its text's bytes for `dedup`, what is
/// made of it for the passage search), the pairs sorted by rank in buffers
/// of `sort_memory` bytes, and its temporary files in `temp_dir` (the
/// system's when `None`).
#[derive(Clone, Copy)]
pub(crate) struct Memory<'a> {
    pub(crate) working_set: u64,
    pub(crate) held_bytes: &'a (dyn Fn(u32) -> u64 + Sync),
    pub(crate) sort_memory: u64,
    pub(crate) temp_dir: Option<&'a Path>,
    /// The search's spare files, for its store to write over.
    pub(crate) spare: Option<&'a Spare>,
}

/// A candidate pair as [`each_pair`] takes it: two document numbers, the
/// smaller first, and what its check needs to know of it besides them (a
/// tag: `dedup`'s simhash distance, the passage search's shared marks).
pub(crate) type Tagged = (u32, u32, u32);

/// The candidate pairs [`each_pair`] checks, read twice: once for their
/// documents, once for their ranks.
pub(crate) trait CandidatePairs {
    fn len(&self) -> u64;
    /// Calls `visit` with each pair, until it fails.
    fn each(&mut self, visit: &mut dyn FnMut(Tagged) -> Result<(), DedupError>) -> Result<(), DedupError>;
}

/// `dedup`'s candidates, held: tagged with their distance.
impl CandidatePairs for &[Pair] {
    fn len(&self) -> u64 {
        <[Pair]>::len(self) as u64
    }

    fn each(&mut self, visit: &mut dyn FnMut(Tagged) -> Result<(), DedupError>) -> Result<(), DedupError> {
        self.iter().try_for_each(|pair| visit((pair.a, pair.b, pair.distance)))
    }
}

/// Candidates written to temporary files (one per part of a search's
/// merge), read one file after another. A type of its own, not a bare
/// `Vec`, so that `len` is always the candidates', never the files'.
pub(crate) struct SpooledPairs(pub(crate) Vec<Spooled<Tagged>>);

impl CandidatePairs for SpooledPairs {
    fn len(&self) -> u64 {
        self.0.iter().map(Spooled::len).sum()
    }

    fn each(&mut self, visit: &mut dyn FnMut(Tagged) -> Result<(), DedupError>) -> Result<(), DedupError> {
        self.0.iter_mut().try_for_each(|spooled| spooled.records()?.try_for_each(|pair| visit(pair?)))
    }
}

/// The prepared documents written so far: the files they are in, where
/// each rank's record is (its file and offset, [`NOT_STORED`] until it is
/// written, and its length), and where the next goes. Offsets and lengths
/// side by side take 12 bytes a document, where `Option<(u64, u32)>` took
/// 24 (its padding holds no tag): what pass 2 holds grows with the
/// documents.
///
/// The files are the search's spare ones first ([`Spare`]: its sorted
/// runs, merged), written over from their start, then one of its own:
/// on the 3 GB generated corpus, 5.5 GB of the store's 8.5 written over
/// pages the runs left cached instead of new ones (verifying took 110 s
/// instead of 133–140 in one hour, and within noise of the old build an
/// hour later: BENCHMARKS.md, stop 61).
struct Store {
    files: Vec<StoreFile>,
    offsets: Vec<u64>,
    lengths: Vec<u32>,
    /// The file written now, and where its next record goes.
    current: usize,
    end: u64,
    temp_dir: Option<PathBuf>,
}

/// A file of the store, and the offset a record may start before in it: a
/// spare file's length (a record may run past it: it is only written over
/// where it has pages), unbounded in the store's own file.
struct StoreFile {
    file: File,
    room: u64,
}

/// The offset of a rank not written to the store.
const NOT_STORED: u64 = u64::MAX;

/// Bits of an offset in one of the store's files, below the file's index
/// (a search's spare files are at most [`crate::spare::MOST_SPARE_FILES`]).
const OFFSET_BITS: u32 = 48;

/// Prepared documents written to the store at once.
const STORED_AT_ONCE: usize = 64;

/// A candidate pair by rank: `(earlier rank, later rank, tag)`.
type Ranked = (u32, u32, u32);

pub(crate) fn by_rereading(
    catalog: &Catalog<Places>,
    candidates: &[Pair],
    settings: &Settings,
    reread: &dyn Reread,
    control: Control<'_>,
) -> Result<Vec<VerifiedPair>, DedupError> {
    let shingling = settings.shingling;
    let mut verified = Vec::new();
    // As many candidates as `dedup` holds already: sorted in memory.
    let places = catalog.kept();
    let held_bytes = |number: u32| u64::from(places.text_bytes(number));
    let memory = Memory {
        working_set: settings.working_set,
        held_bytes: &held_bytes,
        sort_memory: u64::MAX,
        temp_dir: None,
        spare: None,
    };
    each_pair(
        catalog,
        &mut { candidates },
        memory,
        reread,
        control,
        (|text| WordShingles::of(&text, shingling), None),
        |(a, b, distance), x: &WordShingles, y: &WordShingles| {
            let jaccard = x.jaccard(y);
            (jaccard >= settings.min_jaccard).then_some(VerifiedPair { a, b, distance, jaccard })
        },
        |found| {
            verified.extend(found);
            Ok(())
        },
    )?;
    Ok(verified)
}

/// The most pairs whose results are handed over at once: what checks
/// return (a passage search's lines) is held until then, so this bounds
/// it, not the pairs of a round.
const PAIRS_PER_CALL: usize = 4096;

/// Calls `check` once for every pair of `pairs` on what `prepare` made of
/// its two texts (in the pair's order), re-reading the documents in place
/// order a working set at a time (see the module's documentation), those
/// streamed more than once read back from a temporary file when
/// `stored` says how; what the checks return goes to `found` at most
/// [`PAIRS_PER_CALL`] pairs at a time (the pairs inside a round's chunk,
/// then those of each batch streamed past it), in a fixed order.
#[allow(clippy::too_many_arguments)]
pub(crate) fn each_pair<T: Send + Sync, R: Send>(
    catalog: &Catalog<Places>,
    pairs: &mut dyn CandidatePairs,
    memory: Memory<'_>,
    reread: &dyn Reread,
    control: Control<'_>,
    (prepare, stored): (impl Fn(String) -> T + Sync, Option<Stored<T>>),
    check: impl Fn(Tagged, &T, &T) -> Option<R> + Sync,
    mut found: impl FnMut(Vec<R>) -> Result<(), DedupError>,
) -> Result<(), DedupError> {
    control.progress.phase(Phase::Verifying, pairs.len());
    let documents = in_place_order(catalog, pairs)?;
    let mut ranked = ranked_pairs(catalog.len(), &documents, pairs, memory)?.peekable();
    let store = match &stored {
        Some(_) => {
            let spare = memory.spare.map(Spare::take).unwrap_or_default();
            Some(Mutex::new(Store::new(memory.temp_dir, documents.len(), spare)?))
        }
        None => None,
    };
    let reader = Reader {
        catalog,
        documents: &documents,
        held_bytes: memory.held_bytes,
        reread,
        stream_bytes: (memory.working_set / 8).max(1),
        prepare: &prepare,
        stored: stored.as_ref().zip(store.as_ref()),
        control,
    };
    let held_bytes = (memory.working_set * 3 / 4).max(1);
    let round = Round { reader: &reader, check: &check };
    let mut handing = Handing { found: &mut found, pending: None };
    let mut of_round: Vec<Ranked> = Vec::new();
    loop {
        control.check()?;
        let first = match ranked.peek() {
            None => break,
            Some(Ok(pair)) => pair.0,
            Some(Err(_)) => return Err(ranked.next().and_then(Result::err).expect("the error peeked")),
        };
        let chunk = reader.chunk(first as usize, held_bytes);
        of_round.clear();
        while let Some(pair) =
            ranked.next_if(|pair| pair.as_ref().is_ok_and(|pair| (pair.0 as usize) < chunk.end))
        {
            of_round.push(pair?);
        }
        round.verify(&of_round, chunk.end as u32, &mut handing)?;
    }
    handing.finish()?;
    control.check()
}

/// The documents of the pairs, each once, in place order: flagged first
/// (a byte per document of the catalog), so that what is held through
/// pass 2 is one number per candidate document.
fn in_place_order(catalog: &Catalog<Places>, pairs: &mut dyn CandidatePairs) -> Result<Vec<u32>, DedupError> {
    let mut paired = vec![false; catalog.len()];
    pairs.each(&mut |(a, b, _)| {
        debug_assert!(a < b, "a pair's smaller number comes first");
        (paired[a as usize], paired[b as usize]) = (true, true);
        Ok(())
    })?;
    let mut documents: Vec<u32> =
        (0u32..).zip(&paired).filter(|(_, paired)| **paired).map(|(number, _)| number).collect();
    let places = catalog.kept();
    documents.par_sort_unstable_by_key(|&number| places.place(number).order());
    Ok(documents)
}

/// The pairs by the ranks of their documents, sorted (in `memory`'s sort
/// buffers, spilled past them).
fn ranked_pairs(
    count: usize,
    documents: &[u32],
    pairs: &mut dyn CandidatePairs,
    memory: Memory<'_>,
) -> Result<Merged<Ranked>, DedupError> {
    let mut rank = vec![u32::MAX; count];
    for (position, &number) in (0u32..).zip(documents) {
        rank[number as usize] = position;
    }
    let mut ranked = Runs::new(memory.sort_memory, memory.temp_dir);
    pairs.each(&mut |(a, b, tag)| {
        let (x, y) = (rank[a as usize], rank[b as usize]);
        ranked.push((x.min(y), x.max(y), tag))
    })?;
    ranked.merged()
}

/// Reads ranked documents back and prepares them.
struct Reader<'a, T> {
    catalog: &'a Catalog<Places>,
    documents: &'a [u32],
    /// What a document (by number) holds once prepared ([`Memory`]).
    held_bytes: &'a (dyn Fn(u32) -> u64 + Sync),
    reread: &'a dyn Reread,
    /// What is held of each text read back.
    prepare: &'a (dyn Fn(String) -> T + Sync),
    /// How it is written to and read from the store, and the store.
    stored: Option<(&'a Stored<T>, &'a Mutex<Store>)>,
    /// Bytes streamed at once (two such batches are held: one
    /// checked, the next read).
    stream_bytes: u64,
    control: Control<'a>,
}

impl Store {
    /// A store for `documents` ranks, writing over `spare` files (each with
    /// its length) before a file of its own in `temp_dir`.
    fn new(temp_dir: Option<&Path>, documents: usize, spare: Vec<(File, u64)>) -> Result<Store, DedupError> {
        let files = spare.into_iter().map(|(file, room)| StoreFile { file, room });
        let mut store = Store {
            files: files.collect(),
            offsets: vec![NOT_STORED; documents],
            lengths: vec![0; documents],
            current: 0,
            end: 0,
            temp_dir: temp_dir.map(Path::to_owned),
        };
        if store.files.is_empty() {
            store.add_own_file()?;
        }
        Ok(store)
    }

    /// Adds the store's own file, last: its room is unbounded.
    fn add_own_file(&mut self) -> Result<(), DedupError> {
        let file = crate::runs::temp_file(self.temp_dir.as_deref()).map_err(DedupError::Spill)?;
        self.files.push(StoreFile { file, room: u64::MAX });
        Ok(())
    }

    /// Where the record of `rank` is, if written: its place and length.
    fn place(&self, rank: u32) -> Option<(u64, u32)> {
        let offset = self.offsets[rank as usize];
        (offset != NOT_STORED).then(|| (offset, self.lengths[rank as usize]))
    }

    /// Reads the record at `place` ([`Store::place`]) into `record`, of its
    /// length.
    fn read(&self, place: u64, record: &mut [u8]) -> Result<(), DedupError> {
        let file = &self.files[(place >> OFFSET_BITS) as usize].file;
        file.read_exact_at(record, place & ((1 << OFFSET_BITS) - 1)).map_err(DedupError::Spill)
    }

    /// Writes the records of `ranks` (in that order) after the last one
    /// written: in the current file while the next starts inside its
    /// room, then in the next file.
    fn append(&mut self, ranks: &[u32], records: &[Vec<u8>]) -> Result<(), DedupError> {
        let mut placed = ranks.iter().zip(records).peekable();
        while placed.peek().is_some() {
            if self.end >= self.files[self.current].room {
                self.current += 1;
                self.end = 0;
                if self.current == self.files.len() {
                    self.add_own_file()?;
                }
            }
            let StoreFile { file, room } = &self.files[self.current];
            let mut writer = BufWriter::with_capacity(1 << 20, file);
            writer.seek(SeekFrom::Start(self.end)).map_err(DedupError::Spill)?;
            while let Some((&rank, record)) = placed.next_if(|_| self.end < *room) {
                writer.write_all(record).map_err(DedupError::Spill)?;
                let length = u32::try_from(record.len()).map_err(|_| too_long(record.len()))?;
                if self.end >= 1 << OFFSET_BITS {
                    return Err(DedupError::Spill(std::io::Error::other(
                        "a file of the store passed 256 TiB",
                    )));
                }
                let offset = (self.current as u64) << OFFSET_BITS | self.end;
                (self.offsets[rank as usize], self.lengths[rank as usize]) = (offset, length);
                self.end += u64::from(length);
            }
            writer.flush().map_err(DedupError::Spill)?;
        }
        Ok(())
    }
}

/// A prepared text too large for the store's records (4 GiB).
fn too_long(bytes: usize) -> DedupError {
    DedupError::Spill(std::io::Error::other(format!("a prepared text of {bytes} bytes: at most 4 GiB")))
}

impl<T: Send + Sync> Reader<'_, T> {
    fn held_bytes(&self, rank: u32) -> u64 {
        (self.held_bytes)(self.documents[rank as usize])
    }

    /// How many of `ranks`, from the first, hold at most `bytes` together
    /// (at least one, when there is one).
    fn holding(&self, ranks: impl Iterator<Item = u32>, bytes: u64) -> usize {
        let mut total = 0;
        ranks
            .enumerate()
            .take_while(|&(at, rank)| {
                total += self.held_bytes(rank);
                at == 0 || total <= bytes
            })
            .count()
    }

    /// Ranks from `first` on that hold at most `bytes` (at least one).
    fn chunk(&self, first: usize, bytes: u64) -> Range<usize> {
        let ranks = (first as u32)..self.documents.len() as u32;
        first..first + self.holding(ranks, bytes)
    }

    /// `ranks` (sorted) cut into runs that hold at most `stream_bytes`.
    fn batches<'r>(&self, ranks: &'r [u32]) -> Vec<&'r [u32]> {
        let mut batches = Vec::new();
        let mut rest = ranks;
        while !rest.is_empty() {
            let take = self.holding(rest.iter().copied(), self.stream_bytes);
            let (batch, after) = rest.split_at(take);
            batches.push(batch);
            rest = after;
        }
        batches
    }

    /// One batch of ranks, prepared, in rank order: those in the store read
    /// back from it, the others read and prepared (and, when `streamed`:
    /// they will be needed again, written to the store).
    fn prepared(&self, ranks: &[u32], streamed: bool) -> Result<Vec<T>, DedupError> {
        self.control.check()?;
        let Some((stored, store)) = self.stored else { return self.read_and_prepare(ranks) };
        // One batch is prepared at a time (the next batch is read only once
        // the one before it is): the lock never waits, it lets the threads
        // that take turns share the store.
        let mut store = store.lock().expect("the store's lock is not poisoned");
        let at: Vec<Option<(u64, u32)>> = ranks.iter().map(|&rank| store.place(rank)).collect();
        let missing: Vec<u32> =
            ranks.iter().zip(&at).filter(|(_, at)| at.is_none()).map(|(&rank, _)| rank).collect();
        let mut prepared = self.read_and_prepare(&missing)?.into_iter();
        if streamed {
            // A few records at a time: they are about 3.5 times their text.
            for (ranks, held) in
                missing.chunks(STORED_AT_ONCE).zip(prepared.as_slice().chunks(STORED_AT_ONCE))
            {
                let records: Vec<Vec<u8>> = held
                    .par_iter()
                    .map(|held| {
                        let mut record = Vec::new();
                        (stored.write)(held, &mut record);
                        record
                    })
                    .collect();
                store.append(ranks, &records)?;
            }
        }
        // Each record read into a buffer kept for the next, not into a
        // zeroed one of its own.
        let read_back: Vec<Option<T>> = at
            .par_iter()
            .map_init(Vec::new, |record, at| {
                let Some((place, length)) = *at else { return Ok(None) };
                record.resize(length as usize, 0);
                store.read(place, record)?;
                (stored.read)(record).map(Some)
            })
            .collect::<Result<_, DedupError>>()?;
        Ok(read_back
            .into_iter()
            .map(|held| held.or_else(|| prepared.next()).expect("one for each rank"))
            .collect())
    }

    /// One batch of ranks, read in rank order and prepared.
    fn read_and_prepare(&self, ranks: &[u32]) -> Result<Vec<T>, DedupError> {
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
        Ok(texts.into_par_iter().map(self.prepare).collect())
    }
}

/// The position in `ranks` (sorted) of each of `wanted` (sorted, each one
/// of `ranks`), found in one walk through both: a streamed batch's ranks
/// are spread over the later documents, too far apart for [`Positions`].
fn positions_in(ranks: &[u32], wanted: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut at = 0;
    wanted
        .map(|rank| {
            at += ranks[at..].iter().position(|&listed| listed == rank).expect("a rank listed");
            at as u32
        })
        .collect()
}

/// Where each of the ranks of a chunk (sorted, in one range of ranks) is
/// in their list, found in one step: a binary search through a round's
/// held ranks for every pair (hundreds of thousands of them, most steps a
/// cache miss) was 3 % of the 3 GB corpus's verifying.
struct Positions {
    first: u32,
    /// By rank from `first`: the position of each rank listed.
    at: Vec<u32>,
}

impl Positions {
    fn of(ranks: &[u32]) -> Positions {
        let (Some(&first), Some(&last)) = (ranks.first(), ranks.last()) else {
            return Positions { first: 0, at: Vec::new() };
        };
        let mut at = vec![u32::MAX; (last - first) as usize + 1];
        for (position, &rank) in (0u32..).zip(ranks) {
            at[(rank - first) as usize] = position;
        }
        Positions { first, at }
    }

    /// The position of `rank`, one of the ranks listed.
    fn of_rank(&self, rank: u32) -> usize {
        let position = rank.checked_sub(self.first).and_then(|from| self.at.get(from as usize));
        match position {
            Some(&position) if position != u32::MAX => position as usize,
            _ => panic!("rank {rank} is not listed"),
        }
    }
}

/// What the checks returned, handed to the front end's `found` on the
/// calling thread while the next work runs on the pool: writing a passage
/// search's lines (10.9 GB on the 3 GB generated corpus) is one thread's
/// work, which left a core idle when the checks waited for it.
struct Handing<'f, R> {
    found: &'f mut dyn FnMut(Vec<R>) -> Result<(), DedupError>,
    pending: Option<Vec<R>>,
}

impl<R: Send> Handing<'_, R> {
    /// `work`'s result, run on the pool while what is pending is handed
    /// over here.
    fn alongside<X: Send>(&mut self, work: impl FnOnce() -> X + Send) -> Result<X, DedupError> {
        let Some(pending) = self.pending.take() else { return Ok(work()) };
        let mut done = None;
        let handed = rayon::in_place_scope(|scope| {
            scope.spawn(|_| done = Some(work()));
            (self.found)(pending)
        });
        handed?;
        Ok(done.expect("the scope waits for its work"))
    }

    /// Holds `checked` until the next work runs (or [`Handing::finish`]).
    fn hold(&mut self, checked: Vec<R>) {
        assert!(self.pending.is_none(), "what was held is handed over before more is held");
        self.pending = Some(checked);
    }

    /// Hands over what is still held.
    fn finish(&mut self) -> Result<(), DedupError> {
        self.pending.take().map_or(Ok(()), &mut *self.found)
    }
}

/// One round's work: the pairs whose earlier document is in a chunk.
struct Round<'a, T, R> {
    reader: &'a Reader<'a, T>,
    check: &'a (dyn Fn(Tagged, &T, &T) -> Option<R> + Sync),
}

impl<T: Send + Sync, R: Send> Round<'_, T, R> {
    /// Checks `pairs` (their earlier ranks in the chunk, which ends at
    /// rank `end`), handing what they return to `found` a batch at a time.
    fn verify(&self, pairs: &[Ranked], end: u32, handing: &mut Handing<'_, R>) -> Result<(), DedupError> {
        let mut held_ranks: Vec<u32> =
            pairs.iter().flat_map(|&(x, y, _)| std::iter::once(x).chain((y < end).then_some(y))).collect();
        held_ranks.sort_unstable();
        held_ranks.dedup();
        let held = handing.alongside(|| -> Result<Vec<T>, DedupError> {
            let mut held = Vec::with_capacity(held_ranks.len());
            for batch in self.reader.batches(&held_ranks) {
                held.extend(self.reader.prepared(batch, false)?);
            }
            Ok(held)
        })??;
        let held_at = Positions::of(&held_ranks);
        let held_of = |rank: u32| &held[held_at.of_rank(rank)];
        let (inside, mut later): (Vec<Ranked>, Vec<Ranked>) = pairs.iter().partition(|pair| pair.1 < end);
        for part in inside.chunks(PAIRS_PER_CALL) {
            let checked = handing.alongside(|| {
                part.par_iter()
                    .filter_map(|&pair| self.check(pair, held_of(pair.0), held_of(pair.1)))
                    .collect()
            })?;
            handing.hold(checked);
        }
        self.reader.control.progress.advance(inside.len() as u64);
        later.sort_unstable_by_key(|pair| (pair.1, pair.0));
        let mut partners: Vec<u32> = later.iter().map(|pair| pair.1).collect();
        partners.dedup();
        let batches = self.reader.batches(&partners);
        let mut streamed = match batches.first() {
            Some(first) => Some(handing.alongside(|| self.reader.prepared(first, true))??),
            None => None,
        };
        let mut rest = &later[..];
        let mut checked_batch: Option<Vec<T>> = None;
        for (at, batch) in batches.iter().enumerate() {
            let this = streamed.take().expect("each batch is prepared before its pairs are checked");
            let last = *batch.last().expect("batches are not empty");
            let (now, after) = rest.split_at(rest.partition_point(|pair| pair.1 <= last));
            let streamed_at = positions_in(batch, now.iter().map(|pair| pair.1));
            // The next batch is read and prepared while this one's pairs
            // are checked: reading is mostly one thread's work. The batch
            // checked before is dropped alongside too: freed on this
            // thread between the checks, its texts were 1.7 % of the 3 GB
            // corpus's search, on one core.
            let mut next = None;
            rayon::in_place_scope(|scope| {
                if let Some(following) = batches.get(at + 1) {
                    scope.spawn(|_| next = Some(self.reader.prepared(following, true)));
                }
                if let Some(checked) = checked_batch.take() {
                    scope.spawn(move |_| drop(checked));
                }
                for (part, at) in now.chunks(PAIRS_PER_CALL).zip(streamed_at.chunks(PAIRS_PER_CALL)) {
                    let checked = handing.alongside(|| {
                        part.par_iter()
                            .zip(at)
                            .filter_map(|(&pair, &at)| self.check(pair, held_of(pair.0), &this[at as usize]))
                            .collect()
                    })?;
                    handing.hold(checked);
                }
                Ok::<(), DedupError>(())
            })?;
            streamed = next.transpose()?;
            checked_batch = Some(this);
            self.reader.control.progress.advance(now.len() as u64);
            rest = after;
        }
        Ok(())
    }

    /// The check of a pair on what is held of its earlier rank (`x`) and
    /// its later (`y`), in the pair's order (the smaller number first).
    fn check(&self, (x_rank, y_rank, tag): Ranked, x: &T, y: &T) -> Option<R> {
        let documents = self.reader.documents;
        let (a, b) = (documents[x_rank as usize], documents[y_rank as usize]);
        if a < b { (self.check)((a, b, tag), x, y) } else { (self.check)((b, a, tag), y, x) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn file_of(bytes: usize) -> File {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&vec![b'.'; bytes]).unwrap();
        file
    }

    fn read_back(store: &Store, rank: u32) -> Vec<u8> {
        let (place, length) = store.place(rank).unwrap();
        let mut record = vec![0; length as usize];
        store.read(place, &mut record).unwrap();
        record
    }

    #[test]
    fn records_go_over_the_spare_files_from_their_start_then_to_the_stores_own() {
        let spare = vec![(file_of(10), 10), (file_of(25), 25)];
        let mut store = Store::new(None, 8, spare).unwrap();
        assert_eq!(store.place(0), None);
        let records: Vec<Vec<u8>> = (0..8u8).map(|rank| vec![b'a' + rank; 4 + rank as usize]).collect();
        // Ranks out of order, in two calls.
        let ranks = [3, 1, 4, 0, 7, 2, 6, 5];
        let by_rank =
            |ranks: &[u32]| -> Vec<Vec<u8>> { ranks.iter().map(|&r| records[r as usize].clone()).collect() };
        store.append(&ranks[..3], &by_rank(&ranks[..3])).unwrap();
        store.append(&ranks[3..], &by_rank(&ranks[3..])).unwrap();
        for rank in 0..8 {
            assert_eq!(read_back(&store, rank), records[rank as usize], "rank {rank}");
        }
        // Each file holds the records started inside its room, from its
        // start: 7 + 5 bytes in the first (the second runs past its 10),
        // 8 + 4 + 11 + 6 in the second (the last started at 23, inside its
        // 25), the rest in the store's own.
        let file_of_rank = |rank: u32| store.place(rank).unwrap().0 >> OFFSET_BITS;
        assert_eq!(ranks.map(file_of_rank), [0, 0, 1, 1, 1, 1, 2, 2]);
        let mut first = Vec::new();
        (&store.files[0].file).seek(SeekFrom::Start(0)).unwrap();
        (&store.files[0].file).read_to_end(&mut first).unwrap();
        assert_eq!(first, b"dddddddbbbbb");
    }

    #[test]
    fn without_spare_files_the_store_has_its_own() {
        let mut store = Store::new(None, 2, Vec::new()).unwrap();
        store.append(&[1, 0], &[b"second".to_vec(), b"first".to_vec()]).unwrap();
        assert_eq!(read_back(&store, 0), b"first");
        assert_eq!(read_back(&store, 1), b"second");
        assert_eq!(store.files.len(), 1);
    }
}
