//! A wall-clock budget shared by every step of one extraction. Without the
//! `wall-clock` feature (WebAssembly: std has no clock on
//! wasm32-unknown-unknown, `Instant::now` panics) it never runs out.

use crate::ExtractError;
use std::time::Duration;
#[cfg(feature = "wall-clock")]
use std::time::Instant;

/// Started once per input; loops call [`Budget::check`] every so often.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    #[cfg(feature = "wall-clock")]
    deadline: Option<Instant>,
    limit: Duration,
}

#[cfg(feature = "wall-clock")]
impl Budget {
    pub(crate) fn start(limit: Duration) -> Self {
        Budget { deadline: Instant::now().checked_add(limit), limit }
    }

    /// Time left, or `None` when the budget is too large to represent.
    #[cfg_attr(not(feature = "pdf"), allow(dead_code))]
    pub(crate) fn remaining(&self) -> Option<Duration> {
        self.deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()))
    }

    pub(crate) fn check(&self) -> Result<(), ExtractError> {
        match self.deadline {
            Some(deadline) if Instant::now() >= deadline => Err(ExtractError::Timeout { limit: self.limit }),
            _ => Ok(()),
        }
    }
}

#[cfg(not(feature = "wall-clock"))]
impl Budget {
    pub(crate) fn start(limit: Duration) -> Self {
        Budget { limit }
    }

    /// No clock: no limit.
    #[cfg_attr(not(feature = "pdf"), allow(dead_code))]
    pub(crate) fn remaining(&self) -> Option<Duration> {
        None
    }

    pub(crate) fn check(&self) -> Result<(), ExtractError> {
        Ok(())
    }
}

impl Budget {
    #[cfg_attr(not(feature = "pdf"), allow(dead_code))]
    pub(crate) fn limit(&self) -> Duration {
        self.limit
    }
}
