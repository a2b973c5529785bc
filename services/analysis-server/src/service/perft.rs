//! The Perft and PerftBatch RPCs: their limits, streams and batch jobs
//! around the one count of `menagerie_app::perft`.

use super::{AnalysisApi, Defer, JobStream, client_of};
use crate::error::ServiceError;
use crate::jobs::{self, Ticket, Watch};
use menagerie_api::pb;
use menagerie_app::perft::{Perft, PerftHalt};
use menagerie_app::{GamePosition, epd};
use menagerie_variants::{PerftControl, PerftTable};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tonic::{Request, Response, Status, Streaming};

/// What a Perft stream counts: depth, threads and table size.
#[derive(Clone, Copy)]
struct PerftStreamJob {
    depth: u32,
    threads: usize,
    hash_mb: usize,
}

/// The server's caps on one perft run.
#[derive(Clone, Copy)]
struct PerftCaps {
    nodes: u64,
    time: Duration,
}

impl PerftCaps {
    /// The cap a run that started at `t0` and has counted `nodes` is over, if any.
    fn exceeded(&self, nodes: u64, t0: Instant) -> Option<ServiceError> {
        if nodes > self.nodes {
            Some(ServiceError::LimitReached { what: "nodes", max: self.nodes })
        } else if t0.elapsed() > self.time {
            Some(ServiceError::LimitReached { what: "ms", max: self.time.as_millis() as u64 })
        } else {
            None
        }
    }
}

impl AnalysisApi {
    /// Perft: a divide event per root move, progress events, then the total.
    pub(super) async fn perft_rpc(
        &self,
        req: Request<pb::PerftRequest>,
    ) -> Result<Response<JobStream<pb::PerftResponse>>, Status> {
        let r = req.get_ref();
        // The position first (its errors before the limits').
        let perft = self.perft_subject(r.position.as_ref())?;
        self.check_perft_depth(r.depth, "depth")?;
        let threads = self.perft_threads(r.threads)?;
        if r.hash_mb > self.config.max_perft_hash_mb {
            return Err(ServiceError::OutOfRange {
                field: "hash_mb".into(),
                value: r.hash_mb as u64,
                max: self.config.max_perft_hash_mb as u64,
            }
            .into());
        }
        if r.hash_mb > 0 && matches!(perft.position(), GamePosition::Data(_)) {
            return Err(ServiceError::BadField {
                field: "hash_mb".into(),
                message: "a perft table is not available for variants defined as data: give 0".into(),
            }
            .into());
        }
        let ticket = self.jobs.admit(&client_of(&req), jobs::deadline_of(&req)).await?;
        let watch = self.watch(&ticket, &req);
        let job = PerftStreamJob { depth: r.depth, threads, hash_mb: r.hash_mb as usize };
        let variant = perft.position().variant_name().to_string();
        let span = tracing::info_span!("perft", variant = %variant, depth = job.depth, threads = job.threads);
        Ok(Response::new(self.perft_stream(perft, job, ticket, watch, span)))
    }

    /// PerftBatch: the jobs of the client's stream, each counted in turn.
    pub(super) async fn perft_batch_rpc(
        &self,
        req: Request<Streaming<pb::PerftBatchRequest>>,
    ) -> Result<Response<JobStream<pb::PerftBatchResponse>>, Status> {
        let ticket = self.jobs.admit(&client_of(&req), jobs::deadline_of(&req)).await?;
        let watch = self.watch(&ticket, &req);
        let mut input = req.into_inner();
        let service = self.clone();
        let idle = self.config.stream_idle();
        let rt = tokio::runtime::Handle::current();
        let shutdown = self.jobs.shutdown_flag();
        let span = tracing::info_span!("perft_batch");
        // One job thread serves the whole stream: it reads the next job only
        // when the last result has been taken (flow control end to end), and
        // runs each job in turn; a panic in one job is that job's INTERNAL
        // error, and the stream goes on.
        let stream = self.stream_job(ticket, watch, span, move |tx, watch| {
            loop {
                // Waiting for the client's next job ends, like a job, at the
                // shutdown, the deadline or the idle timeout.
                let next = rt.block_on(async {
                    let give_up = tokio::time::Instant::now() + idle;
                    let until = watch.deadline.map_or(give_up, |d| give_up.min(d.into()));
                    let mut tick = tokio::time::interval(Duration::from_millis(50));
                    let message = input.message();
                    tokio::pin!(message);
                    loop {
                        tokio::select! {
                            next = &mut message => return next.map_err(ServiceError::Client),
                            _ = tick.tick() => {
                                if let Some(r) = watch.reason() {
                                    return Err(r);
                                }
                                if shutdown.load(Ordering::Relaxed) {
                                    return Err(ServiceError::ShuttingDown);
                                }
                                if tokio::time::Instant::now() >= until {
                                    return Err(watch.reason().unwrap_or(ServiceError::Idle(idle)));
                                }
                            }
                        }
                    }
                });
                let job = match next {
                    Ok(Some(job)) => job,
                    Ok(None) => return Ok(None),
                    Err(e) => return Err(watch.stopped_early(Some(e))),
                };
                let id = job.id.clone();
                let t0 = Instant::now();
                let result = jobs::catch(&watch.stats, || Ok(service.batch_job(job, watch))).unwrap_or_else(|e| {
                    pb::PerftBatchResponse {
                        id,
                        error_code: crate::error::code_name(e.code()).into(),
                        error: crate::error::clip(&e.to_string()),
                        elapsed_seconds: t0.elapsed().as_secs_f64(),
                        ..Default::default()
                    }
                });
                if let Some(e) = watch.reason() {
                    return Err(watch.stopped_early(Some(e)));
                }
                tx.send(Ok(result), watch).map_err(|e| watch.stopped_early(Some(e)))?;
            }
        });
        Ok(Response::new(stream))
    }

