//! The `menagerie.v1.AnalysisService` service.

use crate::config::Config;
use crate::error::ServiceError;
use crate::jobs::{self, ClientId, EventSender, Jobs, Ticket, Watch};
use menagerie_api::pb::{self, analysis_service_server::AnalysisService};
use menagerie_app::fen_check::FenCheck;
use menagerie_app::play::{self, GameStatus, ValidMove, ValidateError, Validation};
use menagerie_app::{DataGame, LoadError, ParsedPosition, PositionRequest, VariantDef, VariantRef, Variants};
use menagerie_notation::pgn;
use menagerie_search::wdl::{self, WdlModel};
use menagerie_search::{Engine, EngineOptions, Info, Limits, Score, SearchHandle};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

mod perft;
mod pgn_rpc;

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

/// A variant of the catalogue in the API's terms.
fn variant_info_pb(v: menagerie_app::catalogue::VariantInfo) -> pb::VariantInfo {
    pb::VariantInfo {
        name: v.name,
        files: v.files,
        ranks: v.ranks,
        pieces: v
            .pieces
            .into_iter()
            .map(|p| pb::PieceInfo {
                letter: p.letter.to_string(),
                name: p.name,
                betza: p.betza,
                value: p.value.unwrap_or(0),
            })
            .collect(),
        start_fen: v.start_fen,
        summary: v.summary,
        promotions: v.promotions.iter().map(char::to_string).collect(),
        reserve_piece: v.reserve_piece.map(String::from).unwrap_or_default(),
        defined_as_data: v.defined_as_data,
    }
}

/// A described move in the API's terms.
fn legal_move_pb(m: ValidMove) -> pb::LegalMove {
    pb::LegalMove { uci: m.uci, san: m.san, fen: m.fen, gives_check: m.check, is_capture: m.capture }
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
}

type EventStream<T> = JobStream<T>;

#[tonic::async_trait]
impl AnalysisService for AnalysisApi {
    async fn list_variants(
        &self,
        _req: Request<pb::ListVariantsRequest>,
    ) -> Result<Response<pb::ListVariantsResponse>, Status> {
        let variants = self.variants.catalogue().into_iter().map(variant_info_pb).collect();
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
        self.perft_rpc(req).await
    }

    type PerftBatchStream = EventStream<pb::PerftBatchResponse>;

    async fn perft_batch(
        &self,
        req: Request<Streaming<pb::PerftBatchRequest>>,
    ) -> Result<Response<Self::PerftBatchStream>, Status> {
        self.perft_batch_rpc(req).await
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
        let unknown = |e: menagerie_app::UnknownVariant| ServiceError::BadField {
            field: "variant".into(),
            message: e.to_string(),
        };
        let variant = self.variants.find(name).map_err(unknown)?;
        let (variants, name) = (self.variants.clone(), variant.name().to_string());
        let check = move || {
            let answer = match variants.check_fen(&name, &r.fen).map_err(unknown)? {
                FenCheck::Valid(fen) => pb::ValidateFenResponse { valid: true, fen, ..Default::default() },
                FenCheck::Invalid { reason, field } => pb::ValidateFenResponse {
                    valid: false,
                    reason: crate::error::clip(&reason),
                    field,
                    fen: String::new(),
                },
            };
            Ok(answer)
        };
        let answer = match variant {
            // Off the async runtime: the data rules' FEN reader is younger.
            VariantRef::Data(def) => {
                let span = tracing::info_span!("validate_fen", variant = %def.name);
                self.jobs.run_unary(span, deadline, check).await?
            }
            VariantRef::Compiled(_) => check()?,
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
            variants: self.variants.all_names(),
        }))
    }

    async fn read_pgn(&self, req: Request<pb::ReadPgnRequest>) -> Result<Response<pb::ReadPgnResponse>, Status> {
        let deadline = jobs::deadline_of(&req);
        let r = req.into_inner();
        let span = tracing::info_span!("read_pgn", bytes = r.pgn.len());
        let svc = self.clone();
        let answer = self.jobs.run_unary(span, deadline, move || pgn_rpc::read_pgn(&r.pgn, &svc.variants)).await?;
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

    /// ReplayMoves' answer: every move of the list, described in the
    /// position it is played in.
    fn replay(&self, r: &pb::ReplayMovesRequest) -> Result<pb::ReplayMovesResponse, ServiceError> {
        let request = self.position_request(r.position.as_ref());
        let replay = self.variants.replay(&request).map_err(ServiceError::position)?;
        let (outcome, claimable_draw) = status_pb(replay.status);
        let moves = replay.moves.into_iter().map(legal_move_pb).collect();
        Ok(pb::ReplayMovesResponse { moves, fen: replay.fen, outcome, claimable_draw })
    }

    /// RenderBoard's answer: the position is checked as every request's is
    /// (same errors and caps), then drawn (`menagerie_app::board`).
    fn render(&self, r: &pb::RenderBoardRequest) -> Result<pb::RenderBoardResponse, ServiceError> {
        use menagerie_app::board::BoardError;
        for (name, list) in [("arrows", &r.arrows), ("highlights", &r.highlights)] {
            if list.len() > 256 {
                return Err(ServiceError::OutOfRange { field: name.into(), value: list.len() as u64, max: 256 });
            }
        }
        let arrows: Vec<&str> = r.arrows.iter().map(String::as_str).collect();
        let highlights: Vec<&str> = r.highlights.iter().map(String::as_str).collect();
        let board = menagerie_render::BoardRequest {
            arrows: &arrows,
            highlights: &highlights,
            flip: r.flip,
            size: if r.size == 0 { menagerie_render::DEFAULT_SIZE } else { r.size },
            coordinates: !r.no_coordinates,
            ..menagerie_render::BoardRequest::default()
        };
        let svg =
            self.variants.render_board(&self.position_request(r.position.as_ref()), &board).map_err(|e| match e {
                BoardError::Position(e) => ServiceError::position(e),
                BoardError::Option(e) => ServiceError::BadField { field: e.field, message: e.error.to_string() },
                BoardError::Render(e) => ServiceError::BadField { field: "size".into(), message: e.to_string() },
            })?;
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
            moves: l.moves.into_iter().map(legal_move_pb).collect(),
            fen: l.fen,
            side_to_move: l.side_to_move.into(),
            check: l.check,
            outcome,
            claimable_draw,
            white_insufficient_material: l.insufficient_material[0],
            black_insufficient_material: l.insufficient_material[1],
        })
    }
}
