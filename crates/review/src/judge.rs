//! Judging moves: win probability, classification, centipawn loss and
//! accuracy, the way game-review tools (lichess) compute them.

use crate::{Chances, Eval, MoveReport, PositionReport, Side, SideSummary};
use menagerie_search::Score;
use menagerie_search::wdl::WdlModel;
use serde::Serialize;

/// The slope of the logistic curve from centipawns to win probability
/// (lichess's, fitted to its games).
pub const WIN_SLOPE: f64 = 0.003_682_08;

/// The centipawn bound applied to each evaluation before a centipawn loss
/// is taken (a mate counts as this bound).
pub const CP_CEILING: i32 = 1000;

/// The win probability, in percent (0..100), of the side that is `cp`
/// centipawns ahead: `50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)`.
/// The curve is not clamped: it tends to 0 and 100.
///
/// ```
/// use menagerie_review::win_percent;
/// assert_eq!(win_percent(0), 50.0);
/// assert!((win_percent(100) - 59.1).abs() < 0.05);
/// assert!((win_percent(-100) + win_percent(100) - 100.0).abs() < 1e-9);
/// ```
pub fn win_percent(cp: i32) -> f64 {
    let chances = 2.0 / (1.0 + (-WIN_SLOPE * f64::from(cp)).exp()) - 1.0;
    (50.0 + 50.0 * chances).clamp(0.0, 100.0)
}

/// The accuracy of one move (0..100) from the mover's win probability
/// before and after it, lichess's curve:
/// `103.1668 * exp(-0.04354 * (before - after)) - 3.1669`, plus 1 for the
/// uncertainty of the analysis, clamped to 0..100; 100 when the move does
/// not lose win probability.
pub fn move_accuracy(win_before: f64, win_after: f64) -> f64 {
    if win_after >= win_before {
        return 100.0;
    }
    let drop = win_before - win_after;
    let raw = 103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * drop).exp() - 3.166_924_740_191_411;
    (raw + 1.0).clamp(0.0, 100.0)
}

/// The drops in the mover's win probability (points on the 0..100 scale)
/// at which a move becomes an inaccuracy, a mistake and a blunder.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Thresholds {
    /// Smallest drop that is an [`Classification::Inaccuracy`].
    pub inaccuracy: f64,
    /// Smallest drop that is a [`Classification::Mistake`].
    pub mistake: f64,
    /// Smallest drop that is a [`Classification::Blunder`].
    pub blunder: f64,
}

impl Thresholds {
    /// 10, 20 and 30 points: a more lenient judge than lichess (its numbers
    /// 0.1, 0.2 and 0.3 read as fractions of the 0..100 scale).
    pub const LENIENT: Thresholds = Thresholds { inaccuracy: 10.0, mistake: 20.0, blunder: 30.0 };

    /// 5, 10 and 15 points, the default: exactly lichess's 0.1, 0.2 and 0.3
    /// on its -1..1 "winning chances" scale (a drop of 0.1 there is 5 points
    /// here), so verdicts match what game-review tools show.
    pub const LICHESS: Thresholds = Thresholds { inaccuracy: 5.0, mistake: 10.0, blunder: 15.0 };
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds::LICHESS
    }
}

/// What a move was worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Classification {
    /// The engine's best move.
    Best,
    /// Another move that loses less than the inaccuracy threshold.
    Good,
    /// Loses at least [`Thresholds::inaccuracy`] points of win probability.
    Inaccuracy,
    /// Loses at least [`Thresholds::mistake`] points.
    Mistake,
    /// Loses at least [`Thresholds::blunder`] points.
    Blunder,
}

impl Classification {
    /// Judges a move that lost `loss` points of the mover's win
    /// probability; `is_best` (the engine's own choice) wins over the loss,
    /// which for the best move only measures the noise between two searches.
    ///
    /// ```
    /// use menagerie_review::{Classification, Thresholds};
    /// let t = Thresholds::LENIENT;
    /// assert_eq!(Classification::judge(30.0, false, &t), Classification::Blunder);
    /// assert_eq!(Classification::judge(9.99, false, &t), Classification::Good);
    /// assert_eq!(Classification::judge(50.0, true, &t), Classification::Best);
    /// ```
    pub fn judge(loss: f64, is_best: bool, thresholds: &Thresholds) -> Classification {
        if is_best {
            Classification::Best
        } else if loss >= thresholds.blunder {
            Classification::Blunder
        } else if loss >= thresholds.mistake {
            Classification::Mistake
        } else if loss >= thresholds.inaccuracy {
            Classification::Inaccuracy
        } else {
            Classification::Good
        }
    }

    /// The PGN NAG: `$6` (`?!`), `$2` (`?`), `$4` (`??`); none for good moves.
    pub const fn nag(self) -> Option<u8> {
        match self {
            Classification::Inaccuracy => Some(6),
            Classification::Mistake => Some(2),
            Classification::Blunder => Some(4),
            Classification::Best | Classification::Good => None,
        }
    }

    /// The word for it: `Best`, `Good`, `Inaccuracy`, `Mistake`, `Blunder`.
    pub const fn name(self) -> &'static str {
        match self {
            Classification::Best => "Best",
            Classification::Good => "Good",
            Classification::Inaccuracy => "Inaccuracy",
            Classification::Mistake => "Mistake",
            Classification::Blunder => "Blunder",
        }
    }

    /// True for inaccuracies, mistakes and blunders.
    pub const fn is_error(self) -> bool {
        self.nag().is_some()
    }
}

