//! Move generation for the special powers of the fairy variants: the
//! dispatch, and Camel and Rhino Chess takeovers, swaps and promoting
//! wazirs (RULES.md §4). Alseid kidnapping (RULES.md §3) is in
//! [`crate::kidnap`].
//!
//! A special move is kept when, after the whole move, the mover's king is
//! not attacked. Where that provably holds without playing the move (no
//! check, mover not pinned, king not involved) the full test is skipped.

use crate::kidnap::Kidnap;
use crate::movegen::Sink;
use crate::moves::{Move, MoveKind};
use crate::position::{BitsOf, Position};
use crate::variant::Variant;
use menagerie_geometry::{Bits, DIRECTIONS, Dir, Rank, Shape, Square};
use menagerie_pieces::{Color, Piece, PieceKind, PieceShape};

type S<V> = <V as Variant>::Shape;

impl<V: Variant> Position<V> {
    /// Squares adjacent (8 neighbours) to `sq`.
    #[inline(always)]
    pub(crate) fn neighbours(sq: Square) -> BitsOf<V> {
        S::<V>::pieces().leap_attacks(Piece::new(Color::White, PieceKind::King), sq)
    }

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

    /// Moves of special powers; `checkers` and `pinned` come from the
    /// ordinary generator (`pinned` is empty when in double check).
    pub(crate) fn generate_special<K: Sink<BitsOf<V>>>(&self, sink: &mut K, checkers: BitsOf<V>, pinned: BitsOf<V>) {
        if V::KIDNAP != Kidnap::None {
            self.gen_alseids(sink, checkers, pinned);
        }
        if V::WAZIR_PROMOTES && !checkers.many() {
            self.gen_wazirs(sink, checkers, pinned);
        }
        if V::TAKEOVERS {
            self.gen_takeovers(sink, checkers, pinned);
        }
        if V::SWAPS {
            self.gen_swaps(sink, checkers);
        }
    }

    pub(crate) fn check_mask(&self, ksq: Square, checkers: BitsOf<V>) -> BitsOf<V> {
        if checkers.is_empty() {
            S::<V>::ALL
        } else if checkers.many() {
            BitsOf::<V>::ZERO
        } else {
            S::<V>::between(ksq, Square(checkers.lsb() as u8)) | checkers
        }
    }

    fn gen_wazirs<K: Sink<BitsOf<V>>>(&self, sink: &mut K, checkers: BitsOf<V>, pinned: BitsOf<V>) {
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

    fn gen_takeovers<K: Sink<BitsOf<V>>>(&self, sink: &mut K, checkers: BitsOf<V>, pinned: BitsOf<V>) {
        let t = S::<V>::pieces();
        let us = self.side;
        let them = us.flip();
        let own = self.by_color[us.idx()];
        let enemy = self.by_color[them.idx()];
        let occ = own | enemy;
        let convertible = enemy & !self.kind(PieceKind::King);
        let camels_rhinos = own & (self.kind(PieceKind::Camel) | self.kind(PieceKind::Rhino));
        let near_ch = |sq: Square| (Self::neighbours(sq) & camels_rhinos).any();
        let in_check = checkers.any();

        // Leap takeovers: Camel and Rhino always, Knight and Zebra beside a friendly Camel or Rhino.
        for kind in [PieceKind::Camel, PieceKind::Rhino, PieceKind::Knight, PieceKind::Zebra] {
            let pc = Piece::new(us, kind);
            for from in self.pieces(pc).iter() {
                if matches!(kind, PieceKind::Knight | PieceKind::Zebra) && !near_ch(from) {
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

        // Jump takeovers of Queen, Rook, Bishop, Wazir, Pawn and King beside a friendly Camel or Rhino.
        const ALL_DIRS: [u8; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
        const ORTH: [u8; 4] = [0, 2, 4, 6];
        const DIAG: [u8; 4] = [1, 3, 5, 7];
        let forward_diagonals: [u8; 2] = match us {
            Color::White => [Dir::NE.0, Dir::NW.0],
            Color::Black => [Dir::SE.0, Dir::SW.0],
        };
        let last = Self::last_rank(us);
        for kind in
            [PieceKind::Queen, PieceKind::Rook, PieceKind::Bishop, PieceKind::Wazir, PieceKind::Pawn, PieceKind::King]
        {
            let (dirs, slides): (&[u8], bool) = match kind {
                PieceKind::Queen => (&ALL_DIRS, true),
                PieceKind::Rook => (&ORTH, true),
                PieceKind::Bishop => (&DIAG, true),
                PieceKind::Wazir => (&ORTH, false),
                PieceKind::Pawn => (&forward_diagonals, false),
                _ => (&ALL_DIRS, false),
            };
            let pc = Piece::new(us, kind);
            for from in self.pieces(pc).iter() {
                if !near_ch(from) {
                    continue;
                }
                for &d in dirs {
                    let dir = Dir(d);
                    let ray = S::<V>::ray(from, dir);
                    let blockers = ray & occ;
                    if blockers.is_empty() {
                        continue;
                    }
                    let first = Square(if dir.is_positive() { blockers.lsb() } else { blockers.msb() } as u8);
                    if !slides && Some(first) != S::<V>::offset(from, DIRECTIONS[d as usize]) {
                        continue;
                    }
                    if !convertible.has(first) {
                        continue;
                    }
                    let Some(landing) = S::<V>::offset(first, DIRECTIONS[d as usize]) else { continue };
                    if occ.has(landing) || self.is_attacked(landing, them) {
                        continue;
                    }
                    if kind == PieceKind::King && self.is_attacked(first, them) {
                        continue;
                    }
                    let promotes = matches!(kind, PieceKind::Pawn | PieceKind::Wazir)
                        && S::<V>::rank_of(landing).0 == last
                        && S::<V>::rank_of(from).0 != last;
                    let m = Move::new(from, landing, MoveKind::Jump);
                    let legal = self.legal_after(m);
                    Self::emit_promoting(sink, m, promotes, &mut |_| legal);
                }
            }
        }
    }

    fn gen_swaps<K: Sink<BitsOf<V>>>(&self, sink: &mut K, checkers: BitsOf<V>) {
        let us = self.side;
        let them = us.flip();
        let own = self.by_color[us.idx()];
        let in_check = checkers.any();
        let last = Self::last_rank(us);
        let arrives_last = |pc: Piece, from: Square, to: Square| {
            matches!(pc.kind, PieceKind::Pawn | PieceKind::Wazir)
                && S::<V>::rank_of(to).0 == last
                && S::<V>::rank_of(from).0 != last
        };
        for a in own.iter() {
            let Some(pa) = self.piece_at(a) else { continue };
            let higher = Self::neighbours(a) & own & (S::<V>::ALL << a.0 as u32) & !BitsOf::<V>::bit(a);
            for b in higher.iter() {
                let Some(pb) = self.piece_at(b) else { continue };
                if pa.kind == pb.kind && matches!(pa.kind, PieceKind::Wazir | PieceKind::Pawn) {
                    continue;
                }
                let legal = if pa.kind == PieceKind::King {
                    !self.is_attacked(b, them)
                } else if pb.kind == PieceKind::King {
                    !self.is_attacked(a, them)
                } else {
                    !in_check
                };
                if !legal {
                    continue;
                }
                let promotes = arrives_last(pa, a, b) || arrives_last(pb, b, a);
                Self::emit_promoting(sink, Move::new(a, b, MoveKind::Swap), promotes, &mut |_| true);
            }
        }
    }
}