    /// The threads a perft (a Perft stream or one PerftBatch job) may use:
    /// `threads`, or all the server allows when 0; more than that is
    /// refused (`OUT_OF_RANGE`).
    fn perft_threads(&self, threads: u32) -> Result<usize, ServiceError> {
        let max = self.config.max_threads;
        match usize::try_from(threads) {
            Ok(0) => Ok(max),
            Ok(t) if t <= max => Ok(t),
            _ => Err(ServiceError::OutOfRange { field: "threads".into(), value: threads as u64, max: max as u64 }),
        }
    }

    fn check_perft_depth(&self, depth: u32, field: &str) -> Result<(), ServiceError> {
        if depth == 0 {
            return Err(ServiceError::BadField { field: field.into(), message: "must be at least 1".into() });
        }
        if depth > self.config.max_perft_depth {
            return Err(ServiceError::OutOfRange {
                field: field.into(),
                value: depth as u64,
                max: self.config.max_perft_depth as u64,
            });
        }
        Ok(())
    }

    /// Root-parallel perft over `threads` threads; `on_root` gets each root
    /// move's index and count as it finishes and says why to stop, if it
    /// must. Stops at the client, its deadline, the shutdown, or the
    /// server's caps; a panic in a worker stops the others and propagates.
    #[allow(clippy::too_many_arguments)]
    fn perft_job(
        perft: &Perft,
        depth: u32,
        threads: usize,
        table: Option<&PerftTable>,
        watch: &Watch,
        caps: PerftCaps,
        progress: &AtomicU64,
        on_root: &(dyn Fn(usize, u64) -> Result<(), ServiceError> + Sync),
    ) -> Result<u64, ServiceError> {
        let stop = AtomicBool::new(false);
        let ctl = PerftControl { stop: &stop, progress, table };
        let t0 = Instant::now();
        let reason = || watch.reason().or_else(|| caps.exceeded(progress.load(Ordering::Relaxed), t0));
        match perft.divide(depth, threads, &ctl, on_root, reason) {
            Ok(counts) => {
                let n = counts.iter().sum();
                watch.stats.perft_nodes.fetch_add(n, Ordering::Relaxed);
                Ok(n)
            }
            Err(PerftHalt::Stopped(why)) => Err(watch.stopped_early(why)),
            Err(PerftHalt::Spawn(_)) => {
                Err(watch.stopped_early(Some(ServiceError::Internal("could not spawn a perft thread".into()))))
            }
        }
    }

