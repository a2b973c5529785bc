//! Load generator for menagerie-server: many concurrent tonic clients calling
//! ValidateMove, then LegalMoves, each for a fixed time; reports requests
//! per second and latency percentiles per RPC; or (`--batch-jobs N`) one
//! PerftBatch stream of N small jobs.
//!
//! ```text
//! cargo build --release -p menagerie-analysis-server --bins --examples
//! target/release/menagerie-server --listen 127.0.0.1:50051 &
//! target/release/examples/load --addr http://127.0.0.1:50051 --seconds 10 --tasks 64
//! ```

use anyhow::Context;
use clap::Parser;
use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use std::time::{Duration, Instant};
use tonic::transport::{Channel, Endpoint};

#[derive(Parser, Debug)]
#[command(about = "Load generator for menagerie-server")]
struct Args {
    /// Server address.
    #[arg(long, default_value = "http://127.0.0.1:50051")]
    addr: String,
    /// Seconds per RPC.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Concurrent client tasks.
    #[arg(long, default_value_t = 64)]
    tasks: usize,
    /// HTTP/2 connections shared by the tasks (round robin).
    #[arg(long, default_value_t = 1)]
    connections: usize,
    /// Instead: one PerftBatch stream of this many small jobs (depth 1),
    /// pipelined; reports jobs per second and checks every result.
    #[arg(long, default_value_t = 0)]
    batch_jobs: usize,
}

/// One PerftBatch stream of `n` depth-1 jobs sent as fast as flow control allows.
async fn batch(channel: Channel, n: usize) -> anyhow::Result<()> {
    let jobs = (0..n).map(|i| pb::PerftBatchRequest {
        id: i.to_string(),
        position: Some(pb::Position { variant: "chess".into(), ..Default::default() }),
        expected: vec![pb::DepthCount { depth: 1, nodes: 20 }],
        ..Default::default()
    });
    let t0 = Instant::now();
    let mut results = AnalysisServiceClient::new(channel).perft_batch(tokio_stream::iter(jobs)).await?.into_inner();
    let mut passed = 0usize;
    let mut received = 0usize;
    while let Some(r) = results.message().await? {
        anyhow::ensure!(r.id == received.to_string(), "result {} out of order: {}", received, r.id);
        received += 1;
        passed += usize::from(r.pass);
    }
    let s = t0.elapsed().as_secs_f64();
    println!("PerftBatch: {received} of {n} results, {passed} passed, {s:.1} s, {:.0} jobs/s", received as f64 / s);
    anyhow::ensure!(received == n && passed == n, "not every job passed");
    Ok(())
}

/// A spread of positions: start, middlegame, fairy.
fn positions() -> Vec<(pb::Position, &'static str)> {
    let p = |variant: &str, fen: &str, moves: &[&str]| pb::Position {
        variant: variant.into(),
        fen: fen.into(),
        moves: moves.iter().map(|m| m.to_string()).collect(),
    };
    vec![
        (p("chess", "", &[]), "Nf3"),
        (p("chess", "", &["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]), "Ba4"),
        (p("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", &[]), "e1g1"),
        (p("camel-rhino", "", &["e4e5"]), "e7e6"),
        (p("alpaca", "", &["accept"]), "A@b"),
    ]
}

#[derive(Clone, Copy, Debug)]
enum Rpc {
    ValidateMove,
    LegalMoves,
}

struct Report {
    ok: usize,
    errors: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

async fn run(rpc: Rpc, channels: &[Channel], tasks: usize, seconds: u64) -> Report {
    let end = Instant::now() + Duration::from_secs(seconds);
    let t0 = Instant::now();
    let mut handles = Vec::with_capacity(tasks);
    for t in 0..tasks {
        let mut client = AnalysisServiceClient::new(channels[t % channels.len()].clone());
        let cases = positions();
        handles.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0usize;
            let mut i = t;
            while Instant::now() < end {
                let (position, mv) = cases[i % cases.len()].clone();
                i += 1;
                let start = Instant::now();
                let ok = match rpc {
                    Rpc::ValidateMove => client
                        .validate_move(pb::ValidateMoveRequest { position: Some(position), r#move: mv.into() })
                        .await
                        .is_ok_and(|r| r.get_ref().legal),
                    Rpc::LegalMoves => client
                        .legal_moves(pb::LegalMovesRequest { position: Some(position) })
                        .await
                        .is_ok_and(|r| !r.get_ref().moves.is_empty()),
                };
                if ok {
                    latencies.push(start.elapsed());
                } else {
                    errors += 1;
                }
            }
            (latencies, errors)
        }));
    }
    let mut latencies = Vec::new();
    let mut errors = 0;
    for h in handles {
        if let Ok((l, e)) = h.await {
            latencies.extend(l);
            errors += e;
        }
    }
    let elapsed = t0.elapsed();
    latencies.sort_unstable();
    Report { ok: latencies.len(), errors, elapsed, latencies }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut channels = Vec::new();
    for _ in 0..args.connections.max(1) {
        let endpoint = Endpoint::from_shared(args.addr.clone()).context("bad --addr")?;
        channels.push(endpoint.connect().await.with_context(|| format!("cannot connect to {}", args.addr))?);
    }
    if args.batch_jobs > 0 {
        return batch(channels[0].clone(), args.batch_jobs).await;
    }
    println!(
        "{} tasks, {} connection(s), {} s per RPC, against {}",
        args.tasks,
        channels.len(),
        args.seconds,
        args.addr
    );
    println!(
        "{:<13} {:>10} {:>7} {:>11} {:>9} {:>9} {:>9}",
        "rpc", "requests", "errors", "req/s", "p50 ms", "p99 ms", "max ms"
    );
    for rpc in [Rpc::ValidateMove, Rpc::LegalMoves] {
        let r = run(rpc, &channels, args.tasks, args.seconds).await;
        println!(
            "{:<13} {:>10} {:>7} {:>11.0} {:>9.3} {:>9.3} {:>9.3}",
            format!("{rpc:?}"),
            r.ok,
            r.errors,
            r.ok as f64 / r.elapsed.as_secs_f64(),
            ms(percentile(&r.latencies, 0.50)),
            ms(percentile(&r.latencies, 0.99)),
            ms(r.latencies.last().copied().unwrap_or_default()),
        );
    }
    Ok(())
}
