//! Steps 1–3 of `simhash-doc`: normalization, URL and identifier chunks,
//! word tokens (`docs/simhash-doc.md` §3–§5).
//!
//! # How the fast path keeps the definition
//!
//! The definition normalizes the whole text (delete default ignorables,
//! NFKC, full case folding, NFKC) and then cuts it. Most text is already
//! in that form except for ASCII capitals, so the scanner works on a copy
//! lowered in ASCII only, and checks each non-ASCII character against a
//! per-scanner table of the BMP: a character is *stable* when
//! normalization leaves it alone in any context (it is NFKC and case-fold
//! invariant, not ignorable, not whitespace, not a mark, not a conjoining
//! jamo: nothing can compose with it or reorder around it). A *segment*
//! (the text between two ASCII whitespace bytes, which are boundaries of
//! every step) made of ASCII and stable characters is therefore its own
//! normal form, and its tokens are hashed where they lie. A segment with
//! any other character is normalized as the definition says, into reused
//! buffers, and scanned character by character. The tests compare both
//! paths on every BMP character in several contexts.

use crate::block::{BLOCK, below, bits, block_at, pack, runs};
use crate::segment::{Pieces, Segmenter, TokenRule};
use crate::sink::{PAD, Sink};
use icu_casemap::{CaseMapper, CaseMapperBorrowed};
use icu_normalizer::{ComposingNormalizer, ComposingNormalizerBorrowed};
use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory, GeneralCategoryGroup, WhiteSpace};
use icu_properties::{
    CodePointMapData, CodePointMapDataBorrowed, CodePointSetData, CodePointSetDataBorrowed,
};
use rustc_hash::FxHashMap;
use std::ops::Range;
use writeable::Writeable;

const NFKC: ComposingNormalizerBorrowed<'static> = ComposingNormalizer::new_nfkc();
const CASE_MAPPER: CaseMapperBorrowed<'static> = CaseMapper::new();
const GENERAL_CATEGORY: CodePointMapDataBorrowed<'static, GeneralCategory> =
    CodePointMapData::<GeneralCategory>::new();
const WHITE_SPACE: CodePointSetDataBorrowed<'static> = CodePointSetData::new::<WhiteSpace>();
const DEFAULT_IGNORABLE: CodePointSetDataBorrowed<'static> =
    CodePointSetData::new::<DefaultIgnorableCodePoint>();

/// What a character is to the tokenizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Class {
    /// General category L*: a word character and a letter.
    Letter = 1,
    /// Mn, Mc, Nd, Pc: a word character, not a letter. Spacing marks
    /// (Mc) are word characters here for both token rules: v1 cuts runs at
    /// them afterwards (`segment.rs`).
    Word = 2,
    /// White_Space: ends the chunk (and the token).
    Space = 3,
    /// `:`, `@`, `.`: ends a token and marks its chunk for the identifier
    /// check.
    Marker = 4,
    /// Anything else: ends a token.
    Other = 5,
}

impl Class {
    const fn from_bits(bits: u8) -> Class {
        match bits & 7 {
            1 => Class::Letter,
            2 => Class::Word,
            3 => Class::Space,
            4 => Class::Marker,
            _ => Class::Other,
        }
    }

    const fn is_word(self) -> bool {
        matches!(self, Class::Letter | Class::Word)
    }
}

const ASCII_CLASS: [Class; 128] = {
    let mut table = [Class::Other; 128];
    let mut i = 0;
    while i < 128 {
        table[i] = match i as u8 {
            b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
            b'0'..=b'9' | b'_' => Class::Word,
            b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' => Class::Space,
            b':' | b'@' | b'.' => Class::Marker,
            _ => Class::Other,
        };
        i += 1;
    }
    table
};

/// The class of any character, from the Unicode 17 tables.
fn class_of(c: char) -> Class {
    if c.is_ascii() {
        return ASCII_CLASS[c as usize];
    }
    if WHITE_SPACE.contains(c) {
        return Class::Space;
    }
    let category = GENERAL_CATEGORY.get(c);
    if GeneralCategoryGroup::Letter.contains(category) {
        Class::Letter
    } else if matches!(
        category,
        GeneralCategory::NonspacingMark
            | GeneralCategory::SpacingMark
            | GeneralCategory::DecimalNumber
            | GeneralCategory::ConnectorPunctuation
    ) {
        Class::Word
    } else {
        Class::Other
    }
}

