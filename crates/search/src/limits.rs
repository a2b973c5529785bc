//! Search limits and time management.

use crate::strength::Strength;
use menagerie_variants::Move;
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
}
