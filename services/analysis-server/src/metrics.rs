//! Prometheus metrics on a separate listener, and the per-request access log.
//!
//! [`ObserveLayer`] is the one place that sees each call begin and end (for
//! streams: when the response's trailers go out, or the client leaves). It
//! writes one access-log event per call (`tracing` target `access`, level
//! info: RPC, peer, the token's client name, gRPC status, latency, trace id)
//! and, when metrics are on, counts the call by RPC and status and records
//! its latency. It also answers a call whose `grpc-timeout` passes before
//! its response with `DEADLINE_EXCEEDED` (tonic's own timeout would say
//! `CANCELLED`).
//!
//! [`serve_metrics`] serves `GET /metrics` over HTTP/1.1, off by default
//! (`--metrics-listen`), in the format the scraper's `Accept` header asks
//! for: the Prometheus text format 0.0.4 (`text/plain; version=0.0.4`) by
//! default, OpenMetrics 1.0.0 (`application/openmetrics-text`) when the
//! scraper prefers it (Prometheus does; `q` values are respected):
//!
//! | metric | type | what |
//! |---|---|---|
//! | `menagerie_grpc_requests_total{rpc,code}` | counter | finished calls by RPC and gRPC status |
//! | `menagerie_grpc_request_duration_seconds{rpc}` | histogram | call latency (streams: until their end) |
//! | `menagerie_jobs_running` | gauge | CPU jobs running now |
//! | `menagerie_jobs_started_total`, `menagerie_jobs_finished_total` | counter | jobs admitted, jobs ended |
//! | `menagerie_jobs_stopped_early_total` | counter | jobs stopped by a cancel, deadline or shutdown |
//! | `menagerie_jobs_refused_total{reason="busy"\|"client"}` | counter | jobs refused: server full, client over its share |
//! | `menagerie_jobs_panicked_total` | counter | jobs that panicked (`INTERNAL`) |
//! | `menagerie_job_queue_wait_seconds` | histogram | time admitted jobs waited for a slot |
//! | `menagerie_perft_nodes_total`, `menagerie_search_nodes_total` | counter | nodes counted by perft, searched by analyses (`rate()` gives nodes/s) |
//! | `menagerie_build_info{version,commit}` | info | the build (`commit`: `MENAGERIE_GIT_COMMIT` at build time, else the checkout's `git rev-parse --short HEAD`, else `unknown`) |
//!
//! RPC labels are the full method (`menagerie.v1.AnalysisService/Perft`); calls to
//! methods the server does not have are counted as `rpc="unknown"`, so that
//! clients cannot grow the label set.

use crate::jobs::{JobStats, Jobs};
use bytes::Bytes;
use http::{Request, Response};
use http_body::Frame;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;
use prost::Message;
use std::collections::HashSet;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// Metrics settings.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct MetricsConfig {
    /// Serve Prometheus metrics (`GET /metrics`, plain HTTP) on this
    /// address, e.g. `0.0.0.0:9090`; off by default.
    #[arg(long, env = "MENAGERIE_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    rpc: String,
    code: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RpcLabels {
    rpc: String,
}

type LatencyFamily = Family<RpcLabels, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    // 0.5 ms .. ~4.7 min.
    Histogram::new(exponential_buckets(0.0005, 4.0, 11))
}

/// The server's metrics: a registry with the call counters and latencies,
/// and the job statistics read at each scrape. Cheap to clone.
#[derive(Clone)]
pub struct Metrics {
    registry: Arc<Registry>,
    requests: Family<CallLabels, Counter>,
    latency: LatencyFamily,
    known: Arc<HashSet<String>>,
}