/// Whether normalization leaves `c` alone in every context (see the module
/// documentation). Only called for non-ASCII BMP characters.
fn is_stable(c: char) -> bool {
    let category = GENERAL_CATEGORY.get(c);
    if WHITE_SPACE.contains(c)
        || DEFAULT_IGNORABLE.contains(c)
        || GeneralCategoryGroup::Mark.contains(category)
        || is_conjoining_jamo(c)
    {
        return false;
    }
    let mut utf8 = [0u8; 4];
    let alone: &str = c.encode_utf8(&mut utf8);
    NFKC.is_normalized(alone) && CASE_MAPPER.fold_string(alone) == alone
}

/// Hangul jamo that compose with a preceding syllable or jamo.
fn is_conjoining_jamo(c: char) -> bool {
    matches!(c, '\u{1100}'..='\u{11FF}' | '\u{A960}'..='\u{A97F}' | '\u{D7B0}'..='\u{D7FF}')
}

/// Table entry: 0 = not computed yet; else `FILLED | STABLE? | class`.
const FILLED: u8 = 0x80;
const STABLE: u8 = 0x40;

/// Reusable state: scanning many documents allocates only while buffers grow.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scanner {
    /// The document, lowered in ASCII only.
    lowered: Vec<u8>,
    /// The word-character runs of the chunk being scanned.
    runs: Vec<Run>,
    /// A segment's normalized form, and a scratch buffer for it.
    normalized: String,
    scratch: String,
    /// Class and stability of each BMP character, filled on first sight.
    bmp: Vec<u8>,
    /// The normal form of unstable BMP characters that normalize on their
    /// own (see [`Mapping`]), filled on first sight.
    mappings: FxHashMap<char, Option<Mapping>>,
}

/// What an unstable character normalizes to, when normalization treats it
/// on its own: it is not a mark, not a conjoining jamo (so nothing composes
/// with it and it composes with nothing before it) and its normal form is
/// at most 16 bytes of ASCII and stable characters (so nothing after it
/// composes with that either). `Ü` → `ü`, `Ａ` → `a`, `ﬁ` → `fi`, NBSP →
/// space, U+00AD → nothing. A segment of ASCII, stable and such characters
/// normalizes character by character, without the three whole passes.
#[derive(Debug, Clone)]
struct Mapping(Box<str>);

impl Mapping {
    fn of(c: char, bmp: &mut [u8]) -> Option<Mapping> {
        if GeneralCategoryGroup::Mark.contains(GENERAL_CATEGORY.get(c)) || is_conjoining_jamo(c) {
            return None;
        }
        let (mut normal, mut scratch) = (String::new(), String::new());
        normalize_into(c.encode_utf8(&mut [0; 4]), &mut normal, &mut scratch);
        let normal = &normal[..normal.len() - PAD];
        let simple =
            normal.len() <= 16 && normal.chars().all(|n| n.is_ascii() || stable_class(bmp, n).is_some());
        simple.then(|| Mapping(normal.into()))
    }
}

#[derive(Debug, Clone)]
struct Run {
    range: Range<usize>,
    letter: bool,
}

/// Flags of a byte of lowered text, for the fast path's loop.
const WORD: u8 = 1;
const LETTER: u8 = 2;
const SPACE: u8 = 4;
const MARKER: u8 = 8;
const NON_ASCII: u8 = 16;

const BYTE_FLAGS: [u8; 256] = {
    let mut table = [NON_ASCII; 256];
    let mut i = 0;
    while i < 128 {
        table[i] = class_flags(ASCII_CLASS[i]);
        i += 1;
    }
    table
};

const fn class_flags(class: Class) -> u8 {
    match class {
        Class::Letter => WORD | LETTER,
        Class::Word => WORD,
        Class::Space => SPACE,
        Class::Marker => MARKER,
        Class::Other => 0,
    }
}

impl Scanner {
    /// Runs steps 1–3 over `text`, reporting to `sink`.
    ///
    /// On x86-64 CPUs with AVX2 and BMI2 (x86-64-v3, nearly every one since
    /// 2015) the same code is compiled a second time for them and chosen at
    /// run time: the scan is mostly bit operations on block masks
    /// (`tzcnt`, `blsr`, `bzhi`, shifts by a register), which the baseline
    /// x86-64 instruction set spells with several instructions each
    /// (measured: the v3 build is 6% faster on the corpus).
    pub(crate) fn scan(&mut self, text: &str, rule: TokenRule, sink: &mut impl Sink) {
        let sink = &mut Segmenter { inner: sink, rule, pieces: Pieces::NeedLetter };
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("popcnt")
        {
            // SAFETY: the CPU has every feature `scan_v3` is compiled for.
            return unsafe { self.scan_v3(text, sink) };
        }
        self.scan_baseline(text, sink);
    }

