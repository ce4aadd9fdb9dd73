//! The explanations' JSON comes in one member order in every front end:
//! written by their `Serialize`, not by a map whose order depends on
//! serde_json's `preserve_order` (which the CLI enables and the bindings
//! do not).

use priorart_fingerprint::{Scheme, TokenRule, explain, explain_simhash_doc};

/// Where each of `keys` first appears in `json`, in order, or a panic.
fn in_order(json: &str, keys: &[&str]) {
    let positions: Vec<usize> = keys
        .iter()
        .map(|key| json.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("no {key} in {json}")))
        .collect();
    assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "{keys:?} out of order in {json}");
}

#[test]
fn an_equality_explanation_is_written_in_its_documented_order() {
    let explanation =
        explain("Zebras graze; apples fall.", Scheme::MinhashEqualityV1).expect("an equality scheme");
    let json = serde_json::to_string(&explanation).unwrap();
    let order = [
        "scheme",
        "canonical_text",
        "tokens",
        "tokens_total",
        "kept_tokens",
        "kept_tokens_total",
        "fallback",
        "empty",
        "buckets",
        "descriptor",
        "fingerprint",
    ];
    in_order(&json, &order);
    assert!(json.starts_with(r#"{"scheme":"minhash-equality-v1","canonical_text":"#), "{json}");
    assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap(), explanation.to_json());
}

#[test]
fn a_simhash_doc_explanation_keeps_its_features_in_first_seen_order() {
    let explanation = explain_simhash_doc("zebra apple mango apple", TokenRule::V1);
    let json = serde_json::to_string(&explanation).unwrap();
    in_order(
        &json,
        &["scheme", "tokens", "features", "numeric", "identifiers", "counters", "hex", "fingerprint"],
    );
    // Features by first sight (a sorted map would put apple first).
    let features = &json[json.find("\"features\":").unwrap()..];
    in_order(features, &["zebra", "apple", "mango"]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap(), explanation.to_json());
}
