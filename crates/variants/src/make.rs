//! Playing moves (copy-make: a position is small and `Copy`, so the old
//! position is simply kept by the caller) with incremental Zobrist updates.

use crate::moves::{Move, MoveKind};
use crate::position::{BitsOf, Position};
use crate::variant::Variant;
use crate::zobrist::KEYS;
use menagerie_geometry::{Bits, Shape, Square};
use menagerie_pieces::{Color, Piece, PieceKind};
use thiserror::Error;

/// A move that is not legal in the position it was played in.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Error)]
#[error("illegal move")]
pub struct IllegalMove;

impl<V: Variant> Position<V> {
    /// Plays `m` if it is legal, returning the new position.
    pub fn play(&self, m: Move) -> Result<Self, IllegalMove> {
        if self.is_legal(m) { Ok(self.play_unchecked(m)) } else { Err(IllegalMove) }
    }

    /// Plays `m`, which must be one of [`Position::legal_moves`] (otherwise
    /// the result is unspecified but memory-safe). Legal moves never
    /// capture, convert or remove a king (captures need the king attacked
    /// by the side to move, which legality rules out; takeovers skip kings;
    /// kidnapping only moves one), so every position reached has both kings;
    /// debug builds assert that no king is captured.
    #[inline]
    pub fn play_unchecked(&self, m: Move) -> Self {
        let mut p = *self;
        p.make(m);
        p
    }

    /// The position with the side to move passing (for null-move pruning;
    /// not a legal move of any variant). En passant rights lapse.
    pub fn play_null(&self) -> Self {
        let mut p = *self;
        p.set_ep(None);
        p.side = p.side.flip();
        p.hash ^= KEYS.side;
        p.halfmove = p.halfmove.saturating_add(1);
        p
    }

    /// True if `m`, one of [`Position::legal_moves`], gives check (the same
    /// answer as playing it and asking [`Position::is_check`]).
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        self.gives_check_unplayed(m).unwrap_or_else(|| self.play_unchecked(m).is_check())
    }

    /// [`Position::gives_check`] where the piece sets answer it without
    /// playing the move (ordinary moves and captures, with the reserve piece
    /// a vacated live gate lets in; not an Alseid's move, which may kidnap),
    /// `None` for the other moves.
    #[inline]
    pub fn gives_check_unplayed(&self, m: Move) -> Option<bool> {
        if !matches!(m.kind, MoveKind::Normal | MoveKind::DoublePush) {
            return None;
        }
        let pc = self.piece_at(m.from)?;
        if V::has(PieceKind::Alseid) && pc.kind == PieceKind::Alseid {
            return None;
        }
        let us = self.side;
        let (bf, bt) = (BitsOf::<V>::bit(m.from), BitsOf::<V>::bit(m.to));
        let mut by_kind = self.by_kind;
        let mut by_color = self.by_color;
        if let Some(cap) = self.piece_at(m.to) {
            by_kind[cap.kind.idx()] ^= bt;
            by_color[cap.color.idx()] ^= bt;
        }
        by_kind[pc.kind.idx()] ^= bf;
        by_kind[m.promotion.unwrap_or(pc.kind).idx()] |= bt;
        by_color[us.idx()] = (by_color[us.idx()] ^ bf) | bt;
        // Pioneer gating: the reserve piece enters the square left.
        if let Some(g) = V::GATING
            && self.live_gate_squares(us).has(m.from)
        {
            by_kind[g.piece.idx()] |= bf;
            by_color[us.idx()] |= bf;
        }
        let occ = by_color[0] | by_color[1];
        Some(Self::attackers_in(&by_kind, &by_color, self.king(us.flip()), occ, us).any())
    }

    /// True if `m` captures or converts an enemy piece (en passant,
    /// replacement captures, takeovers) or promotes.
    #[inline]
    pub fn is_tactical(&self, m: Move) -> bool {
        match m.kind {
            MoveKind::EnPassant | MoveKind::Takeover | MoveKind::Jump => true,
            MoveKind::Normal | MoveKind::DoublePush => m.promotion.is_some() || self.color(self.side.flip()).has(m.to),
            MoveKind::Swap => m.promotion.is_some(),
            _ => false,
        }
    }

    /// Nominal value (centipawns) of the enemy material `m` captures or
    /// converts (a conversion counts twice: the enemy loses it and we gain it).
    pub fn gain(&self, m: Move) -> i32 {
        let mut v = 0;
        match m.kind {
            MoveKind::EnPassant => v += PieceKind::Pawn.value(),
            MoveKind::Takeover | MoveKind::Jump => {
                if let Some(p) = self.piece_at(m.from) {
                    for s in self.takeover_victims(m, p).iter() {
                        v += 2 * self.piece_at(s).map_or(0, |p| p.kind.value());
                    }
                }
            }
            _ => {}
        }
        if let Some(p) = self.piece_at(m.to)
            && p.color != self.side
            && m.kind != MoveKind::Swap
        {
            v += p.kind.value();
        }
        if let Some(k) = m.promotion {
            v += k.value() - PieceKind::Pawn.value();
        }
        v
    }

    #[inline(always)]
    fn set_ep(&mut self, ep: Option<Square>) {
        if let Some(old) = self.ep
            && self.ep_capturable(old)
        {
            self.hash ^= KEYS.ep[V::Shape::file_of(old).0 as usize];
        }
        self.ep = ep;
    }

    /// Plays `m` in place.
    pub(crate) fn make(&mut self, m: Move) {
        if m.is_prelude() {
            self.make_prelude(m);
            return;
        }
        let us = self.side;
        let them = us.flip();
        self.set_ep(None);
        let mut new_ep = None;
        let mut reset_clock = false;
        let mut keep = self.castling_kept(m);
        match m.kind {
            MoveKind::Normal | MoveKind::DoublePush => {
                if self.board[m.to.idx()] != 0 {
                    let cap = self.take(m.to);
                    debug_assert!(cap.kind != PieceKind::King, "{m:?} captures a king in {self:?}");
                    self.captured_on(m.to, cap.color);
                    reset_clock = true;
                }
                let pc = self.take(m.from);
                reset_clock |= pc.kind == PieceKind::Pawn;
                self.put(m.to, Piece::new(us, m.promotion.unwrap_or(pc.kind)));
                self.vacated(m.from, us);
                if m.kind == MoveKind::DoublePush {
                    new_ep = Some(Square(((m.from.0 as u32 + m.to.0 as u32) / 2) as u8));
                }
            }
            MoveKind::EnPassant => {
                let capsq = Square(V::Shape::rank_of(m.from).0 * V::Shape::FILES + V::Shape::file_of(m.to).0);
                self.take(capsq);
                let pc = self.take(m.from);
                self.put(m.to, pc);
                reset_clock = true;
            }
            MoveKind::Castle => keep &= self.make_castle(m),
            MoveKind::Kidnap => reset_clock = self.make_kidnap(m, &mut keep),
            MoveKind::Swap => reset_clock = self.make_swap(m),
            MoveKind::Takeover | MoveKind::Jump => {
                self.make_takeover(m);
                reset_clock = true;
            }
            MoveKind::Accept | MoveKind::Decline | MoveKind::Place => {}
        }
        self.set_castling(self.castling.0 & keep);
        self.halfmove = if reset_clock { 0 } else { self.halfmove.saturating_add(1) };
        if us == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = them;
        self.hash ^= KEYS.side;
        self.ep = new_ep;
        if let Some(ep) = new_ep
            && self.ep_capturable(ep)
        {
            self.hash ^= KEYS.ep[V::Shape::file_of(ep).0 as usize];
        }
    }
}