    /// [`Scanner::scan`] compiled for x86-64-v3.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn scan_v3(&mut self, text: &str, sink: &mut impl Sink) {
        self.scan_baseline(text, sink);
    }

    /// [`Scanner::scan`] for any CPU; inlined, with everything it calls on
    /// the fast path, into [`Scanner::scan_v3`].
    #[inline(always)]
    fn scan_baseline(&mut self, text: &str, sink: &mut impl Sink) {
        if self.bmp.is_empty() {
            self.bmp = vec![0; 0x1_0000];
        }
        self.lowered.clear();
        // One pass, not a copy and then a lowering pass over the copy.
        self.lowered.extend(text.bytes().map(|b| b.to_ascii_lowercase()));
        self.lowered.extend_from_slice(&[0; PAD]);
        let Scanner { lowered, runs, normalized, scratch, bmp, mappings } = self;
        let mut pass = Pass {
            text,
            lowered: &lowered[..text.len()],
            padded: lowered,
            chunk: Chunk::new(runs),
            run: OpenRun::default(),
            segment_start: 0,
            normalized,
            scratch,
            bmp,
            mappings,
        };
        let len = pass.lowered.len();
        let mut i = 0;
        while i < len {
            let Some(block) = block_at(pass.lowered, i) else {
                i = pass.characters(i, len, sink);
                continue;
            };
            let mut masks = Masks::of(block);
            let covered =
                if masks.non_ascii == 0 { BLOCK as u32 } else { pass.classify_characters(i, &mut masks) };
            pass.block(i, &masks, covered, sink);
            i += covered as usize;
            if covered < BLOCK as u32 {
                // A character that normalization may change, or one across
                // the block's end: the character path takes it.
                i = pass.characters(i, i + 1, sink);
            }
        }
        pass.run.close(len, pass.chunk.runs);
        pass.chunk.end(pass.padded, len, sink);
    }
}

/// One bit per byte of a block of lowered text (bit `j` = byte `j`).
struct Masks {
    word: u64,
    letter: u64,
    space: u64,
    marker: u64,
    non_ascii: u64,
}

impl Masks {
    /// Classifies 64 bytes: first one byte (0 or 1) per class and input
    /// byte, with comparisons the compiler turns into vector code, then
    /// packed into bits ([`pack`]).
    #[inline(always)]
    fn of(block: &[u8; BLOCK]) -> Masks {
        let mut classes = [[0u8; BLOCK]; 5];
        for (j, &b) in block.iter().enumerate() {
            let letter = b.wrapping_sub(b'a') < 26;
            classes[0][j] = u8::from(letter | (b.wrapping_sub(b'0') < 10) | (b == b'_'));
            classes[1][j] = u8::from(letter);
            classes[2][j] = u8::from((b == b' ') | (b.wrapping_sub(b'\t') < 5));
            classes[3][j] = u8::from((b == b':') | (b == b'@') | (b == b'.'));
            classes[4][j] = b >> 7;
        }
        Masks {
            word: pack(&classes[0]),
            letter: pack(&classes[1]),
            space: pack(&classes[2]),
            marker: pack(&classes[3]),
            non_ascii: pack(&classes[4]),
        }
    }
}

/// The state of one scan, shared by the block and the character paths.
struct Pass<'a, 'r> {
    text: &'a str,
    lowered: &'a [u8],
    /// `lowered` and [`PAD`] zero bytes.
    padded: &'a [u8],
    chunk: Chunk<'r>,
    run: OpenRun,
    segment_start: usize,
    normalized: &'a mut String,
    scratch: &'a mut String,
    bmp: &'a mut [u8],
    mappings: &'a mut FxHashMap<char, Option<Mapping>>,
}

