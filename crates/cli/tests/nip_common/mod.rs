//! Helpers of the NIP-FF-3 CLI tests.
#![allow(dead_code)] // each test file uses a part

#[path = "../../../nip/tests/common/peer.rs"]
pub mod peer;

use assert_cmd::Command;

/// The binary, with no secret key inherited from the environment.
pub fn priorart() -> Command {
    let mut cmd = Command::cargo_bin("priorart").expect("binary");
    cmd.env_remove("PRIORART_SECRET_KEY");
    cmd
}

/// Runs `cmd`, which must succeed, and returns its stdout.
pub fn stdout(cmd: &mut Command) -> String {
    let output = cmd.output().expect("runs");
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("UTF-8")
}

pub const TEXT: &str = "Edit-durable attribution: the fingerprint survives light edits, \
    so the timestamp of the original keeps pointing at the author who wrote it first.";
