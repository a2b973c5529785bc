//! The `menagerie.v1.AnalysisService` service.

use crate::config::Config;
use crate::error::ServiceError;
use crate::jobs::{self, ClientId, EventSender, Jobs, Ticket, Watch};
use menagerie_api::pb::{self, analysis_service_server::AnalysisService};
use menagerie_app::play::{self, GameStatus, ValidateError, Validation};
use menagerie_app::{
    DataGame, DataPosition, GamePosition, LoadError, ParsedPosition, PositionRequest, VariantDef, VariantRef, Variants,
    epd,
};
use menagerie_notation::{fen, pgn, san, uci};
use menagerie_search::wdl::{self, WdlModel};
use menagerie_search::{Engine, EngineOptions, Info, Limits, Score, SearchHandle};
use menagerie_variants::{AnyPosition, Move, PerftControl, PerftTable};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

/// A stream of a job's responses: when the client goes away the stream
/// is dropped and the job's stop flag is set. (The job's slot is held by the
/// job itself and given back when it ends, so a client that stops reading
/// cannot keep it past the stream's idle timeout.)
pub struct JobStream<T> {
    inner: ReceiverStream<Result<T, Status>>,
    _stop: StopOnDrop,
}

struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs a closure when dropped, also while unwinding from a panic.
struct Defer<F: FnMut()>(F);

impl<F: FnMut()> Drop for Defer<F> {
    fn drop(&mut self) {
        (self.0)()
    }
}

impl<T> Stream for JobStream<T> {
    type Item = Result<T, Status>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<Self::Item>> {
        Pin::new(&mut self.inner).poll_next(cx)
    }
}

/// Perft depths counted on the job's own thread, without workers or a watcher.
const SMALL_PERFT_DEPTH: u32 = 3;

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

/// Who sent `req`: the authenticated name the auth layer put in the
/// request's extensions, else the peer's IP address.
fn client_of<T>(req: &Request<T>) -> ClientId {
    if let Some(id) = req.extensions().get::<ClientId>() {
        return id.clone();
    }
    ClientId(req.remote_addr().map_or_else(|| "unknown".to_string(), |a| a.ip().to_string()))
}

/// The service: configuration, the variants served and job admission.
#[derive(Clone)]
pub struct AnalysisApi {
    config: Arc<Config>,
    variants: Variants,
    jobs: Jobs,
    faults: Arc<Faults>,
}

/// Panics to inject, for tests of the failure paths.
#[derive(Default)]
struct Faults(AtomicU64);

impl Faults {
    /// Panics if a fault is pending (and takes it).
    fn trip(&self) {
        if self.0.load(Ordering::Relaxed) > 0
            && self.0.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1)).is_ok()
        {
            panic!("injected fault");
        }
    }
}

/// How a game stands (`menagerie_app::play`'s policy), in the API's terms:
/// its outcome if it has ended, and the draw the side to move may claim.
fn status_pb(s: GameStatus) -> (Option<pb::Outcome>, String) {
    let outcome = s.ended.map(|e| pb::Outcome {
        result: e.result.into(),
        winner: e.winner.into(),
        reason: e.reason.into(),
        description: e.description,
    });
    (outcome, s.claimable_draw.into())
}

fn score_pb(s: Score) -> pb::Score {
    pb::Score {
        value: Some(match s {
            Score::Cp(c) => pb::score::Value::Cp(c),
            Score::Mate(m) => pb::score::Value::Mate(m),
        }),
    }
}

/// The error of a move of a request's position that is not legal.
fn illegal_move_at(i: usize) -> ServiceError {
    ServiceError::IllegalMove { field: format!("position.moves[{i}]"), message: "illegal move".into() }
}

/// `score` as win/draw/loss chances in the game named `variant`, at the
/// position `fen` of a game that starts at `start_fen`.
fn wdl_pb(variant: &str, fen: &str, start_fen: &str, score: Score) -> pb::Wdl {
    let w = WdlModel::for_variant(variant).wdl(score, wdl::material_fraction(fen, start_fen));
    pb::Wdl { win: w.win, draw: w.draw, loss: w.loss }
}

/// A line of a search from `pos`, in coordinate form and SAN, with the
/// win/draw/loss chances of its score.
fn line_pb(pos: &menagerie_game::Position, i: &Info) -> pb::PvLine {
    let mut p = pos.clone();
    let mut pv = Vec::with_capacity(i.pv.len());
    let mut pv_san = Vec::with_capacity(i.pv.len());
    for &m in &i.pv {
        pv.push(p.move_text(m));
        pv_san.push(p.san(m));
        match p.play(m) {
            Ok(next) => p = next,
            Err(_) => break,
        }
    }
    let wdl = wdl_pb(&pos.variant_name(), &pos.fen(), &pos.start_fen(), i.score);
    pb::PvLine { multipv: i.multipv, score: Some(score_pb(i.score)), pv, pv_san, wdl: Some(wdl) }
}

/// What an analysis searches: a game of any variant (start and moves,
/// for repetition).
struct Subject(menagerie_game::Game);

impl Subject {
    fn variant(&self) -> String {
        self.0.current().variant_name()
    }
}