impl Pass<'_, '_> {
    /// Adds the non-ASCII characters of the block at `base` to its masks
    /// (which classify ASCII bytes only), each character's class on all its
    /// bytes, up to the first character that is not stable (whose segment
    /// must be normalized) or that does not end in the block. Returns how
    /// many bytes the masks now describe.
    #[inline(always)]
    fn classify_characters(&mut self, base: usize, masks: &mut Masks) -> u32 {
        let mut left = masks.non_ascii;
        while left != 0 {
            let at = left.trailing_zeros();
            let (c, len) = decode(self.lowered, base + at as usize);
            let end = at + len as u32;
            if end > BLOCK as u32 {
                return at;
            }
            let Some(class) = stable_class(self.bmp, c) else {
                return at;
            };
            // Only ASCII characters are spaces or markers (the others are
            // not stable), so a stable one is a letter, another word
            // character, or neither.
            let span = bits(at, end);
            let flags = class_flags(class);
            masks.word |= if flags & WORD != 0 { span } else { 0 };
            masks.letter |= if flags & LETTER != 0 { span } else { 0 };
            left &= !below(end);
        }
        BLOCK as u32
    }

    /// Bytes `0..limit` of the block at `base`, classified in `masks`. The
    /// tokens of chunks that lie between two spaces of the block and carry
    /// no marker (most of them) are reported straight from the masks, a few
    /// bit operations each and no branch on their shape; a marked chunk is
    /// checked at its markers first. The chunk still open at either end of
    /// the block keeps its runs until it ends, as on the character path.
    #[inline(always)]
    fn block(&mut self, base: usize, masks: &Masks, limit: u32, sink: &mut impl Sink) {
        let space = masks.space & below(limit);
        let mut p = 0;
        if self.run.start.is_some() {
            // A run open from before continues through the first word bytes.
            let end = (!masks.word).trailing_zeros().min(limit);
            self.run.flags |= if masks.letter & below(end) != 0 { LETTER } else { 0 };
            if end == limit {
                return;
            }
            self.run.close(base + end as usize, self.chunk.runs);
            p = end;
        }
        let spaces_ahead = space & !below(p);
        if spaces_ahead == 0 {
            self.chunk.marked |= masks.marker & bits(p, limit) != 0;
            self.hold_runs(base, masks, p, limit, limit);
            return;
        }
        let (first, last) = (spaces_ahead.trailing_zeros(), 63 - spaces_ahead.leading_zeros());
        self.chunk.marked |= masks.marker & bits(p, first) != 0;
        self.hold_runs(base, masks, p, first, limit);
        self.chunk.end(self.padded, base + first as usize, sink);
        self.inner_chunks(base, masks, first, last, sink);
        self.chunk.start = base + last as usize + 1;
        self.segment_start = self.chunk.start;
        self.chunk.marked = masks.marker & bits(last + 1, limit) != 0;
        self.hold_runs(base, masks, last + 1, limit, limit);
    }

    /// The chunks between the spaces at `first` and `last` of the block.
    #[inline(always)]
    fn inner_chunks(&mut self, base: usize, masks: &Masks, first: u32, last: u32, sink: &mut impl Sink) {
        let mut p = first + 1;
        let mut markers = masks.marker & bits(p, last);
        while markers != 0 {
            // The chunk of the first marker left: between the spaces around it.
            let marker = markers.trailing_zeros();
            let start = 64 - (masks.space & below(marker)).leading_zeros();
            let end = (masks.space & !below(marker)).trailing_zeros();
            self.tokens(base, masks, p, start, sink);
            // A chunk without runs has nothing to hash and is not reported
            // (as in `Chunk::end`); only its markers can make one with runs
            // an identifier.
            if masks.word & bits(start, end) != 0 {
                let chunk = &self.padded[base + start as usize..base + end as usize];
                let mut chunk_markers = markers & bits(start, end);
                let mut identifier = false;
                while chunk_markers != 0 && !identifier {
                    identifier = marks_identifier(chunk, (chunk_markers.trailing_zeros() - start) as usize);
                    chunk_markers &= chunk_markers - 1;
                }
                if identifier {
                    sink.identifier(chunk);
                } else {
                    self.tokens(base, masks, start, end, sink);
                }
            }
            p = end + 1;
            markers &= !below(end);
        }
        self.tokens(base, masks, p, last, sink);
    }

    /// Reports the runs of bytes `from..to` of the block, which are whole
    /// (bytes `from - 1` and `to` are not word bytes).
    #[inline(always)]
    fn tokens(&self, base: usize, masks: &Masks, from: u32, to: u32, sink: &mut impl Sink) {
        for (start, end) in runs(masks.word & bits(from, to)) {
            let (at, len) = (base + start as usize, (end - start) as usize);
            if masks.letter & bits(start, end) == 0 {
                sink.numeric(&self.padded[at..at + len]);
            } else if masks.non_ascii & bits(start, end) == 0 {
                sink.ascii_token(&self.padded[at..], len);
            } else {
                sink.padded_token(&self.padded[at..], len);
            }
        }
    }

