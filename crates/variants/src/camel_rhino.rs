//! Camel and Rhino Chess's special rules (RULES.md §4;
//! docs/rules/camel-rhino.md): takeovers ([`Variant::TAKEOVERS`]), swaps
//! ([`Variant::SWAPS`]), promoting wazirs ([`Variant::WAZIR_PROMOTES`]) and
//! the loss of a side with neither Camel nor Rhino
//! ([`Variant::CAMEL_RHINO_LOSS`]). The pieces' ordinary moves and attacks
//! are in the piece tables and the generic generator.
//!
//! The rules, as implemented here:
//!
//! - **Takeovers** convert the jumped enemy pieces (never a king): they
//!   change owner, keep their kind and square, and never promote. Every
//!   takeover resets the fifty-move clock; a takeover is not an attack.
//!   - *Leap takeovers* ([`MoveKind::Takeover`]): the Camel and Rhino on any
//!     leap, the Knight and Zebra only while next to a friendly Camel or
//!     Rhino; the leap must pass over at least one convertible enemy piece
//!     and converts all of them on its path (the same leap without
//!     converting is the plain move); an enemy on the destination is
//!     captured as usual.
//!   - *Jump takeovers* ([`MoveKind::Jump`]) by a Queen, Rook, Bishop,
//!     Wazir, Pawn (along its capture diagonals) or King next to a friendly
//!     Camel or Rhino: the first piece met along a line (sliders may pass
//!     empty squares first, the others need it adjacent) must be a
//!     convertible enemy; the mover lands just beyond it, on an empty square
//!     the opponent does not attack; the King also needs the jumped piece
//!     undefended. A Pawn or Wazir landing on its last rank promotes.
//! - **Swaps** ([`MoveKind::Swap`]): two adjacent friendly pieces exchange
//!   squares (not Wazir with Wazir or Pawn with Pawn). A swap with the King
//!   needs the other piece's square unattacked; other swaps are illegal in
//!   check. A pawn or Wazir swapped onto its last rank from another rank
//!   promotes; a swap moving a pawn resets the fifty-move clock. A swap is
//!   generated once per pair, from the lower square.
//! - **Promoting wazirs**: a Wazir arriving on its last rank from another
//!   rank promotes (staying a Wazir is one of the choices); one already on
//!   it moves along it without promoting.
//! - **Camel/Rhino loss**: a side owning no Camel and no Rhino has lost
//!   (checked before mate and stalemate; no moves are generated); if both
//!   own neither, the side to move ([`Position::variant_loser`]).
//!
//! Every special move here is kept only if the mover's king is not attacked
//! after the whole move; where that provably holds without playing it (a
//! takeover out of check by a piece other than the King that is not pinned:
//! converted pieces only add blockers), the full test is skipped.

use crate::movegen::{Danger, Sink};
use crate::moves::{Move, MoveKind};
use crate::position::{BitsOf, Position};
use crate::variant::Variant;
use menagerie_geometry::{Bits, Rank, Shape, Square};
use menagerie_pieces::{Color, Piece, PieceKind, PieceShape};

type S<V> = <V as Variant>::Shape;

impl<V: Variant> Position<V> {
    /// The side that has lost by a variant rule, if any: under
    /// [`Variant::CAMEL_RHINO_LOSS`], a side with neither Camel nor Rhino
    /// (if both lack them, impossible in play, the side to move).
    #[inline]
    pub fn variant_loser(&self) -> Option<Color> {
        if V::CAMEL_RHINO_LOSS {
            let ch = self.kind(PieceKind::Camel) | self.kind(PieceKind::Rhino);
            let us = self.side;
            if (ch & self.by_color[us.idx()]).is_empty() {
                return Some(us);
            }
            if (ch & self.by_color[us.flip().idx()]).is_empty() {
                return Some(us.flip());
            }
        }
        None
    }

    // ----- generation --------------------------------------------------------

    /// The last rank of `c`.
    #[inline(always)]
    fn last_rank(c: Color) -> u8 {
        match c {
            Color::White => S::<V>::RANKS - 1,
            Color::Black => 0,
        }
    }

