//! Work split over many `menagerie-server` replicas: a deep perft split
//! into subtrees after the first plies, an EPD suite split into (line,
//! depth) jobs. Jobs are idempotent, so a job that fails or times out on one
//! replica is simply run again, usually on another. Finished jobs are
//! appended to a JSON-lines results file, so an interrupted run resumes
//! without redoing them.

use crate::remote::{Client, Remote, Replica, replicas};
use crate::report;
use crate::results::{Done, Results};
use crate::ui::{self, Progress};
use crate::{FanoutArgs, PositionArgs};
use anyhow::{Result, anyhow, bail};
use menagerie_api::pb;
use menagerie_app::epd::{self, DepthOutcome, LineCheck, LineResult, Tally};
use menagerie_notation::fen;
use menagerie_variants::AnyPosition;
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{Mutex, Notify, mpsc};

/// One unit of remote work: perft of a position to one depth.
#[derive(Clone, Debug)]
pub(crate) struct Job {
    /// Stable id (the same on every run, for resuming).
    pub id: String,
    pub position: pb::Position,
    pub depth: u32,
    /// Expected count (0: unknown, just count).
    pub expected: u64,
    /// Size estimate for the progress bar.
    pub weight: u64,
    /// Perft threads on the server (0: its maximum).
    pub threads: u32,
}

/// A job waiting to run, with its failed attempts so far and the replicas
/// (by index) it failed on in the current round.
struct Pending {
    job: Job,
    tries: u32,
    failed_on: Vec<usize>,
}

struct Queue {
    jobs: Mutex<VecDeque<Pending>>,
    outstanding: AtomicUsize,
    wake: Notify,
}

