//! Helpers of the NIP-FF-3 CLI tests.

#[path = "../../../nip/tests/common/peer.rs"]
pub mod peer;

use assert_cmd::Command;

/// `module` (an ES module's source, read from stdin so that nostr-tools
/// resolves from nostr-tools' peer directory) run with `args` and Node's
/// WebSocket; its stdout as JSON.
pub fn run_node_module(module: &str, args: &[&str]) -> serde_json::Value {
    let mut command = std::process::Command::new("node");
    command.args(["--experimental-websocket", "--no-warnings", "--input-type=module", "-"]).args(args);
    serde_json::from_slice(&peer::node(&mut command, module)).expect("JSON")
}

/// Runs `cmd`, which must succeed, and returns its stdout.
pub fn stdout(cmd: &mut Command) -> String {
    let output = cmd.output().expect("runs");
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("UTF-8")
}

pub const TEXT: &str = "Edit-durable attribution: the fingerprint survives light edits, \
    so the timestamp of the original keeps pointing at the author who wrote it first.";
