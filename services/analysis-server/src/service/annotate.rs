//! The AnnotateGame RPC: the game to review (a PGN text or the request's
//! position, `menagerie_app`), the server's caps on the review, the review
//! on a job thread and its events in the API's terms.

use super::{AnalysisApi, Defer, JobStream, client_of};
use crate::error::{ServiceError, clip};
use crate::jobs::{self, EventSender, Watch};
use menagerie_api::pb;
use menagerie_app::pgn::{self, OneGameError};
use menagerie_notation::pgn::{AnyPgnGame, PgnGame};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tonic::{Request, Response, Status};

/// Runs a review on the job thread, streaming its events; the last event
/// (the summary with the annotated PGN) is returned.
fn annotate_job<P: menagerie_review::ReviewPosition>(
    game: &PgnGame<P>,
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
    ) -> Result<(AnyPgnGame, menagerie_review::ReviewOptions), ServiceError> {
        use menagerie_review::{Budget, ReviewOptions, SvgMode, Thresholds};
        let c = &self.config;
        let game = if r.pgn.is_empty() {
            let request = self.position_request(r.position.as_ref());
            pgn::pgn_of(&self.variants.game(&request).map_err(ServiceError::position)?)
        } else {
            let bad = |e: OneGameError| ServiceError::BadField { field: "pgn".into(), message: clip(&e.to_string()) };
            self.variants.one_pgn_game(&r.pgn).map_err(bad)?
        };
        let plies = game.plies();
        if plies > c.max_moves {
            return Err(ServiceError::OutOfRange { field: "pgn".into(), value: plies as u64, max: c.max_moves as u64 });
        }
        self.check_search_caps(r.depth, r.nodes, r.movetime_ms, r.threads)?;
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
            Err(_) => return Err(ServiceError::unknown_value("pictures", r.pictures)),
        };
        let thresholds = match pb::Thresholds::try_from(r.thresholds) {
            Ok(pb::Thresholds::Unspecified) => Thresholds::LICHESS,
            Ok(pb::Thresholds::Lenient) => Thresholds::LENIENT,
            Err(_) => return Err(ServiceError::unknown_value("thresholds", r.thresholds)),
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

    /// AnnotateGame: a review's events, then its summary.
    pub(super) async fn annotate_rpc(
        &self,
        req: Request<pb::AnnotateGameRequest>,
    ) -> Result<Response<JobStream<pb::AnnotateGameResponse>>, Status> {
        let (game, options) = self.annotate_setup(req.get_ref())?;
        let ticket = self.jobs.admit(&client_of(&req), jobs::deadline_of(&req)).await?;
        let watch = self.watch(&ticket, &req);
        let (variant, plies) = (game.variant_name(), game.plies());
        let span = tracing::info_span!("annotate_game", variant = %variant, moves = plies, workers = options.workers);
        let stream = self.stream_job(ticket, watch, span, move |tx, watch| match &game {
            AnyPgnGame::Compiled(g) => annotate_job(g, options, tx, watch),
            AnyPgnGame::Data(g) => annotate_job(g, options, tx, watch),
        });
        Ok(Response::new(stream))
    }
}
