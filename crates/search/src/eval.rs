//! Evaluation that works for every piece without hand tuning.
//!
//! - Material from the pieces' nominal values.
//! - Piece-square terms derived from each piece's own mobility on the empty
//!   board shape (squares from which it reaches more squares are better),
//!   plus centralisation; pawns gain by advancing; the king prefers shelter
//!   while material is on the board and the centre in the endgame.
//! - Mobility: squares attacked or reachable, per piece, with occupancy.
//! - King safety: enemy pieces bearing on the king's neighbourhood; pawn shield.
//! - Pawn structure: passed, doubled and isolated pawns.
//! - Variant terms: reserve pieces in hand or behind live gates count as
//!   material; in Camel and Rhino Chess a side with only one Camel/Rhino left
//!   is in danger of losing outright.
//!
//! Middlegame and endgame terms are blended by the remaining non-pawn material.

use menagerie_geometry::{Bits, File, Shape, Square};
use menagerie_pieces::{Color, KIND_COUNT, Piece, PieceKind, PieceShape};
use menagerie_variants::{BitsOf, Position, Variant};

/// Centipawn score.
pub type Value = i32;

/// Per-variant precomputed evaluation tables.
pub struct EvalTables {
    /// `[color][kind][square]` → (middlegame, endgame) bonus.
    pst: Vec<[(i16, i16); 100]>,
    /// Phase weight of each kind (0 for pawns and kings).
    phase_weight: [i32; KIND_COUNT],
    /// Phase of the variant's start position.
    full_phase: i32,
}

const MOBILITY_MG: [i32; KIND_COUNT] = [0, 4, 4, 2, 1, 0, 3, 2, 4, 4, 4, 3];
const MOBILITY_EG: [i32; KIND_COUNT] = [0, 4, 5, 4, 2, 0, 3, 2, 4, 4, 4, 3];

const MG_VALUE: [i32; KIND_COUNT] = {
    let mut v = [0; KIND_COUNT];
    let mut i = 0;
    while i < KIND_COUNT {
        v[i] = PieceKind::ALL[i].value();
        i += 1;
    }
    v
};

const EG_VALUE: [i32; KIND_COUNT] = {
    let mut v = [0; KIND_COUNT];
    let mut i = 0;
    while i < KIND_COUNT {
        v[i] = endgame_value(PieceKind::ALL[i]);
        i += 1;
    }
    v
};

const fn endgame_value(k: PieceKind) -> i32 {
    match k {
        PieceKind::Pawn => 120,
        PieceKind::Wazir => 170,
        PieceKind::Alpaca => 210,
        k => k.value(),
    }
}

impl EvalTables {
    /// Builds the tables for variant `V`.
    pub fn new<V: Variant>() -> EvalTables {
        type S<V> = <V as Variant>::Shape;
        let files = S::<V>::FILES as i32;
        let ranks = S::<V>::RANKS as i32;
        let n = S::<V>::SQUARES as usize;
        let mut pst = vec![[(0i16, 0i16); 100]; 2 * KIND_COUNT];
        let centre = |sq: Square| -> i32 {
            // Twice the distance from the centre, so even boards work in integers.
            let f = (2 * S::<V>::file_of(sq).0 as i32 - (files - 1)).abs();
            let r = (2 * S::<V>::rank_of(sq).0 as i32 - (ranks - 1)).abs();
            f.max(r) + (f + r) / 2
        };
        for kind in PieceKind::ALL {
            if !V::has(kind) {
                continue;
            }
            for c in Color::ALL {
                let piece = Piece::new(c, kind);
                let mob: Vec<i32> = (0..n)
                    .map(|s| {
                        let sq = Square(s as u8);
                        (S::<V>::attacks(piece, sq, BitsOf::<V>::ZERO)
                            | S::<V>::quiet_moves(piece, sq, BitsOf::<V>::ZERO))
                        .popcnt() as i32
                    })
                    .collect();
                let avg = mob.iter().sum::<i32>() / n as i32;
                let table = &mut pst[c.idx() * KIND_COUNT + kind.idx()];
                for s in 0..n {
                    let sq = Square(s as u8);
                    let rel_rank = match c {
                        Color::White => S::<V>::rank_of(sq).0 as i32,
                        Color::Black => ranks - 1 - S::<V>::rank_of(sq).0 as i32,
                    };
                    let cd = centre(sq);
                    let (mg, eg) = match kind {
                        PieceKind::Pawn => {
                            let file = S::<V>::file_of(sq).0 as i32;
                            let central = files / 2 - (2 * file - (files - 1)).abs() / 2;
                            (rel_rank * 4 + central * rel_rank.min(4), rel_rank * rel_rank * 2)
                        }
                        PieceKind::King => (
                            // Shelter on the back rank, away from the centre files.
                            -rel_rank * 14 + cd * 2,
                            -cd * 4,
                        ),
                        _ => {
                            let m = (mob[s] - avg) * 3;
                            (m - cd * 2, m - cd)
                        }
                    };
                    table[s] = (mg as i16, eg as i16);
                }
            }
        }
        let mut phase_weight = [0; KIND_COUNT];
        for k in PieceKind::ALL {
            phase_weight[k.idx()] = match k {
                PieceKind::Pawn | PieceKind::King => 0,
                k => (k.value() + 50) / 100,
            };
        }
        let full_phase: i32 = V::start_pieces().iter().map(|(_, p)| phase_weight[p.kind.idx()]).sum::<i32>().max(1);
        EvalTables { pst, phase_weight, full_phase }
    }

