//! The integration tests of `priorart-dedup`, one binary: a new file in
//! `tests/` must be declared here (`every_test_file_is_a_module` checks).

mod dedup;
mod passages;

#[test]
fn every_test_file_is_a_module() {
    priorart_testkit::assert_every_test_file_is_a_module(
        env!("CARGO_MANIFEST_DIR"),
        include_str!("tests.rs"),
    );
}
