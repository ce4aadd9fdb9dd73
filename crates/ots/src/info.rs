//! The human-readable tree of a proof, laid out exactly as the reference
//! client's `ots info` prints it, so that the two can be compared with diff.

use crate::attestation::Attestation;
use crate::detached::DetachedTimestamp;
use crate::hex::{encode as hex, encode_reversed as hex_reversed};
use crate::op::HashOp;
use crate::timestamp::Timestamp;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt::Write;

/// `ots info` output for a proof (without the trailing blank line the
/// reference's `print` adds).
pub fn info_text(proof: &DetachedTimestamp) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "File {} hash: {}", proof.file_hash_op().name(), hex(proof.file_digest()));
    out.push_str("Timestamp:\n");
    write_tree(&mut out, proof.timestamp(), proof.file_digest(), 0);
    out
}

fn write_tree(out: &mut String, node: &Timestamp, msg: &[u8], indent: usize) {
    let pad = " ".repeat(indent);
    // The reference prints in canonical order whatever order the file has.
    let mut attestations: Vec<&Attestation> = node.attestations().collect();
    attestations.sort();
    let mut ops: Vec<_> = node.ops().collect();
    ops.sort_by(|a, b| a.0.cmp(b.0));
    for attestation in attestations {
        let _ = writeln!(out, "{pad}verify {attestation}");
        match attestation {
            Attestation::Bitcoin { .. } => {
                let _ = writeln!(out, "{pad}# Bitcoin block merkle root {}", hex_reversed(msg));
            }
            Attestation::Litecoin { .. } => {
                let _ = writeln!(out, "{pad}# Litecoin block merkle root {}", hex_reversed(msg));
            }
            _ => {}
        }
    }
    let txid = transaction_id(msg);
    if ops.len() > 1 {
        for (op, child) in ops {
            if let Some(txid) = &txid {
                let _ = writeln!(out, "{pad}* Transaction id {txid}");
            }
            let _ = writeln!(out, "{pad} -> {op}");
            write_tree(out, child, &op.compute(msg), indent + 4);
        }
    } else if let Some((op, child)) = ops.first() {
        if let Some(txid) = &txid {
            let _ = writeln!(out, "{pad}# Transaction id {txid}");
        }
        let _ = writeln!(out, "{pad}{op}");
        write_tree(out, child, &op.compute(msg), indent);
    }
}

/// The id of the Bitcoin transaction `msg` is, if it is one (the reference
/// annotates the node where a proof passes through a transaction).
pub fn transaction_id(msg: &[u8]) -> Option<String> {
    bitcoin::consensus::encode::deserialize::<bitcoin::Transaction>(msg).ok()?;
    Some(hex_reversed(&HashOp::Sha256.hash(&HashOp::Sha256.hash(msg))))
}

/// The proof's tree as JSON, as `priorart ots info --json` prints it (one
/// line, the same bytes in every front end): the file hash, then every node
/// with its message, attestations and ops (each op with its argument and
/// result).
pub fn info_json(proof: &DetachedTimestamp) -> String {
    serde_json::to_string(&proof_info(proof)).expect("a proof's tree serializes")
}

/// The typed document of [`info_json`].
pub fn proof_info(proof: &DetachedTimestamp) -> ProofInfo {
    ProofInfo {
        file_hash_op: proof.file_hash_op().name(),
        file_digest: hex(proof.file_digest()),
        timestamp: node_json(proof.timestamp(), proof.file_digest()),
    }
}

/// A proof's tree (`ots info --json`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProofInfo {
    /// The file hash's operation (`sha256`, `sha1`, `ripemd160`, `keccak256`).
    pub file_hash_op: &'static str,
    /// The file's digest, hex.
    pub file_digest: String,
    /// The tree from the file digest.
    pub timestamp: TimestampNode,
}

/// A node of the tree: a message, what attests it, and the operations on it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimestampNode {
    /// The message at this node, hex.
    pub msg: String,
    /// What attests this message.
    pub attestations: Vec<AttestationJson<'static>>,
    /// The operations applied to it, each leading to a node.
    pub ops: Vec<Operation>,
    /// When the message is a Bitcoin transaction: its id (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction_id: Option<String>,
    /// When a Bitcoin attestation is here: the message as a block's merkle
    /// root, in the usual reversed hex (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merkle_root: Option<String>,
}

/// An operation of the tree and the node it leads to.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Operation {
    /// Its name (`sha256`, `append`, `prepend`, ...).
    pub op: &'static str,
    /// The message it gives, hex.
    pub result: String,
    /// The node of that message.
    pub timestamp: Box<TimestampNode>,
    /// Its argument, hex (absent for hashes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arg: Option<String>,
}

fn node_json(node: &Timestamp, msg: &[u8]) -> TimestampNode {
    let ops = node
        .ops()
        .map(|(op, child)| {
            let result = op.apply(msg).unwrap_or_default();
            Operation {
                op: op.name(),
                timestamp: Box::new(node_json(child, &result)),
                result: hex(&result),
                arg: op.arg().map(hex),
            }
        })
        .collect();
    let bitcoin = node.attestations().any(|a| matches!(a, Attestation::Bitcoin { .. }));
    TimestampNode {
        msg: hex(msg),
        attestations: node.attestations().map(|a| attestation_json(a).into_owned()).collect(),
        ops,
        transaction_id: transaction_id(msg),
        merkle_root: bitcoin.then(|| hex_reversed(msg)),
    }
}

/// One attestation as JSON: `{"type": "bitcoin", "height": …}`, `pending`
/// with its `uri`, `unknown` with `tag` and `payload` in hex.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "Attestation"))]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum AttestationJson<'a> {
    /// The message is the merkle root of the Bitcoin block at this height.
    Bitcoin {
        /// Block height.
        height: u64,
    },
    /// The message is the merkle root of the Litecoin block at this height.
    Litecoin {
        /// Block height.
        height: u64,
    },
    /// The message is the transactions root of the Ethereum block at this height.
    Ethereum {
        /// Block number.
        height: u64,
    },
    /// A calendar's promise to attest later.
    Pending {
        /// The calendar.
        uri: Cow<'a, str>,
    },
    /// An attestation of a kind this codec does not know.
    Unknown {
        /// Its 8-byte tag, hex.
        tag: String,
        /// Its payload, hex.
        payload: String,
    },
}

impl AttestationJson<'_> {
    fn into_owned(self) -> AttestationJson<'static> {
        match self {
            AttestationJson::Bitcoin { height } => AttestationJson::Bitcoin { height },
            AttestationJson::Litecoin { height } => AttestationJson::Litecoin { height },
            AttestationJson::Ethereum { height } => AttestationJson::Ethereum { height },
            AttestationJson::Pending { uri } => {
                AttestationJson::Pending { uri: Cow::Owned(uri.into_owned()) }
            }
            AttestationJson::Unknown { tag, payload } => AttestationJson::Unknown { tag, payload },
        }
    }
}

/// `attestation` as its JSON object ([`AttestationJson`]).
pub fn attestation_json(attestation: &Attestation) -> AttestationJson<'_> {
    match attestation {
        Attestation::Bitcoin { height } => AttestationJson::Bitcoin { height: *height },
        Attestation::Litecoin { height } => AttestationJson::Litecoin { height: *height },
        Attestation::Ethereum { height } => AttestationJson::Ethereum { height: *height },
        Attestation::Pending { uri } => AttestationJson::Pending { uri: Cow::Borrowed(uri) },
        Attestation::Unknown { tag, payload } => {
            AttestationJson::Unknown { tag: hex(tag), payload: hex(payload) }
        }
    }
}
