//! Win, draw and loss chances from a score: a logistic model per game,
//! fitted on the results of the engine's self-play games
//! (`menagerie-wdl` in `tools/tune`), read from `crates/search/wdl.txt`.
//!
//! The side to move, `cp` centipawns ahead, wins with probability
//! `1 / (1 + exp((a - cp) / b))` and loses with `1 / (1 + exp((a + cp) / b))`;
//! the rest is the draw. `a` and `b` are linear in the material still on
//! the board, `m` = pieces on the board / pieces at the start (0..1):
//! `a = a0 + a1 * m`, `b = b0 + b1 * m`.

use crate::Score;
use std::sync::OnceLock;
use thiserror::Error;

/// The models compiled in: `variant a0 a1 b0 b1` lines.
const MODELS: &str = include_str!("../wdl.txt");

/// The game whose model stands in for a game without one of its own.
const FALLBACK: &str = "chess";

/// Chances of a win, a draw and a loss for the side to move, per mille
/// (they add up to 1000).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wdl {
    /// Per mille of wins.
    pub win: u32,
    /// Per mille of draws.
    pub draw: u32,
    /// Per mille of losses.
    pub loss: u32,
}

impl Wdl {
    /// The expected score of the side to move, 0 to 1 (a draw is half).
    pub fn expected(self) -> f64 {
        (f64::from(self.win) + f64::from(self.draw) / 2.0) / 1000.0
    }
}

/// A game's model: its four constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    /// `a` with no material left.
    pub a0: f64,
    /// How `a` grows with the material fraction.
    pub a1: f64,
    /// `b` with no material left.
    pub b0: f64,
    /// How `b` grows with the material fraction.
    pub b1: f64,
}

/// A line of a models file that does not read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("WDL models line {line}: {reason}")]
pub struct WdlModelError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

impl WdlModel {
    /// Reads `variant a0 a1 b0 b1` lines (`#` starts a comment).
    pub fn parse_all(text: &str) -> Result<Vec<(String, WdlModel)>, WdlModelError> {
        let mut out = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let err = |reason: String| WdlModelError { line: i + 1, reason };
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [name, a0, a1, b0, b1] = fields[..] else {
                return Err(err(format!("expected 'variant a0 a1 b0 b1', got {} fields", fields.len())));
            };
            let num = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite());
            let (Some(a0), Some(a1), Some(b0), Some(b1)) = (num(a0), num(a1), num(b0), num(b1)) else {
                return Err(err("a constant is not a finite number".into()));
            };
            let model = WdlModel { a0, a1, b0, b1 };
            if !model.is_sane() {
                return Err(err(format!("{name}: a must be >= 0 and b > 0 over the whole material range")));
            }
            out.push((name.to_string(), model));
        }
        Ok(out)
    }

    /// The model of the game named `variant` (case-insensitive), or chess's
    /// for a game without a fitted model of its own.
    pub fn for_variant(variant: &str) -> WdlModel {
        static MODELS_READ: OnceLock<Vec<(String, WdlModel)>> = OnceLock::new();
        let models = MODELS_READ.get_or_init(|| WdlModel::parse_all(MODELS).unwrap_or_default());
        let find = |n: &str| models.iter().find(|(name, _)| name.eq_ignore_ascii_case(n)).map(|&(_, m)| m);
        find(variant).or_else(|| find(FALLBACK)).unwrap_or(WdlModel { a0: 300.0, a1: 0.0, b0: 100.0, b1: 0.0 })
    }

    /// Whether the game named `variant` has a model fitted to its own games.
    pub fn is_fitted(variant: &str) -> bool {
        WdlModel::parse_all(MODELS)
            .map(|m| m.iter().any(|(name, _)| name.eq_ignore_ascii_case(variant)))
            .unwrap_or(false)
    }

    fn is_sane(&self) -> bool {
        [0.0, 1.0].iter().all(|&m| {
            let (a, b) = self.at(m);
            a >= 0.0 && b > 0.0
        })
    }

    /// `a` and `b` at the material fraction `m` (clamped to 0..1).
    pub fn at(&self, m: f64) -> (f64, f64) {
        let m = if m.is_finite() { m.clamp(0.0, 1.0) } else { 1.0 };
        (self.a0 + self.a1 * m, self.b0 + self.b1 * m)
    }

    /// The chances (win, draw, loss as probabilities) of the side to move
    /// `cp` centipawns ahead with material fraction `m`.
    pub fn probabilities(&self, cp: f64, m: f64) -> (f64, f64, f64) {
        let (a, b) = self.at(m);
        let b = b.max(1e-9);
        let win = 1.0 / (1.0 + ((a - cp) / b).exp());
        let loss = 1.0 / (1.0 + ((a + cp) / b).exp());
        let draw = (1.0 - win - loss).max(0.0);
        (win, draw, loss)
    }

    /// The chances of the side to move whose search scored `score`, with
    /// material fraction `m` (see [`material_fraction`]). A mate is won
    /// or lost outright.
    pub fn wdl(&self, score: Score, m: f64) -> Wdl {
        match score {
            Score::Mate(n) if n > 0 => Wdl { win: 1000, draw: 0, loss: 0 },
            Score::Mate(_) => Wdl { win: 0, draw: 0, loss: 1000 },
            Score::Cp(cp) => {
                let (w, _, l) = self.probabilities(f64::from(cp), m);
                let win = (w * 1000.0).round().clamp(0.0, 1000.0) as u32;
                let loss = ((l * 1000.0).round().clamp(0.0, 1000.0) as u32).min(1000 - win);
                Wdl { win, draw: 1000 - win - loss, loss }
            }
        }
    }
}