    /// Adds the runs of bytes `from..to` of the block to the open chunk; a
    /// run reaching `limit` (the end of the ASCII bytes) stays open.
    #[inline(always)]
    fn hold_runs(&mut self, base: usize, masks: &Masks, from: u32, to: u32, limit: u32) {
        for (start, end) in runs(masks.word & bits(from, to)) {
            let flags = if masks.letter & bits(start, end) != 0 { LETTER } else { 0 };
            self.run = OpenRun { start: Some(base + start as usize), flags };
            if end < limit {
                self.run.close(base + end as usize, self.chunk.runs);
            }
        }
    }

    /// Character by character from `i` until at least `limit`; returns
    /// where it stopped.
    fn characters(&mut self, mut i: usize, limit: usize, sink: &mut impl Sink) -> usize {
        let (lowered, padded) = (self.lowered, self.padded);
        while i < limit {
            let mut flags = BYTE_FLAGS[usize::from(lowered[i])];
            if flags & WORD != 0 {
                self.run.open(i);
                while let Some(&next) = lowered.get(i) {
                    let next_flags = BYTE_FLAGS[usize::from(next)];
                    if next_flags & WORD == 0 {
                        break;
                    }
                    self.run.flags |= next_flags;
                    i += 1;
                }
                continue;
            }
            let mut len = 1;
            if flags & NON_ASCII != 0 {
                let (c, c_len) = decode(lowered, i);
                let Some(class) = stable_class(self.bmp, c) else {
                    return self.normalize_segment(i, sink);
                };
                flags = class_flags(class);
                len = c_len;
                if flags & WORD != 0 {
                    self.run.open(i);
                    self.run.flags |= flags;
                    i += len;
                    continue;
                }
            }
            self.run.close(i, self.chunk.runs);
            if flags & SPACE != 0 {
                self.chunk.end(padded, i, sink);
                self.chunk.start = i + 1;
                self.segment_start = i + 1;
            } else if flags & MARKER != 0 {
                self.chunk.marked = true;
            }
            i += len;
        }
        i
    }

    /// The segment around `i` has a character that normalization changes:
    /// forget what was scanned of it, normalize it and scan the result.
    /// Returns the segment's end (an ASCII whitespace byte or the end).
    fn normalize_segment(&mut self, i: usize, sink: &mut impl Sink) -> usize {
        let segment_end = next_ascii_space(self.lowered, i);
        self.chunk.discard(self.segment_start);
        self.run = OpenRun::default();
        let segment = &self.text[self.segment_start..segment_end];
        if !self.map_segment(segment) {
            normalize_into(segment, self.normalized, self.scratch);
        }
        scan_normalized(self.normalized, self.bmp, self.chunk.runs, sink);
        segment_end
    }

    /// Normalizes `segment` character by character into `self.normalized`
    /// (and the padding) if every character is ASCII, stable or has a
    /// [`Mapping`]; returns whether it could.
    fn map_segment(&mut self, segment: &str) -> bool {
        let out = &mut *self.normalized;
        out.clear();
        for c in segment.chars() {
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else if stable_class(self.bmp, c).is_some() {
                out.push(c);
            } else if (c as u32) < 0x1_0000 {
                let bmp = &mut *self.bmp;
                match self.mappings.entry(c).or_insert_with(|| Mapping::of(c, bmp)) {
                    Some(Mapping(normal)) => out.push_str(normal),
                    None => return false,
                }
            } else {
                return false;
            }
        }
        out.extend(std::iter::repeat_n('\0', PAD));
        true
    }
}

/// The run of word characters being scanned, if any.
#[derive(Debug, Default)]
struct OpenRun {
    start: Option<usize>,
    /// The OR of the flags of its characters.
    flags: u8,
}

impl OpenRun {
    /// Starts a run at `at` unless one is open.
    #[inline(always)]
    fn open(&mut self, at: usize) {
        if self.start.is_none() {
            self.start = Some(at);
            self.flags = 0;
        }
    }

    #[inline(always)]
    fn extend(&mut self, at: usize, class: Class) {
        self.open(at);
        self.flags |= class_flags(class);
    }

    /// Ends the run (if any) at `end`, handing it to the chunk.
    #[inline(always)]
    fn close(&mut self, end: usize, runs: &mut Vec<Run>) {
        if let Some(start) = self.start.take() {
            runs.push(Run { range: start..end, letter: self.flags & LETTER != 0 });
        }
    }
}

