//! Commands run on `menagerie-server` replicas over gRPC.

use crate::{Command, PositionArgs, fanout};
use anyhow::{Context, Result, anyhow, bail};
use menagerie_api::pb::{self, analysis_client::AnalysisClient};
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;
use tonic::transport::{Channel, Endpoint};

/// Runs a command remotely.
///
/// SIGINT or SIGTERM ends the run at once, whatever the signal dispositions
/// inherited from the parent: the calls in flight are cancelled (their
/// servers stop the work), finished jobs are already in the results file, and
/// the exit code is 130 (SIGINT) or 143 (SIGTERM).
pub fn run(urls: &[String], command: Command) -> Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async {
        let interrupted = interrupted()?;
        tokio::select! {
            r = run_async(urls, command) => r,
            (name, code) = interrupted => {
                eprintln!("menagerie: interrupted by {name}; jobs finished so far are in the results file (if any): rerun with the same --results to resume");
                Ok(ExitCode::from(code))
            }
        }
    })
}

/// A future resolving to the signal's name and the exit code to use; the
/// handlers are installed now.
#[cfg(unix)]
fn interrupted() -> Result<impl std::future::Future<Output = (&'static str, u8)>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => ("SIGINT", 130),
            _ = term.recv() => ("SIGTERM", 143),
        }
    })
}

/// A future resolving on Ctrl-C.
#[cfg(not(unix))]
fn interrupted() -> Result<impl std::future::Future<Output = (&'static str, u8)>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
        ("Ctrl-C", 130)
    })
}

/// A replica: its display name and endpoint.
#[derive(Clone, Debug)]
pub(crate) struct Replica {
    pub name: String,
    pub endpoint: Endpoint,
}

/// The replicas named by `urls`: one per URL, or one per address when a
/// host name resolves to several addresses of one family (a headless
/// Kubernetes Service).
pub(crate) async fn replicas(urls: &[String]) -> Result<Vec<Replica>> {
    let mut out = Vec::new();
    for url in urls.iter().map(|u| u.trim()).filter(|u| !u.is_empty()) {
        let url = if url.contains("://") { url.to_string() } else { format!("http://{url}") };
        let uri: tonic::transport::Uri = url.parse().with_context(|| format!("bad --remote URL '{url}'"))?;
        let host = uri.host().ok_or_else(|| anyhow!("--remote URL '{url}' has no host"))?.to_string();
        let port = uri.port_u16().unwrap_or(50051);
        let scheme = uri.scheme_str().unwrap_or("http").to_string();
        let mut addrs: Vec<std::net::SocketAddr> = match tokio::net::lookup_host((host.as_str(), port)).await {
            Ok(a) => a.collect(),
            Err(_) => Vec::new(),
        };
        let v4: Vec<_> = addrs.iter().copied().filter(|a| a.is_ipv4()).collect();
        if !v4.is_empty() {
            addrs = v4;
        }
        addrs.sort();
        addrs.dedup();
        let parsed_ip = host.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok();
        if addrs.len() > 1 && !parsed_ip {
            for a in addrs {
                let u = format!("{scheme}://{a}");
                out.push(Replica { name: u.clone(), endpoint: endpoint(&u)? });
            }
        } else {
            out.push(Replica { name: url.clone(), endpoint: endpoint(&url)? });
        }
    }
    if out.is_empty() {
        bail!("--remote needs at least one URL");
    }
    Ok(out)
}

fn endpoint(url: &str) -> Result<Endpoint> {
    Ok(Endpoint::from_shared(url.to_string())?
        .connect_timeout(Duration::from_secs(3))
        .tcp_nodelay(true)
        .http2_keep_alive_interval(Duration::from_secs(20))
        .keep_alive_while_idle(true))
}

/// One client balanced over all replicas (for single requests).
async fn client(urls: &[String]) -> Result<AnalysisClient<Channel>> {
    let reps = replicas(urls).await?;
    let channel = if reps.len() == 1 {
        reps[0].endpoint.connect().await.with_context(|| format!("cannot reach {}", reps[0].name))?
    } else {
        Channel::balance_list(reps.into_iter().map(|r| r.endpoint))
    };
    Ok(AnalysisClient::new(channel).max_decoding_message_size(64 << 20))
}

/// A gRPC status as a one-line error naming the offending field.
pub(crate) fn status_error(s: tonic::Status) -> anyhow::Error {
    let mut msg = format!("server: {:?}: {}", s.code(), s.message());
    if s.code() == tonic::Code::Unavailable && s.message().is_empty() {
        msg.push_str("server unavailable");
    }
    anyhow!(msg)
}

pub(crate) fn position_pb(p: &PositionArgs) -> pb::Position {
    pb::Position { variant: p.variant.clone(), fen: p.fen.clone().unwrap_or_default(), moves: p.move_list() }
}

fn score_text(s: &Option<pb::Score>) -> String {
    match s.as_ref().and_then(|s| s.value) {
        Some(pb::score::Value::Cp(c)) => format!("cp {c}"),
        Some(pb::score::Value::Mate(m)) => format!("mate {m}"),
        None => "cp 0".into(),
    }
}

