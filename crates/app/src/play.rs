//! How a game stands and whether a move may be played in it: the game-end
//! policy and move validation every front end answers with, for compiled
//! games and games defined as data alike.
//!
//! The policy (FIDE's, for the compiled games): checkmate, stalemate, the
//! loss of the last Camel and Rhino, insufficient material, a fivefold
//! repetition and the seventy-five-move rule end the game; a threefold
//! repetition and the fifty-move rule are draws the side to move may claim.
//! A game defined as data ends and offers claims as its definition says
//! (Fairy-Stockfish's keys: `nFoldRule`, `nMoveRule`, counting, flags...).

use menagerie_notation::{MoveError, fen, parse_move_in, san, uci};
use menagerie_pieces::Color;
use menagerie_rules::{GameResult, Outcome as DataOutcome};
use menagerie_variants::{AnyPosition, DrawReason, Game, Move, Outcome, WinReason};

use crate::position::{PositionError, PositionRequest, Variants};
use menagerie_game::{Game as FaceGame, Move as FaceMove, Position as FacePosition};

/// A finished game, in the words every front end uses.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Ended {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// The winner, `white` or `black`; empty for a draw.
    pub winner: &'static str,
    /// Why, in snake case: `checkmate`, `stalemate`, `no_camel_or_rhino`,
    /// `insufficient_material`, `fivefold_repetition`,
    /// `seventy_five_moves`; for games defined as data also `extinction`,
    /// `repetition`, `n_move_rule`, `counting`, `flag`, `checks`.
    pub reason: &'static str,
    /// The same for people: `checkmate, White wins`.
    pub description: String,
}

/// How a game stands.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct GameStatus {
    /// The game's end, if it has ended.
    pub ended: Option<Ended>,
    /// A draw the side to move may claim (`repetition`, `fifty_moves`; for
    /// games defined as data `n_move_rule`, `counting`), empty if none or
    /// if the game has ended.
    pub claimable_draw: &'static str,
}

/// A move checked against a position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Validation {
    /// The move may be played.
    Legal(ValidMove),
    /// It may not: why, for people (an illegal or ambiguous move, or a
    /// game that is over).
    Illegal(String),
}

/// A legal move and where it leads.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ValidMove {
    /// In coordinate form.
    pub uci: String,
    /// In SAN.
    pub san: String,
    /// The position after it.
    pub fen: String,
    /// Whether it gives check.
    pub check: bool,
    /// Whether it captures (or converts) material.
    pub capture: bool,
    /// How the game stands after it (left at its default in
    /// [`LegalMoves::moves`], where only the position's own status is given).
    pub status: GameStatus,
}

/// A position's legal moves, each described, and how the game stands.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LegalMoves {
    /// Every legal move, in generation order.
    pub moves: Vec<ValidMove>,
    /// The position.
    pub fen: String,
    /// The side to move, `white` or `black`.
    pub side_to_move: &'static str,
    /// Whether the side to move is in check.
    pub check: bool,
    /// How the game stands.
    pub status: GameStatus,
    /// Whether White, then Black, can no longer mate by any sequence of
    /// moves (compiled games; false for games defined as data).
    pub insufficient_material: [bool; 2],
}

/// A list of moves replayed from a position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Replay {
    /// Each move, described in the position it is played in (its status
    /// left at its default: the game's is [`Replay::status`]).
    pub moves: Vec<ValidMove>,
    /// The position after the last move.
    pub fen: String,
    /// How the game stands there.
    pub status: GameStatus,
}

/// Why a move could not be checked at all: the position is wrong, or the
/// move's text is not written like a move.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ValidateError {
    /// The request's position.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// The move is not written like a move of the variant.
    #[error("{0}")]
    Malformed(String),
}

fn ended(o: Outcome) -> Ended {
    let winner = match o.result() {
        "1-0" => "white",
        "0-1" => "black",
        _ => "",
    };
    let reason = match o {
        Outcome::Win { reason, .. } => match reason {
            WinReason::Checkmate => "checkmate",
            WinReason::NoCamelOrRhino => "no_camel_or_rhino",
        },
        Outcome::Draw(d) => match d {
            DrawReason::Stalemate => "stalemate",
            DrawReason::FiftyMoves => "fifty_moves",
            DrawReason::Repetition => "repetition",
            DrawReason::InsufficientMaterial => "insufficient_material",
        },
    };
    Ended { result: o.result(), winner, reason, description: o.describe() }
}

fn draw(reason: &'static str, description: &str) -> Ended {
    Ended { result: "1/2-1/2", winner: "", reason, description: description.into() }
}

