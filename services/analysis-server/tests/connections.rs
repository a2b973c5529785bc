#![allow(clippy::unwrap_used)]
//! The connection layer under heavy and hostile clients, against the real
//! `menagerie-server` binary.

mod common;

use common::client;
use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use std::time::Duration;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;

struct Server {
    child: std::process::Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn(args: &[&str]) -> Server {
    let (child, addr, lines) = common::launch(args);
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if std::env::var_os("SHOW_LOG").is_some() {
                eprintln!("{line}");
            }
        }
    });
    Server { child, addr }
}

fn job(i: usize) -> pb::PerftBatchRequest {
    pb::PerftBatchRequest {
        id: i.to_string(),
        position: Some(pb::Position { variant: "chess".into(), fen: String::new(), moves: vec![] }),
        expected: vec![pb::DepthCount { depth: 1, nodes: 20 }],
        ..Default::default()
    }
}

/// Sends `n` depth-1 jobs one message at a time, reads every result
/// (pausing `pause` after the first), returns the results received and the error, if any.
async fn pipeline(addr: &str, n: usize, pause: Duration) -> (usize, Option<tonic::Status>) {
    let mut client = client(addr).await;
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    tokio::spawn(async move {
        for i in 0..n {
            if tx.send(job(i)).await.is_err() {
                break;
            }
            // One job per DATA frame: the encoder sends what is ready.
            tokio::task::yield_now().await;
        }
    });
    let mut results = match client.perft_batch(ReceiverStream::new(rx)).await {
        Ok(r) => r.into_inner(),
        Err(e) => return (0, Some(e)),
    };
    let mut got = 0;
    loop {
        match results.message().await {
            Ok(Some(r)) => {
                assert!(r.pass, "{r:?}");
                got += 1;
                if got == 1 && !pause.is_zero() {
                    tokio::time::sleep(pause).await;
                }
            }
            Ok(None) => return (got, None),
            Err(e) => return (got, Some(e)),
        }
    }
}

/// 100,000 pipelined PerftBatch jobs, one message each, all answered on
/// one connection (the issue saw GOAWAY ENHANCE_YOUR_CALM cut such runs).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_batch_jobs_all_complete() {
    let server = spawn(&[]);
    let (got, err) = pipeline(&server.addr, 100_000, Duration::ZERO).await;
    assert_eq!((got, err.map(|e| e.to_string())), (100_000, None));
}

/// The same while the client stops reading results for a while.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_batch_jobs_survive_a_paused_reader() {
    let server = spawn(&[]);
    let (got, err) = pipeline(&server.addr, 10_000, Duration::from_secs(3)).await;
    assert_eq!((got, err.map(|e| e.to_string())), (10_000, None));
}

/// Idle sockets beyond --max-connections are closed at once: calls over
/// connections under the cap go on, and once the idle ones close, new
/// connections are served again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_cap_are_closed_and_the_server_goes_on() {
    use tokio::io::AsyncReadExt;
    let server = spawn(&["--max-connections", "8"]);
    let mut first = client(&server.addr).await;
    let mut idle = Vec::new();
    for _ in 0..7 {
        idle.push(tokio::net::TcpStream::connect(&server.addr).await.unwrap());
    }
    // Give the server the time to accept them (a hang guard, not a timing).
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The ninth is closed by the server: reading it ends (EOF or reset).
    let mut over = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(30), over.read(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "{read:?}");
    // The connection under the cap still works.
    assert!(!first.list_variants(pb::ListVariantsRequest {}).await.unwrap().into_inner().variants.is_empty());
    drop(idle);
    let mut again = None;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if let Ok(ch) = Channel::from_shared(format!("http://{}", server.addr)).unwrap().connect().await {
            let mut c = AnalysisServiceClient::new(ch);
            if c.list_variants(pb::ListVariantsRequest {}).await.is_ok() {
                again = Some(());
                break;
            }
        }
    }
    assert!(again.is_some(), "no new connection was served after the idle ones closed");
}