async fn run_async(urls: &[String], command: Command) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match command {
        Command::Perft { pos, threads, hash, split_depth: Some(k), fanout: f, depth } => {
            let _ = hash;
            let total = fanout::perft_split(urls, &pos, depth, k, threads, &f).await?;
            writeln!(out, "{total}")?;
        }
        Command::Perft { pos, threads, hash, depth, .. } => {
            let mut c = client(urls).await?;
            let req = pb::PerftRequest {
                position: Some(position_pb(&pos)),
                depth,
                threads: threads as u32,
                hash_mb: hash as u32,
            };
            let mut stream = c.perft(req).await.map_err(status_error)?.into_inner();
            while let Some(ev) = stream.message().await.map_err(status_error)? {
                match ev.event {
                    Some(pb::perft_event::Event::Progress(p)) => {
                        eprintln!("progress {}/{} moves, {} nodes, {} nps", p.moves_done, p.moves_total, p.nodes, p.nps)
                    }
                    Some(pb::perft_event::Event::Total(t)) => {
                        eprintln!("depth {depth} nodes {} time {:.3}s nps {}", t.nodes, t.elapsed_seconds, t.nps);
                        writeln!(out, "{}", t.nodes)?;
                    }
                    _ => {}
                }
            }
        }
        Command::Divide { pos, threads, depth } => {
            let mut c = client(urls).await?;
            let req =
                pb::PerftRequest { position: Some(position_pb(&pos)), depth, threads: threads as u32, hash_mb: 0 };
            let mut stream = c.perft(req).await.map_err(status_error)?.into_inner();
            while let Some(ev) = stream.message().await.map_err(status_error)? {
                match ev.event {
                    Some(pb::perft_event::Event::Divide(d)) => writeln!(out, "{}: {}", d.r#move, d.nodes)?,
                    Some(pb::perft_event::Event::Total(t)) => {
                        writeln!(out)?;
                        writeln!(out, "{}", t.nodes)?;
                    }
                    _ => {}
                }
            }
        }
        Command::Moves { pos, san, fens } => {
            let mut c = client(urls).await?;
            let r = c
                .legal_moves(pb::LegalMovesRequest { position: Some(position_pb(&pos)) })
                .await
                .map_err(status_error)?
                .into_inner();
            for m in r.moves {
                let mut line = m.uci;
                if san {
                    line = format!("{line} {}", m.san);
                }
                if fens {
                    line = format!("{line} {}", m.fen);
                }
                writeln!(out, "{line}")?;
            }
        }
        Command::Validate { pos, mv } => {
            let mut c = client(urls).await?;
            let r = c
                .validate_move(pb::ValidateMoveRequest { position: Some(position_pb(&pos)), r#move: mv })
                .await
                .map_err(status_error)?
                .into_inner();
            if r.legal {
                writeln!(out, "legal")?;
                writeln!(out, "move: {}", r.uci)?;
                writeln!(out, "san: {}", r.san)?;
                writeln!(out, "fen: {}", r.fen)?;
                if let Some(o) = r.outcome {
                    writeln!(out, "outcome: {}", o.description)?;
                }
            } else {
                writeln!(out, "illegal")?;
                return Err(anyhow!(r.reason));
            }
        }
        Command::Analyze { pos, depth, nodes, movetime, multipv, threads } => {
            let mut c = client(urls).await?;
            let req = pb::AnalyzeRequest {
                position: Some(position_pb(&pos)),
                depth: depth.unwrap_or(0),
                nodes: nodes.unwrap_or(0),
                movetime_ms: movetime.unwrap_or(0) as u32,
                multipv,
                threads,
            };
            let mut stream = c.analyze(req).await.map_err(status_error)?.into_inner();
            while let Some(ev) = stream.message().await.map_err(status_error)? {
                match ev.event {
                    Some(pb::analyze_event::Event::Info(i)) => {
                        for l in i.lines {
                            writeln!(
                                out,
                                "info depth {} seldepth {} multipv {} score {} nodes {} nps {} time {} pv {}",
                                i.depth,
                                i.seldepth,
                                l.multipv,
                                score_text(&l.score),
                                i.nodes,
                                i.nps,
                                i.time_ms,
                                l.pv_san.join(" ")
                            )?;
                        }
                    }
                    Some(pb::analyze_event::Event::BestMove(b)) => {
                        if b.best_move.is_empty() {
                            writeln!(out, "bestmove (none)")?;
                        } else {
                            writeln!(out, "bestmove {} ({})", b.best_move, b.best_move_san)?;
                        }
                    }
                    None => {}
                }
            }
        }
        Command::Epd { file, variant, max_depth, threads, fanout: f } => {
            drop(out);
            return fanout::epd(urls, &file, &variant, max_depth, threads, &f).await;
        }
    }
    Ok(ExitCode::SUCCESS)
}
