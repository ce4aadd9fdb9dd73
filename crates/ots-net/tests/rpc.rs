//! Verification through bitcoind's JSON-RPC interface: a loopback endpoint
//! speaking bitcoind's protocol over a regtest chain mined in the test, with
//! user/password and cookie authentication, and a node that lies.

use priorart_ots::{DetachedTimestamp, Network, VerifyError, verify};
use priorart_ots_net::{BitcoinRpc, RpcAuth, StampOptions, UpgradeOptions, stamp_digests, upgrade};
use priorart_testkit::{BitcoindServer, RegtestChain, TestCalendar};
use std::time::Duration;

/// `Basic base64("alice:s3cret")`.
const ALICE: &str = "Basic YWxpY2U6czNjcmV0";
/// `Basic base64("__cookie__:c00k1e")`, as bitcoind's `.cookie` file holds it.
const COOKIE: &str = "Basic X19jb29raWVfXzpjMDBrMWU=";

/// A proof of `digest` anchored in block 1 of `chain`, through a calendar.
fn anchored_proof(chain: &priorart_testkit::SharedChain, digest: [u8; 32]) -> DetachedTimestamp {
    let calendar = TestCalendar::start(chain.clone());
    let options =
        StampOptions { calendars: vec![calendar.url()], min_answers: 1, timeout: Duration::from_secs(5) };
    let mut proof = stamp_digests(&[digest], &options).expect("the calendar answers").proofs.remove(0);
    assert_eq!(calendar.mine_block(), Some(1));
    let allow = UpgradeOptions {
        allowlist: vec![calendar.url()],
        calendar_map: Vec::new(),
        timeout: Duration::from_secs(5),
    };
    assert_eq!(upgrade(&mut proof, &allow).upgraded.len(), 1);
    proof
}

fn rpc(server: &BitcoindServer, auth: RpcAuth) -> BitcoinRpc {
    BitcoinRpc::new(&server.url(), auth, Duration::from_secs(5))
}

#[test]
fn verifies_through_rpc_with_user_and_password() {
    let chain = RegtestChain::shared();
    let proof = anchored_proof(&chain, [9; 32]);
    let node = BitcoindServer::start(chain.clone(), ALICE.to_owned());
    let auth = RpcAuth::UserPassword { user: "alice".into(), password: "s3cret".into() };
    let verified = verify(&proof, &rpc(&node, auth), Network::Regtest).expect("verifies");
    assert_eq!(verified.earliest.height, 1);
    assert_eq!(verified.earliest.block_hash, chain.lock().unwrap().header(1).unwrap().block_hash());
}

#[test]
fn verifies_through_rpc_with_a_cookie_file() {
    let chain = RegtestChain::shared();
    let proof = anchored_proof(&chain, [10; 32]);
    let node = BitcoindServer::start(chain, COOKIE.to_owned());
    let dir = tempfile::tempdir().unwrap();
    let cookie = dir.path().join(".cookie");
    std::fs::write(&cookie, "__cookie__:c00k1e\n").unwrap();
    let verified = verify(&proof, &rpc(&node, RpcAuth::Cookie(cookie)), Network::Regtest).expect("verifies");
    assert_eq!(verified.earliest.height, 1);
}

#[test]
fn wrong_credentials_are_named() {
    let chain = RegtestChain::shared();
    let proof = anchored_proof(&chain, [11; 32]);
    let node = BitcoindServer::start(chain, ALICE.to_owned());
    let auth = RpcAuth::UserPassword { user: "alice".into(), password: "wrong".into() };
    let err = verify(&proof, &rpc(&node, auth), Network::Regtest).unwrap_err();
    assert!(err.to_string().contains("wrong RPC credentials"), "{err}");
}

#[test]
fn a_node_serving_another_chain_is_refused() {
    // The node's block 1 commits to something else: the proof's merkle root
    // does not match, whatever the node says.
    let chain = RegtestChain::shared();
    let proof = anchored_proof(&chain, [12; 32]);
    let other = RegtestChain::shared();
    other.lock().unwrap().mine_block([0x55; 32]);
    let node = BitcoindServer::start(other, ALICE.to_owned());
    let auth = RpcAuth::UserPassword { user: "alice".into(), password: "s3cret".into() };
    let err = verify(&proof, &rpc(&node, auth), Network::Regtest).unwrap_err();
    assert!(matches!(err, VerifyError::Failed { .. }), "{err}");
}

#[test]
fn the_cost_to_forge_counts_up_to_the_node_s_block_count() {
    let chain = RegtestChain::shared();
    let proof = anchored_proof(&chain, [11; 32]);
    for i in 0..3 {
        chain.lock().unwrap().mine_block([i; 32]);
    }
    let node = BitcoindServer::start(chain, ALICE.to_owned());
    let source = rpc(&node, RpcAuth::UserPassword { user: "alice".into(), password: "s3cret".into() });
    let verified = verify(&proof, &source, Network::Regtest).expect("verifies");
    let cost = priorart_ots::cost_to_forge(&source, Network::Regtest, &verified.earliest, 144).unwrap();
    assert_eq!(
        (cost.blocks, cost.claimed_blocks, cost.complete, cost.tip_as_far_as_held),
        (3, 3, true, false)
    );
}
