//! Whole-game analysis ("annotate") for every Menagerie variant, compiled
//! or defined as data: the one implementation behind the CLI and the gRPC
//! server. A game is a [`menagerie_notation::pgn::PgnGame`] of either kind
//! of position ([`ReviewPosition`]).
//!
//! [`review`] searches every position of a game's main line — the start
//! position through the final one — on several threads, streams each
//! position's and each move's result as it is ready ([`ReviewEvent`]), and
//! returns a [`GameReview`]: the positions with their evaluations and best
//! lines, the moves classified by how much win probability they lost
//! ([`Classification`]), and a summary per side (counts, average centipawn
//! loss, accuracy). [`GameReview::annotated_pgn`] writes the game back with
//! `[%eval]` comments, NAGs, verdicts and the engine's lines; with
//! [`SvgMode`] the moves carry board pictures with the played and the best
//! move as arrows. Everything serialises to JSON (`serde`).
//!
//! ```
//! use menagerie_notation::pgn;
//! use menagerie_review::{Budget, ReviewOptions, review};
//! let game = pgn::read_str("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n")?.remove(0);
//! let options = ReviewOptions { budget: Budget::Nodes(2_000), workers: 2, ..ReviewOptions::default() };
//! let result = review(&game, &options, |_event| {})?;
//! assert_eq!(result.positions.len(), 8);
//! assert_eq!(result.moves[5].played_san, "Nf6");
//! let annotated = result.annotated_pgn(&game)?;
//! assert!(annotated.contains("[%eval"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # How positions are searched
//! Each position is searched on its own to the [`Budget`], with one search
//! thread, so a review on `workers` threads uses `workers` cores. The
//! positions to search are split into `workers` contiguous runs, one
//! thread and one [`menagerie_search::Engine`] (with `hash_mb / workers`
//! of transposition table) per run. A worker searches its run from the
//! last position backwards and never clears its table: a position's
//! search tree holds the positions that follow it in the game, so what the
//! later searches stored guides and deepens the earlier ones. Each search
//! sees the game's moves before it (repetitions count).
//!
//! A final position where the game is over — checkmate, stalemate, a
//! variant's win (Camel and Rhino), insufficient material, fivefold
//! repetition or the seventy-five-move rule — is not searched: it gets its
//! outcome and an exact score. Claimable draws (threefold repetition, fifty
//! moves) end nothing and are searched. In a variant defined as data the
//! game ends by checkmate, stalemate and extinction as the variant values
//! them and by its optional ends (n-fold repetition, the n-move rule,
//! counting), which its engine applies.
//!
//! With a [`Budget::Depth`] the searches are deterministic: the same game
//! and options give the same review. The number of workers changes which
//! positions share a table, and with it the details of the results.
//!
//! # Judging moves
//! A move's evaluation before is its position's score and after the next
//! position's (both from the searches; White's point of view in
//! [`Eval`]). Each evaluation becomes the chances of a win, a draw and a
//! loss ([`PositionReport::chances`]) by the game's win/draw/loss model,
//! fitted on the engine's own self-play results
//! ([`menagerie_search::wdl`]; chess's model for a game without one); a
//! mate (or a won game) is certain. The mover's expected score in percent
//! (a draw counts half) is the mover's "win probability", and the loss is
//! its drop (never negative). The move is
//! - [`Classification::Best`] if it is the engine's best move (whatever
//!   the loss: it then only measures the noise between two searches),
//! - a blunder from 15 points of loss, a mistake from 10, an inaccuracy
//!   from 5 ([`Thresholds::LICHESS`], the default: lichess's 0.3/0.2/0.1
//!   on its -1..1 scale; [`Thresholds::LENIENT`] has 30/20/10),
//! - [`Classification::Good`] otherwise.
//!
//! The average centipawn loss bounds each evaluation to ±1000 (a mate is
//! ±1000) and averages the mover's drops. Accuracy follows lichess: each
//! move's accuracy is `103.1668 * exp(-0.04354 * loss) - 3.1669 + 1`
//! clamped to 0..100 ([`move_accuracy`]), and a side's accuracy is the mean
//! of the volatility-weighted mean and the harmonic mean of its moves'
//! accuracies.
//!
//! # Cancelling
//! Set [`ReviewOptions::stop`] to stop a review (a deadline passed, the
//! client left): the running searches are stopped within milliseconds and
//! [`review`] returns [`ReviewError::Cancelled`]. The positions finished
//! until then have been delivered as [`ReviewEvent`]s; no partial
//! [`GameReview`] is returned.

mod analyse;
mod annotate;
mod judge;
mod position;

pub use analyse::review;
pub use annotate::ANNOTATOR;
pub use judge::{CP_CEILING, Classification, Thresholds, WIN_SLOPE, move_accuracy, win_percent};
pub use position::ReviewPosition;

