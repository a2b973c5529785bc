//! Evaluation for every piece, with weights tuned from games where there is
//! data ([`Weights`]).
//!
//! - Material per kind (middlegame and endgame values).
//! - Piece-square terms derived from each piece's own mobility on the empty
//!   board shape (squares from which it reaches more squares are better),
//!   plus centralisation; pawns gain by advancing; the king prefers shelter
//!   while material is on the board and the centre in the endgame. Each
//!   derived term has a scale factor, and a per-kind, per-square table of
//!   corrections (zero unless tuned) is added on top.
//! - Mobility: squares attacked or reachable, per piece, with occupancy.
//! - King safety: enemy pieces bearing on the king's neighbourhood (a
//!   quadratic in the pressure: separate weights for p² and p); pawn shield;
//!   king danger after Stockfish's classical model (attackers by class,
//!   attacked and weak squares of the king's neighbourhood, safe checks by
//!   knight, bishop, rook and queen, no queen), with two attackers or one
//!   and a queen: the weighted units times Stockfish's units, so the term is
//!   quadratic in the attack and linear in the weights.
//! - Threats: enemy pieces attacked by pawns, undefended ones attacked at
//!   all, rooks and queens attacked by minor pieces, queens by rooks.
//! - Outposts: knights and bishops on squares of the enemy half a pawn of
//!   ours guards and no enemy pawn can attack; knights that can reach one.
//! - Space: safe squares in the centre files of our side (Stockfish's term).
//! - Bishop pair; rooks on open and half-open files.
//! - Pawn structure: passed pawns by rank, doubled and isolated pawns.
//! - Variant terms: reserve pieces in hand or behind live gates count as
//!   material; in Camel and Rhino Chess a side with only one Camel/Rhino left
//!   is in danger of losing outright.
//! - A bonus for the side to move (tempo).
//!
//! Middlegame and endgame terms are blended by the remaining non-pawn material.
//!
//! Every constant is a weight of [`Weights`]. [`Weights::defaults`] are the
//! hand-picked values; [`Weights::for_variant`] loads the tuned weights of a
//! variant, compiled in from `crates/search/weights/` (a file per game or
//! family of games, written by the `menagerie-tune` tool), over the
//! defaults. The environment variable `MENAGERIE_EVAL_WEIGHTS` (read once
//! per process) overrides them for
//! experiments with one binary: `default` plays the defaults, a file path
//! plays that weights file over the defaults (in whatever variant is played).
//!
//! [`EvalTables::trace`] gives the evaluation as a linear function of the
//! weights ([`Trace`]), which is what the tuner fits.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use menagerie_geometry::{Bits, File, Shape, Square};
use menagerie_pieces::{Color, KIND_COUNT, Piece, PieceKind, PieceShape};
use menagerie_variants::{BitsOf, Position, Variant, VariantId};

/// Centipawn score.
pub type Value = i32;

const K: usize = KIND_COUNT;
/// Largest board (10x10).
const SQ: usize = 100;
/// Ranks of the largest board (passed-pawn tables).
const RANKS: usize = 10;

// Layout of the flat weight vector.
const MAT_MG: usize = 0;
const MAT_EG: usize = K;
const MOB_MG: usize = 2 * K;
const MOB_EG: usize = 3 * K;
const PST_MOB_MG: usize = 4 * K;
const PST_MOB_EG: usize = 5 * K;
const PST_CEN_MG: usize = 6 * K;
const PST_CEN_EG: usize = 7 * K;
const SCALARS: usize = 8 * K;
const PAWN_RANK_MG: usize = SCALARS;
const PAWN_CENTRAL_MG: usize = SCALARS + 1;
const PAWN_RANK2_EG: usize = SCALARS + 2;
const KING_RANK_MG: usize = SCALARS + 3;
const KING_CENTRE_MG: usize = SCALARS + 4;
const KING_CENTRE_EG: usize = SCALARS + 5;
const KING_PRESSURE_SQ: usize = SCALARS + 6;
const KING_PRESSURE_LIN: usize = SCALARS + 7;
const SHIELD_MG: usize = SCALARS + 8;
const BISHOP_PAIR_MG: usize = SCALARS + 9;
const BISHOP_PAIR_EG: usize = SCALARS + 10;
const ROOK_OPEN_MG: usize = SCALARS + 11;
const ROOK_OPEN_EG: usize = SCALARS + 12;
const ROOK_HALF_MG: usize = SCALARS + 13;
const ROOK_HALF_EG: usize = SCALARS + 14;
const DOUBLED_MG: usize = SCALARS + 15;
const DOUBLED_EG: usize = SCALARS + 16;
const ISOLATED_MG: usize = SCALARS + 17;
const ISOLATED_EG: usize = SCALARS + 18;
const RESERVE_MG: usize = SCALARS + 19;
const RESERVE_EG: usize = SCALARS + 20;
const LAST_CR_MG: usize = SCALARS + 21;
const LAST_CR_EG: usize = SCALARS + 22;
const TEMPO: usize = SCALARS + 23;
const THREAT_PAWN_MG: usize = SCALARS + 24;
const THREAT_PAWN_EG: usize = SCALARS + 25;
const HANGING_MG: usize = SCALARS + 26;
const HANGING_EG: usize = SCALARS + 27;
const CONNECTED_MG: usize = SCALARS + 28;
const CONNECTED_EG: usize = SCALARS + 29;
const PASSED_KING_EG: usize = SCALARS + 30;
const KD_ATT_MINOR: usize = SCALARS + 31;
const KD_ATT_ROOK: usize = SCALARS + 32;
const KD_ATT_QUEEN: usize = SCALARS + 33;
const KD_ZONE: usize = SCALARS + 34;
const KD_WEAK: usize = SCALARS + 35;
const KD_CHECK_KNIGHT: usize = SCALARS + 36;
const KD_CHECK_BISHOP: usize = SCALARS + 37;
const KD_CHECK_ROOK: usize = SCALARS + 38;
const KD_CHECK_QUEEN: usize = SCALARS + 39;
const KD_NO_QUEEN: usize = SCALARS + 40;
const KD_OFFSET: usize = SCALARS + 41;
const OUTPOST_KNIGHT_MG: usize = SCALARS + 42;
const OUTPOST_KNIGHT_EG: usize = SCALARS + 43;
const OUTPOST_BISHOP_MG: usize = SCALARS + 44;
const OUTPOST_BISHOP_EG: usize = SCALARS + 45;
const OUTPOST_REACH_MG: usize = SCALARS + 46;
const OUTPOST_REACH_EG: usize = SCALARS + 47;
const THREAT_MINOR_MG: usize = SCALARS + 48;
const THREAT_MINOR_EG: usize = SCALARS + 49;
const THREAT_ROOK_MG: usize = SCALARS + 50;
const THREAT_ROOK_EG: usize = SCALARS + 51;
const SPACE_MG: usize = SCALARS + 52;
const PASSED_MG: usize = SCALARS + 53;
const PASSED_EG: usize = PASSED_MG + RANKS;
const PSQ_MG: usize = PASSED_EG + RANKS;
const PSQ_EG: usize = PSQ_MG + K * SQ;
/// Number of weights.
pub const WEIGHT_COUNT: usize = PSQ_EG + K * SQ;

/// Names of the scalar weights, from `SCALARS` on.
const SCALAR_NAMES: [&str; 53] = [
    "pawn_rank_mg",
    "pawn_central_mg",
    "pawn_rank2_eg",
    "king_rank_mg",
    "king_centre_mg",
    "king_centre_eg",
    "king_pressure_sq",
    "king_pressure_lin",
    "shield_mg",
    "bishop_pair_mg",
    "bishop_pair_eg",
    "rook_open_mg",
    "rook_open_eg",
    "rook_half_open_mg",
    "rook_half_open_eg",
    "doubled_mg",
    "doubled_eg",
    "isolated_mg",
    "isolated_eg",
    "reserve_mg",
    "reserve_eg",
    "last_camel_rhino_mg",
    "last_camel_rhino_eg",
    "tempo",
    "threat_pawn_mg",
    "threat_pawn_eg",
    "hanging_mg",
    "hanging_eg",
    "connected_mg",
    "connected_eg",
    "passed_king_eg",
    "kd_attacker_minor",
    "kd_attacker_rook",
    "kd_attacker_queen",
    "kd_zone_attacks",
    "kd_weak_squares",
    "kd_check_knight",
    "kd_check_bishop",
    "kd_check_rook",
    "kd_check_queen",
    "kd_no_queen",
    "kd_offset",
    "outpost_knight_mg",
    "outpost_knight_eg",
    "outpost_bishop_mg",
    "outpost_bishop_eg",
    "outpost_reach_mg",
    "outpost_reach_eg",
    "threat_minor_mg",
    "threat_minor_eg",
    "threat_rook_mg",
    "threat_rook_eg",
    "space_mg",
];

/// Per-kind array groups: (offset, name).
const KIND_GROUPS: [(usize, &str); 8] = [
    (MAT_MG, "material_mg"),
    (MAT_EG, "material_eg"),
    (MOB_MG, "mobility_mg"),
    (MOB_EG, "mobility_eg"),
    (PST_MOB_MG, "pst_mobility_mg"),
    (PST_MOB_EG, "pst_mobility_eg"),
    (PST_CEN_MG, "pst_centre_mg"),
    (PST_CEN_EG, "pst_centre_eg"),
];

/// The king-pressure square term is divided by this (weights in 1/100 cp per p²).
const PRESSURE_SQ_DIV: i32 = 100;

/// The space term is divided by this (weight 64: Stockfish's bonus × weight² / 16).
const SPACE_DIV: i32 = 1024;

/// The king-danger bonus is (weighted units) × (fixed units) divided by this.
const KING_DANGER_DIV: i32 = 4096;