/// How a game of any variant stands (the module's policy): the one place
/// the game-end policy is applied.
pub fn status(game: &FaceGame) -> GameStatus {
    if let Some(g) = game.compiled() {
        return status_with(g, g.position().count_legal());
    }
    let Some(g) = game.data() else { return GameStatus::default() };
    // A game defined as data: its outcome if it has ended (checkmate,
    // stalemate, extinction, flags, checks, or a repetition the variant does
    // not value as a draw), else the draw the side to move may claim,
    // valued as the variant says.
    if let Some(o) = g.outcome() {
        return GameStatus { ended: Some(o.into()), claimable_draw: "" };
    }
    match g.claimable() {
        Some(o) if o.result == GameResult::Draw => GameStatus { ended: None, claimable_draw: Ended::from(o).reason },
        Some(o) => GameStatus { ended: Some(o.into()), claimable_draw: "" },
        None => GameStatus::default(),
    }
}

/// How a compiled game stands given the number of legal moves of its
/// position (the policy's compiled rules, without generating them again).
pub fn status_with(game: &Game, legal: u64) -> GameStatus {
    let pos = game.position();
    let reps = game.repetitions();
    let finished = if legal == 0 {
        // Checkmate, stalemate or the loss of the last Camel and Rhino.
        pos.outcome().map(ended)
    } else if pos.insufficient_material() {
        Some(ended(Outcome::Draw(DrawReason::InsufficientMaterial)))
    } else if reps >= 5 {
        Some(draw("fivefold_repetition", "fivefold repetition, draw"))
    } else if pos.halfmove_clock() >= 150 {
        Some(draw("seventy_five_moves", "seventy-five-move rule, draw"))
    } else {
        None
    };
    let claimable_draw = match finished {
        Some(_) => "",
        None if reps >= 3 => "repetition",
        None if pos.halfmove_clock() >= 100 => "fifty_moves",
        None => "",
    };
    GameStatus { ended: finished, claimable_draw }
}

impl From<DataOutcome> for Ended {
    /// A game defined as data that has ended, in the policy's words.
    fn from(o: DataOutcome) -> Ended {
        let (result, winner) = match o.result {
            GameResult::WhiteWins => ("1-0", "white"),
            GameResult::BlackWins => ("0-1", "black"),
            GameResult::Draw => ("1/2-1/2", ""),
        };
        let reason = o.reason.name();
        Ended { result, winner, reason, description: o.to_string() }
    }
}

/// A legal move `m` of a position of any variant, described, and the
/// position after it.
pub fn describe(pos: &FacePosition, m: FaceMove) -> (ValidMove, FacePosition) {
    let after = pos.play_unchecked(m);
    let described = ValidMove {
        uci: pos.move_text(m),
        san: pos.san(m),
        fen: after.fen(),
        check: after.is_check(),
        capture: pos.is_capture(m),
        status: GameStatus::default(),
    };
    (described, after)
}

/// A legal move `m` of a compiled position, described (SAN among `legal`,
/// the position's legal moves), and the position after it.
fn describe_move(pos: &AnyPosition, m: Move, legal: &[Move]) -> (ValidMove, AnyPosition) {
    let after = pos.play_unchecked(m);
    let described = ValidMove {
        uci: uci::format(pos.variant(), m),
        san: san::format_with(pos, m, legal),
        fen: fen::format(&after),
        check: after.is_check(),
        capture: pos.is_capture(m),
        status: GameStatus::default(),
    };
    (described, after)
}

/// The moves of a compiled game from `start`, each described in the
/// position it is played in.
pub(crate) fn describe_moves(start: AnyPosition, moves: impl IntoIterator<Item = Move>) -> Vec<ValidMove> {
    let mut pos = start;
    moves
        .into_iter()
        .map(|m| {
            let (described, after) = describe_move(&pos, m, &pos.legal_moves());
            pos = after;
            described
        })
        .collect()
}

/// The moves of a game of any variant from `start`, each described in the
/// position it is played in.
pub(crate) fn describe_line(start: &FacePosition, moves: &[FaceMove]) -> Vec<ValidMove> {
    let mut pos = start.clone();
    moves
        .iter()
        .map(|&m| {
            let (described, after) = describe(&pos, m);
            pos = after;
            described
        })
        .collect()
}

impl Variants {
    /// Replays the moves of `request` from its start (the variant's or its
    /// FEN), describing each in the position it is played in, and says how
    /// the game then stands. The first move that is not legal is the error.
    pub fn replay<S: AsRef<str>>(&self, request: &PositionRequest<'_, S>) -> Result<Replay, PositionError> {
        let game = self.game(request)?;
        let moves = match game.compiled() {
            // The compiled fast path: each position's moves generated once.
            Some(g) => describe_moves(*g.start(), g.moves().iter().copied()),
            None => describe_line(game.start(), game.moves()),
        };
        Ok(Replay { moves, fen: game.current().fen(), status: status(&game) })
    }

