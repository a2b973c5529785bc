//! What a review asks of a position, for the compiled variants
//! ([`AnyPosition`]) and the variants defined as data
//! ([`menagerie_rules::Position`]).

use crate::{Eval, GameEnd, ReviewError, Side};
use menagerie_game::{Move as GameMove, Position as GamePosition};
use menagerie_notation::pgn::{DataPgnGame, PgnGame, PgnPosition};
use menagerie_notation::uci;
use menagerie_pieces::Color;
use menagerie_render::{Arrow, RenderError, RenderOptions, SvgColor};
use menagerie_search::{Engine, Limits, SearchHandle};
use menagerie_variants::{AnyPosition, DrawReason, Game, Outcome};

/// A position whose games can be reviewed: PGN ([`PgnPosition`]) plus the
/// search, coordinate moves, the game's end and board pictures.
pub trait ReviewPosition:
    PgnPosition<Move: Send + Sync + Eq + 'static + Into<GameMove>> + Send + Sync + Clone + Into<GamePosition>
{
    /// The name of `variant`.
    fn variant_name(variant: &Self::Variant) -> String;
    /// The FEN of `variant`'s start position.
    fn start_fen(variant: &Self::Variant) -> String;
    /// `m` (legal here) in coordinate form.
    fn coordinates(&self, m: Self::Move) -> String;
    /// The legal move written `text` in coordinate form.
    fn parse_coordinates(&self, text: &str) -> Option<Self::Move>;
    /// How `game`'s main line has ended, if it has.
    fn game_end(game: &PgnGame<Self>) -> Result<Option<(Eval, GameEnd)>, ReviewError>;
    /// This position's own move for the game's move `m` (what the engine
    /// answers), if it is one.
    fn from_game_move(m: GameMove) -> Option<Self::Move>;
    /// Starts `engine`'s search of the position after `moves` from `start`
    /// (the positions along the way count for repetition); `None` if a move
    /// is not legal.
    fn go(engine: &mut Engine, start: &Self, moves: &[Self::Move], limits: Limits) -> Option<SearchHandle> {
        let moves: Vec<GameMove> = moves.iter().map(|&m| m.into()).collect();
        engine.set_position(start.clone(), &moves).ok()?;
        Some(engine.go(limits, |_| {}))
    }
    /// The position before a move, from the mover's side: the move before
    /// it shaded, the played move as a red arrow and the best one as a
    /// green arrow (only the green one when they are the same).
    fn picture(
        &self,
        played: Self::Move,
        best: Option<Self::Move>,
        previous: Option<Self::Move>,
    ) -> Result<String, RenderError> {
        let pos: GamePosition = self.clone().into();
        let squares = |m: Self::Move| menagerie_render::last_move_squares(m);
        let options = RenderOptions {
            orientation: if pos.white_to_move() { Color::White } else { Color::Black },
            last_move: previous.and_then(squares),
            arrows: arrows(Some(played), best, squares)?,
            ..RenderOptions::default()
        };
        menagerie_render::render_position(&pos, &options)
    }
}

/// The arrows of a picture: the played move red unless it is the best, the best one green.
fn arrows<S: Copy + PartialEq>(
    played: Option<S>,
    best: Option<S>,
    squares: impl Fn(S) -> Option<(menagerie_geometry::Square, menagerie_geometry::Square)>,
) -> Result<Vec<Arrow>, RenderError> {
    let mut out = Vec::new();
    if let Some(p) = played
        && best != Some(p)
        && let Some((from, to)) = squares(p)
    {
        out.push(Arrow { from, to, color: SvgColor::parse("red")? });
    }
    if let Some((from, to)) = best.and_then(&squares) {
        out.push(Arrow { from, to, color: SvgColor::parse("green")? });
    }
    Ok(out)
}

impl ReviewPosition for AnyPosition {
    fn variant_name(variant: &Self::Variant) -> String {
        variant.name().to_string()
    }

    fn start_fen(variant: &Self::Variant) -> String {
        variant.start_fen().to_string()
    }

    fn coordinates(&self, m: Self::Move) -> String {
        uci::format(self.variant(), m)
    }

    fn parse_coordinates(&self, text: &str) -> Option<Self::Move> {
        uci::parse(self, text).ok()
    }

    fn game_end(game: &PgnGame) -> Result<Option<(Eval, GameEnd)>, ReviewError> {
        Ok(compiled_end(&game.to_game()?))
    }

    fn from_game_move(m: GameMove) -> Option<Self::Move> {
        m.compiled()
    }
}

/// The end of a compiled variant's game in its final position, by the
/// rules that end a game without a claim (FIDE): checkmate, stalemate, a
/// variant's win, insufficient material, fivefold repetition,
/// seventy-five moves.
fn compiled_end(game: &Game) -> Option<(Eval, GameEnd)> {
    let pos = game.position();
    let end = |eval: Eval, result: &str, description: String| {
        Some((eval, GameEnd { result: result.to_string(), description }))
    };
    match pos.outcome() {
        Some(o @ Outcome::Win { winner, .. }) => end(Eval::Won(winner.into()), o.result(), o.describe()),
        Some(o @ Outcome::Draw(DrawReason::Stalemate | DrawReason::InsufficientMaterial)) => {
            end(Eval::Cp(0), o.result(), o.describe())
        }
        _ if pos.insufficient_material() => {
            let o = Outcome::Draw(DrawReason::InsufficientMaterial);
            end(Eval::Cp(0), o.result(), o.describe())
        }
        _ if game.repetitions() >= 5 => end(Eval::Cp(0), "1/2-1/2", "fivefold repetition, draw".into()),
        _ if pos.halfmove_clock() >= 150 => end(Eval::Cp(0), "1/2-1/2", "seventy-five-move rule, draw".into()),
        _ => None,
    }
}

impl ReviewPosition for menagerie_rules::Position {
    fn variant_name(variant: &Self::Variant) -> String {
        variant.name.clone()
    }

    fn start_fen(variant: &Self::Variant) -> String {
        variant.start_fen.clone()
    }

    fn coordinates(&self, m: Self::Move) -> String {
        self.move_text(m)
    }

    fn parse_coordinates(&self, text: &str) -> Option<Self::Move> {
        self.parse_move(text).ok()
    }

    /// Checkmate, stalemate and extinction as the variant values them, and
    /// its optional ends (n-fold repetition, the n-move rule, counting),
    /// which its engine and referees apply.
    fn game_end(game: &DataPgnGame) -> Result<Option<(Eval, GameEnd)>, ReviewError> {
        let played = game.to_game()?;
        Ok(played.outcome().or_else(|| played.claimable()).map(|o| {
            let (eval, result) = match o.result {
                menagerie_rules::GameResult::WhiteWins => (Eval::Won(Side::White), "1-0"),
                menagerie_rules::GameResult::BlackWins => (Eval::Won(Side::Black), "0-1"),
                menagerie_rules::GameResult::Draw => (Eval::Cp(0), "1/2-1/2"),
            };
            (eval, GameEnd { result: result.into(), description: o.to_string() })
        }))
    }

    fn from_game_move(m: GameMove) -> Option<Self::Move> {
        m.data()
    }
}