/// Stockfish's classical king-danger units for [`KingDanger::counts`]: the
/// fixed factor the tuned units are multiplied by (so that the bonus stays
/// linear in the weights). The weights themselves default to 0 (no king
/// danger); with weights equal to these units the bonus is Stockfish's
/// units² / 4096.
const KD_UNITS: [i32; 11] = [70, 44, 10, 69, 185, 792, 645, 1084, 772, -873, -100];

/// The king-danger weights, in the order of [`KingDanger::counts`].
const KD_WEIGHTS: [usize; 11] = [
    KD_ATT_MINOR,
    KD_ATT_ROOK,
    KD_ATT_QUEEN,
    KD_ZONE,
    KD_WEAK,
    KD_CHECK_KNIGHT,
    KD_CHECK_BISHOP,
    KD_CHECK_ROOK,
    KD_CHECK_QUEEN,
    KD_NO_QUEEN,
    KD_OFFSET,
];

/// What one side's attack on the enemy king is made of (Stockfish's
/// classical king danger): the attacker gains, in the middlegame, the
/// weighted sum of these counts times their sum under [`KD_UNITS`] (when
/// that is positive), divided by [`KING_DANGER_DIV`].
#[derive(Clone, Copy, Default)]
struct KingDanger {
    /// Attackers of the king zone by class (value below 450, below 800, the
    /// rest), zone squares attacked (with multiplicity), weak zone squares,
    /// safe checks by knight, bishop, rook, queen (each at most 2), no queen,
    /// and the constant 1.
    counts: [i32; 11],
    /// Pieces attacking the king zone.
    attackers: i32,
}

const MOBILITY_MG: [i32; K] = [0, 4, 4, 2, 1, 0, 3, 2, 4, 4, 4, 3];
const MOBILITY_EG: [i32; K] = [0, 4, 5, 4, 2, 0, 3, 2, 4, 4, 4, 3];

const fn endgame_value(k: PieceKind) -> i32 {
    match k {
        PieceKind::Pawn => 120,
        PieceKind::Wazir => 170,
        PieceKind::Alpaca => 210,
        k => k.value(),
    }
}

/// Which game phase a weight belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightPhase {
    /// Scaled by the middlegame fraction of the phase.
    Middlegame,
    /// Scaled by the endgame fraction of the phase.
    Endgame,
    /// Not scaled (tempo).
    Flat,
}

/// A weights file could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightsError {
    /// A line is not `name value`.
    #[error("line {line}: expected `name value`")]
    Syntax {
        /// 1-based line number.
        line: usize,
    },
    /// No weight has this name.
    #[error("line {line}: no weight named '{name}'")]
    UnknownName {
        /// 1-based line number.
        line: usize,
        /// The name.
        name: String,
    },
    /// The value is not an integer.
    #[error("line {line}: '{value}' is not an integer")]
    BadValue {
        /// 1-based line number.
        line: usize,
        /// The value text.
        value: String,
    },
}

/// Every tunable constant of the evaluation, as a flat vector of integer
/// weights (centipawns, except `king_pressure_sq` in 1/100 cp) with a name
/// each ([`Weights::name`]). Signs are included: a penalty has a negative
/// weight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    values: Box<[i32; WEIGHT_COUNT]>,
}

/// The tuned weights file compiled in for each variant (the match is
/// exhaustive: a new game has to name its file).
fn embedded(id: VariantId) -> &'static str {
    match id {
        // Chess960 is chess from other starts: the same weights.
        VariantId::Chess | VariantId::Chess960 => include_str!("../weights/chess.txt"),
        // Every game with Alpacas in reserve plays Alpaca's weights, and so does
        // Alseid Chess (both kinds): they won 333 games by +80.7 ± 36.2 Elo
        // (alseid) and 453 by +39.3 ± 30.6 (alseid-weak) over the hand-picked
        // weights, and the refit of 2026-12-04 200 games by +107.5 ± 46.8
        // (alseid) over the fit before it (benches/README).
        VariantId::Alpaca
        | VariantId::Alpaca2
        | VariantId::AlpacaSameFile
        | VariantId::Alseid
        | VariantId::AlseidWeak => include_str!("../weights/alpaca.txt"),
        // Fitted on the movement-only rule set (the one Fairy-Stockfish
        // plays); with takeovers and swaps they win too, with the Camel's
        // and Rhino's worth in the full game (its loss rule, its takeovers)
        // set by hand over the fit.
        VariantId::CamelRhino => include_str!("../weights/camel-rhino.txt"),
        // The movement-only rule set's own fit, on four times the positions
        // and with king danger; with takeovers and swaps it lost
        // (benches/README), so the full game keeps the file above.
        VariantId::CamelRhinoPlain => include_str!("../weights/camel-rhino-plain.txt"),
    }
}

/// What `MENAGERIE_EVAL_WEIGHTS` asks for (read once).
enum Override {
    /// Not set (or unreadable): the variant's own weights.
    None,
    /// `default`: the hand-picked defaults.
    Defaults,
    /// A weights file's text, played over the defaults.
    File(String),
}

fn weights_override() -> &'static Override {
    static OVERRIDE: OnceLock<Override> = OnceLock::new();
    OVERRIDE.get_or_init(|| match std::env::var("MENAGERIE_EVAL_WEIGHTS") {
        Ok(v) if v.trim() == "default" => Override::Defaults,
        Ok(v) if !v.trim().is_empty() => match std::fs::read_to_string(v.trim()) {
            Ok(text) => Override::File(text),
            Err(e) => {
                tracing::warn!(path = v.trim(), error = %e, "MENAGERIE_EVAL_WEIGHTS: cannot read the file; using the built-in weights");
                Override::None
            }
        },
        _ => Override::None,
    })
}

/// The hand-picked values of the terms that are one weight each.
const SCALAR_DEFAULTS: [(usize, i32); 29] = [
    (PAWN_RANK_MG, 4),
    (PAWN_CENTRAL_MG, 1),
    (PAWN_RANK2_EG, 2),
    (KING_RANK_MG, -14),
    (KING_CENTRE_MG, 2),
    (KING_CENTRE_EG, -4),
    (KING_PRESSURE_SQ, -25),
    (KING_PRESSURE_LIN, -3),
    (SHIELD_MG, 12),
    (BISHOP_PAIR_MG, 30),
    (BISHOP_PAIR_EG, 50),
    (ROOK_OPEN_MG, 25),
    (ROOK_OPEN_EG, 10),
    (ROOK_HALF_MG, 12),
    (ROOK_HALF_EG, 6),
    (DOUBLED_MG, -12),
    (DOUBLED_EG, -20),
    (ISOLATED_MG, -10),
    (ISOLATED_EG, -14),
    (LAST_CR_MG, -150),
    (LAST_CR_EG, -150),
    (TEMPO, 12),
    (THREAT_PAWN_MG, 50),
    (THREAT_PAWN_EG, 30),
    (HANGING_MG, 35),
    (HANGING_EG, 20),
    (CONNECTED_MG, 2),
    (CONNECTED_EG, 1),
    (PASSED_KING_EG, 2),
];

impl Weights {
    /// The hand-picked weights for variant `V` (the evaluation before tuning).
    pub fn defaults<V: Variant>() -> Weights {
        let mut v = Box::new([0i32; WEIGHT_COUNT]);
        for k in PieceKind::ALL {
            let i = k.idx();
            v[MAT_MG + i] = k.value();
            v[MAT_EG + i] = endgame_value(k);
            v[MOB_MG + i] = MOBILITY_MG[i];
            v[MOB_EG + i] = MOBILITY_EG[i];
            v[PST_MOB_MG + i] = 3;
            v[PST_MOB_EG + i] = 3;
            v[PST_CEN_MG + i] = -2;
            v[PST_CEN_EG + i] = -1;
        }
        for (i, x) in SCALAR_DEFAULTS {
            v[i] = x;
        }
        if let Some(g) = V::GATING {
            v[RESERVE_MG] = g.piece.value() * 9 / 10;
            v[RESERVE_EG] = endgame_value(g.piece) * 9 / 10;
        }
        for r in 0..RANKS {
            let r2 = (r * r) as i32;
            v[PASSED_MG + r] = r2 * 2;
            v[PASSED_EG + r] = r2 * 5 + 10;
        }
        Weights { values: v }
    }

    /// The weights `V` plays with: its tuned weights file over the defaults,
    /// or the defaults with `MENAGERIE_EVAL_WEIGHTS=default`, or the file
    /// `MENAGERIE_EVAL_WEIGHTS` names over the defaults.
    pub fn for_variant<V: Variant>() -> Weights {
        let defaults = Weights::defaults::<V>();
        match weights_override() {
            Override::Defaults => return defaults,
            Override::File(text) => match Weights::parse_over(defaults.clone(), text) {
                Ok(w) => return w,
                Err(e) => {
                    tracing::warn!(error = %e, "MENAGERIE_EVAL_WEIGHTS: bad weights file; using the built-in weights")
                }
            },
            Override::None => {}
        }
        // The embedded files are checked by a test; a bad one falls back.
        Weights::parse_over(defaults.clone(), embedded(V::ID)).unwrap_or(defaults)
    }