/// Errors that say the job itself is bad (no point retrying elsewhere).
fn permanent(code: &str) -> bool {
    matches!(code, "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "OUT_OF_RANGE")
}

async fn run_one(
    client: &mut Client,
    job: &Job,
    timeout: Option<Duration>,
) -> Result<pb::PerftBatchResponse, tonic::Status> {
    let req = pb::PerftBatchRequest {
        id: job.id.clone(),
        position: Some(job.position.clone()),
        expected: vec![pb::DepthCount { depth: job.depth, nodes: job.expected }],
        threads: job.threads,
        ..Default::default()
    };
    let mut request = tonic::Request::new(tokio_stream::once(req));
    if let Some(t) = timeout {
        request.set_timeout(t);
    }
    let mut stream = client.perft_batch(request).await?.into_inner();
    match stream.message().await? {
        Some(r) => Ok(r),
        None => Err(tonic::Status::unavailable("stream ended without a result")),
    }
}

/// Runs `jobs` over the replicas as [`run_jobs`] does, appending each
/// result to `results` (its file at once, its table at the end) and handing
/// it to `each` as it arrives.
async fn run_recorded(
    reps: Vec<Replica>,
    jobs: Vec<Job>,
    args: &FanoutArgs,
    bar: Progress,
    results: &mut Results,
    mut each: impl FnMut(&Done) -> Result<()>,
) -> Result<()> {
    let mut fresh = Vec::new();
    run_jobs(reps, jobs, args, bar.clone(), |d| {
        results.record(&d);
        each(&d)?;
        fresh.push(d);
        Ok(())
    })
    .await?;
    bar.finish();
    for d in fresh {
        results.done.insert(d.id.clone(), d);
    }
    Ok(())
}

/// Runs `jobs` over the replicas; `done` receives each finished job.
async fn run_jobs(
    reps: Vec<Replica>,
    jobs: Vec<Job>,
    args: &FanoutArgs,
    bar: Progress,
    mut done: impl FnMut(Done) -> Result<()>,
) -> Result<()> {
    if jobs.is_empty() {
        return Ok(());
    }
    let total = jobs.len();
    let queue = Arc::new(Queue {
        outstanding: AtomicUsize::new(total),
        jobs: Mutex::new(jobs.into_iter().map(|job| Pending { job, tries: 0, failed_on: Vec::new() }).collect()),
        wake: Notify::new(),
    });
    let (tx, mut rx) = mpsc::channel::<Done>(256);
    let timeout = (args.job_timeout > 0).then(|| Duration::from_secs(args.job_timeout));
    let attempts = args.attempts.max(1);
    let per_replica = args.jobs_per_replica.max(1);
    let n_reps = reps.len();
    let mut tasks = Vec::new();
    for (ri, rep) in reps.into_iter().enumerate() {
        for _ in 0..per_replica {
            let queue = queue.clone();
            let tx = tx.clone();
            let rep = rep.clone();
            let bar = bar.clone();
            tasks.push(tokio::spawn(async move {
                let mut client: Option<Client> = None;
                let mut failures = 0u32;
                loop {
                    if queue.outstanding.load(Ordering::Acquire) == 0 {
                        return;
                    }
                    // Back off *before* taking work: a failing replica must not
                    // hold a job that a healthy one could run meanwhile.
                    if failures > 0 {
                        tokio::time::sleep(Duration::from_millis((200 * failures as u64).min(3000))).await;
                    }
                    // The first job that has not failed on this replica in the
                    // current round: a dead replica costs each job at most one
                    // attempt per round instead of all of them.
                    let next = {
                        let mut q = queue.jobs.lock().await;
                        q.iter().position(|p| !p.failed_on.contains(&ri)).and_then(|i| q.remove(i))
                    };
                    let Some(Pending { job, tries, mut failed_on }) = next else {
                        // Others may still fail and hand work back.
                        tokio::select! {
                            _ = queue.wake.notified() => {}
                            _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                        }
                        continue;
                    };
                    let connected = match client.take() {
                        Some(c) => Ok(c),
                        None => rep.connect_or_status().await,
                    };
                    let t0 = Instant::now();
                    let outcome = match connected {
                        Ok(mut c) => {
                            let r = run_one(&mut c, &job, timeout).await;
                            client = Some(c);
                            r
                        }
                        Err(s) => Err(s),
                    };
                    let result = match outcome {
                        Ok(r) if r.error.is_empty() => {
                            failures = 0;
                            let d = r.depths.first().cloned().unwrap_or_default();
                            Some(Done {
                                id: job.id.clone(),
                                depth: job.depth,
                                expected: job.expected,
                                actual: d.actual,
                                // Nothing checked is not a pass.
                                pass: d.pass && !r.skipped && !r.depths.is_empty(),
                                seconds: t0.elapsed().as_secs_f64(),
                                replica: rep.name.clone(),
                                error: String::new(),
                                skipped: r.skipped || r.depths.is_empty(),
                            })
                        }
                        Ok(r) if permanent(&r.error_code) => Some(Done {
                            id: job.id.clone(),
                            depth: job.depth,
                            expected: job.expected,
                            actual: 0,
                            pass: false,
                            seconds: t0.elapsed().as_secs_f64(),
                            replica: rep.name.clone(),
                            error: r.error,
                            skipped: false,
                        }),
                        // A busy replica is not a failed attempt: hand the job
                        // back and slow down.
                        Err(s) if s.code() == tonic::Code::ResourceExhausted => {
                            failures = failures.saturating_add(1).min(5);
                            queue.jobs.lock().await.push_front(Pending { job, tries, failed_on });
                            queue.wake.notify_waiters();
                            None
                        }
                        other => {
                            let why = match other {
                                Ok(r) => r.error,
                                Err(s) => crate::remote::status_text(&s),
                            };
                            failures += 1;
                            client = None;
                            if tries + 1 >= attempts {
                                bar.suspend(|| {
                                    eprintln!("job {} failed {} times, last on {}: {why}", job.id, tries + 1, rep.name)
                                });
                                Some(Done {
                                    id: job.id.clone(),
                                    depth: job.depth,
                                    expected: job.expected,
                                    actual: 0,
                                    pass: false,
                                    seconds: 0.0,
                                    replica: rep.name.clone(),
                                    error: format!("gave up after {} attempts: {why}", tries + 1),
                                    skipped: false,
                                })
                            } else {
                                bar.suspend(|| eprintln!("job {} on {}: {why}; retrying", job.id, rep.name));
                                failed_on.push(ri);
                                if failed_on.len() >= n_reps {
                                    // Failed on every replica: a new round.
                                    failed_on.clear();
                                }
                                queue.jobs.lock().await.push_back(Pending { job, tries: tries + 1, failed_on });
                                queue.wake.notify_waiters();
                                None
                            }
                        }
                    };
                    if let Some(d) = result {
                        queue.outstanding.fetch_sub(1, Ordering::AcqRel);
                        queue.wake.notify_waiters();
                        if tx.send(d).await.is_err() {
                            return;
                        }
                    }
                }
            }));
        }
    }
    drop(tx);
    let mut received = 0;
    let mut failed = Ok(());
    while received < total {
        let Some(d) = rx.recv().await else { break };
        received += 1;
        bar.add_nodes(d.actual);
        bar.job_done(d.expected);
        if let Err(e) = done(d) {
            failed = Err(e);
            break;
        }
    }
    // Every job has its result: workers still backing off or waiting on an
    // unreachable replica have nothing left to do.
    for t in tasks {
        t.abort();
        let _ = t.await;
    }
    failed
}

/// Verifies an EPD suite on the replicas, one job per (line, depth).
pub(crate) async fn epd(
    remote: &Remote,
    file: &Path,
    default_variant: &str,
    max_depth: Option<u32>,
    threads: usize,
    args: &FanoutArgs,
) -> Result<ExitCode> {
    let default = crate::local::catalogue().find(default_variant)?;
    let suite = crate::local::read_suite(file, &default)?;
    let max = max_depth.unwrap_or(crate::MAX_DEPTH);
    let mut results = Results::open(args.results.as_deref())?;
    let mut jobs = Vec::new();
    for l in &suite {
        for (d, n) in l.depths(max) {
            jobs.push(Job {
                id: epd::job_id(l.epd.line, d),
                position: pb::Position { variant: l.variant.name().into(), fen: l.epd.fen.clone(), moves: Vec::new() },
                depth: d,
                expected: n,
                weight: n,
                threads: threads as u32,
            });
        }
    }
    // A stored result counts only for the same depth and expected count:
    // a results file left by another version of the suite is not trusted.
    let json = ui::json();
    let mut out = std::io::stdout().lock();
    let mut todo = Vec::new();
    for j in &jobs {
        match results.finished(&j.id, j.depth, j.expected) {
            Some(d) if json => ui::emit(&mut out, &d.to_json(true))?,
            Some(_) => {}
            None => todo.push(j.clone()),
        }
    }
    let already = jobs.len() - todo.len();
    if already > 0 {
        eprintln!("resuming: {already} of {} jobs already done", jobs.len());
    }
    let reps = replicas(remote).await?;
    eprintln!("{} jobs over {} replica(s)", todo.len(), reps.len());
    let total_weight: u64 = todo.iter().map(|j| j.weight.max(1)).sum();
    let progress = Progress::jobs(todo.len() as u64, total_weight);
    let bar = progress.clone();
    run_recorded(reps, todo, args, progress, &mut results, |d| {
        if json {
            bar.suspend(|| ui::emit(&mut out, &d.to_json(false)))?;
        }
        Ok(())
    })
    .await?;
    // Per line, from its jobs' results. A line with no job to send still
    // has its FEN checked here, as a local run would: a bad FEN fails the
    // line whatever its depths. With no depth checked (none at most
    // --max-depth, or every job skipped by the server) a line is skipped,
    // never passed.
    let mut tally = Tally::default();
    for l in &suite {
        let (line, fen) = (l.epd.line, &l.epd.fen);
        let mut check = LineCheck::default();
        if l.depths(max).next().is_none()
            && let Err(e) = &l.position
        {
            check.bad_fen(e);
        }
        for (d, want) in l.depths(max) {
            // The server takes an expected count of 0 as "unknown, just
            // count", but a suite line's `;D1 0` means zero: the check compares.
            let outcome = match results.done.get(&epd::job_id(line, d)) {
                None => DepthOutcome::NotRun,
                Some(done) if !done.error.is_empty() => DepthOutcome::Error(done.error.clone()),
                Some(done) if done.skipped => DepthOutcome::Skipped,
                Some(done) => DepthOutcome::Counted { actual: done.actual, pass: done.pass },
            };
            check.depth(d, want, outcome);
        }
        let verdict = check.verdict(&l.epd.depths, max);
        if !json {
            match &verdict {
                LineResult::Failed(why) => writeln!(out, "line {line}: {}  ({fen})", why.join("; "))?,
                LineResult::Skipped(reason) => writeln!(out, "line {line}: skipped: {reason}  ({fen})")?,
                LineResult::Passed => {}
            }
        }
        tally.add(&verdict);
        if json {
            ui::emit(&mut out, &report::line_json(&verdict, line, fen))?;
        }
    }
    report::epd_summary(&mut out, tally, max)
}

/// The distinct positions `plies` moves after `root`, in first-reached
/// order, each with the number of move sequences that reach it (positions
/// with the same `key` are one).
fn split_by<P>(root: P, plies: u32, children: impl Fn(&P) -> Vec<P>, key: impl Fn(&P) -> String) -> Vec<(P, u64)> {
    let mut layer: Vec<(P, u64)> = vec![(root, 1)];
    for _ in 0..plies {
        let mut next: HashMap<String, (P, u64)> = HashMap::new();
        let mut order: Vec<String> = Vec::new();
        for (p, n) in layer {
            for c in children(&p) {
                let k = key(&c);
                match next.get_mut(&k) {
                    Some(e) => e.1 += n,
                    None => {
                        order.push(k.clone());
                        next.insert(k, (c, n));
                    }
                }
            }
        }
        layer = order.into_iter().filter_map(|k| next.remove(&k)).collect();
    }
    layer
}

/// [`split_by`] for a compiled game: positions equal but for their move
/// counters are one (perft does not depend on them).
fn split(root: &AnyPosition, plies: u32) -> Vec<(AnyPosition, u64)> {
    let children = |p: &AnyPosition| p.legal_moves().iter().map(|&m| p.play_unchecked(m)).collect();
    split_by(*root, plies, children, position_key)
}

/// The FEN without its move counters: perft does not depend on them.
fn position_key(p: &AnyPosition) -> String {
    fen::format(p).split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// A stable 64-bit FNV-1a hash of `text` (job ids of data variants' subtrees).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The subtrees of the position `pos` names after `k` plies, as (FEN, key
/// for the job id, multiplicity): a compiled game's split merges positions
/// that differ only in their move counters; a game defined as data keeps
/// its whole FEN (its counters may count: check counts, n-move rules).
fn subtrees(pos: &PositionArgs, k: u32) -> Result<Vec<(String, u64, u64)>> {
    if crate::local::is_data(&pos.variant) {
        let game = crate::local::game(pos)?;
        let root = game.current().data().cloned().ok_or_else(|| anyhow!("{} is not defined as data", pos.variant))?;
        let children = |p: &menagerie_app::DataPosition| p.legal_moves().into_iter().map(|m| p.play(m)).collect();
        let parts = split_by(root, k, children, |p| p.fen());
        return Ok(parts.into_iter().map(|(p, n)| (p.fen(), fnv1a(&p.fen()), n)).collect());
    }
    let root = crate::local::position(pos)?;
    Ok(split(&root, k).into_iter().map(|(p, n)| (fen::format(&p), p.hash(), n)).collect())
}

/// Perft of `depth`, split after `k` plies and fanned out over the replicas.
pub(crate) async fn perft_split(
    remote: &Remote,
    pos: &PositionArgs,
    depth: u32,
    k: u32,
    threads: usize,
    args: &FanoutArgs,
) -> Result<u64> {
    crate::local::check_depth(depth)?;
    if k == 0 || k >= depth {
        bail!("--split-depth must be between 1 and depth - 1");
    }
    let parts = subtrees(pos, k)?;
    let variant = pos.variant.clone();
    let mut results = Results::open(args.results.as_deref())?;
    let mut jobs = Vec::new();
    let mut weight: HashMap<String, u64> = HashMap::new();
    let mut seen = HashSet::new();
    for (fen, hash, mult) in &parts {
        let id = format!("{hash:016x}-d{}", depth - k);
        if !seen.insert(id.clone()) {
            // Distinct keys never share a hash in practice; if they did, keep both counts.
            *weight.entry(id.clone()).or_default() += mult;
            continue;
        }
        weight.insert(id.clone(), *mult);
        jobs.push(Job {
            id,
            position: pb::Position { variant: variant.clone(), fen: fen.clone(), moves: Vec::new() },
            depth: depth - k,
            expected: 0,
            weight: 1,
            threads: threads as u32,
        });
    }
    let todo: Vec<Job> = jobs.iter().filter(|j| !results.done.contains_key(&j.id)).cloned().collect();
    if todo.len() < jobs.len() {
        eprintln!("resuming: {} of {} subtrees already done", jobs.len() - todo.len(), jobs.len());
    }
    let reps = replicas(remote).await?;
    eprintln!(
        "{} subtrees ({} move sequences) over {} replica(s)",
        jobs.len(),
        parts.iter().map(|p| p.2).sum::<u64>(),
        reps.len()
    );
    let progress = Progress::units(todo.len() as u64, "subtrees");
    run_recorded(reps, todo, args, progress, &mut results, |_| Ok(())).await?;
    let mut total = 0u64;
    for j in &jobs {
        let d = results.done.get(&j.id).ok_or_else(|| anyhow!("subtree {} was not computed", j.id))?;
        if !d.error.is_empty() {
            bail!("subtree {} failed: {}", j.id, d.error);
        }
        if d.skipped {
            bail!("subtree {} was skipped by the server: nothing was counted", j.id);
        }
        total += d.actual * weight[&j.id];
    }
    Ok(total)
}
