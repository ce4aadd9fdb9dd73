//! Verification against real mainnet headers served by a loopback Esplora
//! server, and against servers that lie.

use priorart_ots::bitcoin::block::Header;
use priorart_ots::bitcoin::hashes::Hash;
use priorart_ots::bitcoin::{BlockHash, TxMerkleNode};
use priorart_ots::checkpoints::check_header;
use priorart_ots::{
    AttestationError, DetachedTimestamp, HeaderError, Network, VerifyError, header_from_hex, verify,
};
use priorart_ots_net::{Esplora, HeaderCache};
use priorart_testkit::EsploraServer;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ots/tests/data")
}

fn proof(name: &str) -> DetachedTimestamp {
    DetachedTimestamp::from_bytes(&std::fs::read(data().join(name)).unwrap()).unwrap()
}

fn real_header(height: u64) -> Header {
    header_from_hex(&std::fs::read_to_string(data().join(format!("headers/{height}.hex"))).unwrap()).unwrap()
}

/// An honest server with the two real headers.
fn honest_esplora() -> EsploraServer {
    let headers = [358391, 428648].map(|height| {
        let header = real_header(height);
        (height, header.block_hash(), header)
    });
    EsploraServer::from_headers(headers.to_vec())
}

fn esplora(server: &EsploraServer) -> Esplora {
    Esplora::new(&server.url(), Duration::from_secs(5))
}

#[test]
fn real_proofs_verify_against_real_headers() {
    let server = honest_esplora();
    let verified = verify(&proof("hello-world.txt.ots"), &esplora(&server), Network::Mainnet).unwrap();
    assert_eq!(verified.earliest.height, 358391);
    assert_eq!(verified.earliest.block_hash, real_header(358391).block_hash());
    assert_eq!(verified.earliest.time, 1432827678);

    let verified =
        verify(&proof("incomplete-upgraded.txt.ots"), &esplora(&server), Network::Mainnet).unwrap();
    assert_eq!(verified.earliest.height, 428648);
    assert_eq!(verified.pending, vec!["https://alice.btc.calendar.opentimestamps.org".to_owned()]);
}

#[test]
fn bad_stamp_fails_on_the_merkle_root() {
    let server = honest_esplora();
    let err = verify(&proof("bad-stamp.txt.ots"), &esplora(&server), Network::Mainnet).unwrap_err();
    let VerifyError::Failed { failures } = err else { panic!("{err}") };
    assert!(matches!(failures[0].reason, AttestationError::MerkleRootMismatch { height: 358391, .. }));
}

/// The real header of block 358391 with the merkle root bad-stamp.txt.ots
/// claims: what a lying explorer would serve to make the bad stamp verify.
fn forged_header() -> Header {
    let bad = proof("bad-stamp.txt.ots");
    let claimed_root = bad.attestations().into_iter().next().unwrap().commitment;
    let mut forged = real_header(358391);
    forged.merkle_root = TxMerkleNode::from_slice(&claimed_root).unwrap();
    forged
}

fn refusal(claimed: BlockHash, header: Header) -> AttestationError {
    let server = EsploraServer::from_headers(vec![(358391, claimed, header)]);
    let err = verify(&proof("bad-stamp.txt.ots"), &esplora(&server), Network::Mainnet).unwrap_err();
    let VerifyError::Failed { mut failures } = err else { panic!("{err}") };
    failures.remove(0).reason
}

#[test]
fn a_forged_header_under_the_real_hash_is_refused() {
    let real_hash = real_header(358391).block_hash();
    let reason = refusal(real_hash, forged_header());
    assert!(matches!(reason, AttestationError::Header(HeaderError::HashMismatch { .. })), "{reason}");
}

#[test]
fn a_forged_header_under_its_own_hash_has_no_proof_of_work() {
    let forged = forged_header();
    let reason = refusal(forged.block_hash(), forged);
    assert!(matches!(reason, AttestationError::Header(HeaderError::InsufficientWork { .. })), "{reason}");
}