impl fmt::Debug for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// Metrics for a server whose jobs are admitted by `jobs`.
    pub fn new(jobs: &Jobs) -> Metrics {
        let mut registry = Registry::default();
        let requests = Family::<CallLabels, Counter>::default();
        registry.register("menagerie_grpc_requests", "Finished gRPC calls by RPC and status", requests.clone());
        let latency = LatencyFamily::new_with_constructor(latency_histogram as fn() -> Histogram);
        registry.register(
            "menagerie_grpc_request_duration_seconds",
            "gRPC call latency by RPC (streams: until their end)",
            latency.clone(),
        );
        registry.register(
            "menagerie_job_queue_wait_seconds",
            "Time admitted jobs waited for a slot",
            jobs.stats.queue_wait.clone(),
        );
        let commit = BUILD_COMMIT;
        registry.register(
            "menagerie_build",
            "The running build",
            Info::new(vec![("version", env!("CARGO_PKG_VERSION")), ("commit", commit)]),
        );
        registry.register_collector(Box::new(JobCollector { jobs: jobs.clone() }));
        Metrics { registry: Arc::new(registry), requests, latency, known: Arc::new(known_methods()) }
    }

    /// The metrics in OpenMetrics text format 1.0.0 (ends with `# EOF`).
    pub fn encode(&self) -> String {
        self.encode_as(Format::OpenMetrics)
    }

    /// The metrics in `format`.
    pub fn encode_as(&self, format: Format) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = match format {
            Format::OpenMetrics => prometheus_client::encoding::text::encode(&mut out, &self.registry),
            Format::Prometheus => prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry),
        };
        out
    }

    /// The label for a call to `path`: the method, or `unknown`.
    fn rpc_label(&self, path: &str) -> String {
        if self.known.contains(path) { path.trim_start_matches('/').to_string() } else { "unknown".to_string() }
    }

    fn record(&self, path: &str, code: i32, elapsed: Duration) {
        let rpc = self.rpc_label(path);
        self.requests.get_or_create(&CallLabels { rpc: rpc.clone(), code: code_name(code) }).inc();
        self.latency.get_or_create(&RpcLabels { rpc }).observe(elapsed.as_secs_f64());
    }
}

/// The commit this server was built from (see `build.rs`), or `unknown`.
pub const BUILD_COMMIT: &str = env!("MENAGERIE_BUILD_COMMIT");

/// A text format of the metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The Prometheus text format 0.0.4: what any scraper reads.
    Prometheus,
    /// OpenMetrics 1.0.0.
    OpenMetrics,
}

impl Format {
    /// The `Content-Type` of an answer in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Prometheus => prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        }
    }

    /// The format a scraper's `Accept` header asks for: OpenMetrics when it
    /// names `application/openmetrics-text` with a higher `q` than the
    /// classic text format (`text/plain`, else `text/*`, else `*/*`), or
    /// with the same `q` as a wildcard; the classic format otherwise,
    /// including with no header.
    pub fn negotiate(accept: Option<&str>) -> Format {
        // (q, specificity) of the most specific ranges naming each format.
        let mut open: Option<(f32, u8)> = None;
        let mut plain: Option<(f32, u8)> = None;
        for range in accept.unwrap_or("").split(',') {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or("").to_ascii_lowercase();
            let mut q = 1.0f32;
            for param in parts {
                if let Some((k, v)) = param.split_once('=') {
                    if k.trim().eq_ignore_ascii_case("q") {
                        q = v.trim().parse::<f32>().ok().filter(|q| (0.0..=1.0).contains(q)).unwrap_or(0.0);
                    }
                }
            }
            let (target, specificity) = match media.as_str() {
                "application/openmetrics-text" => (&mut open, 2),
                "application/*" => (&mut open, 1),
                "text/plain" => (&mut plain, 2),
                "text/*" => (&mut plain, 1),
                "*/*" => (&mut plain, 0),
                _ => continue,
            };
            // The most specific range decides (`text/plain;q=0, */*` refuses
            // text/plain); equally specific ones: the best q.
            match target {
                Some((best, s)) if *s == specificity => *best = best.max(q),
                Some((_, s)) if *s > specificity => {}
                _ => *target = Some((q, specificity)),
            }
        }
        let (open, plain) = (open.unwrap_or((0.0, 0)), plain.unwrap_or((0.0, 0)));
        if open.0 > 0.0 && (open.0 > plain.0 || (open.0 == plain.0 && open.1 > plain.1)) {
            Format::OpenMetrics
        } else {
            Format::Prometheus
        }
    }
}

/// Every `/package.Service/Method` the server serves.
fn known_methods() -> HashSet<String> {
    let mut out: HashSet<String> = [
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    for set in [menagerie_api::FILE_DESCRIPTOR_SET, tonic_health::pb::FILE_DESCRIPTOR_SET] {
        // Both are compiled in; a descriptor that fails to decode only
        // makes its calls count as `unknown`.
        let Ok(set) = prost_types::FileDescriptorSet::decode(set) else { continue };
        for file in set.file {
            for service in &file.service {
                for method in &service.method {
                    out.insert(format!("/{}.{}/{}", file.package(), service.name(), method.name()));
                }
            }
        }
    }
    out
}

/// Reads [`JobStats`] and the running-job count at each scrape.
struct JobCollector {
    jobs: Jobs,
}

impl fmt::Debug for JobCollector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JobCollector").finish_non_exhaustive()
    }
}

