//! Alseid kidnapping (RULES.md §3; docs/rules/alseid.md): `alseid` and
//! `alseid-weak` ([`Variant::KIDNAP`]).
//!
//! The rules, as implemented here:
//!
//! - The Alseid (`S`) moves like a queen over empty squares and only to an
//!   empty square; it never captures, attacks or checks. All its moves are
//!   generated here, those without a victim as ordinary moves; that it
//!   never attacks is the generic attack code's (it has no attack there).
//! - **Kidnapping** (RULES.md §3.1): when the Alseid leaves its square O in
//!   direction d, look from O the opposite way: the first piece met is the
//!   screen, the next one beyond it (any colour, kings included) is the
//!   victim, and it is moved onto O as part of the move
//!   ([`MoveKind::Kidnap`]). With no victim the move is an ordinary move.
//!   In `alseid` the kidnap is compulsory; in `alseid-weak`
//!   ([`Kidnap::OneStep`]) only one-square moves kidnap (compulsorily),
//!   longer ones are ordinary moves.
//! - **Legality** is judged after the whole move (Alseid and victim moved):
//!   a kidnap may drag a king, take the own king out of check or drag a
//!   checker off its line; one that exposes the own king does not exist.
//! - A kidnapped king or rook **loses its castling rights** as if it had
//!   moved; a kidnapped home piece of a live gate (either side's) **fires
//!   the gate** ([`crate::gating`]); kidnapping a pawn resets the fifty-move
//!   clock. The victim travels along a line it stood on, so no pawn is
//!   kidnapped onto its first or last rank and none promotes by it.

use crate::movegen::Sink;
use crate::moves::{Move, MoveKind};
use crate::position::{BitsOf, Position};
use crate::variant::Variant;
use menagerie_geometry::{Bits, Delta, Dir, Shape, Square};
use menagerie_pieces::{Piece, PieceKind};

type S<V> = <V as Variant>::Shape;

/// When an Alseid kidnaps (RULES.md §3.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kidnap {
    /// No Alseids in this variant.
    None,
    /// Every Alseid move with a victim kidnaps it.
    Always,
    /// Only one-square Alseid moves kidnap (`alseid-weak`).
    OneStep,
}

impl<V: Variant> Position<V> {
    // ----- generation --------------------------------------------------------

    /// Alseid moves. The victim of a move depends only on its direction, so
    /// each direction is handled at once: moves without a victim are
    /// ordinary moves (bulk-counted like any rider's), and a kidnap's safety
    /// is tested once per direction with the Alseid lifted off the board —
    /// where it lands can only add a blocker — falling back to a full test
    /// per destination only when that fails.
    #[inline(always)]
    pub(crate) fn gen_alseids<K: Sink<BitsOf<V>>>(&self, sink: &mut K, checkers: BitsOf<V>, pinned: BitsOf<V>) {
        let g = S::<V>::geometry();
        let us = self.side;
        let occ = self.occupied();
        let empty = !occ & S::<V>::ALL;
        let ksq = self.king(us);
        let mask = self.check_mask(ksq, checkers);
        let own = self.by_color[us.idx()];
        let king_code = Piece::new(us, PieceKind::King).code();
        for from in self.pieces(Piece::new(us, PieceKind::Alseid)).iter() {
            let line = if pinned.has(from) { self.pin_ray(ksq, from) } else { S::<V>::ALL };
            for d in 0..8u8 {
                let dir = Dir(d);
                let targets = g.ray_attacks(from, dir, occ) & empty;
                if targets.is_empty() {
                    continue;
                }
                let mut kidnaps = match self.victim_behind(from, dir.opposite()) {
                    None => BitsOf::<V>::ZERO,
                    Some(_) if V::KIDNAP == Kidnap::OneStep => targets & Self::neighbours(from),
                    Some(_) => targets,
                };
                sink.targets(from, targets & !kidnaps & mask & line);
                if kidnaps.is_empty() {
                    continue;
                }
                let Some(victim) = self.victim_behind(from, dir.opposite()) else { continue };
                let own_safe = checkers.is_empty()
                    && own.has(victim)
                    && self.board[victim.idx()] != king_code
                    && !pinned.has(victim);
                if own_safe || (checkers.is_empty() && !self.kidnap_exposes(from, victim, None)) {
                    while kidnaps.any() {
                        let to = Square(kidnaps.lsb() as u8);
                        kidnaps = kidnaps.clear_lsb();
                        sink.push(Move::new(from, to, MoveKind::Kidnap));
                    }
                } else {
                    for to in kidnaps.iter() {
                        if !self.kidnap_exposes(from, victim, Some(to)) {
                            sink.push(Move::new(from, to, MoveKind::Kidnap));
                        }
                    }
                }
            }
        }
    }

