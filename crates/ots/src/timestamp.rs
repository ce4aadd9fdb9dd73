//! The timestamp tree: from a message, ops lead to further messages and
//! attestations vouch for some of them.
//!
//! Nodes do not store their message: it is recomputed while walking, so a
//! decoded proof takes memory in proportion to its size, not 4096 bytes per
//! node (a small hostile file could otherwise claim gigabytes).

use crate::attestation::Attestation;
use crate::codec::{DecodeError, Reader};
use crate::op::{Op, OpError};
use std::cmp::Ordering;

/// Deepest nesting of nodes the reference accepts.
pub const MAX_DEPTH: usize = 256;

/// Written before every item of a node but its last: "another item of this
/// node follows".
const MORE_ITEMS: u8 = 0xff;
/// The tag of an attestation item (any other tag byte is an op's).
const ATTESTATION_TAG: u8 = 0x00;

/// One node of a timestamp tree and everything below it.
///
/// Items keep the order they were read in, so that decoding and re-encoding
/// gives back the input even for proofs written by clients that do not sort
/// (the JavaScript client, for one). Nodes built or merged here are kept in
/// the reference's canonical order: attestations, then ops, each sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timestamp {
    items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Attestation(Attestation),
    Op(Op, Timestamp),
}

impl Item {
    /// The reference's canonical order; equal for duplicates.
    fn canonical_cmp(&self, other: &Item) -> Ordering {
        match (self, other) {
            (Item::Attestation(a), Item::Attestation(b)) => a.cmp(b),
            (Item::Attestation(_), Item::Op(..)) => Ordering::Less,
            (Item::Op(..), Item::Attestation(_)) => Ordering::Greater,
            (Item::Op(a, _), Item::Op(b, _)) => a.cmp(b),
        }
    }
}

/// An attestation together with the message (commitment) it vouches for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttestationAt {
    /// The message reached at the attestation: for Bitcoin, the block's
    /// merkle root in internal byte order; for a calendar, the commitment to
    /// ask it about.
    pub commitment: Vec<u8>,
    /// The attestation.
    pub attestation: Attestation,
}

/// Why two timestamps cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum MergeError {
    #[error("merged timestamp would be {depth} levels deep, over the limit of {MAX_DEPTH}")]
    TooDeep { depth: usize },
    #[error("no node of the timestamp has the commitment to merge at")]
    CommitmentNotFound,
}

reason_names!(MergeError {
    TooDeep => "too_deep",
    CommitmentNotFound => "commitment_not_found",
});

impl Timestamp {
    /// Decodes a bare timestamp for `msg`, as calendars send them: the tree
    /// only, no header, and no trailing bytes.
    pub fn from_bytes(bytes: &[u8], msg: &[u8]) -> Result<Timestamp, DecodeError> {
        let mut reader = Reader::new(bytes);
        let timestamp = Timestamp::decode(&mut reader, msg.len(), MAX_DEPTH)?;
        reader.expect_end()?;
        Ok(timestamp)
    }