fn counter(encoder: &mut DescriptorEncoder<'_>, name: &str, help: &str, value: &AtomicU64) -> fmt::Result {
    let c = ConstCounter::new(value.load(Ordering::Relaxed));
    c.encode(encoder.encode_descriptor(name, help, None, c.metric_type())?)
}

impl Collector for JobCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> fmt::Result {
        let stats: &JobStats = &self.jobs.stats;
        let running = ConstGauge::new(i64::try_from(self.jobs.running()).unwrap_or(i64::MAX));
        running.encode(encoder.encode_descriptor(
            "menagerie_jobs_running",
            "CPU jobs running now",
            None,
            running.metric_type(),
        )?)?;
        counter(&mut encoder, "menagerie_jobs_started", "Jobs admitted", &stats.started)?;
        counter(&mut encoder, "menagerie_jobs_finished", "Jobs ended, in any way", &stats.finished)?;
        counter(
            &mut encoder,
            "menagerie_jobs_stopped_early",
            "Jobs stopped by a cancel, a deadline or the shutdown",
            &stats.stopped_early,
        )?;
        counter(&mut encoder, "menagerie_jobs_panicked", "Jobs that panicked (INTERNAL)", &stats.panicked)?;
        counter(&mut encoder, "menagerie_perft_nodes", "Nodes counted by finished perft work", &stats.perft_nodes)?;
        counter(&mut encoder, "menagerie_search_nodes", "Nodes searched by finished analyses", &stats.search_nodes)?;
        let mut refused = encoder.encode_descriptor(
            "menagerie_jobs_refused",
            "Jobs refused: busy (every slot taken) or client (over its share)",
            None,
            prometheus_client::metrics::MetricType::Counter,
        )?;
        for (reason, value) in [("busy", &stats.refused_busy), ("client", &stats.refused_client)] {
            let labels = [("reason", reason)];
            ConstCounter::new(value.load(Ordering::Relaxed)).encode(refused.encode_family(&labels)?)?;
        }
        Ok(())
    }
}

/// The name of gRPC status code `code` (`OK`, `INVALID_ARGUMENT`, ...).
pub fn code_name(code: i32) -> &'static str {
    match code {
        0 => "OK",
        1 => "CANCELLED",
        2 => "UNKNOWN",
        3 => "INVALID_ARGUMENT",
        4 => "DEADLINE_EXCEEDED",
        5 => "NOT_FOUND",
        6 => "ALREADY_EXISTS",
        7 => "PERMISSION_DENIED",
        8 => "RESOURCE_EXHAUSTED",
        9 => "FAILED_PRECONDITION",
        10 => "ABORTED",
        11 => "OUT_OF_RANGE",
        12 => "UNIMPLEMENTED",
        13 => "INTERNAL",
        14 => "UNAVAILABLE",
        15 => "DATA_LOSS",
        16 => "UNAUTHENTICATED",
        _ => "UNKNOWN",
    }
}

/// Serves `GET /metrics` on `listener` until the task is dropped, to at
/// most [`crate::connections::PROBE_CONNECTIONS`] connections at once (more
/// are closed as soon as accepted, so that scrapers left open cannot take the
/// server's file descriptors).
pub async fn serve_metrics(listener: TcpListener, metrics: Metrics) {
    let permits = Arc::new(tokio::sync::Semaphore::new(crate::connections::PROBE_CONNECTIONS));
    let mut refused = 0u64;
    let mut last_warning: Option<Instant> = None;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: wait, then go on.
                tracing::warn!(error = %e, "metrics listener: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            drop(stream);
            refused += 1;
            if last_warning.is_none_or(|t| t.elapsed() >= Duration::from_secs(10)) {
                tracing::warn!(
                    max_connections = crate::connections::PROBE_CONNECTIONS,
                    refused,
                    "metrics listener: connection limit reached, refusing new connections"
                );
                last_warning = Some(Instant::now());
                refused = 0;
            }
            continue;
        };
        let metrics = metrics.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let service = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                let response = respond(&metrics, &req);
                async move { Ok::<_, std::convert::Infallible>(response) }
            });
            let served = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
            if let Err(e) = served {
                tracing::debug!(error = %e, "metrics connection ended with an error");
            }
        });
    }
}