    /// Reads `name value` lines (blank lines and `#` comments allowed) over
    /// `base`: weights not named keep their value from `base`.
    pub fn parse_over(mut base: Weights, text: &str) -> Result<Weights, WeightsError> {
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let body = raw.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            let mut parts = body.split_whitespace();
            let (Some(name), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(WeightsError::Syntax { line });
            };
            let idx =
                Weights::index_of(name).ok_or_else(|| WeightsError::UnknownName { line, name: name.to_string() })?;
            let value = value.parse::<i32>().map_err(|_| WeightsError::BadValue { line, value: value.to_string() })?;
            base.values[idx] = value;
        }
        Ok(base)
    }

    /// The weights as `name value` lines: every weight that differs from
    /// `base` (all of them if `base` is `None`), in index order.
    pub fn to_text(&self, base: Option<&Weights>) -> String {
        let mut out = String::new();
        for i in 0..WEIGHT_COUNT {
            if base.is_some_and(|b| b.values[i] == self.values[i]) {
                continue;
            }
            let _ = writeln!(out, "{} {}", Weights::name(i), self.values[i]);
        }
        out
    }

    /// Number of weights.
    pub const fn len(&self) -> usize {
        WEIGHT_COUNT
    }

    /// Always false: there are weights.
    pub const fn is_empty(&self) -> bool {
        false
    }

    /// The value of weight `i`.
    pub fn get(&self, i: usize) -> i32 {
        self.values[i]
    }

    /// Sets weight `i`.
    pub fn set(&mut self, i: usize, value: i32) {
        self.values[i] = value;
    }

    /// All values, by index.
    pub fn values(&self) -> &[i32] {
        &self.values[..]
    }

    /// The phase weight `i` is scaled by.
    pub fn phase_of(i: usize) -> WeightPhase {
        match i {
            _ if i == TEMPO => WeightPhase::Flat,
            _ if i < SCALARS => {
                if (i / K) % 2 == 0 {
                    WeightPhase::Middlegame
                } else {
                    WeightPhase::Endgame
                }
            }
            PAWN_RANK2_EG | KING_CENTRE_EG | BISHOP_PAIR_EG | ROOK_OPEN_EG | ROOK_HALF_EG | DOUBLED_EG
            | ISOLATED_EG | RESERVE_EG | LAST_CR_EG | THREAT_PAWN_EG | HANGING_EG | CONNECTED_EG | PASSED_KING_EG
            | OUTPOST_KNIGHT_EG | OUTPOST_BISHOP_EG | OUTPOST_REACH_EG | THREAT_MINOR_EG | THREAT_ROOK_EG => {
                WeightPhase::Endgame
            }
            _ if i < PASSED_MG => WeightPhase::Middlegame,
            _ if i < PASSED_EG => WeightPhase::Middlegame,
            _ if i < PSQ_MG => WeightPhase::Endgame,
            _ if i < PSQ_EG => WeightPhase::Middlegame,
            _ => WeightPhase::Endgame,
        }
    }

    /// The name of weight `i` (e.g. `material_mg.Knight`, `passed_eg.5`,
    /// `psq_mg.Knight.27` for relative square 27, seen from White).
    pub fn name(i: usize) -> String {
        if i < SCALARS {
            let (off, group) = KIND_GROUPS[i / K];
            return format!("{group}.{}", PieceKind::ALL[i - off].name());
        }
        if i < PASSED_MG {
            return SCALAR_NAMES[i - SCALARS].to_string();
        }
        if i < PASSED_EG {
            return format!("passed_mg.{}", i - PASSED_MG);
        }
        if i < PSQ_MG {
            return format!("passed_eg.{}", i - PASSED_EG);
        }
        let (j, group) = if i < PSQ_EG { (i - PSQ_MG, "psq_mg") } else { (i - PSQ_EG, "psq_eg") };
        format!("{group}.{}.{}", PieceKind::ALL[j / SQ].name(), j % SQ)
    }

    /// The index of the weight named `name`.
    pub fn index_of(name: &str) -> Option<usize> {
        let kind = |s: &str| PieceKind::ALL.into_iter().find(|k| k.name() == s);
        let mut parts = name.split('.');
        let head = parts.next()?;
        let a = parts.next();
        let b = parts.next();
        if parts.next().is_some() {
            return None;
        }
        match (a, b) {
            (None, _) => SCALAR_NAMES.iter().position(|n| *n == head).map(|p| SCALARS + p),
            (Some(a), None) => {
                if let Some((off, _)) = KIND_GROUPS.iter().find(|(_, g)| *g == head) {
                    return Some(off + kind(a)?.idx());
                }
                let r: usize = a.parse().ok().filter(|r| *r < RANKS)?;
                match head {
                    "passed_mg" => Some(PASSED_MG + r),
                    "passed_eg" => Some(PASSED_EG + r),
                    _ => None,
                }
            }
            (Some(a), Some(b)) => {
                let k = kind(a)?.idx();
                let s: usize = b.parse().ok().filter(|s| *s < SQ)?;
                match head {
                    "psq_mg" => Some(PSQ_MG + k * SQ + s),
                    "psq_eg" => Some(PSQ_EG + k * SQ + s),
                    _ => None,
                }
            }
        }
    }

    /// The evaluation a [`Trace`] stands for under these weights, from
    /// White's point of view, in (fractional) centipawns.
    pub fn linear_eval(&self, trace: &Trace) -> f64 {
        let mg = trace.mg_fraction;
        let mut s = 0.0;
        for &(i, c) in &trace.terms {
            let i = i as usize;
            let f = match Weights::phase_of(i) {
                WeightPhase::Middlegame => mg,
                WeightPhase::Endgame => 1.0 - mg,
                WeightPhase::Flat => 1.0,
            };
            s += f * c as f64 * self.values[i] as f64;
        }
        s
    }
}

/// The evaluation of one position as a linear function of the weights:
/// White's score ≈ Σ coefficient × weight × (phase factor of the weight).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Middlegame share of the phase, 0 (bare endgame) to 1.
    pub mg_fraction: f64,
    /// (weight index, White's count minus Black's) for every weight used.
    pub terms: Vec<(u32, f32)>,
}

/// Receives the features of an evaluation.
trait Tracer {
    const ON: bool;
    fn feature(&mut self, c: Color, i: usize, count: f32);
}

struct NoTrace;

impl Tracer for NoTrace {
    const ON: bool = false;
    #[inline(always)]
    fn feature(&mut self, _c: Color, _i: usize, _count: f32) {}
}

struct Collect {
    dense: Vec<f32>,
}

impl Tracer for Collect {
    const ON: bool = true;
    fn feature(&mut self, c: Color, i: usize, count: f32) {
        self.dense[i] += if c == Color::White { count } else { -count };
    }
}

/// Base piece-square features of one square: (f0, f1, f2), see `EvalTables::new`.
type PstFeatures = [[i16; 3]; SQ];

/// Per-variant precomputed evaluation tables.
#[derive(Clone)]
pub struct EvalTables {
    /// `[color][kind][square]` → (middlegame, endgame) material plus square bonus.
    pst: Vec<[(i32, i32); SQ]>,
    /// `[color][kind][square]` → the derived features the square bonus scales.
    pst_features: Vec<PstFeatures>,
    /// Phase weight of each kind (0 for pawns and kings).
    phase_weight: [i32; K],
    /// Phase of the variant's start position.
    full_phase: i32,
    /// The weights.
    w: Weights,
    /// This set of tables among all built in the process (what a
    /// [`PawnCache`] holds terms of).
    id: u64,
    /// The game's network: when set, the search evaluates with it instead
    /// of the linear evaluation ([`EvalTables::with_network`]).
    pub(crate) nnue: Option<Arc<menagerie_nnue::Network>>,
}

/// The next [`EvalTables::id`].
static NEXT_TABLES_ID: AtomicU64 = AtomicU64::new(1);

/// Twice the distance of `sq` from the centre of `V`'s board (twice, so
/// that boards of even size work in integers): the larger of the file and
/// rank distances plus half their sum.
pub(crate) fn centre_distance<V: Variant>(sq: Square) -> i32 {
    type S<V> = <V as Variant>::Shape;
    let (files, ranks) = (S::<V>::FILES as i32, S::<V>::RANKS as i32);
    let f = (2 * S::<V>::file_of(sq).0 as i32 - (files - 1)).abs();
    let r = (2 * S::<V>::rank_of(sq).0 as i32 - (ranks - 1)).abs();
    f.max(r) + (f + r) / 2
}

impl EvalTables {
    /// Builds the tables for variant `V` with its weights ([`Weights::for_variant`]).
    pub fn new<V: Variant>() -> EvalTables {
        EvalTables::with_weights::<V>(Weights::for_variant::<V>())
    }

