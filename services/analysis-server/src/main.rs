//! `menagerie-server`: the Menagerie gRPC analysis server.

use anyhow::Context;
use clap::Parser;
use menagerie_analysis_server::metrics::{Metrics, serve_metrics};
use menagerie_analysis_server::security::exposure_warnings;
use menagerie_analysis_server::{AnalysisApi, Config, ServeOptions, serve_with};
use std::io::IsTerminal;
use std::time::Duration;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    let filter = EnvFilter::try_new(&config.log).context("bad --log filter")?;
    let logs = match config.log_format.as_str() {
        "json" => tracing_subscriber::fmt::layer().json().with_current_span(true).boxed(),
        // Colours only on a terminal: log files and collectors get plain text.
        "text" => tracing_subscriber::fmt::layer().with_ansi(std::io::stdout().is_terminal()).boxed(),
        other => anyhow::bail!("--log-format must be text or json, not '{other}'"),
    };
    #[cfg(feature = "otel")]
    let telemetry =
        config.otlp_endpoint.as_deref().map(menagerie_analysis_server::telemetry::Telemetry::start).transpose()?;
    #[cfg(feature = "otel")]
    let export = telemetry.as_ref().map(|t| t.layer());
    #[cfg(not(feature = "otel"))]
    let export: Option<tracing_subscriber::layer::Identity> = None;
    tracing_subscriber::registry().with(filter).with(logs).with(export).init();
    // Catch the signals before anything else: one arriving between start-up
    // and the first poll of the shutdown future must not kill the process.
    let shutdown = shutdown_signal()?;
    let security = config.security.load()?;
    // A bad variants file stops the server before it listens.
    let variants = config.load_variants().context("cannot load --variants")?;
    for path in &config.eval_files {
        let id = menagerie_search::nnue::registry::install_file(path).context("cannot load --eval-file")?;
        tracing::info!(variant = %id, path = %path.display(), "network loaded");
    }
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let addr = listener.local_addr()?;
    let health_listener = match config.security.health_listen {
        Some(a) => Some(tokio::net::TcpListener::bind(a).await.with_context(|| format!("cannot listen on {a}"))?),
        None => None,
    };
    let metrics_listener = match config.metrics.metrics_listen {
        Some(a) => Some(tokio::net::TcpListener::bind(a).await.with_context(|| format!("cannot listen on {a}"))?),
        None => None,
    };
    tracing::info!(
        %addr,
        tls = security.tls.is_some(),
        mutual_tls = security.mutual_tls,
        auth = security.auth.enabled(),
        max_jobs = config.max_jobs,
        max_threads = config.max_threads,
        "menagerie-server listening"
    );
    for warning in exposure_warnings(addr, &security) {
        tracing::warn!("{warning}");
    }
    let grace = Duration::from_millis(config.grace_ms);
    let data_variants: Vec<String> =
        variants.catalogue().into_iter().filter(|v| v.defined_as_data).map(|v| v.name).collect();
    tracing::info!(count = data_variants.len(), names = %data_variants.join(","), "variants defined as data");
    let config_connections = config.connections.clone();
    let service = AnalysisApi::with_variants(config, variants);
    let metrics = metrics_listener.map(|l| {
        let metrics = Metrics::new(service.jobs());
        if let Ok(a) = l.local_addr() {
            tracing::info!(addr = %a, "metrics on http://{a}/metrics");
        }
        tokio::spawn(serve_metrics(l, metrics.clone()));
        metrics
    });
    if let Some(a) = health_listener.as_ref().and_then(|l| l.local_addr().ok()) {
        tracing::info!(addr = %a, "plaintext health listener");
    }
    let conns = &config_connections;
    let max_connections = conns.max_connections();
    tracing::info!(
        max_connections,
        open_file_limit = menagerie_analysis_server::connections::open_file_limit(),
        max_streams_per_connection = conns.max_streams_per_connection,
        "connection limits"
    );
    let options = ServeOptions {
        security,
        metrics,
        health_listener,
        max_connections,
        max_streams_per_connection: conns.max_streams_per_connection,
        keepalive: conns.keepalive(),
        timeouts: conns.timeouts(),
    };
    serve_with(service, listener, options, shutdown, grace).await?;
    tracing::info!("stopped");
    #[cfg(feature = "otel")]
    if let Some(telemetry) = telemetry {
        tokio::task::spawn_blocking(move || telemetry.shutdown()).await?;
    }
    Ok(())
}

/// A future resolving on SIGINT or SIGTERM; the handlers are installed now.
#[cfg(unix)]
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
    })
}

/// A future resolving on Ctrl-C.
#[cfg(not(unix))]
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