fn respond<B>(metrics: &Metrics, req: &Request<B>) -> Response<http_body_util::Full<Bytes>> {
    let (status, content_type, body) = match (req.method(), req.uri().path()) {
        (&http::Method::GET | &http::Method::HEAD, "/metrics") => {
            let accept = req.headers().get(http::header::ACCEPT).and_then(|v| v.to_str().ok());
            let format = Format::negotiate(accept);
            (http::StatusCode::OK, format.content_type(), Bytes::from(metrics.encode_as(format)))
        }
        (_, "/metrics") => {
            (http::StatusCode::METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", Bytes::from_static(b"GET only\n"))
        }
        _ => (http::StatusCode::NOT_FOUND, "text/plain; charset=utf-8", Bytes::from_static(b"see /metrics\n")),
    };
    let mut response = Response::new(http_body_util::Full::new(body));
    *response.status_mut() = status;
    response.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static(content_type));
    // The answer depends on `Accept`: caches must not mix the formats.
    response.headers_mut().insert(http::header::VARY, http::HeaderValue::from_static("accept"));
    response
}

/// A tower layer (for `Server::builder().layer(...)`) writing one access-log
/// event per call and, with [`Metrics`], counting calls and their latency.
#[derive(Clone, Debug, Default)]
pub struct ObserveLayer {
    metrics: Option<Metrics>,
    activity: Option<crate::connections::Activity>,
}

impl ObserveLayer {
    /// Logs every call; records it in `metrics` too, if given.
    pub fn new(metrics: Option<Metrics>) -> ObserveLayer {
        ObserveLayer { metrics, activity: None }
    }

    /// Also counts each call as open on its connection in `activity` (for
    /// the idle timeout) until it ends.
    pub fn with_activity(self, activity: crate::connections::Activity) -> ObserveLayer {
        ObserveLayer { activity: Some(activity), ..self }
    }
}

impl<S> tower_layer::Layer<S> for ObserveLayer {
    type Service = Observe<S>;
    fn layer(&self, inner: S) -> Observe<S> {
        Observe { inner, metrics: self.metrics.clone(), activity: self.activity.clone() }
    }
}

/// The service made by [`ObserveLayer`].
#[derive(Clone, Debug)]
pub struct Observe<S> {
    inner: S,
    metrics: Option<Metrics>,
    activity: Option<crate::connections::Activity>,
}

impl<S, B, ResBody> tower_service::Service<Request<B>> for Observe<S>
where
    S: tower_service::Service<Request<B>, Response = Response<ResBody>>,
    ResBody: http_body::Body<Data = Bytes> + Default,
{
    type Response = Response<ObservedBody<ResBody>>;
    type Error = S::Error;
    type Future = ObserveFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        let client = CallClient::default();
        req.extensions_mut().insert(client.clone());
        let open = self.activity.as_ref().and_then(|a| {
            let (local, remote) = addrs_of(&req)?;
            a.call_started(local, remote)
        });
        let call = Call {
            _open: open,
            path: req.uri().path().to_string(),
            peer: peer_of(&req),
            client,
            trace_id: header_trace_id(req.headers()),
            start: Instant::now(),
            metrics: self.metrics.clone(),
            done: false,
        };
        // Taken now, before tonic's own timer for the same header starts
        // (it wraps this service): this deadline is never the later one.
        let deadline = req
            .headers()
            .get("grpc-timeout")
            .and_then(|v| v.to_str().ok())
            .and_then(crate::jobs::parse_grpc_timeout)
            .and_then(|t| tokio::time::Instant::now().checked_add(t));
        ObserveFuture {
            fut: self.inner.call(req),
            call: Some(call),
            deadline: deadline.map(|d| Box::pin(tokio::time::sleep_until(d))),
        }
    }
}

fn tcp_info<B>(req: &Request<B>) -> Option<&tonic::transport::server::TcpConnectInfo> {
    use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};
    let ext = req.extensions();
    ext.get::<TcpConnectInfo>().or_else(|| ext.get::<TlsConnectInfo<TcpConnectInfo>>().map(|t| t.get_ref()))
}

