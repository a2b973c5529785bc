//! Fairness under hostile load: starts `menagerie-server`, then at once
//! - many clients (each its own loopback address, so its own per-client
//!   limit) keeping short Perft/Analyze streams going, 500 streams in all,
//!   each request retried after RESOURCE_EXHAUSTED until its deadline;
//! - one greedy client opening 50 deep Perft streams;
//! - a steady ValidateMove stream (a game of 200 SAN moves);
//! - a health prober on the health port, from its own thread;
//!
//! and reports: the greedy client's admitted/refused streams, the other
//! clients' success rate, ValidateMove and health latency percentiles, the
//! worst overrun of any call past its deadline, the server's peak RSS, and
//! its CPU use in the second after every client has gone.
//!
//! ```text
//! cargo build --release -p menagerie-analysis-server --bins --examples
//! target/release/examples/fairness --server target/release/menagerie-server --seconds 20 -- --max-jobs 64 --max-jobs-per-client 4
//! ```

use anyhow::Context;
use clap::Parser;
use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::Mutex;
use tonic::Code;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

#[derive(Parser, Debug)]
#[command(about = "Fairness and robustness under hostile load")]
struct Args {
    /// The server binary to start.
    #[arg(long, default_value = "target/release/menagerie-server")]
    server: String,
    /// Port to run it on.
    #[arg(long, default_value_t = 50_151)]
    port: u16,
    /// Seconds of load.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Ordinary clients (each from its own loopback address).
    #[arg(long, default_value_t = 100)]
    clients: usize,
    /// Concurrent streams per ordinary client.
    #[arg(long, default_value_t = 5)]
    streams: usize,
    /// Deep perft streams the greedy client opens.
    #[arg(long, default_value_t = 50)]
    greedy: usize,
    /// Each call's deadline, in milliseconds.
    #[arg(long, default_value_t = 5_000)]
    deadline_ms: u64,
    /// Extra flags for the server.
    #[arg(last = true)]
    server_args: Vec<String>,
}

/// Call outcomes of the ordinary clients.
#[derive(Default)]
struct Tally {
    ok: AtomicU64,
    refused: AtomicU64,
    deadline: AtomicU64,
    other: AtomicU64,
    /// Worst time past its deadline any call took to end, in microseconds.
    overrun_us: AtomicU64,
}