/// The pieces on the board of a FEN (letters of its board field, reserves
/// and pockets in brackets left out).
pub fn board_pieces(fen: &str) -> u32 {
    let board = fen.split_whitespace().next().unwrap_or("");
    let board = board.split('[').next().unwrap_or("");
    board.chars().filter(char::is_ascii_alphabetic).count() as u32
}

/// The material fraction of a position: its pieces on the board over the
/// pieces on the board of its game's start position (1 when unknown).
pub fn material_fraction(fen: &str, start_fen: &str) -> f64 {
    let start = board_pieces(start_fen);
    if start == 0 { 1.0 } else { (f64::from(board_pieces(fen)) / f64::from(start)).min(1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_in_models_read_and_chess_has_one() {
        let models = WdlModel::parse_all(MODELS).expect("wdl.txt reads");
        assert!(models.iter().any(|(n, _)| n == "chess"), "{models:?}");
        assert!(WdlModel::is_fitted("Chess"));
        assert_eq!(WdlModel::for_variant("no-such-game"), WdlModel::for_variant("chess"));
    }

    #[test]
    fn chances_add_up_grow_with_the_score_and_mates_are_certain() {
        for (name, model) in WdlModel::parse_all(MODELS).expect("wdl.txt reads") {
            for m in [0.1, 0.5, 1.0] {
                let mut last = Wdl { win: 0, draw: 0, loss: 1000 };
                for cp in (-2000..=2000).step_by(50) {
                    let w = model.wdl(Score::Cp(cp), m);
                    assert_eq!(w.win + w.draw + w.loss, 1000, "{name} {cp} {m}");
                    assert!(w.win >= last.win && w.loss <= last.loss, "{name} {cp} {m}: {w:?} after {last:?}");
                    last = w;
                }
                let even = model.wdl(Score::Cp(0), m);
                assert!(even.win.abs_diff(even.loss) <= 1, "{name}: {even:?}");
                assert!(model.wdl(Score::Cp(2000), m).win > 900, "{name} {m}");
            }
            assert_eq!(model.wdl(Score::Mate(3), 0.5), Wdl { win: 1000, draw: 0, loss: 0 });
            assert_eq!(model.wdl(Score::Mate(-1), 0.5), Wdl { win: 0, draw: 0, loss: 1000 });
        }
    }

    #[test]
    fn bad_model_lines_are_refused_with_their_line() {
        let e = WdlModel::parse_all("chess 1 2 3 4\nshogi 1 2 3\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(WdlModel::parse_all("chess 1 2 nan 4").is_err());
        assert!(WdlModel::parse_all("chess 1 0 -5 1").is_err(), "b <= 0 at m = 0");
        assert!(WdlModel::parse_all("chess -10 0 100 0").is_err(), "a < 0: negative draws");
        assert_eq!(WdlModel::parse_all("# a comment\n\n").map(|v| v.len()), Ok(0));
    }

    #[test]
    fn material_counts_the_board_only() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(board_pieces(start), 32);
        assert_eq!(board_pieces("4k3/8/8/8/8/8/8/4K3[Aa] w - - 0 1"), 2);
        assert_eq!(material_fraction("4k3/8/8/8/8/8/8/4K3 w - - 0 1", start), 2.0 / 32.0);
        assert_eq!(material_fraction("", ""), 1.0);
    }
}
