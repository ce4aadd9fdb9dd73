//! nostr-tools (npm), the reference JavaScript nostr library, as a peer.
//! Installed by `.ci/setup.d/nip.sh`; tests skip without it unless
//! `PRIORART_REQUIRE_PEERS=1`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// `crates/nip/tests/peer`, from the nip tests and the cli tests alike.
fn peer_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../nip/tests/peer")
}

/// Whether nostr-tools is installed; panics if it is required and missing
/// (`priorart_testkit::peers`).
pub fn available() -> bool {
    let installed = peer_dir().join("node_modules/nostr-tools").is_dir();
    priorart_testkit::peers::peer_available("nostr-tools", installed, "run .ci/setup.d/nip.sh")
}

/// Runs `script` of the peer directory with `input` on stdin; its stdout.
pub fn run(script: &str, input: &str) -> String {
    let stdout = node(Command::new("node").arg(peer_dir().join(script)), input);
    String::from_utf8(stdout).expect("UTF-8")
}

/// `command` (node and its arguments) run in the peer directory with
/// `input` on stdin; it must succeed; its stdout.
pub fn node(command: &mut Command, input: &str) -> Vec<u8> {
    let mut child = command
        .current_dir(peer_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write to node");
    let output = child.wait_with_output().expect("node finishes");
    assert!(output.status.success(), "{command:?} failed");
    output.stdout
}

/// nostr-tools' `verifyEvent` of each event, and of the event in its
/// `description` tag (None when it has none).
pub fn verify(events: &[String]) -> Vec<(bool, Option<bool>)> {
    let output = run("verify-events.mjs", &events.join("\n"));
    output
        .lines()
        .map(|line| {
            let answer: serde_json::Value = serde_json::from_str(line).expect("JSON");
            (answer["valid"].as_bool().expect("valid"), answer["embedded_valid"].as_bool())
        })
        .collect()
}