impl Eval {
    /// The chances of each result by `model` (the game's win/draw/loss
    /// model) at the material fraction `material`: certain for the side
    /// that mates or has won.
    pub fn chances(self, model: &WdlModel, material: f64) -> Chances {
        let certain = |side: Side| match side {
            Side::White => Chances { white: 1000, draw: 0, black: 0 },
            Side::Black => Chances { white: 0, draw: 0, black: 1000 },
        };
        match self {
            Eval::Cp(cp) => {
                // The model is the same for both sides: White's score gives
                // White's chances.
                let w = model.wdl(Score::Cp(cp), material);
                Chances { white: w.win, draw: w.draw, black: w.loss }
            }
            Eval::Mate(n) if n > 0 => certain(Side::White),
            Eval::Mate(_) => certain(Side::Black),
            Eval::Won(side) => certain(side),
        }
    }

    /// The win probability (0..100) of `side`: [`win_percent`] of the
    /// centipawns; 100 for the side that mates or has won, 0 for the other.
    pub fn win_percent(self, side: Side) -> f64 {
        let white = match self {
            Eval::Cp(cp) => win_percent(cp),
            Eval::Mate(n) => {
                if n > 0 {
                    100.0
                } else {
                    0.0
                }
            }
            Eval::Won(Side::White) => 100.0,
            Eval::Won(Side::Black) => 0.0,
        };
        if side == Side::White { white } else { 100.0 - white }
    }

    /// Centipawns for `side`, bounded by ±[`CP_CEILING`] (a mate or a won
    /// game is the bound).
    pub fn cp_for(self, side: Side) -> i32 {
        let white = match self {
            Eval::Cp(cp) => cp.clamp(-CP_CEILING, CP_CEILING),
            Eval::Mate(n) => {
                if n > 0 {
                    CP_CEILING
                } else {
                    -CP_CEILING
                }
            }
            Eval::Won(Side::White) => CP_CEILING,
            Eval::Won(Side::Black) => -CP_CEILING,
        };
        if side == Side::White { white } else { -white }
    }
}

/// Population standard deviation.
fn std_dev(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt()
}

/// Each move's weight in the game accuracy: the volatility (standard
/// deviation of White's win probability) of a window of positions around
/// it, bounded to 0.5..12, as lichess does.
fn volatility_weights(win_white: &[f64]) -> Vec<f64> {
    let moves = win_white.len().saturating_sub(1);
    let size = (moves / 10).clamp(2, 8);
    let first = &win_white[..size.min(win_white.len())];
    let mut windows: Vec<&[f64]> = vec![first; size.min(win_white.len()).saturating_sub(2)];
    if win_white.len() >= size {
        windows.extend(win_white.windows(size));
    } else {
        windows.push(win_white);
    }
    windows.iter().map(|w| std_dev(w).clamp(0.5, 12.0)).collect()
}

/// The per-side summary: counts, average centipawn loss and accuracy.
///
/// Accuracy is lichess's game accuracy: the mean of (a) the move
/// accuracies weighted by the volatility of the game around each move and
/// (b) their harmonic mean, which punishes a single very bad move.
pub(crate) fn summarise(positions: &[PositionReport], moves: &[MoveReport]) -> (SideSummary, SideSummary) {
    let win_white: Vec<f64> = positions.iter().map(|p| p.chances.expected_percent(Side::White)).collect();
    let weights = volatility_weights(&win_white);
    let side = |side: Side| {
        let mut s = SideSummary::default();
        let mut cp_total = 0u64;
        let mut weighted = 0.0;
        let mut weight_sum = 0.0;
        let mut inverse_sum = 0.0;
        let mut zero = false;
        for (i, m) in moves.iter().enumerate().filter(|(_, m)| m.colour == side) {
            s.moves += 1;
            match m.classification {
                Classification::Best => s.best += 1,
                Classification::Good => s.good += 1,
                Classification::Inaccuracy => s.inaccuracies += 1,
                Classification::Mistake => s.mistakes += 1,
                Classification::Blunder => s.blunders += 1,
            }
            cp_total += u64::from(m.cp_loss);
            let w = weights.get(i).copied().unwrap_or(0.5);
            weighted += m.accuracy * w;
            weight_sum += w;
            if m.accuracy <= 0.0 {
                zero = true;
            } else {
                inverse_sum += 1.0 / m.accuracy;
            }
        }
        if s.moves > 0 {
            let n = s.moves as f64;
            s.average_centipawn_loss = Some(cp_total as f64 / n);
            let harmonic = if zero { 0.0 } else { n / inverse_sum };
            s.accuracy = Some(((weighted / weight_sum + harmonic) / 2.0).clamp(0.0, 100.0));
        }
        s
    };
    (side(Side::White), side(Side::Black))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volatility_has_one_weight_per_move() {
        for n in 2..40 {
            let w: Vec<f64> = (0..n).map(|i| (i * 7 % 100) as f64).collect();
            assert_eq!(volatility_weights(&w).len(), n - 1, "{n} positions");
        }
    }

    #[test]
    fn accuracy_curve() {
        assert_eq!(move_accuracy(50.0, 60.0), 100.0);
        assert_eq!(move_accuracy(50.0, 50.0), 100.0);
        // No loss on the curve itself is 103.1668 - 3.1669 + 1 = 101 -> 100.
        assert!(move_accuracy(50.0, 49.9) > 99.0);
        assert!(
            (move_accuracy(60.0, 40.0)
                - (103.1668100711649 * (-0.04354415386753951f64 * 20.0).exp() - 2.166924740191411))
                .abs()
                < 1e-9
        );
        assert_eq!(move_accuracy(100.0, 0.0), 0.0);
    }
}
