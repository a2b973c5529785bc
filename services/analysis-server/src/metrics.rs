//! Prometheus metrics on a separate listener, and the per-request access log.

/// Metrics settings.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct MetricsConfig {}