    /// Emits `m`, or one move per promotion choice if `promotes`.
    #[inline(always)]
    fn emit_promoting<K: Sink<BitsOf<V>>>(sink: &mut K, m: Move, promotes: bool, keep: &mut dyn FnMut(Move) -> bool) {
        if promotes {
            for &k in V::PROMOTIONS {
                let pm = m.with_promotion(k);
                if keep(pm) {
                    sink.push(pm);
                }
            }
        } else if keep(m) {
            sink.push(m);
        }
    }

    /// Wazir moves where wazirs promote (the ordinary generator leaves them
    /// out then): every step, one move per promotion choice onto the last
    /// rank from another rank.
    #[inline(always)]
    pub(crate) fn gen_wazirs<K: Sink<BitsOf<V>>>(&self, sink: &mut K, checkers: BitsOf<V>, pinned: BitsOf<V>) {
        let us = self.side;
        let own = self.by_color[us.idx()];
        let ksq = self.king(us);
        let mask = self.check_mask(ksq, checkers) & !own;
        let last = S::<V>::rank_mask(Rank(Self::last_rank(us)));
        let pc = Piece::new(us, PieceKind::Wazir);
        for from in self.pieces(pc).iter() {
            let mut targets = S::<V>::pieces().leap_attacks(pc, from) & mask;
            if pinned.has(from) {
                targets &= self.pin_ray(ksq, from);
            }
            let promo = if last.has(from) { BitsOf::<V>::ZERO } else { targets & last };
            sink.targets(from, targets & !promo);
            for to in promo.iter() {
                Self::emit_promoting(sink, Move::normal(from, to), true, &mut |_| true);
            }
        }
    }

    /// Leap takeovers and jump takeovers.
    pub(crate) fn gen_takeovers<K: Sink<BitsOf<V>>>(
        &self,
        sink: &mut K,
        checkers: BitsOf<V>,
        pinned: BitsOf<V>,
        danger: Danger<BitsOf<V>>,
    ) {
        let t = S::<V>::pieces();
        let (us, _, own, enemy, occ) = self.sides();
        let convertible = enemy & !self.kind(PieceKind::King);
        let camels_rhinos = own & (self.kind(PieceKind::Camel) | self.kind(PieceKind::Rhino));
        let in_check = checkers.any();

        // Leap takeovers: Camel and Rhino always, Knight and Zebra beside a friendly Camel or Rhino.
        // Leap paths lie within two squares (Camel, Rhino) or one (Knight,
        // Zebra) of the leaper: others have nothing to convert.
        let grow = |b: BitsOf<V>| {
            let h = b | S::<V>::east(b) | S::<V>::west(b);
            h | S::<V>::north(h) | S::<V>::south(h)
        };
        let near1 = grow(convertible);
        let near2 = grow(near1);
        let beside_ch = grow(camels_rhinos);
        for kind in [PieceKind::Camel, PieceKind::Rhino, PieceKind::Knight, PieceKind::Zebra] {
            let pc = Piece::new(us, kind);
            let near = if matches!(kind, PieceKind::Knight | PieceKind::Zebra) { near1 } else { near2 };
            for from in (self.pieces(pc) & near).iter() {
                if matches!(kind, PieceKind::Knight | PieceKind::Zebra) && !beside_ch.has(from) {
                    continue;
                }
                for leap in t.leaps(pc, from) {
                    if leap.path_len == 0 || own.has(leap.to) {
                        continue;
                    }
                    if !leap.path().iter().any(|&s| convertible.has(s)) {
                        continue;
                    }
                    let m = Move::new(from, leap.to, MoveKind::Takeover);
                    if !(in_check || pinned.has(from)) || self.legal_after(m) {
                        sink.push(m);
                    }
                }
            }
        }

        // Jump takeovers of Queen, Rook, Bishop, Wazir, Pawn and King beside
        // a friendly Camel or Rhino: the first piece met along a line the
        // piece captures along (its attacks) must be a convertible enemy,
        // and the landing square is the next one on that line.
        let last = Self::last_rank(us);
        for kind in
            [PieceKind::Queen, PieceKind::Rook, PieceKind::Bishop, PieceKind::Wazir, PieceKind::Pawn, PieceKind::King]
        {
            let pc = Piece::new(us, kind);
            for from in (self.pieces(pc) & beside_ch).iter() {
                for first in (S::<V>::attacks(pc, from, occ) & convertible).iter() {
                    // The neighbours of the jumped piece on the line, minus
                    // the one towards the mover: the landing square, if any.
                    let beyond = Self::neighbours(first)
                        & S::<V>::line(from, first)
                        & !(S::<V>::between(from, first) | BitsOf::<V>::bit(from));
                    if beyond.is_empty() {
                        continue;
                    }
                    let landing = Square(beyond.lsb() as u8);
                    if occ.has(landing) || self.in_danger(danger, landing) {
                        continue;
                    }
                    if kind == PieceKind::King && self.in_danger(danger, first) {
                        continue;
                    }
                    let promotes = matches!(kind, PieceKind::Pawn | PieceKind::Wazir)
                        && S::<V>::rank_of(landing).0 == last
                        && S::<V>::rank_of(from).0 != last;
                    let m = Move::new(from, landing, MoveKind::Jump);
                    // Converting only adds blockers: without check, a piece
                    // other than the King that is not pinned may jump.
                    let legal = (!in_check && !pinned.has(from) && kind != PieceKind::King) || self.legal_after(m);
                    Self::emit_promoting(sink, m, promotes, &mut |_| legal);
                }
            }
        }
    }

