//! `menagerie-server`: the Menagerie gRPC analysis server.

use anyhow::Context;
use clap::Parser;
use menagerie_analysis_server::{AnalysisService, Config, serve};
use std::time::Duration;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    let filter = EnvFilter::try_new(&config.log).context("bad --log filter")?;
    match config.log_format.as_str() {
        "json" => tracing_subscriber::fmt().json().with_env_filter(filter).with_current_span(true).init(),
        "text" => tracing_subscriber::fmt().with_env_filter(filter).init(),
        other => anyhow::bail!("--log-format must be text or json, not '{other}'"),
    }
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let addr = listener.local_addr()?;
    tracing::info!(%addr, max_jobs = config.max_jobs, max_threads = config.max_threads, "menagerie-server listening");
    let grace = Duration::from_millis(config.grace_ms);
    serve(AnalysisService::new(config), listener, shutdown_signal(), grace).await?;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves on SIGINT or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
