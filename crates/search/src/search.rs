//! The search proper: iterative deepening, PVS with aspiration windows,
//! quiescence, and the pruning that makes it fast.

use crate::correction::{Corrections, Slot};
use crate::limits::{Limits, Progress, TimeBudget};
use crate::position::{MoveBuffer, SearchPosition};
use crate::tt::{Bound, TranspositionTable, TtHit};
use crate::{Info, MAX_DEPTH, Score};
use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub(crate) const MAX_PLY: usize = 128;
/// Deepest quiescence line.
const MAX_QPLY: u32 = 12;
pub(crate) const INF: i32 = 32000;
pub(crate) const MATE: i32 = 31000;
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;

/// The ordering score of the table's move.
const TT_MOVE_SCORE: i32 = 1_000_000;

/// Mate scores are stored relative to the node, not the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The score a table entry of `score` and `bound`, read at `ply`, settles
/// for a window (`alpha`, `beta`), if it does.
#[inline(always)]
fn tt_cutoff(score: i32, bound: Bound, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let s = from_tt(score, ply);
    match bound {
        Bound::Exact => Some(s),
        Bound::Lower if s >= beta => Some(s),
        Bound::Upper if s <= alpha => Some(s),
        _ => None,
    }
}

/// A history entry `v` moved by `bonus`, less as it nears ±16384.
#[inline(always)]
fn gravity(v: i32, bonus: i32) -> i32 {
    v + bonus - v * bonus.abs() / 16384
}

/// The table bound of a search result `best` in the window (`alpha0`, `beta`).
fn bound_of(best: i32, alpha0: i32, beta: i32) -> Bound {
    if best >= beta {
        Bound::Lower
    } else if best > alpha0 {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// Converts an internal score to the reported form: mate in moves, a loss
/// after an odd number of plies (a move that ends the game against its
/// maker, as stalemating the opponent in antichess) counted as the move
/// it takes (`mate -1`, never `mate 0` for a side that still has a move).
pub(crate) fn score_of(v: i32) -> Score {
    if v >= MATE_BOUND {
        Score::Mate((MATE - v + 1) / 2)
    } else if v <= -MATE_BOUND {
        Score::Mate(-((MATE + v + 1) / 2))
    } else {
        Score::Cp(v)
    }
}

/// Continuation-history tables and evaluation caches kept by an engine
/// between its searches, so that a search clears or reuses them instead of
/// allocating megabytes (which the kernel then zeroes page by page) before
/// its first node.
#[derive(Default)]
pub(crate) struct TablePool {
    tables: Mutex<Vec<[Vec<i16>; 2]>>,
    /// [`SearchPosition::EvalCache`]s of any position type.
    caches: Mutex<Vec<Box<dyn Any + Send>>>,
}

impl TablePool {
    /// Two zeroed tables of `len` entries.
    fn take(&self, len: usize) -> [Vec<i16>; 2] {
        let kept = self.tables.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match kept {
            Some(mut tables) => {
                for t in &mut tables {
                    t.clear();
                    t.resize(len, 0);
                }
                tables
            }
            None => [vec![0; len], vec![0; len]],
        }
    }

    /// The lengths of the kept tables.
    #[cfg(test)]
    pub(crate) fn kept(&self) -> Vec<[usize; 2]> {
        self.tables.lock().map(|k| k.iter().map(|t| [t[0].len(), t[1].len()]).collect()).unwrap_or_default()
    }

    /// Keeps `tables` for a later search (a few sets at most).
    fn put(&self, tables: [Vec<i16>; 2]) {
        let mut kept = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() < 8 {
            kept.push(tables);
        }
    }

    /// An evaluation cache of type `C` an earlier search left, else a new one.
    fn take_cache<C: Default + Send + 'static>(&self) -> C {
        let mut kept = self.caches.lock().unwrap_or_else(|e| e.into_inner());
        match kept.iter().position(|c| c.is::<C>()).map(|i| kept.swap_remove(i).downcast::<C>()) {
            Some(Ok(cache)) => *cache,
            _ => C::default(),
        }
    }

    /// Keeps `cache` for a later search (a few at most).
    fn put_cache<C: Send + 'static>(&self, cache: C) {
        let mut kept = self.caches.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() < 8 {
            kept.push(Box::new(cache));
        }
    }
}

/// State shared by the threads of one search.
pub(crate) struct Shared<P: SearchPosition> {
    pub tt: Arc<TranspositionTable>,
    pub pool: Arc<TablePool>,
    pub stop: Arc<AtomicBool>,
    pub nodes: AtomicU64,
    pub start: Instant,
    pub limits: Limits,
    pub budget: TimeBudget,
    pub multipv: usize,
    pub eval: Arc<P::Eval>,
}