impl Tally {
    fn ended(&self, started: Instant, deadline: Duration) {
        let over = started.elapsed().saturating_sub(deadline).as_micros() as u64;
        self.overrun_us.fetch_max(over, Ordering::Relaxed);
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1e3
}

async fn channel(addr: &str, from: &str) -> anyhow::Result<Channel> {
    let ip = from.parse().context("bad address")?;
    Ok(Endpoint::from_shared(addr.to_string())?.local_address(Some(ip)).connect().await?)
}

/// The server's (user + system CPU seconds, RSS in KiB).
fn server_usage(pid: u32) -> (f64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    let cpu = (ticks(11) + ticks(12)) as f64 / 100.0;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    (cpu, rss)
}

/// One ordinary stream: short perfts and analyses, one after another;
/// each is retried after RESOURCE_EXHAUSTED (as its retry hint says) until
/// its deadline, and counts as served or not once.
async fn ordinary(
    mut client: AnalysisServiceClient<Channel>,
    k: usize,
    end: Instant,
    deadline: Duration,
    tally: Arc<Tally>,
) {
    let fens = ["", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"];
    let mut i = k;
    while Instant::now() < end {
        i += 1;
        let started = Instant::now();
        let outcome = loop {
            let left = deadline.saturating_sub(started.elapsed());
            if left.is_zero() {
                break Err(tonic::Status::deadline_exceeded("gave up retrying"));
            }
            let position = Some(pb::Position { variant: "chess".into(), fen: fens[i % 2].into(), moves: vec![] });
            let t = Instant::now();
            let result = if i % 2 == 0 {
                let req = pb::PerftRequest { position, depth: 3, threads: 1, ..Default::default() };
                let mut req = tonic::Request::new(req);
                req.set_timeout(left);
                match client.perft(req).await {
                    Ok(s) => drain(s.into_inner()).await,
                    Err(s) => Err(s),
                }
            } else {
                let mut req = tonic::Request::new(pb::AnalyzeRequest { position, depth: 4, ..Default::default() });
                req.set_timeout(left);
                match client.analyze(req).await {
                    Ok(s) => drain(s.into_inner()).await,
                    Err(s) => Err(s),
                }
            };
            tally.ended(t, left);
            match result {
                Err(s) if s.code() == Code::ResourceExhausted => {
                    tally.refused.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                r => break r,
            }
        };
        match outcome {
            Ok(()) => tally.ok.fetch_add(1, Ordering::Relaxed),
            Err(s) if s.code() == Code::DeadlineExceeded || s.code() == Code::Cancelled => {
                tally.deadline.fetch_add(1, Ordering::Relaxed)
            }
            Err(_) => tally.other.fetch_add(1, Ordering::Relaxed),
        };
    }
}

async fn drain<T>(mut s: tonic::Streaming<T>) -> Result<(), tonic::Status> {
    while s.message().await?.is_some() {}
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let listen = format!("127.0.0.1:{}", args.port);
    let health_listen = format!("127.0.0.1:{}", args.port + 1);
    let mut server = std::process::Command::new(&args.server)
        .args(["--listen", &listen, "--health-listen", &health_listen, "--log", "warn"])
        .args(&args.server_args)
        .spawn()
        .with_context(|| format!("cannot start {}", args.server))?;
    let pid = server.id();
    let addr = format!("http://{listen}");
    let mut up = false;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if channel(&addr, "127.0.0.1").await.is_ok() {
            up = true;
            break;
        }
    }
    anyhow::ensure!(up, "the server did not come up");
    let deadline = Duration::from_millis(args.deadline_ms);
    let tally = Arc::new(Tally::default());

    // A steady ValidateMove stream: a 200-ply game in SAN, 20 calls a second.
    let game = {
        let mut c = AnalysisServiceClient::new(channel(&addr, "127.0.0.3").await?);
        let mut moves: Vec<String> = Vec::new();
        while moves.len() < 200 {
            let position = Some(pb::Position { variant: "chess".into(), fen: String::new(), moves: moves.clone() });
            let legal = c.legal_moves(pb::LegalMovesRequest { position }).await?.into_inner();
            let Some(m) = legal.moves.get(moves.len() * 7 % legal.moves.len().max(1)) else { break };
            moves.push(m.san.clone());
        }
        moves
    };
    // Connections first, while the server is idle.
    let mut clients = Vec::new();
    for c in 0..args.clients {
        let from = format!("127.0.{}.{}", 1 + c / 250, 1 + c % 250);
        clients.push(AnalysisServiceClient::new(channel(&addr, &from).await?));
    }
    let end = Instant::now() + Duration::from_secs(args.seconds);
    // The greedy client: 50 deep perfts at once, held open.
    let greedy = AnalysisServiceClient::new(channel(&addr, "127.0.0.2").await?);
    let mut held = Vec::new();
    let mut greedy_refused = 0;
    for _ in 0..args.greedy {
        let req = pb::PerftRequest {
            position: Some(pb::Position { variant: "chess".into(), ..Default::default() }),
            depth: 8,
            ..Default::default()
        };
        match greedy.clone().perft(req).await {
            Ok(s) => held.push(s.into_inner()),
            Err(s) if s.code() == Code::ResourceExhausted => greedy_refused += 1,
            Err(s) => anyhow::bail!("greedy perft: {s}"),
        }
    }

    // Ordinary clients.
    let mut tasks = Vec::new();
    for client in clients {
        for k in 0..args.streams {
            tasks.push(tokio::spawn(ordinary(client.clone(), k, end, deadline, tally.clone())));
        }
    }

    let validate_latency = Arc::new(Mutex::new(Vec::new()));
    // The steady ValidateMove client, like the prober, has a thread and
    // runtime of its own: what it measures is the server.
    let validating = {
        let addr = addr.clone();
        let lat = validate_latency.clone();
        let tally = tally.clone();
        std::thread::spawn(move || -> anyhow::Result<u64> {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            rt.block_on(async move {
                let mut c = AnalysisServiceClient::new(channel(&addr, "127.0.0.3").await?);
                let mut errors = 0u64;
                while Instant::now() < end {
                    let (last, before) =
                        game.split_last().map_or((String::new(), Vec::new()), |(l, b)| (l.clone(), b.to_vec()));
                    let position = Some(pb::Position { variant: "chess".into(), fen: String::new(), moves: before });
                    let mut req = tonic::Request::new(pb::ValidateMoveRequest { position, r#move: last });
                    req.set_timeout(deadline);
                    let t = Instant::now();
                    let r = c.validate_move(req).await;
                    tally.ended(t, deadline);
                    match r {
                        Ok(_) => lat.lock().await.push(t.elapsed()),
                        Err(_) => errors += 1,
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Ok(errors)
            })
        })
    };

    // Health probes, as a probe would send them to the health port: from a
    // thread and runtime of their own, so that the 500 streams of this load
    // generator do not delay them here.
    let probing = {
        let health_addr = format!("http://{health_listen}");
        std::thread::spawn(move || -> anyhow::Result<(Vec<Duration>, usize)> {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            rt.block_on(async move {
                let mut health = HealthClient::new(channel(&health_addr, "127.0.0.1").await?);
                let mut latency = Vec::new();
                let mut errors = 0;
                while Instant::now() < end {
                    let t = Instant::now();
                    let mut req =
                        tonic::Request::new(HealthCheckRequest { service: "menagerie.v1.AnalysisService".into() });
                    req.set_timeout(Duration::from_secs(2));
                    match health.check(req).await {
                        Ok(_) => latency.push(t.elapsed()),
                        Err(_) => errors += 1,
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Ok((latency, errors))
            })
        })
    };
    let mut peak_rss = 0;
    while Instant::now() < end {
        peak_rss = peak_rss.max(server_usage(pid).1);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (mut health_latency, health_errors) = probing.join().map_err(|_| anyhow::anyhow!("the prober panicked"))??;
    for t in tasks {
        let _ = t.await;
    }
    let validate_errors = validating.join().map_err(|_| anyhow::anyhow!("the validator panicked"))??;
    // Everyone goes away: the greedy client's streams are dropped.
    let greedy_admitted = held.len();
    drop(held);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (cpu0, _) = server_usage(pid);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (cpu1, rss_after) = server_usage(pid);

    health_latency.sort_unstable();
    let mut vl = validate_latency.lock().await.clone();
    vl.sort_unstable();
    let ok = tally.ok.load(Ordering::Relaxed);
    let refused = tally.refused.load(Ordering::Relaxed);
    let late = tally.deadline.load(Ordering::Relaxed);
    let other = tally.other.load(Ordering::Relaxed);
    let calls = ok + late + other;
    println!(
        "load: {} s, {} clients x {} streams, deadline {} ms",
        args.seconds, args.clients, args.streams, args.deadline_ms
    );
    println!("greedy client: {greedy_admitted} of {} deep perfts admitted, {greedy_refused} refused", args.greedy);
    println!(
        "other clients: {calls} requests, {ok} served ({:.1}%), {late} not served by their deadline, {other} other errors; {refused} refusals retried",
        100.0 * ok as f64 / calls.max(1) as f64
    );
    println!(
        "ValidateMove (200 SAN moves): {} calls, p50 {:.1} ms, p99 {:.1} ms, {validate_errors} errors",
        vl.len(),
        percentile(&vl, 0.5),
        percentile(&vl, 0.99)
    );
    println!(
        "health: {} probes, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, {health_errors} errors",
        health_latency.len(),
        percentile(&health_latency, 0.5),
        percentile(&health_latency, 0.99),
        percentile(&health_latency, 1.0)
    );
    println!("worst call end past its deadline: {:.1} ms", tally.overrun_us.load(Ordering::Relaxed) as f64 / 1e3);
    println!(
        "server: peak RSS {} MiB (after: {} MiB), CPU in the second after the clients left: {:.2} s",
        peak_rss / 1024,
        rss_after / 1024,
        cpu1 - cpu0
    );
    let _ = server.kill();
    let _ = server.wait();
    Ok(())
}
