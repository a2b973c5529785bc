//! The Menagerie gRPC analysis service (`menagerie.v1.AnalysisService`): move
//! validation, legal moves, perft (streamed divide and progress), batch
//! perft verification, and best-move analysis, for every variant.
//!
//! - Positions are stateless: `variant` + `fen` (empty: start) + `moves`.
//! - Errors are mapped to gRPC codes once, in [`error`], with
//!   `google.rpc` details naming the offending field.
//! - CPU work runs on job threads, never on the async runtime; at most
//!   `max_jobs` run at once (more: `RESOURCE_EXHAUSTED`); each has a stop
//!   flag set when the client cancels, its deadline passes, a stream send
//!   fails or the server shuts down. Panics in jobs become `INTERNAL`.
//! - Health (`grpc.health.v1`) and reflection (v1 and v1alpha) are served
//!   beside the API; SIGTERM/SIGINT shut down gracefully (health watchers
//!   are told NOT_SERVING and their streams end).
//! - [`security`]: TLS, mutual TLS and bearer tokens (`UNAUTHENTICATED`
//!   without an accepted one); [`metrics`]: one access-log event per call
//!   and Prometheus metrics on their own listener.
//! - With the cargo feature `otel`, request, job and search spans are
//!   exported over OTLP/gRPC (`telemetry`), inside the caller's trace when
//!   the request carries a W3C `traceparent`.
//!
//! An empty `variant` means `chess`. Variants defined as data (the built-in
//! `variants.ini` and `--variants FILE`) are served by every call, with
//! moves in coordinate form or SAN; only a perft hash table (`hash_mb` above
//! 0) is refused for them (`INVALID_ARGUMENT`).

pub mod config;
pub mod connections;
pub mod error;
mod health;
pub mod jobs;
pub mod metrics;
pub mod security;
mod service;
#[cfg(feature = "otel")]
pub mod telemetry;

pub use config::Config;
pub use service::AnalysisApi;

use menagerie_api::pb::analysis_service_server::AnalysisServiceServer;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_stream::Stream;

/// HTTP/2 receive window of one stream (bytes a client may send unread).
const STREAM_WINDOW: u32 = 64 * 1024;
/// HTTP/2 receive window of one connection.
const CONNECTION_WINDOW: u32 = 16 * 1024 * 1024;

/// Errors starting or running the server.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The transport failed.
    #[error(transparent)]
    Transport(#[from] tonic::transport::Error),
    /// The reflection service could not be built.
    #[error("reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    /// The health listener could not be started.
    #[error("health listener: {0}")]
    Health(#[from] std::io::Error),
}

/// What [`serve_with`] adds to the API listener.
#[derive(Debug)]
pub struct ServeOptions {
    /// TLS and authentication.
    pub security: security::Security,
    /// Where calls are counted (`None`: access log only).
    pub metrics: Option<metrics::Metrics>,
    /// A plaintext listener for `grpc.health.v1` alone (probes that cannot
    /// speak TLS), served until the shutdown.
    pub health_listener: Option<TcpListener>,
    /// Connections open at once on the API listener (more are closed as
    /// soon as accepted); 0 means 1.
    pub max_connections: usize,
    /// Calls one connection may have open at once (HTTP/2
    /// SETTINGS_MAX_CONCURRENT_STREAMS).
    pub max_streams_per_connection: u32,
    /// Interval of HTTP/2 keepalive PINGs (`None`: off).
    pub keepalive: Option<Duration>,
    /// How long a connection may take to start, and stay open with no call.
    pub timeouts: connections::Timeouts,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            security: security::Security::default(),
            metrics: None,
            health_listener: None,
            max_connections: connections::default_max_connections(connections::open_file_limit()),
            max_streams_per_connection: 256,
            keepalive: Some(Duration::from_secs(60)),
            timeouts: connections::Timeouts::default(),
        }
    }
}

