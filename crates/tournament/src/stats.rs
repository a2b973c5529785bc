//! Match statistics: Elo difference with a 95 % interval, likelihood of
//! superiority, and the sequential probability ratio test.
//!
//! All figures use the logistic Elo model, score = 1 / (1 + 10^(−Elo/400)),
//! and the trinomial (win/draw/loss) distribution of single games.

/// Wins, draws and losses of one side.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Score {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// The two-sided 97.5 % quantile of the normal distribution (95 % interval).
const Z95: f64 = 1.959_963_984_540_054;

impl Score {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points: a win 1, a draw ½.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// Score fraction in 0..=1 (0.5 with no games).
    pub fn fraction(&self) -> f64 {
        let n = self.games();
        if n == 0 { 0.5 } else { self.points() / f64::from(n) }
    }

    /// The score from the opponent's side.
    pub fn flipped(&self) -> Score {
        Score { wins: self.losses, draws: self.draws, losses: self.wins }
    }

    /// Variance of one game's score.
    fn variance(&self) -> f64 {
        let n = f64::from(self.games());
        if n == 0.0 {
            return 0.0;
        }
        let s = self.fraction();
        (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n
    }

    /// The Elo difference and the half-width of its 95 % interval (infinite
    /// when the interval reaches a score of 0 or 1: see [`Score::elo_interval`]).
    /// A perfect or zero score has an infinite difference.
    pub fn elo(&self) -> (f64, f64) {
        let (elo, lo, hi) = self.elo_interval();
        (elo, (hi - lo) / 2.0)
    }

    /// The Elo difference and the ends of its 95 % interval (the normal
    /// interval of the score mapped to Elo, so not symmetric): an end is
    /// infinite where the score interval reaches 0 or 1, as near a 0 % or
    /// 100 % score, and both are with fewer than two games. At exactly 0 %
    /// or 100 % the finite end is the exact binomial 95 % bound: n wins in
    /// n games give a score of at least 0.025^(1/n).
    pub fn elo_interval(&self) -> (f64, f64, f64) {
        let n = f64::from(self.games());
        let s = self.fraction();
        let elo = elo_of(s);
        if !elo.is_finite() && n >= 1.0 {
            // A perfect (or zero) score: the exact binomial (Clopper-Pearson)
            // bound on the finite side, (2.5 %)^(1/n), the other end infinite.
            let bound = elo_of(0.025f64.powf(1.0 / n));
            return if elo > 0.0 { (elo, bound, f64::INFINITY) } else { (elo, f64::NEG_INFINITY, -bound) };
        }
        if n < 2.0 || !elo.is_finite() {
            return (elo, f64::NEG_INFINITY, f64::INFINITY);
        }
        let se = (self.variance() / n).sqrt();
        (elo, elo_of((s - Z95 * se).max(0.0)), elo_of((s + Z95 * se).min(1.0)))
    }

    /// Likelihood of superiority: the probability that this side is the
    /// stronger, from wins and losses (draws carry no information).
    pub fn los(&self) -> f64 {
        let (w, l) = (f64::from(self.wins), f64::from(self.losses));
        if w + l == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }
}

/// The Elo difference of a score fraction (±∞ at 1 and 0).
pub fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if score >= 1.0 {
        return f64::INFINITY;
    }
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score fraction at an Elo difference.
pub fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function (Abramowitz and Stegun 7.1.26, error < 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let sign = x.signum();
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// A sequential probability ratio test between H0: Elo = `elo0` and H1:
/// Elo = `elo1`, with error rates `alpha` (accepting H1 when H0 holds) and
/// `beta` (accepting H0 when H1 holds).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// The state of an SPRT.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum SprtState {
    /// Not decided yet.
    Continue,
    /// H1 accepted (the difference is at least `elo1`, at the test's confidence).
    AcceptH1,
    /// H0 accepted.
    AcceptH0,
}

impl Sprt {
    /// The log-likelihood-ratio bounds (lower, upper): ln(β/(1−α)) and
    /// ln((1−β)/α).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of the results, the generalised SPRT on the
    /// trinomial distribution: LLR = Σ nᵢ ln(p1ᵢ / p0ᵢ) over wins, draws and
    /// losses, where p0 and p1 are the most likely win/draw/loss
    /// probabilities given the results under the constraint that the
    /// expected score is s0 (H0) or s1 (H1).
    ///
    /// The constrained maximum is pᵢ = fᵢ / (1 + θ (aᵢ − s)) with fᵢ the
    /// observed frequencies, aᵢ the result's points and θ the root of
    /// Σ fᵢ (aᵢ − s) / (1 + θ (aᵢ − s)) = 0. An outcome not seen yet counts
    /// as 0.001 games, so a run of nothing but wins (or draws) has an
    /// estimate: eight straight wins give an LLR of 0.89 between +200 and
    /// +300 Elo, the binomial ln((s1 / s0)⁸), not a decision. Unlike the
    /// normal approximation (which divides by the observed variance) it
    /// stays exact for wide or distant Elo bounds and short runs.
    pub fn llr(&self, score: &Score) -> f64 {
        if score.games() == 0 {
            return 0.0;
        }
        let counts = [score.losses, score.draws, score.wins].map(|c| if c == 0 { 1e-3 } else { f64::from(c) });
        let n: f64 = counts.iter().sum();
        let freq = counts.map(|c| c / n);
        let p0 = constrained_mle(freq, score_of(self.elo0));
        let p1 = constrained_mle(freq, score_of(self.elo1));
        (0..3).map(|i| counts[i] * (p1[i] / p0[i]).ln()).sum()
    }