/// The class of a non-ASCII character if it is stable, `None` if its
/// segment must be normalized.
#[inline(always)]
fn stable_class(bmp: &mut [u8], c: char) -> Option<Class> {
    let slot = bmp.get_mut(c as usize)?;
    if *slot == 0 {
        *slot = FILLED | if is_stable(c) { STABLE } else { 0 } | class_of(c) as u8;
    }
    (*slot & STABLE != 0).then(|| Class::from_bits(*slot))
}

/// The class of any character, through the table for the BMP.
#[inline]
fn cached_class(bmp: &mut [u8], c: char) -> Class {
    if c.is_ascii() {
        return ASCII_CLASS[c as usize];
    }
    match bmp.get_mut(c as usize) {
        Some(slot) => {
            if *slot == 0 {
                *slot = FILLED | if is_stable(c) { STABLE } else { 0 } | class_of(c) as u8;
            }
            Class::from_bits(*slot)
        }
        None => class_of(c),
    }
}

/// Decodes the UTF-8 character starting at `i` of valid UTF-8 `bytes`.
#[inline(always)]
fn decode(bytes: &[u8], i: usize) -> (char, usize) {
    let lead = u32::from(bytes[i]);
    let cont = |k: usize| u32::from(bytes[i + k] & 0x3f);
    let (scalar, len) = if lead < 0xE0 {
        ((lead & 0x1f) << 6 | cont(1), 2)
    } else if lead < 0xF0 {
        ((lead & 0x0f) << 12 | cont(1) << 6 | cont(2), 3)
    } else {
        ((lead & 0x07) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3), 4)
    };
    (char::from_u32(scalar).unwrap_or(char::REPLACEMENT_CHARACTER), len)
}

fn next_ascii_space(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b < 0x80 && ASCII_CLASS[usize::from(b)] == Class::Space)
        .map_or(bytes.len(), |offset| from + offset)
}

/// Step 1 of the definition on one segment, into `out` (`scratch` is
/// reused between the passes), followed by [`PAD`] NUL characters.
fn normalize_into(segment: &str, out: &mut String, scratch: &mut String) {
    out.clear();
    out.push_str(segment);
    if out.chars().any(|c| !c.is_ascii() && DEFAULT_IGNORABLE.contains(c)) {
        out.retain(|c| !DEFAULT_IGNORABLE.contains(c));
    }
    scratch.clear();
    // Writing into a String cannot fail.
    let _ = NFKC.normalize_to(out, scratch);
    out.clear();
    let _ = CASE_MAPPER.fold(scratch).write_to(out);
    scratch.clear();
    let _ = NFKC.normalize_to(out, scratch);
    std::mem::swap(out, scratch);
    out.extend(std::iter::repeat_n('\0', PAD));
}

/// Steps 1–3 exactly as the definition reads: normalize the whole text,
/// then scan it character by character. Slow; the yardstick of the fast
/// path in tests and fuzzing.
pub(crate) fn scan_by_definition(text: &str, rule: TokenRule, sink: &mut impl Sink) {
    let sink = &mut Segmenter { inner: sink, rule, pieces: Pieces::NeedLetter };
    let (mut padded, mut scratch) = (String::new(), String::new());
    normalize_into(text, &mut padded, &mut scratch);
    let mut bmp = vec![0; 0x1_0000];
    scan_normalized(&padded, &mut bmp, &mut Vec::new(), sink);
}

/// Steps 2–3 over normalized text followed by [`PAD`] bytes, character by
/// character.
fn scan_normalized(padded: &str, bmp: &mut [u8], runs: &mut Vec<Run>, sink: &mut impl Sink) {
    let text = &padded[..padded.len() - PAD];
    let bytes = padded.as_bytes();
    let mut chunk = Chunk::new(runs);
    let mut run = OpenRun::default();
    for (i, c) in text.char_indices() {
        let class = cached_class(bmp, c);
        if class.is_word() {
            run.extend(i, class);
            continue;
        }
        run.close(i, chunk.runs);
        match class {
            Class::Space => {
                chunk.end(bytes, i, sink);
                chunk.start = i + c.len_utf8();
            }
            Class::Marker => chunk.marked = true,
            _ => {}
        }
    }
    run.close(text.len(), chunk.runs);
    chunk.end(bytes, text.len(), sink);
}