fn peer_of<B>(req: &Request<B>) -> Option<SocketAddr> {
    tcp_info(req).and_then(|i| i.remote_addr())
}

/// The call's connection: its local and remote addresses.
fn addrs_of<B>(req: &Request<B>) -> Option<(SocketAddr, SocketAddr)> {
    tcp_info(req).and_then(|i| i.local_addr().zip(i.remote_addr()))
}

/// The caller's id for this call: the trace id of a W3C `traceparent`, else
/// an `x-request-id` (printable, at most 128 characters).
fn header_trace_id(headers: &http::HeaderMap) -> Option<String> {
    let traceparent = headers.get("traceparent").and_then(|v| v.to_str().ok()).and_then(|v| {
        let id = v.split('-').nth(1)?;
        (id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| id.to_ascii_lowercase())
    });
    traceparent.or_else(|| {
        let v = headers.get("x-request-id")?.to_str().ok()?;
        (!v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic())).then(|| v.to_string())
    })
}

/// The OpenTelemetry trace id of the current span, if it is in a trace.
#[cfg(feature = "otel")]
fn span_trace_id() -> Option<String> {
    use opentelemetry::trace::TraceContextExt;
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    let cx = tracing::Span::current().context();
    let sc = cx.span().span_context().clone();
    sc.is_valid().then(|| sc.trace_id().to_string())
}

/// The name of the client whose bearer token a call presented: put into
/// each request's extensions by [`ObserveLayer`], filled in by the
/// authentication layer, written in the access log (`client`).
#[derive(Clone, Debug, Default)]
pub struct CallClient(Arc<std::sync::OnceLock<String>>);

impl CallClient {
    /// Records the call's client (the first name given stays).
    pub fn set(&self, name: &str) {
        let _ = self.0.set(name.to_string());
    }

    /// The client's name, if the call was authenticated.
    pub fn get(&self) -> Option<&str> {
        self.0.get().map(String::as_str)
    }
}

/// One call being observed; reports itself once, when it ends or is dropped.
struct Call {
    /// Counts the call as open on its connection until it is dropped.
    _open: Option<crate::connections::OpenCall>,
    path: String,
    peer: Option<SocketAddr>,
    client: CallClient,
    trace_id: Option<String>,
    start: Instant,
    metrics: Option<Metrics>,
    done: bool,
}