    /// The tables of variant `V` with its weights, built once per process
    /// and shared by every later search of the variant.
    pub fn shared<V: Variant>() -> Arc<EvalTables> {
        static BUILT: Mutex<Vec<(VariantId, Arc<EvalTables>)>> = Mutex::new(Vec::new());
        let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, t)) = built.iter().find(|(id, _)| *id == V::ID) {
            return t.clone();
        }
        let t = Arc::new(EvalTables::new::<V>());
        built.push((V::ID, t.clone()));
        t
    }

    /// These tables with `net` as the evaluation (the linear terms stay for
    /// move ordering, exchanges and pruning); `None`: the linear evaluation.
    /// The network must be the game's (`Network::check`).
    pub fn with_network(&self, net: Option<Arc<menagerie_nnue::Network>>) -> EvalTables {
        EvalTables { nnue: net, ..self.clone() }
    }

    /// The network the tables evaluate with, if any.
    pub fn network(&self) -> Option<&Arc<menagerie_nnue::Network>> {
        self.nnue.as_ref()
    }

    /// Builds the tables for variant `V` with weights `w`.
    pub fn with_weights<V: Variant>(w: Weights) -> EvalTables {
        type S<V> = <V as Variant>::Shape;
        let files = S::<V>::FILES as i32;
        let ranks = S::<V>::RANKS as i32;
        let n = S::<V>::SQUARES as usize;
        let mut pst = vec![[(0i32, 0i32); SQ]; 2 * K];
        let mut pst_features = vec![[[0i16; 3]; SQ]; 2 * K];
        let centre = centre_distance::<V>;
        for kind in PieceKind::ALL {
            if !V::has(kind) {
                continue;
            }
            let ki = kind.idx();
            for c in Color::ALL {
                let piece = Piece::new(c, kind);
                let mob = open_board_mobility::<V>(piece);
                let avg = mob.iter().sum::<i32>() / n as i32;
                let table = &mut pst[c.idx() * K + ki];
                let feats = &mut pst_features[c.idx() * K + ki];
                for s in 0..n {
                    let sq = Square(s as u8);
                    let rel_rank = match c {
                        Color::White => S::<V>::rank_of(sq).0 as i32,
                        Color::Black => ranks - 1 - S::<V>::rank_of(sq).0 as i32,
                    };
                    let rel_sq = (rel_rank * files + S::<V>::file_of(sq).0 as i32) as usize;
                    let cd = centre(sq);
                    let (f, mg, eg) = match kind {
                        PieceKind::Pawn => {
                            let file = S::<V>::file_of(sq).0 as i32;
                            let central = files / 2 - (2 * file - (files - 1)).abs() / 2;
                            let f = [rel_rank, central * rel_rank.min(4), rel_rank * rel_rank];
                            (
                                f,
                                w.values[PAWN_RANK_MG] * f[0] + w.values[PAWN_CENTRAL_MG] * f[1],
                                w.values[PAWN_RANK2_EG] * f[2],
                            )
                        }
                        // Shelter on the back rank, away from the centre files.
                        PieceKind::King => {
                            let f = [rel_rank, cd, 0];
                            (
                                f,
                                w.values[KING_RANK_MG] * f[0] + w.values[KING_CENTRE_MG] * f[1],
                                w.values[KING_CENTRE_EG] * f[1],
                            )
                        }
                        _ => {
                            let f = [mob[s] - avg, cd, 0];
                            (
                                f,
                                w.values[PST_MOB_MG + ki] * f[0] + w.values[PST_CEN_MG + ki] * f[1],
                                w.values[PST_MOB_EG + ki] * f[0] + w.values[PST_CEN_EG + ki] * f[1],
                            )
                        }
                    };
                    feats[s] = f.map(|x| x as i16);
                    table[s] = (
                        w.values[MAT_MG + ki] + mg + w.values[PSQ_MG + ki * SQ + rel_sq],
                        w.values[MAT_EG + ki] + eg + w.values[PSQ_EG + ki * SQ + rel_sq],
                    );
                }
            }
        }
        let mut phase_weight = [0; K];
        for k in PieceKind::ALL {
            phase_weight[k.idx()] = match k {
                PieceKind::Pawn | PieceKind::King => 0,
                k => (k.value() + 50) / 100,
            };
        }
        let full_phase: i32 = V::start_pieces().iter().map(|(_, p)| phase_weight[p.kind.idx()]).sum::<i32>().max(1);
        let id = NEXT_TABLES_ID.fetch_add(1, Ordering::Relaxed);
        EvalTables { pst, pst_features, phase_weight, full_phase, w, id, nnue: None }
    }

    /// The weights in use.
    pub fn weights(&self) -> &Weights {
        &self.w
    }

    #[inline(always)]
    fn pst(&self, p: Piece, sq: Square) -> (i32, i32) {
        self.pst[p.color.idx() * K + p.kind.idx()][sq.idx()]
    }

    /// Static evaluation from the side to move's point of view.
    pub fn evaluate<V: Variant>(&self, pos: &Position<V>) -> Value {
        self.eval_traced(pos, &mut NoTrace, None)
    }

    /// [`EvalTables::evaluate`], with the pawn-structure terms taken from
    /// `cache` when it holds them (and kept there when it does not). A
    /// cache that held another set of tables' terms forgets them first.
    pub fn evaluate_cached<V: Variant>(&self, pos: &Position<V>, cache: &mut PawnCache<V>) -> Value {
        self.eval_traced(pos, &mut NoTrace, Some(cache))
    }

    /// The evaluation of `pos` as a linear function of the weights. With
    /// these tables' weights, [`Weights::linear_eval`] of the trace equals
    /// [`EvalTables::evaluate`] from White's point of view up to integer
    /// rounding (a few centipawns).
    pub fn trace<V: Variant>(&self, pos: &Position<V>) -> Trace {
        let mut t = Collect { dense: vec![0.0; WEIGHT_COUNT] };
        self.eval_traced(pos, &mut t, None);
        let phase = self.phase(pos);
        let tempo = if pos.side_to_move() == Color::White { 1.0 } else { -1.0 };
        t.dense[TEMPO] += tempo;
        let terms =
            t.dense.iter().enumerate().filter(|(_, c)| **c != 0.0).map(|(i, c)| (i as u32, *c)).collect::<Vec<_>>();
        Trace { mg_fraction: phase as f64 / self.full_phase as f64, terms }
    }

    /// The phase of `pos`, 0..=full_phase.
    fn phase<V: Variant>(&self, pos: &Position<V>) -> i32 {
        let mut phase = 0;
        for kind in PieceKind::ALL {
            if V::has(kind) {
                phase += self.phase_weight[kind.idx()] * pos.kind(kind).popcnt() as i32;
            }
        }
        phase.min(self.full_phase)
    }

    #[inline(always)]
    fn eval_traced<V: Variant, T: Tracer>(
        &self,
        pos: &Position<V>,
        t: &mut T,
        cache: Option<&mut PawnCache<V>>,
    ) -> Value {
        type S<V> = <V as Variant>::Shape;
        let w = &self.w.values;
        let occ = pos.occupied();
        let tables = S::<V>::pieces();
        let mut mg = [0i32; 2];
        let mut eg = [0i32; 2];
        let mut phase = 0;
        let mut king_pressure = [0i32; 2];
        let kings = [pos.king(Color::White), pos.king(Color::Black)];
        let zones =
            kings.map(|k| tables.leap_attacks(Piece::new(Color::White, PieceKind::King), k) | BitsOf::<V>::bit(k));
        // What the pawns alone decide (their attacks, outposts, structure).
        let pawn_info = match cache {
            Some(cache) if !T::ON && V::has(PieceKind::Pawn) => cache.get(self.id, pos, || self.pawn_info(pos, t)),
            _ => self.pawn_info(pos, t),
        };
        // Squares each side's pawns attack, and everything each side attacks.
        let pawn_att = pawn_info.attacks;
        let mut attacked = [
            zones[0] & !BitsOf::<V>::bit(kings[0]) | pawn_att[0],
            zones[1] & !BitsOf::<V>::bit(kings[1]) | pawn_att[1],
        ];
        // Squares attacked by pawns and pieces (not the king); by knights,
        // bishops, rooks and queens; the attack on the enemy king.
        let mut by_pieces = pawn_att;
        let mut by_class = [[BitsOf::<V>::ZERO; 4]; 2];
        let mut danger = [KingDanger::default(); 2];
        // Enemy pieces worth a rook or more, and a queen or more (threats by
        // lesser pieces), and the outpost squares of each side.
        let royal = pos.kind(PieceKind::King);
        let mut heavy = [BitsOf::<V>::ZERO; 2];
        let mut queens = [BitsOf::<V>::ZERO; 2];
        for kind in PieceKind::ALL {
            if V::has(kind) && kind != PieceKind::King && kind.value() >= 450 {
                for c in Color::ALL {
                    let b = pos.pieces(Piece::new(c, kind));
                    heavy[c.idx()] |= b;
                    if kind.value() >= 800 {
                        queens[c.idx()] |= b;
                    }
                }
            }
        }
        let outposts = pawn_info.outposts;
        for c in Color::ALL {
            let own = pos.color(c);
            let them = c.flip().idx();
            for kind in PieceKind::ALL {
                // The pawns' material and squares are in `pawn_info`.
                if !V::has(kind) || kind == PieceKind::Pawn {
                    continue;
                }
                let ki = kind.idx();
                let piece = Piece::new(c, kind);
                for sq in pos.pieces(piece).iter() {
                    let (a, b) = self.pst(piece, sq);
                    mg[c.idx()] += a;
                    eg[c.idx()] += b;
                    phase += self.phase_weight[ki];
                    if T::ON {
                        self.trace_square::<V, T>(t, piece, sq);
                    }
                    if kind == PieceKind::King {
                        continue;
                    }
                    let att = match kind {
                        PieceKind::Knight | PieceKind::Zebra => tables.leap_attacks(piece, sq),
                        PieceKind::Bishop => S::<V>::bishop_attacks(sq, occ),
                        PieceKind::Rook => S::<V>::rook_attacks(sq, occ),
                        PieceKind::Queen => S::<V>::queen_attacks(sq, occ),
                        PieceKind::Alseid => BitsOf::<V>::ZERO,
                        _ => tables.leap_attacks(piece, sq),
                    };
                    let reach = if kind == PieceKind::Alseid || kind == PieceKind::Alpaca {
                        (att & !own) | S::<V>::quiet_moves(piece, sq, occ)
                    } else {
                        att & !own
                    };
                    attacked[c.idx()] |= att;
                    by_pieces[c.idx()] |= att;
                    match kind {
                        PieceKind::Knight => by_class[c.idx()][0] |= att,
                        PieceKind::Bishop => by_class[c.idx()][1] |= att,
                        PieceKind::Rook => by_class[c.idx()][2] |= att,
                        PieceKind::Queen => by_class[c.idx()][3] |= att,
                        _ => {}
                    }
                    let m = reach.popcnt() as i32;
                    mg[c.idx()] += m * w[MOB_MG + ki];
                    eg[c.idx()] += m * w[MOB_EG + ki];
                    if T::ON {
                        t.feature(c, MOB_MG + ki, m as f32);
                        t.feature(c, MOB_EG + ki, m as f32);
                    }
                    // Threats on more valuable pieces, outposts.
                    let threats = match kind.value() {
                        ..450 => Some((THREAT_MINOR_MG, THREAT_MINOR_EG, (att & heavy[them]).popcnt() as i32)),
                        450..800 => Some((THREAT_ROOK_MG, THREAT_ROOK_EG, (att & queens[them]).popcnt() as i32)),
                        _ => None,
                    };
                    if let Some((im, ie, n)) = threats
                        && n > 0
                    {
                        mg[c.idx()] += n * w[im];
                        eg[c.idx()] += n * w[ie];
                        if T::ON {
                            t.feature(c, im, n as f32);
                            t.feature(c, ie, n as f32);
                        }
                    }
                    if matches!(kind, PieceKind::Knight | PieceKind::Bishop) {
                        let (im, ie) = if outposts[c.idx()].has(sq) {
                            if kind == PieceKind::Knight {
                                (OUTPOST_KNIGHT_MG, OUTPOST_KNIGHT_EG)
                            } else {
                                (OUTPOST_BISHOP_MG, OUTPOST_BISHOP_EG)
                            }
                        } else if kind == PieceKind::Knight && !(att & outposts[c.idx()] & !own).is_empty() {
                            (OUTPOST_REACH_MG, OUTPOST_REACH_EG)
                        } else {
                            (0, 0)
                        };
                        if im != 0 {
                            mg[c.idx()] += w[im];
                            eg[c.idx()] += w[ie];
                            if T::ON {
                                t.feature(c, im, 1.0);
                                t.feature(c, ie, 1.0);
                            }
                        }
                    }
                    let hits = (att & zones[them]).popcnt() as i32;
                    if hits > 0 {
                        king_pressure[them] += hits * (kind.value() / 100 + 1);
                        let d = &mut danger[c.idx()];
                        d.counts[match kind.value() {
                            ..450 => 0,
                            450..800 => 1,
                            _ => 2,
                        }] += 1;
                        d.counts[3] += hits;
                        d.attackers += 1;
                    }
                }
            }
        }
        // King danger (Stockfish's classical model): units from the
        // attackers, the attacked and weak zone squares and the safe checks,
        // squared; only with two attackers, or one and a queen.
        for c in Color::ALL {
            let them = c.flip().idx();
            let d = &mut danger[c.idx()];
            let has_queen = V::has(PieceKind::Queen) && !pos.pieces(Piece::new(c, PieceKind::Queen)).is_empty();
            if d.attackers + i32::from(has_queen) < 2 {
                continue;
            }
            let ksq = kings[them];
            let safe = !attacked[them] & !pos.color(c);
            d.counts[4] = (zones[them] & attacked[c.idx()] & !by_pieces[them]).popcnt() as i32;
            let checks = [
                if V::has(PieceKind::Knight) {
                    tables.leap_attacks(Piece::new(c.flip(), PieceKind::Knight), ksq)
                } else {
                    BitsOf::<V>::ZERO
                },
                S::<V>::bishop_attacks(ksq, occ),
                S::<V>::rook_attacks(ksq, occ),
                S::<V>::queen_attacks(ksq, occ),
            ];
            for (j, from) in checks.into_iter().enumerate() {
                d.counts[5 + j] = ((from & by_class[c.idx()][j] & safe).popcnt() as i32).min(2);
            }
            d.counts[9] = i32::from(V::has(PieceKind::Queen) && !has_queen);
            d.counts[10] = 1;
            let fixed: i32 = KD_UNITS.iter().zip(d.counts).map(|(u, n)| u * n).sum();
            if fixed <= 0 {
                continue;
            }
            let units: i32 = KD_WEIGHTS.iter().zip(d.counts).map(|(&i, n)| w[i] * n).sum();
            mg[c.idx()] += (i64::from(units) * i64::from(fixed) / i64::from(KING_DANGER_DIV)) as i32;
            if T::ON {
                let scale = fixed as f32 / KING_DANGER_DIV as f32;
                for (&i, n) in KD_WEIGHTS.iter().zip(d.counts) {
                    t.feature(c, i, n as f32 * scale);
                }
            }
        }
        // King safety: pressure on the zone, and pawns sheltering the king.
        for c in Color::ALL {
            let p = king_pressure[c.idx()];
            mg[c.idx()] += p * p * w[KING_PRESSURE_SQ] / PRESSURE_SQ_DIV + p * w[KING_PRESSURE_LIN];
            let shield = (pos.pieces(Piece::new(c, PieceKind::Pawn)) & zones[c.idx()]).popcnt() as i32;
            mg[c.idx()] += shield * w[SHIELD_MG];
            if T::ON {
                t.feature(c, KING_PRESSURE_SQ, (p * p) as f32 / PRESSURE_SQ_DIV as f32);
                t.feature(c, KING_PRESSURE_LIN, p as f32);
                t.feature(c, SHIELD_MG, shield as f32);
            }
        }
        // Threats: enemy pieces attacked by pawns, and undefended ones attacked at all.
        for c in Color::ALL {
            let them = c.flip().idx();
            let targets = pos.color(c.flip()) & !royal & !pos.kind(PieceKind::Pawn);
            let by_pawn = (targets & pawn_att[c.idx()]).popcnt() as i32;
            let hanging = (targets & attacked[c.idx()] & !attacked[them]).popcnt() as i32;
            mg[c.idx()] += by_pawn * w[THREAT_PAWN_MG] + hanging * w[HANGING_MG];
            eg[c.idx()] += by_pawn * w[THREAT_PAWN_EG] + hanging * w[HANGING_EG];
            if T::ON {
                t.feature(c, THREAT_PAWN_MG, by_pawn as f32);
                t.feature(c, THREAT_PAWN_EG, by_pawn as f32);
                t.feature(c, HANGING_MG, hanging as f32);
                t.feature(c, HANGING_EG, hanging as f32);
            }
        }
        // Space: safe squares in the centre files of our side, more with pieces on the board.
        if V::has(PieceKind::Pawn) && (w[SPACE_MG] != 0 || T::ON) {
            for c in Color::ALL {
                let v = space(pos, c, pawn_info.space[c.idx()], attacked[c.flip().idx()]);
                mg[c.idx()] += v * w[SPACE_MG] / SPACE_DIV;
                if T::ON {
                    t.feature(c, SPACE_MG, v as f32 / SPACE_DIV as f32);
                }
            }
        }
        // Bishop pair; rooks on open and half-open files.
        for c in Color::ALL {
            if pos.pieces(Piece::new(c, PieceKind::Bishop)).many() {
                mg[c.idx()] += w[BISHOP_PAIR_MG];
                eg[c.idx()] += w[BISHOP_PAIR_EG];
                if T::ON {
                    t.feature(c, BISHOP_PAIR_MG, 1.0);
                    t.feature(c, BISHOP_PAIR_EG, 1.0);
                }
            }
            let own_pawns = pos.pieces(Piece::new(c, PieceKind::Pawn));
            let all_pawns = pos.kind(PieceKind::Pawn);
            for sq in pos.pieces(Piece::new(c, PieceKind::Rook)).iter() {
                let file = S::<V>::file_mask(S::<V>::file_of(sq));
                let (m, e) = if (file & all_pawns).is_empty() {
                    (ROOK_OPEN_MG, ROOK_OPEN_EG)
                } else if (file & own_pawns).is_empty() {
                    (ROOK_HALF_MG, ROOK_HALF_EG)
                } else {
                    continue;
                };
                mg[c.idx()] += w[m];
                eg[c.idx()] += w[e];
                if T::ON {
                    t.feature(c, m, 1.0);
                    t.feature(c, e, 1.0);
                }
            }
        }
        // Pawn structure; passed pawns by the kings' distances (endgame).
        if V::has(PieceKind::Pawn) {
            let ranks = S::<V>::RANKS as i32;
            for c in Color::ALL {
                mg[c.idx()] += pawn_info.mg[c.idx()];
                eg[c.idx()] += pawn_info.eg[c.idx()];
                for sq in pawn_info.passed[c.idx()].iter() {
                    let (f, r) = (S::<V>::file_of(sq).0 as i32, S::<V>::rank_of(sq).0 as i32);
                    let rel = if c == Color::White { r } else { ranks - 1 - r };
                    let step = if c == Color::White { 1 } else { -1 };
                    if rel > 2 && (0..ranks).contains(&(r + step)) {
                        // The kings' distances to the square in front.
                        let dist = |k: Square| {
                            let (kf, kr) = (S::<V>::file_of(k).0 as i32, S::<V>::rank_of(k).0 as i32);
                            (kf - f).abs().max((kr - r - step).abs())
                        };
                        let v = (5 * dist(kings[c.flip().idx()]) - 2 * dist(kings[c.idx()])) * (rel - 2);
                        eg[c.idx()] += v * w[PASSED_KING_EG];
                        if T::ON {
                            t.feature(c, PASSED_KING_EG, v as f32);
                        }
                    }
                }
            }
        }
        // Reserve pieces (in hand or behind live gates) are material to come.
        if V::GATING.is_some() {
            for c in Color::ALL {
                let n = pos.gates().reserve_count(c) as i32;
                mg[c.idx()] += n * w[RESERVE_MG];
                eg[c.idx()] += n * w[RESERVE_EG];
                if T::ON {
                    t.feature(c, RESERVE_MG, n as f32);
                    t.feature(c, RESERVE_EG, n as f32);
                }
            }
        }
        // Camel and Rhino Chess: the last Camel/Rhino is the whole game.
        if V::CAMEL_RHINO_LOSS {
            for c in Color::ALL {
                let n = (pos.color(c) & (pos.kind(PieceKind::Camel) | pos.kind(PieceKind::Rhino))).popcnt();
                if n == 1 {
                    mg[c.idx()] += w[LAST_CR_MG];
                    eg[c.idx()] += w[LAST_CR_EG];
                    if T::ON {
                        t.feature(c, LAST_CR_MG, 1.0);
                        t.feature(c, LAST_CR_EG, 1.0);
                    }
                }
            }
        }
        let phase = phase.min(self.full_phase);
        let score = ((mg[0] - mg[1]) * phase + (eg[0] - eg[1]) * (self.full_phase - phase)) / self.full_phase;
        let us = pos.side_to_move();
        (if us == Color::White { score } else { -score }) + w[TEMPO]
    }

    /// Records the material and square features of `piece` on `sq`.
    fn trace_square<V: Variant, T: Tracer>(&self, t: &mut T, piece: Piece, sq: Square) {
        type S<V> = <V as Variant>::Shape;
        let (c, kind) = (piece.color, piece.kind);
        let ki = kind.idx();
        let f = self.pst_features[c.idx() * K + ki][sq.idx()].map(f32::from);
        t.feature(c, MAT_MG + ki, 1.0);
        t.feature(c, MAT_EG + ki, 1.0);
        match kind {
            PieceKind::Pawn => {
                t.feature(c, PAWN_RANK_MG, f[0]);
                t.feature(c, PAWN_CENTRAL_MG, f[1]);
                t.feature(c, PAWN_RANK2_EG, f[2]);
            }
            PieceKind::King => {
                t.feature(c, KING_RANK_MG, f[0]);
                t.feature(c, KING_CENTRE_MG, f[1]);
                t.feature(c, KING_CENTRE_EG, f[1]);
            }
            _ => {
                t.feature(c, PST_MOB_MG + ki, f[0]);
                t.feature(c, PST_MOB_EG + ki, f[0]);
                t.feature(c, PST_CEN_MG + ki, f[1]);
                t.feature(c, PST_CEN_EG + ki, f[1]);
            }
        }
        let files = S::<V>::FILES as usize;
        let ranks = S::<V>::RANKS as usize;
        let (file, rank) = (S::<V>::file_of(sq).0 as usize, S::<V>::rank_of(sq).0 as usize);
        let rel_rank = if c == Color::White { rank } else { ranks - 1 - rank };
        let rel_sq = rel_rank * files + file;
        t.feature(c, PSQ_MG + ki * SQ + rel_sq, 1.0);
        t.feature(c, PSQ_EG + ki * SQ + rel_sq, 1.0);
    }

    /// The terms the pawns alone decide: their attacks, the outposts, their
    /// material, squares and structure as a score, the passed pawns and the
    /// space term's squares.
    fn pawn_info<V: Variant, T: Tracer>(&self, pos: &Position<V>, t: &mut T) -> PawnInfo<BitsOf<V>> {
        type S<V> = <V as Variant>::Shape;
        let mut info = PawnInfo::EMPTY;
        if !V::has(PieceKind::Pawn) {
            return info;
        }
        for c in Color::ALL {
            let pawn = Piece::new(c, PieceKind::Pawn);
            for sq in pos.pieces(pawn).iter() {
                // Pawn attacks do not depend on the occupancy (a test checks it).
                info.attacks[c.idx()] |= S::<V>::attacks(pawn, sq, BitsOf::<V>::ZERO);
                let (a, b) = self.pst(pawn, sq);
                info.mg[c.idx()] += a;
                info.eg[c.idx()] += b;
                if T::ON {
                    self.trace_square::<V, T>(t, pawn, sq);
                }
            }
        }
        for c in Color::ALL {
            let i = c.idx();
            info.outposts[i] = outpost_squares(pos, c, info.attacks[i]);
            info.space[i] = space_squares(pos, c, info.attacks[c.flip().idx()]);
            let (mg, eg, passed) = self.pawn_structure(pos, c, info.attacks[i], t);
            info.mg[i] += mg;
            info.eg[i] += eg;
            info.passed[i] = passed;
        }
        info
    }

    fn pawn_structure<V: Variant, T: Tracer>(
        &self,
        pos: &Position<V>,
        c: Color,
        pawn_att: BitsOf<V>,
        t: &mut T,
    ) -> (i32, i32, BitsOf<V>) {
        type S<V> = <V as Variant>::Shape;
        let w = &self.w.values;
        let pawns = pos.pieces(Piece::new(c, PieceKind::Pawn));
        let enemy_pawns = pos.pieces(Piece::new(c.flip(), PieceKind::Pawn));
        let files = S::<V>::FILES;
        // Pawns defended by a pawn or standing beside one.
        let beside =
            ((pawns << 1) & !S::<V>::file_mask(File(0))) | ((pawns >> 1) & !S::<V>::file_mask(File(files - 1)));
        let connected = pawns & (pawn_att | beside);
        let ranks = S::<V>::RANKS as i32;
        let (mut mg, mut eg, mut passed) = (0, 0, BitsOf::<V>::ZERO);
        for f in 0..files {
            let fm = S::<V>::file_mask(File(f));
            let n = (pawns & fm).popcnt() as i32;
            if n == 0 {
                continue;
            }
            let adj = adjacent_files::<V>(f);
            if n > 1 {
                mg += w[DOUBLED_MG] * (n - 1);
                eg += w[DOUBLED_EG] * (n - 1);
                if T::ON {
                    t.feature(c, DOUBLED_MG, (n - 1) as f32);
                    t.feature(c, DOUBLED_EG, (n - 1) as f32);
                }
            }
            if (pawns & adj).is_empty() {
                mg += w[ISOLATED_MG] * n;
                eg += w[ISOLATED_EG] * n;
                if T::ON {
                    t.feature(c, ISOLATED_MG, n as f32);
                    t.feature(c, ISOLATED_EG, n as f32);
                }
            }
            for sq in (pawns & fm).iter() {
                let r = S::<V>::rank_of(sq).0 as i32;
                let rel = if c == Color::White { r } else { ranks - 1 - r };
                if connected.has(sq) {
                    let v = rel * rel + 2;
                    mg += v * w[CONNECTED_MG];
                    eg += v * w[CONNECTED_EG];
                    if T::ON {
                        t.feature(c, CONNECTED_MG, v as f32);
                        t.feature(c, CONNECTED_EG, v as f32);
                    }
                }
                let ahead = ahead_of::<V>(c, r, fm | adj);
                if (enemy_pawns & ahead).is_empty() {
                    passed |= BitsOf::<V>::bit(sq);
                    let rel = (rel as usize).min(RANKS - 1);
                    mg += w[PASSED_MG + rel];
                    eg += w[PASSED_EG + rel];
                    if T::ON {
                        t.feature(c, PASSED_MG + rel, 1.0);
                        t.feature(c, PASSED_EG + rel, 1.0);
                    }
                }
            }
        }
        (mg, eg, passed)
    }
}

