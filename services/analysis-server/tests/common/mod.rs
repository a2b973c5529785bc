//! Helpers shared by the server's integration tests: an in-process server
//! with metrics, the `menagerie-server` binary started on a loopback port,
//! and a client.
#![allow(dead_code, clippy::unwrap_used)]

use menagerie_analysis_server::metrics::{Metrics, serve_metrics};
use menagerie_analysis_server::{AnalysisApi, Config, ServeOptions, serve_with};
use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use std::io::{BufRead, BufReader, Lines};
use std::net::SocketAddr;
use std::process::{Child, ChildStdout};
use std::time::Duration;
use tokio::sync::oneshot;
use tonic::transport::Channel;

/// Chess from its start position.
pub fn start_position() -> Option<pb::Position> {
    Some(pb::Position { variant: "chess".into(), ..Default::default() })
}

/// An in-process server (with metrics) on loopback ports, stopped when dropped.
pub struct Running {
    pub grpc: SocketAddr,
    pub metrics: SocketAddr,
    _shutdown: oneshot::Sender<()>,
}

/// Serves `config` with metrics on two loopback ports.
pub async fn start(config: Config) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let grpc = listener.local_addr().unwrap();
    let metrics_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics_addr = metrics_listener.local_addr().unwrap();
    let service = AnalysisApi::new(config);
    let metrics = Metrics::new(service.jobs());
    tokio::spawn(serve_metrics(metrics_listener, metrics.clone()));
    let (tx, rx) = oneshot::channel::<()>();
    let shutdown = async {
        let _ = rx.await;
    };
    let options = ServeOptions { metrics: Some(metrics), ..ServeOptions::default() };
    tokio::spawn(serve_with(service, listener, options, shutdown, Duration::from_secs(1)));
    Running { grpc, metrics: metrics_addr, _shutdown: tx }
}

/// A connected client of the server at `addr` (`host:port`).
pub async fn client(addr: &str) -> AnalysisServiceClient<Channel> {
    AnalysisServiceClient::new(Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap())
}

/// The `menagerie-server` binary started on a loopback port with `args`
/// (JSON logs on stdout; no OpenTelemetry settings from the environment):
/// the process, its address, and its stdout lines after the one announcing
/// the address.
pub fn launch(args: &[&str]) -> (Child, String, Lines<BufReader<ChildStdout>>) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie-server"))
        .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
        .args(args)
        .env_remove("OTEL_SERVICE_NAME")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // {"timestamp":...,"fields":{"message":"menagerie-server listening","addr":"127.0.0.1:PORT",...}}
    let addr = loop {
        let line = lines.next().expect("the server exited before listening").unwrap();
        if let Some(rest) = line.split("\"addr\":\"").nth(1) {
            break rest.split('"').next().unwrap().to_string();
        }
    };
    (child, addr, lines)
}

/// The `menagerie-server` binary with JSON logs on stdout, read line by line.
pub struct Binary {
    pub child: std::process::Child,
    pub lines: tokio::sync::mpsc::UnboundedReceiver<String>,
    pub grpc: String,
    pub metrics: String,
}

/// A field of a JSON log line (strings without their quotes).
pub fn field(line: &str, name: &str) -> Option<String> {
    let rest = line.split(&format!("\"{name}\":")).nth(1)?;
    match rest.strip_prefix('"') {
        Some(s) => Some(s.split('"').next()?.to_string()),
        None => Some(rest.split([',', '}']).next()?.to_string()),
    }
}

impl Binary {
    /// The binary with a metrics listener, `--log info` and `args`, `env` set.
    pub async fn start(args: &[&str], env: &[(&str, &str)]) -> Binary {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie-server"))
            .args(["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--log-format", "json"])
            .args(["--log", "info"])
            .args(args)
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let (tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let (mut grpc, mut metrics) = (None, None);
        while grpc.is_none() || metrics.is_none() {
            let line = tokio::time::timeout(Duration::from_secs(60), lines.recv())
                .await
                .expect("the server did not start")
                .expect("the server exited before listening");
            if line.contains("menagerie-server listening") {
                grpc = field(&line, "addr");
            } else if line.contains("metrics on") {
                metrics = field(&line, "addr");
            }
        }
        Binary { child, lines, grpc: grpc.unwrap(), metrics: metrics.unwrap() }
    }
}