impl<P: SearchPosition> Shared<P> {
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct RootMove<M> {
    pub mv: M,
    pub score: i32,
    pub prev_score: i32,
    pub pv: Vec<M>,
    pub seldepth: usize,
    /// Nodes this thread searched under the move, over all iterations.
    pub nodes: u64,
}

/// Per-ply search state.
#[derive(Clone, Copy, Debug)]
struct Frame {
    /// `piece * SQUARES + to` of the move played at this ply, or `Worker::ps`.
    ps: usize,
    /// Static evaluation at this ply (`-INF` in check or unknown).
    eval: i32,
    /// The move played at this ply is a null move.
    null: bool,
}

/// One search thread.
pub(crate) struct Worker<'a, P: SearchPosition> {
    shared: &'a Shared<P>,
    /// The game's piece-and-square slots ([`SearchPosition::piece_squares`]);
    /// as a slot, no move (null move or root).
    ps: usize,
    main: bool,
    local_nodes: u64,
    unflushed: u64,
    /// Nodes between flushes of `unflushed` (and checks of the limits): at
    /// most 1024, and 1/64 of a node limit, so a search stops within about
    /// 1.6 % of its `go nodes`.
    flush_every: u64,
    seldepth: usize,
    killers: Vec<[Option<P::Move>; 2]>,
    history: Vec<i32>,
    /// Continuation histories: `[previous piece and square][piece and
    /// square]`, for the move one ply back (counter) and two plies back
    /// (follow-up).
    cont: [Vec<i16>; 2],
    /// The best reply found to each `[piece and square]` of the previous move.
    counter: Vec<Option<P::Move>>,
    /// Capture history: how often a capture by `[piece and square]` caused a cutoff.
    capture_hist: Vec<i16>,
    /// Correction history: how far searches ended from the static
    /// evaluation (empty where [`SearchPosition::brings_in_reserves`]).
    corr: Corrections,
    /// The game brings reserve pieces in ([`SearchPosition::brings_in_reserves`]).
    reserves: bool,
    /// The evaluation's memory (pawn-structure terms).
    eval_cache: P::EvalCache,
    /// What led to each ply: the move's piece-and-square index and the
    /// static evaluation there.
    stack: Vec<Frame>,
    keys: Vec<u64>,
    /// The index of the root's key in `keys` (the game's positions before it).
    root_index: usize,
    pv: Vec<Vec<P::Move>>,
    pub root_moves: Vec<RootMove<P::Move>>,
    pub completed_depth: u32,
    /// How often the best root move changed, halved at every iteration
    /// (time management).
    best_changes: f64,
    reductions: Vec<[u8; 64]>,
    /// Per-ply scratch lists (no allocation per node).
    buffers: Vec<Vec<(P::Move, i32)>>,
    quiets: Vec<Vec<P::Move>>,
    captures: Vec<Vec<P::Move>>,
}

impl<P: SearchPosition> Drop for Worker<'_, P> {
    fn drop(&mut self) {
        self.shared.pool.put(std::mem::take(&mut self.cont));
        self.shared.pool.put_cache(std::mem::take(&mut self.eval_cache));
    }
}