/// What the evaluation takes from the pawns alone, per side: the squares
/// the pawns attack, the outpost squares, the pawns' material, squares and
/// structure as a middlegame and endgame score (without the kings'
/// distances to passed pawns) and
/// the passed pawns, and the space term's squares ([`space_squares`]).
#[derive(Clone, Copy)]
struct PawnInfo<B> {
    attacks: [B; 2],
    outposts: [B; 2],
    passed: [B; 2],
    space: [[B; 2]; 2],
    mg: [i32; 2],
    eg: [i32; 2],
}

impl<B: Bits> PawnInfo<B> {
    const EMPTY: Self = PawnInfo {
        attacks: [B::ZERO; 2],
        outposts: [B::ZERO; 2],
        passed: [B::ZERO; 2],
        space: [[B::ZERO; 2]; 2],
        mg: [0; 2],
        eg: [0; 2],
    };
}

/// Entries of a [`PawnCache`] (a power of two).
const PAWN_CACHE_ENTRIES: usize = 8192;

/// The pawn-structure terms of recent positions, by the squares of both
/// sides' pawns: a search thread's memory for [`EvalTables::evaluate_cached`]
/// (empty, and without memory, until first used).
pub struct PawnCache<V: Variant> {
    /// The [`EvalTables::id`] of the tables the entries were computed with
    /// (0: none).
    tables: u64,
    /// `(key, terms)`; key 0 is an empty entry.
    entries: Vec<(u64, PawnInfo<BitsOf<V>>)>,
}

