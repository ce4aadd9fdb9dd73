//! A wall-clock budget shared by every step of one extraction.

use crate::ExtractError;
use std::time::{Duration, Instant};

/// Started once per input; loops call [`Budget::check`] every so often.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    deadline: Option<Instant>,
    limit: Duration,
}

impl Budget {
    pub(crate) fn start(limit: Duration) -> Self {
        Budget { deadline: Instant::now().checked_add(limit), limit }
    }

    /// Time left, or `None` when the budget is too large to represent.
    pub(crate) fn remaining(&self) -> Option<Duration> {
        self.deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()))
    }

    pub(crate) fn limit(&self) -> Duration {
        self.limit
    }

    pub(crate) fn check(&self) -> Result<(), ExtractError> {
        match self.deadline {
            Some(deadline) if Instant::now() >= deadline => Err(ExtractError::Timeout { limit: self.limit }),
            _ => Ok(()),
        }
    }
}
