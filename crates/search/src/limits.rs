//! Search limits and time management.

use crate::strength::Strength;
use menagerie_game::Move;
use std::time::Duration;

/// What bounds a search. All fields are optional; with none set (and not
/// `infinite`) the search runs to [`crate::MAX_DEPTH`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes (summed over threads).
    pub nodes: Option<u64>,
    /// Exact time to think.
    pub movetime: Option<Duration>,
    /// A hard cap on the time, whatever the other limits: the search stops
    /// there, but no time management follows from it (a depth or node
    /// search with a safety cap behaves as without one until the cap).
    pub max_time: Option<Duration>,
    /// White's remaining clock time.
    pub wtime: Option<Duration>,
    /// Black's remaining clock time.
    pub btime: Option<Duration>,
    /// White's increment per move.
    pub winc: Option<Duration>,
    /// Black's increment per move.
    pub binc: Option<Duration>,
    /// Moves until the next time control.
    pub movestogo: Option<u32>,
    /// Search until stopped.
    pub infinite: bool,
    /// Only these root moves are searched (UCI `go searchmoves`); empty
    /// means all. Moves that are not legal at the root are ignored; if none
    /// is legal, every root move is searched.
    pub searchmoves: Vec<Move>,
    /// Play weaker, in a controlled way (UCI `UCI_LimitStrength` and
    /// `UCI_Elo`): see [`Strength`].
    pub strength: Option<Strength>,
}

impl Limits {
    /// A depth limit.
    pub fn depth(d: u32) -> Limits {
        Limits { depth: Some(d), ..Limits::default() }
    }
    /// A node limit.
    pub fn nodes(n: u64) -> Limits {
        Limits { nodes: Some(n), ..Limits::default() }
    }
    /// A fixed thinking time.
    pub fn movetime(t: Duration) -> Limits {
        Limits { movetime: Some(t), ..Limits::default() }
    }
}

/// Time budget for one search: a soft limit (don't start another
/// iteration after it) and a hard one (stop at once).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimeBudget {
    pub soft: Option<Duration>,
    pub hard: Option<Duration>,
}

impl TimeBudget {
    /// Allocates time for the side to move (`white`).
    pub fn new(limits: &Limits, white: bool) -> TimeBudget {
        let mut budget = TimeBudget::managed(limits, white);
        if let Some(cap) = limits.max_time {
            budget.hard = Some(budget.hard.map_or(cap, |h| h.min(cap)));
        }
        budget
    }

    fn managed(limits: &Limits, white: bool) -> TimeBudget {
        if let Some(t) = limits.movetime {
            return TimeBudget { soft: Some(t), hard: Some(t) };
        }
        let (time, inc) = if white { (limits.wtime, limits.winc) } else { (limits.btime, limits.binc) };
        let Some(time) = time else { return TimeBudget { soft: None, hard: None } };
        if limits.infinite {
            return TimeBudget { soft: None, hard: None };
        }
        let inc = inc.unwrap_or_default();
        let overhead = Duration::from_millis(30).min(time / 4);
        let left = time.saturating_sub(overhead);
        let moves = limits.movestogo.unwrap_or(25).clamp(1, 50);
        let base = left / moves + inc * 4 / 5;
        let soft = base.min(left / 2);
        let hard = (soft * 4).min(left * 3 / 4).max(soft);
        TimeBudget { soft: Some(soft), hard: Some(hard) }
    }
}

/// How an iterative-deepening search has gone so far: what decides how
/// much of its usual share of the clock it deserves.
#[derive(Clone, Debug)]
pub(crate) struct Progress {
    /// The best score of each completed iteration, shallowest first
    /// (`None` for a mate score).
    pub scores: Vec<Option<i32>>,
    /// How often the best root move changed, halved at every iteration.
    pub best_changes: f64,
    /// Completed iterations since the best move last changed.
    pub stable_iterations: u32,
    /// The share of the root's nodes spent under the best move.
    pub best_move_effort: f64,
}

