//! A game of a data-defined variant: the positions along its moves, and the
//! rules that look at the game rather than at one position — Fairy-Stockfish's
//! n-move rule, n-fold repetition and counting.

use super::{EndReason, GameValue, Move, Outcome, Position};

/// A game: a start position and the legal moves played from it.
///
/// ```
/// use menagerie_rules::{Definitions, EndReason, Game, Position};
/// let defs = Definitions::builtin();
/// let mut game = Game::new(Position::start(defs.get("makruk").unwrap()));
/// for _ in 0..2 {
///     for text in ["b1d2", "b8d7", "d2b1", "d7b8"] {
///         let m = game.current().parse_move(text).unwrap();
///         game.play(m);
///     }
/// }
/// assert_eq!(game.claimable().map(|o| o.reason), Some(EndReason::Repetition));
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    moves: Vec<Move>,
}

impl Game {
    /// A game from `start`, no move played yet.
    pub fn new(start: Position) -> Game {
        Game { positions: vec![start], moves: Vec::new() }
    }

    /// The position now.
    pub fn current(&self) -> &Position {
        // Never empty: `new` puts the start in.
        &self.positions[self.positions.len() - 1]
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The moves played, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plays `m`, which must be legal in [`Game::current`].
    pub fn play(&mut self, m: Move) {
        let next = self.current().play(m);
        self.positions.push(next);
        self.moves.push(m);
    }

    /// How the position now ends the game, if it does (checkmate,
    /// stalemate, extinction: [`Position::outcome`]).
    pub fn outcome(&self) -> Option<Outcome> {
        self.current().outcome()
    }

    /// The rule of the game, if any, that ends it now although moves remain
    /// (Fairy-Stockfish's "optional" game ends, which its engine and match
    /// referees apply and a player may claim): the n-move rule (after
    /// `2 × nMoveRule` plies without progress, unless the side to move is
    /// checkmated), n-fold repetition (the position for the `nFoldRule`-th
    /// time since the last irreversible move, valued by `nFoldValue` for
    /// the side to move) and counting (past the counting limit, unless
    /// checkmated). `None` when the game goes on, or when it has ended by
    /// [`Game::outcome`] anyway.
    pub fn claimable(&self) -> Option<Outcome> {
        let pos = self.current();
        let d = &*pos.def;
        let st = &pos.state;
        let rules = &d.game_end;
        let mated = || pos.in_check() && pos.legal_moves().is_empty();
        if rules.n_move_rule > 0 && st.rule50 >= 2 * rules.n_move_rule && !mated() {
            return Outcome::valued(EndReason::MoveRule, GameValue::Draw, pos.white_to_move());
        }
        if rules.n_fold_rule > 0 && rules.n_fold_value != GameValue::None {
            let reversible = (st.rule50 as usize).min(self.positions.len() - 1);
            let earlier = self.positions[self.positions.len() - 1 - reversible..self.positions.len() - 1]
                .iter()
                .rev()
                .skip(1)
                .step_by(2)
                .filter(|p| p.state.same_position(st, d))
                .count();
            if earlier + 1 >= rules.n_fold_rule as usize {
                return Outcome::valued(EndReason::Repetition, rules.n_fold_value, pos.white_to_move());
            }
        }
        if st.counting_limit != 0 && st.counting_ply > st.counting_limit && !mated() {
            return Outcome::valued(EndReason::Counting, GameValue::Draw, pos.white_to_move());
        }
        None
    }
}

impl std::fmt::Display for Outcome {
    /// `checkmate, White wins`, `repetition, draw`, ...
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reason = match self.reason {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::Extinction => "extinction",
            EndReason::Repetition => "repetition",
            EndReason::MoveRule => "n-move rule",
            EndReason::Counting => "counting",
            EndReason::Flag => "flag",
            EndReason::Checks => "checks",
        };
        let result = match self.result {
            super::GameResult::WhiteWins => "White wins",
            super::GameResult::BlackWins => "Black wins",
            super::GameResult::Draw => "draw",
        };
        write!(f, "{reason}, {result}")
    }
}
