//! Correction history: the static evaluation corrected by what searches
//! found below positions with the same pawns.

use crate::position::SearchPosition;

/// Entries of the table per side to move (a power of two).
const SIZE: usize = 1 << 14;
/// Units of an entry per centipawn.
const GRAIN: i32 = 256;
/// The largest correction, in centipawns.
const MAX: i32 = 128;

/// A correction entry moved towards `best - raw` (at most `MAX`
/// centipawns), by a weight that grows with the depth of the search that
/// found `best`: 1/128 at depth 1, 1/16 from depth 15.
fn step(entry: i32, best: i32, raw: i32, depth: i32) -> i32 {
    let target = (best - raw).clamp(-MAX, MAX) * GRAIN;
    let w = (depth + 1).clamp(2, 16);
    (entry * (256 - w) + target * w) / 256
}

/// The slot of a position in the table.
#[derive(Clone, Copy)]
pub(crate) struct Slot(usize);

/// One search thread's correction table.
pub(crate) struct Corrections {
    /// `[side to move][pawn key]`: a running average of how far searches
    /// ended from the static evaluation, in 1/`GRAIN` centipawns. Empty in
    /// the games whose evaluation is not corrected.
    table: Vec<i32>,
}

impl Corrections {
    /// The table of a game whose evaluation is corrected when `on`.
    pub fn new(on: bool) -> Self {
        Corrections { table: if on { vec![0; 2 * SIZE] } else { Vec::new() } }
    }

    /// Whether the evaluation is corrected.
    #[inline(always)]
    pub fn on(&self) -> bool {
        !self.table.is_empty()
    }

    /// The slot of `pos`.
    #[inline]
    pub fn slot<P: SearchPosition>(&self, pos: &P) -> Slot {
        Slot(pos.side_index() * SIZE + (pos.pawn_key() as usize & (SIZE - 1)))
    }

    /// `raw`, the static evaluation of the position of `slot`, corrected.
    #[inline]
    pub fn corrected(&self, raw: i32, slot: Slot) -> i32 {
        raw + self.table[slot.0] / GRAIN
    }

    /// Moves the entry of `slot` towards `best - raw` (a search result at
    /// `depth` against the raw static evaluation).
    pub fn update(&mut self, slot: Slot, best: i32, raw: i32, depth: i32) {
        self.table[slot.0] = step(self.table[slot.0], best, raw, depth);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_average_what_searches_found_and_stay_bounded() {
        // Repeated results 40 cp above the evaluation: the correction nears 40.
        let mut e = 0;
        for _ in 0..400 {
            e = step(e, 140, 100, 8);
        }
        assert_eq!(e / GRAIN, 39, "{e}");
        // A deeper result moves it more than a shallow one.
        let (shallow, deep) = (step(0, 60, 0, 1), step(0, 60, 0, 20));
        assert!(0 < shallow && shallow < deep, "{shallow} {deep}");
        assert_eq!(deep, 60 * GRAIN * 16 / 256);
        // A mate-sized gap counts as MAX, however often it is seen.
        for _ in 0..2000 {
            e = step(e, -30_000, 300, 30);
        }
        assert_eq!(e / GRAIN, -MAX + 1, "{e}");
        assert!(e >= -MAX * GRAIN);
    }
}