impl Call {
    fn finish(&mut self, code: i32) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let elapsed = self.start.elapsed();
        if let Some(m) = &self.metrics {
            m.record(&self.path, code, elapsed);
        }
        let peer = self.peer.map_or_else(|| "-".to_string(), |p| p.to_string());
        tracing::info!(
            target: "access",
            rpc = %self.path,
            peer = %peer,
            client = %self.client.get().unwrap_or("-"),
            status = %code_name(code),
            // Microsecond precision is plenty for a log line.
            latency_ms = elapsed.as_micros() as f64 / 1e3,
            trace_id = %self.trace_id.as_deref().unwrap_or("-"),
            "call"
        );
    }

    /// Finishes with the `grpc-status` in `headers`, if there is one.
    fn finish_from(&mut self, headers: &http::HeaderMap) -> bool {
        match headers.get("grpc-status") {
            Some(v) => {
                let code = v.to_str().ok().and_then(|s| s.parse().ok()).unwrap_or(2);
                self.finish(code);
                true
            }
            None => false,
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        // Dropped before a status went out: the client went away.
        self.finish(tonic::Code::Cancelled as i32);
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Observe`].
    pub struct ObserveFuture<F> {
        #[pin]
        fut: F,
        call: Option<Call>,
        // The call's `grpc-timeout`, if it has one.
        deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    }
}

impl<F, E, B> Future for ObserveFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
    B: Default,
{
    type Output = Result<Response<ObservedBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        // Polled inside the request's span: with `otel`, its trace id is
        // the call's (the caller's trace, or a new one).
        #[cfg(feature = "otel")]
        if let Some(call) = this.call.as_mut() {
            if let Some(id) = span_trace_id() {
                call.trace_id = Some(id);
            }
        }
        let result = match this.fut.poll(cx) {
            Poll::Ready(r) => r,
            Poll::Pending => {
                // The client's deadline passed before an answer: say so
                // (DEADLINE_EXCEEDED), as tonic's timer for the same header
                // would only cancel the call. Dropping the inner future stops
                // its job. Also checked by the clock, in case tonic's timer
                // (which cannot end before this one) woke the task first.
                let expired = this
                    .deadline
                    .as_mut()
                    .is_some_and(|d| d.as_mut().poll(cx).is_ready() || tokio::time::Instant::now() >= d.deadline());
                if !expired {
                    return Poll::Pending;
                }
                *this.deadline = None;
                let status = tonic::Status::deadline_exceeded("deadline exceeded (the call's grpc-timeout passed)");
                let response = status.into_http::<B>();
                if let Some(mut c) = this.call.take() {
                    c.finish(tonic::Code::DeadlineExceeded as i32);
                }
                return Poll::Ready(Ok(response.map(|inner| ObservedBody { inner, call: None })));
            }
        };
        let mut call = this.call.take();
        Poll::Ready(match result {
            Ok(response) => {
                // A trailers-only response carries its status in the headers.
                if let Some(c) = call.as_mut() {
                    if c.finish_from(response.headers()) {
                        call = None;
                    } else if response.status() != http::StatusCode::OK {
                        c.finish(tonic::Code::Unknown as i32);
                        call = None;
                    }
                }
                Ok(response.map(|inner| ObservedBody { inner, call }))
            }
            Err(e) => {
                if let Some(mut c) = call {
                    c.finish(tonic::Code::Unknown as i32);
                }
                Err(e)
            }
        })
    }
}

pin_project_lite::pin_project! {
    /// A response body that reports its call when the `grpc-status`
    /// trailer passes (or the stream ends or is dropped without one).
    pub struct ObservedBody<B> {
        #[pin]
        inner: B,
        call: Option<Call>,
    }
}

impl<B: http_body::Body<Data = Bytes>> http_body::Body for ObservedBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.project();
        let frame = std::task::ready!(this.inner.poll_frame(cx));
        match &frame {
            Some(Ok(f)) => {
                if let (Some(trailers), Some(call)) = (f.trailers_ref(), this.call.as_mut()) {
                    call.finish_from(trailers);
                }
            }
            Some(Err(_)) | None => {
                if let Some(call) = this.call.as_mut() {
                    call.finish(tonic::Code::Unknown as i32);
                }
            }
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_ids_from_headers() {
        let mut h = http::HeaderMap::new();
        assert_eq!(header_trace_id(&h), None);
        h.insert("x-request-id", http::HeaderValue::from_static("req-1"));
        assert_eq!(header_trace_id(&h).as_deref(), Some("req-1"));
        h.insert(
            "traceparent",
            http::HeaderValue::from_static("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"),
        );
        assert_eq!(header_trace_id(&h).as_deref(), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
    }

    #[test]
    fn known_methods_come_from_the_descriptors() {
        let known = known_methods();
        assert!(known.contains("/menagerie.v1.AnalysisService/Perft"));
        assert!(known.contains("/grpc.health.v1.Health/Check"));
        assert!(!known.contains("/menagerie.v1.AnalysisService/Nope"));
    }

    #[test]
    fn scrape_has_job_and_build_metrics() {
        let service = crate::AnalysisApi::new(crate::Config::defaults());
        let metrics = Metrics::new(service.jobs());
        metrics.record("/menagerie.v1.AnalysisService/Perft", 0, Duration::from_millis(3));
        metrics.record("/x.Y/Z", 12, Duration::from_millis(1));
        let text = metrics.encode();
        assert!(text.contains("menagerie_jobs_running 0\n"), "{text}");
        assert!(text.contains("menagerie_jobs_started_total 0\n"), "{text}");
        assert!(text.contains(r#"menagerie_jobs_refused_total{reason="busy"} 0"#), "{text}");
        assert!(
            text.contains(r#"menagerie_grpc_requests_total{rpc="menagerie.v1.AnalysisService/Perft",code="OK"} 1"#)
        );
        assert!(text.contains(r#"menagerie_grpc_requests_total{rpc="unknown",code="UNIMPLEMENTED"} 1"#));
        assert!(text.contains("menagerie_build_info{version="), "{text}");
        assert!(text.contains("menagerie_job_queue_wait_seconds_bucket"), "{text}");
    }
}
