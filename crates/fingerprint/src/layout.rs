//! Table layouts: which bits of a 64-bit fingerprint each permuted table is
//! keyed on, so that every pair within Hamming distance `k` shares the key
//! of at least one table (Manku, Jain and Das Sarma, WWW 2007).
//!
//! The pigeonhole rule: split the 64 bits into `b` blocks; two fingerprints
//! that differ in at most `k ≤ b − t` bits agree on at least `t` whole
//! blocks, so keying one table on each choice of `t` blocks (C(b, t) tables)
//! finds every such pair. The lsh-interop spec's layout applies the rule
//! twice (4 blocks, then the 48 remaining bits in 4 blocks): 16 tables keyed
//! on 28 bits, exact for k ≤ 3.

use serde::{Deserialize, Serialize};

/// One table: a permutation of the 64 bit positions (bit 63 first), of
/// which the first `key_bits` are the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    /// Bit positions (0 = least significant) in the order the permuted
    /// value holds them, most significant first.
    pub order: Vec<u8>,
    /// How many leading bits of the permuted value are the key.
    pub key_bits: u8,
}

/// A set of tables and the distance they guarantee.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// A name for people (`manku-16x28`, `pigeonhole-6-3`).
    pub name: String,
    /// Every pair within this Hamming distance meets in some table.
    pub max_distance: u32,
    /// The tables.
    pub tables: Vec<Table>,
}

/// Why a layout cannot be built or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// `t` must be at least 1 and below `b`, `b` at most 64.
    #[error(
        "pigeonhole layout with {blocks} blocks keyed on {key_blocks}: need 1 <= key blocks < blocks <= 64"
    )]
    BadShape {
        /// Blocks asked for.
        blocks: u32,
        /// Key blocks asked for.
        key_blocks: u32,
    },
    /// More tables than an index holds.
    #[error(
        "the layout needs {tables} permuted tables and an index holds at most {MAX_TABLES} \
         (fewer blocks, or more of them in the key, need fewer tables)"
    )]
    TooManyTables {
        /// Tables the layout would need.
        tables: u64,
    },
    /// A distance beyond what any layout [`Layout::for_distance`] builds
    /// can search exactly.
    #[error(
        "k = {k} is too large: the largest k that works is {MAX_DISTANCE}, because finding every pair \
         within k bits takes C(k+2, 2) permuted tables ({tables} for k = {k}) and an index holds at most {MAX_TABLES}"
    )]
    DistanceTooLargeForAnyLayout {
        /// The distance asked for.
        k: u32,
        /// The tables it would take.
        tables: u64,
    },
    /// A recorded table is not a permutation of 64 bits.
    #[error("table {table} is not a permutation of the 64 bit positions with a key of 1 to 63 bits")]
    NotAPermutation {
        /// The table's index.
        table: usize,
    },
    /// A layout name that is not known.
    #[error("unknown layout {0:?}: expected manku-16x28, or pigeonhole-B-T (blocks, key blocks), or k=N")]
    Unknown(String),
}

reason_names!(LayoutError {
    BadShape => "bad_shape",
    TooManyTables => "too_many_tables",
    NotAPermutation => "not_a_permutation",
    Unknown => "unknown",
    DistanceTooLargeForAnyLayout => "distance_too_large_for_any_layout",
});

/// The layout does not guarantee every pair within the distance asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("k = {k}: layout {layout} finds every pair only within {max}")]
pub struct DistanceTooLarge {
    /// Asked for.
    pub k: u32,
    /// Guaranteed by the layout.
    pub max: u32,
    /// The layout's name.
    pub layout: String,
}

impl DistanceTooLarge {
    /// The stable snake_case name of this error, as the JSON reports and
    /// the Python binding (`InputError.reason`) give it.
    pub fn reason(&self) -> &'static str {
        "distance_too_large"
    }
}

/// The most tables a layout may have (C(10, 5) = 252 covers k = 5 with
/// ten blocks; more only costs space).
pub const MAX_TABLES: usize = 256;

