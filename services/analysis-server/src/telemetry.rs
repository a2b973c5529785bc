//! OpenTelemetry export (cargo feature `otel`): request, job and search spans
//! go to an OTLP/gRPC collector, and a caller's W3C `traceparent` header makes
//! the server's spans part of the caller's trace.

use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::time::Duration;
use tonic::codegen::http::HeaderMap;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// Why the OTLP exporter could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up OTLP export to {endpoint}: {source}")]
pub struct TelemetryError {
    endpoint: String,
    source: opentelemetry_otlp::ExporterBuildError,
}

/// A running span exporter; [`Telemetry::shutdown`] flushes what is buffered.
pub struct Telemetry {
    provider: SdkTracerProvider,
}

impl Telemetry {
    /// Starts batch export of spans to the OTLP/gRPC collector at `endpoint`
    /// (e.g. `http://127.0.0.1:4317`). Must be called inside a Tokio runtime.
    /// The service name is `OTEL_SERVICE_NAME` when set, else `menagerie-server`.
    pub fn start(endpoint: &str) -> Result<Telemetry, TelemetryError> {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_tonic()
            .with_endpoint(endpoint)
            .with_timeout(Duration::from_secs(5))
            .build()
            .map_err(|source| TelemetryError { endpoint: endpoint.to_string(), source })?;
        let mut resource = opentelemetry_sdk::Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name("menagerie-server");
        }
        let provider =
            SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource.build()).build();
        Ok(Telemetry { provider })
    }

    /// A `tracing` layer sending spans to this exporter.
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        tracing_opentelemetry::layer().with_tracer(self.provider.tracer("menagerie-server"))
    }

    /// Exports the buffered spans and stops the exporter. Blocks: call it
    /// from a blocking thread while the runtime still runs.
    pub fn shutdown(self) {
        if let Err(e) = self.provider.shutdown() {
            eprintln!("menagerie-server: OTLP shutdown: {e}");
        }
    }
}

/// Makes `span` a child of the trace context in `headers` (W3C
/// `traceparent`/`tracestate`), if the caller sent one.
pub fn join_caller_trace(span: &tracing::Span, headers: &HeaderMap) {
    if headers.contains_key("traceparent") {
        let cx = TraceContextPropagator::new().extract(&Headers(headers));
        // Fails only when no OpenTelemetry layer is installed: nothing to join then.
        let _ = span.set_parent(cx);
    }
}

struct Headers<'a>(&'a HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }
    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}