impl<V: Variant> Default for PawnCache<V> {
    fn default() -> Self {
        PawnCache { tables: 0, entries: Vec::new() }
    }
}

impl<V: Variant> PawnCache<V> {
    /// The terms of `pos`'s pawns under the tables `tables`: from the
    /// cache, else from `compute` (then kept).
    #[inline]
    fn get(
        &mut self,
        tables: u64,
        pos: &Position<V>,
        compute: impl FnOnce() -> PawnInfo<BitsOf<V>>,
    ) -> PawnInfo<BitsOf<V>> {
        if self.tables != tables {
            self.entries.clear();
            self.entries.resize(PAWN_CACHE_ENTRIES, (0, PawnInfo::EMPTY));
            self.tables = tables;
        }
        let pawns = pos.kind(PieceKind::Pawn);
        let white = (pawns & pos.color(Color::White)).to_u128();
        let black = (pawns & pos.color(Color::Black)).to_u128();
        // Never 0 (the empty entry); the slot from the high bits.
        let key = crate::position::pawn_sets_key(white, black) | 1;
        let entry = &mut self.entries[(key >> 32) as usize & (PAWN_CACHE_ENTRIES - 1)];
        if entry.0 != key {
            *entry = (key, compute());
        }
        entry.1
    }
}

/// The one or two files beside file `f`.
#[inline]
/// The squares `piece` reaches from each square of an empty board.
fn open_board_mobility<V: Variant>(piece: Piece) -> Vec<i32> {
    type S<V> = <V as Variant>::Shape;
    (0..S::<V>::SQUARES as usize)
        .map(|s| {
            let sq = Square(s as u8);
            (S::<V>::attacks(piece, sq, BitsOf::<V>::ZERO) | S::<V>::quiet_moves(piece, sq, BitsOf::<V>::ZERO)).popcnt()
                as i32
        })
        .collect()
}

/// The squares of `files` ahead of rank `r` for `c`'s pawns (a pawn there
/// is passed when no enemy pawn stands on them, its file and the adjacent).
fn ahead_of<V: Variant>(c: Color, r: i32, files: BitsOf<V>) -> BitsOf<V> {
    type S<V> = <V as Variant>::Shape;
    let width = S::<V>::FILES as u32;
    let above = |n: u32| if n >= BitsOf::<V>::WIDTH { BitsOf::<V>::ZERO } else { S::<V>::ALL << n };
    files
        & match c {
            Color::White => above((r as u32 + 1) * width),
            Color::Black => !above(r as u32 * width) & S::<V>::ALL,
        }
}

