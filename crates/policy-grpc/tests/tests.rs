//! The integration tests of `priorart-policy-grpc`, one binary: each file
//! below is a module (Cargo.toml sets `autotests = false`).

mod conversion;
mod served;