/// The word-character runs of the chunk being scanned, held back until the
/// chunk ends and is known not to be an identifier.
struct Chunk<'r> {
    start: usize,
    marked: bool,
    runs: &'r mut Vec<Run>,
}

impl<'r> Chunk<'r> {
    fn new(runs: &'r mut Vec<Run>) -> Self {
        runs.clear();
        Chunk { start: 0, marked: false, runs }
    }

    /// Forgets the chunk so far (its segment is rescanned normalized).
    fn discard(&mut self, start: usize) {
        self.runs.clear();
        self.start = start;
        self.marked = false;
    }

    /// The chunk ends at `end` (exclusive): report its runs. `text` has
    /// [`PAD`] bytes after the scanned text.
    #[inline(always)]
    fn end(&mut self, text: &[u8], end: usize, sink: &mut impl Sink) {
        if !self.runs.is_empty() {
            let chunk = &text[self.start..end];
            if self.marked && is_identifier(chunk) {
                sink.identifier(chunk);
            } else {
                for run in self.runs.iter() {
                    if run.letter {
                        sink.padded_token(&text[run.range.start..], run.range.len());
                    } else {
                        sink.numeric(&text[run.range.clone()]);
                    }
                }
            }
            self.runs.clear();
        }
        self.marked = false;
    }
}

/// Whether a chunk (normalized, between White_Space) is a URL or an
/// identifier, whose tokens are not hashed: it contains `@`, `://`,
/// `www.`, `doi:`, `urn:`, `arxiv:`, or a DOI prefix (`10.`, 4 to 9 ASCII
/// digits, `/`).
///
/// Extraction (`priorart-extract`'s `clean.rs`) drops a superset of these
/// from documents before any fingerprint sees them; this rule is part of
/// simhash-doc's definition, for raw text. Shared cases:
/// `crates/cli/tests/identifier_layers.rs`.
pub(crate) fn is_identifier(chunk: &[u8]) -> bool {
    (0..chunk.len()).any(|i| marks_identifier(chunk, i))
}

/// Whether byte `i` of `chunk` is a marker that makes it an identifier
/// (see [`is_identifier`]).
#[inline(always)]
fn marks_identifier(chunk: &[u8], i: usize) -> bool {
    let (before, after) = (&chunk[..i], &chunk[i + 1..]);
    match chunk[i] {
        b'@' => true,
        b':' => {
            after.starts_with(b"//") || [&b"doi"[..], b"urn", b"arxiv"].iter().any(|p| before.ends_with(p))
        }
        b'.' => before.ends_with(b"www") || (before.ends_with(b"10") && is_doi_suffix(after)),
        _ => false,
    }
}

