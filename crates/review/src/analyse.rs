//! The parallel analysis: workers, engines, streaming and cancellation.

use crate::position::ReviewPosition;
use crate::{
    Budget, Chances, Classification, Eval, GameEnd, GameReview, MoveReport, PositionReport, ReviewError, ReviewEvent,
    ReviewOptions, Side, Summary, SvgMode, move_accuracy,
};
use menagerie_notation::pgn::{PgnGame, PgnPosition};
use menagerie_search::wdl::{self, WdlModel};
use menagerie_search::{Engine, EngineOptions, Limits, MAX_DEPTH, Score};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How often the caller's thread looks at the stop flag while it waits.
const POLL: Duration = Duration::from_millis(5);

/// Reviews `game`'s main line: searches every position (see the crate
/// docs), calls `on_event` on the calling thread as positions and moves are
/// done, and returns the whole review.
///
/// Errors: an illegal move in the game, bad options (a zero budget, a depth
/// over [`MAX_DEPTH`]), the stop flag ([`ReviewError::Cancelled`]), or a
/// failure of the machinery (a worker thread that panicked, a search that
/// could not start).
pub fn review<P: ReviewPosition>(
    game: &PgnGame<P>,
    options: &ReviewOptions,
    mut on_event: impl FnMut(ReviewEvent),
) -> Result<GameReview, ReviewError> {
    let mut limits = limits(options.budget)?;
    limits.max_time = options.max_time;
    let positions = game.positions()?;
    let moves: Vec<P::Move> = game.moves.iter().map(|m| m.mv).collect();
    let total = positions.len();
    let stop = options.stop.clone().unwrap_or_default();
    let cancelled = |analysed: usize| ReviewError::Cancelled { analysed, total };
    if stop.load(Ordering::SeqCst) {
        return Err(cancelled(0));
    }

    let last = total - 1;
    let end = P::game_end(game)?;
    let searched: Vec<usize> = if end.is_some() { (0..last).collect() } else { (0..total).collect() };
    let workers = match options.workers {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .clamp(1, searched.len().max(1));
    let workers = if searched.is_empty() { 0 } else { workers };
    on_event(ReviewEvent::Started { positions: total, searches: searched.len(), workers });

    let mut out = Collector {
        options,
        positions: &positions,
        moves: &moves,
        reports: vec![None; total],
        moves_done: Vec::new(),
        model: WdlModel::for_variant(&P::variant_name(&game.variant)),
        start_fen: P::start_fen(&game.variant),
    };
    if let Some(end) = end {
        let pos = &positions[last];
        out.accept(finished_report(last, pos, end), &mut on_event)?;
    }

    if !searched.is_empty() {
        let chunks = split(&searched, workers);
        let hash_mb = (options.hash_mb / workers).max(1);
        let abort = AtomicBool::new(false);
        let running: Mutex<Vec<Option<Arc<AtomicBool>>>> = Mutex::new(vec![None; chunks.len()]);
        let context = Worker {
            start: &game.start,
            moves: &moves,
            positions: &positions,
            limits: &limits,
            abort: &abort,
            running: &running,
        };
        let stop_all = || {
            abort.store(true, Ordering::SeqCst);
            let running = running.lock().unwrap_or_else(PoisonError::into_inner);
            for flag in running.iter().flatten() {
                flag.store(true, Ordering::SeqCst);
            }
        };
        let outcome = std::thread::scope(|scope| {
            // If `on_event` panics, the workers must not search on while the
            // scope waits for them.
            let _stop_on_unwind = OnUnwind(&stop_all);
            let (tx, rx) = mpsc::channel::<Result<PositionReport, ReviewError>>();
            let mut handles = Vec::with_capacity(chunks.len());
            for (slot, chunk) in chunks.into_iter().enumerate() {
                let tx = tx.clone();
                let context = &context;
                let spawned = std::thread::Builder::new()
                    .name(format!("menagerie-review-{slot}"))
                    .spawn_scoped(scope, move || context.run(slot, &chunk, hash_mb, &tx));
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        stop_all();
                        return Err(ReviewError::Worker(format!("cannot start a worker thread: {e}")));
                    }
                }
            }
            drop(tx);
            let mut result = Ok(());
            loop {
                if result.is_ok() && stop.load(Ordering::SeqCst) {
                    stop_all();
                    result = Err(cancelled(out.done()));
                }
                match rx.recv_timeout(POLL) {
                    Ok(Ok(report)) if result.is_ok() => {
                        if let Err(e) = out.accept(report, &mut on_event) {
                            stop_all();
                            result = Err(e);
                        }
                    }
                    Ok(Err(e)) if result.is_ok() => {
                        stop_all();
                        result = Err(e);
                    }
                    Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            for h in handles {
                if let Err(panic) = h.join() {
                    let what = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "panic".to_string());
                    if result.is_ok() {
                        result = Err(ReviewError::Worker(what));
                    }
                }
            }
            result
        });
        outcome?;
        // A worker that stopped early (the stop flag seen between two
        // searches) sends nothing more: make sure nothing is missing.
        if out.done() < total {
            return Err(cancelled(out.done()));
        }
    }

    let positions: Vec<PositionReport> = out.reports.into_iter().flatten().collect();
    let mut moves = out.moves_done;
    moves.sort_by_key(|m| m.index);
    let summary = Summary::of(&positions, &moves);
    let variant = P::variant_name(&game.variant);
    Ok(GameReview { variant, positions, moves, summary })
}