fn adjacent_files<V: Variant>(f: u8) -> BitsOf<V> {
    type S<V> = <V as Variant>::Shape;
    let mut adj = BitsOf::<V>::ZERO;
    if f > 0 {
        adj |= S::<V>::file_mask(File(f - 1));
    }
    if f + 1 < S::<V>::FILES {
        adj |= S::<V>::file_mask(File(f + 1));
    }
    adj
}

/// The squares of ranks 4-6 (counted from `c`'s side; the ranks from just
/// below the middle to three before the last on other boards) that a pawn
/// of `c` guards (`pawn_att`) and no enemy pawn can ever attack.
fn outpost_squares<V: Variant>(pos: &Position<V>, c: Color, pawn_att: BitsOf<V>) -> BitsOf<V> {
    type S<V> = <V as Variant>::Shape;
    let files = S::<V>::FILES;
    let ranks = S::<V>::RANKS;
    let mut band = BitsOf::<V>::ZERO;
    for rel in (ranks / 2).saturating_sub(1)..ranks.saturating_sub(2) {
        let r = if c == Color::White { rel } else { ranks - 1 - rel };
        band |= S::<V>::rank_mask(menagerie_geometry::Rank(r));
    }
    let candidates = band & pawn_att;
    if candidates.is_empty() {
        return candidates;
    }
    // Every square an enemy pawn attacks now or after advancing.
    let above = |n: u32| if n >= BitsOf::<V>::WIDTH { BitsOf::<V>::ZERO } else { S::<V>::ALL << n };
    let mut span = BitsOf::<V>::ZERO;
    for sq in pos.pieces(Piece::new(c.flip(), PieceKind::Pawn)).iter() {
        let f = S::<V>::file_of(sq).0;
        let r = S::<V>::rank_of(sq).0 as u32;
        let adj = adjacent_files::<V>(f);
        // The enemy's pawns advance towards `c`'s side.
        span |= adj
            & match c {
                Color::White => !above(r * files as u32) & S::<V>::ALL,
                Color::Black => above((r + 1) * files as u32),
            };
    }
    candidates & !span
}

/// The squares of Stockfish's space term for `c` that the pawns decide:
/// the squares of the four centre files on ranks 2-4 (from `c`'s side) that
/// hold no pawn of `c` and no enemy pawn attacks (`enemy_pawn_att`), and
/// those of them up to three squares behind a pawn of `c` (which count
/// twice where the enemy does not attack them at all). See [`space`].
fn space_squares<V: Variant>(pos: &Position<V>, c: Color, enemy_pawn_att: BitsOf<V>) -> [BitsOf<V>; 2] {
    type S<V> = <V as Variant>::Shape;
    let files = S::<V>::FILES;
    let ranks = S::<V>::RANKS;
    if files < 4 || ranks < 5 {
        return [BitsOf::<V>::ZERO; 2];
    }
    let mut area = BitsOf::<V>::ZERO;
    for f in files / 2 - 2..files / 2 + 2 {
        area |= S::<V>::file_mask(File(f));
    }
    let mut rows = BitsOf::<V>::ZERO;
    for rel in 1..4 {
        let r = if c == Color::White { rel } else { ranks - 1 - rel };
        rows |= S::<V>::rank_mask(menagerie_geometry::Rank(r));
    }
    let pawns = pos.pieces(Piece::new(c, PieceKind::Pawn));
    let safe = area & rows & !pawns & !enemy_pawn_att;
    let w = files as u32;
    let behind = match c {
        Color::White => (pawns >> w) | (pawns >> (2 * w)) | (pawns >> (3 * w)),
        Color::Black => ((pawns << w) | (pawns << (2 * w)) | (pawns << (3 * w))) & S::<V>::ALL,
    };
    [safe, behind & safe]
}

/// Stockfish's space term for `c`: the safe squares of [`space_squares`]
/// (`squares`), those behind a pawn and not attacked by the enemy at all
/// (`enemy_att`) counted twice, times (pieces of `c` − 3)²; 0 with three
/// pieces or fewer.
fn space<V: Variant>(pos: &Position<V>, c: Color, squares: [BitsOf<V>; 2], enemy_att: BitsOf<V>) -> i32 {
    let weight = pos.color(c).popcnt() as i32 - 3;
    if weight <= 0 {
        return 0;
    }
    let [safe, behind] = squares;
    let bonus = safe.popcnt() as i32 + (behind & !enemy_att).popcnt() as i32;
    bonus * weight * weight
}

#[cfg(test)]
mod tests {
    use super::*;
    use menagerie_variants::{AnyPosition, PositionVisitor};

