//! Cambodian chess's special moves (Ouk Chatrang; Fairy-Stockfish's
//! `cambodianMoves`, which goes with `gating = true`).
//!
//! The gates read from the FEN's castling field (`DEde` in the start
//! position) mark the squares of the pieces that have not moved yet:
//!
//! - A king standing on one of its side's gates may leap as a knight to
//!   an empty square of the next rank forward (two files aside), unless it
//!   is in check. The leap takes it off its gate, so it is made once.
//! - A fers (met) standing on one of its side's gates may leap two
//!   squares straight forward to an empty square, whatever stands on the
//!   square between.
//! - A gate is lost when its piece leaves it or is taken on it (the
//!   gating rule, [`State::play_into`]), and the king's also when an enemy
//!   rook moves to a square of the king's rank or file, whether or not
//!   pieces stand between them. Nothing else takes it: a check by another
//!   piece, or by a rook uncovered by another piece's move, leaves it.
//!
//! The moves are ordinary moves otherwise (written `d1b2`, `e1e3`): legal
//! if they leave the own king unattacked, gating nothing in.

use super::{FERS_FSF, Kind, Move, ROOK_FSF, State, bb, bits};
use crate::variant::VariantDef;

impl State {
    /// The square `n` ranks forward of `sq` for side `c`, if on the board.
    fn forward(d: &VariantDef, c: u8, sq: u8, n: u8) -> Option<u8> {
        let rank = sq / d.files;
        let to = if c == 0 { rank.checked_add(n).filter(|&r| r < d.ranks)? } else { rank.checked_sub(n)? };
        Some(d.sq(sq % d.files, to))
    }

    /// The side to move's special moves from its gates (pseudo-legal); no
    /// king leap when `in_check`.
    #[cold]
    #[inline(never)]
    pub(super) fn cambodian_moves(&self, d: &VariantDef, out: &mut Vec<Move>, in_check: bool) {
        let us = self.side;
        let gates = self.gates[us as usize];
        if gates == 0 {
            return;
        }
        let empty = d.board & !self.occ() & !self.walls;
        if !in_check
            && let Some(k) = self.king_sq(d, us).filter(|&k| gates >> k & 1 != 0)
            && let Some(ahead) = State::forward(d, us, k, 1)
        {
            let file = ahead % d.files;
            let rank_start = ahead - file;
            for f in [file.checked_sub(2), file.checked_add(2).filter(|&f| f < d.files)].into_iter().flatten() {
                let to = rank_start + f;
                if empty >> to & 1 != 0 {
                    self.push(d, out, Move::new(k, to, Kind::Normal));
                }
            }
        }
        for (t, ty) in d.types.iter().enumerate() {
            if ty.fsf != FERS_FSF {
                continue;
            }
            let on_gates = self.by_type[t] & self.by_color[us as usize] & gates;
            for from in bits(on_gates) {
                if let Some(to) = State::forward(d, us, from, 2).filter(|&to| empty >> to & 1 != 0) {
                    self.push(d, out, Move::new(from, to, Kind::Normal));
                }
            }
        }
    }

    /// After a move of a piece of type `t` to `to` against side `them`
    /// (`self` is the position after it): a rook arriving on the rank or
    /// file of `them`'s king takes the king's gate, if it has one.
    pub(super) fn cambodian_rook_aim(&mut self, d: &VariantDef, t: u8, to: u8, them: u8) {
        if d.types[t as usize].fsf != ROOK_FSF {
            return;
        }
        let Some(k) = self.king_sq(d, them) else { return };
        let aimed = k % d.files == to % d.files || k / d.files == to / d.files;
        if aimed {
            self.gates[them as usize] &= !bb(k);
        }
    }
}