use menagerie_notation::pgn::IllegalPgnMove;
use menagerie_pieces::Color;
use menagerie_render::RenderError;
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use thiserror::Error;

/// How long each position is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// This many nodes per position (at least 1).
    Nodes(u64),
    /// This much time per position (at least 1 ms).
    Time(Duration),
    /// This depth per position (1 to [`menagerie_search::MAX_DEPTH`]);
    /// deterministic.
    Depth(u32),
}

/// Which moves get a board picture ([`MoveReport::svg`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SvgMode {
    /// No pictures.
    #[default]
    None,
    /// Inaccuracies, mistakes and blunders.
    Mistakes,
    /// Every move.
    All,
}

/// How to review a game.
#[derive(Clone, Debug)]
pub struct ReviewOptions {
    /// Search budget per position.
    pub budget: Budget,
    /// Worker threads (one engine and one core each); 0: one per available
    /// core. Never more than there are positions to search.
    pub workers: usize,
    /// Transposition table in MB, shared out equally among the workers (at
    /// least 1 MB each).
    pub hash_mb: usize,
    /// Which moves get a picture.
    pub svg: SvgMode,
    /// Where the classifications start.
    pub thresholds: Thresholds,
    /// Set it to stop the review ([`ReviewError::Cancelled`]).
    pub stop: Option<Arc<AtomicBool>>,
    /// The longest any one position is searched, whatever the budget (a
    /// server's cap on a depth or node budget).
    pub max_time: Option<Duration>,
}

impl Default for ReviewOptions {
    /// 200,000 nodes per position, one worker per core, 64 MB, no pictures,
    /// [`Thresholds::LICHESS`], no stop flag, no time cap.
    fn default() -> ReviewOptions {
        ReviewOptions {
            budget: Budget::Nodes(200_000),
            workers: 0,
            hash_mb: 64,
            svg: SvgMode::None,
            thresholds: Thresholds::LICHESS,
            stop: None,
            max_time: None,
        }
    }
}

/// A side, as it appears in reports (`"white"`, `"black"` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl Side {
    /// The other side.
    pub const fn flip(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
    /// `White` or `Black`.
    pub const fn name(self) -> &'static str {
        match self {
            Side::White => "White",
            Side::Black => "Black",
        }
    }
}

impl From<Color> for Side {
    fn from(c: Color) -> Side {
        match c {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

/// An evaluation from White's point of view (`{"cp": 35}`, `{"mate": -3}`,
/// `{"won": "white"}` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Eval {
    /// Centipawns, positive when White is better.
    Cp(i32),
    /// Mate in this many moves, positive when White mates (never 0).
    Mate(i32),
    /// The game is over and this side has won (checkmate, a variant's win).
    Won(Side),
}

impl Eval {
    /// The value of a PGN `[%eval ...]` command: `0.35`, `-1.20`, `#3`,
    /// `#-2`; none for a game already won, which the syntax cannot say.
    pub fn pgn_value(self) -> Option<String> {
        match self {
            Eval::Cp(cp) => {
                let sign = if cp < 0 { "-" } else { "" };
                let a = cp.unsigned_abs();
                Some(format!("{sign}{}.{:02}", a / 100, a % 100))
            }
            Eval::Mate(n) => Some(format!("#{n}")),
            Eval::Won(_) => None,
        }
    }
}

/// How a game ended, for a final position that is not searched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameEnd {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// What happened, e.g. `checkmate, White wins`.
    pub description: String,
}

/// The analysis of one position of the main line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PositionReport {
    /// 0 for the start position, n after the n-th move.
    pub index: usize,
    /// The position in FEN (the variant's dialect).
    pub fen: String,
    /// The side to move.
    pub side_to_move: Side,
    /// The evaluation, White's point of view.
    pub score: Eval,
    /// The engine's move in coordinate form; none when the game is over.
    pub best_move_uci: Option<String>,
    /// The engine's move in SAN.
    pub best_move_san: Option<String>,
    /// The principal variation in SAN, starting with the best move.
    pub pv_san: Vec<String>,
    /// The principal variation in coordinate form.
    pub pv_uci: Vec<String>,
    /// Depth completed (0 when not searched).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Search time in milliseconds.
    pub time_ms: u64,
    /// The result when the game is over here (then nothing was searched).
    pub outcome: Option<GameEnd>,
    /// The evaluation as chances of the game's result, by the game's
    /// win/draw/loss model ([`menagerie_search::wdl`]).
    pub chances: Chances,
}

/// Chances of a game's result from a position, per mille (they add up to
/// 1000).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Chances {
    /// White wins.
    pub white: u32,
    /// A draw.
    pub draw: u32,
    /// Black wins.
    pub black: u32,
}

impl Chances {
    /// The expected score of `side` in percent (0..100; a draw is half).
    pub fn expected_percent(self, side: Side) -> f64 {
        let mine = if side == Side::White { self.white } else { self.black };
        (f64::from(mine) + f64::from(self.draw) / 2.0) / 10.0
    }
}