impl Progress {
    /// The factor on the usual thinking time, from 0.4 to 2.5: more while
    /// the score falls (up to 1.6x for a fall of 72 cp against the mean of
    /// the two iterations before) or the best move keeps changing (up to
    /// 3x), less once one move has stood for six iterations (0.75x) or
    /// took 85 % of the nodes (0.8x).
    pub fn time_scale(&self) -> f64 {
        let mut scale = 1.0;
        if let [.., Some(a), Some(b), Some(now)] = self.scores[..] {
            let before = f64::from(a + b) / 2.0;
            scale *= (1.0 + (before - f64::from(now)) / 120.0).clamp(0.8, 1.6);
        }
        scale *= 1.0 + 0.8 * self.best_changes.min(2.5);
        if self.stable_iterations >= 6 {
            scale *= 0.75;
        }
        if self.best_move_effort >= 0.85 {
            scale *= 0.8;
        }
        scale.clamp(0.4, 2.5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_cap_is_a_hard_limit_only() {
        let capped = Limits { depth: Some(5), max_time: Some(Duration::from_secs(3)), ..Limits::default() };
        let b = TimeBudget::new(&capped, true);
        assert_eq!((b.soft, b.hard), (None, Some(Duration::from_secs(3))));
        let both = Limits { movetime: Some(Duration::from_secs(5)), ..capped };
        let b = TimeBudget::new(&both, true);
        assert_eq!((b.soft, b.hard), (Some(Duration::from_secs(5)), Some(Duration::from_secs(3))));
    }

    #[test]
    fn a_clock_budget_leaves_time_on_the_clock() {
        let ms = Duration::from_millis;
        // 2 s + 20 ms a move: a small share, far from the flag.
        let clock = Limits {
            wtime: Some(ms(2000)),
            btime: Some(ms(2000)),
            winc: Some(ms(20)),
            binc: Some(ms(20)),
            ..Limits::default()
        };
        let b = TimeBudget::new(&clock, true);
        assert_eq!((b.soft, b.hard), (Some(Duration::from_micros(94_800)), Some(Duration::from_micros(379_200))));
        // Black's 300 ms with 10 moves to go: Black's clock, not White's 10 minutes.
        let black = Limits { wtime: Some(ms(600_000)), btime: Some(ms(300)), movestogo: Some(10), ..Limits::default() };
        let b = TimeBudget::new(&black, false);
        assert_eq!((b.soft, b.hard), (Some(ms(27)), Some(ms(108))));
        // Whatever the clock, the hard limit keeps a quarter of it.
        for t in [1u64, 10, 100, 1000, 60_000] {
            for moves in [None, Some(1), Some(40)] {
                let l = Limits { wtime: Some(ms(t)), winc: Some(ms(t / 10)), movestogo: moves, ..Limits::default() };
                let b = TimeBudget::new(&l, true);
                let (soft, hard) = (b.soft.unwrap(), b.hard.unwrap());
                assert!(soft <= hard && hard <= ms(t) * 3 / 4, "{t} ms {moves:?}: {soft:?} {hard:?}");
            }
        }
    }

    fn progress(scores: &[Option<i32>], best_changes: f64, stable_iterations: u32, effort: f64) -> Progress {
        Progress { scores: scores.to_vec(), best_changes, stable_iterations, best_move_effort: effort }
    }

    #[test]
    fn a_settled_search_stops_early() {
        let steady = progress(&[Some(30), Some(32), Some(31)], 0.0, 2, 0.5);
        assert_eq!(steady.time_scale(), 1.0);
        let settled = progress(&[Some(30), Some(32), Some(31)], 0.0, 6, 0.9);
        assert!((settled.time_scale() - 0.6).abs() < 1e-9, "{}", settled.time_scale());
    }

    #[test]
    fn a_falling_score_or_a_changing_best_move_buys_time() {
        let falling = progress(&[Some(50), Some(50), Some(-22)], 0.0, 0, 0.5);
        assert!((falling.time_scale() - 1.6).abs() < 1e-9, "{}", falling.time_scale());
        let rising = progress(&[Some(0), Some(0), Some(200)], 0.0, 0, 0.5);
        assert!((rising.time_scale() - 0.8).abs() < 1e-9, "{}", rising.time_scale());
        let changing = progress(&[Some(10)], 1.0, 0, 0.3);
        assert!((changing.time_scale() - 1.8).abs() < 1e-9, "{}", changing.time_scale());
        let both = progress(&[Some(50), Some(50), Some(-22)], 5.0, 0, 0.3);
        assert_eq!(both.time_scale(), 2.5, "capped");
    }

    #[test]
    fn mate_scores_say_nothing_about_a_fall() {
        let mate = progress(&[Some(50), None, Some(-300)], 0.0, 0, 0.5);
        assert_eq!(mate.time_scale(), 1.0);
    }
}