/// Serves `service` on `listener` until `shutdown` resolves, then shuts
/// down gracefully: health turns to NOT_SERVING (the service and the
/// server, `""`), new jobs are refused, running streams end with
/// `UNAVAILABLE`, and in-flight unary calls get `grace` to finish; after
/// that their jobs are stopped, they answer `UNAVAILABLE`, and this returns
/// (at most 2 s later).
///
/// Plaintext, no authentication, no metrics: see [`serve_with`].
pub async fn serve(
    service: AnalysisApi,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> Result<(), ServeError> {
    serve_with(service, listener, ServeOptions::default(), shutdown, grace).await
}

/// [`serve`] with TLS, authentication, metrics and a health listener as
/// `options` say. Every call is written to the access log.
pub async fn serve_with(
    service: AnalysisApi,
    listener: TcpListener,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> Result<(), ServeError> {
    let health = tonic_health::server::HealthReporter::new();
    let (draining_tx, draining_rx) = tokio::sync::watch::channel(false);
    let health_server = |draining: tokio::sync::watch::Receiver<bool>| {
        tonic_health::pb::health_server::HealthServer::new(health::DrainingHealth {
            inner: tonic_health::server::HealthService::from_health_reporter(health.clone()),
            draining,
        })
    };
    let health_service = health_server(draining_rx.clone());
    health.set_serving::<AnalysisServiceServer<AnalysisApi>>().await;
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(menagerie_api::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(menagerie_api::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;
    let jobs = service.jobs().clone();
    let abort_jobs = jobs.clone();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let (grace_tx, grace_rx) = tokio::sync::oneshot::channel::<()>();
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|&s| s).await;
    };
    if let Some(listener) = options.health_listener {
        // Probes are answered by a thread and runtime of their own, so that
        // however busy the API's runtime is (hundreds of streams), a probe
        // never waits behind it.
        let listener = listener.into_std()?;
        let probe_activity = connections::Activity::default();
        let observe = metrics::ObserveLayer::new(options.metrics.clone()).with_activity(probe_activity.clone());
        let timeouts = options.timeouts;
        let health = health_server(draining_rx);
        let stop = stopped(stop_rx.clone());
        let span = tracing::Span::current();
        std::thread::Builder::new().name("menagerie-health".into()).spawn(move || {
            let _entered = span.enter();
            let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => return tracing::error!(error = %e, "health listener failed"),
            };
            let served = rt.block_on(async move {
                let listener = TcpListener::from_std(listener)?;
                let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
                // Capped and timed out like the API listener's: probes left
                // open cannot take the server's file descriptors.
                let incoming =
                    connections::Limited::new(incoming, connections::PROBE_CONNECTIONS, timeouts, probe_activity);
                tonic::transport::Server::builder()
                    .layer(observe)
                    .add_service(health)
                    .serve_with_incoming_shutdown(incoming, stop)
                    .await
                    .map_err(std::io::Error::other)
            });
            if let Err(e) = served {
                tracing::error!(error = %e, "health listener failed");
            }
        })?;
    }
    // Small streamed replies must not wait for delayed ACKs (Nagle).
    let incoming = tonic::transport::server::TcpIncoming::from(listener)
        .with_nodelay(Some(true))
        .with_keepalive(Some(Duration::from_secs(60)));
    let activity = connections::Activity::default();
    let incoming =
        connections::Limited::new(incoming, options.max_connections.max(1), options.timeouts, activity.clone());
    let incoming = Closable(Arc::new(Mutex::new(Some(incoming))));
    let listening = incoming.0.clone();
    let drain = async move {
        shutdown.await;
        // New connections are refused at once (UNAVAILABLE) instead of
        // waiting in the listen backlog for their deadline.
        drop(listening.lock().unwrap_or_else(|e| e.into_inner()).take());
        tracing::info!(running = jobs.running(), "shutting down");
        health.set_not_serving::<AnalysisServiceServer<AnalysisApi>>().await;
        health.set_service_status("", tonic_health::ServingStatus::NotServing).await;
        // Health watchers have been told NOT_SERVING: end their streams.
        let _ = draining_tx.send(true);
        jobs.begin_shutdown();
        let _ = stop_tx.send(true);
        let _ = grace_tx.send(());
    };
    tokio::spawn(drain);
    let mut builder = tonic::transport::Server::builder()
        .max_concurrent_streams(options.max_streams_per_connection.max(1))
        // h2 ends a connection (GOAWAY ENHANCE_YOUR_CALM, "too_many_data_frames")
        // when the small DATA frames it holds unread cost more than half the
        // connection window (about 256 bytes each): a client pipelining small
        // PerftBatch jobs one frame each, within a 1 MiB stream window, hit
        // that at once. A 64 KiB stream window bounds what one stream may
        // hold unread; a 16 MiB connection window makes the budget 8 MiB.
        .initial_stream_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .http2_keepalive_interval(options.keepalive)
        .http2_keepalive_timeout(Some(Duration::from_secs(20)));
    if let Some(tls) = options.security.tls {
        builder = builder.tls_config(tls)?;
    }
    let server = builder
        .trace_fn(|req| {
            let span = tracing::info_span!("request", method = %req.uri().path());
            #[cfg(feature = "otel")]
            telemetry::join_caller_trace(&span, req.headers());
            span
        })
        // Outermost first: calls refused by authentication are logged and counted too.
        .layer(metrics::ObserveLayer::new(options.metrics).with_activity(activity))
        .layer(options.security.auth)
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(AnalysisServiceServer::new(service))
        .serve_with_incoming_shutdown(incoming, stopped(stop_rx));
    // After the shutdown signal, in-flight calls get `grace` to finish.
    let grace_timer = async move {
        if grace_rx.await.is_ok() {
            tokio::time::sleep(grace).await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(server);
    tokio::select! {
        r = &mut server => return r.map_err(ServeError::from),
        _ = grace_timer => {}
    }
    // Stop the remaining jobs: their calls answer UNAVAILABLE ("server is
    // shutting down"), and the server ends once those answers are out
    // (returning now would cut them with a bare GOAWAY). A call whose work
    // does not stop in time is cut all the same.
    tracing::warn!(running = abort_jobs.running(), "grace period over; stopping remaining jobs");
    abort_jobs.abort();
    match tokio::time::timeout(ABORT_WAIT, server).await {
        Ok(r) => r.map_err(ServeError::from),
        Err(_) => {
            tracing::warn!(
                running = abort_jobs.running(),
                "calls still open {ABORT_WAIT:?} after the grace period; closing"
            );
            Ok(())
        }
    }
}

/// After the grace period, how long the stopped calls get to send their
/// UNAVAILABLE answer before the server closes anyway.
const ABORT_WAIT: Duration = Duration::from_secs(2);

/// A stream of connections whose source can be closed from outside (by
/// taking it out), also while the server is not polling it.
struct Closable<S>(Arc<Mutex<Option<S>>>);

impl<S: Stream + Unpin> Stream for Closable<S> {
    type Item = S::Item;
    fn poll_next(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<S::Item>> {
        match self.0.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            Some(s) => std::pin::Pin::new(s).poll_next(cx),
            None => std::task::Poll::Ready(None),
        }
    }
}