impl<'a, P: SearchPosition> Worker<'a, P> {
    /// A worker searching `root` (reached through positions with the keys
    /// `history`), its root moves restricted to `only` unless that is empty
    /// or lists no legal move.
    pub fn new(shared: &'a Shared<P>, main: bool, root: &P, history: &[u64], only: &[P::Move]) -> Self {
        let mut reductions = vec![[0u8; 64]; 64];
        for (d, row) in reductions.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
            }
        }
        let mut legal = P::Moves::empty();
        root.legal_moves_into(&mut legal);
        let mut root_moves: Vec<RootMove<P::Move>> = legal
            .moves()
            .iter()
            .map(|&mv| RootMove { mv, score: -INF, prev_score: -INF, pv: vec![mv], seldepth: 0, nodes: 0 })
            .collect();
        // `searchmoves`: keep only the listed moves (all if none is legal).
        if !only.is_empty() && root_moves.iter().any(|r| only.contains(&r.mv)) {
            root_moves.retain(|r| only.contains(&r.mv));
        } else if root_moves.len() > 1 {
            // A move no better than another is not searched (White's
            // `decline`): the search cannot tell ties apart reliably.
            root_moves.retain(|r| !root.is_dominated(r.mv));
        }
        let mut keys = history.to_vec();
        keys.push(root.key());
        let ps = root.piece_squares();
        let reserves = root.brings_in_reserves();
        Worker {
            shared,
            ps,
            main,
            local_nodes: 0,
            unflushed: 0,
            flush_every: shared.limits.nodes.map_or(1024, |n| (n / 64).clamp(1, 1024)),
            seldepth: 0,
            killers: vec![[None; 2]; MAX_PLY + 2],
            history: vec![0; 2 * 128 * 128],
            cont: shared.pool.take((ps + 1) * ps),
            counter: vec![None; ps + 1],
            capture_hist: vec![0; ps + 1],
            corr: Corrections::new(!reserves),
            reserves,
            eval_cache: shared.pool.take_cache(),
            stack: vec![Frame { ps, eval: -INF, null: false }; MAX_PLY + 4],
            root_index: history.len(),
            keys,
            pv: vec![Vec::new(); MAX_PLY + 2],
            root_moves,
            completed_depth: 0,
            best_changes: 0.0,
            reductions,
            buffers: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(256)).collect(),
            quiets: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(64)).collect(),
            captures: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(32)).collect(),
        }
    }

    /// True once the search must stop (root moves keep the best found so
    /// far, so there is a move to play however early the stop comes).
    #[inline(always)]
    fn stopped(&self) -> bool {
        self.shared.stopped()
    }

    #[inline]
    fn count_node(&mut self) {
        self.local_nodes += 1;
        self.unflushed += 1;
        if self.unflushed >= self.flush_every {
            let total = self.shared.nodes.fetch_add(self.unflushed, Ordering::Relaxed) + self.unflushed;
            self.unflushed = 0;
            if self.main {
                self.check_limits(total);
            }
        }
    }

    /// Stops the search at its hard time limit, or at its node limit once
    /// depth 1 is complete (so that even `go nodes 1` plays a searched move).
    fn check_limits(&self, total_nodes: u64) {
        let s = self.shared;
        let nodes_out = s.limits.nodes.is_some_and(|n| total_nodes >= n) && self.completed_depth >= 1;
        if nodes_out || s.budget.hard.is_some_and(|h| s.start.elapsed() >= h) {
            s.stop.store(true, Ordering::Relaxed);
        }
    }

    fn flush(&mut self) {
        self.shared.nodes.fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
    }

    #[inline(always)]
    fn history_idx(pos: &P, m: P::Move) -> usize {
        pos.history_index(m)
    }

    /// The piece-and-square index of `m` (the moving piece on its destination).
    #[inline(always)]
    fn ps(pos: &P, m: P::Move) -> usize {
        pos.piece_square(m)
    }

    /// The piece-and-square indices of the moves one and two plies before `ply`.
    fn previous(&self, ply: usize) -> [usize; 2] {
        [
            if ply >= 1 { self.stack[ply - 1].ps } else { self.ps },
            if ply >= 2 { self.stack[ply - 2].ps } else { self.ps },
        ]
    }

    /// History score of a quiet move: butterfly plus both continuations.
    fn quiet_score(&self, pos: &P, m: P::Move, prev: [usize; 2]) -> i32 {
        let ps = Self::ps(pos, m);
        let mut s = self.history[Self::history_idx(pos, m)];
        if ps != self.ps {
            for (t, &p) in self.cont.iter().zip(&prev) {
                s += i32::from(t[p * self.ps + ps]);
            }
        }
        s
    }

    /// Rewards `good` (which caused a cutoff) and penalises the quiet moves
    /// tried before it.
    fn update_quiet_stats(&mut self, pos: &P, good: P::Move, tried: &[P::Move], depth: i32, ply: usize) {
        let bonus = (depth * depth + 2 * depth).min(1600);
        let prev = self.previous(ply);
        let apply = |w: &mut Self, m: P::Move, b: i32| {
            let h = &mut w.history[Self::history_idx(pos, m)];
            *h = gravity(*h, b);
            let (ps, slots) = (Self::ps(pos, m), w.ps);
            if ps != slots {
                for (t, &p) in w.cont.iter_mut().zip(&prev) {
                    let c = &mut t[p * slots + ps];
                    *c = gravity(i32::from(*c), b).clamp(-16384, 16384) as i16;
                }
            }
        };
        apply(self, good, bonus);
        for &q in tried {
            apply(self, q, -bonus);
        }
        if prev[0] != self.ps {
            self.counter[prev[0]] = Some(good);
        }
    }

    /// Rewards the capture `good` (which caused a cutoff, if any) and
    /// penalises the captures tried before the cutoff.
    fn update_capture_stats(&mut self, pos: &P, good: Option<P::Move>, tried: &[P::Move], depth: i32) {
        let bonus = (depth * depth + 2 * depth).min(1600);
        let mut apply = |m: P::Move, b: i32| {
            let c = &mut self.capture_hist[Self::ps(pos, m)];
            *c = gravity(i32::from(*c), b).clamp(-16384, 16384) as i16;
        };
        if let Some(g) = good {
            apply(g, bonus);
        }
        for &m in tried {
            apply(m, -bonus);
        }
    }

    /// A draw by repetition: the position occurred before on the searched
    /// line (at or after the root), or twice in the game before the root
    /// (so this is its third occurrence). A single earlier occurrence in
    /// the game is not a draw: the opponent can still avoid the third.
    fn is_repetition(&self, pos: &P) -> bool {
        let key = pos.key();
        let n = self.keys.len();
        let window = (pos.halfmove_clock() as usize).min(n.saturating_sub(1));
        // keys[n-1] is this position; look back two plies at a time.
        let mut before_root = 0;
        let mut i = 2;
        while i <= window {
            let k = n - 1 - i;
            if self.keys[k] == key {
                if k >= self.root_index {
                    return true;
                }
                before_root += 1;
                if before_root == 2 {
                    return true;
                }
            }
            i += 2;
        }
        false
    }

    /// The static evaluation of `pos` (`-INF` in check): the raw one (from
    /// the table's entry `tt` if any), the corrected one, and the
    /// correction slot (`None` where the evaluation is not corrected).
    #[inline]
    fn static_eval(
        &mut self,
        pos: &P,
        tt: Option<TtHit<P::Move>>,
        in_check: bool,
        ply: usize,
    ) -> (i32, i32, Option<Slot>) {
        if in_check {
            return (-INF, -INF, None);
        }
        let raw = tt.map_or_else(|| pos.evaluate_at(&self.shared.eval, &mut self.eval_cache, ply), |h| h.eval);
        if !self.corr.on() {
            return (raw, raw, None);
        }
        let slot = self.corr.slot(pos);
        (raw, self.corr.corrected(raw, slot), Some(slot))
    }

    /// Score of a position without legal moves.
    #[inline(always)]
    fn terminal_score(pos: &P, ply: usize) -> i32 {
        pos.terminal_score(ply)
    }

    fn order(&self, pos: &P, moves: &P::Moves, tt_move: Option<P::Move>, ply: usize, scored: &mut Vec<(P::Move, i32)>) {
        let killers = self.killers[ply];
        let prev = self.previous(ply);
        let counter = if prev[0] != self.ps { self.counter[prev[0]] } else { None };
        scored.clear();
        scored.extend(moves.moves().iter().map(|&m| {
            let s = if Some(m) == tt_move {
                TT_MOVE_SCORE
            } else if pos.is_tactical(m) {
                let attacker = pos.mover_value(m, &self.shared.eval);
                let mvv = pos.gain(m, &self.shared.eval) * 16 - attacker / 10
                    + i32::from(self.capture_hist[Self::ps(pos, m)]) / 16;
                // Captures that lose material go after the quiet moves.
                if !P::is_promotion(m) && pos.see(m, &self.shared.eval) < 0 { -200_000 + mvv } else { 500_000 + mvv }
            } else if Some(m) == killers[0] {
                400_000
            } else if Some(m) == killers[1] {
                399_000
            } else if Some(m) == counter {
                398_000
            } else {
                self.quiet_score(pos, m, prev)
            };
            (m, s)
        }));
        scored.sort_unstable_by_key(|x| std::cmp::Reverse(x.1));
    }

    fn update_pv(&mut self, ply: usize, m: P::Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    #[inline(always)]
    fn has_pieces(pos: &P) -> bool {
        pos.has_pieces()
    }

    /// Alpha-beta with principal variation search. `cut_node`: a node
    /// expected to fail high (searched with a null window from a parent
    /// expecting to fail low there), where late moves are reduced more.
    fn negamax(&mut self, pos: &P, depth: i32, mut alpha: i32, mut beta: i32, ply: usize, cut_node: bool) -> i32 {
        let pv_node = beta - alpha > 1;
        pos.enter(&mut self.eval_cache, ply);
        self.pv[ply].clear();
        if self.stopped() {
            return 0;
        }
        if ply > 0 && (self.is_repetition(pos) || pos.move_rule_draw()) {
            return 0;
        }
        if ply >= MAX_PLY {
            return pos.evaluate_at(&self.shared.eval, &mut self.eval_cache, ply);
        }
        let in_check = pos.in_check();
        if depth <= 0 && !in_check {
            return self.qsearch(pos, alpha, beta, ply, 0);
        }
        self.count_node();
        self.seldepth = self.seldepth.max(ply);
        let depth = depth.max(1);

        // Mate distance pruning.
        if ply > 0 {
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let alpha0 = alpha;
        let key = pos.key();
        let tt = self.shared.tt.probe_with(key, P::unpack);
        let tt_move = tt.and_then(|h| h.mv);
        if let Some(h) = tt
            && !pv_node
            && h.depth >= depth
        {
            if let Some(s) = tt_cutoff(h.score, h.bound, ply, alpha, beta) {
                return s;
            }
        }

        let mut moves = P::Moves::empty();
        pos.legal_moves_into(&mut moves);
        if moves.moves().is_empty() {
            return Self::terminal_score(pos, ply);
        }
        let prelude = moves.moves().iter().any(|&m| P::is_prelude(m));
        let (raw_eval, static_eval, corr_slot) = self.static_eval(pos, tt, in_check, ply);
        self.stack[ply].eval = static_eval;
        // Better than two plies ago: prune less.
        let improving = !in_check && ply >= 2 && static_eval > self.stack[ply - 2].eval;

        if !pv_node && !in_check && !prelude {
            // Reverse futility pruning.
            let margin = 90 * depth - if improving { 60 } else { 0 };
            if depth <= 6 && static_eval - margin >= beta && beta.abs() < MATE_BOUND {
                return static_eval;
            }
            // Razoring: hopeless at low depth unless a capture saves it.
            if depth <= 2 && static_eval + 250 + 200 * depth <= alpha && alpha.abs() < MATE_BOUND {
                let v = self.qsearch(pos, alpha, alpha + 1, ply, 0);
                if v <= alpha {
                    return v;
                }
            }
            // Null-move pruning (not with only king and pawns: zugzwang).
            // Never two null moves in a row.
            let after_null = ply > 0 && self.stack[ply - 1].null;
            if !after_null && depth >= 3 && static_eval >= beta && Self::has_pieces(pos) {
                let r = 3 + depth / 4 + ((static_eval - beta) / 200).min(2);
                let child = pos.play_null();
                self.keys.push(child.key());
                self.stack[ply].ps = self.ps;
                self.stack[ply].null = true;
                let s = -self.negamax(&child, depth - 1 - r, -beta, -beta + 1, ply + 1, !cut_node);
                self.keys.pop();
                if self.stopped() {
                    return 0;
                }
                if s >= beta && s < MATE_BOUND {
                    return s;
                }
            }
        }

        // Internal iterative reduction: without a hash move, search shallower.
        let depth = if tt_move.is_none() && depth >= 5 && !in_check && !prelude { depth - 1 } else { depth };
        let mut ordered = std::mem::take(&mut self.buffers[ply]);
        self.order(pos, &moves, tt_move, ply, &mut ordered);
        let mut quiets_tried = std::mem::take(&mut self.quiets[ply]);
        quiets_tried.clear();
        let mut captures_tried = std::mem::take(&mut self.captures[ply]);
        captures_tried.clear();
        let tt_capture = depth >= 3
            && !self.reserves
            && ordered.first().is_some_and(|&(m, s)| s == TT_MOVE_SCORE && pos.is_tactical(m));
        let mut best = -INF;
        let mut best_move = None;
        for (i, &(m, order_score)) in ordered.iter().enumerate() {
            if prelude && pos.is_dominated(m) {
                continue;
            }
            let tactical = pos.is_tactical(m);
            let prunable = !pv_node
                && !in_check
                && best > -MATE_BOUND
                && !prelude
                && if !tactical {
                    // Late move pruning and futility pruning of quiet moves;
                    // quiet moves with a bad history, or that lose material,
                    // at low depth.
                    let late = (3 + (depth * depth) as usize) * if improving { 2 } else { 1 } / 2;
                    (depth <= 7 && i >= late.max(3))
                        || (depth <= 6 && static_eval + 40 + 110 * depth <= alpha)
                        || (depth <= 3 && order_score < -4000 * depth)
                        || (depth <= 5 && pos.see(m, &self.shared.eval) < -30 * depth * depth)
                } else {
                    depth <= 5 && !P::is_promotion(m) && pos.see(m, &self.shared.eval) < -110 * depth
                };
            // A move that gives check is never pruned. A prunable move is
            // played only once it is known not to be pruned (unless the
            // position cannot tell a check without playing it).
            let (played, gives_check) = match prunable.then(|| pos.gives_check_unplayed(m)).flatten() {
                Some(check) => (None, check),
                None => {
                    let child = pos.play(m);
                    let check = child.in_check();
                    (Some(child), check)
                }
            };
            if prunable && !gives_check {
                continue;
            }
            let child = played.unwrap_or_else(|| pos.play(m));
            // Prelude actions (accept, decline, placement) cost no depth:
            // the lines to the same game must reach it with the same depth
            // left. White's `decline` lets Black choose between the game
            // without the reserves and the one White's `accept` leads to
            // (the same position), so it can never be worth more than
            // `accept`; charged a ply each, the two-action line through
            // `decline decline` was searched a ply deeper than the
            // three-action line through the placements, and the engine
            // declined on that difference.
            let ext = i32::from((gives_check || P::is_prelude(m)) && ply < 2 * MAX_DEPTH as usize);
            let new_depth = depth - 1 + ext;
            self.keys.push(child.key());
            self.stack[ply].ps = Self::ps(pos, m);
            self.stack[ply].null = false;
            let score = if i == 0 {
                -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, !pv_node && !cut_node)
            } else {
                let mut r = 0;
                if depth >= 3 && i >= 2 + usize::from(pv_node) && !in_check && !gives_check && !prelude {
                    if tactical {
                        // Captures that lose material are reduced too.
                        if order_score < 0 {
                            r = 1;
                        }
                    } else {
                        r = self.reductions[depth.min(63) as usize][i.min(63)] as i32;
                        if pv_node {
                            r -= 1;
                        }
                        if !improving {
                            r += 1;
                        }
                        if cut_node {
                            r += 1;
                        }
                        if tt_capture {
                            // The table's move captures: a quiet move is
                            // less likely to be better.
                            r += 1;
                        }
                        if order_score >= 398_000 {
                            // Killers and the counter-move.
                            r -= 1;
                        } else {
                            // The ordering score of any other quiet move
                            // is its history score.
                            r -= (order_score / 8000).clamp(-2, 2);
                        }
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut s = -self.negamax(&child, new_depth - r, -alpha - 1, -alpha, ply + 1, true);
                if s > alpha && r > 0 {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, !cut_node);
                }
                if s > alpha && s < beta {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, false);
                }
                s
            };
            self.keys.pop();
            if self.stopped() {
                self.buffers[ply] = ordered;
                self.quiets[ply] = quiets_tried;
                self.captures[ply] = captures_tried;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    self.update_pv(ply, m);
                    if score >= beta {
                        if !tactical {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(m) {
                                k[1] = k[0];
                                k[0] = Some(m);
                            }
                            self.update_quiet_stats(pos, m, &quiets_tried, depth, ply);
                            self.update_capture_stats(pos, None, &captures_tried, depth);
                        } else {
                            self.update_capture_stats(pos, Some(m), &captures_tried, depth);
                        }
                        break;
                    }
                }
            }
            if !tactical && quiets_tried.len() < 64 {
                quiets_tried.push(m);
            } else if tactical && captures_tried.len() < 32 {
                captures_tried.push(m);
            }
        }
        self.buffers[ply] = ordered;
        self.quiets[ply] = quiets_tried;
        self.captures[ply] = captures_tried;
        let bound = bound_of(best, alpha0, beta);
        // The correction learns from results that say the static evaluation
        // was off in the direction the bound can tell: not from captures (a
        // material swing the evaluation cannot know), not from mates.
        if let Some(slot) = corr_slot
            && best_move.is_none_or(|m| !pos.is_tactical(m))
            && best.abs() < MATE_BOUND
            && !(bound == Bound::Lower && best <= static_eval)
            && !(bound == Bound::Upper && best >= static_eval)
        {
            self.corr.update(slot, best, raw_eval, depth);
        }
        self.shared.tt.store_packed(key, best_move.map(P::pack), to_tt(best, ply), raw_eval, depth, bound);
        best
    }

    /// Quiescence search over captures, conversions and promotions (all
    /// moves when in check).
    fn qsearch(&mut self, pos: &P, mut alpha: i32, beta: i32, ply: usize, qply: u32) -> i32 {
        pos.enter(&mut self.eval_cache, ply);
        self.count_node();
        self.seldepth = self.seldepth.max(ply);
        if self.stopped() {
            return 0;
        }
        if ply >= MAX_PLY {
            return pos.evaluate_at(&self.shared.eval, &mut self.eval_cache, ply);
        }
        if pos.ended() {
            return Self::terminal_score(pos, ply);
        }
        // Conversions never run out of material, so exchanges of takeovers
        // can go on forever: quiescence is bounded.
        if qply >= MAX_QPLY {
            return pos.evaluate_at(&self.shared.eval, &mut self.eval_cache, ply);
        }
        let key = pos.key();
        let tt = self.shared.tt.probe_with(key, P::unpack);
        if let Some(h) = tt {
            if let Some(s) = tt_cutoff(h.score, h.bound, ply, alpha, beta) {
                return s;
            }
        }
        let alpha0 = alpha;
        let in_check = pos.in_check();
        // In check every evasion is searched; otherwise only material-changing moves.
        let mut moves = P::Moves::empty();
        if in_check {
            pos.legal_moves_into(&mut moves);
        } else {
            pos.tactical_moves_into(&mut moves);
        }
        if in_check && moves.moves().is_empty() {
            return Self::terminal_score(pos, ply);
        }
        let (raw_eval, stand_pat, _) = self.static_eval(pos, tt, in_check, ply);
        if stand_pat >= beta {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let mut best = stand_pat;
        let mut best_move = None;
        let mut scored = std::mem::take(&mut self.buffers[ply]);
        scored.clear();
        scored.extend(moves.moves().iter().map(|&m| {
            let attacker = pos.mover_value(m, &self.shared.eval);
            (m, pos.gain(m, &self.shared.eval) * 16 - attacker / 10)
        }));
        scored.sort_unstable_by_key(|x| std::cmp::Reverse(x.1));
        for &(m, _) in scored.iter() {
            if !in_check && !P::is_promotion(m) {
                if stand_pat + pos.gain(m, &self.shared.eval) + 200 <= alpha {
                    continue;
                }
                if pos.see(m, &self.shared.eval) < 0 {
                    continue;
                }
            }
            let child = pos.play(m);
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1, qply + 1);
            if self.stopped() {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.buffers[ply] = scored;
        if self.stopped() {
            return 0;
        }
        let bound = bound_of(best, alpha0, beta);
        self.shared.tt.store_packed(key, best_move.map(P::pack), to_tt(best, ply), raw_eval, 0, bound);
        best
    }

    /// Searches the root moves from index `pv_idx` on, in a window.
    fn search_root(&mut self, pos: &P, depth: i32, mut alpha: i32, beta: i32, pv_idx: usize) -> i32 {
        pos.enter(&mut self.eval_cache, 0);
        self.count_node();
        self.stack[0].eval =
            if pos.in_check() { -INF } else { pos.evaluate_at(&self.shared.eval, &mut self.eval_cache, 0) };
        let mut best = -INF;
        for i in pv_idx..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            let nodes_before = self.local_nodes;
            let child = pos.play(m);
            self.stack[0].ps = Self::ps(pos, m);
            // A prelude action costs no depth (see `negamax`).
            let ext = i32::from(child.in_check() || P::is_prelude(m));
            self.keys.push(child.key());
            self.seldepth = 0;
            let score = if i == pv_idx {
                -self.negamax(&child, depth - 1 + ext, -beta, -alpha, 1, false)
            } else {
                let mut s = -self.negamax(&child, depth - 1 + ext, -alpha - 1, -alpha, 1, true);
                if s > alpha && s < beta {
                    s = -self.negamax(&child, depth - 1 + ext, -beta, -alpha, 1, false);
                }
                s
            };
            self.keys.pop();
            if self.stopped() {
                return best;
            }
            let rm = &mut self.root_moves[i];
            rm.nodes += self.local_nodes - nodes_before;
            if i == pv_idx || score > alpha {
                rm.score = score;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(m);
                rm.pv.extend_from_slice(&self.pv[1]);
                if score > alpha {
                    alpha = score;
                    if i > pv_idx && pv_idx == 0 {
                        self.best_changes += 1.0;
                    }
                    // Keep the best first so later iterations search it first.
                    self.root_moves[pv_idx..=i].rotate_right(1);
                }
            } else {
                rm.score = -INF;
            }
            best = best.max(score);
            if score >= beta {
                break;
            }
        }
        best
    }

    /// Iterative deepening; the main thread reports through `report`.
    pub fn iterate(&mut self, pos: &P, start_depth: u32, report: &mut dyn FnMut(Info<P::Move>)) {
        if self.root_moves.is_empty() {
            return;
        }
        let max_depth = self.shared.limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let multipv = self.shared.multipv.clamp(1, self.root_moves.len());
        let search_span = tracing::info_span!(
            "search",
            variant = pos.variant_name(),
            thread = if self.main { "main" } else { "helper" },
            multipv
        );
        let _s = search_span.enter();
        let mut last_best = None;
        // Time management: the best move and score of each completed
        // iteration, and the depth from which the best move stayed the same.
        let mut completed_best = None;
        let mut best_scores: Vec<i32> = Vec::new();
        let mut stable_since = 0;
        let mut depth = start_depth.max(1);
        while depth <= max_depth {
            self.best_changes /= 2.0;
            let iteration = tracing::info_span!(
                "iteration",
                depth,
                seldepth = tracing::field::Empty,
                score = tracing::field::Empty,
                nodes = tracing::field::Empty,
                nps = tracing::field::Empty,
                hashfull = tracing::field::Empty,
                pv = tracing::field::Empty,
            );
            let _i = iteration.enter();
            for rm in &mut self.root_moves {
                rm.prev_score = rm.score;
            }
            for pv_idx in 0..multipv {
                let prev = self.root_moves[pv_idx].prev_score;
                let mut delta = 25;
                let (mut alpha, mut beta) =
                    if depth >= 5 && prev.abs() < MATE_BOUND { (prev - delta, prev + delta) } else { (-INF, INF) };
                loop {
                    let score = self.search_root(pos, depth as i32, alpha, beta, pv_idx);
                    if self.stopped() {
                        break;
                    }
                    if score <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INF);
                    } else if score >= beta {
                        beta = (score + delta).min(INF);
                    } else {
                        break;
                    }
                    delta += delta / 2;
                }
                if self.stopped() {
                    // Scores of an interrupted iteration are partial: keep
                    // the order (a move proven better was moved to the
                    // front), and show the line if the best move changed.
                    if self.main && pv_idx == 0 && last_best != Some(self.root_moves[0].mv) {
                        self.flush();
                        let info = self.info(depth, 0, &self.root_moves[0]);
                        last_best = Some(self.root_moves[0].mv);
                        report(info);
                    }
                    break;
                }
                // Order the remaining lines best first (stable: earlier order
                // breaks ties), then the lines done so far: a later line may
                // have found more than an earlier one (search instability).
                self.root_moves[pv_idx..].sort_by_key(|r| std::cmp::Reverse(r.score));
                self.root_moves[..=pv_idx].sort_by_key(|r| std::cmp::Reverse(r.score));
                // Every line of the iteration is reported once they are all
                // searched, best first.
                if self.main && pv_idx + 1 == multipv {
                    self.flush();
                    for idx in 0..multipv {
                        let rm = &self.root_moves[idx];
                        let info = self.info(depth, idx, rm);
                        if idx == 0 && last_best != Some(rm.mv) {
                            last_best = Some(rm.mv);
                            tracing::debug!(depth, best = %pos.line_text(&[rm.mv]).join(""), score = ?info.score, "best move changed");
                        }
                        report(info);
                    }
                }
            }
            if self.stopped() {
                break;
            }
            if completed_best != Some(self.root_moves[0].mv) {
                stable_since = depth;
            }
            completed_best = Some(self.root_moves[0].mv);
            best_scores.push(self.root_moves[0].score);
            self.completed_depth = depth;
            if self.main {
                let info = self.info(depth, 0, &self.root_moves[0]);
                if !iteration.is_disabled() {
                    let pv: Vec<String> = pos.line_text(&info.pv);
                    iteration.record("seldepth", info.seldepth);
                    iteration.record("score", tracing::field::debug(info.score));
                    iteration.record("nodes", info.nodes);
                    iteration.record("nps", info.nps);
                    iteration.record("hashfull", info.hashfull);
                    iteration.record("pv", pv.join(" "));
                }
                // Time: don't start an iteration that cannot finish.
                if let Some(soft) = self.shared.budget.soft
                    && self.shared.limits.movetime.is_none()
                    && self.shared.start.elapsed()
                        >= soft.mul_f64(0.6 * self.progress(depth, &best_scores, stable_since).time_scale())
                {
                    break;
                }
                // One move to search saves the clock; a fixed thinking time
                // (`movetime`, an analysis of one move) is used in full.
                if self.root_moves.len() == 1
                    && self.shared.budget.soft.is_some()
                    && self.shared.limits.movetime.is_none()
                {
                    break;
                }
                if let Score::Mate(n) = info.score
                    && self.shared.limits.depth.is_none()
                    && n.unsigned_abs() * 2 < depth
                    && !self.shared.limits.infinite
                    && self.shared.budget.soft.is_some()
                {
                    break;
                }
            }
            depth += 1;
        }
        self.flush();
    }

    /// The search's progress so far, for time management.
    fn progress(&self, depth: u32, scores: &[i32], stable_since: u32) -> Progress {
        let total: u64 = self.root_moves.iter().map(|r| r.nodes).sum();
        Progress {
            scores: scores.iter().map(|&v| (v.abs() < MATE_BOUND).then_some(v)).collect(),
            best_changes: self.best_changes,
            stable_iterations: depth - stable_since,
            best_move_effort: if total == 0 { 0.0 } else { self.root_moves[0].nodes as f64 / total as f64 },
        }
    }

    fn info(&self, depth: u32, pv_idx: usize, rm: &RootMove<P::Move>) -> Info<P::Move> {
        let elapsed = self.shared.start.elapsed();
        let nodes = self.shared.nodes.load(Ordering::Relaxed);
        let ms = elapsed.as_millis() as u64;
        Info {
            depth,
            seldepth: rm.seldepth.max(depth as usize) as u32,
            multipv: pv_idx as u32 + 1,
            score: if rm.score > -INF {
                score_of(rm.score)
            } else if rm.prev_score > -INF {
                score_of(rm.prev_score)
            } else {
                Score::Cp(0)
            },
            nodes,
            nps: if elapsed.as_secs_f64() > 0.0 { (nodes as f64 / elapsed.as_secs_f64()) as u64 } else { 0 },
            time_ms: ms,
            hashfull: self.shared.tt.hashfull(),
            pv: rm.pv.clone(),
        }
    }
}