#[test]
fn a_forged_header_mined_at_easy_difficulty_is_refused() {
    let mut forged = forged_header();
    forged.bits = priorart_ots::bitcoin::CompactTarget::from_consensus(0x207fffff);
    priorart_testkit::mine(&mut forged);
    let reason = refusal(forged.block_hash(), forged);
    assert!(matches!(reason, AttestationError::Header(HeaderError::InvalidBits { .. })), "{reason}");
    // The same header would pass every check on regtest: only the network's
    // rules refuse it.
    assert!(check_header(Network::Regtest, 358391, &forged.block_hash(), &forged).is_ok());
}

#[test]
fn a_real_header_of_another_period_has_the_wrong_difficulty() {
    // Block 428648 has real proof of work, but not the difficulty of 358391.
    let other = real_header(428648);
    let reason = refusal(other.block_hash(), other);
    assert!(matches!(reason, AttestationError::Header(HeaderError::WrongDifficulty { .. })), "{reason}");
}

/// The difficulty-1 header mined for height 800,000 (see tests/data/forged).
fn forged_at_difficulty_one() -> Header {
    header_from_hex(&std::fs::read_to_string(data().join("forged/800000-difficulty-one.hex")).unwrap())
        .unwrap()
}

/// A proof of `forged/forged.txt` whose digest is the merkle root of block 800,000.
fn proof_at_800000() -> DetachedTimestamp {
    let digest = priorart_ots::HashOp::Sha256.hash(&std::fs::read(data().join("forged/forged.txt")).unwrap());
    let mut bytes = priorart_ots::MAGIC.to_vec();
    bytes.extend([0x01, 0x08]);
    bytes.extend(&digest);
    let mut tip = priorart_ots::Timestamp::default();
    tip.add_attestation(priorart_ots::Attestation::Bitcoin { height: 800_000 });
    bytes.extend(tip.to_bytes());
    DetachedTimestamp::from_bytes(&bytes).unwrap()
}

#[test]
fn past_the_table_a_header_mined_at_difficulty_one_is_refused() {
    let forged = forged_at_difficulty_one();
    // The header is locally perfect: right hash, real work for its bits.
    check_header(Network::Mainnet, 800_000, &forged.block_hash(), &forged).unwrap();

    // A liar that serves it for every height it is asked (the boundaries too):
    // the first boundary after the table must carry the table's last bits.
    let liar = EsploraServer::start_with(move |_| Some((forged.block_hash(), forged)));
    let err = verify(&proof_at_800000(), &esplora(&liar), Network::Mainnet).unwrap_err();
    let VerifyError::Failed { failures } = err else { panic!("{err}") };
    let AttestationError::Boundary { height: 800_000, boundary, reason } = &failures[0].reason else {
        panic!("{}", failures[0].reason)
    };
    assert_eq!(*boundary, 371 * 2016);
    assert!(matches!(reason, HeaderError::WrongDifficulty { .. }), "{reason}");

    // A liar that serves the block and nothing else: the difficulty cannot be
    // established, so the proof is not valid (it is unverifiable).
    let forged = forged_at_difficulty_one();
    let liar = EsploraServer::from_headers(vec![(800_000, forged.block_hash(), forged)]);
    let err = verify(&proof_at_800000(), &esplora(&liar), Network::Mainnet).unwrap_err();
    let VerifyError::Failed { failures } = err else { panic!("{err}") };
    assert!(matches!(failures[0].reason, AttestationError::Source(_)), "{}", failures[0].reason);
}

#[test]
fn the_last_block_of_a_checkpointed_period_must_have_the_recorded_hash() {
    // 428648 is not a period end, so pretend it is the end of its period:
    // same bits (right difficulty), but not the checkpointed hash.
    let header = real_header(428648);
    let period_end = (428648 / 2016 + 1) * 2016 - 1;
    let err = check_header(Network::Mainnet, period_end, &header.block_hash(), &header).unwrap_err();
    assert!(matches!(err, HeaderError::CheckpointMismatch { .. }), "{err}");
}

#[test]
fn pending_only_proofs_say_so() {
    let err = verify(&proof("incomplete.txt.ots"), &HeaderCache::in_memory(), Network::Mainnet).unwrap_err();
    let VerifyError::Pending { calendars } = err else { panic!("{err}") };
    assert_eq!(calendars, vec!["https://alice.btc.calendar.opentimestamps.org".to_owned()]);
}