    #[inline(always)]
    fn pst(&self, p: Piece, sq: Square) -> (i32, i32) {
        let (a, b) = self.pst[p.color.idx() * KIND_COUNT + p.kind.idx()][sq.idx()];
        (a as i32, b as i32)
    }

    /// Static evaluation from the side to move's point of view.
    pub fn evaluate<V: Variant>(&self, pos: &Position<V>) -> Value {
        type S<V> = <V as Variant>::Shape;
        let occ = pos.occupied();
        let mut mg = [0i32; 2];
        let mut eg = [0i32; 2];
        let mut phase = 0;
        let mut king_pressure = [0i32; 2];
        let kings = [pos.king(Color::White), pos.king(Color::Black)];
        let zones = kings
            .map(|k| S::<V>::pieces().leap_attacks(Piece::new(Color::White, PieceKind::King), k) | BitsOf::<V>::bit(k));
        for c in Color::ALL {
            let own = pos.color(c);
            let them = c.flip().idx();
            for kind in PieceKind::ALL {
                if !V::has(kind) {
                    continue;
                }
                let piece = Piece::new(c, kind);
                for sq in pos.pieces(piece).iter() {
                    let (a, b) = self.pst(piece, sq);
                    mg[c.idx()] += MG_VALUE[kind.idx()] + a;
                    eg[c.idx()] += EG_VALUE[kind.idx()] + b;
                    phase += self.phase_weight[kind.idx()];
                    if matches!(kind, PieceKind::Pawn | PieceKind::King) {
                        continue;
                    }
                    let att = match kind {
                        PieceKind::Knight | PieceKind::Zebra => S::<V>::pieces().leap_attacks(piece, sq),
                        PieceKind::Bishop => S::<V>::bishop_attacks(sq, occ),
                        PieceKind::Rook => S::<V>::rook_attacks(sq, occ),
                        PieceKind::Queen => S::<V>::queen_attacks(sq, occ),
                        PieceKind::Alseid => BitsOf::<V>::ZERO,
                        _ => S::<V>::pieces().leap_attacks(piece, sq),
                    };
                    let reach = if kind == PieceKind::Alseid || kind == PieceKind::Alpaca {
                        (att & !own) | S::<V>::quiet_moves(piece, sq, occ)
                    } else {
                        att & !own
                    };
                    let m = reach.popcnt() as i32;
                    mg[c.idx()] += m * MOBILITY_MG[kind.idx()];
                    eg[c.idx()] += m * MOBILITY_EG[kind.idx()];
                    let hits = (att & zones[them]).popcnt() as i32;
                    if hits > 0 {
                        king_pressure[them] += hits * (kind.value() / 100 + 1);
                    }
                }
            }
        }
        // King safety: pressure on the zone, and pawns sheltering the king.
        for c in Color::ALL {
            let p = king_pressure[c.idx()];
            mg[c.idx()] -= p * p / 4 + p * 3;
            let shield = pos.pieces(Piece::new(c, PieceKind::Pawn)) & zones[c.idx()];
            mg[c.idx()] += shield.popcnt() as i32 * 12;
        }
        // Bishop pair; rooks on open and half-open files.
        for c in Color::ALL {
            if pos.pieces(Piece::new(c, PieceKind::Bishop)).many() {
                mg[c.idx()] += 30;
                eg[c.idx()] += 50;
            }
            let own_pawns = pos.pieces(Piece::new(c, PieceKind::Pawn));
            let all_pawns = pos.kind(PieceKind::Pawn);
            for sq in pos.pieces(Piece::new(c, PieceKind::Rook)).iter() {
                let file = S::<V>::file_mask(S::<V>::file_of(sq));
                if (file & all_pawns).is_empty() {
                    mg[c.idx()] += 25;
                    eg[c.idx()] += 10;
                } else if (file & own_pawns).is_empty() {
                    mg[c.idx()] += 12;
                    eg[c.idx()] += 6;
                }
            }
        }
        // Pawn structure.
        if V::has(PieceKind::Pawn) {
            for c in Color::ALL {
                let (s_mg, s_eg) = pawn_structure(pos, c);
                mg[c.idx()] += s_mg;
                eg[c.idx()] += s_eg;
            }
        }
        // Reserve pieces (in hand or behind live gates) are material to come.
        if let Some(g) = V::GATING {
            for c in Color::ALL {
                let n = pos.gates().reserve_count(c) as i32;
                mg[c.idx()] += n * g.piece.value() * 9 / 10;
                eg[c.idx()] += n * endgame_value(g.piece) * 9 / 10;
            }
        }
        // Camel and Rhino Chess: the last Camel/Rhino is the whole game.
        if V::CAMEL_RHINO_LOSS {
            for c in Color::ALL {
                let n = (pos.color(c) & (pos.kind(PieceKind::Camel) | pos.kind(PieceKind::Rhino))).popcnt();
                if n == 1 {
                    mg[c.idx()] -= 150;
                    eg[c.idx()] -= 150;
                }
            }
        }
        let phase = phase.min(self.full_phase);
        let w = (mg[0] - mg[1]) * phase + (eg[0] - eg[1]) * (self.full_phase - phase);
        let score = w / self.full_phase;
        let us = pos.side_to_move();
        (if us == Color::White { score } else { -score }) + 12
    }
}

