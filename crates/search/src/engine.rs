//! The engine API: set a position, start a search with limits, stop it,
//! receive info lines and the best move. The UCI/XBoard front end and the
//! gRPC service are two consumers of it.

use crate::data::DataPosition;
use crate::data_eval::DataEval;
use crate::eval::EvalTables;
use crate::limits::{Limits, TimeBudget};
use crate::position::SearchPosition;
use crate::search::{Shared, TablePool, Worker};
use crate::strength::{choose, strength_params};
use crate::tt::TranspositionTable;
use crate::{Info, Score};
use menagerie_game::{Game, IllegalMove, Move, Position as GamePosition, SearchRoot};
use menagerie_rules::Move as DataMove;
use menagerie_variants::{AnyPosition, Move as CompiledMove, Position, PositionVisitor, Variant};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;

/// Engine settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Transposition table size in MB.
    pub hash_mb: usize,
    /// Search threads (Lazy SMP).
    pub threads: usize,
    /// Number of principal variations to report.
    pub multipv: usize,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { hash_mb: 64, threads: 1, multipv: 1 }
    }
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult<M = Move> {
    /// The move to play (`None` when the game is over).
    pub best: Option<M>,
    /// The expected reply.
    pub ponder: Option<M>,
    /// Score of the best line.
    pub score: Score,
    /// Last completed depth.
    pub depth: u32,
    /// Nodes searched (all threads).
    pub nodes: u64,
    /// Wall time in milliseconds.
    pub time_ms: u64,
    /// The final info line of each principal variation, best first.
    pub lines: Vec<Info<M>>,
}

impl<M> SearchResult<M> {
    /// This result in other moves: `line` rewrites a sequence of moves
    /// played from the root (the best move then the ponder move, and each
    /// line's variation), e.g. a backend's moves into the game's.
    pub fn map_lines<N>(self, line: impl Fn(&[M]) -> Vec<N>) -> SearchResult<N> {
        let best: Vec<M> = self.best.into_iter().chain(self.ponder).collect();
        let mut moves = line(&best).into_iter();
        SearchResult {
            best: moves.next(),
            ponder: moves.next(),
            score: self.score,
            depth: self.depth,
            nodes: self.nodes,
            time_ms: self.time_ms,
            lines: self.lines.into_iter().map(|i| i.map_pv(&line)).collect(),
        }
    }

    /// The result of a search that found nothing.
    fn empty() -> Self {
        SearchResult {
            best: None,
            ponder: None,
            score: Score::Cp(0),
            depth: 0,
            nodes: 0,
            time_ms: 0,
            lines: Vec::new(),
        }
    }
}

/// A search running in the background.
pub struct SearchHandle<M = Move> {
    stop: Arc<AtomicBool>,
    join: JoinHandle<SearchResult<M>>,
}

impl<M> SearchHandle<M> {
    /// Asks the search to stop soon (within a few milliseconds).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
    /// The flag that stops the search when set.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }
    /// True once the search has finished.
    pub fn is_finished(&self) -> bool {
        self.join.is_finished()
    }
    /// Waits for the result.
    pub fn wait(self) -> SearchResult<M> {
        self.join.join().unwrap_or_else(|_| SearchResult::empty())
    }
}

/// A move of a game that is not legal where it was to be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {} ({}) is not legal in its position", .index + 1, .error.text)]
pub struct IllegalMoveAt {
    /// Index of the move in the list given.
    pub index: usize,
    /// Why.
    pub error: IllegalMove,
}

/// A chess-variant engine: a game, a transposition table and options.
pub struct Engine {
    options: EngineOptions,
    tt: Arc<TranspositionTable>,
    pool: Arc<TablePool>,
    game: Game,
    /// Where a search of the game runs, chosen when the game is set.
    root: Arc<SearchRoot>,
    /// The evaluation of the game defined as data searched on the data
    /// engine (kept while the variant stays the same).
    data_eval: Option<Arc<DataEval>>,
    /// Evaluate compiled games with their network when one is loaded.
    use_nnue: bool,
}