    /// Whether the test has decided.
    pub fn state(&self, score: &Score) -> SprtState {
        let (lo, hi) = self.bounds();
        let llr = self.llr(score);
        if llr >= hi {
            SprtState::AcceptH1
        } else if llr <= lo {
            SprtState::AcceptH0
        } else {
            SprtState::Continue
        }
    }

    /// Checks the parameters: elo0 < elo1, and 0 < alpha, beta < 0.5.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.elo0.is_finite() && self.elo1.is_finite() && self.elo0 < self.elo1) {
            return Err(format!("SPRT needs elo0 < elo1 (got {} and {})", self.elo0, self.elo1));
        }
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Err(format!("SPRT {name} must be in (0, 0.5), got {v}"));
            }
        }
        Ok(())
    }
}

/// The loss/draw/win probabilities most likely to give the observed
/// frequencies `freq` (all positive) among those whose expected score is
/// `s` (in 0..1): see [`Sprt::llr`].
fn constrained_mle(freq: [f64; 3], s: f64) -> [f64; 3] {
    let d = [0.0 - s, 0.5 - s, 1.0 - s];
    // Σ fᵢ dᵢ / (1 + θ dᵢ) falls from +∞ to −∞ as θ crosses the interval
    // keeping every 1 + θ dᵢ positive; bisect for its root.
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let h: f64 = (0..3).map(|i| freq[i] * d[i] / (1.0 + mid * d[i])).sum();
        if h > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let theta = 0.5 * (lo + hi);
    [0, 1, 2].map(|i| freq[i] / (1.0 + theta * d[i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_and_interval() {
        // 55 % is +34.86 Elo; 75 % is +190.85.
        assert!(close(elo_of(0.55), 34.86, 0.01));
        assert!(close(elo_of(0.75), 190.85, 0.01));
        assert!(close(score_of(elo_of(0.3)), 0.3, 1e-12));
        // 100 games, +30 =40 -30: 0 Elo, per-game σ² = 0.15, se = 0.03873,
        // interval 0.5 ± 0.07591 → ±(elo(0.57591) − elo(0.42409))/2 = ±53.1.
        let s = Score { wins: 30, draws: 40, losses: 30 };
        let (e, err) = s.elo();
        assert!(close(e, 0.0, 1e-9));
        assert!(close(err, 53.1, 0.1), "{err}");
        let (e, lo, hi) = s.elo_interval();
        assert!(close(hi - e, 53.1, 0.1) && close(e - lo, 53.1, 0.1), "{lo} {hi}");
        let (e, err) = Score { wins: 10, draws: 0, losses: 0 }.elo();
        assert!(e.is_infinite() && err.is_infinite());
        // 10/10: the score is at least 0.025^(1/10) = 0.6915, +140.2 Elo.
        let (e, lo, hi) = Score { wins: 10, draws: 0, losses: 0 }.elo_interval();
        assert!(e == f64::INFINITY && hi == f64::INFINITY && close(lo, 140.2, 0.1), "{lo}");
        let (e, lo, hi) = Score { wins: 0, draws: 0, losses: 10 }.elo_interval();
        assert!(e == f64::NEG_INFINITY && lo == f64::NEG_INFINITY && close(hi, -140.2, 0.1), "{hi}");
        // 2 / 100 (+1 =2 −97): −676.1 Elo; score 0.02, per-game σ² = 0.0146,
        // se = 0.01208, interval 0.02 ± 0.02368 reaches 0: the lower end is
        // −∞, the upper elo(0.04368) = −536.0.
        let (e, lo, hi) = Score { wins: 1, draws: 2, losses: 97 }.elo_interval();
        assert!(close(e, -676.1, 0.1), "{e}");
        assert!(lo == f64::NEG_INFINITY && close(hi, -536.0, 0.5), "{lo} {hi}");
    }

    #[test]
    fn likelihood_of_superiority() {
        // Known figures: +0 -0 → 50 %; W=60 L=40 → 97.7 %; W=55 L=45 → 84.1 %.
        assert!(close(Score::default().los(), 0.5, 1e-12));
        assert!(close(Score { wins: 60, draws: 10, losses: 40 }.los(), 0.9772, 1e-3));
        assert!(close(Score { wins: 55, draws: 0, losses: 45 }.los(), 0.8413, 1e-3));
        assert!(close(erf(1.0), 0.842_700_79, 1e-6));
    }

    #[test]
    fn sprt_bounds_and_llr() {
        let t = Sprt { elo0: 0.0, elo1: 5.0, alpha: 0.05, beta: 0.05 };
        let (lo, hi) = t.bounds();
        // ln(0.05/0.95) = −2.944439 (the figure every SPRT tool shows).
        assert!(close(lo, -2.944_439, 1e-6) && close(hi, 2.944_439, 1e-6));
        let t2 = Sprt { elo0: -1.75, elo1: 0.25, alpha: 0.05, beta: 0.1 };
        let (lo, hi) = t2.bounds();
        assert!(close(lo, -2.251_292, 1e-6) && close(hi, 2.890_372, 1e-6));
        // W=1000 D=2000 L=900 at [0, 5]: 2.1256 (the normal approximation
        // Fishtest used for such narrow bounds gives 2.1278).
        let s = Score { wins: 1000, draws: 2000, losses: 900 };
        assert!(close(t.llr(&s), 2.1256, 0.0005), "{}", t.llr(&s));
        assert_eq!(t.state(&s), SprtState::Continue);
        assert_eq!(t.state(&Score { wins: 3000, draws: 2000, losses: 2500 }), SprtState::AcceptH1);
        assert_eq!(t.state(&Score { wins: 2500, draws: 2000, losses: 3000 }), SprtState::AcceptH0);
        // A run of wins is the binomial likelihood ratio: eight straight wins
        // between +200 and +300 are 8 ln(0.8490 / 0.7597) = 0.888, far from a
        // decision (the normal approximation, dividing by a variance guessed
        // from one added draw, gave 5.66 and accepted H1 after eight games).
        let far = Sprt { elo0: 200.0, elo1: 300.0, alpha: 0.05, beta: 0.05 };
        let eight = Score { wins: 8, draws: 0, losses: 0 };
        assert!(close(far.llr(&eight), 0.888, 0.001), "{}", far.llr(&eight));
        assert_eq!(far.state(&eight), SprtState::Continue);
        assert_eq!(far.state(&Score { wins: 26, ..eight }), SprtState::Continue);
        assert_eq!(far.state(&Score { wins: 27, ..eight }), SprtState::AcceptH1);
        // Alseid's 200 games against 4fb1ea0 on 2026-12-04 (+168 =13 −19,
        // benches/README) clear it: LLR 8.56.
        let alseid = Score { wins: 168, draws: 13, losses: 19 };
        assert!(close(far.llr(&alseid), 8.565, 0.005), "{}", far.llr(&alseid));
        let wide = Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05 };
        assert_eq!(wide.state(&Score { wins: 22, draws: 0, losses: 0 }), SprtState::Continue);
        assert_eq!(wide.state(&Score { wins: 23, draws: 0, losses: 0 }), SprtState::AcceptH1);
        assert_eq!(wide.state(&Score { wins: 0, draws: 0, losses: 23 }), SprtState::AcceptH0);
        // All draws: no outcome is impossible, the LLR stays finite and small
        // (−0.0253 for two draws at [0, 5]), not −∞.
        let calm = Score { wins: 0, draws: 2, losses: 0 };
        assert!(close(t.llr(&calm), -0.0253, 0.0005), "{}", t.llr(&calm));
        assert_eq!(t.state(&calm), SprtState::Continue);
        // The constrained estimate has the asked mean and sums to one.
        let p = constrained_mle([0.2, 0.3, 0.5], score_of(100.0));
        assert!(close(p.iter().sum::<f64>(), 1.0, 1e-9));
        assert!(close(p[1] * 0.5 + p[2], score_of(100.0), 1e-9));
        assert!(t.validate().is_ok());
        assert!(Sprt { elo0: 5.0, elo1: 0.0, ..t }.validate().is_err());
        assert!(Sprt { alpha: 0.0, ..t }.validate().is_err());
    }
}
