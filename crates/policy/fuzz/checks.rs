//! The checks behind the fuzz targets: run by them on generated inputs, and
//! by `tests/fuzz_regression.rs` on the committed minimized corpora.

use priorart_ots::MemoryHeaders;
use priorart_policy::strfry::{self, MAX_MSG_BYTES};
use priorart_policy::{Policy, PolicyConfig};

/// A strfry request's `type`, the one member an unanswered line must have.
#[derive(serde::Deserialize)]
struct Typed<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
}

/// Any bytes as one line from strfry: the plugin answers a `new` request
/// with exactly one line of strfry's answer object (its id echoed only when
/// short, an action strfry knows, a bounded message), answers nothing else
/// but malformed lines, and never panics.
pub fn strfry_line(data: &[u8]) {
    let mut policy =
        Policy::new(PolicyConfig::default(), Box::new(MemoryHeaders::new())).expect("the default policy");
    let Some(answer) = strfry::answer(&mut policy, data) else {
        // Read as the plugin reads it: other members skipped unchecked.
        let request: Typed = serde_json::from_slice(data).expect("only a request is left unanswered");
        assert!(request.kind.is_some_and(|kind| kind != "new"), "a new request must be answered");
        return;
    };
    assert!(!answer.contains('\n'), "one line: {answer}");
    let answer: serde_json::Value = serde_json::from_str(&answer).expect("the answer is JSON");
    let members = answer.as_object().expect("an object");
    assert_eq!(members.len(), 3, "{answer}");
    let id = members["id"].as_str().expect("id");
    assert!(id.len() <= 128, "{id}");
    assert!(["accept", "reject", "shadowReject"].contains(&members["action"].as_str().expect("action")));
    assert!(members["msg"].as_str().expect("msg").len() <= MAX_MSG_BYTES);
}

/// Any bytes as a policy file: refused with a reason, or a policy that
/// decides (a note through its rules), never a panic.
pub fn policy_toml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match PolicyConfig::from_toml(text) {
        Ok(config) => {
            let _ = config.header_config();
            if let Ok(mut policy) = Policy::new(config, Box::new(MemoryHeaders::new())) {
                let note = r#"{"type":"new","event":{"id":"0000000000000000000000000000000000000000000000000000000000000000","pubkey":"4f355bdcb7cc0af728ef3cceb9615d90684bb5b2ca5f859ab0f0b704075871aa","created_at":1,"kind":1,"tags":[],"content":"a note of a few words, enough of them to be tracked by the flood window of this policy","sig":"00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},"receivedAt":1,"sourceType":"IP4","sourceInfo":"127.0.0.1"}"#;
                assert!(strfry::answer(&mut policy, note.as_bytes()).is_some());
            }
        }
        Err(err) => assert!(!err.reason().is_empty(), "{err}"),
    }
}