fn pawn_structure<V: Variant>(pos: &Position<V>, c: Color) -> (i32, i32) {
    type S<V> = <V as Variant>::Shape;
    let pawns = pos.pieces(Piece::new(c, PieceKind::Pawn));
    let enemy_pawns = pos.pieces(Piece::new(c.flip(), PieceKind::Pawn));
    let files = S::<V>::FILES;
    let ranks = S::<V>::RANKS as i32;
    let (mut mg, mut eg) = (0, 0);
    for f in 0..files {
        let fm = S::<V>::file_mask(File(f));
        let n = (pawns & fm).popcnt() as i32;
        if n == 0 {
            continue;
        }
        let mut adj = BitsOf::<V>::ZERO;
        if f > 0 {
            adj |= S::<V>::file_mask(File(f - 1));
        }
        if f + 1 < files {
            adj |= S::<V>::file_mask(File(f + 1));
        }
        if n > 1 {
            mg -= 12 * (n - 1);
            eg -= 20 * (n - 1);
        }
        if (pawns & adj).is_empty() {
            mg -= 10 * n;
            eg -= 14 * n;
        }
        for sq in (pawns & fm).iter() {
            let r = S::<V>::rank_of(sq).0 as i32;
            let rel = if c == Color::White { r } else { ranks - 1 - r };
            // Squares ahead on this and the adjacent files.
            let above = |n: u32| if n >= BitsOf::<V>::WIDTH { BitsOf::<V>::ZERO } else { S::<V>::ALL << n };
            let ahead = (fm | adj)
                & match c {
                    Color::White => above((r as u32 + 1) * files as u32),
                    Color::Black => !above(r as u32 * files as u32) & S::<V>::ALL,
                };
            if (enemy_pawns & ahead).is_empty() {
                mg += rel * rel * 2;
                eg += rel * rel * 5 + 10;
            }
        }
    }
    (mg, eg)
}