    /// Serializes the tree, items in their order (canonical unless decoded
    /// from a proof that was not).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(&mut out);
        out
    }

    /// Attestations of this node, in stored order.
    pub fn attestations(&self) -> impl Iterator<Item = &Attestation> {
        self.items.iter().filter_map(|item| match item {
            Item::Attestation(attestation) => Some(attestation),
            Item::Op(..) => None,
        })
    }

    /// Ops from this node with the node each leads to, in stored order.
    pub fn ops(&self) -> impl Iterator<Item = (&Op, &Timestamp)> {
        self.items.iter().filter_map(|item| match item {
            Item::Op(op, child) => Some((op, child)),
            Item::Attestation(_) => None,
        })
    }

    /// Levels of nodes from here down (a lone leaf is 1).
    pub fn depth(&self) -> usize {
        1 + self.ops().map(|(_, child)| child.depth()).max().unwrap_or(0)
    }

    /// Every attestation below this node, with the message it attests, depth
    /// first in stored order.
    pub fn all_attestations(&self, msg: &[u8]) -> Vec<AttestationAt> {
        let mut found = Vec::new();
        self.walk(msg, &mut |msg, node| {
            for attestation in node.attestations() {
                found.push(AttestationAt { commitment: msg.to_vec(), attestation: attestation.clone() });
            }
        });
        found
    }

    /// Calls `visit` with every node and its message, depth first, parents
    /// before children.
    pub fn walk(&self, msg: &[u8], visit: &mut dyn FnMut(&[u8], &Timestamp)) {
        visit(msg, self);
        for (op, child) in self.ops() {
            child.walk(&op.compute(msg), visit);
        }
    }

    /// Adds every op and attestation of `other` (a timestamp of the same
    /// message) to this one. Refused if the result would be too deep to be
    /// decoded again.
    pub fn merge(&mut self, other: Timestamp) -> Result<(), MergeError> {
        let depth = self.merged_depth(&other);
        if depth > MAX_DEPTH {
            return Err(MergeError::TooDeep { depth });
        }
        self.merge_unchecked(other);
        Ok(())
    }

    fn find_op(&self, op: &Op) -> Option<&Timestamp> {
        self.ops().find(|(ours, _)| *ours == op).map(|(_, child)| child)
    }

    fn merged_depth(&self, other: &Timestamp) -> usize {
        let deepest_child = other
            .ops()
            .map(|(op, theirs)| match self.find_op(op) {
                Some(ours) => ours.merged_depth(theirs),
                None => theirs.depth(),
            })
            .chain(self.ops().map(|(_, child)| child.depth()))
            .max()
            .unwrap_or(0);
        1 + deepest_child
    }

    /// Merges without a depth check. A node in canonical order stays so; in
    /// a node that was not, new items go after the existing ones.
    fn merge_unchecked(&mut self, other: Timestamp) {
        let was_canonical = self.is_canonical();
        self.items.extend(other.items);
        self.merge_duplicates();
        if was_canonical {
            self.items.sort_by(Item::canonical_cmp);
        }
    }

    fn is_canonical(&self) -> bool {
        self.items.windows(2).all(|pair| pair[0].canonical_cmp(&pair[1]) == Ordering::Less)
    }

    /// Folds repeated attestations and ops into their first occurrence (the
    /// reference keeps only the last repeated op; merging loses nothing and
    /// changes nothing for proofs without repeats). O(n log n), so a hostile
    /// node with many items cannot make this quadratic.
    fn merge_duplicates(&mut self) {
        if self.items.len() < 2 {
            return;
        }
        let mut order: Vec<usize> = (0..self.items.len()).collect();
        order.sort_by(|&a, &b| self.items[a].canonical_cmp(&self.items[b]).then(a.cmp(&b)));
        let mut duplicates = Vec::new(); // (kept index, repeated index)
        let mut run_start = order[0];
        for pair in order.windows(2) {
            if self.items[pair[0]].canonical_cmp(&self.items[pair[1]]) == Ordering::Equal {
                duplicates.push((run_start, pair[1]));
            } else {
                run_start = pair[1];
            }
        }
        if duplicates.is_empty() {
            return;
        }
        let mut slots: Vec<Option<Item>> = std::mem::take(&mut self.items).into_iter().map(Some).collect();
        for (kept, repeated) in duplicates {
            if let Some(Item::Op(_, theirs)) = slots[repeated].take()
                && let Some(Item::Op(_, ours)) = &mut slots[kept]
            {
                ours.merge_unchecked(theirs);
            }
        }
        self.items = slots.into_iter().flatten().collect();
    }

    /// Merges `other` at the first node (depth first) whose message is
    /// `commitment`, as an upgrade does with a calendar's answer. `msg` is
    /// this node's message. The depth limit counts from this node.
    pub fn merge_at(&mut self, msg: &[u8], commitment: &[u8], other: Timestamp) -> Result<(), MergeError> {
        let path = self.path_to(msg, commitment).ok_or(MergeError::CommitmentNotFound)?;
        let mut node = self;
        for op in &path {
            node = node.find_op_mut(op).ok_or(MergeError::CommitmentNotFound)?;
        }
        let depth = path.len() + node.merged_depth(&other);
        if depth > MAX_DEPTH {
            return Err(MergeError::TooDeep { depth });
        }
        node.merge_unchecked(other);
        Ok(())
    }

    /// The ops from this node (message `msg`) to the first node whose
    /// message is `target`.
    fn path_to(&self, msg: &[u8], target: &[u8]) -> Option<Vec<Op>> {
        if msg == target {
            return Some(Vec::new());
        }
        for (op, child) in self.ops() {
            if let Some(mut path) = child.path_to(&op.compute(msg), target) {
                path.insert(0, op.clone());
                return Some(path);
            }
        }
        None
    }

    fn find_op_mut(&mut self, op: &Op) -> Option<&mut Timestamp> {
        self.items.iter_mut().find_map(|item| match item {
            Item::Op(ours, child) if ours == op => Some(child),
            _ => None,
        })
    }

    /// Inserts an item at its canonical place (after any item that sorts
    /// before it), unless an equal one is already there.
    fn insert_item(&mut self, item: Item) -> usize {
        if let Some(index) = self.items.iter().position(|ours| ours.canonical_cmp(&item) == Ordering::Equal) {
            return index;
        }
        let index = self.items.iter().position(|ours| ours.canonical_cmp(&item) == Ordering::Greater);
        let index = index.unwrap_or(self.items.len());
        self.items.insert(index, item);
        index
    }

    /// Adds an attestation to this node (kept in canonical order).
    pub fn add_attestation(&mut self, attestation: Attestation) {
        self.insert_item(Item::Attestation(attestation));
    }

    /// Whether a Bitcoin attestation is at or below this node.
    pub fn has_bitcoin_attestation(&self) -> bool {
        self.attestations().any(|a| matches!(a, Attestation::Bitcoin { .. }))
            || self.ops().any(|(_, child)| child.has_bitcoin_attestation())
    }

    /// The node reached through `op`, created empty if missing. Callers must
    /// give every node they create an attestation or an op.
    pub(crate) fn add_op(&mut self, op: Op) -> &mut Timestamp {
        let index = self.insert_item(Item::Op(op, Timestamp::default()));
        match &mut self.items[index] {
            Item::Op(_, child) => child,
            Item::Attestation(_) => unreachable!("insert_item returned the op's index"),
        }
    }

    /// A chain of nodes: `ops` applied in turn lead to `tip`.
    pub fn from_path(ops: Vec<Op>, tip: Timestamp) -> Timestamp {
        let mut node = tip;
        for op in ops.into_iter().rev() {
            let mut parent = Timestamp::default();
            *parent.add_op(op) = node;
            node = parent;
        }
        node
    }

    /// Keeps the attestations for which `keep` is true; returns how many
    /// were dropped.
    pub(crate) fn retain_attestations(&mut self, mut keep: impl FnMut(&Attestation) -> bool) -> usize {
        let before = self.items.len();
        self.items.retain(|item| match item {
            Item::Attestation(attestation) => keep(attestation),
            Item::Op(..) => true,
        });
        before - self.items.len()
    }

    /// Mutable access to the children, for pruning.
    pub(crate) fn children_mut(&mut self) -> impl Iterator<Item = (&Op, &mut Timestamp)> {
        self.items.iter_mut().filter_map(|item| match item {
            Item::Op(op, child) => Some((&*op, child)),
            Item::Attestation(_) => None,
        })
    }

    /// Drops ops that lead to empty nodes.
    pub(crate) fn drop_empty_children(&mut self) {
        self.items.retain(|item| match item {
            Item::Op(_, child) => !child.is_empty(),
            Item::Attestation(_) => true,
        });
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Decodes a node whose message is `msg_len` bytes long. Only lengths
    /// matter for the limits, so nothing is hashed here.
    pub(crate) fn decode(
        reader: &mut Reader<'_>,
        msg_len: usize,
        depth_left: usize,
    ) -> Result<Timestamp, DecodeError> {
        if depth_left == 0 {
            return Err(DecodeError::RecursionLimit { limit: MAX_DEPTH, offset: reader.offset() });
        }
        let mut node = Timestamp::default();
        loop {
            let tag = reader.byte()?;
            if tag == MORE_ITEMS {
                let tag = reader.byte()?;
                node.decode_item(reader, tag, msg_len, depth_left)?;
            } else {
                node.decode_item(reader, tag, msg_len, depth_left)?;
                node.merge_duplicates();
                return Ok(node);
            }
        }
    }

    fn decode_item(
        &mut self,
        reader: &mut Reader<'_>,
        tag: u8,
        msg_len: usize,
        depth_left: usize,
    ) -> Result<(), DecodeError> {
        if tag == ATTESTATION_TAG {
            self.items.push(Item::Attestation(Attestation::decode(reader)?));
            return Ok(());
        }
        let offset = reader.offset() - 1;
        let op = Op::decode(reader, tag)?;
        let result_len = op.result_len(msg_len).map_err(|err| limit_error(err, offset))?;
        let child = Timestamp::decode(reader, result_len, depth_left - 1)?;
        self.items.push(Item::Op(op, child));
        Ok(())
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        for (index, item) in self.items.iter().enumerate() {
            if index + 1 < self.items.len() {
                out.push(MORE_ITEMS);
            }
            match item {
                Item::Attestation(attestation) => {
                    out.push(ATTESTATION_TAG);
                    attestation.encode(out);
                }
                Item::Op(op, child) => {
                    op.encode(out);
                    child.encode(out);
                }
            }
        }
    }
}

fn limit_error(err: OpError, offset: usize) -> DecodeError {
    match err {
        OpError::MessageTooLong { op, len, limit } => DecodeError::MessageTooLong { op, len, limit, offset },
        OpError::ResultTooLong { op, len, limit } => DecodeError::ResultTooLong { op, len, limit, offset },
        // Arguments were checked by the decoder and messages are never empty.
        OpError::BadArgLength { len, .. } => {
            DecodeError::BadLength { offset, len: len as u64, min: 1, max: crate::op::MAX_ARG_LEN }
        }
        OpError::EmptyMessage { op } => DecodeError::MessageTooLong { op, len: 0, limit: 0, offset },
    }
}
