#![allow(clippy::unwrap_used)]
//! Operations details, each through the real server: the access log names
//! the token's client, an expired `grpc-timeout` answers DEADLINE_EXCEEDED,
//! Perft and PerftBatch share their limits, WritePgn refuses a result the
//! rules contradict, a call cut at the end of the SIGTERM grace answers
//! UNAVAILABLE, `/metrics` follows `Accept`, and the build names its commit.

mod common;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use menagerie_analysis_server::Config;
use menagerie_analysis_server::metrics::BUILD_COMMIT;
use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use std::time::Duration;
use tonic::{Code, Request};

use common::{Binary, client, field, start, start_position};

fn small_config() -> Config {
    let mut config = Config::defaults();
    config.max_jobs = 4;
    config.max_threads = 2;
    config.analysis_hash_mb = 16;
    config
}

/// `GET url` with hyper-util's client and an optional `Accept`: the
/// `Content-Type` and the body.
async fn get(url: &str, accept: Option<&str>) -> (String, String) {
    use hyper_util::client::legacy::Client;
    let client: Client<_, Empty<Bytes>> = Client::builder(hyper_util::rt::TokioExecutor::new()).build_http();
    let mut req = http::Request::get(url);
    if let Some(a) = accept {
        req = req.header(http::header::ACCEPT, a);
    }
    let response = client.request(req.body(Empty::new()).unwrap()).await.unwrap();
    assert_eq!(response.status(), http::StatusCode::OK);
    let content_type = response.headers()[http::header::CONTENT_TYPE].to_str().unwrap().to_string();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (content_type, String::from_utf8(body.to_vec()).unwrap())
}

impl Binary {
    fn sigterm(&self) {
        let status = std::process::Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        assert!(status.unwrap().success());
    }

    /// Waits for the server to exit (after [`Binary::sigterm`]) and returns
    /// every log line it wrote from now on.
    async fn finish(mut self) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(Some(line)) = tokio::time::timeout(Duration::from_secs(60), self.lines.recv()).await {
            out.push(line);
        }
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status:?}: {out:?}");
        out
    }
}

fn access_line<'a>(lines: &'a [String], rpc: &str) -> Vec<&'a String> {
    lines
        .iter()
        .filter(|l| l.contains("\"target\":\"access\"") && l.contains(&format!("AnalysisService/{rpc}\"")))
        .collect()
}

/// The access log names the client whose bearer token a call carried (the
/// token file's name), and `-` for a call refused for want of one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_access_log_names_the_tokens_client() {
    let token = "t0k3n-for-the-epd-runner";
    let server =
        Binary::start(&[], &[("MENAGERIE_AUTH_TOKENS", &format!("epd-runner:{token},other:another-token"))]).await;
    let mut client = client(&server.grpc).await;
    let mut req = Request::new(pb::ValidateMoveRequest { position: start_position(), r#move: "e4".into() });
    req.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    assert!(client.validate_move(req).await.unwrap().into_inner().legal);
    let refused = client.list_variants(pb::ListVariantsRequest {}).await.unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);
    server.sigterm();
    let lines = server.finish().await;
    let validate = access_line(&lines, "ValidateMove");
    assert_eq!(validate.len(), 1, "{lines:?}");
    assert_eq!(field(validate[0], "client").as_deref(), Some("epd-runner"), "{}", validate[0]);
    assert_eq!(field(validate[0], "status").as_deref(), Some("OK"), "{}", validate[0]);
    let list = access_line(&lines, "ListVariants");
    assert_eq!(list.len(), 1, "{lines:?}");
    assert_eq!(field(list[0], "client").as_deref(), Some("-"), "{}", list[0]);
    assert_eq!(field(list[0], "status").as_deref(), Some("UNAUTHENTICATED"), "{}", list[0]);
}

