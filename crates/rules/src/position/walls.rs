//! Walls placed by the moves (Fairy-Stockfish's `wallingRule`): duck
//! chess's duck, amazons' arrows, the trails of snailtrail and joust, the
//! walls of isolation and atlantis.
//!
//! Each move also puts a wall on an empty square; its text is the move's
//! followed by `,`, the destination and the wall's square (`e2e4,e4d5`).
//! The squares open to the wall are those empty before the move but for
//! the mover's square, its destination excluded (an en passant victim's
//! square and a castling rook's are open, the castled king's and rook's
//! are not; squares a blast empties are not). Then, by rule:
//!
//! - `duck`: any of them; the walls placed before are lifted first (so the
//!   duck moves, and must move: its square is not empty).
//! - `static`: any of them; walls stay.
//! - `arrow`: those the moved piece could move to, quietly, from its
//!   destination.
//! - `past`: the square the piece left.
//! - `edge`: squares of the board's edge, or next (orthogonally) to a wall.
//!
//! and always within the side's `wallingRegion`. A double pawn step that
//! walls its passed square sets no en passant square. With `wallOrMove`,
//! a side either moves (placing no wall) or passes and walls, the
//! walling pass written as a pass of its lowest piece (`a1a1,a1d4`) and
//! legal only out of check; as Fairy-Stockfish writes them, its other
//! moves carry the wall square a1 (`b1c3,c3a1`; `b1c3` is read too). As in Fairy-Stockfish, a royal king's safety is
//! judged before the wall is placed; pseudo-royal pieces' after.

use super::{Kind, Move, State, bb, bits};
use crate::ini::WallingRule;
use crate::variant::{VariantDef, Walling};

impl State {
    /// Replaces each move of `out` (legal as to a royal king) by the same
    /// move with each square it may wall; under `wallOrMove`, keeps them
    /// and adds the walling passes.
    #[cold]
    #[inline(never)]
    pub(super) fn add_walls(&self, d: &VariantDef, w: &Walling, out: &mut Vec<Move>) {
        if w.or_move {
            let own = self.by_color[self.side as usize];
            let checked = self.king_sq(d, self.side).is_some_and(|k| self.attacked(d, k, self.occ(), self.side ^ 1, 0));
            if own == 0 || checked {
                return;
            }
            let sq = own.trailing_zeros() as u8;
            let pass = Move::new(sq, sq, Kind::Pass);
            for wall in bits(self.wall_squares(d, w, pass)) {
                out.push(Move { wall, ..pass });
            }
            return;
        }
        let moves = std::mem::take(out);
        for m in moves {
            for wall in bits(self.wall_squares(d, w, m)) {
                out.push(Move { wall, ..m });
            }
        }
    }

    /// The squares the move `m` of the side to move may wall.
    fn wall_squares(&self, d: &VariantDef, w: &Walling, m: Move) -> u128 {
        let us = self.side;
        let occ = self.occ();
        let mut b = d.board & !((occ ^ bb(m.from)) | bb(m.to));
        match m.kind {
            Kind::Castling => {
                let cr = 2 * us as usize + usize::from(m.to < m.from);
                let (_, _, kto, rto) = self.castle_squares(d, cr);
                b ^= bb(m.to) ^ bb(kto) ^ bb(rto);
            }
            Kind::EnPassant => b ^= bb(self.capture_square(d, m.to)),
            _ => {}
        }
        b &= w.region[us as usize];
        match w.rule {
            WallingRule::Arrow => {
                let t = self.board[m.from as usize] >> 1;
                b &= d.reach(t, us, m.to, occ ^ bb(m.from), false, &self.by_type);
            }
            WallingRule::Past => b &= bb(m.from),
            WallingRule::Edge => {
                let f = d.files;
                let mut near = 0u128;
                for sq in 0..d.nsq() as u8 {
                    let (file, rank) = (sq % f, sq / f);
                    if file == 0 || file == f - 1 || rank == 0 || rank == d.ranks - 1 {
                        near |= bb(sq);
                    }
                }
                for sq in bits(self.walls) {
                    let (file, rank) = (sq % f, sq / f);
                    if file > 0 {
                        near |= bb(sq - 1);
                    }
                    if file + 1 < f {
                        near |= bb(sq + 1);
                    }
                    if rank > 0 {
                        near |= bb(sq - f);
                    }
                    if rank + 1 < d.ranks {
                        near |= bb(sq + f);
                    }
                }
                b &= near;
            }
            WallingRule::Duck | WallingRule::Static | WallingRule::None => {}
        }
        b
    }
}
