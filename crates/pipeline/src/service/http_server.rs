//! Serving the service's router over HTTP/1 so that no client can hold it:
//! every connection is admitted per source address and in all
//! (`priorart-admission`; one over a cap is answered 503 with
//! `Retry-After` at once), a request's head must arrive within the
//! deadline (hyper's header read timeout, which also closes a keep-alive
//! connection idle that long) and its body too (tower-http's request body
//! timeout). axum's own `serve` sets no timer, so a client that sends half
//! a head keeps its descriptor for as long as it likes: hence this loop.

use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use priorart_admission::{Caps, Connections, Full};
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tower_http::timeout::RequestBodyTimeoutLayer;

/// Longest a graceful shutdown waits for connections still answering.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Serves `router` on `listener` until `shutdown` completes, then lets
/// the requests in progress finish (at most [`SHUTDOWN_GRACE`]).
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    caps: Caps,
    deadline: Duration,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let router = router.layer(RequestBodyTimeoutLayer::new(deadline));
    let connections = Connections::new(caps);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // The peer left, or no descriptor is free: wait, don't spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let ticket = match connections.admit(peer.ip()) {
            Ok(ticket) => ticket,
            Err(full) => {
                tokio::spawn(refuse(stream, full));
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        // The peer address the handlers read (rate limits), as axum's
        // `into_make_service_with_connect_info` gives it.
        let peer: ConnectInfo<SocketAddr> = ConnectInfo(peer);
        let service = TowerToHyperService::new(router.clone().layer(axum::Extension(peer)));
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new()).header_read_timeout(deadline);
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            let _ = connection.await;
            drop(ticket);
        });
    }
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await;
}

/// A connection over a cap: told so at once, under a short deadline.
async fn refuse(mut stream: TcpStream, full: Full) {
    let answer = async {
        stream.write_all(full.http_response().as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), answer).await;
}