/// The info callback of a search: collects the lines of one iteration
/// (`wanted` of them) into one event for `info`; flags `gone` when `info`
/// reports the client gone.
fn info_sink(
    wanted: u32,
    line: impl Fn(&Info) -> pb::PvLine + Send + 'static,
    mut info: impl FnMut(pb::AnalyzeInfo) -> bool + Send + 'static,
    gone: Arc<AtomicBool>,
) -> impl FnMut(Info) + Send + 'static {
    let mut pending: Vec<pb::PvLine> = Vec::new();
    move |i: Info| {
        pending.push(line(&i));
        if i.multipv == wanted {
            let event = pb::AnalyzeInfo {
                depth: i.depth,
                seldepth: i.seldepth,
                nodes: i.nodes,
                nps: i.nps,
                time_ms: i.time_ms,
                hashfull: i.hashfull,
                lines: std::mem::take(&mut pending),
            };
            if !info(event) {
                gone.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// Waits for a search, stopping it when the watch says so or the client
/// is gone (`gone`).
fn await_search(
    handle: SearchHandle,
    watch: &Watch,
    gone: &AtomicBool,
) -> Result<menagerie_search::SearchResult, ServiceError> {
    let mut reason = None;
    while !handle.is_finished() {
        if let Some(r) = watch.reason() {
            reason = Some(r);
            handle.stop();
            break;
        }
        if gone.load(Ordering::Relaxed) {
            reason = Some(watch.reason().unwrap_or(ServiceError::Cancelled));
            handle.stop();
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let result = handle.wait();
    watch.stats.search_nodes.fetch_add(result.nodes, Ordering::Relaxed);
    match reason {
        Some(r) => Err(watch.stopped_early(Some(r))),
        None => Ok(result),
    }
}

/// A finished search as BestMoveResponse; `texts` gives the best move's
/// coordinate form and SAN, and the expected reply's coordinate form.
fn best_move_pb(
    result: &menagerie_search::SearchResult,
    texts: impl Fn(menagerie_game::Move, Option<menagerie_game::Move>) -> (String, String, String),
    line: impl Fn(&Info) -> pb::PvLine,
) -> pb::BestMoveResponse {
    let (best_move, best_move_san, ponder) = result.best.map(|m| texts(m, result.ponder)).unwrap_or_default();
    let lines: Vec<pb::PvLine> = result.lines.iter().map(line).collect();
    pb::BestMoveResponse {
        wdl: lines.first().and_then(|l| l.wdl),
        best_move,
        best_move_san,
        ponder,
        score: Some(score_pb(result.score)),
        depth: result.depth,
        nodes: result.nodes,
        time_ms: result.time_ms,
        lines,
    }
}

/// A position perft can count below: root moves, and each one's subtree.
trait PerftNode: Sync {
    type Move: Copy + Send + Sync;
    /// The legal moves.
    fn root_moves(&self) -> Vec<Self::Move>;
    /// Perft `depth` after `m`; `None` if stopped.
    fn child_perft(&self, m: Self::Move, depth: u32, ctl: &PerftControl<'_>) -> Option<u64>;
    /// A root move's coordinate form and SAN.
    fn move_texts(&self, m: Self::Move, legal: &[Self::Move]) -> (String, String);
}

impl PerftNode for AnyPosition {
    type Move = Move;
    fn root_moves(&self) -> Vec<Move> {
        self.legal_moves().to_vec()
    }
    fn child_perft(&self, m: Move, depth: u32, ctl: &PerftControl<'_>) -> Option<u64> {
        self.play_unchecked(m).perft_controlled(depth, ctl)
    }
    fn move_texts(&self, m: Move, legal: &[Move]) -> (String, String) {
        (uci::format(self.variant(), m), san::format_with(self, m, legal))
    }
}

/// Perft of a variant defined as data, in subtrees of at most this depth
/// between looks at the stop flag (a few milliseconds each).
const DATA_PERFT_CHUNK: u32 = 3;

/// Perft of `pos` that stops (`None`) when `ctl.stop` is set, adding the
/// leaves of each finished chunk to `ctl.progress` (no table).
fn data_perft(pos: &DataPosition, depth: u32, ctl: &PerftControl<'_>) -> Option<u64> {
    // A compiled game that plays the variant counts it at its speed.
    match menagerie_app::compiled_twin_for(pos, depth) {
        Some(twin) => twin.perft_controlled(depth, ctl),
        None => data_core_perft(pos, depth, ctl),
    }
}

/// [`data_perft`] on the data core.
fn data_core_perft(pos: &DataPosition, depth: u32, ctl: &PerftControl<'_>) -> Option<u64> {
    if ctl.stop.load(Ordering::Relaxed) {
        return None;
    }
    if depth <= DATA_PERFT_CHUNK {
        let n = pos.perft(depth);
        ctl.progress.fetch_add(n, Ordering::Relaxed);
        return Some(n);
    }
    let mut total = 0;
    for m in pos.legal_moves() {
        total += data_core_perft(&pos.play(m), depth - 1, ctl)?;
    }
    Some(total)
}

impl PerftNode for DataPosition {
    type Move = menagerie_rules::Move;
    fn root_moves(&self) -> Vec<Self::Move> {
        self.legal_moves()
    }
    fn child_perft(&self, m: Self::Move, depth: u32, ctl: &PerftControl<'_>) -> Option<u64> {
        data_perft(&self.play(m), depth, ctl)
    }
    fn move_texts(&self, m: Self::Move, _legal: &[Self::Move]) -> (String, String) {
        (self.move_text(m), self.san(m))
    }
}

impl AnalysisApi {
    /// A service with `config`, serving the built-in variants only (the
    /// files of `config.variants` are read by [`AnalysisApi::try_new`]).
    pub fn new(config: Config) -> AnalysisApi {
        AnalysisApi::with_variants(config, Variants::builtin())
    }

    /// A service with `config`, serving the built-in variants and those of
    /// the files of `config.variants` (an error names the file, line and key).
    pub fn try_new(config: Config) -> Result<AnalysisApi, LoadError> {
        let variants = config.load_variants()?;
        Ok(AnalysisApi::with_variants(config, variants))
    }

    /// A service with `config` serving `variants`.
    pub fn with_variants(config: Config, variants: Variants) -> AnalysisApi {
        let jobs = Jobs::new(config.capacity());
        AnalysisApi { config: Arc::new(config), variants, jobs, faults: Arc::default() }
    }

    /// Makes the next `n` units of work panic (a perft root move, a batch
    /// job, a unary call), to test that a panic ends only its own call, with
    /// INTERNAL. For tests; never set in production.
    #[doc(hidden)]
    pub fn inject_panics(&self, n: u64) {
        self.faults.0.store(n, Ordering::Relaxed);
    }

    /// The job controller (for shutdown and metrics).
    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    /// The variant defined as data that `p` names, if it names one.
    fn data_variant(&self, p: Option<&pb::Position>) -> Option<Arc<VariantDef>> {
        let name = p.map_or("", |p| p.variant.as_str());
        match self.variants.find(name) {
            Ok(VariantRef::Data(def)) => Some(def),
            _ => None,
        }
    }

    /// The refusal of `task` for a variant defined as data named in `field`.
    fn not_for_data(field: &str, variant: &str, task: &'static str) -> ServiceError {
        ServiceError::DataVariant { field: field.into(), variant: variant.into(), task }
    }

    /// The request's position in a variant defined as data, at most
    /// `max_moves` moves from its start.
    fn parse_data_position(&self, p: Option<&pb::Position>) -> Result<DataPosition, ServiceError> {
        self.parse_data_game(p).map(|g| g.current().clone())
    }

    /// The request's game (start and moves) in a variant defined as data,
    /// at most `max_moves` moves from its start.
    fn parse_data_game(&self, p: Option<&pb::Position>) -> Result<DataGame, ServiceError> {
        self.variants.data_game(&self.position_request(p)).map_err(ServiceError::position)
    }

    /// The request's position (an empty variant is chess), at most
    /// `max_moves` moves from its start, for `task`, which a variant defined
    /// as data is refused.
    fn parse_position(&self, p: Option<&pb::Position>, task: &'static str) -> Result<ParsedPosition, ServiceError> {
        if let Some(def) = self.data_variant(p) {
            return Err(Self::not_for_data("position.variant", &def.name, task));
        }
        self.variants.position(&self.position_request(p)).map_err(ServiceError::position)
    }

    /// The position a request names (chess when its variant is blank, the
    /// start position when its FEN is), its moves capped by the configuration.
    fn position_request<'a>(&self, p: Option<&'a pb::Position>) -> PositionRequest<'a, String> {
        static NO_POSITION: pb::Position =
            pb::Position { variant: String::new(), fen: String::new(), moves: Vec::new() };
        let p = p.unwrap_or(&NO_POSITION);
        let name = if p.variant.is_empty() { "chess" } else { p.variant.as_str() };
        PositionRequest { max_moves: Some(self.config.max_moves), ..PositionRequest::new(name, &p.fen, &p.moves) }
    }

    /// What stops a streaming job: the client, its deadline, the shutdown.
    fn watch<T>(&self, ticket: &Ticket, req: &Request<T>) -> Watch {
        Watch {
            stop: ticket.stop_flag(),
            shutdown: self.jobs.shutdown_flag(),
            deadline: jobs::deadline_of(req),
            stats: self.jobs.stats.clone(),
        }
    }

    /// What stops a unary job: as for streams, except that a shutdown lets
    /// it finish within the grace period.
    fn unary_watch<T>(&self, ticket: &Ticket, req: &Request<T>) -> Watch {
        Watch { shutdown: self.jobs.abort_flag(), ..self.watch(ticket, req) }
    }

    fn analysis_limits(&self, r: &pb::AnalyzeRequest) -> Result<(Limits, EngineOptions), ServiceError> {
        let c = &self.config;
        let check = |field: &str, value: u64, max: u64| -> Result<(), ServiceError> {
            if value > max { Err(ServiceError::OutOfRange { field: field.into(), value, max }) } else { Ok(()) }
        };
        check("depth", r.depth as u64, c.max_analysis_depth as u64)?;
        check("nodes", r.nodes, c.max_analysis_nodes)?;
        check("movetime_ms", r.movetime_ms as u64, c.max_analysis_ms)?;
        check("multipv", r.multipv as u64, c.max_multipv as u64)?;
        check("threads", r.threads as u64, c.max_threads as u64)?;
        let mut limits = Limits::default();
        if r.depth > 0 {
            limits.depth = Some(r.depth);
        }
        if r.nodes > 0 {
            limits.nodes = Some(r.nodes);
        }
        if r.movetime_ms > 0 {
            limits.movetime = Some(Duration::from_millis(r.movetime_ms as u64));
        } else if r.depth > 0 || r.nodes > 0 {
            // A cap only: a depth or node search is not time-managed.
            limits.max_time = Some(Duration::from_millis(c.max_analysis_ms));
        } else {
            limits.movetime = Some(Duration::from_millis(c.default_analysis_ms));
        }
        let options = EngineOptions {
            hash_mb: c.analysis_hash_mb,
            threads: (r.threads as usize).max(1),
            multipv: (r.multipv as usize).max(1),
        };
        Ok((limits, options))
    }

    /// The position to analyse: a compiled variant's, or a data variant's
    /// game (start and moves, for repetition). Refused if the game is over.
    fn analysis_subject(&self, p: Option<&pb::Position>) -> Result<Subject, ServiceError> {
        if self.data_variant(p).is_some() {
            let game = self.parse_data_game(p)?;
            if let (Some(o), _) = status_pb(play::data_status(&game)) {
                return Err(ServiceError::GameOver(o.description));
            }
            let moves: Vec<menagerie_game::Move> = game.moves().iter().map(|&m| m.into()).collect();
            let game = menagerie_game::Game::from_moves(game.start().clone().into(), &moves)
                .map_err(|(i, _)| illegal_move_at(i))?;
            return Ok(Subject(game));
        }
        let parsed = self.parse_position(p, "analysis")?;
        if let Some(o) = parsed.game().outcome().filter(|_| parsed.current.count_legal() == 0) {
            return Err(ServiceError::GameOver(o.describe()));
        }
        let moves: Vec<menagerie_game::Move> = parsed.moves.iter().map(|&m| m.into()).collect();
        let game =
            menagerie_game::Game::from_moves(parsed.start.into(), &moves).map_err(|(i, _)| illegal_move_at(i))?;
        Ok(Subject(game))
    }

    /// Runs an analysis on a job thread, sending info events through `info`.
    fn run_analysis(
        subject: &Subject,
        limits: Limits,
        options: EngineOptions,
        watch: &Watch,
        info: impl FnMut(pb::AnalyzeInfo) -> bool + Send + 'static,
    ) -> Result<pb::BestMoveResponse, ServiceError> {
        let mut engine = Engine::new(options);
        engine.set_game(&subject.0);
        let pos = subject.0.current().clone();
        let wanted = options.multipv.min(pos.legal_moves().len()).max(1) as u32;
        let gone = Arc::new(AtomicBool::new(false));
        let at = pos.clone();
        let sink = info_sink(wanted, move |i: &Info| line_pb(&at, i), info, gone.clone());
        let result = await_search(engine.go(limits, sink), watch, &gone)?;
        let texts = |m, reply: Option<menagerie_game::Move>| {
            let reply = reply.zip(pos.play(m).ok()).map(|(r, after)| after.move_text(r)).unwrap_or_default();
            (pos.move_text(m), pos.san(m), reply)
        };
        Ok(best_move_pb(&result, texts, |i| line_pb(&pos, i)))
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

    /// Starts a streaming job on a job thread: `work` sends its events
    /// through the sender it is given and returns the last one, if any; an error
    /// (a panic included, as INTERNAL) ends the stream with its status.
    /// The job's slot is given back when the work ends.
    fn stream_job<T: Send + 'static>(
        &self,
        ticket: Ticket,
        watch: Watch,
        span: tracing::Span,
        work: impl FnOnce(&EventSender<T>, &Watch) -> Result<Option<T>, ServiceError> + Send + 'static,
    ) -> JobStream<T> {
        let (tx, rx) = mpsc::channel(64);
        let sender = EventSender::new(tx, self.config.stream_idle());
        let stop = ticket.stop_flag();
        let stats = self.jobs.stats.clone();
        // The job reports through the stream; its own result channel is not needed.
        drop(self.jobs.spawn(span, move || {
            let r = jobs::catch(&stats, || work(&sender, &watch));
            match r {
                Ok(Some(last)) => sender.send_last(Ok(last)),
                Ok(None) => {}
                Err(e) => sender.send_last(Err(Status::from(e))),
            }
            drop(ticket);
            Ok(())
        }));
        JobStream { inner: ReceiverStream::new(rx), _stop: StopOnDrop(stop) }
    }

    /// Root-parallel perft over `threads` threads; `on_root` gets each root
    /// move's count as it finishes and says why to stop, if it must. Stops
    /// at the client, its deadline, the shutdown, or the server's caps; a
    /// panic in a worker stops the others and propagates.
    #[allow(clippy::too_many_arguments)]
    fn perft_job<P: PerftNode>(
        pos: &P,
        depth: u32,
        threads: usize,
        table: Option<&PerftTable>,
        watch: &Watch,
        caps: PerftCaps,
        progress: &AtomicU64,
        on_root: &(dyn Fn(P::Move, u64) -> Result<(), ServiceError> + Sync),
    ) -> Result<u64, ServiceError> {
        let moves = pos.root_moves();
        let stop = AtomicBool::new(false);
        let why: Mutex<Option<ServiceError>> = Mutex::new(None);
        let halt = |e: ServiceError| {
            why.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
            stop.store(true, Ordering::Relaxed);
        };
        let next = AtomicUsize::new(0);
        let total = AtomicU64::new(0);
        let ctl = PerftControl { stop: &stop, progress, table };
        if depth <= SMALL_PERFT_DEPTH {
            // Small counts (a few milliseconds at most) run on this thread:
            // a batch of a million depth-1 jobs must not start threads.
            for &m in moves.iter() {
                if let Some(r) = watch.reason() {
                    halt(r);
                    break;
                }
                let Some(n) = pos.child_perft(m, depth - 1, &ctl) else { break };
                total.fetch_add(n, Ordering::Relaxed);
                if let Err(e) = on_root(m, n) {
                    halt(e);
                    break;
                }
            }
        } else {
            let workers = threads.clamp(1, moves.len().max(1));
            let active = AtomicUsize::new(workers);
            let t0 = Instant::now();
            let watcher = std::thread::current();
            std::thread::scope(|scope| {
                for _ in 0..workers {
                    let worker = std::thread::Builder::new().name("menagerie-perft".into());
                    let spawned = worker.spawn_scoped(scope, || {
                        // Counted out even when the work panics, so that the
                        // watcher ends and the other workers stop.
                        let _out = Defer(|| {
                            if std::thread::panicking() {
                                stop.store(true, Ordering::Relaxed);
                            }
                            if active.fetch_sub(1, Ordering::Relaxed) == 1 {
                                watcher.unpark();
                            }
                        });
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= moves.len() || stop.load(Ordering::Relaxed) {
                                break;
                            }
                            let Some(n) = pos.child_perft(moves[i], depth - 1, &ctl) else { break };
                            total.fetch_add(n, Ordering::Relaxed);
                            if let Err(e) = on_root(moves[i], n) {
                                halt(e);
                            }
                        }
                    });
                    if spawned.is_err() {
                        active.fetch_sub(1, Ordering::Relaxed);
                        halt(ServiceError::Internal("could not spawn a perft thread".into()));
                    }
                }
                // This thread watches for the client, the deadline, shutdown
                // and the caps while the workers run; the last one wakes it.
                while active.load(Ordering::Relaxed) > 0 {
                    if let Some(r) = watch.reason() {
                        halt(r);
                    } else if progress.load(Ordering::Relaxed) > caps.nodes {
                        halt(ServiceError::LimitReached { what: "nodes", max: caps.nodes });
                    } else if t0.elapsed() > caps.time {
                        halt(ServiceError::LimitReached { what: "ms", max: caps.time.as_millis() as u64 });
                    }
                    std::thread::park_timeout(Duration::from_millis(2));
                }
            });
        }
        if stop.load(Ordering::Relaxed) {
            return Err(watch.stopped_early(why.into_inner().unwrap_or_else(|p| p.into_inner())));
        }
        let n = total.load(Ordering::Relaxed);
        watch.stats.perft_nodes.fetch_add(n, Ordering::Relaxed);
        Ok(n)
    }

    /// A Perft stream's job: a divide event per root move (`texts` gives its
    /// coordinate form and SAN), progress events, then the total.
    fn perft_stream<P: PerftNode + Send + 'static>(
        &self,
        pos: P,
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
            let legal = pos.root_moves();
            let n_moves = legal.len() as u32;
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
                let on_root = |m: P::Move, n: u64| {
                    faults.trip();
                    done_moves.fetch_add(1, Ordering::Relaxed);
                    let (coordinate, san) = pos.move_texts(m, &legal);
                    let ev = pb::PerftDivide { r#move: coordinate, san, nodes: n };
                    tx.send(Ok(pb::PerftResponse { event: Some(pb::perft_response::Event::Divide(ev)) }), watch)
                };
                if depth == 1 {
                    for &m in legal.iter() {
                        on_root(m, 1).map_err(|e| watch.stopped_early(Some(e)))?;
                    }
                    Ok(legal.len() as u64)
                } else {
                    Self::perft_job(&pos, depth, threads, table.as_ref(), watch, caps, &progress, &on_root)
                }
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
}

type EventStream<T> = JobStream<T>;

#[tonic::async_trait]
impl AnalysisService for AnalysisApi {
    async fn list_variants(
        &self,
        _req: Request<pb::ListVariantsRequest>,
    ) -> Result<Response<pb::ListVariantsResponse>, Status> {
        let variants = self
            .variants
            .iter()
            .map(|v| {
                let rules = v.rules();
                let kinds = rules.all_kinds();
                let (files, ranks) = v.size();
                pb::VariantInfo {
                    name: v.name().into(),
                    files: files as u32,
                    ranks: ranks as u32,
                    pieces: kinds
                        .iter()
                        .map(|k| pb::PieceInfo {
                            letter: k.letter().to_string(),
                            name: k.name().into(),
                            betza: k.movement().betza.into(),
                            value: k.value(),
                        })
                        .collect(),
                    start_fen: v.start_fen().into(),
                    summary: v.summary().into(),
                    promotions: rules.promotions.iter().map(|k| k.letter().to_string()).collect(),
                    reserve_piece: rules.gating.map(|g| g.piece.letter().to_string()).unwrap_or_default(),
                    defined_as_data: false,
                }
            })
            .chain(
                self.variants
                    .data_names()
                    .filter_map(|n| self.variants.data(n).ok())
                    .map(|d| crate::data::variant_info(&d)),
            )
            .collect();
        Ok(Response::new(pb::ListVariantsResponse { variants }))
    }

    async fn validate_move(
        &self,
        req: Request<pb::ValidateMoveRequest>,
    ) -> Result<Response<pb::ValidateMoveResponse>, Status> {
        let deadline = jobs::deadline_of(&req);
        let r = req.into_inner();
        let svc = self.clone();
        let span = tracing::info_span!("validate_move");
        let answer = self.jobs.run_unary(span, deadline, move || svc.validate(&r)).await?;
        Ok(Response::new(answer))
    }

    async fn legal_moves(
        &self,
        req: Request<pb::LegalMovesRequest>,
    ) -> Result<Response<pb::LegalMovesResponse>, Status> {
        let deadline = jobs::deadline_of(&req);
        let r = req.into_inner();
        let svc = self.clone();
        let span = tracing::info_span!("legal_moves");
        let answer = self.jobs.run_unary(span, deadline, move || svc.list_legal(&r)).await?;
        Ok(Response::new(answer))
    }

    type PerftStream = EventStream<pb::PerftResponse>;

    async fn perft(&self, req: Request<pb::PerftRequest>) -> Result<Response<Self::PerftStream>, Status> {
        let r = req.get_ref();
        // The position first (its errors before the limits'), in its kind.
        let position = match self.data_variant(r.position.as_ref()) {
            Some(_) => Err(self.parse_data_position(r.position.as_ref())?),
            None => Ok(self.parse_position(r.position.as_ref(), "perft")?.current),
        };
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
        if r.hash_mb > 0 && position.is_err() {
            return Err(ServiceError::BadField {
                field: "hash_mb".into(),
                message: "a perft table is not available for variants defined as data: give 0".into(),
            }
            .into());
        }
        let ticket = self.jobs.admit(&client_of(&req), jobs::deadline_of(&req)).await?;
        let watch = self.watch(&ticket, &req);
        let job = PerftStreamJob { depth: r.depth, threads, hash_mb: r.hash_mb as usize };
        let stream = match position {
            Ok(pos) => {
                let span =
                    tracing::info_span!("perft", variant = %pos.variant(), depth = job.depth, threads = job.threads);
                self.perft_stream(pos, job, ticket, watch, span)
            }
            Err(pos) => {
                let span = tracing::info_span!("perft", variant = %pos.variant().name, depth = job.depth, threads = job.threads);
                self.perft_stream(pos, job, ticket, watch, span)
            }
        };
        Ok(Response::new(stream))
    }

    type PerftBatchStream = EventStream<pb::PerftBatchResponse>;

    async fn perft_batch(
        &self,
        req: Request<Streaming<pb::PerftBatchRequest>>,
    ) -> Result<Response<Self::PerftBatchStream>, Status> {
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

    type AnalyzeStream = EventStream<pb::AnalyzeResponse>;

    async fn analyze(&self, req: Request<pb::AnalyzeRequest>) -> Result<Response<Self::AnalyzeStream>, Status> {
        let r = req.get_ref();
        let subject = self.analysis_subject(r.position.as_ref())?;
        let (limits, options) = self.analysis_limits(r)?;
        let ticket = self.jobs.admit(&client_of(&req), jobs::deadline_of(&req)).await?;
        let watch = self.watch(&ticket, &req);
        let span = tracing::info_span!("analyze", variant = %subject.variant(), multipv = options.multipv);
        let stream = self.stream_job(ticket, watch, span, move |tx, watch| {
            let info_tx = tx.clone();
            let info_watch = watch.clone();
            let best = Self::run_analysis(&subject, limits, options, watch, move |info| {
                let event = pb::AnalyzeResponse { event: Some(pb::analyze_response::Event::Info(info)) };
                info_tx.send(Ok(event), &info_watch).is_ok()
            })?;
            Ok(Some(pb::AnalyzeResponse { event: Some(pb::analyze_response::Event::BestMove(best)) }))
        });
        Ok(Response::new(stream))
    }

    async fn best_move(&self, req: Request<pb::BestMoveRequest>) -> Result<Response<pb::BestMoveResponse>, Status> {
        let r = pb::AnalyzeRequest::from(req.get_ref().clone());
        let subject = self.analysis_subject(r.position.as_ref())?;
        let (limits, options) = self.analysis_limits(&r)?;
        let ticket = self.jobs.admit(&client_of(&req), jobs::deadline_of(&req)).await?;
        let watch = self.unary_watch(&ticket, &req);
        let span = tracing::info_span!("best_move", variant = %subject.variant());
        let deadline = watch.deadline;
        let rx = self.jobs.spawn(span, move || Self::run_analysis(&subject, limits, options, &watch, |_| true));
        // Dropping this future (client cancelled) drops the ticket and stops the job.
        let result = match deadline {
            // Answer at the deadline itself, not when the job thread next looks.
            Some(d) => match tokio::time::timeout_at(d.into(), rx).await {
                Ok(r) => r,
                Err(_) => return Err(ServiceError::Deadline.into()),
            },
            None => rx.await,
        };
        let result = result.map_err(|_| Status::internal("job thread lost"))?;
        drop(ticket);
        Ok(Response::new(result?))
    }

    async fn validate_fen(
        &self,
        req: Request<pb::ValidateFenRequest>,
    ) -> Result<Response<pb::ValidateFenResponse>, Status> {
        let deadline = jobs::deadline_of(&req);
        let r = req.into_inner();
        let name = if r.variant.is_empty() { "chess" } else { r.variant.as_str() };
        if let Ok(VariantRef::Data(def)) = self.variants.find(name) {
            // Off the async runtime: the data rules' FEN reader is younger.
            let span = tracing::info_span!("validate_fen", variant = %def.name);
            let answer =
                self.jobs.run_unary(span, deadline, move || Ok(crate::data::validate_fen(&def, &r.fen))).await?;
            return Ok(Response::new(answer));
        }
        let variant = self
            .variants
            .lookup(name)
            .map_err(|e| ServiceError::BadField { field: "variant".into(), message: e.to_string() })?;
        let answer = match fen::parse(variant, &r.fen) {
            Ok(p) => pb::ValidateFenResponse { valid: true, fen: fen::format(&p), ..Default::default() },
            Err(e) => pb::ValidateFenResponse {
                valid: false,
                reason: crate::error::clip(&e.to_string()),
                field: e.field().map(|f| f.to_string().replace(' ', "_")).unwrap_or_default(),
                fen: String::new(),
            },
        };
        Ok(Response::new(answer))
    }

    async fn replay_moves(
        &self,
        req: Request<pb::ReplayMovesRequest>,
    ) -> Result<Response<pb::ReplayMovesResponse>, Status> {
        let deadline = jobs::deadline_of(&req);
        let r = req.into_inner();
        let svc = self.clone();
        let span = tracing::info_span!("replay_moves");
        let answer = self.jobs.run_unary(span, deadline, move || svc.replay(&r)).await?;
        Ok(Response::new(answer))
    }

    async fn get_server_info(
        &self,
        _req: Request<pb::GetServerInfoRequest>,
    ) -> Result<Response<pb::GetServerInfoResponse>, Status> {
        let c = &self.config;
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Ok(Response::new(pb::GetServerInfoResponse {
            version: env!("CARGO_PKG_VERSION").into(),
            api: "menagerie.v1".into(),
            profile: if cfg!(debug_assertions) { "debug" } else { "release" }.into(),
            target: format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS),
            features: if cfg!(feature = "otel") { vec!["otel".into()] } else { Vec::new() },
            max_perft_depth: c.max_perft_depth,
            max_analysis_depth: c.max_analysis_depth,
            max_threads: clamp(c.max_threads),
            max_moves: clamp(c.max_moves),
            max_jobs: clamp(c.max_jobs),
            variants: self
                .variants
                .iter()
                .map(|v| v.name().to_string())
                .chain(self.variants.data_names().map(str::to_string))
                .collect(),
        }))
    }

    async fn read_pgn(&self, req: Request<pb::ReadPgnRequest>) -> Result<Response<pb::ReadPgnResponse>, Status> {
        let deadline = jobs::deadline_of(&req);
        let r = req.into_inner();
        let span = tracing::info_span!("read_pgn", bytes = r.pgn.len());
        let svc = self.clone();
        let answer = self.jobs.run_unary(span, deadline, move || read_pgn(&r.pgn, &svc.variants)).await?;
        Ok(Response::new(answer))
    }

    async fn write_pgn(&self, req: Request<pb::WritePgnRequest>) -> Result<Response<pb::WritePgnResponse>, Status> {
        let deadline = jobs::deadline_of(&req);
        let r = req.into_inner();
        let svc = self.clone();
        let span = tracing::info_span!("write_pgn");
        let answer = self.jobs.run_unary(span, deadline, move || svc.write_pgn_answer(&r)).await?;
        Ok(Response::new(answer))
    }

    type AnnotateGameStream = EventStream<pb::AnnotateGameResponse>;

    async fn annotate_game(
        &self,
        req: Request<pb::AnnotateGameRequest>,
    ) -> Result<Response<Self::AnnotateGameStream>, Status> {
        let (game, options) = self.annotate_setup(req.get_ref())?;
        let ticket = self.jobs.admit(&client_of(&req), jobs::deadline_of(&req)).await?;
        let watch = self.watch(&ticket, &req);
        let (variant, plies) = match &game {
            pgn::AnyPgnGame::Compiled(g) => (g.variant.name().to_string(), g.moves.len()),
            pgn::AnyPgnGame::Data(g) => (g.variant.name.clone(), g.moves.len()),
        };
        let span = tracing::info_span!("annotate_game", variant = %variant, moves = plies, workers = options.workers);
        let stream = self.stream_job(ticket, watch, span, move |tx, watch| match &game {
            pgn::AnyPgnGame::Compiled(g) => annotate_job(g, options, tx, watch),
            pgn::AnyPgnGame::Data(g) => annotate_job(g, options, tx, watch),
        });
        Ok(Response::new(stream))
    }

    async fn render_board(
        &self,
        req: Request<pb::RenderBoardRequest>,
    ) -> Result<Response<pb::RenderBoardResponse>, Status> {
        let deadline = jobs::deadline_of(&req);
        let r = req.into_inner();
        let svc = self.clone();
        let span = tracing::info_span!("render_board");
        let answer = self.jobs.run_unary(span, deadline, move || svc.render(&r)).await?;
        Ok(Response::new(answer))
    }
}

/// Runs a review on the job thread, streaming its events; the last event
/// (the summary with the annotated PGN) is returned.
fn annotate_job<P: menagerie_review::ReviewPosition>(
    game: &pgn::PgnGame<P>,
    mut options: menagerie_review::ReviewOptions,
    tx: &EventSender<pb::AnnotateGameResponse>,
    watch: &Watch,
) -> Result<Option<pb::AnnotateGameResponse>, ServiceError> {
    use menagerie_review::{ReviewError, ReviewEvent};
    use pb::annotate_game_response::Event;
    let stop = Arc::new(AtomicBool::new(false));
    options.stop = Some(stop.clone());
    // The review's own threads do not look at the watch: a watcher thread
    // turns the deadline, the client leaving or a shutdown into its stop flag.
    let done = Arc::new(AtomicBool::new(false));
    let why: Arc<Mutex<Option<ServiceError>>> = Arc::new(Mutex::new(None));
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if let Some(r) = watch.reason() {
                    if let Ok(mut w) = why.lock() {
                        w.get_or_insert(r);
                    }
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        let _done = Defer(|| done.store(true, Ordering::Relaxed));
        menagerie_review::review(game, &options, |event| {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let event = match event {
                ReviewEvent::Started { positions, searches, workers } => Event::Started(pb::AnnotateStarted {
                    positions: positions as u32,
                    searches: searches as u32,
                    workers: workers as u32,
                }),
                ReviewEvent::Position(p) => Event::Position(position_review_pb(&p)),
                ReviewEvent::Move(m) => Event::Move(move_review_pb(&m)),
            };
            if let Err(e) = tx.send(Ok(pb::AnnotateGameResponse { event: Some(event) }), watch) {
                if let Ok(mut w) = why.lock() {
                    w.get_or_insert(e);
                }
                stop.store(true, Ordering::Relaxed);
            }
        })
    });
    let review = match result {
        Ok(r) => r,
        Err(ReviewError::Cancelled { .. }) => {
            let known = why.lock().ok().and_then(|mut w| w.take());
            return Err(watch.stopped_early(known));
        }
        Err(ReviewError::Game(e)) => {
            return Err(ServiceError::IllegalMove { field: "pgn".into(), message: e.to_string() });
        }
        Err(ReviewError::Options(m)) => return Err(ServiceError::BadField { field: "budget".into(), message: m }),
        Err(e) => return Err(ServiceError::Internal(e.to_string())),
    };
    watch.stats.search_nodes.fetch_add(review.positions.iter().map(|p| p.nodes).sum(), Ordering::Relaxed);
    let annotated_pgn = review.annotated_pgn(game).map_err(|e| ServiceError::Internal(e.to_string()))?;
    let side = |s: &menagerie_review::SideSummary| pb::SideSummary {
        moves: s.moves as u32,
        best: s.best as u32,
        good: s.good as u32,
        inaccuracies: s.inaccuracies as u32,
        mistakes: s.mistakes as u32,
        blunders: s.blunders as u32,
        average_centipawn_loss: s.average_centipawn_loss,
        accuracy: s.accuracy,
    };
    Ok(Some(pb::AnnotateGameResponse {
        event: Some(Event::Summary(pb::GameSummary {
            variant: review.variant.clone(),
            white: Some(side(&review.summary.white)),
            black: Some(side(&review.summary.black)),
            annotated_pgn,
        })),
    }))
}

fn evaluation_pb(e: menagerie_review::Eval) -> pb::Evaluation {
    use pb::evaluation::Value;
    let value = match e {
        menagerie_review::Eval::Cp(cp) => Value::Cp(cp),
        menagerie_review::Eval::Mate(n) => Value::Mate(n),
        menagerie_review::Eval::Won(side) => Value::Won(side.name().to_ascii_lowercase()),
    };
    pb::Evaluation { value: Some(value) }
}

fn position_review_pb(p: &menagerie_review::PositionReport) -> pb::PositionReview {
    pb::PositionReview {
        index: p.index as u32,
        fen: p.fen.clone(),
        side_to_move: p.side_to_move.name().to_ascii_lowercase(),
        evaluation: Some(evaluation_pb(p.score)),
        best_move: p.best_move_uci.clone().unwrap_or_default(),
        best_move_san: p.best_move_san.clone().unwrap_or_default(),
        pv: p.pv_uci.clone(),
        pv_san: p.pv_san.clone(),
        depth: p.depth,
        nodes: p.nodes,
        time_ms: p.time_ms,
        result: p.outcome.as_ref().map(|o| o.result.clone()).unwrap_or_default(),
        result_description: p.outcome.as_ref().map(|o| o.description.clone()).unwrap_or_default(),
        wdl: Some(pb::Wdl { win: p.chances.white, draw: p.chances.draw, loss: p.chances.black }),
    }
}

fn move_review_pb(m: &menagerie_review::MoveReport) -> pb::MoveReview {
    use menagerie_review::Classification as C;
    use pb::MoveClassification as P;
    let classification = match m.classification {
        C::Best => P::Best,
        C::Good => P::Good,
        C::Inaccuracy => P::Inaccuracy,
        C::Mistake => P::Mistake,
        C::Blunder => P::Blunder,
    };
    pb::MoveReview {
        ply: m.index as u32,
        move_number: m.move_number,
        color: m.colour.name().to_ascii_lowercase(),
        played: m.played_uci.clone(),
        played_san: m.played_san.clone(),
        best_move: m.best_uci.clone(),
        best_move_san: m.best_san.clone(),
        evaluation_before: Some(evaluation_pb(m.eval_before)),
        evaluation_after: Some(evaluation_pb(m.eval_after)),
        win_before: m.win_before,
        win_after: m.win_after,
        loss: m.loss,
        cp_loss: m.cp_loss,
        accuracy: m.accuracy,
        classification: classification as i32,
        best_line: m.best_line_uci.clone(),
        best_line_san: m.best_line_san.clone(),
        svg: m.svg.clone().unwrap_or_default(),
    }
}

/// ReadPgn's answer: every game of the text (of a compiled variant or of
/// one of `variants` defined as data), or the first bad game's error.
fn read_pgn(text: &str, variants: &Variants) -> Result<pb::ReadPgnResponse, ServiceError> {
    let bad = |message: String| ServiceError::BadField { field: "pgn".into(), message: crate::error::clip(&message) };
    let games = variants.read_pgn(text, pgn::ReadOptions::default()).map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::with_capacity(games.len());
    for (i, g) in games.iter().enumerate() {
        let illegal = |e: pgn::IllegalPgnMove| bad(format!("game {}: {e}", i + 1));
        let g = match g {
            pgn::AnyPgnGame::Compiled(g) => g,
            pgn::AnyPgnGame::Data(g) => {
                out.push(data_pgn_game(g).map_err(illegal)?);
                continue;
            }
        };
        let positions = g.positions().map_err(illegal)?;
        let v = g.variant;
        let moves = g
            .moves
            .iter()
            .zip(positions.windows(2))
            .map(|(m, w)| pb::LegalMove {
                uci: uci::format(v, m.mv),
                san: san::format(&w[0], m.mv),
                fen: fen::format(&w[1]),
                gives_check: w[1].is_check(),
                is_capture: w[0].is_capture(m.mv),
            })
            .collect();
        let start_fen = if g.start == AnyPosition::start(v) { String::new() } else { fen::format(&g.start) };
        out.push(pb::PgnGame {
            tags: g.tags.iter().map(|(name, value)| pb::PgnTag { name: name.clone(), value: value.clone() }).collect(),
            position: Some(pb::Position { variant: v.name().into(), fen: start_fen, moves: g.uci_moves() }),
            moves,
            result: g.result.as_str().into(),
            pgn: g.to_pgn().map_err(illegal)?,
        });
    }
    Ok(pb::ReadPgnResponse { games: out })
}

/// A game of a variant defined as data as ReadPgn describes it.
fn data_pgn_game(g: &pgn::DataPgnGame) -> Result<pb::PgnGame, pgn::IllegalPgnMove> {
    let positions = g.positions()?;
    let moves = g.moves.iter().zip(&positions).map(|(m, p)| crate::data::legal_move(p, m.mv).0).collect();
    let start_fen = if g.start == DataPosition::start(&g.variant) { String::new() } else { g.start.fen() };
    Ok(pb::PgnGame {
        tags: g.tags.iter().map(|(name, value)| pb::PgnTag { name: name.clone(), value: value.clone() }).collect(),
        position: Some(pb::Position { variant: g.variant.name.clone(), fen: start_fen, moves: g.uci_moves()? }),
        moves,
        result: g.result.as_str().into(),
        pgn: g.to_pgn()?,
    })
}

/// Sets WritePgn's tags on `game`.
fn set_pgn_tags<P: pgn::PgnPosition>(game: &mut pgn::PgnGame<P>, tags: &[pb::PgnTag]) -> Result<(), ServiceError> {
    if tags.len() > 256 {
        return Err(ServiceError::OutOfRange { field: "tags".into(), value: tags.len() as u64, max: 256 });
    }
    for (i, t) in tags.iter().enumerate() {
        let bad = |message: String| ServiceError::BadField { field: format!("tags[{i}]"), message };
        let name_ok =
            !t.name.is_empty() && t.name.len() <= 255 && t.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !name_ok {
            return Err(bad(format!(
                "tag name '{}' must be 1 to 255 letters, digits or '_'",
                crate::error::clip(&t.name)
            )));
        }
        if t.value.len() > 4096 || t.value.contains(['\n', '\r']) {
            return Err(bad("a tag value is one line of at most 4096 bytes".into()));
        }
        if !game.set_tag(&t.name, &t.value) {
            return Err(bad(format!("'{}' comes from the position and result, not from a tag", t.name)));
        }
    }
    Ok(())
}

/// WritePgn's result: the request's, or the game's own when it is empty.
/// A game the rules have decided (`decided`: checkmate, stalemate, a
/// variant's win, ...) takes no other result (`FAILED_PRECONDITION`); an
/// undecided one takes any (a resignation, a draw by agreement, a loss on time).
fn pgn_result(
    token: &str,
    decided: Option<&pb::Outcome>,
    own: impl FnOnce() -> pgn::GameResult,
) -> Result<pgn::GameResult, ServiceError> {
    if token.is_empty() {
        return Ok(own());
    }
    let result = pgn::GameResult::from_token(token).ok_or_else(|| ServiceError::BadField {
        field: "result".into(),
        message: format!("'{}' is not a result (1-0, 0-1, 1/2-1/2 or *)", crate::error::clip(token)),
    })?;
    match decided {
        Some(o) if o.result != result.as_str() => Err(ServiceError::Contradiction {
            field: "result".into(),
            message: format!(
                "'{}' contradicts the game: it is over, {} ({}); give {} or leave the result empty",
                result.as_str(),
                o.result,
                o.description,
                o.result
            ),
        }),
        _ => Ok(result),
    }
}

impl AnalysisApi {
    /// AnnotateGame's game and review options, checked against the caps
    /// before a job slot is taken.
    fn annotate_setup(
        &self,
        r: &pb::AnnotateGameRequest,
    ) -> Result<(pgn::AnyPgnGame, menagerie_review::ReviewOptions), ServiceError> {
        use menagerie_review::{Budget, ReviewOptions, SvgMode, Thresholds};
        let c = &self.config;
        let game = if r.pgn.is_empty() && self.data_variant(r.position.as_ref()).is_some() {
            let played = self.parse_data_game(r.position.as_ref())?;
            let mut game = pgn::PgnGame::from_position(played.start().clone());
            for &m in played.moves() {
                game.push(m).map_err(|e| ServiceError::IllegalMove {
                    field: "position.moves".into(),
                    message: e.to_string(),
                })?;
            }
            pgn::AnyPgnGame::Data(game)
        } else if r.pgn.is_empty() {
            let parsed = self.parse_position(r.position.as_ref(), "game annotation")?;
            let mut game = pgn::PgnGame::from_position(parsed.start);
            for &m in &parsed.moves {
                game.push(m).map_err(|e| ServiceError::IllegalMove {
                    field: "position.moves".into(),
                    message: e.to_string(),
                })?;
            }
            pgn::AnyPgnGame::Compiled(game)
        } else {
            let bad =
                |message: String| ServiceError::BadField { field: "pgn".into(), message: crate::error::clip(&message) };
            let mut games =
                self.variants.read_pgn(&r.pgn, pgn::ReadOptions::default()).map_err(|e| bad(e.to_string()))?;
            match games.len() {
                1 => games.remove(0),
                0 => return Err(bad("the PGN holds no game".into())),
                n => return Err(bad(format!("the PGN holds {n} games; annotate one game per call"))),
            }
        };
        let plies = match &game {
            pgn::AnyPgnGame::Compiled(g) => g.moves.len(),
            pgn::AnyPgnGame::Data(g) => g.moves.len(),
        };
        if plies > c.max_moves {
            return Err(ServiceError::OutOfRange { field: "pgn".into(), value: plies as u64, max: c.max_moves as u64 });
        }
        let check = |field: &str, value: u64, max: u64| -> Result<(), ServiceError> {
            if value > max { Err(ServiceError::OutOfRange { field: field.into(), value, max }) } else { Ok(()) }
        };
        check("depth", r.depth as u64, c.max_analysis_depth as u64)?;
        check("nodes", r.nodes, c.max_analysis_nodes)?;
        check("movetime_ms", r.movetime_ms as u64, c.max_analysis_ms)?;
        check("threads", r.threads as u64, c.max_threads as u64)?;
        let budget = match (r.depth, r.nodes, r.movetime_ms) {
            (0, 0, 0) => Budget::Time(Duration::from_millis(c.default_analysis_ms)),
            (d, 0, 0) => Budget::Depth(d),
            (0, n, 0) => Budget::Nodes(n),
            (0, 0, t) => Budget::Time(Duration::from_millis(t as u64)),
            _ => {
                return Err(ServiceError::BadField {
                    field: "depth".into(),
                    message: "give at most one of depth, nodes and movetime_ms".into(),
                });
            }
        };
        let svg = match pb::Pictures::try_from(r.pictures) {
            Ok(pb::Pictures::Unspecified) => SvgMode::None,
            Ok(pb::Pictures::Mistakes) => SvgMode::Mistakes,
            Ok(pb::Pictures::All) => SvgMode::All,
            Err(_) => {
                return Err(ServiceError::BadField {
                    field: "pictures".into(),
                    message: format!("unknown value {}", r.pictures),
                });
            }
        };
        let thresholds = match pb::Thresholds::try_from(r.thresholds) {
            Ok(pb::Thresholds::Unspecified) => Thresholds::LICHESS,
            Ok(pb::Thresholds::Lenient) => Thresholds::LENIENT,
            Err(_) => {
                return Err(ServiceError::BadField {
                    field: "thresholds".into(),
                    message: format!("unknown value {}", r.thresholds),
                });
            }
        };
        let options = ReviewOptions {
            budget,
            workers: (r.threads as usize).max(1),
            hash_mb: c.analysis_hash_mb,
            svg,
            thresholds,
            stop: None,
            max_time: Some(Duration::from_millis(c.max_analysis_ms)),
        };
        Ok((game, options))
    }

    /// WritePgn's answer: the position's game with the tags and result.
    fn write_pgn_answer(&self, r: &pb::WritePgnRequest) -> Result<pb::WritePgnResponse, ServiceError> {
        let moves_error =
            |e: pgn::IllegalPgnMove| ServiceError::BadField { field: "position.moves".into(), message: e.to_string() };
        if self.data_variant(r.position.as_ref()).is_some() {
            let played = self.parse_data_game(r.position.as_ref())?;
            let mut game = pgn::PgnGame::from_position(played.start().clone());
            for &m in played.moves() {
                // Legal: parse_data_game replayed them.
                game.push(m).map_err(moves_error)?;
            }
            set_pgn_tags(&mut game, &r.tags)?;
            // An ended game's result (a draw the side to move may claim is not one).
            let ended = status_pb(play::data_status(&played)).0;
            let own = || {
                ended.as_ref().and_then(|o| pgn::GameResult::from_token(&o.result)).unwrap_or(pgn::GameResult::Unknown)
            };
            game.result = pgn_result(&r.result, ended.as_ref(), own)?;
            return Ok(pb::WritePgnResponse { pgn: game.to_pgn().map_err(moves_error)? });
        }
        let parsed = self.parse_position(r.position.as_ref(), "PGN")?;
        let mut game = pgn::PgnGame::from_position(parsed.start);
        for &m in &parsed.moves {
            // Legal: parse_position replayed them.
            game.push(m).map_err(moves_error)?;
        }
        set_pgn_tags(&mut game, &r.tags)?;
        let own = || parsed.game().outcome().map_or(pgn::GameResult::Unknown, pgn::GameResult::from_outcome);
        let decided = status_pb(play::status(&parsed.game())).0;
        game.result = pgn_result(&r.result, decided.as_ref(), own)?;
        Ok(pb::WritePgnResponse { pgn: game.to_pgn().map_err(moves_error)? })
    }

    /// ReplayMoves' answer: every move of the list, described in the
    /// position it is played in.
    fn replay(&self, r: &pb::ReplayMovesRequest) -> Result<pb::ReplayMovesResponse, ServiceError> {
        if self.data_variant(r.position.as_ref()).is_some() {
            return self.data_replay(r);
        }
        let parsed = self.parse_position(r.position.as_ref(), "replay")?;
        let v = parsed.start.variant();
        let mut pos = parsed.start;
        let mut moves = Vec::with_capacity(parsed.moves.len());
        for &m in &parsed.moves {
            let after = pos.play_unchecked(m);
            moves.push(pb::LegalMove {
                uci: uci::format(v, m),
                san: san::format(&pos, m),
                fen: fen::format(&after),
                gives_check: after.is_check(),
                is_capture: pos.is_capture(m),
            });
            pos = after;
        }
        let (outcome, claimable_draw) = status_pb(play::status(&parsed.game()));
        Ok(pb::ReplayMovesResponse { moves, fen: fen::format(&parsed.current), outcome, claimable_draw })
    }

    /// RenderBoard's answer: the position is checked as every request's is
    /// (same errors and caps), then drawn by `menagerie_render`.
    fn render(&self, r: &pb::RenderBoardRequest) -> Result<pb::RenderBoardResponse, ServiceError> {
        /// The game drawn: a compiled variant's or a data variant's.
        enum Drawn {
            Compiled(Box<ParsedPosition>),
            Data(DataGame),
        }
        let game = if self.data_variant(r.position.as_ref()).is_some() {
            Drawn::Data(self.parse_data_game(r.position.as_ref())?)
        } else {
            Drawn::Compiled(Box::new(self.parse_position(r.position.as_ref(), "board pictures")?))
        };
        for (name, list) in [("arrows", &r.arrows), ("highlights", &r.highlights)] {
            if list.len() > 256 {
                return Err(ServiceError::OutOfRange { field: name.into(), value: list.len() as u64, max: 256 });
            }
        }
        let arrows: Vec<&str> = r.arrows.iter().map(String::as_str).collect();
        let highlights: Vec<&str> = r.highlights.iter().map(String::as_str).collect();
        let req = menagerie_render::BoardRequest {
            arrows: &arrows,
            highlights: &highlights,
            flip: r.flip,
            size: if r.size == 0 { menagerie_render::DEFAULT_SIZE } else { r.size },
            coordinates: !r.no_coordinates,
            ..menagerie_render::BoardRequest::default()
        };
        let bad =
            |e: menagerie_render::OptionError| ServiceError::BadField { field: e.field, message: e.error.to_string() };
        let bad_size =
            |e: menagerie_render::RenderError| ServiceError::BadField { field: "size".into(), message: e.to_string() };
        let svg = match &game {
            Drawn::Compiled(p) => {
                let (files, ranks) = p.current.variant().size();
                let last_move = p.moves.last().and_then(|&m| menagerie_render::last_move_squares(m));
                let options = menagerie_render::request_options(&req, files, ranks, last_move).map_err(bad)?;
                menagerie_render::render(&p.current, &options).map_err(bad_size)?
            }
            Drawn::Data(g) => {
                let def = g.current().variant();
                let last_move = g.moves().last().and_then(|&m| menagerie_render::data_last_move_squares(m));
                let options = menagerie_render::request_options(&req, def.files, def.ranks, last_move).map_err(bad)?;
                menagerie_render::render_data(g.current(), &options).map_err(bad_size)?
            }
        };
        Ok(pb::RenderBoardResponse { svg })
    }

    /// ValidateMove's answer (CPU work: runs off the async runtime).
    fn validate(&self, r: &pb::ValidateMoveRequest) -> Result<pb::ValidateMoveResponse, ServiceError> {
        self.faults.trip();
        let request = self.position_request(r.position.as_ref());
        match self.variants.validate(&request, &r.r#move) {
            Ok(Validation::Legal(v)) => {
                let (outcome, claimable_draw) = status_pb(v.status);
                Ok(pb::ValidateMoveResponse {
                    legal: true,
                    reason: String::new(),
                    uci: v.uci,
                    san: v.san,
                    fen: v.fen,
                    check: v.check,
                    outcome,
                    is_capture: v.capture,
                    claimable_draw,
                })
            }
            Ok(Validation::Illegal(why)) => {
                Ok(pb::ValidateMoveResponse { legal: false, reason: crate::error::clip(&why), ..Default::default() })
            }
            Err(ValidateError::Position(e)) => Err(ServiceError::position(e)),
            Err(ValidateError::Malformed(message)) => Err(ServiceError::BadField { field: "move".into(), message }),
        }
    }

    /// LegalMoves' answer (CPU work: runs off the async runtime).
    fn list_legal(&self, r: &pb::LegalMovesRequest) -> Result<pb::LegalMovesResponse, ServiceError> {
        let request = self.position_request(r.position.as_ref());
        let l = self.variants.legal_moves(&request).map_err(ServiceError::position)?;
        let (outcome, claimable_draw) = status_pb(l.status);
        Ok(pb::LegalMovesResponse {
            moves: l
                .moves
                .into_iter()
                .map(|m| pb::LegalMove {
                    uci: m.uci,
                    san: m.san,
                    fen: m.fen,
                    gives_check: m.check,
                    is_capture: m.capture,
                })
                .collect(),
            fen: l.fen,
            side_to_move: l.side_to_move.into(),
            check: l.check,
            outcome,
            claimable_draw,
            white_insufficient_material: l.insufficient_material[0],
            black_insufficient_material: l.insufficient_material[1],
        })
    }

    /// ReplayMoves in a variant defined as data: each move described in the
    /// position it is played in.
    fn data_replay(&self, r: &pb::ReplayMovesRequest) -> Result<pb::ReplayMovesResponse, ServiceError> {
        let empty = pb::Position::default();
        let p = r.position.as_ref().unwrap_or(&empty);
        // The start (and the cap on the moves), then each move in turn.
        let start = pb::Position { variant: p.variant.clone(), fen: p.fen.clone(), moves: Vec::new() };
        if p.moves.len() > self.config.max_moves {
            return Err(ServiceError::OutOfRange {
                field: "position.moves".into(),
                value: p.moves.len() as u64,
                max: self.config.max_moves as u64,
            });
        }
        let mut game = self.parse_data_game(Some(&start))?;
        let mut fen = game.current().fen();
        let mut moves = Vec::with_capacity(p.moves.len());
        for (index, text) in p.moves.iter().enumerate() {
            let pos = game.current();
            let m = pos.parse_any(text).map_err(|e| ServiceError::data_move(&format!("position.moves[{index}]"), e))?;
            let (described, _) = crate::data::legal_move(pos, m);
            fen = described.fen.clone();
            moves.push(described);
            game.play(m);
        }
        let (outcome, claimable_draw) = status_pb(play::data_status(&game));
        Ok(pb::ReplayMovesResponse { moves, fen, outcome, claimable_draw })
    }

    /// A batch job's position, compiled or defined as data.
    fn perft_subject(&self, p: Option<&pb::Position>) -> Result<GamePosition, ServiceError> {
        match self.data_variant(p) {
            Some(_) => self.parse_data_position(p).map(GamePosition::Data),
            None => self.parse_position(p, "perft").map(|parsed| GamePosition::Compiled(parsed.current)),
        }
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
            let got = match &subject {
                GamePosition::Compiled(pos) => {
                    Self::perft_job(pos, d, threads, None, watch, caps, &progress, &|_, _| Ok(()))
                }
                GamePosition::Data(pos) => {
                    Self::perft_job(pos, d, threads, None, watch, caps, &progress, &|_, _| Ok(()))
                }
            };
            let got = match got {
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