/// The largest distance [`Layout::for_distance`] serves (21): its layout
/// for k > 3 has C(k+2, 2) tables, at most [`MAX_TABLES`].
pub const MAX_DISTANCE: u32 = {
    let mut k = 3;
    while pigeonhole_tables(k + 1) <= MAX_TABLES as u64 {
        k += 1;
    }
    k
};

/// C(k+2, 2): the tables of [`Layout::for_distance`]'s layout for `k > 3`.
const fn pigeonhole_tables(k: u32) -> u64 {
    let blocks = k as u64 + 2;
    blocks.saturating_mul(blocks - 1) / 2
}

impl Layout {
    /// The lsh-interop spec's layout: 16 tables keyed on 28 bits, k ≤ 3.
    pub fn manku_16x28() -> Layout {
        let outer = blocks(0, 64, 4);
        let mut tables = Vec::with_capacity(16);
        for (i, first) in outer.iter().enumerate() {
            let rest: Vec<(u8, u8)> =
                outer.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, b)| *b).collect();
            // The 48 remaining bits, in 4 blocks of 12.
            let rest_bits: Vec<u8> = rest.iter().flat_map(|&(start, len)| bits_of(start, len)).collect();
            for j in 0..4 {
                let second: Vec<u8> = rest_bits[j * 12..(j + 1) * 12].to_vec();
                let mut order = bits_of(first.0, first.1);
                order.extend(&second);
                order.extend(rest_bits.iter().filter(|bit| !second.contains(bit)));
                tables.push(Table { order, key_bits: 28 });
            }
        }
        Layout { name: "manku-16x28".into(), max_distance: 3, tables }
    }

    /// `b` blocks (as even as 64 bits allow), one table per choice of `t`
    /// key blocks: exact for every k ≤ b − t.
    pub fn pigeonhole(blocks_count: u32, key_blocks: u32) -> Result<Layout, LayoutError> {
        if key_blocks == 0 || key_blocks >= blocks_count || blocks_count > 64 {
            return Err(LayoutError::BadShape { blocks: blocks_count, key_blocks });
        }
        let tables = binomial(blocks_count, key_blocks);
        if tables > MAX_TABLES as u64 {
            return Err(LayoutError::TooManyTables { tables });
        }
        let parts = blocks(0, 64, blocks_count as usize);
        let choices = combinations(parts.len(), key_blocks as usize);
        let tables = choices
            .into_iter()
            .map(|chosen| {
                let mut order: Vec<u8> =
                    chosen.iter().flat_map(|&i| bits_of(parts[i].0, parts[i].1)).collect();
                let key_bits = order.len() as u8;
                for (i, &(start, len)) in parts.iter().enumerate() {
                    if !chosen.contains(&i) {
                        order.extend(bits_of(start, len));
                    }
                }
                Table { order, key_bits }
            })
            .collect();
        Ok(Layout {
            name: format!("pigeonhole-{blocks_count}-{key_blocks}"),
            max_distance: blocks_count - key_blocks,
            tables,
        })
    }

    /// The cheapest layout of this module that is exact for `k`: the spec's
    /// for k ≤ 3, else `k + 2` blocks keyed on 2 (C(k+2, 2) tables).
    /// Beyond [`MAX_DISTANCE`] the error says which k is the largest that works.
    pub fn for_distance(k: u32) -> Result<Layout, LayoutError> {
        if k > MAX_DISTANCE {
            return Err(LayoutError::DistanceTooLargeForAnyLayout { k, tables: pigeonhole_tables(k) });
        }
        if k <= 3 { Ok(Layout::manku_16x28()) } else { Layout::pigeonhole(k + 2, 2) }
    }

    /// A layout by name: `manku-16x28`, `pigeonhole-B-T`, or `k=N`.
    pub fn parse(name: &str) -> Result<Layout, LayoutError> {
        let unknown = || LayoutError::Unknown(name.to_owned());
        if name == "manku-16x28" {
            return Ok(Layout::manku_16x28());
        }
        if let Some(k) = name.strip_prefix("k=") {
            return Layout::for_distance(k.parse().map_err(|_| unknown())?);
        }
        let shape = name.strip_prefix("pigeonhole-").ok_or_else(unknown)?;
        let (b, t) = shape.split_once('-').ok_or_else(unknown)?;
        Layout::pigeonhole(b.parse().map_err(|_| unknown())?, t.parse().map_err(|_| unknown())?)
    }

    /// Whether the layout finds every pair within `k`.
    pub fn check_distance(&self, k: u32) -> Result<(), DistanceTooLarge> {
        if k > self.max_distance {
            return Err(DistanceTooLarge { k, max: self.max_distance, layout: self.name.clone() });
        }
        Ok(())
    }

    /// Checks a layout read from a file: every table a permutation of the
    /// 64 bit positions with a key of 1 to 63 bits.
    pub fn validate(&self) -> Result<(), LayoutError> {
        if self.tables.len() > MAX_TABLES || self.tables.is_empty() {
            return Err(LayoutError::TooManyTables { tables: self.tables.len() as u64 });
        }
        for (index, table) in self.tables.iter().enumerate() {
            let mut seen = [false; 64];
            let permutation = table.order.len() == 64
                && table
                    .order
                    .iter()
                    .all(|&bit| bit < 64 && !std::mem::replace(&mut seen[usize::from(bit)], true));
            if !permutation || table.key_bits == 0 || table.key_bits >= 64 {
                return Err(LayoutError::NotAPermutation { table: index });
            }
        }
        Ok(())
    }
}

