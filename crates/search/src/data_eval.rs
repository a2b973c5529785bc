//! Evaluation of data-defined variants ([`menagerie_rules`]), whose pieces
//! are only known by their Betza movement.
//!
//! # Piece values
//!
//! A piece is worth about what it can reach in a game. The value of a
//! non-royal, non-pawn piece type grows with its *mobility under
//! congestion* `m`: the number of squares it attacks or can move to,
//! averaged over every square of the board and over a fixed set of
//! pseudo-random occupancies in which each other square holds a piece with
//! probability [`DENSITY`]. Sliders lose range on a crowded board and
//! leapers do not, which is what makes a knight (5.25 squares on an empty
//! 8x8 board) worth about as much as a bishop (8.75). The value is
//! `VALUE_SCALE * m ^ VALUE_EXPONENT` ([`VALUE_SCALE`], [`VALUE_EXPONENT`]),
//! calibrated so that on the 8x8 board the knight (m = 5.5) is worth 300
//! and the rook (m = 8.5) 500; the bishop and queen then come out at about
//! 360 and 960 (on Capablanca's 10x8 board: archbishop about 740,
//! chancellor 900). Hoppers (cannons, grasshoppers) get their value from the
//! hurdles the occupancy provides. Pawn-like pieces are worth
//! [`PAWN_VALUE`]; royal pieces are not counted.
//!
//! # Other terms
//!
//! - Piece-square terms: pieces other than pawns and kings gain
//!   [`CENTRE_CP`] centipawns per step closer to the centre; pawns gain by
//!   advancing toward their promotion zone, more the closer they are and
//!   the more the best promotion is worth.
//! - Mobility: [`MOBILITY_CP`] per square a piece reaches beyond its type's
//!   average (fewer: a penalty).
//! - Pieces in hand (S-chess) and reserve pieces (Pioneer gating, in hand
//!   or behind a live gate) count [`HAND_PERCENT`] per cent of their value.
//! - Tempo: [`TEMPO_CP`] for the side to move.
//! - In games where losing every piece wins (antichess, giveaway, suicide:
//!   `extinctionValue = win` for all pieces) the sum is counted against
//!   each side: fewer and less mobile pieces are better.

use menagerie_rules::{GameValue, Position, VariantDef};
use std::sync::Arc;

/// Probability that a square is occupied in the congestion averages.
pub const DENSITY: f64 = 0.3;
/// Scale of the value curve `VALUE_SCALE * mobility ^ VALUE_EXPONENT`.
pub const VALUE_SCALE: f64 = 41.1;
/// Exponent of the value curve: more reach is worth more than in proportion.
pub const VALUE_EXPONENT: f64 = 1.167;
/// Value of a pawn-like piece.
pub const PAWN_VALUE: i32 = 100;
/// Centralisation bonus per step toward the centre.
pub const CENTRE_CP: i32 = 3;
/// Mobility bonus per square above the type's average.
pub const MOBILITY_CP: i32 = 3;
/// Share of a piece's value it is worth in hand.
pub const HAND_PERCENT: i32 = 90;
/// Bonus for the side to move.
pub const TEMPO_CP: i32 = 15;
/// Value given to a royal piece in exchanges (never really captured).
const ROYAL_VALUE: i32 = 10_000;
/// Occupancies sampled per square for the congestion averages.
const SAMPLES: u32 = 24;

/// The evaluation tables of one data variant.
#[derive(Debug)]
pub struct DataEval {
    def: Arc<VariantDef>,
    /// Value of each piece type (0 for royal pieces).
    values: Vec<i32>,
    /// Average mobility of each piece type under congestion (squares).
    average_mobility: Vec<i32>,
    /// Piece-square bonus: `[(colour * 16 + type) * 120 + square]`, colour 0 White.
    pst: Vec<i32>,
    /// Piece types from least to most valuable, royal ones last.
    by_value: Vec<u8>,
    /// Pawn-like or royal types, as a bit set of type indices.
    pawn_or_royal: u32,
    pawn_value: i32,
    /// Losing every piece wins (antichess, giveaway, suicide): material and
    /// mobility count against their owner.
    anti: bool,
}