/// The judgement of one move of the main line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveReport {
    /// The ply, from 1: the move leads from position `index - 1` to `index`.
    pub index: usize,
    /// The move number as PGN writes it (prelude actions do not advance it).
    pub move_number: u32,
    /// Who played it.
    pub colour: Side,
    /// The move played, SAN.
    pub played_san: String,
    /// The move played, coordinate form.
    pub played_uci: String,
    /// The engine's move in the position before, SAN.
    pub best_san: String,
    /// The engine's move, coordinate form.
    pub best_uci: String,
    /// Evaluation before the move (White's point of view).
    pub eval_before: Eval,
    /// Evaluation after the move (White's point of view).
    pub eval_after: Eval,
    /// The mover's win probability before the move, 0..100.
    pub win_before: f64,
    /// The mover's win probability after the move, 0..100.
    pub win_after: f64,
    /// `win_before - win_after`, at least 0.
    pub loss: f64,
    /// The mover's centipawn loss, each evaluation bounded to ±1000.
    pub cp_loss: u32,
    /// The move's accuracy, 0..100 ([`move_accuracy`]).
    pub accuracy: f64,
    /// The verdict.
    pub classification: Classification,
    /// The engine's line from the position before the move, SAN.
    pub best_line_san: Vec<String>,
    /// The same line in coordinate form.
    pub best_line_uci: Vec<String>,
    /// The position before the move, from the mover's side, the played move
    /// as a red arrow and the best move as a green one (per [`SvgMode`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub svg: Option<String>,
}

/// One side's totals.
#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct SideSummary {
    /// Moves played (prelude actions included).
    pub moves: usize,
    /// Best moves.
    pub best: usize,
    /// Good moves.
    pub good: usize,
    /// Inaccuracies.
    pub inaccuracies: usize,
    /// Mistakes.
    pub mistakes: usize,
    /// Blunders.
    pub blunders: usize,
    /// Mean centipawn loss per move; none without moves.
    pub average_centipawn_loss: Option<f64>,
    /// Game accuracy 0..100 (see the crate docs); none without moves.
    pub accuracy: Option<f64>,
}

/// Both sides' totals.
#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct Summary {
    /// White's.
    pub white: SideSummary,
    /// Black's.
    pub black: SideSummary,
}

impl Summary {
    /// Both sides' totals of a review's `positions` and `moves` (every one
    /// of the main line, in order): what [`GameReview::summary`] holds, for
    /// a review received report by report (a remote one).
    pub fn of(positions: &[PositionReport], moves: &[MoveReport]) -> Summary {
        let (white, black) = judge::summarise(positions, moves);
        Summary { white, black }
    }
}

/// A reviewed game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameReview {
    /// The variant's name.
    pub variant: String,
    /// Every position of the main line, by index (start position first).
    pub positions: Vec<PositionReport>,
    /// Every move of the main line, by ply.
    pub moves: Vec<MoveReport>,
    /// Per-side totals.
    pub summary: Summary,
}

/// Progress of a review, delivered on the caller's thread as it happens.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
// Events are few and handed over once: boxing the reports would only make
// them awkward to match.
#[allow(clippy::large_enum_variant)]
pub enum ReviewEvent {
    /// First: how much there is to do.
    Started {
        /// Positions in the main line (moves + 1).
        positions: usize,
        /// Of them, the ones that are searched.
        searches: usize,
        /// Worker threads (0 when nothing is searched).
        workers: usize,
    },
    /// A position is done (in any order; a finished final position comes
    /// first).
    Position(PositionReport),
    /// A move is judged: both its positions are done (in any order).
    Move(MoveReport),
}

/// Why a review failed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ReviewError {
    /// The options cannot be used.
    #[error("invalid review options: {0}")]
    Options(String),
    /// A move of the game's main line is not legal.
    #[error(transparent)]
    Game(#[from] IllegalPgnMove),
    /// The stop flag was set.
    #[error("review cancelled after {analysed} of {total} positions")]
    Cancelled {
        /// Positions finished.
        analysed: usize,
        /// Positions in the game.
        total: usize,
    },
    /// The engine found no move in a position that has one (it could not
    /// start its search thread).
    #[error("the search of position {index} ({fen}) gave no move")]
    NoMove {
        /// The position's index.
        index: usize,
        /// Its FEN.
        fen: String,
    },
    /// A worker thread panicked.
    #[error("an analysis worker failed: {0}")]
    Worker(String),
    /// A board picture could not be drawn.
    #[error("picture for move {index}: {source}")]
    Render {
        /// The move's ply.
        index: usize,
        /// Why.
        source: RenderError,
    },
    /// [`GameReview::annotated_pgn`] was given a game that is not the one
    /// reviewed.
    #[error("the review is of another game: {0}")]
    Mismatch(String),
}
