//! A game of a data-defined variant: the positions along its moves, and the
//! rules that look at the game rather than at one position — Fairy-Stockfish's
//! n-move rule, n-fold repetition and counting.

use super::{EMPTY, EndReason, GameValue, Kind, Move, Outcome, Position};

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
    /// Per position, the pieces of the side to move that the move to it
    /// chased (`chasingRule`; all empty without the rule).
    chased: Vec<u128>,
}

impl Game {
    /// A game from `start`, no move played yet.
    pub fn new(start: Position) -> Game {
        Game { positions: vec![start], moves: Vec::new(), chased: vec![0] }
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

    /// The squares (bit per square) of the side to move's pieces that the
    /// last move chased, by xiangqi's chasing rule (`chasingRule`): empty
    /// without the rule and before the first move.
    pub fn chased(&self) -> u128 {
        self.chased[self.chased.len() - 1]
    }

    /// Plays `m`, which must be legal in [`Game::current`].
    pub fn play(&mut self, m: Move) {
        let before = self.current();
        let next = before.play(m);
        let chased = if next.def.game_end.chasing_rule { next.state.chased(&next.def, &before.state, m) } else { 0 };
        self.chased.push(chased);
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
    /// the side to move, or for White with `nFoldValueAbsolute`; with
    /// `perpetualCheckIllegal` a side that checked with every move since
    /// the repeated position loses, both sides so draw; then, with
    /// `chasingRule = axf`, a side that chased the same piece with every
    /// move since loses, both sides so draw ([`Game::chased`]); with drops
    /// the positions since the start count, as captures go to hand; the
    /// n-move rule of a chasing game waits two plies per check beyond ten)
    /// and counting (past the counting limit, unless checkmated), and
    /// sittuyin's stalemate (a draw when the side to move
    /// has only its king and one pawn, is not in check and may only
    /// promote). `None` when the game goes on, or when it has ended by
    /// [`Game::outcome`] anyway.
    pub fn claimable(&self) -> Option<Outcome> {
        let pos = self.current();
        let d = &*pos.def;
        let st = &pos.state;
        let rules = &d.game_end;
        let mated = || pos.in_check() && pos.legal_moves().is_empty();
        if rules.n_move_rule > 0 && st.rule50 >= 2 * rules.n_move_rule + self.check_allowance() && !mated() {
            return Outcome::valued(EndReason::MoveRule, st.undecided(d), pos.white_to_move());
        }
        if rules.n_fold_rule > 0 && rules.n_fold_value != GameValue::None {
            if let Some(value) = self.repetition(rules) {
                let value = if value == GameValue::Draw { st.undecided(d) } else { value };
                return Outcome::valued(EndReason::Repetition, value, pos.white_to_move());
            }
        }
        if st.counting_limit != 0 && st.counting_ply > st.counting_limit && !mated() {
            return Outcome::valued(EndReason::Counting, GameValue::Draw, pos.white_to_move());
        }
        if st.sittuyin_stalemate(d) {
            return Outcome::valued(EndReason::Stalemate, GameValue::Draw, pos.white_to_move());
        }
        None
    }
}

impl Game {
    /// The value of an n-fold repetition now, for the side to move, if the
    /// position has occurred often enough, looked for as Fairy-Stockfish
    /// does: back to the last irreversible move (with drops, to the start),
    /// every other position, up to the `(nFoldRule - 1)`-th earlier
    /// occurrence.
    fn repetition(&self, rules: &crate::GameEnd) -> Option<GameValue> {
        let pos = self.current();
        let d = &*pos.def;
        let st = &pos.state;
        let now = self.positions.len() - 1;
        let span = if d.drops.is_some_and(|dr| dr.to_hand) { now } else { (st.rule50 as usize).min(now) };
        let checked = |back: usize| self.positions[now - back].in_check();
        // The side to move was checked in every position it met (its
        // opponent checked with every move), and the other way round.
        let perpetual = rules.perpetual_check_illegal;
        let mut them = perpetual && checked(0);
        let mut us = perpetual && span >= 1 && checked(1);
        let mut shuffle = if rules.move_repetition_illegal && span >= 4 { self.shuffle_start() } else { 0 };
        // The pieces chased with every move since: by the opponent
        // (`chase_them`: the side to move's pieces) and by the side to move.
        let chasing = rules.chasing_rule && span >= 4;
        let back_to = |b: u128, k: usize| undo_move_board(b, self.moves[k]) & self.chased[k];
        let mut chase_them = if chasing { back_to(self.chased[now], now - 2) } else { 0 };
        let mut chase_us = if chasing { back_to(self.chased[now - 1], now - 3) } else { 0 };
        let mut earlier = 0;
        let mut back = 2;
        while back <= span {
            if back >= 4 && shuffle > 0 {
                // Janggi's move repetition, looked for as Fairy-Stockfish
                // does: each step back must undo the next move of the
                // opponent (the side not to move), none from check.
                let older = now.checked_sub(back + 1).map(|k| (k, self.moves[k]));
                if back < span && checked(back + 1) {
                    shuffle = 0;
                } else if shuffle < 4 {
                    let newer = self.moves[if shuffle == 1 { now - 1 } else { now + 1 - back }];
                    shuffle = match older {
                        Some((_, m)) if reverses(m, newer) => shuffle + 1,
                        _ => 0,
                    };
                } else {
                    // The shuffled piece came to its square without a capture.
                    if let Some((k, arrival)) = older
                        && !self.positions[k].state.takes(arrival)
                        && self.moves[now + 1 - back].from == arrival.to
                    {
                        return Some(GameValue::Win);
                    }
                    shuffle = 0;
                }
            }
            // Fairy-Stockfish leaves the chases as they are at its start
            // position, which has no last move.
            if chasing && back >= 4 && back != now {
                chase_them = back_to(chase_them, now - back);
            }
            them &= checked(back);
            if self.positions[now - back].state.repeats(st, d) {
                earlier += 1;
                if earlier + 1 >= rules.n_fold_rule as usize {
                    let (them, us) = if them || us { (them, us) } else { (chase_them != 0, chase_us != 0) };
                    let value = match (them, us) {
                        (true, false) => GameValue::Win,
                        (false, true) => GameValue::Loss,
                        (true, true) => GameValue::Draw,
                        (false, false) if rules.n_fold_value_absolute && !pos.white_to_move() => {
                            match rules.n_fold_value {
                                GameValue::Win => GameValue::Loss,
                                GameValue::Loss => GameValue::Win,
                                other => other,
                            }
                        }
                        (false, false) => rules.n_fold_value,
                    };
                    return Some(value);
                }
            }
            if back < span {
                us &= checked(back + 1);
                if chasing && back >= 4 {
                    chase_us = back_to(chase_us, now - back - 1);
                }
            }
            back += 2;
        }
        None
    }
}

impl Game {
    /// The plies the n-move rule waits beyond its limit under the chasing
    /// rule, as Fairy-Stockfish counts them: once 20 plies have been
    /// played, twice the checks beyond ten that the side that checked more
    /// gave since the last irreversible move.
    fn check_allowance(&self) -> u32 {
        let pos = self.current();
        let now = self.positions.len() - 1;
        if !pos.def.game_end.chasing_rule || now < 20 {
            return 0;
        }
        let end = (pos.state.rule50 as usize).min(now);
        let checked = |back: usize| usize::from(self.positions[now - back].in_check());
        let (mut them, mut us) = (checked(0), checked(1));
        let mut back = 2;
        while back < end {
            them += checked(back);
            us += checked(back + 1);
            back += 2;
        }
        2 * (them.max(us).saturating_sub(10)) as u32
    }

    /// Where a move repetition (`moveRepetitionIllegal`) by the side not to
    /// move stands after its last move: 2 when that move undid its move
    /// before, 1 when it passed before, 0 when there is none (or the last
    /// move was no plain move, came from or after check, or moved a piece
    /// that can never reach the mover's opponent's king's region).
    fn shuffle_start(&self) -> u8 {
        let now = self.positions.len() - 1;
        let pos = &self.positions[now];
        let (d, st) = (&*pos.def, &pos.state);
        let last = self.moves[now - 1];
        let us = st.side;
        let region = |c: u8, t: u8| d.xiangqi.as_ref().map_or(d.board, |x| x.mobility[c as usize][t as usize]);
        let piece = st.board[last.to as usize];
        let reaches_king =
            piece != EMPTY && d.king.is_none_or(|k| region(us ^ 1, piece >> 1) & region(us, k) & d.board != 0);
        if last.kind != Kind::Normal
            || self.positions[now - 1].in_check()
            || self.positions[now - 3].in_check()
            || !reaches_king
        {
            return 0;
        }
        let before = self.moves[now - 3];
        if reverses(before, last) {
            2
        } else if before.kind == Kind::Pass {
            1
        } else {
            0
        }
    }
}

/// The squares of `b` as they were before `m`: a piece on `m`'s target
/// stood on its origin (Fairy-Stockfish's `undo_move_board`).
fn undo_move_board(b: u128, m: Move) -> u128 {
    let to = 1u128 << m.to;
    if m.kind != Kind::Drop && b & to != 0 { (b ^ to) | 1u128 << m.from } else { b }
}

/// Whether `a` is `b` played backwards (both plain moves).
fn reverses(a: Move, b: Move) -> bool {
    a.kind == Kind::Normal && b.kind == Kind::Normal && a.from == b.to && a.to == b.from
}

impl std::fmt::Display for Outcome {
    /// `checkmate, White wins`, `repetition, draw`, ...
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reason = match self.reason {
            EndReason::MoveRule => "n-move rule",
            EndReason::FullBoard => "full board",
            r => r.name(),
        };
        let result = match self.result {
            super::GameResult::WhiteWins => "White wins",
            super::GameResult::BlackWins => "Black wins",
            super::GameResult::Draw => "draw",
        };
        write!(f, "{reason}, {result}")
    }
}
