//! The integration tests of `priorart-cli`, one binary (as ripgrep's): each
//! module below was a test binary of its own, and each linked the whole
//! dependency tree. Cargo.toml sets `autotests = false`, so a new file in
//! `tests/` must be declared here; `every_test_file_is_a_module` fails
//! until it is.

// Helpers shared by the modules.
mod nip_common;
mod policy_common;
mod relay_common;
mod serve_common;

mod compare;
mod compare_passages;
mod dedup_against;
mod dedup_passages;
mod dedup_scale;
mod extract;
mod fingerprint;
mod fingerprint_simhash_doc;
mod fuzzy_check;
mod identifier_layers;
mod index_dedup;
mod index_passages;
mod nip_bunker;
mod nip_e2e;
mod nip_sign;
mod ots;
mod ots_peer;
mod policy_grpc;
mod policy_strfry;
mod protect;
mod relay_e2e;
mod relay_peers;
mod relay_policy;
mod serve;
mod serve_hostile;
mod serve_load;

#[test]
fn every_test_file_is_a_module() {
    priorart_testkit::assert_every_test_file_is_a_module(
        env!("CARGO_MANIFEST_DIR"),
        include_str!("tests.rs"),
    );
}
