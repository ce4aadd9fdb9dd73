//! Crash points for the crash tests: `PRIORART_FAILPOINT=NAME` makes the
//! process abort itself (no destructor, no flush: as `kill -9` would stop
//! it) when it reaches the point `NAME`. The names are the side-effect
//! boundaries of [`crate::steps`] and of the service: `before_stamp`,
//! `after_stamp`, `before_upgrade`, `before_store_1041`,
//! `after_store_1041`, `before_publish`, `after_publish`,
//! `after_accept` (a job committed, its HTTP answer not yet sent).

/// The environment variable naming the point to abort at.
pub const FAILPOINT_ENV: &str = "PRIORART_FAILPOINT";

/// Aborts the process if `PRIORART_FAILPOINT` names this point.
pub(crate) fn failpoint(name: &str) {
    if std::env::var_os(FAILPOINT_ENV).is_some_and(|point| point == name) {
        std::process::abort();
    }
}
