//! Positions of data-defined variants ([`menagerie_rules::Position`]) as the
//! search sees them.

use crate::data_eval::DataEval;
use crate::position::SearchPosition;
use crate::search::MATE;
use menagerie_rules::{GameResult, Move, Position};

/// A position of a data-defined variant with its Zobrist key and check
/// status computed once.
#[derive(Clone, Debug)]
pub struct DataPosition {
    pos: Position,
    key: u64,
    check: bool,
    /// Piece types of the game (at most 16 count for the histories).
    kinds: u8,
}

impl DataPosition {
    /// Wraps a position.
    pub fn new(pos: Position) -> DataPosition {
        let key = pos.key();
        let check = pos.in_check();
        let kinds = pos.variant().pieces().count().min(16) as u8;
        DataPosition { pos, key, check, kinds }
    }

    /// `pos`, reached from this position: its key is updated, not recomputed.
    fn child(&self, pos: Position) -> DataPosition {
        let key = pos.key_from(&self.pos, self.key);
        debug_assert_eq!(key, pos.key());
        let check = pos.in_check();
        DataPosition { pos, key, check, kinds: self.kinds }
    }

    /// The position.
    pub fn position(&self) -> &Position {
        &self.pos
    }
}

impl From<Position> for DataPosition {
    fn from(pos: Position) -> DataPosition {
        DataPosition::new(pos)
    }
}

/// Squares of the piece-and-square slots: boards have up to 120.
const DATA_SQUARES: usize = 120;

impl SearchPosition for DataPosition {
    type Move = Move;
    type Moves = Vec<Move>;
    type Eval = DataEval;
    type EvalCache = ();