    /// Swaps of adjacent friendly pieces, one move per pair (from the lower
    /// square), a direction at a time: the pairs with the King are read off
    /// the attack map where it is exact; pairs with a pawn or Wazir next to
    /// its last rank (and the King's when the map is not exact) one by one.
    pub(crate) fn gen_swaps<K: Sink<BitsOf<V>>>(&self, sink: &mut K, checkers: BitsOf<V>, danger: Danger<BitsOf<V>>) {
        let files = S::<V>::FILES as i32;
        // The higher neighbour of each square: east, north, north-east, north-west.
        self.gen_swaps_towards(sink, checkers, danger, 1, S::<V>::east);
        self.gen_swaps_towards(sink, checkers, danger, files, S::<V>::north);
        self.gen_swaps_towards(sink, checkers, danger, files + 1, |b| S::<V>::north(S::<V>::east(b)));
        self.gen_swaps_towards(sink, checkers, danger, files - 1, |b| S::<V>::north(S::<V>::west(b)));
    }

    /// The swaps of the pairs whose higher square is `offset` squares above
    /// the lower one (`up` moves a set of squares by that much).
    #[inline(always)]
    fn gen_swaps_towards<K: Sink<BitsOf<V>>>(
        &self,
        sink: &mut K,
        checkers: BitsOf<V>,
        danger: Danger<BitsOf<V>>,
        offset: i32,
        up: impl Fn(BitsOf<V>) -> BitsOf<V>,
    ) {
        let us = self.side;
        let own = self.by_color[us.idx()];
        // The higher squares of the pairs.
        let highs = up(own) & own;
        if highs.is_empty() {
            return;
        }
        let in_check = checkers.any();
        let pawns = own & self.kind(PieceKind::Pawn);
        let wazirs = own & self.kind(PieceKind::Wazir);
        let king = own & self.kind(PieceKind::King);
        let last = S::<V>::rank_mask(Rank(Self::last_rank(us)));
        let may_promote = pawns | wazirs;
        let pairs = highs & !((up(pawns) & pawns) | (up(wazirs) & wazirs));
        let promoting = (up(last) | last) & (up(may_promote) | may_promote);
        let with_king = up(king) | king;
        if !in_check {
            sink.shifted(pairs & !promoting & !with_king, offset, MoveKind::Swap);
        }
        let mut one_by_one = pairs & promoting;
        if danger.exact {
            // A swap with the King needs the partner's square safe: the
            // King on the higher square, or on the lower one.
            let safe = !danger.map & S::<V>::ALL;
            let king_safe = (king & up(safe)) | (up(king) & safe);
            sink.shifted(pairs & with_king & !promoting & king_safe, offset, MoveKind::Swap);
        } else {
            one_by_one |= pairs & with_king;
        }
        for b in one_by_one.iter() {
            self.gen_swap(sink, Square((b.0 as i32 - offset) as u8), b, in_check, danger);
        }
    }

