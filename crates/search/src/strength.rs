//! Playing weaker on purpose (UCI `UCI_LimitStrength` / `UCI_Elo`).
//!
//! A limited search looks at a few candidate moves (internal multipv) with
//! a node and depth cap, then adds to each candidate's score a random bonus
//! between 0 and a margin and plays the candidate with the highest sum: a
//! move can only be chosen over the best one if it is at most `margin_cp`
//! worse. The random numbers are deterministic (seeded by
//! [`Strength::seed`] and the position), so a game can be replayed.
//!
//! The mapping from Elo to these parameters is [`strength_params`], the one
//! function to adjust when calibrating against another engine's scale. It
//! works on an *internal* scale `i` (800..2800) with `t = (i - 800) / 2000`:
//!
//! | internal `i` | nodes `1000 * 200^t` | depth `1 + 13t` | candidates | margin `400 (1-t)^2` cp |
//! |---|---|---|---|---|
//! | 800 | 1 000 | 1 | 4 | 400 |
//! | 1300 | 3 760 | 4 | 4 | 225 |
//! | 1800 | 14 100 | 7 | 4 | 100 |
//! | 2300 | 53 200 | 11 | 4 | 25 |
//! | 2800 | 200 000 | 14 | 1 | 0 |
//!
//! (The node cap is checked every 1024 nodes, so it is approximate at the
//! bottom of the scale.)
//!
//! **Calibration** against Stockfish 15.1's own `UCI_Elo` (Debian's
//! `stockfish`, `UCI_LimitStrength`), chess, 10 s + 0.1 s, one thread,
//! `menagerie match`, 16 games per level from `benches/openings/chess.epd`
//! (both colours), internal level = Stockfish's level:
//!
//! | internal level | score vs Stockfish at the same `UCI_Elo` | Stockfish-scale Elo |
//! |---|---|---|
//! | 1400 | 10/16 (+88.7 ± 181.6) | 1489 |
//! | 1800 | 9/16 (+43.7 ± 174.3) | 1844 |
//! | 2200 | 4/16 (−190.8 ± 225.2) | 2009 |
//! | 2600 | 7/16 (−43.7 ± 189.2) | 2556 |
//!
//! A least-squares line gives Stockfish-scale Elo ≈ 0.8415 · internal +
//! 291.5, so `UCI_Elo` E plays at internal level (E − 291.5) / 0.8415; the
//! offered range, [`MIN_ELO`]..[`MAX_ELO`], is what the internal scale can
//! reach (the ends extrapolate the measured 1400..2600). The error bars are
//! wide (16 games a level): a calibration to refine with more games, and
//! to redo when the search or evaluation gets stronger.

use crate::{Info, Score};

/// Lowest Elo the engine offers (Stockfish's `UCI_Elo` scale).
pub const MIN_ELO: u32 = 1000;
/// Highest Elo the engine offers (Stockfish's `UCI_Elo` scale).
pub const MAX_ELO: u32 = 2650;

/// Bounds of the internal scale of [`strength_params`].
const INTERNAL: (f64, f64) = (800.0, 2800.0);

/// The internal level that plays at `elo` on Stockfish's `UCI_Elo` scale
/// (the calibration in the module documentation).
pub fn internal_level(elo: u32) -> f64 {
    let e = f64::from(elo.clamp(MIN_ELO, MAX_ELO));
    ((e - 291.5) / 0.8415).clamp(INTERNAL.0, INTERNAL.1)
}

/// A strength limit for one search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strength {
    /// The target Elo on Stockfish's `UCI_Elo` scale (clamped to [`MIN_ELO`]..[`MAX_ELO`]).
    pub elo: u32,
    /// Seed of the move choice (e.g. a per-game counter); mixed with the
    /// position's hash.
    pub seed: u64,
}

/// What a strength limit does to a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrengthParams {
    /// Node cap (the smaller of this and the `go` limit applies).
    pub nodes: u64,
    /// Depth cap.
    pub depth: u32,
    /// Number of candidate moves searched (internal multipv).
    pub candidates: usize,
    /// The largest random bonus, in centipawns.
    pub margin_cp: i32,
}

/// The search parameters for `elo` (see the module documentation).
pub fn strength_params(elo: u32) -> StrengthParams {
    let t = (internal_level(elo) - INTERNAL.0) / (INTERNAL.1 - INTERNAL.0);
    let margin_cp = (400.0 * (1.0 - t) * (1.0 - t)).round() as i32;
    StrengthParams {
        nodes: (1000.0 * 200f64.powf(t)).round() as u64,
        depth: 1 + (13.0 * t).round() as u32,
        candidates: if margin_cp > 0 { 4 } else { 1 },
        margin_cp,
    }
}

