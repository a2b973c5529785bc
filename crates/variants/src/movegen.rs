//! Legal move generation.
//!
//! Ordinary moves of ordinary pieces are generated legal directly, with
//! check masks and pin rays (a piece on a live gate's home square is never
//! pinned: the entering reserve piece takes its place on the line). Moves of
//! special powers (kidnaps, swaps, takeovers) are generated pseudo-legally and
//! kept only if, after the whole move, the mover's king is not attacked;
//! where that provably holds without playing the move (no check, mover not
//! pinned, king not involved) the full test is skipped. Their generators
//! live with their rules: [`crate::kidnap`] and [`crate::camel_rhino`]
//! (likewise castling in [`crate::castling`] and the gating prelude in
//! [`crate::gating`]).
//!
//! Prelude actions of the gating variants are moves like any other: legal
//! only if the mover's king is not attacked afterwards, so a side in check
//! during the prelude has none.
//!
//! Generation writes into a [`Sink`], which either collects moves or only
//! counts them (bulk counting for perft, by population count of target sets).

use crate::kidnap::Kidnap;
use crate::moves::{Move, MoveKind, MoveList};
use crate::position::{BitsOf, Position};
use crate::variant::Variant;
use menagerie_geometry::{Bits, Shape, Square};
use menagerie_pieces::{Color, Piece, PieceKind, PieceShape};

/// Where generated moves go.
pub(crate) trait Sink<B: Bits> {
    /// One move.
    fn push(&mut self, m: Move);
    /// Normal moves from `from` to every square of `targets`.
    fn targets(&mut self, from: Square, targets: B);
    /// Pawn moves of `kind` to every square of `targets`, from `to - offset`.
    fn shifted(&mut self, targets: B, offset: i32, kind: MoveKind);
    /// Promotions to every square of `targets` from `to - offset`, one per choice.
    fn promotions(&mut self, targets: B, offset: i32, choices: &[PieceKind]);
}

/// Collects moves into a list.
pub(crate) struct Collect<'a>(pub &'a mut MoveList);

impl<B: Bits> Sink<B> for Collect<'_> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        self.0.push(m);
    }
    #[inline(always)]
    fn targets(&mut self, from: Square, targets: B) {
        for to in targets.iter() {
            self.0.push(Move::normal(from, to));
        }
    }
    #[inline(always)]
    fn shifted(&mut self, targets: B, offset: i32, kind: MoveKind) {
        for to in targets.iter() {
            self.0.push(Move::new(Square((to.0 as i32 - offset) as u8), to, kind));
        }
    }
    #[inline(always)]
    fn promotions(&mut self, targets: B, offset: i32, choices: &[PieceKind]) {
        for to in targets.iter() {
            let from = Square((to.0 as i32 - offset) as u8);
            for &k in choices {
                self.0.push(Move::normal(from, to).with_promotion(k));
            }
        }
    }
}

/// Collects only tactical moves: captures, en passant, takeovers and
/// promotions (for quiescence search).
pub(crate) struct CollectTactical<'a, B> {
    pub list: &'a mut MoveList,
    pub enemy: B,
}

impl<B: Bits> Sink<B> for CollectTactical<'_, B> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        let tactical = match m.kind {
            MoveKind::EnPassant | MoveKind::Takeover | MoveKind::Jump => true,
            MoveKind::Normal | MoveKind::DoublePush => m.promotion.is_some() || self.enemy.has(m.to),
            _ => m.promotion.is_some(),
        };
        if tactical {
            self.list.push(m);
        }
    }
    #[inline(always)]
    fn targets(&mut self, from: Square, targets: B) {
        for to in (targets & self.enemy).iter() {
            self.list.push(Move::normal(from, to));
        }
    }
    #[inline(always)]
    fn shifted(&mut self, targets: B, offset: i32, kind: MoveKind) {
        for to in (targets & self.enemy).iter() {
            self.list.push(Move::new(Square((to.0 as i32 - offset) as u8), to, kind));
        }
    }
    #[inline(always)]
    fn promotions(&mut self, targets: B, offset: i32, choices: &[PieceKind]) {
        for to in targets.iter() {
            let from = Square((to.0 as i32 - offset) as u8);
            for &k in choices {
                self.list.push(Move::normal(from, to).with_promotion(k));
            }
        }
    }
}