impl Engine {
    /// A new engine at the start position of orthodox chess.
    pub fn new(options: EngineOptions) -> Engine {
        let game = Game::new(AnyPosition::start(menagerie_variants::VariantId::Chess).into());
        Engine {
            options,
            tt: Arc::new(TranspositionTable::new(options.hash_mb)),
            pool: Arc::default(),
            root: Arc::new(game.search_root()),
            game,
            data_eval: None,
            use_nnue: true,
        }
    }

    /// Whether compiled games are evaluated by their network (embedded, or
    /// installed with `menagerie_nnue::registry::install`) when the game
    /// has one (`true`, the default), or always by the linear evaluation.
    /// The transposition table keeps static evaluations: it is cleared
    /// when the setting changes.
    pub fn set_use_nnue(&mut self, on: bool) {
        if self.use_nnue != on {
            self.use_nnue = on;
            self.tt.clear();
        }
    }

    /// See [`Engine::set_use_nnue`].
    pub fn use_nnue(&self) -> bool {
        self.use_nnue
    }

    /// Current options.
    pub fn options(&self) -> EngineOptions {
        self.options
    }

    /// Resizes the transposition table (clearing it).
    pub fn set_hash(&mut self, mb: usize) {
        self.options.hash_mb = mb.max(1);
        self.tt = Arc::new(TranspositionTable::new(self.options.hash_mb));
    }

    /// Sets the number of search threads.
    pub fn set_threads(&mut self, threads: usize) {
        self.options.threads = threads.clamp(1, 512);
    }

    /// Sets the number of principal variations.
    pub fn set_multipv(&mut self, n: usize) {
        self.options.multipv = n.clamp(1, 256);
    }

    /// Forgets what earlier searches learnt.
    pub fn new_game(&mut self) {
        self.tt.clear();
    }

    /// Sets the game to search from: its current position, the positions
    /// before it counting for repetition. Any variant: the engine picks
    /// the compiled search (for a compiled game, or a game defined as data
    /// that a compiled game plays exactly) or the data engine's.
    pub fn set_game(&mut self, game: &Game) {
        let root = game.search_root();
        if let SearchRoot::Data { position, .. } = &root {
            let same = self.data_eval.as_ref().is_some_and(|e| Arc::ptr_eq(e.variant(), position.variant()));
            if !same {
                self.data_eval = Some(Arc::new(DataEval::new(position.variant())));
            }
        }
        self.root = Arc::new(root);
        self.game = game.clone();
    }

    /// Sets the game: `start` followed by `moves` (see [`Engine::set_game`]).
    pub fn set_position(&mut self, start: impl Into<GamePosition>, moves: &[Move]) -> Result<(), IllegalMoveAt> {
        let game = Game::from_moves(start.into(), moves).map_err(|(index, error)| IllegalMoveAt { index, error })?;
        self.set_game(&game);
        Ok(())
    }

    /// The current position.
    pub fn position(&self) -> &GamePosition {
        self.game.current()
    }

    /// The game set.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Starts a search in the background; `on_info` receives each
    /// iteration's info lines as they complete. The compiled search runs
    /// monomorphic for the game; its moves are answered as the game's.
    pub fn go(&self, limits: Limits, mut on_info: impl FnMut(Info) + Send + 'static) -> SearchHandle {
        let stop = Arc::new(AtomicBool::new(false));
        let root = self.root.clone();
        let job: Box<dyn FnOnce() -> SearchResult + Send> = match &*self.root {
            SearchRoot::Compiled(compiled) => {
                let only = limits.searchmoves.iter().filter_map(|&m| compiled.to_compiled(m)).collect();
                let report = root.clone();
                let run = Run {
                    tt: self.tt.clone(),
                    pool: self.pool.clone(),
                    stop: stop.clone(),
                    limits,
                    options: self.options,
                    history: compiled.history.clone(),
                    only,
                    on_info: Box::new(move |i: Info<CompiledMove>| on_info(i.map_pv(|pv| compiled_line(&report, pv)))),
                    use_nnue: self.use_nnue,
                };
                Box::new(move || {
                    let SearchRoot::Compiled(c) = &*root else { return SearchResult::empty() };
                    let r = c.position.visit(run);
                    r.map_lines(|pv| c.line(pv))
                })
            }
            SearchRoot::Data { position, history } => {
                let Some(eval) = self.data_eval.clone() else {
                    return SearchHandle { stop, join: std::thread::spawn(SearchResult::empty) };
                };
                let search = Search {
                    tt: self.tt.clone(),
                    pool: self.pool.clone(),
                    stop: stop.clone(),
                    limits: limits.clone(),
                    options: self.options,
                    history: history.clone(),
                    only: limits.searchmoves.iter().filter_map(|m| m.data()).collect(),
                    on_info: Box::new(move |i: Info<DataMove>| on_info(i.map_pv(face_moves))),
                };
                let pos = DataPosition::new((**position).clone());
                Box::new(move || search.run(&pos, eval).map_lines(face_moves))
            }
        };
        // The search thread reports to the caller's tracing subscriber, its
        // spans nested under the caller's current span.
        let dispatch = tracing::dispatcher::get_default(|d| d.clone());
        let parent = tracing::Span::current();
        let join = std::thread::Builder::new()
            .name("menagerie-search".into())
            .stack_size(64 << 20)
            .spawn(move || tracing::dispatcher::with_default(&dispatch, || parent.in_scope(job)))
            .unwrap_or_else(|_| {
                // Spawning failed (resource exhaustion): report no move.
                std::thread::spawn(SearchResult::empty)
            });
        SearchHandle { stop, join }
    }

