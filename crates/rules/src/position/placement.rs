//! Drop rules of placement chess (Fairy-Stockfish's
//! `dropOppositeColoredBishop` and `castlingDroppedPiece`).
//!
//! - Bishops on both colours: a drop is legal only if the side can still
//!   have half its bishops (on the board or in hand, rounded down) on dark
//!   squares and half on light ones, counting its bishops standing and the
//!   empty squares of its bishop drop region left; a bishop may not be
//!   dropped on a colour that already holds half of them (rounded up).
//! - Castling by drops: a king dropped on its castling square gains the
//!   castling rights of the rooks standing in the corners of its rank; a
//!   rook dropped in such a corner gains its right while the king stands
//!   on its castling square.

use super::{Move, State, bb, bits};
use crate::variant::{Drops, VariantDef};

impl State {
    /// Whether the drop `m` leaves the side to move room for bishops on
    /// both colours (`bishop` is the bishop type).
    pub(super) fn bishops_placeable(&self, d: &VariantDef, dr: &Drops, bishop: u8, m: Move) -> bool {
        let us = self.side as usize;
        let dark = (0..d.nsq() as u8).filter(|&s| (s % d.files + s / d.files) % 2 == 0).fold(0u128, |b, s| b | bb(s));
        let light = d.board & !dark;
        let own = self.by_type[bishop as usize] & self.by_color[us];
        let total = own.count_ones() + u32::from(self.hand[us][bishop as usize]);
        if m.gate != bishop {
            let remaining = dr.region[us] & d.board & !self.occ() & !bb(m.to);
            let room = own | remaining;
            (dark & room).count_ones() >= total / 2 && (light & room).count_ones() >= total / 2
        } else {
            let same = if dark >> m.to & 1 != 0 { dark } else { light };
            (same & own).count_ones() < total.div_ceil(2)
        }
    }

    /// The castling rights a drop `m` of a piece of type `t` gains in `n`
    /// (the position after the drop).
    pub(super) fn castling_by_drop(d: &VariantDef, m: Move, t: u8, n: &mut State) {
        let us = n.side;
        let rank = d.castling_rank[us as usize];
        if m.to / d.files != rank {
            return;
        }
        let corners = bb(d.sq(0, rank)) | bb(d.sq(d.files - 1, rank));
        let king_home = d.sq(d.castling_king_file, rank);
        if d.castling_king_piece[us as usize] == Some(t) && m.to == king_home {
            n.castle_king[us as usize] = m.to;
            for s in bits(n.by_color[us as usize] & corners) {
                if n.is_castling_rook(d, us, s) {
                    n.set_castling_right(d, us, s);
                }
            }
        } else if d.castling_rook_pieces[us as usize] >> t & 1 != 0 && corners >> m.to & 1 != 0 {
            let king = d.castling_king_piece[us as usize].map(|k| k << 1 | us);
            if king.is_some_and(|k| n.board[king_home as usize] == k) {
                n.castle_king[us as usize] = king_home;
                n.set_castling_right(d, us, m.to);
            }
        }
    }
}