/// A fixed pseudo-random sequence (SplitMix64).
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut x = *state;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Average number of squares a piece of type `kind` (White's) attacks or
/// moves to, over every square and `SAMPLES` occupancies of density `density`.
fn congested_mobility(def: &VariantDef, kind: u8, density: f64) -> f64 {
    let board = def.board_squares();
    let squares = u32::from(def.files) * u32::from(def.ranks);
    let threshold = (density * f64::from(u32::MAX)) as u64;
    let mut rng = 0x00C0_FFEE_u64 ^ u64::from(kind);
    let mut total = 0u64;
    let mut count = 0u64;
    for sq in 0..squares as u8 {
        for _ in 0..SAMPLES {
            let mut occ = 0u128;
            for s in 0..squares {
                if next(&mut rng) & 0xFFFF_FFFF < threshold {
                    occ |= 1u128 << s;
                }
            }
            occ &= board & !(1u128 << sq);
            let reach = def.reach_from(kind, true, sq, occ, true) | (def.reach_from(kind, true, sq, occ, false) & !occ);
            total += u64::from(reach.count_ones());
            count += 1;
        }
    }
    if count == 0 { 0.0 } else { total as f64 / count as f64 }
}

impl DataEval {
    /// The tables of a variant (computed from its pieces' movement; a few
    /// milliseconds).
    pub fn new(def: &Arc<VariantDef>) -> DataEval {
        let n = def.piece_count().min(16);
        let mut values = vec![0; n];
        let mut average_mobility = vec![0; n];
        let mut pawn_or_royal = 0u32;
        for t in 0..n as u8 {
            if def.is_royal(t) {
                pawn_or_royal |= 1 << t;
            } else if def.is_pawn(t) {
                pawn_or_royal |= 1 << t;
                values[t as usize] = PAWN_VALUE;
            } else {
                let m = congested_mobility(def, t, DENSITY);
                values[t as usize] = ((VALUE_SCALE * m.powf(VALUE_EXPONENT)).round() as i32).max(50);
                average_mobility[t as usize] = m.round() as i32;
            }
        }
        let pawn_value = PAWN_VALUE;
        let mut by_value: Vec<u8> = (0..n as u8).collect();
        by_value.sort_by_key(|&t| if def.is_royal(t) { ROYAL_VALUE } else { values[t as usize] });
        let mut eval = DataEval {
            def: Arc::clone(def),
            values,
            average_mobility,
            pst: vec![0; 32 * 120],
            by_value,
            pawn_or_royal,
            pawn_value,
            anti: def.game_end.extinction_value == GameValue::Win && def.game_end.extinction_piece_types == "*",
        };
        eval.fill_pst();
        eval
    }

    fn fill_pst(&mut self) {
        let def = &*self.def;
        let files = i32::from(def.files);
        let ranks = i32::from(def.ranks);
        let n = self.values.len();
        for white in [true, false] {
            let zone = def.promotion_squares(white);
            // Ranks (from the side's own point of view) of the promotion zone.
            let target = (0..ranks)
                .filter(|&r| (0..files).any(|f| zone >> (r * files + f) & 1 != 0))
                .map(|r| if white { r } else { ranks - 1 - r })
                .min();
            for t in 0..n as u8 {
                let best_promotion = def
                    .promotion_letters(white)
                    .iter()
                    .filter_map(|&l| def.pieces().position(|p| p.letter == l))
                    .map(|k| self.values.get(k).copied().unwrap_or(0))
                    .max()
                    .unwrap_or(self.pawn_value);
                for r in 0..ranks {
                    for f in 0..files {
                        let sq = (r * files + f) as usize;
                        let own_rank = if white { r } else { ranks - 1 - r };
                        // Steps from the centre, 0 on the central squares.
                        let off = ((2 * f - (files - 1)).abs() + (2 * r - (ranks - 1)).abs()) / 2;
                        let max_off = (files - 1 + ranks - 1) / 2;
                        let v = if def.is_royal(t) {
                            0
                        } else if def.is_pawn(t) {
                            match target {
                                Some(z) if z > 1 && own_rank < z => {
                                    let progress = (own_rank - 1).max(0) as f64 / (z - 1) as f64;
                                    let gain = (best_promotion - self.pawn_value).max(0) as f64;
                                    (gain * progress.powi(3) / 6.0) as i32 + 3 * (own_rank - 1).max(0)
                                }
                                _ => 2 * (own_rank - 1).max(0),
                            }
                        } else {
                            CENTRE_CP * (max_off - off)
                        };
                        self.pst[(usize::from(!white) * 16 + t as usize) * 120 + sq] = v;
                    }
                }
            }
        }
    }

    /// The variant the tables are for.
    pub fn variant(&self) -> &Arc<VariantDef> {
        &self.def
    }

    /// Value of piece type `kind` in centipawns (0 for royal pieces).
    pub fn value(&self, kind: u8) -> i32 {
        self.values.get(kind as usize).copied().unwrap_or(0)
    }

    /// Value of piece type `kind` in exchanges (royal pieces are worth
    /// more than everything else).
    pub(crate) fn exchange_value(&self, kind: u8) -> i32 {
        if self.pawn_or_royal >> kind & 1 != 0 && self.def.is_royal(kind) { ROYAL_VALUE } else { self.value(kind) }
    }

    /// Piece types from least to most valuable, royal ones last.
    pub(crate) fn by_value(&self) -> &[u8] {
        &self.by_value
    }

    /// Whether type `kind` is pawn-like or royal.
    pub(crate) fn is_pawn_or_royal(&self, kind: u8) -> bool {
        self.pawn_or_royal >> kind & 1 != 0
    }

    /// Static evaluation of `pos` from the side to move's point of view.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let mut score = [0i32; 2];
        for (c, white) in [(0usize, true), (1usize, false)] {
            let mut b = pos.pieces_of(white);
            while b != 0 {
                let sq = b.trailing_zeros() as u8;
                b &= b - 1;
                let Some(p) = pos.piece_on(sq) else { continue };
                let t = p.kind as usize;
                let mut v = self.values.get(t).copied().unwrap_or(0);
                v += self.pst.get((c * 16 + t) * 120 + sq as usize).copied().unwrap_or(0);
                if !self.is_pawn_or_royal(p.kind) {
                    let reach = pos.attacks_from(sq) | pos.quiet_reach_from(sq);
                    v += MOBILITY_CP * (reach.count_ones() as i32 - self.average_mobility.get(t).copied().unwrap_or(0));
                }
                score[c] += v;
            }
            for t in 0..self.values.len() {
                let n = i32::from(pos.in_hand(white, t as u8));
                if n != 0 {
                    score[c] += n * self.values[t] * HAND_PERCENT / 100;
                }
            }
            // Pioneer gating: a reserve piece behind a live gate.
            if let Some(t) = pos.variant().pioneer_piece() {
                let n = pos.pioneer_gates(white).count_ones() as i32;
                score[c] += n * self.values.get(t as usize).copied().unwrap_or(0) * HAND_PERCENT / 100;
            }
        }
        let white = if self.anti { score[1] - score[0] } else { score[0] - score[1] };
        TEMPO_CP + if pos.white_to_move() { white } else { -white }
    }
}