    /// A Perft stream's job: a divide event per root move (`texts` gives its
    /// coordinate form and SAN), progress events, then the total.
    fn perft_stream(
        &self,
        perft: Perft,
        job: PerftStreamJob,
        ticket: Ticket,
        watch: Watch,
        span: tracing::Span,
    ) -> JobStream<pb::PerftResponse> {
        let PerftStreamJob { depth, threads, hash_mb } = job;
        let interval = self.config.progress_interval();
        let caps = self.perft_caps();
        let faults = self.faults.clone();
        self.stream_job(ticket, watch, span, move |tx, watch| {
            let n_moves = perft.root_moves() as u32;
            let table = (hash_mb > 0).then(|| PerftTable::new(hash_mb));
            let progress = AtomicU64::new(0);
            let done_moves = AtomicU64::new(0);
            let t0 = Instant::now();
            let nps = |n: u64| menagerie_app::nps(n, t0.elapsed().as_secs_f64().max(1e-9));
            let finished = AtomicBool::new(false);
            let total = std::thread::scope(|scope| {
                // Periodic progress, until the count ends (also by a panic).
                let _end = Defer(|| finished.store(true, Ordering::Relaxed));
                scope.spawn(|| {
                    let mut last = Instant::now();
                    while !finished.load(Ordering::Relaxed) && !tx.is_closed() {
                        std::thread::sleep(Duration::from_millis(5));
                        if last.elapsed() >= interval {
                            last = Instant::now();
                            let n = progress.load(Ordering::Relaxed);
                            let ev = pb::PerftProgress {
                                nodes: n,
                                nps: nps(n),
                                moves_done: done_moves.load(Ordering::Relaxed) as u32,
                                moves_total: n_moves,
                                elapsed_seconds: t0.elapsed().as_secs_f64(),
                            };
                            tx.offer(Ok(pb::PerftResponse { event: Some(pb::perft_response::Event::Progress(ev)) }));
                        }
                    }
                });
                let on_root = |i: usize, n: u64| {
                    faults.trip();
                    done_moves.fetch_add(1, Ordering::Relaxed);
                    let (coordinate, san) = perft.move_texts(i);
                    let ev = pb::PerftDivide { r#move: coordinate, san, nodes: n };
                    tx.send(Ok(pb::PerftResponse { event: Some(pb::perft_response::Event::Divide(ev)) }), watch)
                };
                Self::perft_job(&perft, depth, threads, table.as_ref(), watch, caps, &progress, &on_root)
            })?;
            Ok(Some(pb::PerftResponse {
                event: Some(pb::perft_response::Event::Total(pb::PerftTotal {
                    nodes: total,
                    nps: nps(total),
                    elapsed_seconds: t0.elapsed().as_secs_f64(),
                })),
            }))
        })
    }

    fn perft_caps(&self) -> PerftCaps {
        PerftCaps { nodes: self.config.max_perft_nodes, time: Duration::from_millis(self.config.max_perft_ms) }
    }

    /// A batch job's position, compiled or defined as data.
    fn perft_subject(&self, p: Option<&pb::Position>) -> Result<Perft, ServiceError> {
        let position = self.variants.game_position(&self.position_request(p)).map_err(ServiceError::position)?;
        Ok(Perft::new(position))
    }

    /// Runs one batch job to completion (errors become the result's `error`).
    fn batch_job(&self, job: pb::PerftBatchRequest, watch: &Watch) -> pb::PerftBatchResponse {
        self.faults.trip();
        let t0 = Instant::now();
        let id = job.id.clone();
        let fail = |e: ServiceError| pb::PerftBatchResponse {
            id: id.clone(),
            error_code: crate::error::code_name(e.code()).into(),
            error: crate::error::clip(&e.to_string()),
            elapsed_seconds: t0.elapsed().as_secs_f64(),
            ..Default::default()
        };
        // Either an EPD line or a position with expected counts.
        let (subject, expected) = if !job.epd.is_empty() {
            // The `variant` opcode may name a compiled variant or one defined as data.
            let read = menagerie_notation::epd::parse_line_with(&job.epd, 1, |name| self.variants.find(name));
            let line = match read {
                Ok(Some(l)) => l,
                Ok(None) => return fail(ServiceError::BadField { field: "epd".into(), message: "empty line".into() }),
                Err(e) => return fail(ServiceError::BadField { field: "epd".into(), message: e.reason }),
            };
            let variant = match &line.variant {
                Some(v) => v.name().to_string(),
                None if job.default_variant.is_empty() => "chess".to_string(),
                None => job.default_variant.clone(),
            };
            let p = pb::Position { variant, fen: line.fen.clone(), moves: Vec::new() };
            match self.perft_subject(Some(&p)) {
                Ok(subject) => (subject, line.depths),
                Err(e) => return fail(e),
            }
        } else {
            match self.perft_subject(job.position.as_ref()) {
                Ok(subject) => (subject, job.expected.iter().map(|d| (d.depth, d.nodes)).collect()),
                Err(e) => return fail(e),
            }
        };
        // The same limits as a Perft stream's, before any work.
        let threads = match self.perft_threads(job.threads) {
            Ok(t) => t,
            Err(e) => return fail(e),
        };
        let max = if job.max_depth == 0 { u32::MAX } else { job.max_depth };
        let caps = self.perft_caps();
        let mut depths = Vec::new();
        for (d, want) in epd::depths_at_most(&expected, max) {
            if let Err(e) = self.check_perft_depth(d, "expected.depth") {
                return fail(e);
            }
            let progress = AtomicU64::new(0);
            let got = match Self::perft_job(&subject, d, threads, None, watch, caps, &progress, &|_, _| Ok(())) {
                Ok(n) => n,
                Err(e) => return fail(e),
            };
            depths.push(pb::DepthResult { depth: d, expected: want, actual: got, pass: want == 0 || got == want });
        }
        // Nothing checked is not a pass.
        let skipped = depths.is_empty();
        pb::PerftBatchResponse {
            id,
            pass: !skipped && depths.iter().all(|d| d.pass),
            skipped,
            depths,
            elapsed_seconds: t0.elapsed().as_secs_f64(),
            error: String::new(),
            error_code: String::new(),
        }
    }
}
