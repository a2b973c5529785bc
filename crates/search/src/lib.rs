//! Best-move search for every Menagerie variant.
//!
//! Iterative-deepening principal variation search with aspiration windows,
//! a lock-free shared transposition table, quiescence over captures (en
//! passant, replacement captures, takeovers and multi-captures, promotions),
//! check extensions, killer, counter-move, history, continuation-history
//! and capture-history move ordering, reverse futility, futility and
//! late-move pruning, razoring, null-move pruning (off in the prelude and
//! with only king and pawns), late-move reductions (more at expected cut
//! nodes, and where the table's move captures) and mate distance pruning; prelude actions
//! cost no depth and White's `decline` of reserve pieces is not searched
//! (never better than `accept`: Black could accept into the same position); a
//! correction history that adjusts the static evaluation by what searches
//! found under each pawn structure (neither this nor the capture reduction
//! in the games with reserve pieces); repetitions on the searched line
//! scored as draws, before the root only at the third occurrence; mate
//! scores; multipv; limits by depth, nodes, movetime or clock (the clock's
//! share stretched while the score falls or the best move keeps changing,
//! shortened once one move has stood for several iterations); Lazy SMP
//! threads, each with a cache of the evaluation's pawn-structure terms
//! ([`PawnCache`]). The hot loop is monomorphic per
//! variant ([`menagerie_variants::PositionVisitor`]).
//!
//! The search is generic over [`SearchPosition`]: the compiled variants'
//! positions (zero cost: the same code as before the abstraction) and
//! positions of variants defined as data ([`menagerie_rules::Position`],
//! wrapped as [`DataPosition`] and evaluated by [`DataEval`], which values
//! pieces from their Betza movement). The [`Engine`] takes a game of any
//! variant ([`menagerie_game::Game`]) and picks the search once per `go`:
//! the compiled one, monomorphic for the game (also for a game defined as
//! data that a compiled game plays exactly), or the data engine's. Limits,
//! multipv, threads and strength settings apply to both; [`Info`] and
//! [`SearchResult`] carry the game's [`menagerie_game::Move`]s.
//!
//! `tracing`: a `search` span per search and an `iteration` span per depth
//! (recording depth, seldepth, score, nodes, nps, hashfull, pv), and a debug
//! event each time the best move changes. With no subscriber the spans are
//! disabled at their call sites and cost a branch.
//!
//! ```
//! use menagerie_search::{Engine, EngineOptions, Limits};
//! use menagerie_variants::{AnyPosition, VariantId};
//! let mut engine = Engine::new(EngineOptions { hash_mb: 8, ..EngineOptions::default() });
//! engine.set_position(AnyPosition::start(VariantId::Chess), &[]).unwrap();
//! let result = engine.search(Limits::depth(4), |_info| {});
//! assert!(result.best.is_some());
//! ```
//!
//! A data-defined variant:
//!
//! ```
//! use menagerie_rules::{Definitions, Position};
//! use menagerie_search::{Engine, EngineOptions, Limits};
//! let defs = Definitions::builtin();
//! let start = Position::start(defs.get("capablanca").unwrap());
//! let mut engine = Engine::new(EngineOptions { hash_mb: 8, ..EngineOptions::default() });
//! engine.set_position(start, &[]).unwrap();
//! let result = engine.search(Limits::depth(4), |_info| {});
//! assert!(engine.position().is_legal(result.best.unwrap()));
//! ```

mod correction;
mod data;
mod data_eval;
mod engine;
mod eval;
mod limits;
mod position;
mod search;
mod see;
mod strength;
mod tt;
pub mod wdl;

pub use data::DataPosition;
pub use data_eval::DataEval;
pub use engine::{Engine, EngineOptions, IllegalMoveAt, SearchHandle, SearchResult, eval_for};
pub use eval::{EvalTables, PawnCache, Trace, WEIGHT_COUNT, WeightPhase, Weights, WeightsError};
pub use limits::Limits;
pub use menagerie_nnue as nnue;
pub use position::{MoveBuffer, SearchPosition, ThreadEval};
pub use see::see;
pub use strength::{MAX_ELO, MIN_ELO, Strength, StrengthParams, strength_params};
pub use tt::{Bound, TranspositionTable, TtHit};

use menagerie_game::Move;

/// Deepest iteration the search will start.
pub const MAX_DEPTH: u32 = 100;

/// A score as reported to users.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns from the side to move's point of view.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

/// One info line: the state of a principal variation after an iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info<M = Move> {
    /// Nominal depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// 1-based index of the variation.
    pub multipv: u32,
    /// Score of the line.
    pub score: Score,
    /// Nodes so far (all threads).
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time since the search began.
    pub time_ms: u64,
    /// Transposition table fill, per mille.
    pub hashfull: u32,
    /// The variation.
    pub pv: Vec<M>,
}

impl<M> Info<M> {
    /// This line with its variation rewritten by `line` (e.g. a backend's
    /// moves into the game's).
    pub fn map_pv<N>(self, line: impl FnOnce(&[M]) -> Vec<N>) -> Info<N> {
        Info {
            depth: self.depth,
            seldepth: self.seldepth,
            multipv: self.multipv,
            score: self.score,
            nodes: self.nodes,
            nps: self.nps,
            time_ms: self.time_ms,
            hashfull: self.hashfull,
            pv: line(&self.pv),
        }
    }
}