    /// The second piece from `sq` along direction `back` (the victim of an
    /// Alseid leaving `sq` the other way), if any.
    #[inline]
    pub(crate) fn victim_behind(&self, sq: Square, back: Dir) -> Option<Square> {
        let mut on_ray = S::<V>::ray(sq, back) & self.occupied();
        let nearest = |b: BitsOf<V>| Square(if back.is_positive() { b.lsb() } else { b.msb() } as u8);
        if on_ray.is_empty() {
            return None;
        }
        on_ray ^= BitsOf::<V>::bit(nearest(on_ray));
        if on_ray.is_empty() { None } else { Some(nearest(on_ray)) }
    }

    /// True if the mover's king would be attacked after the Alseid on `o`
    /// kidnaps the piece on `v` and lands on `t` (`None`: taken off the
    /// board, which can only remove a blocker, so `false` then holds for
    /// every landing square). Works on the piece sets alone.
    fn kidnap_exposes(&self, o: Square, v: Square, t: Option<Square>) -> bool {
        let us = self.side;
        let Some(victim) = self.piece_at(v) else { return false };
        let mut by_kind = self.by_kind;
        let mut by_color = self.by_color;
        let (bo, bv) = (BitsOf::<V>::bit(o), BitsOf::<V>::bit(v));
        let alseid = PieceKind::Alseid.idx();
        by_kind[alseid] ^= bo;
        by_color[us.idx()] ^= bo;
        if let Some(t) = t {
            by_kind[alseid] |= BitsOf::<V>::bit(t);
            by_color[us.idx()] |= BitsOf::<V>::bit(t);
        }
        by_kind[victim.kind.idx()] ^= bo | bv;
        by_color[victim.color.idx()] ^= bo | bv;
        if let Some(g) = V::GATING
            && self.live_gate_squares(victim.color).has(v)
        {
            by_kind[g.piece.idx()] |= bv;
            by_color[victim.color.idx()] |= bv;
        }
        let king = if victim == Piece::new(us, PieceKind::King) { o } else { self.king(us) };
        let occ = by_color[0] | by_color[1];
        Self::attackers_in(&by_kind, &by_color, king, occ, us.flip()).any()
    }

    // ----- make --------------------------------------------------------------

    /// The victim of an Alseid moving `from` → `to`, if any (RULES.md §3.1).
    pub(crate) fn kidnap_victim(&self, from: Square, to: Square) -> Option<Square> {
        let d = Delta::new(
            S::<V>::file_of(to).0 as i8 - S::<V>::file_of(from).0 as i8,
            S::<V>::rank_of(to).0 as i8 - S::<V>::rank_of(from).0 as i8,
        );
        let dir = Dir::of(d)?;
        if V::KIDNAP == Kidnap::OneStep && (d.df.abs() > 1 || d.dr.abs() > 1) {
            return None;
        }
        self.victim_behind(from, dir.opposite())
    }

    /// Plays kidnap `m`: the Alseid to `to`, its victim (if any) onto
    /// `from`, firing the victim's gate and dropping the castling rights of
    /// its square from `keep`. Returns true if a pawn was kidnapped (the
    /// halfmove clock resets).
    #[inline(always)]
    pub(crate) fn make_kidnap(&mut self, m: Move, keep: &mut u8) -> bool {
        let mut reset_clock = false;
        let victim = self.kidnap_victim(m.from, m.to);
        let alseid = self.take(m.from);
        self.put(m.to, alseid);
        if let Some(v) = victim {
            let pc = self.take(v);
            self.put(m.from, pc);
            reset_clock |= pc.kind == PieceKind::Pawn;
            *keep &= Self::castle_keep(v);
            self.vacated(v, pc.color);
        }
        reset_clock
    }
}