    /// The evaluation before the weights became data, verbatim.
    mod legacy {
        #![allow(dead_code)]
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
                let centre = crate::eval::centre_distance::<V>;
                for kind in PieceKind::ALL {
                    if !V::has(kind) {
                        continue;
                    }
                    for c in Color::ALL {
                        let piece = Piece::new(c, kind);
                        let mob = super::open_board_mobility::<V>(piece);
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
                let full_phase: i32 =
                    V::start_pieces().iter().map(|(_, p)| phase_weight[p.kind.idx()]).sum::<i32>().max(1);
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
                let zones = kings.map(|k| {
                    S::<V>::pieces().leap_attacks(Piece::new(Color::White, PieceKind::King), k) | BitsOf::<V>::bit(k)
                });
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
                let adj = super::super::adjacent_files::<V>(f);
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
                    let ahead = super::super::ahead_of::<V>(c, r, fm | adj);
                    if (enemy_pawns & ahead).is_empty() {
                        mg += rel * rel * 2;
                        eg += rel * rel * 5 + 10;
                    }
                }
            }
            (mg, eg)
        }
    }

    struct Check<'a> {
        new: &'a EvalTables,
        old: &'a legacy::EvalTables,
    }

    impl PositionVisitor for Check<'_> {
        type Output = (i32, i32, f64);
        fn visit<V: Variant>(self, pos: &Position<V>) -> (i32, i32, f64) {
            let white = if pos.side_to_move() == Color::White { 1 } else { -1 };
            let lin = self.new.weights().linear_eval(&self.new.trace(pos));
            (self.new.evaluate(pos), self.old.evaluate(pos), lin * white as f64)
        }
    }

    /// The defaults without the terms added after the legacy evaluation
    /// (threats), which the legacy code has no counterpart for.
    fn legacy_weights<V: Variant>() -> Weights {
        let mut w = Weights::defaults::<V>();
        for i in [THREAT_PAWN_MG, THREAT_PAWN_EG, HANGING_MG, HANGING_EG, CONNECTED_MG, CONNECTED_EG, PASSED_KING_EG]
            .into_iter()
            .chain(KD_WEIGHTS)
        {
            w.values[i] = 0;
        }
        w
    }

    struct Build;

    impl PositionVisitor for Build {
        type Output = (EvalTables, legacy::EvalTables);
        fn visit<V: Variant>(self, _pos: &Position<V>) -> Self::Output {
            (EvalTables::with_weights::<V>(legacy_weights::<V>()), legacy::EvalTables::new::<V>())
        }
    }

    fn playout_positions(id: VariantId, games: usize, seed: u64) -> Vec<AnyPosition> {
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut out = Vec::new();
        for _ in 0..games {
            let mut pos = AnyPosition::start(id);
            for _ in 0..160 {
                if pos.outcome().is_some() {
                    break;
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves.as_slice()[(next() % moves.len() as u64) as usize];
                pos = pos.play_unchecked(m);
                out.push(pos);
            }
        }
        out
    }

    #[test]
    fn default_weights_reproduce_the_hand_picked_evaluation() {
        for &id in VariantId::EVERY {
            let (new, old) = AnyPosition::start(id).visit(Build);
            for pos in playout_positions(id, 12, 0x9E37_79B9_7F4A_7C15 ^ id as u64) {
                let (a, b, lin) = pos.visit(Check { new: &new, old: &old });
                assert_eq!(a, b, "{id:?}: {:?}", pos.to_setup());
                // The linear trace is the same evaluation up to integer rounding.
                assert!((lin - a as f64).abs() <= 4.0, "{id:?}: trace {lin} vs {a}");
            }
        }
    }

    #[test]
    fn the_trace_of_the_default_evaluation_is_linear_in_every_term() {
        struct Defaults;
        impl PositionVisitor for Defaults {
            type Output = (i32, f64, i32);
            fn visit<V: Variant>(self, pos: &Position<V>) -> (i32, f64, i32) {
                let t = EvalTables::new::<V>();
                let white = if pos.side_to_move() == Color::White { 1.0 } else { -1.0 };
                let without = EvalTables::with_weights::<V>(legacy_weights::<V>()).evaluate(pos);
                (t.evaluate(pos), t.weights().linear_eval(&t.trace(pos)) * white, without)
            }
        }
        let mut changed = 0;
        for &id in VariantId::EVERY {
            for pos in playout_positions(id, 4, 0x5DEE_CE66_D1CE_5EED ^ id as u64) {
                let (a, lin, without) = pos.visit(Defaults);
                assert!((lin - a as f64).abs() <= 4.0, "{id:?}: trace {lin} vs {a}");
                changed += usize::from(a != without);
            }
        }
        assert!(changed > 0, "the threat terms never changed an evaluation");
    }

    /// The defaults with every term added after the threats switched on:
    /// king danger at Stockfish's units, outposts, threats by minor pieces
    /// and rooks, space.
    fn all_terms<V: Variant>() -> Weights {
        let mut w = Weights::defaults::<V>();
        for (&i, u) in KD_WEIGHTS.iter().zip(KD_UNITS) {
            w.values[i] = u;
        }
        for (i, v) in [
            (OUTPOST_KNIGHT_MG, 40),
            (OUTPOST_KNIGHT_EG, 20),
            (OUTPOST_BISHOP_MG, 20),
            (OUTPOST_BISHOP_EG, 10),
            (OUTPOST_REACH_MG, 20),
            (OUTPOST_REACH_EG, 10),
            (THREAT_MINOR_MG, 60),
            (THREAT_MINOR_EG, 30),
            (THREAT_ROOK_MG, 80),
            (THREAT_ROOK_EG, 40),
            (SPACE_MG, 64),
        ] {
            w.values[i] = v;
        }
        w
    }

    #[test]
    fn the_trace_is_linear_with_king_danger_outposts_threats_and_space_on() {
        struct AllOn;
        impl PositionVisitor for AllOn {
            type Output = (i32, f64, i32);
            fn visit<V: Variant>(self, pos: &Position<V>) -> (i32, f64, i32) {
                let t = EvalTables::with_weights::<V>(all_terms::<V>());
                let white = if pos.side_to_move() == Color::White { 1.0 } else { -1.0 };
                let without = EvalTables::with_weights::<V>(Weights::defaults::<V>()).evaluate(pos);
                (t.evaluate(pos), t.weights().linear_eval(&t.trace(pos)) * white, without)
            }
        }
        for &id in VariantId::EVERY {
            let mut changed = 0;
            for pos in playout_positions(id, 4, 0x2545_F491_4F6C_DD1D ^ id as u64) {
                let (a, lin, without) = pos.visit(AllOn);
                assert!((lin - a as f64).abs() <= 4.0, "{id:?}: trace {lin} vs {a}: {:?}", pos.to_setup());
                changed += usize::from(a != without);
            }
            assert!(changed > 0, "{id:?}: the new terms never changed an evaluation");
        }
    }

    #[test]
    fn pawn_attacks_do_not_depend_on_the_occupancy() {
        // The pawn cache keeps the pawns' attacks by the pawns' squares only.
        struct Check;
        impl PositionVisitor for Check {
            type Output = ();
            fn visit<V: Variant>(self, _pos: &Position<V>) {
                type S<V> = <V as Variant>::Shape;
                if !V::has(PieceKind::Pawn) {
                    return;
                }
                for c in Color::ALL {
                    let pawn = Piece::new(c, PieceKind::Pawn);
                    for s in 0..S::<V>::SQUARES {
                        let sq = Square(s);
                        let empty = S::<V>::attacks(pawn, sq, BitsOf::<V>::ZERO);
                        assert_eq!(empty, S::<V>::attacks(pawn, sq, S::<V>::ALL), "{:?} {c:?} {s}", V::ID);
                    }
                }
            }
        }
        for &id in VariantId::EVERY {
            AnyPosition::start(id).visit(Check);
        }
    }

    #[test]
    fn the_pawn_cache_gives_the_evaluation_without_it() {
        // One variant's tables (every term on) and cache, kept across the
        // positions of its playouts, so later positions meet cached pawns.
        // Every tenth position the cache serves other tables (other weights)
        // once, and must forget the first tables' terms and theirs.
        struct Check<'a>(&'a mut Option<Box<dyn std::any::Any>>, bool);
        impl PositionVisitor for Check<'_> {
            type Output = [i32; 4];
            fn visit<V: Variant>(self, pos: &Position<V>) -> [i32; 4] {
                let kept = self.0.get_or_insert_with(|| {
                    Box::new((
                        EvalTables::with_weights::<V>(all_terms::<V>()),
                        EvalTables::with_weights::<V>(Weights::defaults::<V>()),
                        PawnCache::<V>::default(),
                    ))
                });
                let (t, other, cache) = kept
                    .downcast_mut::<(EvalTables, EvalTables, PawnCache<V>)>()
                    .expect("one variant's tables and cache");
                let (fresh_other, cached_other) =
                    if self.1 { (other.evaluate(pos), other.evaluate_cached(pos, cache)) } else { (0, 0) };
                [
                    t.evaluate(pos),
                    t.evaluate_cached(pos, cache),
                    t.evaluate_cached(pos, cache),
                    cached_other - fresh_other,
                ]
            }
        }
        for &id in VariantId::EVERY {
            let mut kept = None;
            for (i, pos) in playout_positions(id, 4, 0x5DEE_CE66_D1CE_4E5B ^ id as u64).into_iter().enumerate() {
                let [fresh, first, again, other] = pos.visit(Check(&mut kept, i % 10 == 9));
                assert_eq!((first, again, other), (fresh, fresh, 0), "{id:?}: {:?}", pos.to_setup());
            }
        }
    }

    /// The chess evaluation of `fen` (side to move's view) with the defaults
    /// and the given weights set over them.
    fn chess_eval(fen: &str, set: &[(usize, i32)]) -> i32 {
        struct Eval(Weights);
        impl PositionVisitor for Eval {
            type Output = i32;
            fn visit<V: Variant>(self, pos: &Position<V>) -> i32 {
                EvalTables::with_weights::<V>(self.0).evaluate(pos)
            }
        }
        let mut w = Weights::defaults::<menagerie_variants::Chess>();
        for &(i, v) in set {
            w.values[i] = v;
        }
        let pos = menagerie_notation::fen::parse(VariantId::Chess, fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        pos.visit(Eval(w))
    }

    #[test]
    fn a_knight_on_a_guarded_square_no_enemy_pawn_can_attack_is_an_outpost() {
        let on = [(OUTPOST_KNIGHT_MG, 100), (OUTPOST_KNIGHT_EG, 100)];
        // Up to a centipawn of rounding in the phase blend.
        let gain = |fen: &str| ((chess_eval(fen, &on) - chess_eval(fen, &[])) as f64 / 10.0).round() as i32 * 10;
        assert_eq!(gain("4k3/8/8/3N4/4P3/8/8/4K3 w - - 0 1"), 100);
        // A pawn that has passed the knight cannot come back.
        assert_eq!(gain("4k3/8/8/3N4/2p1P3/8/8/4K3 w - - 0 1"), 100);
        // c7 can advance to c6 and attack it; e6 attacks it now.
        assert_eq!(gain("4k3/2p5/8/3N4/4P3/8/8/4K3 w - - 0 1"), 0);
        assert_eq!(gain("4k3/8/4p3/3N4/4P3/8/8/4K3 w - - 0 1"), 0);
        // Not guarded by a pawn; not in the enemy half.
        assert_eq!(gain("4k3/8/8/3N4/8/8/8/4K3 w - - 0 1"), 0);
        assert_eq!(gain("4k3/8/8/8/8/3N4/4P3/4K3 w - - 0 1"), 0);
        // The same for Black, from its side.
        assert_eq!(gain("4k3/8/8/4p3/3n4/8/8/4K3 b - - 0 1"), 100);
    }

    #[test]
    fn a_minor_piece_attacking_a_rook_is_a_threat() {
        let on = [(THREAT_MINOR_MG, 100), (THREAT_MINOR_EG, 100), (THREAT_ROOK_MG, 1000), (THREAT_ROOK_EG, 1000)];
        // Up to a centipawn of rounding in the phase blend.
        let gain = |fen: &str| ((chess_eval(fen, &on) - chess_eval(fen, &[])) as f64 / 10.0).round() as i32 * 10;
        assert_eq!(gain("4k3/8/8/3r4/8/4N3/8/4K3 w - - 0 1"), 100);
        // A knight attacking a knight is no threat of this kind.
        assert_eq!(gain("4k3/8/8/3n4/8/4N3/8/4K3 w - - 0 1"), 0);
        // A rook attacking a queen.
        assert_eq!(gain("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"), 1000);
    }

    #[test]
    fn two_attackers_near_the_king_are_king_danger_and_space_counts_the_centre() {
        let kd: Vec<(usize, i32)> = KD_WEIGHTS.iter().copied().zip(KD_UNITS).collect();
        let attack = "r5k1/5ppp/8/5NQ1/8/8/5PPP/6K1 w - - 0 1";
        assert!(chess_eval(attack, &kd) > chess_eval(attack, &[]) + 50);
        // One attacker and no queen: none.
        let lone = "r5k1/5ppp/8/5N2/8/8/5PPP/6K1 w - - 0 1";
        assert_eq!(chess_eval(lone, &kd), chess_eval(lone, &[]));
        // The start is symmetric; two centre pawns forward are space for White.
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(chess_eval(start, &[(SPACE_MG, 64)]), chess_eval(start, &[]));
        let centre = "rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR w KQkq - 0 1";
        assert!(chess_eval(centre, &[(SPACE_MG, 64)]) > chess_eval(centre, &[]));
    }

    #[test]
    fn weight_names_round_trip() {
        for i in 0..WEIGHT_COUNT {
            assert_eq!(Weights::index_of(&Weights::name(i)), Some(i), "{}", Weights::name(i));
        }
        let d = Weights::defaults::<menagerie_variants::Chess>();
        let text = d.to_text(None);
        assert_eq!(Weights::parse_over(d.clone(), &text), Ok(d.clone()));
        assert!(Weights::parse_over(d.clone(), "no_such_weight 3").is_err());
        assert!(Weights::parse_over(d.clone(), "tempo x").is_err());
        assert!(Weights::parse_over(d, "tempo").is_err());
    }

    #[test]
    fn every_variant_plays_a_tuned_weights_file_that_parses() {
        // `embedded` names a file for every game (alpaca2 and alpaca-samefile
        // had none and played the hand-picked defaults until 2026-12-05), and
        // each must differ from the defaults and parse.
        for &id in VariantId::EVERY {
            let base = Weights::defaults::<menagerie_variants::Chess>();
            let w = Weights::parse_over(base.clone(), embedded(id));
            assert!(w.as_ref().is_ok_and(|w| *w != base), "{id:?}: {w:?}");
        }
    }
}