/// Calls its function when dropped during a panic.
struct OnUnwind<'a>(&'a dyn Fn());

impl Drop for OnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            (self.0)();
        }
    }
}

/// The search limits of a budget, checked.
fn limits(budget: Budget) -> Result<Limits, ReviewError> {
    match budget {
        Budget::Nodes(0) => Err(ReviewError::Options("the node budget must be at least 1".into())),
        Budget::Nodes(n) => Ok(Limits::nodes(n)),
        Budget::Time(t) if t < Duration::from_millis(1) => {
            Err(ReviewError::Options("the time budget must be at least 1 ms".into()))
        }
        Budget::Time(t) => Ok(Limits::movetime(t)),
        Budget::Depth(d) if d == 0 || d > MAX_DEPTH => {
            Err(ReviewError::Options(format!("the depth must be from 1 to {MAX_DEPTH}, not {d}")))
        }
        Budget::Depth(d) => Ok(Limits::depth(d)),
    }
}

/// `items` in `n` contiguous runs whose lengths differ by at most one.
fn split(items: &[usize], n: usize) -> Vec<Vec<usize>> {
    let n = n.clamp(1, items.len().max(1));
    let (base, extra) = (items.len() / n, items.len() % n);
    let mut out = Vec::with_capacity(n);
    let mut at = 0;
    for i in 0..n {
        let len = base + usize::from(i < extra);
        out.push(items[at..at + len].to_vec());
        at += len;
    }
    out
}

/// The report of a final position where the game is over.
fn finished_report<P: PgnPosition>(index: usize, pos: &P, (score, end): (Eval, GameEnd)) -> PositionReport {
    PositionReport {
        index,
        fen: pos.fen_text(),
        side_to_move: pos.side().into(),
        score,
        best_move_uci: None,
        best_move_san: None,
        pv_san: Vec::new(),
        pv_uci: Vec::new(),
        depth: 0,
        nodes: 0,
        time_ms: 0,
        outcome: Some(end),
        chances: Chances::default(),
    }
}

/// A score from the side to move's point of view, from White's.
fn white_pov(score: Score, stm: Side) -> Eval {
    let flip = |v: i32| if stm == Side::White { v } else { v.saturating_neg() };
    match score {
        Score::Cp(cp) => Eval::Cp(flip(cp)),
        Score::Mate(0) => Eval::Won(stm.flip()),
        Score::Mate(n) => Eval::Mate(flip(n)),
    }
}

/// What the workers share.
struct Worker<'a, P: ReviewPosition> {
    start: &'a P,
    moves: &'a [P::Move],
    positions: &'a [P],
    limits: &'a Limits,
    /// Set when the review ends early: workers start no more searches.
    abort: &'a AtomicBool,
    /// Each worker's running search's stop flag, so it can be stopped.
    running: &'a Mutex<Vec<Option<Arc<AtomicBool>>>>,
}

impl<P: ReviewPosition> Worker<'_, P> {
    /// Searches the positions of `chunk`, last first, with one engine.
    fn run(
        &self,
        slot: usize,
        chunk: &[usize],
        hash_mb: usize,
        tx: &mpsc::Sender<Result<PositionReport, ReviewError>>,
    ) {
        let mut engine = Engine::new(EngineOptions { hash_mb, threads: 1, multipv: 1 });
        for &index in chunk.iter().rev() {
            if self.abort.load(Ordering::SeqCst) {
                return;
            }
            let report = self.search(&mut engine, slot, index);
            if self.abort.load(Ordering::SeqCst) {
                // The search was cut short: its result is not worth sending.
                return;
            }
            let failed = report.is_err();
            if tx.send(report).is_err() || failed {
                return;
            }
        }
    }

    fn search(&self, engine: &mut Engine, slot: usize, index: usize) -> Result<PositionReport, ReviewError> {
        let pos = &self.positions[index];
        let no_move = || ReviewError::NoMove { index, fen: pos.fen_text() };
        let handle = P::go(engine, self.start, &self.moves[..index], self.limits.clone()).ok_or_else(no_move)?;
        {
            let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(s) = running.get_mut(slot) {
                *s = Some(handle.stop_flag());
            }
        }
        // Set before the flag was registered: stop it here.
        if self.abort.load(Ordering::SeqCst) {
            handle.stop();
        }
        let result = handle.wait();
        {
            let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(s) = running.get_mut(slot) {
                *s = None;
            }
        }
        let best = result.best.and_then(P::from_game_move).ok_or_else(no_move)?;
        let stm: Side = pos.side().into();
        let mut pv: Vec<P::Move> = result
            .lines
            .first()
            .map(|l| l.pv.iter().map_while(|&m| P::from_game_move(m)).collect())
            .unwrap_or_default();
        if pv.first() != Some(&best) {
            pv = vec![best];
        }
        let (pv_san, pv_uci) = line(pos, &pv);
        if pv_san.is_empty() {
            return Err(no_move());
        }
        Ok(PositionReport {
            index,
            fen: pos.fen_text(),
            side_to_move: stm,
            score: white_pov(result.score, stm),
            best_move_uci: pv_uci.first().cloned(),
            best_move_san: pv_san.first().cloned(),
            pv_san,
            pv_uci,
            depth: result.depth,
            nodes: result.nodes,
            time_ms: result.time_ms,
            outcome: None,
            chances: Chances::default(),
        })
    }
}

