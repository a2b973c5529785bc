//! The `menagerie.v1.AnalysisService` service.

use crate::config::Config;
use crate::error::ServiceError;
use crate::jobs::{self, ClientId, EventSender, Jobs, Ticket, Watch};
use menagerie_api::pb::{self, analysis_service_server::AnalysisService};
use menagerie_app::fen_check::FenCheck;
use menagerie_app::play::{GameStatus, ValidMove, ValidateError, Validation};
use menagerie_app::{LoadError, PositionRequest, VariantRef, Variants};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

mod analysis;
mod annotate;
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

    /// The position a request names (chess when its variant is blank, the
    /// start position when its FEN is), its moves capped by the configuration.
    /// Refuses a search's `depth`, `nodes`, `movetime_ms` and `threads`
    /// above the server's caps (OUT_OF_RANGE naming the first such field).
    fn check_search_caps(&self, depth: u32, nodes: u64, movetime_ms: u32, threads: u32) -> Result<(), ServiceError> {
        let c = &self.config;
        ServiceError::at_most("depth", depth.into(), c.max_analysis_depth as u64)?;
        ServiceError::at_most("nodes", nodes, c.max_analysis_nodes)?;
        ServiceError::at_most("movetime_ms", movetime_ms.into(), c.max_analysis_ms)?;
        ServiceError::at_most("threads", threads.into(), c.max_threads as u64)
    }

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
        self.unary(req, tracing::info_span!("validate_move"), |svc, r| svc.validate(r)).await
    }

    async fn legal_moves(
        &self,
        req: Request<pb::LegalMovesRequest>,
    ) -> Result<Response<pb::LegalMovesResponse>, Status> {
        self.unary(req, tracing::info_span!("legal_moves"), |svc, r| svc.list_legal(r)).await
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
        self.analyze_rpc(req).await
    }

    async fn best_move(&self, req: Request<pb::BestMoveRequest>) -> Result<Response<pb::BestMoveResponse>, Status> {
        self.best_move_rpc(req).await
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
        self.unary(req, tracing::info_span!("replay_moves"), |svc, r| svc.replay(r)).await
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
        let span = tracing::info_span!("read_pgn", bytes = req.get_ref().pgn.len());
        self.unary(req, span, |svc, r| pgn_rpc::read_pgn(&r.pgn, &svc.variants)).await
    }

    async fn write_pgn(&self, req: Request<pb::WritePgnRequest>) -> Result<Response<pb::WritePgnResponse>, Status> {
        self.unary(req, tracing::info_span!("write_pgn"), |svc, r| svc.write_pgn_answer(r)).await
    }

    type AnnotateGameStream = EventStream<pb::AnnotateGameResponse>;

    async fn annotate_game(
        &self,
        req: Request<pb::AnnotateGameRequest>,
    ) -> Result<Response<Self::AnnotateGameStream>, Status> {
        self.annotate_rpc(req).await
    }

    async fn render_board(
        &self,
        req: Request<pb::RenderBoardRequest>,
    ) -> Result<Response<pb::RenderBoardResponse>, Status> {
        self.unary(req, tracing::info_span!("render_board"), |svc, r| svc.render(r)).await
    }
}

impl AnalysisApi {
    /// A unary RPC: `answer` computes the reply off the async runtime, as a
    /// job of the unary pool with the request's deadline, traced in `span`.
    async fn unary<Req: Send + 'static, Ans: Send + 'static>(
        &self,
        req: Request<Req>,
        span: tracing::Span,
        answer: impl FnOnce(&AnalysisApi, &Req) -> Result<Ans, ServiceError> + Send + 'static,
    ) -> Result<Response<Ans>, Status> {
        let deadline = jobs::deadline_of(&req);
        let r = req.into_inner();
        let svc = self.clone();
        let answer = self.jobs.run_unary(span, deadline, move || answer(&svc, &r)).await?;
        Ok(Response::new(answer))
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
