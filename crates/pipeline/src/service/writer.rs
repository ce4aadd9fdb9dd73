//! The group-commit writer: one thread with its own store connection that
//! takes every submission waiting at the moment it wakes, commits them in
//! one transaction, and only then answers each (so a 202 is durable, and a
//! burst costs one fsync, not one per request).

use crate::failpoint::failpoint;
use crate::job::NewJob;
use crate::store::{AddOutcome, Store};
use tokio::sync::{mpsc, oneshot};

/// Submissions committed together at most.
const MAX_GROUP: usize = 2_000;
/// Submissions waiting for the writer at most (then senders wait).
pub(super) const WRITER_QUEUE: usize = 10_000;

/// A job to add, and where its outcome goes (the store's error as words).
pub(super) struct Submission {
    pub(super) job: NewJob,
    pub(super) reply: oneshot::Sender<Result<AddOutcome, String>>,
}

/// The writer: each wake-up commits every submission waiting, then answers them.
pub(super) fn write_submissions(
    mut store: Store,
    mut submissions: mpsc::Receiver<Submission>,
    max_open: u64,
) {
    while let Some(first) = submissions.blocking_recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match submissions.try_recv() {
                Ok(next) => group.push(next),
                Err(_) => break,
            }
        }
        let jobs: Vec<NewJob> = group.iter().map(|submission| submission.job.clone()).collect();
        match store.add_jobs(&jobs, Some(max_open)) {
            Ok(added) => {
                failpoint("after_accept");
                for (submission, added) in group.into_iter().zip(added) {
                    let _ = submission.reply.send(Ok(added));
                }
            }
            Err(err) => {
                for submission in group {
                    let _ = submission.reply.send(Err(err.to_string()));
                }
            }
        }
    }
}