/// A layout's tables compiled for computing keys: what an index stores per
/// table, for a system that joins on keys itself (the Spark job of the
/// Python binding), so that it and the index agree by construction.
#[derive(Debug, Clone)]
pub struct TableKeys {
    permutations: Vec<Permutation>,
}

impl TableKeys {
    /// Compiles every table of `layout`.
    pub fn new(layout: &Layout) -> TableKeys {
        TableKeys { permutations: layout.tables.iter().map(Permutation::new).collect() }
    }

    /// The key of `value` in each table, in table order: the table's
    /// leading `key_bits` bits of the permuted value.
    pub fn keys(&self, value: u64) -> impl Iterator<Item = u64> + '_ {
        self.permutations.iter().map(move |permutation| permutation.key(permutation.apply(value)))
    }

    /// How many tables there are.
    pub fn len(&self) -> usize {
        self.permutations.len()
    }

    /// Whether there is no table (never for a validated layout).
    pub fn is_empty(&self) -> bool {
        self.permutations.is_empty()
    }
}

/// `count` contiguous blocks covering `len` bits from `start`, as even as
/// possible (longer blocks first), as `(start, len)`, most significant first.
fn blocks(start: u8, len: u8, count: usize) -> Vec<(u8, u8)> {
    let (base, extra) = (len as usize / count, len as usize % count);
    let mut top = start as usize + len as usize;
    (0..count)
        .map(|i| {
            let size = base + usize::from(i < extra);
            top -= size;
            (top as u8, size as u8)
        })
        .collect()
}

/// The bit positions of a block, most significant first.
fn bits_of(start: u8, len: u8) -> Vec<u8> {
    (start..start + len).rev().collect()
}

/// C(n, k), saturated (counted before the choices are listed, so that a
/// layout of astronomically many tables is refused, not enumerated).
fn binomial(n: u32, k: u32) -> u64 {
    (0..u64::from(k)).fold(1u64, |c, i| c.saturating_mul(u64::from(n) - i) / (i + 1))
}

/// Every choice of `k` of `n` indices, in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut chosen: Vec<usize> = (0..k).collect();
    loop {
        all.push(chosen.clone());
        let Some(i) = (0..k).rev().find(|&i| chosen[i] < n - k + i) else { return all };
        chosen[i] += 1;
        for j in i + 1..k {
            chosen[j] = chosen[j - 1] + 1;
        }
    }
}

/// A table's permutation compiled to runs of consecutive bits, so that a
/// fingerprint is permuted with a few shifts and masks (what an index's
/// segments sort by).
#[derive(Debug, Clone)]
pub struct Permutation {
    /// `(source shift, mask, destination shift)`: `((x >> src) & mask) << dst`.
    runs: Vec<(u32, u64, u32)>,
    /// Bits below the key.
    pub shift: u32,
}

