//! Crash points for the crash tests: `PRIORART_FAILPOINT=NAME` makes the
//! process abort itself (no destructor, no flush: as `kill -9` would stop
//! it) when it reaches the point `NAME`. The names are the side-effect
//! boundaries of [`crate::steps`] and of the service: `before_stamp`,
//! `after_stamp`, `before_upgrade`, `before_store_1041`,
//! `after_store_1041`, `before_publish`, `after_publish`,
//! `after_accept` (a job committed, its HTTP answer not yet sent).
//!
//! Only with the `failpoints` feature, which only tests enable: the cli's
//! dev-dependency on this crate turns it on in `cargo test` (for the
//! `priorart` binary its tests run too), never in `cargo build` or
//! `cargo install`. Without it every point is an empty inline function,
//! and no environment variable can make a released binary abort.

/// The environment variable naming the point to abort at.
#[cfg(feature = "failpoints")]
pub const FAILPOINT_ENV: &str = "PRIORART_FAILPOINT";

/// Aborts the process if `PRIORART_FAILPOINT` names this point.
#[cfg(feature = "failpoints")]
pub(crate) fn failpoint(name: &str) {
    if std::env::var_os(FAILPOINT_ENV).is_some_and(|point| point == name) {
        std::process::abort();
    }
}

/// Nothing: crash points are compiled in only for tests.
#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn failpoint(_name: &str) {}
