//! The integration tests of `priorart-index`, one binary (as ripgrep's).
//! Cargo.toml sets `autotests = false`, so a new file in `tests/` must be
//! declared here; `every_test_file_is_a_module` fails until it is.

mod entry_spool;
mod incremental;
mod index;
mod passages;

#[test]
fn every_test_file_is_a_module() {
    priorart_testkit::assert_every_test_file_is_a_module(
        env!("CARGO_MANIFEST_DIR"),
        include_str!("tests.rs"),
    );
}