/// Counts moves without storing them.
pub(crate) struct Count(pub u64);

impl<B: Bits> Sink<B> for Count {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn targets(&mut self, _: Square, targets: B) {
        self.0 += targets.popcnt() as u64;
    }
    #[inline(always)]
    fn shifted(&mut self, targets: B, _: i32, _: MoveKind) {
        self.0 += targets.popcnt() as u64;
    }
    #[inline(always)]
    fn promotions(&mut self, targets: B, _: i32, choices: &[PieceKind]) {
        self.0 += targets.popcnt() as u64 * choices.len() as u64;
    }
}

/// The squares the opponent attacks, computed once per node for the king's
/// moves and for the special moves that must land on a safe square.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Danger<B> {
    /// The attacked squares with the side to move's king off the board.
    pub map: B,
    /// True if `map` is also exactly the attacked squares with the king on
    /// the board (no slider gives check, or the king stays on its square).
    pub exact: bool,
}

impl<V: Variant> Position<V> {
    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut Collect(&mut list));
        list
    }

    /// The legal captures, en passant captures, takeovers and promotions
    /// (every legal move that wins or converts material or promotes).
    pub fn tactical_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.tactical_moves_into(&mut list);
        list
    }

    /// [`Position::tactical_moves`] into a caller's list (cleared first).
    pub fn tactical_moves_into(&self, list: &mut MoveList) {
        list.clear();
        let enemy = self.by_color[self.side.flip().idx()];
        self.generate(&mut CollectTactical { list, enemy });
    }

    /// [`Position::legal_moves`] into a caller's list (cleared first).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        self.generate(&mut Collect(list));
    }

    /// The number of legal moves (faster than listing them).
    #[inline(always)]
    pub fn count_legal(&self) -> u64 {
        let mut c = Count(0);
        self.generate(&mut c);
        c.0
    }

    /// True if `m` is legal here.
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves().contains(&m)
    }

    /// True if the game has ended by a variant rule (no moves are generated).
    #[inline]
    pub fn variant_ended(&self) -> bool {
        self.variant_loser().is_some()
    }

    /// Where a piece pinned on `from` may go: the squares from the king
    /// (exclusive) to the pinner (inclusive) on their common line — not the
    /// whole line, since a leaper along it (the Alpaca's two-square jump)
    /// could otherwise leave over the king or the pinner.
    #[inline]
    pub(crate) fn pin_ray(&self, ksq: Square, from: Square) -> BitsOf<V> {
        type S<V> = <V as Variant>::Shape;
        let d = menagerie_geometry::Delta::new(
            S::<V>::file_of(from).0 as i8 - S::<V>::file_of(ksq).0 as i8,
            S::<V>::rank_of(from).0 as i8 - S::<V>::rank_of(ksq).0 as i8,
        );
        match menagerie_geometry::Dir::of(d) {
            Some(dir) => S::<V>::geometry().ray_attacks(ksq, dir, self.occupied() ^ BitsOf::<V>::bit(from)),
            None => BitsOf::<V>::ZERO,
        }
    }

    /// True if the opponent attacks `sq` (in the current position), read off
    /// `danger` where it is exact.
    #[inline(always)]
    pub(crate) fn in_danger(&self, danger: Danger<BitsOf<V>>, sq: Square) -> bool {
        danger.map.has(sq) && (danger.exact || self.is_attacked(sq, self.side.flip()))
    }

    /// True if the side to move's king is safe after `m` (played in full).
    #[inline]
    pub(crate) fn legal_after(&self, m: Move) -> bool {
        let us = self.side;
        let p = self.play_unchecked(m);
        !p.is_attacked(p.king(us), us.flip())
    }

    // `#[inline(always)]` (and on the generators it calls) so that perft's
    // copy compiled with `popcnt` (perft.rs) gets it for the bulk count.
    #[inline(always)]
    pub(crate) fn generate<K: Sink<BitsOf<V>>>(&self, sink: &mut K) {
        #[cfg(feature = "generation-count")]
        crate::generations::bump();
        if self.variant_ended() {
            return;
        }
        if V::GATING.is_some() && self.gates.in_prelude() {
            self.generate_prelude(sink);
            return;
        }
        type S<V> = <V as Variant>::Shape;
        let t = S::<V>::pieces();
        let (us, them, own, enemy, occ) = self.sides();
        let empty = !occ & S::<V>::ALL;
        let ksq = self.king(us);
        let checkers = self.attackers_to(ksq, occ, them);
        let live = self.live_gate_squares(us);

        // King moves. If the king's home gate fires, its square stays occupied
        // (gating.rs).
        let danger = {
            let king_stays = live.has(ksq);
            let occ_wo_king = if king_stays { occ } else { occ ^ BitsOf::<V>::bit(ksq) };
            let targets = t.leap_attacks(Piece::new(us, PieceKind::King), ksq) & !own;
            // The whole map pays for two king moves or more, and for the
            // special moves that test their squares against it.
            if targets.many() || V::TAKEOVERS || V::SWAPS {
                // Without a check no slider sees the king, so taking it off
                // the board changes no attack: the map is then exact.
                let map = self.attacked_squares(them, occ_wo_king);
                sink.targets(ksq, targets & !map);
                Danger { map, exact: king_stays || checkers.is_empty() }
            } else {
                if targets.any() && self.attackers_to(Square(targets.lsb() as u8), occ_wo_king, them).is_empty() {
                    sink.targets(ksq, targets);
                }
                Danger { map: S::<V>::ALL, exact: false }
            }
        };

        if checkers.many() {
            self.generate_special(sink, checkers, BitsOf::<V>::ZERO, danger);
            return;
        }
        let mask =
            if checkers.any() { S::<V>::between(ksq, Square(checkers.lsb() as u8)) | checkers } else { S::<V>::ALL };

        // Pins by enemy sliders.
        let mut pinned = BitsOf::<V>::ZERO;
        {
            let rq = (self.kind(PieceKind::Rook) | self.kind(PieceKind::Queen)) & enemy;
            let bq = (self.kind(PieceKind::Bishop) | self.kind(PieceKind::Queen)) & enemy;
            let mut snipers = (S::<V>::rook_attacks(ksq, BitsOf::<V>::ZERO) & rq)
                | (S::<V>::bishop_attacks(ksq, BitsOf::<V>::ZERO) & bq);
            while snipers.any() {
                let s = Square(snipers.lsb() as u8);
                snipers = snipers.clear_lsb();
                let b = S::<V>::between(ksq, s) & occ;
                if !b.many() {
                    pinned |= b & own;
                }
            }
            // The reserve piece entering a live gate square keeps the line closed.
            pinned &= !live;
        }

        // Leapers and riders.
        let target_mask = !own & mask;
        self.gen_leaper(sink, PieceKind::Knight, target_mask, pinned, ksq);
        let bq = self.kind(PieceKind::Bishop) | self.kind(PieceKind::Queen);
        let rq = self.kind(PieceKind::Rook) | self.kind(PieceKind::Queen);
        for from in (bq & own).iter() {
            let mut a = S::<V>::bishop_attacks(from, occ) & target_mask;
            if pinned.has(from) {
                a &= self.pin_ray(ksq, from);
            }
            if rq.has(from) {
                let mut r = S::<V>::rook_attacks(from, occ) & target_mask;
                if pinned.has(from) {
                    r &= self.pin_ray(ksq, from);
                }
                a |= r;
            }
            sink.targets(from, a);
        }
        for from in (self.kind(PieceKind::Rook) & own).iter() {
            let mut a = S::<V>::rook_attacks(from, occ) & target_mask;
            if pinned.has(from) {
                a &= self.pin_ray(ksq, from);
            }
            sink.targets(from, a);
        }
        if V::has(PieceKind::Alpaca) {
            let qmask = empty & mask;
            let pcs = self.pieces(Piece::new(us, PieceKind::Alpaca));
            for from in pcs.iter() {
                let pc = Piece::new(us, PieceKind::Alpaca);
                let mut a = (t.leap_attacks(pc, from) & target_mask) | (t.quiet_leaps(pc, from) & qmask);
                if pinned.has(from) {
                    a &= self.pin_ray(ksq, from);
                }
                sink.targets(from, a);
            }
        }
        // Where wazirs promote, their moves come with the special powers
        // (camel_rhino.rs).
        for kind in [PieceKind::Camel, PieceKind::Rhino, PieceKind::Zebra, PieceKind::Wazir] {
            if V::has(kind) && !(V::WAZIR_PROMOTES && kind == PieceKind::Wazir) {
                self.gen_leaper(sink, kind, target_mask, pinned, ksq);
            }
        }

        // Pawns.
        if V::has(PieceKind::Pawn) {
            self.generate_pawns(sink, mask, pinned, ksq);
        }

        // Castling (castling.rs).
        if V::CASTLING && checkers.is_empty() {
            self.generate_castling(sink, occ);
        }

        self.generate_special(sink, checkers, pinned, danger);
    }

    // ----- special powers (generated in their mechanism modules) -----------

    /// Squares adjacent (8 neighbours) to `sq`.
    #[inline(always)]
    pub(crate) fn neighbours(sq: Square) -> BitsOf<V> {
        V::Shape::pieces().leap_attacks(Piece::new(Color::White, PieceKind::King), sq)
    }

    /// Moves of special powers; `checkers` and `pinned` come from the
    /// ordinary generator (`pinned` is empty when in double check).
    #[inline(always)]
    pub(crate) fn generate_special<K: Sink<BitsOf<V>>>(
        &self,
        sink: &mut K,
        checkers: BitsOf<V>,
        pinned: BitsOf<V>,
        danger: Danger<BitsOf<V>>,
    ) {
        if V::KIDNAP != Kidnap::None {
            self.gen_alseids(sink, checkers, pinned);
        }
        if V::WAZIR_PROMOTES && !checkers.many() {
            self.gen_wazirs(sink, checkers, pinned);
        }
        if V::TAKEOVERS {
            self.gen_takeovers(sink, checkers, pinned, danger);
        }
        if V::SWAPS {
            self.gen_swaps(sink, checkers, danger);
        }
    }

    /// The squares a non-king move must reach to answer `checkers` (all of
    /// them when not in check, none in double check).
    pub(crate) fn check_mask(&self, ksq: Square, checkers: BitsOf<V>) -> BitsOf<V> {
        if checkers.is_empty() {
            V::Shape::ALL
        } else if checkers.many() {
            BitsOf::<V>::ZERO
        } else {
            V::Shape::between(ksq, Square(checkers.lsb() as u8)) | checkers
        }
    }

    #[inline(always)]
    fn gen_leaper<K: Sink<BitsOf<V>>>(
        &self,
        sink: &mut K,
        kind: PieceKind,
        target_mask: BitsOf<V>,
        pinned: BitsOf<V>,
        ksq: Square,
    ) {
        let t = V::Shape::pieces();
        let pc = Piece::new(self.side, kind);
        let pcs = self.pieces(pc);
        for from in (pcs & !pinned).iter() {
            sink.targets(from, t.leap_attacks(pc, from) & target_mask);
        }
        for from in (pcs & pinned).iter() {
            sink.targets(from, t.leap_attacks(pc, from) & target_mask & self.pin_ray(ksq, from));
        }
    }

    #[inline(always)]
    fn generate_pawns<K: Sink<BitsOf<V>>>(&self, sink: &mut K, mask: BitsOf<V>, pinned: BitsOf<V>, ksq: Square) {
        type S<V> = <V as Variant>::Shape;
        let us = self.side;
        let them = us.flip();
        let enemy = self.by_color[them.idx()];
        let occ = self.occupied();
        let empty = !occ & S::<V>::ALL;
        let pawns = self.pieces(Piece::new(us, PieceKind::Pawn));
        let f = S::<V>::FILES as i32;
        let (up, last_rank, double_rank) = match us {
            Color::White => (f, S::<V>::RANKS - 1, V::DOUBLE_STEP_RANK + 1),
            Color::Black => (-f, 0, S::<V>::RANKS - 2 - V::DOUBLE_STEP_RANK),
        };
        let push = |b: BitsOf<V>| if up > 0 { S::<V>::north(b) } else { S::<V>::south(b) };
        let promo = S::<V>::rank_mask(menagerie_geometry::Rank(last_rank));
        let double_mask = S::<V>::rank_mask(menagerie_geometry::Rank(double_rank));

        // Pinned pawns may only move along their pin line; handled with the
        // others by filtering their targets through the line afterwards.
        let free = pawns & !pinned;
        let emit = |sink: &mut K, from_set: BitsOf<V>, restrict: BitsOf<V>| {
            let single = push(from_set) & empty;
            let double = push(single & double_mask) & empty & mask & restrict;
            let single = single & mask & restrict;
            sink.shifted(single & !promo, up, MoveKind::Normal);
            sink.promotions(single & promo, up, V::PROMOTIONS);
            sink.shifted(double, 2 * up, MoveKind::DoublePush);
            let fwd = push(from_set);
            let west = S::<V>::west(fwd) & enemy & mask & restrict;
            let east = S::<V>::east(fwd) & enemy & mask & restrict;
            sink.shifted(west & !promo, up - 1, MoveKind::Normal);
            sink.promotions(west & promo, up - 1, V::PROMOTIONS);
            sink.shifted(east & !promo, up + 1, MoveKind::Normal);
            sink.promotions(east & promo, up + 1, V::PROMOTIONS);
        };
        emit(sink, free, S::<V>::ALL);
        for from in (pawns & pinned).iter() {
            emit(sink, BitsOf::<V>::bit(from), self.pin_ray(ksq, from));
        }

        // En passant: tested in full (the captured pawn leaves a square the
        // capturing pawn does not enter).
        if let Some(ep) = self.ep {
            let capsq = Square((ep.0 as i32 - up) as u8);
            if self.piece_at(capsq) == Some(Piece::new(them, PieceKind::Pawn)) {
                let t = S::<V>::pieces();
                let attackers = t.leap_attacks(Piece::new(them, PieceKind::Pawn), ep) & pawns;
                for from in attackers.iter() {
                    let occ2 = (occ ^ BitsOf::<V>::bit(from) ^ BitsOf::<V>::bit(capsq)) | BitsOf::<V>::bit(ep);
                    let att = self.attackers_to(ksq, occ2, them) & !BitsOf::<V>::bit(capsq);
                    if att.is_empty() {
                        sink.push(Move::new(from, ep, MoveKind::EnPassant));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{Alpaca, Alseid, CamelRhino, Chess, Chess960};
    use menagerie_geometry::Shape;

    /// Along seeded random games, the attack map equals the per-square
    /// attacker test on every square, for both sides, with the board as it
    /// is and with the side to move's king taken off.
    fn attack_map_matches_attackers<V: Variant>() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20 {
            let mut pos = Position::<V>::start();
            for _ in 0..80 {
                let occ = pos.occupied();
                let ksq = pos.king(pos.side);
                for occ in [occ, occ ^ BitsOf::<V>::bit(ksq)] {
                    for by in [Color::White, Color::Black] {
                        let map = pos.attacked_squares(by, occ);
                        for s in 0..V::Shape::SQUARES {
                            let sq = Square(s);
                            assert_eq!(map.has(sq), pos.attackers_to(sq, occ, by).any(), "{sq:?} by {by:?} in {pos:?}");
                        }
                    }
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                pos = pos.play_unchecked(moves.as_slice()[(seed >> 33) as usize % moves.len()]);
            }
        }
    }

    #[test]
    fn attack_maps_match_the_attacker_test() {
        attack_map_matches_attackers::<Chess>();
        attack_map_matches_attackers::<Chess960>();
        attack_map_matches_attackers::<Alpaca>();
        attack_map_matches_attackers::<Alseid>();
        attack_map_matches_attackers::<CamelRhino>();
    }
}
