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
use menagerie_rules::{EndReason, GameResult, Outcome as DataOutcome};
use menagerie_variants::{AnyPosition, DrawReason, Game, Move, Outcome, WinReason};

use crate::position::{PositionError, PositionRequest, VariantRef, Variants};
use crate::{DataGame, DataMove, DataPosition};

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

/// How a compiled game stands (the module's policy).
pub fn status(game: &Game) -> GameStatus {
    status_with(game, game.position().count_legal())
}

/// [`status`] given the number of legal moves of the game's position.
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

fn data_reason(reason: EndReason) -> &'static str {
    match reason {
        EndReason::Checkmate => "checkmate",
        EndReason::Stalemate => "stalemate",
        EndReason::Extinction => "extinction",
        EndReason::Repetition => "repetition",
        EndReason::MoveRule => "n_move_rule",
        EndReason::Counting => "counting",
        EndReason::Flag => "flag",
        EndReason::Checks => "checks",
    }
}

fn data_ended(o: DataOutcome) -> Ended {
    let (result, winner) = match o.result {
        GameResult::WhiteWins => ("1-0", "white"),
        GameResult::BlackWins => ("0-1", "black"),
        GameResult::Draw => ("1/2-1/2", ""),
    };
    Ended { result, winner, reason: data_reason(o.reason), description: o.to_string() }
}

/// How a game defined as data stands: its outcome if it has ended
/// (checkmate, stalemate, extinction, flags, checks, or a repetition the
/// variant does not value as a draw), else the draw the side to move may
/// claim, valued as the variant says.
pub fn data_status(game: &DataGame) -> GameStatus {
    if let Some(o) = game.outcome() {
        return GameStatus { ended: Some(data_ended(o)), claimable_draw: "" };
    }
    match game.claimable() {
        Some(o) if o.result == GameResult::Draw => GameStatus { ended: None, claimable_draw: data_reason(o.reason) },
        Some(o) => GameStatus { ended: Some(data_ended(o)), claimable_draw: "" },
        None => GameStatus::default(),
    }
}

/// A legal move of a position defined as data, described, and the
/// position after it.
pub fn describe_data_move(pos: &DataPosition, m: menagerie_rules::Move) -> (ValidMove, DataPosition) {
    let after = pos.play(m);
    let described = ValidMove {
        uci: pos.move_text(m),
        san: pos.san(m),
        fen: after.fen(),
        check: after.in_check(),
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

/// The moves of a game defined as data from `start`, each described in the
/// position it is played in.
pub(crate) fn describe_data_moves(start: &DataPosition, moves: &[DataMove]) -> Vec<ValidMove> {
    let mut pos = start.clone();
    moves
        .iter()
        .map(|&m| {
            let (described, after) = describe_data_move(&pos, m);
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
        if let VariantRef::Data(_) = self.find(request.variant)? {
            let game = self.data_game(request)?;
            return Ok(Replay {
                moves: describe_data_moves(game.start(), game.moves()),
                fen: game.current().fen(),
                status: data_status(&game),
            });
        }
        let parsed = self.position(request)?;
        Ok(Replay {
            moves: describe_moves(parsed.start, parsed.moves.iter().copied()),
            fen: fen::format(&parsed.current),
            status: status(&parsed.game()),
        })
    }

    /// The legal moves of the position `request` describes, each in both
    /// notations with the position it leads to, and how the game stands.
    pub fn legal_moves<S: AsRef<str>>(&self, request: &PositionRequest<'_, S>) -> Result<LegalMoves, PositionError> {
        if let VariantRef::Data(_) = self.find(request.variant)? {
            let game = self.data_game(request)?;
            let pos = game.current();
            return Ok(LegalMoves {
                moves: pos.legal_moves().into_iter().map(|m| describe_data_move(pos, m).0).collect(),
                fen: pos.fen(),
                side_to_move: if pos.white_to_move() { "white" } else { "black" },
                check: pos.in_check(),
                status: data_status(&game),
                insufficient_material: [false, false],
            });
        }
        let parsed = self.position(request)?;
        let game = parsed.game();
        let pos = parsed.current;
        let legal = pos.legal_moves();
        let moves = legal.iter().map(|&m| describe_move(&pos, m, &legal).0).collect();
        Ok(LegalMoves {
            moves,
            fen: fen::format(&pos),
            side_to_move: if pos.side_to_move() == Color::White { "white" } else { "black" },
            check: pos.is_check(),
            status: status_with(&game, legal.len() as u64),
            insufficient_material: [
                pos.insufficient_material_for(Color::White),
                pos.insufficient_material_for(Color::Black),
            ],
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
        match self.find(request.variant).map_err(PositionError::from)? {
            VariantRef::Compiled(_) => self.validate_compiled(request, mv),
            VariantRef::Data(_) => self.validate_data(request, mv),
        }
    }

    fn validate_compiled<S: AsRef<str>>(
        &self,
        request: &PositionRequest<'_, S>,
        mv: &str,
    ) -> Result<Validation, ValidateError> {
        let parsed = self.position(request)?;
        let mut game = parsed.game();
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

    fn validate_data<S: AsRef<str>>(
        &self,
        request: &PositionRequest<'_, S>,
        mv: &str,
    ) -> Result<Validation, ValidateError> {
        let mut game = self.data_game(request)?;
        if let Some(o) = data_status(&game).ended {
            return Ok(Validation::Illegal(format!("the game is over: {}", o.description)));
        }
        let pos = game.current().clone();
        let m = match pos.parse_any(mv) {
            Ok(m) => m,
            Err(e @ menagerie_rules::MoveError::Syntax(_)) => return Err(ValidateError::Malformed(e.to_string())),
            Err(e) => return Ok(Validation::Illegal(e.to_string())),
        };
        let (mut described, _) = describe_data_move(&pos, m);
        game.play(m);
        described.status = data_status(&game);
        Ok(Validation::Legal(described))
    }
}
