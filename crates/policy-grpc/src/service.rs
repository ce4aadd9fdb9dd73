//! The `nauthz.Authorization` service: requests arrive on tonic's runtime,
//! decisions are made on one thread of their own, one event at a time (the
//! policy's flood window is a single sequence, and a decision may block on
//! a header request), and answered as they are made.

use crate::event_of;
use crate::proto::authorization_server::{Authorization, AuthorizationServer};
use crate::proto::{Decision as Verdict, EventReply, EventRequest};
use priorart_nip::nostr::prelude::Event;
use priorart_policy::{Action, Decision};
use priorart_reason::cut;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use tokio::sync::{mpsc, oneshot};
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};

/// Largest request decoded (tonic's default, and the strfry front end's
/// longest line); larger ones get a gRPC error, which nostr-rs-relay
/// treats as a permit, so keep its `max_event_bytes` below this (its
/// default is 128 KiB).
pub const MAX_REQUEST_BYTES: usize = 4 << 20;

/// Longest message in a reply (the relay passes it to the client).
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// Requests waiting for the decision thread, from every connection: past
/// it a request is denied at once (`rate-limited: …`), so a client that
/// floods the service holds no more memory than this many events. A deny,
/// not a gRPC error: nostr-rs-relay lets an event through on an error.
pub const MAX_IN_FLIGHT: usize = 1024;

/// HTTP/2 streams (requests) one connection may have open at once.
const STREAMS_PER_CONNECTION: u32 = 256;

/// The reply to a request past [`MAX_IN_FLIGHT`].
const BUSY: &str = "rate-limited: too many events are waiting for the write policy";

/// One event to decide, and where its decision goes.
struct Job {
    event: Event,
    answer: oneshot::Sender<Decision>,
}

/// The service: hands each decodable event to the decision thread.
#[derive(Debug, Clone)]
pub struct Admission {
    jobs: mpsc::Sender<Job>,
}

impl Admission {
    /// The service deciding with `decide`, run on a thread of its own that
    /// ends when the service (every clone of it) is dropped.
    pub fn new(decide: impl FnMut(&Event) -> Decision + Send + 'static) -> Admission {
        Admission::with_queue(decide, MAX_IN_FLIGHT)
    }

    /// [`Admission::new`], with at most `in_flight` requests waiting.
    pub fn with_queue(
        mut decide: impl FnMut(&Event) -> Decision + Send + 'static,
        in_flight: usize,
    ) -> Admission {
        let (jobs, mut queue) = mpsc::channel::<Job>(in_flight.max(1));
        std::thread::spawn(move || {
            while let Some(job) = queue.blocking_recv() {
                // A policy bug must not end the service: nostr-rs-relay
                // would then let every event through.
                let decision = catch_unwind(AssertUnwindSafe(|| decide(&job.event)))
                    .unwrap_or_else(|_| Decision::reject("error: the policy failed on this event"));
                // The relay may have given up on this request.
                let _ = job.answer.send(decision);
            }
        });
        Admission { jobs }
    }
}

#[tonic::async_trait]
impl Authorization for Admission {
    async fn event_admit(&self, request: Request<EventRequest>) -> Result<Response<EventReply>, Status> {
        let event = match event_of(request.into_inner()) {
            Ok(event) => event,
            Err(err) => return Ok(Response::new(reply(&Decision::reject(format!("invalid: {err}"))))),
        };
        let (answer, decision) = oneshot::channel();
        let stopped = || Status::unavailable("the policy has stopped");
        match self.jobs.try_send(Job { event, answer }) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                return Ok(Response::new(reply(&Decision::reject(BUSY))));
            }
            Err(mpsc::error::TrySendError::Closed(_)) => return Err(stopped()),
        }
        let decision = decision.await.map_err(|_| stopped())?;
        Ok(Response::new(reply(&decision)))
    }
}

/// nostr-rs-relay's reply for a decision: accept → `DECISION_PERMIT`;
/// reject and shadowReject → `DECISION_DENY` (it has no shadow reject; see
/// the crate's documentation), with the policy's message less its
/// `blocked: ` prefix, which the relay adds (`blocked: x_mismatch`
/// reaches the client as the strfry plugin and `priorart relay` say it).
pub fn reply(decision: &Decision) -> EventReply {
    match decision.action {
        Action::Accept => EventReply { decision: Verdict::Permit.into(), message: None },
        Action::Reject | Action::ShadowReject => {
            let message = decision.msg.strip_prefix("blocked: ").unwrap_or(&decision.msg);
            EventReply {
                decision: Verdict::Deny.into(),
                message: Some(cut(message, MAX_MESSAGE_BYTES).to_owned()),
            }
        }
    }
}

/// Serves `admission` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    admission: Admission,
    shutdown: impl Future<Output = ()>,
) -> Result<(), tonic::transport::Error> {
    let service = AuthorizationServer::new(admission).max_decoding_message_size(MAX_REQUEST_BYTES);
    Server::builder()
        .max_concurrent_streams(STREAMS_PER_CONNECTION)
        .add_service(service)
        .serve_with_incoming_shutdown(TcpIncoming::from(listener).with_nodelay(Some(true)), shutdown)
        .await
}