    /// Searches and waits for the result.
    pub fn search(&self, limits: Limits, on_info: impl FnMut(Info) + Send + 'static) -> SearchResult {
        self.go(limits, on_info).wait()
    }
}

/// The game's moves of a compiled line searched from `root`.
fn compiled_line(root: &SearchRoot, pv: &[CompiledMove]) -> Vec<Move> {
    match root {
        SearchRoot::Compiled(c) => c.line(pv),
        SearchRoot::Data { .. } => Vec::new(),
    }
}

/// The game's moves of a line searched on the game's own moves (the data
/// engine's search: no twin to map from).
fn face_moves<M: Copy + Into<Move>>(pv: &[M]) -> Vec<Move> {
    pv.iter().map(|&m| m.into()).collect()
}

struct Run {
    tt: Arc<TranspositionTable>,
    pool: Arc<TablePool>,
    stop: Arc<AtomicBool>,
    limits: Limits,
    options: EngineOptions,
    history: Vec<u64>,
    /// Only these root moves (all if empty).
    only: Vec<CompiledMove>,
    on_info: Box<dyn FnMut(Info<CompiledMove>) + Send>,
    use_nnue: bool,
}

impl PositionVisitor for Run {
    type Output = SearchResult<CompiledMove>;

    fn visit<V: Variant>(self, pos: &Position<V>) -> SearchResult<CompiledMove> {
        let Run { tt, pool, stop, limits, options, history, only, on_info, use_nnue } = self;
        let search = Search { tt, pool, stop, limits, options, history, only, on_info };
        search.run(pos, eval_for::<V>(use_nnue))
    }
}

/// The evaluation a search of `V` runs with: the linear tables, with the
/// game's network when `use_nnue` and one is loaded (and fits the game).
pub fn eval_for<V: Variant>(use_nnue: bool) -> Arc<EvalTables> {
    let tables = EvalTables::shared::<V>();
    let net = use_nnue
        .then(|| menagerie_nnue::registry::network_for(V::ID.name()))
        .flatten()
        .filter(|n| n.check(V::ID.name(), menagerie_nnue::feature_count::<V>()).is_ok());
    match net {
        Some(net) => Arc::new(tables.with_network(Some(net))),
        None => tables,
    }
}

/// One search of a position of any kind.
pub(crate) struct Search<M> {
    pub tt: Arc<TranspositionTable>,
    pub pool: Arc<TablePool>,
    pub stop: Arc<AtomicBool>,
    pub limits: Limits,
    pub options: EngineOptions,
    pub history: Vec<u64>,
    /// Only these root moves (all if empty).
    pub only: Vec<M>,
    pub on_info: Box<dyn FnMut(Info<M>) + Send>,
}

