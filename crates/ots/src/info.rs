//! The human-readable tree of a proof, laid out exactly as the reference
//! client's `ots info` prints it, so that the two can be compared with diff.

use crate::attestation::Attestation;
use crate::detached::DetachedTimestamp;
use crate::hex::{encode as hex, encode_reversed as hex_reversed};
use crate::op::HashOp;
use crate::timestamp::Timestamp;
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

/// The proof's tree as JSON, as `priorart ots info --json` prints it: the
/// file hash, then every node with its message, attestations and ops (each
/// op with its argument and result).
pub fn info_json(proof: &DetachedTimestamp) -> serde_json::Value {
    serde_json::json!({
        "file_hash_op": proof.file_hash_op().name(),
        "file_digest": hex(proof.file_digest()),
        "timestamp": node_json(proof.timestamp(), proof.file_digest()),
    })
}

fn node_json(node: &Timestamp, msg: &[u8]) -> serde_json::Value {
    let ops: Vec<serde_json::Value> = node
        .ops()
        .map(|(op, child)| {
            let result = op.apply(msg).unwrap_or_default();
            let mut entry =
                serde_json::json!({"op": op.name(), "result": hex(&result), "timestamp": node_json(child, &result)});
            if let Some(arg) = op.arg() {
                entry["arg"] = serde_json::Value::String(hex(arg));
            }
            entry
        })
        .collect();
    let mut value = serde_json::json!({
        "msg": hex(msg),
        "attestations": node.attestations().map(attestation_json).collect::<Vec<_>>(),
        "ops": ops,
    });
    if let Some(txid) = transaction_id(msg) {
        value["transaction_id"] = serde_json::Value::String(txid);
    }
    if node.attestations().any(|a| matches!(a, Attestation::Bitcoin { .. })) {
        value["merkle_root"] = serde_json::Value::String(hex_reversed(msg));
    }
    value
}

/// One attestation as JSON: `{"type": "bitcoin", "height": …}`, `pending`
/// with its `uri`, `unknown` with `tag` and `payload` in hex.
pub fn attestation_json(attestation: &Attestation) -> serde_json::Value {
    match attestation {
        Attestation::Bitcoin { height } => serde_json::json!({"type": "bitcoin", "height": height}),
        Attestation::Litecoin { height } => serde_json::json!({"type": "litecoin", "height": height}),
        Attestation::Ethereum { height } => serde_json::json!({"type": "ethereum", "height": height}),
        Attestation::Pending { uri } => serde_json::json!({"type": "pending", "uri": uri}),
        Attestation::Unknown { tag, payload } => {
            serde_json::json!({"type": "unknown", "tag": hex(tag), "payload": hex(payload)})
        }
    }
}