#[test]
fn a_header_cache_directory_verifies_offline() {
    // The fixture directory is laid out as a cache: HEIGHT.hex files.
    let cache = HeaderCache::in_dir(data().join("headers"));
    let verified = verify(&proof("hello-world.txt.ots"), &cache, Network::Mainnet).unwrap();
    assert_eq!(verified.earliest.height, 358391);
    // Nothing else is cached: a missing header is an error, not a pass.
    assert!(verify(&proof("empty.ots"), &cache, Network::Mainnet).is_err());
}

#[test]
fn a_cache_file_that_is_not_a_header_is_an_error_and_a_huge_one_is_not_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let header = std::fs::read_to_string(data().join("headers/358391.hex")).unwrap();
    std::fs::write(dir.path().join("358391.hex"), format!("  {}\r\n", header.trim())).unwrap();
    std::fs::write(dir.path().join("1.hex"), "not hex").unwrap();
    std::fs::write(dir.path().join("2.hex"), header.trim().repeat(100_000)).unwrap();
    let cache = HeaderCache::in_dir(dir.path());
    assert!(cache.get(358391).unwrap().is_some(), "whitespace around the digits is fine");
    assert!(cache.get(3).unwrap().is_none(), "no file: not held");
    for height in [1, 2] {
        let err = cache.get(height).unwrap_err();
        assert!(err.to_string().contains("not an 80-byte header in hex"), "{err}");
    }
}

#[test]
fn a_cached_source_stores_only_checked_headers() {
    let dir = tempfile::tempdir().unwrap();
    let forged = forged_header();
    let liar = EsploraServer::from_headers(vec![(358391, forged.block_hash(), forged)]);
    let source = priorart_ots_net::CachedSource::new(
        HeaderCache::in_dir(dir.path()),
        Some(esplora(&liar)),
        Network::Mainnet,
    );
    assert!(verify(&proof("bad-stamp.txt.ots"), &source, Network::Mainnet).is_err());
    assert!(!dir.path().join("358391.hex").exists());

    let server = honest_esplora();
    let source = priorart_ots_net::CachedSource::new(
        HeaderCache::in_dir(dir.path()),
        Some(esplora(&server)),
        Network::Mainnet,
    );
    verify(&proof("hello-world.txt.ots"), &source, Network::Mainnet).unwrap();
    drop(server);
    let offline = HeaderCache::in_dir(dir.path());
    assert_eq!(
        verify(&proof("hello-world.txt.ots"), &offline, Network::Mainnet).unwrap().earliest.height,
        358391
    );
}