/// A line of moves from `pos` in SAN and coordinate form, up to its first
/// move that is not legal.
fn line<P: ReviewPosition>(pos: &P, moves: &[P::Move]) -> (Vec<String>, Vec<String>) {
    let mut pos = pos.clone();
    let (mut sans, mut ucis) = (Vec::new(), Vec::new());
    for &m in moves {
        let legal = pos.legal();
        if !legal.contains(&m) {
            break;
        }
        sans.push(pos.san_of(m, &legal));
        ucis.push(pos.coordinates(m));
        pos = pos.after(m);
    }
    (sans, ucis)
}

/// Gathers the reports on the caller's thread and judges the moves as
/// their positions arrive.
struct Collector<'a, P: ReviewPosition> {
    options: &'a ReviewOptions,
    positions: &'a [P],
    moves: &'a [P::Move],
    reports: Vec<Option<PositionReport>>,
    moves_done: Vec<MoveReport>,
    /// The game's win/draw/loss model.
    model: WdlModel,
    /// The game's start position (its material is the model's 100 %).
    start_fen: String,
}

impl<P: ReviewPosition> Collector<'_, P> {
    /// Positions done.
    fn done(&self) -> usize {
        self.reports.iter().filter(|r| r.is_some()).count()
    }

    /// Stores a position, announces it, and judges the moves into and out
    /// of it if their other position is done.
    fn accept(
        &mut self,
        mut report: PositionReport,
        on_event: &mut impl FnMut(ReviewEvent),
    ) -> Result<(), ReviewError> {
        report.chances = report.score.chances(&self.model, wdl::material_fraction(&report.fen, &self.start_fen));
        let index = report.index;
        let Some(slot) = self.reports.get_mut(index) else {
            return Err(ReviewError::Worker(format!("a report for position {index}, which the game does not have")));
        };
        *slot = Some(report.clone());
        on_event(ReviewEvent::Position(report));
        for ply in [index, index + 1] {
            if ply == 0 || ply > self.moves.len() {
                continue;
            }
            if let (Some(Some(before)), Some(Some(after))) = (self.reports.get(ply - 1), self.reports.get(ply)) {
                let m = self.judge(ply, before, after)?;
                self.moves_done.push(m.clone());
                on_event(ReviewEvent::Move(m));
            }
        }
        Ok(())
    }

    /// The report of move `ply` (from position `ply - 1` to `ply`).
    fn judge(&self, ply: usize, before: &PositionReport, after: &PositionReport) -> Result<MoveReport, ReviewError> {
        let pos = &self.positions[ply - 1];
        let mv = self.moves[ply - 1];
        let mover: Side = pos.side().into();
        let (Some(best_uci), Some(best_san)) = (before.best_move_uci.clone(), before.best_move_san.clone()) else {
            return Err(ReviewError::NoMove { index: ply - 1, fen: before.fen.clone() });
        };
        let played_uci = pos.coordinates(mv);
        let is_best = played_uci == best_uci;
        let win_before = before.chances.expected_percent(mover);
        let win_after = after.chances.expected_percent(mover);
        let loss = (win_before - win_after).max(0.0);
        let classification = Classification::judge(loss, is_best, &self.options.thresholds);
        let cp_loss = (before.score.cp_for(mover) - after.score.cp_for(mover)).max(0).unsigned_abs();
        let wanted = match self.options.svg {
            SvgMode::None => false,
            SvgMode::Mistakes => classification.is_error(),
            SvgMode::All => true,
        };
        let svg = if wanted {
            let best = pos.parse_coordinates(&best_uci);
            let previous = ply.checked_sub(2).and_then(|i| self.moves.get(i)).copied();
            Some(pos.picture(mv, best, previous).map_err(|source| ReviewError::Render { index: ply, source })?)
        } else {
            None
        };
        Ok(MoveReport {
            index: ply,
            move_number: pos.fullmove(),
            colour: mover,
            played_san: pos.san_of(mv, &pos.legal()),
            played_uci,
            best_san,
            best_uci,
            eval_before: before.score,
            eval_after: after.score,
            win_before,
            win_after,
            loss,
            cp_loss,
            accuracy: move_accuracy(win_before, win_after),
            classification,
            best_line_san: before.pv_san.clone(),
            best_line_uci: before.pv_uci.clone(),
            svg,
        })
    }
}