impl<M: Copy + Eq + Send + Sync + core::fmt::Debug + 'static> Search<M> {
    /// Runs the search of `pos` with the evaluation `eval`.
    pub fn run<P: SearchPosition<Move = M>>(self, pos: &P, eval: Arc<P::Eval>) -> SearchResult<M> {
        let Search { tt, pool, stop, mut limits, options, history, only, mut on_info } = self;
        tt.new_search();
        // A strength limit caps the search and widens it to a few
        // candidates; only the lines the user asked for are reported.
        let shown = options.multipv;
        let mut multipv = options.multipv;
        let weaken = limits.strength.map(|s| (strength_params(s.elo), s.seed ^ pos.key()));
        if let Some((p, _)) = weaken {
            limits.nodes = Some(limits.nodes.map_or(p.nodes, |n| n.min(p.nodes)));
            limits.depth = Some(limits.depth.map_or(p.depth, |d| d.min(p.depth)));
            multipv = multipv.max(p.candidates);
        }
        let white = pos.side_index() == 0;
        let shared = Shared {
            tt,
            pool,
            stop,
            nodes: AtomicU64::new(0),
            start: Instant::now(),
            budget: TimeBudget::new(&limits, white),
            limits,
            multipv,
            eval,
        };
        let mut lines: Vec<Info<M>> = Vec::new();
        let mut result = std::thread::scope(|scope| {
            for i in 1..options.threads {
                let shared = &shared;
                let history = &history;
                let only = &only;
                let dispatch = tracing::dispatcher::get_default(|d| d.clone());
                let _ = std::thread::Builder::new().stack_size(64 << 20).spawn_scoped(scope, move || {
                    tracing::dispatcher::with_default(&dispatch, || {
                        let mut w = Worker::new(shared, false, pos, history, only);
                        w.iterate(pos, 1 + (i % 2) as u32, &mut |_| {});
                    })
                });
            }
            let mut main = Worker::new(&shared, true, pos, &history, &only);
            main.iterate(pos, 1, &mut |info: Info<M>| {
                let idx = info.multipv as usize - 1;
                if lines.len() <= idx {
                    lines.resize(idx + 1, info.clone());
                }
                lines[idx] = info.clone();
                if idx < shown {
                    on_info(info);
                }
            });
            shared.stop.store(true, Ordering::Relaxed);
            let best = main.root_moves.first();
            let mut best_pv = best.map(|r| r.pv.clone()).unwrap_or_default();
            if let Some((p, seed)) = weaken
                && !lines.is_empty()
                && best.is_some()
            {
                let pick = choose(&lines, p.margin_cp, seed);
                if let Some(l) = lines.get(pick).filter(|l| !l.pv.is_empty()) {
                    best_pv = l.pv.clone();
                }
            }
            SearchResult {
                best: best_pv.first().copied(),
                ponder: best_pv.get(1).copied(),
                score: lines.first().map_or(Score::Cp(0), |l| l.score),
                depth: main.completed_depth,
                nodes: 0,
                time_ms: 0,
                lines: Vec::new(),
            }
        });
        result.nodes = shared.nodes.load(Ordering::Relaxed);
        result.time_ms = shared.start.elapsed().as_millis() as u64;
        lines.truncate(shown);
        result.lines = lines;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The continuation histories of a search are kept for the next one (a
    /// search must not allocate and zero megabytes before its first node),
    /// sized to the game (its piece kinds on its squares, not the largest
    /// board's), and the next search starts from cleared tables: the same
    /// search twice gives the same result.
    #[test]
    fn history_tables_are_kept_between_searches_sized_to_the_game_and_cleared() {
        let mut e = Engine::new(EngineOptions { hash_mb: 1, threads: 1, multipv: 1 });
        let limits = Limits { depth: Some(6), ..Limits::default() };
        let first = e.search(limits.clone(), |_| {});
        // Chess: 6 kinds of 2 colours on 64 squares, plus the "no move" row.
        let len = (2 * 6 * 64 + 1) * (2 * 6 * 64);
        assert_eq!(e.pool.kept(), vec![[len, len]]);
        e.new_game();
        let second = e.search(limits, |_| {});
        assert_eq!((first.best, first.nodes, first.score), (second.best, second.nodes, second.score));
        assert_eq!(e.pool.kept(), vec![[len, len]]);
    }
}