    #[inline]
    fn key(&self) -> u64 {
        self.key
    }
    #[inline]
    fn halfmove_clock(&self) -> u32 {
        self.pos.halfmove_clock()
    }
    /// The variant's `nMoveRule` (in moves; 0: none).
    #[inline]
    fn move_rule_draw(&self) -> bool {
        let n = self.pos.variant().game_end.n_move_rule;
        n != 0 && self.pos.halfmove_clock() >= 2 * n
    }
    #[inline]
    fn in_check(&self) -> bool {
        self.check
    }
    #[inline]
    fn side_index(&self) -> usize {
        usize::from(!self.pos.white_to_move())
    }
    fn legal_moves_into(&self, out: &mut Vec<Move>) {
        self.pos.legal_moves_into(out);
    }
    fn tactical_moves_into(&self, out: &mut Vec<Move>) {
        self.pos.legal_moves_into(out);
        out.retain(|&m| self.pos.is_capture(m) || m.promotion().is_some() || m.is_takeover());
    }
    fn play(&self, m: Move) -> Self {
        self.child(self.pos.play(m))
    }
    fn play_null(&self) -> Self {
        self.child(self.pos.null_move())
    }
    fn ended(&self) -> bool {
        self.pos.is_extinct()
    }
    fn terminal_score(&self, ply: usize) -> i32 {
        let win = MATE - ply as i32;
        match self.pos.outcome().map(|o| o.result) {
            Some(GameResult::WhiteWins) => {
                if self.pos.white_to_move() {
                    win
                } else {
                    -win
                }
            }
            Some(GameResult::BlackWins) => {
                if self.pos.white_to_move() {
                    -win
                } else {
                    win
                }
            }
            Some(GameResult::Draw) | None => 0,
        }
    }
    #[inline]
    fn is_tactical(&self, m: Move) -> bool {
        m.promotion().is_some() || self.pos.is_capture(m) || m.is_takeover()
    }
    fn gain(&self, m: Move, eval: &DataEval) -> i32 {
        let captured = self.pos.captured_kind(m).map_or(0, |k| eval.value(k));
        let promotion = match (m.promotion(), self.pos.piece_on(m.from_square())) {
            (Some(k), Some(p)) => eval.value(k) - eval.value(p.kind),
            _ => 0,
        };
        captured + promotion + crate::data_eval::conversion_gain(&self.pos, m, eval)
    }
    fn mover_value(&self, m: Move, eval: &DataEval) -> i32 {
        self.pos.piece_on(m.from_square()).map_or(0, |p| eval.value(p.kind))
    }
    fn see(&self, m: Move, eval: &DataEval) -> i32 {
        crate::data_eval::see(&self.pos, m, eval)
    }
    #[inline]
    fn is_promotion(m: Move) -> bool {
        m.promotion().is_some()
    }
    #[inline]
    fn is_prelude(_: Move) -> bool {
        false
    }
    fn piece_squares(&self) -> usize {
        2 * usize::from(self.kinds) * DATA_SQUARES
    }
    fn piece_square(&self, m: Move) -> usize {
        let kinds = usize::from(self.kinds);
        match self.pos.piece_on(m.from_square()) {
            Some(p) if (m.to_square() as usize) < DATA_SQUARES && (p.kind as usize) < kinds => {
                (usize::from(!p.white) * kinds + p.kind as usize) * DATA_SQUARES + m.to_square() as usize
            }
            _ => self.piece_squares(),
        }
    }
    #[inline]
    fn history_index(&self, m: Move) -> usize {
        (self.side_index() * 128 + (m.from_square() as usize & 127)) * 128 + (m.to_square() as usize & 127)
    }
    fn has_pieces(&self) -> bool {
        let def = self.pos.variant();
        let mut plain = 0u128;
        for t in 0..def.piece_count() as u8 {
            if def.is_pawn(t) || def.is_royal(t) {
                plain |= self.pos.pieces_of_kind(t);
            }
        }
        self.pos.pieces_of(self.pos.white_to_move()) & !plain != 0
    }
    fn pawn_key(&self) -> u64 {
        let def = self.pos.variant();
        let mut pawns = 0u128;
        for t in 0..def.piece_count() as u8 {
            if def.is_pawn(t) {
                pawns |= self.pos.pieces_of_kind(t);
            }
        }
        let white = self.pos.white_to_move();
        crate::position::pawn_sets_key(pawns & self.pos.pieces_of(white), pawns & self.pos.pieces_of(!white))
    }
    fn brings_in_reserves(&self) -> bool {
        let def = self.pos.variant();
        def.uses_hand() || def.pioneer_gating()
    }
    fn evaluate(&self, eval: &DataEval, _cache: &mut ()) -> i32 {
        eval.evaluate(&self.pos)
    }
    #[inline]
    fn pack(m: Move) -> u32 {
        m.pack()
    }
    #[inline]
    fn unpack(v: u32) -> Option<Move> {
        Move::unpack(v)
    }
    fn variant_name(&self) -> &str {
        &self.pos.variant().name
    }
    fn line_text(&self, line: &[Move]) -> Vec<String> {
        let mut p = self.pos.clone();
        let mut out = Vec::with_capacity(line.len());
        for &m in line {
            out.push(p.move_text(m));
            p = p.play(m);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use menagerie_rules::Definitions;

    fn pos(fen: &str) -> DataPosition {
        let defs = Definitions::builtin();
        let def = defs.get("chess").expect("chess is built in");
        DataPosition::new(Position::from_fen(def, fen).expect("a legal FEN"))
    }

    #[test]
    fn pawn_keys_follow_the_pawns_and_the_side_to_move_only() {
        let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        // A knight moved: the same pawns, the same key.
        let knight = pos("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1");
        assert_eq!(start.pawn_key(), knight.pawn_key());
        // A pawn moved, or the other side to move: another key.
        let pawn = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1");
        assert_ne!(start.pawn_key(), pawn.pawn_key());
        let black = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert_ne!(start.pawn_key(), black.pawn_key());
        // The compiled core's key of the same position is the same.
        let compiled = match menagerie_notation::fen::parse(
            menagerie_variants::VariantId::Chess,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",
        ) {
            Ok(menagerie_variants::AnyPosition::Chess(p)) => p.pawn_key(),
            other => panic!("{other:?}"),
        };
        assert_eq!(pawn.pawn_key(), compiled);
    }
}
