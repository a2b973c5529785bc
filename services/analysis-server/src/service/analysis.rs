//! The Analyze and BestMove RPCs: the request's game
//! (`menagerie_app::Variants::game_to_search`), the server's caps on a
//! search, the search on a job thread, and its lines in the API's terms.

use super::{AnalysisApi, JobStream, client_of};
use crate::error::ServiceError;
use crate::jobs::{self, Watch};
use menagerie_api::pb;
use menagerie_app::play::SearchGameError;
use menagerie_game::Game;
use menagerie_search::wdl::{self, WdlModel};
use menagerie_search::{Engine, EngineOptions, Info, Limits, Score, SearchHandle};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tonic::{Request, Response, Status};

fn score_pb(s: Score) -> pb::Score {
    pb::Score {
        value: Some(match s {
            Score::Cp(c) => pb::score::Value::Cp(c),
            Score::Mate(m) => pb::score::Value::Mate(m),
        }),
    }
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
    fn analysis_limits(&self, r: &pb::AnalyzeRequest) -> Result<(Limits, EngineOptions), ServiceError> {
        let c = &self.config;
        self.check_search_caps(r.depth, r.nodes, r.movetime_ms, r.threads)?;
        ServiceError::at_most("multipv", r.multipv as u64, c.max_multipv as u64)?;
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

    /// The game to analyse (`menagerie_app::Variants::game_to_search`):
    /// refused if it is over.
    fn analysis_game(&self, p: Option<&pb::Position>) -> Result<Game, ServiceError> {
        self.variants.game_to_search(&self.position_request(p)).map_err(|e| match e {
            SearchGameError::Position(e) => ServiceError::position(e),
            SearchGameError::Over(description) => ServiceError::GameOver(description),
        })
    }

    /// Runs an analysis on a job thread, sending info events through `info`.
    fn run_analysis(
        game: &Game,
        limits: Limits,
        options: EngineOptions,
        watch: &Watch,
        info: impl FnMut(pb::AnalyzeInfo) -> bool + Send + 'static,
    ) -> Result<pb::BestMoveResponse, ServiceError> {
        let mut engine = Engine::new(options);
        engine.set_game(game);
        let pos = game.current().clone();
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

    /// Analyze: info events as the search deepens, then the best move.
    pub(super) async fn analyze_rpc(
        &self,
        req: Request<pb::AnalyzeRequest>,
    ) -> Result<Response<JobStream<pb::AnalyzeResponse>>, Status> {
        let r = req.get_ref();
        let game = self.analysis_game(r.position.as_ref())?;
        let (limits, options) = self.analysis_limits(r)?;
        let ticket = self.jobs.admit(&client_of(&req), jobs::deadline_of(&req)).await?;
        let watch = self.watch(&ticket, &req);
        let variant = game.current().variant_name();
        let span = tracing::info_span!("analyze", variant = %variant, multipv = options.multipv);
        let stream = self.stream_job(ticket, watch, span, move |tx, watch| {
            let info_tx = tx.clone();
            let info_watch = watch.clone();
            let best = Self::run_analysis(&game, limits, options, watch, move |info| {
                let event = pb::AnalyzeResponse { event: Some(pb::analyze_response::Event::Info(info)) };
                info_tx.send(Ok(event), &info_watch).is_ok()
            })?;
            Ok(Some(pb::AnalyzeResponse { event: Some(pb::analyze_response::Event::BestMove(best)) }))
        });
        Ok(Response::new(stream))
    }

    /// BestMove: one search, answered when it ends (or at the deadline).
    pub(super) async fn best_move_rpc(
        &self,
        req: Request<pb::BestMoveRequest>,
    ) -> Result<Response<pb::BestMoveResponse>, Status> {
        let r = pb::AnalyzeRequest::from(req.get_ref().clone());
        let game = self.analysis_game(r.position.as_ref())?;
        let (limits, options) = self.analysis_limits(&r)?;
        let ticket = self.jobs.admit(&client_of(&req), jobs::deadline_of(&req)).await?;
        let watch = self.unary_watch(&ticket, &req);
        let variant = game.current().variant_name();
        let span = tracing::info_span!("best_move", variant = %variant);
        let deadline = watch.deadline;
        let rx = self.jobs.spawn(span, move || Self::run_analysis(&game, limits, options, &watch, |_| true));
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
}
