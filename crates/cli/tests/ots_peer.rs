//! Cross-check with the Python reference (PyPI `opentimestamps-client`
//! 0.7.2, `opentimestamps` 0.4.5; installed by .ci/setup.d/ots.sh): proofs
//! priorart writes are read by `ots info` exactly as `priorart ots info`
//! reads them, and proofs the Python library writes are read by priorart
//! byte for byte, with the same `info`.

use priorart_nip_testkit::priorart;
use priorart_ots::DetachedTimestamp;
use priorart_testkit::{RegtestChain, TestCalendar};
use std::path::{Path, PathBuf};
use std::process::Command as Process;

/// Whether the peer is installed; without it the test is skipped, unless
/// PRIORART_REQUIRE_PEERS=1 (CI), where that is a failure.
fn peer_available() -> bool {
    let ok = Process::new("ots").arg("--version").output().is_ok_and(|out| out.status.success())
        && Process::new("python3").args(["-c", "import opentimestamps"]).status().is_ok_and(|s| s.success());
    priorart_testkit::peers::peer_available("the Python `ots` client", ok, "run .ci/setup.d/ots.sh")
}

fn reference_info(proof: &Path) -> String {
    let output = Process::new("ots").arg("info").arg(proof).output().unwrap();
    assert!(
        output.status.success(),
        "ots info {}: {}",
        proof.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn priorart_info(proof: &Path) -> String {
    let output = priorart().args(["ots", "info"]).arg(proof).output().unwrap();
    assert!(output.status.success(), "priorart ots info {}", proof.display());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_reference_reads_what_priorart_writes() {
    if !peer_available() {
        return;
    }
    let chain = RegtestChain::shared();
    let calendars = [TestCalendar::start(chain.clone()), TestCalendar::start(chain.clone())];
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = (0..3).map(|i| dir.path().join(format!("f{i}.txt"))).collect();
    for (i, file) in files.iter().enumerate() {
        std::fs::write(file, format!("content {i}")).unwrap();
    }
    let mut stamp = priorart();
    stamp.args(["ots", "stamp", "-c", &calendars[0].url(), "-c", &calendars[1].url()]).args(&files);
    stamp.assert().success();
    let proofs: Vec<PathBuf> = files.iter().map(|f| PathBuf::from(format!("{}.ots", f.display()))).collect();
    let mut checked = Vec::new();
    for proof in &proofs {
        checked.push((proof.clone(), std::fs::read(proof).unwrap()));
    }
    // Upgraded (through a coinbase-like transaction) and pruned proofs too.
    for calendar in &calendars {
        calendar.mine_block().unwrap();
    }
    let mut upgrade = priorart();
    upgrade
        .args(["ots", "upgrade", "--allow", &calendars[0].url(), "--allow", &calendars[1].url()])
        .args(&proofs);
    upgrade.assert().success();
    std::fs::remove_file(format!("{}.bak", proofs[0].display())).unwrap();
    let mut prune = priorart();
    prune.args(["ots", "prune", "--earliest-only"]).arg(&proofs[0]);
    prune.assert().success();
    for proof in &proofs {
        checked.push((proof.clone(), std::fs::read(proof).unwrap()));
    }
    for (index, (path, bytes)) in checked.iter().enumerate() {
        let copy = dir.path().join(format!("checked-{index}.ots"));
        std::fs::write(&copy, bytes).unwrap();
        assert_eq!(reference_info(&copy), priorart_info(&copy), "{}", path.display());
    }
}

#[test]
fn priorart_reads_what_the_reference_writes() {
    if !peer_available() {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer/ots_write.py");
    for seed in ["1", "2"] {
        let dir = tempfile::tempdir().unwrap();
        let status = Process::new("python3").arg(&script).arg(dir.path()).arg(seed).status().unwrap();
        assert!(status.success());
        let mut seen = 0;
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let proof =
                DetachedTimestamp::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(proof.to_bytes(), bytes, "{}", path.display());
            assert_eq!(priorart_info(&path), reference_info(&path), "{}", path.display());
            seen += 1;
        }
        assert!(seen >= 17);
    }
}