/// A `grpc-timeout` that passes before the answer (even `1n`, which
/// tonic's own timer would answer with CANCELLED) gets DEADLINE_EXCEEDED,
/// and is counted so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_grpc_timeout_answers_deadline_exceeded() {
    let server = start(small_config()).await;
    // A plain HTTP/2 client: tonic's own channel would time the call out on
    // its side first (and call it CANCELLED itself).
    let h2 = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .http2_only(true)
        .build_http::<tonic::body::Body>();
    let origin: http::Uri = format!("http://{}", server.grpc).parse().unwrap();
    let mut client = AnalysisServiceClient::with_origin(h2, origin);
    for timeout in ["1n", "1u", "1m", "20m"] {
        for _ in 0..5 {
            let mut req = Request::new(pb::BestMoveRequest {
                position: start_position(),
                movetime_ms: 20_000,
                ..Default::default()
            });
            req.metadata_mut().insert("grpc-timeout", timeout.parse().unwrap());
            let status =
                tokio::time::timeout(Duration::from_secs(60), client.best_move(req)).await.unwrap().unwrap_err();
            assert_eq!(status.code(), Code::DeadlineExceeded, "grpc-timeout {timeout}: {status:?}");
        }
    }
    let (_, text) = get(&format!("http://{}/metrics", server.metrics), None).await;
    let series =
        r#"menagerie_grpc_requests_total{rpc="menagerie.v1.AnalysisService/BestMove",code="DEADLINE_EXCEEDED"} 20"#;
    assert!(text.contains(series), "{text}");
    assert!(!text.contains(r#"code="CANCELLED""#), "{text}");
}

/// Perft and each PerftBatch job refuse the same thread counts, with the
/// same message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perft_and_perft_batch_share_their_limits() {
    let server = start(small_config()).await;
    let mut client = client(&server.grpc.to_string()).await;
    let perft = pb::PerftRequest { position: start_position(), depth: 1, threads: u32::MAX, ..Default::default() };
    let refused = match client.perft(perft).await {
        Err(s) => s,
        Ok(r) => r.into_inner().message().await.unwrap_err(),
    };
    assert_eq!(refused.code(), Code::OutOfRange);
    assert!(refused.message().contains("threads 4294967295 is out of range (at most 2)"), "{}", refused.message());

    let job = |id: &str, threads: u32| pb::PerftBatchRequest {
        id: id.into(),
        position: start_position(),
        expected: vec![pb::DepthCount { depth: 2, nodes: 400 }],
        threads,
        ..Default::default()
    };
    let jobs = vec![job("huge", u32::MAX), job("three", 3), job("two", 2), job("default", 0)];
    let mut results = client.perft_batch(tokio_stream::iter(jobs)).await.unwrap().into_inner();
    let mut got = Vec::new();
    while let Some(r) = results.message().await.unwrap() {
        got.push(r);
    }
    assert_eq!(got.len(), 4, "{got:?}");
    for (r, threads) in got.iter().take(2).zip([u32::MAX, 3]) {
        assert_eq!(r.error_code, "OUT_OF_RANGE", "{r:?}");
        assert_eq!(r.error, format!("threads {threads} is out of range (at most 2)"), "{r:?}");
        assert!(!r.pass && r.depths.is_empty(), "{r:?}");
    }
    for r in &got[2..] {
        assert!(r.pass && r.error.is_empty(), "{r:?}");
    }
}

/// WritePgn refuses a result that contradicts a game the rules decided
/// (Black mated White), and takes the right one or any for an open game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_pgn_refuses_a_result_the_rules_contradict() {
    let server = start(small_config()).await;
    let mut client = client(&server.grpc.to_string()).await;
    let game = |moves: &[&str], result: &str| pb::WritePgnRequest {
        position: Some(pb::Position {
            variant: "chess".into(),
            moves: moves.iter().map(|m| m.to_string()).collect(),
            ..Default::default()
        }),
        result: result.into(),
        ..Default::default()
    };
    let mate = ["f3", "e5", "g4", "Qh4#"];
    for wrong in ["1-0", "1/2-1/2", "*"] {
        let e = client.write_pgn(game(&mate, wrong)).await.unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition, "{wrong}: {e:?}");
        assert!(e.message().contains(&format!("result: '{wrong}' contradicts the game")), "{}", e.message());
        assert!(e.message().contains("0-1"), "{}", e.message());
    }
    for right in ["0-1", ""] {
        let pgn = client.write_pgn(game(&mate, right)).await.unwrap().into_inner().pgn;
        assert!(pgn.contains("[Result \"0-1\"]") && pgn.trim_end().ends_with("0-1"), "{pgn}");
    }
    // A game the rules have not decided takes any result (a resignation).
    let pgn = client.write_pgn(game(&["f3", "e5"], "1-0")).await.unwrap().into_inner().pgn;
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    // The same for a variant defined as data (makruk): mate or not, as chess.
    let open = pb::WritePgnRequest {
        position: Some(pb::Position { variant: "makruk".into(), moves: vec!["e3e4".into()], ..Default::default() }),
        result: "0-1".into(),
        ..Default::default()
    };
    assert!(client.write_pgn(open).await.is_ok());
}