#[test]
fn a_cache_directory_s_tip_counts_its_own_headers_at_once_and_another_process_s_soon() {
    let dir = tempfile::tempdir().unwrap();
    let chain = priorart_testkit::RegtestChain::shared();
    let mut chain = chain.lock().unwrap();
    for i in 0..3 {
        chain.mine_block([i + 1; 32]);
    }
    let cache = HeaderCache::in_dir(dir.path());
    assert!(cache.highest().unwrap().is_none());
    cache.put(1, chain.header(1).unwrap()).unwrap();
    assert_eq!(cache.highest().unwrap(), Some(1), "its own header, at once");

    // Another process (another cache on the same directory) adds block 3:
    // seen within the listing's lifetime, without a new cache.
    HeaderCache::in_dir(dir.path()).put(3, chain.header(3).unwrap()).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while cache.highest().unwrap() != Some(3) {
        assert!(std::time::Instant::now() < deadline, "the directory is listed again");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A regtest chain of `on_top + 2` blocks (genesis, the attested block 1,
/// `on_top` more) and block 1 as verified.
fn chain_with_blocks_on_top(on_top: u64) -> (priorart_testkit::SharedChain, priorart_ots::VerifiedBlock) {
    let chain = priorart_testkit::RegtestChain::shared();
    let attested = {
        let mut chain = chain.lock().unwrap();
        chain.mine_block([1; 32]);
        for i in 0..on_top {
            chain.mine_block([i as u8 + 2; 32]);
        }
        let header = *chain.header(1).unwrap();
        priorart_ots::VerifiedBlock { height: 1, block_hash: header.block_hash(), time: header.time }
    };
    (chain, attested)
}

/// Regtest bits 0x207fffff: target 0x7fffff * 256^29, so 2^256 // (target + 1) = 2 hashes a block.
const REGTEST_BLOCK_WORK: f64 = 2.0;

#[test]
fn the_cost_to_forge_counts_every_checked_block_up_to_the_esplora_tip() {
    let (chain, attested) = chain_with_blocks_on_top(5);
    let server = EsploraServer::from_chain(chain);
    let cost = priorart_ots::cost_to_forge(&esplora(&server), Network::Regtest, &attested, 144).unwrap();
    assert_eq!(
        (cost.blocks, cost.claimed_blocks, cost.complete, cost.tip_as_far_as_held),
        (5, 5, true, false)
    );
    assert!((cost.work_log2 - (6.0 * REGTEST_BLOCK_WORK).log2()).abs() < 1e-9, "{cost:?}");
    assert!((cost.days_at_attested_hashrate - 6.0 * 600.0 / 86_400.0).abs() < 1e-9, "{cost:?}");
}

#[test]
fn past_the_bound_the_cost_to_forge_is_a_lower_bound() {
    let (chain, attested) = chain_with_blocks_on_top(5);
    let server = EsploraServer::from_chain(chain);
    let cost = priorart_ots::cost_to_forge(&esplora(&server), Network::Regtest, &attested, 2).unwrap();
    assert_eq!((cost.blocks, cost.claimed_blocks, cost.complete), (2, 5, false));
    assert!((cost.work_log2 - (3.0 * REGTEST_BLOCK_WORK).log2()).abs() < 1e-9, "{cost:?}");
}

#[test]
fn a_tip_the_source_cannot_back_with_headers_is_not_counted() {
    let (chain, attested) = chain_with_blocks_on_top(2);
    let headers: Vec<_> = (0..=3).map(|h| *chain.lock().unwrap().header(h).unwrap()).collect();
    // The source claims a tip at 1,000,000 but has headers only to 3.
    let server = EsploraServer::start_with_tip(
        move |height| headers.get(height as usize).map(|header| (header.block_hash(), *header)),
        || Some(1_000_000),
    );
    let cost = priorart_ots::cost_to_forge(&esplora(&server), Network::Regtest, &attested, 144).unwrap();
    assert_eq!((cost.blocks, cost.claimed_blocks, cost.complete), (2, 999_999, false));
}

#[test]
fn blocks_of_another_chain_are_not_on_top_of_the_attested_one() {
    let (chain, attested) = chain_with_blocks_on_top(1);
    let mut other = priorart_testkit::RegtestChain::new();
    other.mine_block([0xee; 32]);
    other.mine_block([0xef; 32]);
    let ours = *chain.lock().unwrap().header(1).unwrap();
    // A real header at the right difficulty, on top of another block 1.
    let theirs = *other.header(2).unwrap();
    let server =
        EsploraServer::from_headers(vec![(1, ours.block_hash(), ours), (2, theirs.block_hash(), theirs)]);
    let err = priorart_ots::cost_to_forge(&esplora(&server), Network::Regtest, &attested, 144).unwrap_err();
    assert!(matches!(err, priorart_ots::ForgeError::NotLinked { height: 2 }), "{err}");
    assert_eq!(err.reason(), "not_linked");
}

#[test]
fn a_header_cache_alone_knows_the_tip_only_as_far_as_it_holds() {
    let (chain, attested) = chain_with_blocks_on_top(3);
    let dir = tempfile::tempdir().unwrap();
    for height in 1..=3 {
        let header = chain.lock().unwrap().header(height).copied().unwrap();
        std::fs::write(dir.path().join(format!("{height}.hex")), priorart_ots::header_to_hex(&header))
            .unwrap();
    }
    let cache = priorart_ots_net::CachedSource::<Esplora>::new(
        HeaderCache::in_dir(dir.path()),
        None,
        Network::Regtest,
    );
    let cost = priorart_ots::cost_to_forge(&cache, Network::Regtest, &attested, 144).unwrap();
    assert_eq!(
        (cost.blocks, cost.claimed_blocks, cost.complete, cost.tip_as_far_as_held),
        (2, 2, true, true)
    );
}
