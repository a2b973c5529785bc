//! Sittuyin's promotions (Fairy-Stockfish's `sittuyinPromotion`; Burmese
//! chess).
//!
//! A pawn never promotes by moving. Instead, as its whole move, a pawn
//! standing in its side's promotion region (any of the side's pawns when
//! it has only one) turns into a promotion type of which the side has
//! fewer than `promotionLimit` pieces: where it stands, or on an empty
//! square the new piece attacks from there. The new piece may not attack
//! an enemy piece from its square, and the promotion may not give check
//! (a line it opens counts). Written `d5d5f` in place, `d5e6f` onto
//! another square; in SAN `d5=F` and `d5e6=F`.
//!
//! A side left with its king and one pawn, not in check, whose every legal
//! move is a promotion, may claim a draw (Fairy-Stockfish's optional game
//! end, the rules' 3.9 c.7).

use super::{Kind, Move, State, bb, bits};
use crate::variant::VariantDef;

impl State {
    /// The promotions of the side to move's `pawns` (pseudo-legal: the
    /// mover's king may be left attacked and the promotion may give check),
    /// given each side's promotion region.
    #[cold]
    #[inline(never)]
    pub(super) fn sittuyin_promotions(&self, d: &VariantDef, zone: &[u128; 2], pawns: u128, out: &mut Vec<Move>) {
        let us = self.side;
        let occ = self.occ();
        let theirs = self.by_color[(us ^ 1) as usize];
        let promoting = if pawns.count_ones() > 1 { pawns & zone[us as usize] } else { pawns };
        for from in bits(promoting) {
            for &pt in &d.promotion_types[us as usize] {
                if !self.may_promote_to(d, pt) {
                    continue;
                }
                let targets = (d.reach(pt, us, from, occ, true, &self.by_type) & !occ & d.board) | bb(from);
                for to in bits(targets) {
                    // The new piece (the pawn gone from `from`) attacks no enemy piece.
                    if d.reach(pt, us, to, occ ^ bb(from), true, &self.by_type) & theirs == 0 {
                        out.push(Move { promo: pt, ..Move::new(from, to, Kind::Promotion) });
                    }
                }
            }
        }
    }

    /// Drops the promotions of `out` (legal moves otherwise) that give check.
    pub(super) fn sittuyin_filter(&self, d: &VariantDef, out: &mut Vec<Move>) {
        out.retain(|&m| m.kind != Kind::Promotion || !self.play(d, m).in_check(d));
    }

    /// The sittuyin stalemate: the side to move has only its king and one
    /// pawn, is not in check, has legal moves and every one of them is a
    /// promotion (Fairy-Stockfish counts a stalemate too, which
    /// [`super::Position::outcome`] ends anyway).
    pub(crate) fn sittuyin_stalemate(&self, d: &VariantDef) -> bool {
        let Some(pawn) = d.pawn else { return false };
        let own = self.by_color[self.side as usize];
        if d.sittuyin.is_none()
            || own.count_ones() != 2
            || (self.by_type[pawn as usize] & own).count_ones() != 1
            || self.in_check(d)
        {
            return false;
        }
        let mut moves = Vec::new();
        self.legal_moves(d, &mut moves);
        !moves.is_empty() && moves.iter().all(|m| m.kind == Kind::Promotion)
    }
}