impl Permutation {
    /// Compiles `table`.
    pub fn new(table: &Table) -> Permutation {
        let mut runs: Vec<(u32, u64, u32)> = Vec::new();
        let mut dst = 64u32;
        let mut i = 0;
        while i < table.order.len() {
            let mut len = 1;
            while i + len < table.order.len() && table.order[i + len] + 1 == table.order[i + len - 1] {
                len += 1;
            }
            let low_bit = u32::from(table.order[i + len - 1]);
            dst -= len as u32;
            let mask = if len == 64 { u64::MAX } else { (1u64 << len) - 1 };
            runs.push((low_bit, mask, dst));
            i += len;
        }
        Permutation { runs, shift: 64 - u32::from(table.key_bits) }
    }

    /// `x` with its bits in the table's order.
    pub fn apply(&self, x: u64) -> u64 {
        self.runs.iter().fold(0, |out, &(src, mask, dst)| out | (((x >> src) & mask) << dst))
    }

    /// The key of a permuted value.
    pub fn key(&self, permuted: u64) -> u64 {
        permuted >> self.shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_have_the_documented_shapes() {
        let spec = Layout::manku_16x28();
        assert_eq!((spec.tables.len(), spec.max_distance), (16, 3));
        spec.validate().unwrap();
        assert!(spec.tables.iter().all(|t| t.key_bits == 28));
        let six_three = Layout::pigeonhole(6, 3).unwrap();
        assert_eq!((six_three.tables.len(), six_three.max_distance), (20, 3));
        let ten_two = Layout::for_distance(8).unwrap();
        assert_eq!((ten_two.tables.len(), ten_two.max_distance), (45, 8));
        assert!(Layout::pigeonhole(4, 4).is_err());
        assert_eq!(Layout::parse("pigeonhole-6-3").unwrap(), six_three);
        assert!(Layout::parse("nonsense").is_err());
    }

    #[test]
    fn a_distance_too_large_names_the_largest_that_works() {
        assert_eq!(MAX_DISTANCE, 21);
        assert_eq!(Layout::for_distance(MAX_DISTANCE).unwrap().tables.len(), 253);
        for k in [22, 30, 64, 65, u32::MAX] {
            let err = Layout::for_distance(k).unwrap_err();
            let message = err.to_string();
            assert!(message.contains("the largest k that works is 21"), "{message}");
            assert!(!message.contains("blocks"), "{message}");
        }
        assert!(Layout::for_distance(30).unwrap_err().to_string().contains("496 for k = 30"));
        assert!(matches!(Layout::pigeonhole(64, 32), Err(LayoutError::TooManyTables { .. })));
        assert!(Layout::parse("k=40").unwrap_err().to_string().contains("largest k that works is 21"));
    }

    #[test]
    fn permutations_move_every_bit_to_its_place() {
        for layout in [Layout::manku_16x28(), Layout::pigeonhole(7, 2).unwrap()] {
            for table in &layout.tables {
                let permutation = Permutation::new(table);
                for (position, &bit) in table.order.iter().enumerate() {
                    let permuted = permutation.apply(1u64 << bit);
                    assert_eq!(permuted, 1u64 << (63 - position), "{} bit {bit}", layout.name);
                }
            }
        }
    }

    #[test]
    fn table_keys_are_the_segments_keys_and_meet_within_the_distance() {
        let layout = Layout::manku_16x28();
        let keys = TableKeys::new(&layout);
        assert_eq!(keys.len(), 16);
        let mut rng = fastrand::Rng::with_seed(16);
        for _ in 0..2_000 {
            let value = rng.u64(..);
            let listed: Vec<u64> = keys.keys(value).collect();
            for (table, &key) in layout.tables.iter().zip(&listed) {
                let permutation = Permutation::new(table);
                assert_eq!(key, permutation.key(permutation.apply(value)));
                assert!(key < 1 << 28);
            }
            let mut other = value;
            for _ in 0..rng.u32(0..=3) {
                other ^= 1 << rng.u32(0..64);
            }
            assert!(keys.keys(other).zip(&listed).any(|(a, &b)| a == b), "{value:x} {other:x}");
        }
    }
}
