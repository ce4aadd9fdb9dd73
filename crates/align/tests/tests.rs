//! The crate's one integration-test binary: a module per file.

mod align;
mod fuzz_regression;
mod report;
