//! The integration tests of `priorart-fingerprint`, one binary (as ripgrep's): each
//! module below was a test binary of its own, and each linked the whole
//! dependency tree. Cargo.toml sets `autotests = false`, so a new file in
//! `tests/` must be declared here; `every_test_file_is_a_module` fails
//! until it is.

mod explain_json;
mod fuzz_regression;
mod json_string;
mod oracle;
mod simhash_doc;
mod simhash_doc_peers;
mod vectors;
mod word_shingles_peer;

#[test]
fn every_test_file_is_a_module() {
    priorart_testkit::assert_every_test_file_is_a_module(
        env!("CARGO_MANIFEST_DIR"),
        include_str!("tests.rs"),
    );
}