/// A BestMove still running when the SIGTERM grace period ends answers
/// UNAVAILABLE with a message (not a bare GOAWAY), and the access log says
/// UNAVAILABLE too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cut_at_the_end_of_the_grace_answers_unavailable() {
    let server = Binary::start(&["--grace-ms", "200", "--max-threads", "1", "--analysis-hash-mb", "16"], &[]).await;
    let mut client = client(&server.grpc).await;
    let req = pb::BestMoveRequest { position: start_position(), movetime_ms: 50_000, ..Default::default() };
    let call = tokio::spawn(async move { client.best_move(req).await });
    // Wait until its job runs.
    let url = format!("http://{}/metrics", server.metrics);
    let mut running = false;
    for _ in 0..1000 {
        let (_, text) = get(&url, None).await;
        if text.lines().any(|l| l == "menagerie_jobs_running 1") {
            running = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(running, "the BestMove job never started");
    server.sigterm();
    let status = tokio::time::timeout(Duration::from_secs(40), call).await.unwrap().unwrap().unwrap_err();
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert!(status.message().contains("shutting down"), "{status:?}");
    let lines = server.finish().await;
    let best = access_line(&lines, "BestMove");
    assert_eq!(best.len(), 1, "{lines:?}");
    assert_eq!(field(best[0], "status").as_deref(), Some("UNAVAILABLE"), "{}", best[0]);
}

/// `/metrics` answers the Prometheus text format 0.0.4 by default and
/// OpenMetrics when `Accept` prefers it (q-values respected); both carry
/// the same counts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_follow_the_accept_header() {
    let server = start(small_config()).await;
    let mut client = client(&server.grpc.to_string()).await;
    for _ in 0..3 {
        client.list_variants(pb::ListVariantsRequest {}).await.unwrap();
    }
    let url = format!("http://{}/metrics", server.metrics);
    let series = r#"menagerie_grpc_requests_total{rpc="menagerie.v1.AnalysisService/ListVariants",code="OK"} 3"#;
    let prometheus = [
        None,
        Some("text/plain"),
        Some("*/*"),
        Some("text/plain;version=0.0.4;q=0.9, application/openmetrics-text;q=0.5"),
        Some("application/openmetrics-text;q=0, */*"),
    ];
    for accept in prometheus {
        let (content_type, text) = get(&url, accept).await;
        assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8", "{accept:?}");
        assert!(text.contains("# TYPE menagerie_grpc_requests_total counter\n"), "{accept:?}: {text}");
        assert!(text.contains(series), "{text}");
        assert!(!text.contains("# EOF"), "{text}");
    }
    // What Prometheus itself sends, and plainer forms.
    let openmetrics = [
        "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
        "application/openmetrics-text",
        "application/openmetrics-text; version=1.0.0, */*",
    ];
    for accept in openmetrics {
        let (content_type, text) = get(&url, Some(accept)).await;
        assert_eq!(content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8", "{accept}");
        assert!(text.contains("# TYPE menagerie_grpc_requests counter\n"), "{text}");
        assert!(text.contains(series), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }
    let (_, text) = get(&url, None).await;
    assert!(text.contains(&format!("commit=\"{BUILD_COMMIT}\"")), "{text}");
}

/// `menagerie_build_info`'s commit is the checkout's HEAD when the build
/// was given none (`MENAGERIE_GIT_COMMIT`).
#[test]
fn the_build_names_its_commit() {
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_string());
    match (option_env!("MENAGERIE_GIT_COMMIT").filter(|c| !c.is_empty()), head) {
        (Some(given), _) => assert_eq!(BUILD_COMMIT, given.trim()),
        (None, Some(head)) => assert_eq!(BUILD_COMMIT, head),
        // Not a git checkout: nothing to compare with.
        (None, None) => assert!(!BUILD_COMMIT.is_empty()),
    }
}