/// The bench: `RUNS` (3) runs of `JOBS` (100,000) pipelined jobs, `PAUSE_MS`
/// (0) paused reading after the first result, against one server:
/// `RUNS=10 cargo test -p menagerie-analysis-server --test connections -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn repro_pipeline() {
    let n: usize = std::env::var("JOBS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let runs: usize = std::env::var("RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let pause: u64 = std::env::var("PAUSE_MS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let server = spawn(&["--log", "info,h2=debug"]);
    let mut failed = 0;
    for _ in 0..runs {
        let t = std::time::Instant::now();
        let (got, err) = pipeline(&server.addr, n, Duration::from_millis(pause)).await;
        eprintln!("{got}/{n} in {:?}: {err:?}", t.elapsed());
        failed += usize::from(err.is_some() || got != n);
    }
    assert_eq!(failed, 0, "{failed} of {runs} runs cut");
}

/// An HTTP/2 connection of the `h2` crate itself (tonic's channel would hide
/// the server closing it by reconnecting): its request handle and the task
/// driving it, which ends when the server closes the connection.
async fn h2_connection(
    addr: &str,
) -> (h2::client::SendRequest<bytes::Bytes>, tokio::task::JoinHandle<Result<(), h2::Error>>) {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (send, conn) = h2::client::handshake(tcp).await.unwrap();
    (send, tokio::spawn(conn))
}

/// A gRPC request of `method` with its body left open.
fn grpc_request(method: &str) -> http::Request<()> {
    http::Request::builder()
        .method("POST")
        .uri(format!("http://localhost/menagerie.v1.AnalysisService/{method}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap()
}

/// A unary ListVariants call on `send`, to its end.
async fn list_variants(send: &mut h2::client::SendRequest<bytes::Bytes>) {
    let (response, mut body) =
        send.clone().ready().await.unwrap().send_request(grpc_request("ListVariants"), false).unwrap();
    // An empty message: no compression flag, length 0.
    body.send_data(bytes::Bytes::from_static(&[0, 0, 0, 0, 0]), true).unwrap();
    let mut response = response.await.unwrap().into_body();
    while let Some(data) = response.data().await {
        let data = data.unwrap();
        let _ = response.flow_control().release_capacity(data.len());
    }
    let trailers = response.trailers().await.unwrap().expect("trailers");
    assert_eq!(trailers.get("grpc-status").map(|v| v.as_bytes()), Some(&b"0"[..]), "{trailers:?}");
}

/// Connections that send nothing, or less than the HTTP/2 preface, are
/// closed once --handshake-timeout-ms has passed (never before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_that_never_finish_their_preface_are_closed_after_the_handshake_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = spawn(&["--handshake-timeout-ms", "500", "--idle-timeout-ms", "0"]);
    for sent in [&b""[..], b"PRI * HTTP/2.0\r\n"] {
        let t = std::time::Instant::now();
        let mut s = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
        s.write_all(sent).await.unwrap();
        // The server speaks first (its SETTINGS), then closes the
        // connection (EOF or reset); 30 s is a hang guard, not a timing.
        let mut buf = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut buf)).await;
        assert!(read.is_ok(), "{} bytes sent: the connection stayed open", sent.len());
        assert!(t.elapsed() >= Duration::from_millis(500), "closed after {:?}", t.elapsed());
    }
    // A client that speaks is served for longer than that.
    let (mut send, conn) = h2_connection(&server.addr).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    list_variants(&mut send).await;
    assert!(!conn.is_finished());
}

/// A connection with no call open is closed after --idle-timeout-ms; one
/// with a call open (a PerftBatch stream waiting for jobs) is not, however
/// long it stays quiet, and is closed once its call has ended and the
/// timeout passed again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed_and_busy_ones_kept() {
    let server = spawn(&["--idle-timeout-ms", "1000"]);
    // Idle after one call.
    let (mut send, conn) = h2_connection(&server.addr).await;
    let t = std::time::Instant::now();
    list_variants(&mut send).await;
    let ended = tokio::time::timeout(Duration::from_secs(30), conn).await;
    assert!(ended.is_ok(), "the idle connection was not closed");
    assert!(t.elapsed() >= Duration::from_secs(1), "closed after {:?}", t.elapsed());

    // Busy: a stream open and silent for three times the timeout.
    let (mut send, conn) = h2_connection(&server.addr).await;
    let (response, mut jobs) =
        send.clone().ready().await.unwrap().send_request(grpc_request("PerftBatch"), false).unwrap();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!conn.is_finished(), "a connection with a call open was closed");
    list_variants(&mut send).await;
    // The call ends (no jobs): then the connection is idle and closed.
    jobs.send_data(bytes::Bytes::new(), true).unwrap();
    let response = tokio::time::timeout(Duration::from_secs(30), response).await.unwrap().unwrap();
    assert_eq!(response.status(), http::StatusCode::OK);
    let mut body = response.into_body();
    while let Some(data) = body.data().await {
        let _ = body.flow_control().release_capacity(data.map(|d| d.len()).unwrap_or(0));
    }
    let ended = tokio::time::timeout(Duration::from_secs(30), conn).await;
    assert!(ended.is_ok(), "the connection was not closed after its call ended");
}

/// Scrapers left open on the metrics listener are capped too: with 64 idle
/// connections open, the next is closed at once, and the metrics are served
/// again once they close.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_listener_caps_its_connections() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = common::Binary::start(&[], &[]).await;
    let mut idle = Vec::new();
    for _ in 0..64 {
        idle.push(tokio::net::TcpStream::connect(&server.metrics).await.unwrap());
    }
    // Give the server the time to accept them (a hang guard, not a timing).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut over = tokio::net::TcpStream::connect(&server.metrics).await.unwrap();
    let mut buf = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(30), over.read_to_end(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "{read:?}");
    // Closed by the cap, not by the listener's header-read timeout: the
    // idle connections opened before it are still open.
    let mut probe = [0u8; 1];
    let still_open = idle
        .iter()
        .filter(|s| matches!(s.try_read(&mut probe), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock))
        .count();
    assert_eq!(still_open, 64);
    drop(idle);
    let mut served = false;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut s = tokio::net::TcpStream::connect(&server.metrics).await.unwrap();
        s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
        let mut text = String::new();
        let _ = tokio::time::timeout(Duration::from_secs(30), s.read_to_string(&mut text)).await;
        if text.starts_with("HTTP/1.1 200") {
            served = true;
            break;
        }
    }
    assert!(served, "the metrics were not served after the idle connections closed");
}