/// The static exchange value of the legal move `m` of `pos` (centipawns for
/// the side to move): each side recaptures on the destination with its
/// least valuable attacker, x-rays included, pins ignored. Promotions,
/// castling and gating moves are valued by what they win at once.
/// The value a takeover `m` wins by converting: each converted piece
/// counts twice (the opponent loses it and the mover gains it).
pub(crate) fn conversion_gain(pos: &Position, m: menagerie_rules::Move, eval: &DataEval) -> i32 {
    let mut converted = pos.converted(m);
    let mut v = 0;
    while converted != 0 {
        let sq = converted.trailing_zeros() as u8;
        converted &= converted - 1;
        v += pos.piece_on(sq).map_or(0, |p| 2 * eval.value(p.kind));
    }
    v
}

pub(crate) fn see(pos: &Position, m: menagerie_rules::Move, eval: &DataEval) -> i32 {
    let captured = pos.captured_kind(m).map_or(0, |k| eval.value(k)) + conversion_gain(pos, m, eval);
    if m.promotion().is_some()
        || m.is_castling()
        || m.gated().is_some()
        || m.is_en_passant()
        || m.is_prelude()
        || m.is_swap()
    {
        return captured + m.promotion().map_or(0, |k| eval.value(k) - eval.pawn_value);
    }
    let (from, to) = (m.from_square(), m.to_square());
    let Some(mover) = pos.piece_on(from) else { return 0 };
    let mut gains = [0i32; 40];
    gains[0] = captured;
    let mut on_square = eval.exchange_value(mover.kind);
    let mut occ = (pos.pieces_of(true) | pos.pieces_of(false)) & !(1u128 << from);
    let mut white = !mover.white;
    let mut d = 0;
    'exchange: loop {
        for &t in eval.by_value() {
            let among = pos.pieces_of(white) & pos.pieces_of_kind(t) & occ;
            let Some(sq) = pos.attacker_of_kind(to, t, white, occ, among) else { continue };
            d += 1;
            if d >= gains.len() {
                break 'exchange;
            }
            gains[d] = on_square - gains[d - 1];
            if eval.exchange_value(t) >= ROYAL_VALUE {
                // A royal piece cannot recapture into a defended square.
                let rest = occ & !(1u128 << sq);
                let defended = eval.by_value().iter().any(|&u| {
                    let among = pos.pieces_of(!white) & pos.pieces_of_kind(u) & rest;
                    pos.attacker_of_kind(to, u, !white, rest, among).is_some()
                });
                if defended {
                    d -= 1;
                    break 'exchange;
                }
            }
            on_square = eval.exchange_value(t);
            occ &= !(1u128 << sq);
            white = !white;
            continue 'exchange;
        }
        break;
    }
    while d > 0 {
        gains[d - 1] = -(-gains[d - 1]).max(gains[d]);
        d -= 1;
    }
    gains[0]
}