/// A score in centipawns for comparing candidates (mates far beyond any
/// margin).
fn centipawns(s: Score) -> i64 {
    match s {
        Score::Cp(c) => i64::from(c),
        Score::Mate(m) if m > 0 => 1_000_000 - i64::from(m),
        Score::Mate(m) => -1_000_000 - i64::from(m),
    }
}

/// SplitMix64.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The index of the line to play among `lines` (best first): the highest
/// score plus a random bonus in `0..=margin_cp`.
pub(crate) fn choose<M>(lines: &[Info<M>], margin_cp: i32, seed: u64) -> usize {
    let mut state = mix(seed);
    let mut best = (i64::MIN, 0);
    for (i, line) in lines.iter().enumerate() {
        if line.pv.is_empty() {
            continue;
        }
        state = mix(state);
        let bonus = if margin_cp > 0 { (state % (margin_cp as u64 + 1)) as i64 } else { 0 };
        let value = centipawns(line.score) + bonus;
        if value > best.0 {
            best = (value, i);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_monotonic() {
        let mut prev = strength_params(MIN_ELO);
        // 1000 on Stockfish's scale is internal level 842.
        assert!((internal_level(MIN_ELO) - 842.0).abs() < 1.0);
        assert_eq!(prev, StrengthParams { nodes: 1118, depth: 1, candidates: 4, margin_cp: 383 });
        assert_eq!(internal_level(MAX_ELO), 2800.0);
        for elo in (MIN_ELO..=MAX_ELO).step_by(100) {
            let p = strength_params(elo);
            assert!(p.nodes >= prev.nodes && p.depth >= prev.depth && p.margin_cp <= prev.margin_cp, "{elo}");
            prev = p;
        }
        assert_eq!(strength_params(MAX_ELO).margin_cp, 0);
        assert_eq!(strength_params(5000), strength_params(MAX_ELO));
    }

    fn line(cp: i32, n: u32) -> Info {
        Info {
            depth: 1,
            seldepth: 1,
            multipv: n,
            score: Score::Cp(cp),
            nodes: 0,
            nps: 0,
            time_ms: 0,
            hashfull: 0,
            pv: vec![menagerie_variants::Move::DECLINE.into()],
        }
    }

    #[test]
    fn choice_stays_within_the_margin() {
        let lines = [line(100, 1), line(60, 2), line(-300, 3)];
        let mut picked = [0; 3];
        for seed in 0..400 {
            picked[choose(&lines, 100, seed)] += 1;
        }
        assert!(picked[0] > 0 && picked[1] > 0, "{picked:?}");
        assert_eq!(picked[2], 0, "a move 400 cp worse is never chosen");
        assert!((0..50).all(|seed| choose(&lines, 0, seed) == 0));
    }
}

#[cfg(test)]
mod engine_tests {
    use crate::{Engine, EngineOptions, Limits, Strength};
    use menagerie_notation::uci;
    use menagerie_variants::{AnyPosition, VariantId};

    fn engine(multipv: usize) -> Engine {
        let mut e = Engine::new(EngineOptions { hash_mb: 4, threads: 1, multipv });
        let start = AnyPosition::start(VariantId::Chess);
        let e4 = uci::parse(&start, "e2e4").unwrap();
        e.set_position(start, &[e4.into()]).unwrap();
        e
    }

    #[test]
    fn searchmoves_restrict_the_root_and_every_line() {
        let e = engine(3);
        let pos = e.position().clone();
        let only: Vec<_> = ["a7a6", "h7h6"].iter().map(|t| pos.parse_move(t).unwrap()).collect();
        let r = e.search(Limits { depth: Some(5), searchmoves: only.clone(), ..Limits::default() }, |_| {});
        assert!(r.best.is_some_and(|m| only.contains(&m)), "{:?}", r.best);
        assert_eq!(r.lines.len(), 2, "multipv 3 over two root moves");
        assert!(r.lines.iter().all(|l| only.contains(&l.pv[0])));
    }

    #[test]
    fn limited_strength_reports_only_the_requested_lines_and_varies() {
        let e = engine(1);
        let full = e.search(Limits::depth(3), |_| {});
        let mut differs = false;
        for seed in 0..12 {
            let mut infos = Vec::new();
            let (tx, rx) = std::sync::mpsc::channel();
            let r = e.search(Limits { strength: Some(Strength { elo: 800, seed }), ..Limits::default() }, move |i| {
                let _ = tx.send(i.multipv);
            });
            infos.extend(rx.try_iter());
            assert!(infos.iter().all(|&n| n == 1), "{infos:?}");
            assert!(r.depth <= 1 && r.lines.len() == 1);
            differs |= r.best != full.best;
        }
        assert!(differs, "800 Elo always played the depth-3 move");
    }
}