    /// The legal moves of the position `request` describes, each in both
    /// notations with the position it leads to, and how the game stands.
    pub fn legal_moves<S: AsRef<str>>(&self, request: &PositionRequest<'_, S>) -> Result<LegalMoves, PositionError> {
        let game = self.game(request)?;
        if let Some(g) = game.compiled() {
            // The compiled fast path: the moves generated once.
            let pos = g.position();
            let legal = pos.legal_moves();
            return Ok(LegalMoves {
                moves: legal.iter().map(|&m| describe_move(pos, m, &legal).0).collect(),
                fen: fen::format(pos),
                side_to_move: if pos.side_to_move() == Color::White { "white" } else { "black" },
                check: pos.is_check(),
                status: status_with(g, legal.len() as u64),
                insufficient_material: [
                    pos.insufficient_material_for(Color::White),
                    pos.insufficient_material_for(Color::Black),
                ],
            });
        }
        let pos = game.current();
        Ok(LegalMoves {
            moves: pos.legal_moves().into_iter().map(|m| describe(pos, m).0).collect(),
            fen: pos.fen(),
            side_to_move: if pos.white_to_move() { "white" } else { "black" },
            check: pos.is_check(),
            status: status(&game),
            insufficient_material: [false, false],
        })
    }

    /// Whether `mv` (coordinate form or SAN) may be played in the position
    /// `request` describes, and if so where it leads and how the game then
    /// stands. A move in a finished game is illegal, with the reason.
    ///
    /// A compiled game generates legal moves once per move of the request,
    /// once for the position and once for the position after `mv`.
    pub fn validate<S: AsRef<str>>(
        &self,
        request: &PositionRequest<'_, S>,
        mv: &str,
    ) -> Result<Validation, ValidateError> {
        let mut game = self.game(request)?;
        if let Some(g) = game.compiled() {
            return validate_compiled(g.clone(), mv);
        }
        if let Some(o) = status(&game).ended {
            return Ok(Validation::Illegal(format!("the game is over: {}", o.description)));
        }
        let pos = game.current().clone();
        let m = match pos.parse_move(mv) {
            Ok(m) => m,
            Err(e) if e.is_malformed() => return Err(ValidateError::Malformed(e.to_string())),
            Err(e) => return Ok(Validation::Illegal(e.to_string())),
        };
        let (mut described, _) = describe(&pos, m);
        game.play(m).map_err(|e| ValidateError::Malformed(e.to_string()))?;
        described.status = status(&game);
        Ok(Validation::Legal(described))
    }
}

/// [`Variants::validate`] in a compiled game: the legal moves of each
/// position generated once (SAN and the status reuse them).
fn validate_compiled(mut game: Game, mv: &str) -> Result<Validation, ValidateError> {
    let pos = *game.position();
    let legal = pos.legal_moves();
    if let Some(o) = status_with(&game, legal.len() as u64).ended {
        return Ok(Validation::Illegal(format!("the game is over: {}", o.description)));
    }
    let m: Move = match parse_move_in(&pos, mv, &legal) {
        Ok(m) => m,
        Err(e @ (MoveError::Illegal { .. } | MoveError::Ambiguous(_))) => {
            return Ok(Validation::Illegal(e.to_string()));
        }
        Err(e) => return Err(ValidateError::Malformed(e.to_string())),
    };
    game.play_unchecked(m);
    let after = *game.position();
    let after_legal = after.count_legal();
    Ok(Validation::Legal(ValidMove {
        uci: uci::format(pos.variant(), m),
        san: san::format_known(&pos, m, &legal, &after, after_legal),
        fen: fen::format(&after),
        check: after.is_check(),
        capture: pos.is_capture(m),
        status: status_with(&game, after_legal),
    }))
}

/// Why a request's game cannot be searched.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum SearchGameError {
    /// The request's position.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// The game is over: why, for people.
    #[error("the game is over: {0}")]
    Over(String),
}

impl Variants {
    /// The game `request` describes, to be searched (analysis, a best
    /// move): refused when it is over, that is when a compiled game's
    /// position has no legal moves (checkmate, stalemate, a variant's win)
    /// or when a game defined as data has ended by its rules.
    pub fn game_to_search<S: AsRef<str>>(&self, request: &PositionRequest<'_, S>) -> Result<FaceGame, SearchGameError> {
        let game = self.game(request)?;
        let over = match game.compiled() {
            Some(g) => g.outcome().filter(|_| g.position().count_legal() == 0).map(|o| o.describe()),
            None => status(&game).ended.map(|e| e.description),
        };
        match over {
            Some(description) => Err(SearchGameError::Over(description)),
            None => Ok(game),
        }
    }
}
