#![allow(clippy::unwrap_used)]
//! The connection layer under heavy and hostile clients, against the real
//! `menagerie-server` binary.

use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use std::io::{BufRead, BufReader};
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
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie-server"))
        .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().expect("the server exited before listening").unwrap();
        if let Some(rest) = line.split("\"addr\":\"").nth(1) {
            break rest.split('"').next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if std::env::var_os("SHOW_LOG").is_some() {
                eprintln!("{line}");
            }
        }
    });
    Server { child, addr }
}

async fn client(addr: &str) -> AnalysisServiceClient<Channel> {
    let channel = Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap();
    AnalysisServiceClient::new(channel)
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