/// After `10.`: 4 to 9 ASCII digits, then `/`.
fn is_doi_suffix(after: &[u8]) -> bool {
    let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
    (4..=9).contains(&digits) && after.get(digits) == Some(&b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything the scan reports, in order, as strings.
    #[derive(Default, Debug, PartialEq)]
    struct Record(Vec<String>);

    impl Sink for Record {
        fn token(&mut self, token: &[u8]) {
            self.0.push(String::from_utf8_lossy(token).into_owned());
        }
        fn numeric(&mut self, run: &[u8]) {
            self.0.push(format!("#{}", String::from_utf8_lossy(run)));
        }
        fn identifier(&mut self, chunk: &[u8]) {
            self.0.push(format!("@{}", String::from_utf8_lossy(chunk)));
        }
    }

    /// The fast path under both token rules, as dispatched and for any
    /// CPU, which must agree.
    fn fast(text: &str) -> [Record; 2] {
        TokenRule::ALL.map(|rule| {
            let (mut record, mut baseline) = (Record::default(), Record::default());
            Scanner::default().scan(text, rule, &mut record);
            let segmenter = &mut Segmenter { inner: &mut baseline, rule, pieces: Pieces::NeedLetter };
            Scanner::default().scan_baseline(text, segmenter);
            assert_eq!(record, baseline, "{text:?}");
            record
        })
    }

    /// The definition, literally: normalize everything, then scan.
    fn literal(text: &str) -> [Record; 2] {
        TokenRule::ALL.map(|rule| {
            let mut record = Record::default();
            scan_by_definition(text, rule, &mut record);
            record
        })
    }

    #[test]
    fn fast_path_equals_the_definition_for_every_bmp_character() {
        let mut mismatches = Vec::new();
        for c in (0x80..0x1_0000).filter_map(char::from_u32) {
            for text in [
                format!("{c}"),
                format!("Ab{c}cD x"),
                format!("e{c}\u{301} {c}\u{1161}"),
                format!("\u{1100}{c} a{c}.b"),
                format!("www{c}.x {c}@ 10.1234{c}/5"),
                format!("가{c}\u{11A8} {c}{c}\u{334}"),
            ] {
                if fast(&text) != literal(&text) {
                    mismatches.push(text);
                }
            }
        }
        let examples = &mismatches[..mismatches.len().min(5)];
        assert!(mismatches.is_empty(), "{} mismatches, e.g. {examples:?}", mismatches.len());
    }

    /// Compatibility jamo normalize to conjoining jamo, which compose with
    /// each other: pairs of them must take the whole-segment path.
    #[test]
    fn fast_path_equals_the_definition_for_jamo_pairs() {
        let jamo: Vec<char> = ('\u{3131}'..='\u{318E}').chain('\u{FFA0}'..='\u{FFDC}').collect();
        for &c in &jamo {
            for &d in &jamo {
                let text = format!("{c}{d} 가{d}");
                assert_eq!(fast(&text), literal(&text), "{text:?}");
            }
        }
    }

    #[test]
    fn fast_path_equals_the_definition_on_mixed_text() {
        for text in [
            "Ünïcödé TEXT with ﬁ ligature, ＦＵＬＬ width and e\u{301} marks",
            "Ⅻ ½ ² x² ℌello 𝐀𝐁𝐂 ǰ İstanbul ΣΊΣΥΦΟΣ",
            "soft\u{AD}hyphen zero\u{200B}width ＠home www．example．com",
            "\u{3000}ideographic\u{3000}space\u{A0}nbsp\u{2028}line sep",
            "한국어 텍스트 \u{1100}\u{1161}\u{11A8} 日本語のテキスト, العربية עברית",
        ] {
            assert_eq!(fast(text), literal(text), "{text:?}");
        }
    }

    /// No step of the normalization creates a default ignorable or White_Space
    /// character from other characters, so deleting the ignorables first
    /// equals deleting them last (the spec says so; this proves it for
    /// Unicode 17).
    #[test]
    fn normalization_creates_no_ignorable() {
        let (mut scratch, mut folded) = (String::new(), String::new());
        for c in (0..=0x10_FFFF).filter_map(char::from_u32).filter(|&c| !DEFAULT_IGNORABLE.contains(c)) {
            scratch.clear();
            let _ = NFKC.normalize_to(c.encode_utf8(&mut [0; 4]), &mut scratch);
            folded.clear();
            let _ = CASE_MAPPER.fold(&scratch).write_to(&mut folded);
            let out = NFKC.normalize(&folded);
            assert!(!out.chars().any(|o| DEFAULT_IGNORABLE.contains(o)), "{c:?} -> {out:?}");
        }
    }

    /// Long pseudo-random texts, so that blocks, runs and chunks cross block
    /// boundaries in every way; mostly ASCII with some non-ASCII characters.
    #[test]
    fn block_path_equals_the_definition_on_long_texts() {
        const PIECES: [&str; 24] = [
            "a", "Word", "x", "ABC", "1", "23", "_", " ", " ", "  ", "\t", "\n", ".", ":", "@", "/", "//",
            "-", "www", "10.1234/", "é", "\u{301}", "中文", "\u{A0}",
        ];
        let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
        for round in 0..300 {
            let ascii_only = round % 3 == 0;
            let pieces = if ascii_only { &PIECES[..20] } else { &PIECES[..] };
            let text: String =
                (0..rng.usize(..400) + 20).map(|_| pieces[rng.usize(..pieces.len())]).collect();
            assert_eq!(fast(&text), literal(&text), "{text:?}");
        }
    }

    #[test]
    fn identifier_rules() {
        for yes in
            ["a@b", "http://x", "(https://x.org)", "www.x", "doi:x", "urn:isbn", "arxiv:1", "10.1234/x"]
        {
            assert!(is_identifier(yes.as_bytes()), "{yes}");
        }
        for no in ["e.g.", "end.", "10.12/x", "note:", "a.b.c", "10.12345", "wwwx."] {
            assert!(!is_identifier(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn decode_agrees_with_std() {
        let text = "é中😀\u{10FFFF}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}";
        for (i, c) in text.char_indices() {
            assert_eq!(decode(text.as_bytes(), i), (c, c.len_utf8()));
        }
    }
}