    /// The swap of the pieces on `a` and `b` (`a` the lower square), with
    /// its promotions, if legal.
    fn gen_swap<K: Sink<BitsOf<V>>>(
        &self,
        sink: &mut K,
        a: Square,
        b: Square,
        in_check: bool,
        danger: Danger<BitsOf<V>>,
    ) {
        let last = Self::last_rank(self.side);
        let arrives_last = |pc: Piece, from: Square, to: Square| {
            matches!(pc.kind, PieceKind::Pawn | PieceKind::Wazir)
                && S::<V>::rank_of(to).0 == last
                && S::<V>::rank_of(from).0 != last
        };
        let (Some(pa), Some(pb)) = (self.piece_at(a), self.piece_at(b)) else { return };
        let legal = if pa.kind == PieceKind::King {
            !self.in_danger(danger, b)
        } else if pb.kind == PieceKind::King {
            !self.in_danger(danger, a)
        } else {
            !in_check
        };
        if legal {
            let promotes = arrives_last(pa, a, b) || arrives_last(pb, b, a);
            Self::emit_promoting(sink, Move::new(a, b, MoveKind::Swap), promotes, &mut |_| true);
        }
    }

    // ----- make --------------------------------------------------------------

    /// True if `pc` arriving on `to` promotes (pawns, and wazirs where they do).
    #[inline(always)]
    fn promotes_on(pc: Piece, to: Square) -> bool {
        let last = match pc.color {
            Color::White => V::Shape::RANKS - 1,
            Color::Black => 0,
        };
        (pc.kind == PieceKind::Pawn || (V::WAZIR_PROMOTES && pc.kind == PieceKind::Wazir))
            && V::Shape::rank_of(to).0 == last
    }

    /// Enemy pieces a takeover move converts: the jumped squares of a
    /// takeover leap, or the one square jumped by a jump takeover.
    pub(crate) fn takeover_victims(&self, m: Move, mover: Piece) -> BitsOf<V> {
        let convertible = self.by_color[mover.color.flip().idx()] & !self.kind(PieceKind::King);
        let mut v = BitsOf::<V>::ZERO;
        if m.kind == MoveKind::Takeover {
            if let Some(l) = V::Shape::pieces().leaps(mover, m.from).iter().find(|l| l.to == m.to) {
                for &s in l.path() {
                    v |= BitsOf::<V>::bit(s);
                }
            }
        } else {
            let df = V::Shape::file_of(m.to).0 as i32 - V::Shape::file_of(m.from).0 as i32;
            let dr = V::Shape::rank_of(m.to).0 as i32 - V::Shape::rank_of(m.from).0 as i32;
            if let Some(s) = V::Shape::square(
                V::Shape::file_of(m.to).0 as i32 - df.signum(),
                V::Shape::rank_of(m.to).0 as i32 - dr.signum(),
            ) {
                v |= BitsOf::<V>::bit(s);
            }
        }
        v & convertible
    }

    /// Plays swap `m` (promoting a pawn or wazir that arrives on its last
    /// rank from another rank). Returns true if a pawn moved (the halfmove
    /// clock resets).
    #[inline(always)]
    pub(crate) fn make_swap(&mut self, m: Move) -> bool {
        let a = self.take(m.from);
        let b = self.take(m.to);
        let reset_clock = a.kind == PieceKind::Pawn || b.kind == PieceKind::Pawn;
        let promote = |pc: Piece, from: Square, to: Square| match m.promotion {
            Some(k) if Self::promotes_on(pc, to) && V::Shape::rank_of(from) != V::Shape::rank_of(to) => {
                Piece::new(pc.color, k)
            }
            _ => pc,
        };
        self.put(m.to, promote(a, m.from, m.to));
        self.put(m.from, promote(b, m.to, m.from));
        reset_clock
    }

    /// Plays takeover `m` (leap or jump): converts the jumped pieces,
    /// captures on the destination and promotes if `m` says so.
    #[inline(always)]
    pub(crate) fn make_takeover(&mut self, m: Move) {
        let us = self.side;
        let pc = self.take(m.from);
        for sq in self.takeover_victims(m, pc).iter() {
            let v = self.take(sq);
            self.put(sq, Piece::new(us, v.kind));
        }
        if self.board[m.to.idx()] != 0 {
            let cap = self.take(m.to);
            debug_assert!(cap.kind != PieceKind::King, "{m:?} captures a king in {self:?}");
        }
        self.put(m.to, Piece::new(us, m.promotion.unwrap_or(pc.kind)));
    }
}
