#![allow(clippy::unwrap_used)]
//! Watching the server run: real gRPC calls, then the Prometheus endpoint
//! scraped with a real HTTP client (hyper-util's), and the access log of the
//! `menagerie-server` binary read from its output.

mod common;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use menagerie_analysis_server::Config;
use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use std::time::Duration;
use tonic::transport::Channel;
use tonic::{Code, Request};

use common::{Binary, field, start, start_position};

/// `GET url` with hyper-util's client: the status and the body.
async fn get(url: &str) -> (http::StatusCode, String) {
    let client: Client<_, Empty<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let response = client.get(url.parse().unwrap()).await.unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

/// The value of `series` (`name{labels}` exactly as exposed), if present.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.split(' ').next()?.parse().ok())
}

fn requests(text: &str, rpc: &str, code: &str) -> f64 {
    let series = format!("menagerie_grpc_requests_total{{rpc=\"menagerie.v1.AnalysisService/{rpc}\",code=\"{code}\"}}");
    value(text, &series).unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_are_counted_by_rpc_and_status_including_streams() {
    let mut config = Config::defaults();
    config.max_jobs = 1;
    config.max_threads = 1;
    config.analysis_hash_mb = 16;
    let server = start(config).await;
    let channel = Channel::from_shared(format!("http://{}", server.grpc)).unwrap().connect().await.unwrap();
    let mut client = AnalysisServiceClient::new(channel);

    for _ in 0..2 {
        client.list_variants(pb::ListVariantsRequest {}).await.unwrap();
    }
    let bad = pb::ValidateMoveRequest {
        position: Some(pb::Position { variant: "no-such-variant".into(), ..Default::default() }),
        r#move: "e4".into(),
    };
    assert_eq!(client.validate_move(bad).await.unwrap_err().code(), Code::InvalidArgument);
    // A server stream that ends well: its status arrives in the trailers.
    let perft = pb::PerftRequest { position: start_position(), depth: 3, ..Default::default() };
    let mut stream = client.perft(perft.clone()).await.unwrap().into_inner();
    while stream.message().await.unwrap().is_some() {}
    // One too deep: refused.
    let too_deep = pb::PerftRequest { depth: 99, ..perft.clone() };
    let refused = match client.perft(too_deep).await {
        Err(s) => s,
        Ok(r) => r.into_inner().message().await.unwrap_err(),
    };
    assert_eq!(refused.code(), Code::OutOfRange);

    // A long analysis holds the only job slot: the running gauge shows it,
    // and the next job is refused.
    let analyze = pb::AnalyzeRequest { position: start_position(), movetime_ms: 1500, ..Default::default() };
    // (The slot of the perft above is given back just after its stream ends.)
    let mut retried = 0;
    let mut analysis = loop {
        let first = match client.analyze(analyze.clone()).await {
            Ok(r) => {
                let mut stream = r.into_inner();
                stream.message().await.map(|first| (first, stream))
            }
            Err(s) => Err(s),
        };
        match first {
            Ok((first, stream)) => {
                assert!(first.is_some(), "the analysis sent nothing");
                break stream;
            }
            Err(s) if s.code() == Code::ResourceExhausted && retried < 100 => {
                retried += 1;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(s) => panic!("{s:?}"),
        }
    };
    let url = format!("http://{}/metrics", server.metrics);
    let (_, during) = get(&url).await;
    assert_eq!(value(&during, "menagerie_jobs_running"), Some(1.0), "{during}");
    let busy = match client.perft(perft.clone()).await {
        Err(s) => s,
        Ok(r) => r.into_inner().message().await.unwrap_err(),
    };
    assert_eq!(busy.code(), Code::ResourceExhausted, "{busy:?}");
    while analysis.message().await.unwrap().is_some() {}

    // Counters are recorded when the call ends; the analysis stream may end
    // a moment after its last message reaches the client.
    let mut text = String::new();
    for _ in 0..100 {
        let (status, body) = get(&url).await;
        assert_eq!(status, http::StatusCode::OK);
        text = body;
        if requests(&text, "Analyze", "OK") >= 1.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(requests(&text, "ListVariants", "OK"), 2.0, "{text}");
    assert_eq!(requests(&text, "ValidateMove", "INVALID_ARGUMENT"), 1.0, "{text}");
    assert_eq!(requests(&text, "Perft", "OK"), 1.0, "{text}");
    assert_eq!(requests(&text, "Perft", "OUT_OF_RANGE"), 1.0, "{text}");
    assert_eq!(requests(&text, "Perft", "RESOURCE_EXHAUSTED"), 1.0, "{text}");
    assert_eq!(requests(&text, "Analyze", "RESOURCE_EXHAUSTED"), f64::from(retried), "{text}");
    assert_eq!(requests(&text, "Analyze", "OK"), 1.0, "{text}");
    let perft_calls =
        value(&text, r#"menagerie_grpc_request_duration_seconds_count{rpc="menagerie.v1.AnalysisService/Perft"}"#);
    assert_eq!(perft_calls, Some(3.0), "{text}");
    let analysis_seconds =
        value(&text, r#"menagerie_grpc_request_duration_seconds_sum{rpc="menagerie.v1.AnalysisService/Analyze"}"#);
    assert!(analysis_seconds.unwrap() >= 1.0, "a stream's latency runs to its end: {text}");
    assert_eq!(value(&text, "menagerie_jobs_running"), Some(0.0), "{text}");
    let refused = value(&text, r#"menagerie_jobs_refused_total{reason="busy"}"#).unwrap()
        + value(&text, r#"menagerie_jobs_refused_total{reason="client"}"#).unwrap();
    assert_eq!(refused, 1.0 + f64::from(retried), "{text}");
    assert!(value(&text, "menagerie_jobs_started_total").unwrap() >= 2.0, "{text}");
    for series in [
        "menagerie_jobs_panicked_total",
        "menagerie_perft_nodes_total",
        "menagerie_search_nodes_total",
        "menagerie_jobs_stopped_early_total",
        "menagerie_job_queue_wait_seconds_count",
    ] {
        assert!(value(&text, series).is_some(), "{series} missing: {text}");
    }
    assert!(text.contains(&format!("menagerie_build_info{{version=\"{}\"", env!("CARGO_PKG_VERSION"))), "{text}");

    // Only /metrics is served.
    assert_eq!(get(&format!("http://{}/", server.metrics)).await.0, http::StatusCode::NOT_FOUND);
}

impl Binary {
    /// Stops the server (SIGTERM) and returns its access-log lines.
    async fn stop(mut self) -> Vec<String> {
        let _ = std::process::Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let mut access = Vec::new();
        while let Ok(Some(line)) = tokio::time::timeout(Duration::from_secs(30), self.lines.recv()).await {
            if line.contains("\"target\":\"access\"") {
                access.push(line);
            }
        }
        let _ = self.child.wait();
        access
    }
}

/// The binary: `--metrics-listen` serves metrics, and each call writes one
/// access-log line with its RPC, peer, status, latency and request id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_logs_each_call_and_serves_metrics() {
    let server = Binary::start(&["--max-jobs", "2"], &[]).await;
    let (grpc, metrics) = (server.grpc.clone(), server.metrics.clone());

    let channel = Channel::from_shared(format!("http://{grpc}")).unwrap().connect().await.unwrap();
    let mut client = AnalysisServiceClient::new(channel);
    let mut req = Request::new(pb::ValidateMoveRequest { position: start_position(), r#move: "Nf3".into() });
    req.metadata_mut().insert("x-request-id", "req-42".parse().unwrap());
    assert!(client.validate_move(req).await.unwrap().into_inner().legal);
    let bad = pb::LegalMovesRequest {
        position: Some(pb::Position { variant: "chess".into(), fen: "not a fen".into(), moves: vec![] }),
    };
    assert_eq!(client.legal_moves(bad).await.unwrap_err().code(), Code::InvalidArgument);

    let (status, text) = get(&format!("http://{metrics}/metrics")).await;
    assert_eq!(status, http::StatusCode::OK);
    assert_eq!(requests(&text, "ValidateMove", "OK"), 1.0, "{text}");
    assert_eq!(requests(&text, "LegalMoves", "INVALID_ARGUMENT"), 1.0, "{text}");

    let access = server.stop().await;
    let validate = access
        .iter()
        .find(|l| l.contains("\"rpc\":\"/menagerie.v1.AnalysisService/ValidateMove\""))
        .unwrap_or_else(|| panic!("no access line for ValidateMove: {access:?}"));
    assert_eq!(field(validate, "status").as_deref(), Some("OK"), "{validate}");
    assert_eq!(field(validate, "trace_id").as_deref(), Some("req-42"), "{validate}");
    assert!(field(validate, "peer").is_some_and(|p| p.starts_with("127.0.0.1:")), "{validate}");
    assert!(validate.contains("\"latency_ms\":"), "{validate}");
    let legal = access
        .iter()
        .find(|l| l.contains("\"rpc\":\"/menagerie.v1.AnalysisService/LegalMoves\""))
        .unwrap_or_else(|| panic!("no access line for LegalMoves: {access:?}"));
    assert_eq!(field(legal, "status").as_deref(), Some("INVALID_ARGUMENT"), "{legal}");
    assert_eq!(access.len(), 2, "one line per call: {access:?}");
}

/// With `otel` and an exporter, the access log carries the OpenTelemetry
/// trace id: the caller's when it sent a `traceparent`, else a new one.
#[cfg(feature = "otel")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_otel_the_access_log_has_the_trace_id() {
    // Nothing listens there: spans are made, their export fails quietly.
    let server = Binary::start(&["--max-jobs", "2", "--otlp-endpoint", "http://127.0.0.1:9"], &[]).await;
    let channel = Channel::from_shared(format!("http://{}", server.grpc)).unwrap().connect().await.unwrap();
    let mut client = AnalysisServiceClient::new(channel);
    let caller = "0af7651916cd43dd8448eb211c80319c";
    let mut req = Request::new(pb::ListVariantsRequest {});
    req.metadata_mut().insert("traceparent", format!("00-{caller}-b7ad6b7169203331-01").parse().unwrap());
    req.metadata_mut().insert("x-request-id", "ignored".parse().unwrap());
    client.list_variants(req).await.unwrap();
    client.legal_moves(pb::LegalMovesRequest { position: start_position() }).await.unwrap();
    let access = server.stop().await;
    let id_of = |rpc: &str| {
        let line = access.iter().find(|l| l.contains(rpc)).unwrap_or_else(|| panic!("no {rpc} in {access:?}"));
        field(line, "trace_id").unwrap()
    };
    assert_eq!(id_of("ListVariants"), caller);
    let fresh = id_of("LegalMoves");
    assert!(fresh.len() == 32 && fresh.bytes().all(|b| b.is_ascii_hexdigit()) && fresh != caller, "{fresh}");
}
