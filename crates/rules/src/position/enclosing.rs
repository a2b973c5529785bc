//! Enclosing drops and flips (Fairy-Stockfish's `enclosingDrop`,
//! `enclosingDropStart`, `flipEnclosedPieces`, and ataxx's free drops):
//! reversi and othello, ataxx and its children, connect four.
//!
//! Drop squares, beyond the drop region, by `enclosingDrop`:
//!
//! - while a square of `enclosingDropStart` is empty, drops go on those
//!   squares only (othello's centre); otherwise
//! - `reversi`: a drop must enclose a line of enemy pieces (queen lines)
//!   between itself and an own piece;
//! - `ataxx`: next to an own piece (8 neighbours);
//! - `snort`: never orthogonally next to an enemy piece;
//! - `top`: on the first rank or above an occupied square;
//! - `anyside`: on the square where a piece slid in from an edge would
//!   stop, from each edge square that is empty. As Fairy-Stockfish
//!   computes them: from the west and the south, the square before the
//!   first occupied one; from the north and the east, the lowest (or
//!   westernmost) square of the file (or rank) that lies just north (or
//!   east) of an occupied square or on the first rank (or file).
//!   `anyside` drops ignore the drop region.
//!
//! Flips, after each move but passes, by `flipEnclosedPieces`: `reversi`
//! flips every line of enemy pieces the mover's destination encloses with
//! an own piece; `ataxx` flips the enemy pieces next to the destination;
//! `quadwrangle` does so after board moves, and after drops next to an own
//! piece.

use super::{Kind, Move, State, bb, bits};
use crate::ini::EnclosingRule;
use crate::variant::{Drops, VariantDef};

/// The eight directions as (file, rank) steps.
const DIRECTIONS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];

impl State {
    /// The square `(file, rank)` steps away from `sq`, if on the board.
    fn step(d: &VariantDef, sq: u8, (df, dr): (i32, i32)) -> Option<u8> {
        let f = (sq % d.files) as i32 + df;
        let r = (sq / d.files) as i32 + dr;
        (f >= 0 && r >= 0 && f < d.files as i32 && r < d.ranks as i32).then(|| d.sq(f as u8, r as u8))
    }

    /// The squares next to those of `b`: all eight neighbours, or the four
    /// orthogonal ones.
    fn next_to(d: &VariantDef, b: u128, diagonal: bool) -> u128 {
        let dirs = if diagonal { &DIRECTIONS[..] } else { &DIRECTIONS[..4] };
        let mut near = 0;
        for sq in bits(b) {
            for &dir in dirs {
                if let Some(s) = Self::step(d, sq, dir) {
                    near |= bb(s);
                }
            }
        }
        near
    }

    /// The lines of pieces of colour `them` that a piece of the other
    /// colour on `sq` encloses with one on the far side of each.
    fn enclosed(&self, d: &VariantDef, sq: u8, them: u8) -> u128 {
        let theirs = self.by_color[them as usize];
        let ours = self.by_color[(them ^ 1) as usize];
        let mut flipped = 0;
        for dir in DIRECTIONS {
            let mut line = 0;
            let mut s = sq;
            while let Some(next) = Self::step(d, s, dir) {
                if theirs >> next & 1 == 0 {
                    if ours >> next & 1 != 0 {
                        flipped |= line;
                    }
                    break;
                }
                line |= bb(next);
                s = next;
            }
        }
        flipped
    }

    /// Whether a drop on `sq` by the side other than `them` encloses a line
    /// (`enclosingDrop = reversi`): an own piece at the end of a line of
    /// pieces of `them` and walls, as Fairy-Stockfish tests it (walls do not
    /// end the line here, though they stop the flips).
    fn encloses(&self, d: &VariantDef, sq: u8, them: u8) -> bool {
        let over = self.by_color[them as usize] | self.walls;
        let ours = self.by_color[(them ^ 1) as usize];
        DIRECTIONS.iter().any(|&dir| {
            let mut s = sq;
            let mut passed = false;
            while let Some(next) = Self::step(d, s, dir) {
                if over >> next & 1 == 0 {
                    return passed && ours >> next & 1 != 0;
                }
                passed = true;
                s = next;
            }
            false
        })
    }

    /// The drop squares `b` of the side to move narrowed by `enclosingDrop`.
    pub(super) fn enclosing_targets(&self, d: &VariantDef, dr: &Drops, b: u128) -> u128 {
        if dr.enclosing == EnclosingRule::None {
            return b;
        }
        let occ = self.occ();
        if dr.start & !occ != 0 {
            return b & dr.start;
        }
        let us = self.side;
        let theirs = self.by_color[(us ^ 1) as usize];
        match dr.enclosing {
            EnclosingRule::Reversi => {
                let near = b & Self::next_to(d, theirs, true);
                bits(near).filter(|&sq| self.encloses(d, sq, us ^ 1)).fold(0, |b, sq| b | bb(sq))
            }
            EnclosingRule::Ataxx => b & Self::next_to(d, self.by_color[us as usize], true),
            EnclosingRule::Snort => b & !Self::next_to(d, theirs, false),
            EnclosingRule::Top => {
                let first = (0..d.files).fold(0u128, |b, f| b | bb(d.sq(f, 0)));
                b & ((occ << d.files) | first) & d.board
            }
            EnclosingRule::Anyside => self.anyside_targets(d, occ),
            EnclosingRule::Quadwrangle | EnclosingRule::None => b,
        }
    }

    /// `enclosingDrop = anyside`: where pieces slid in from the edges stop.
    fn anyside_targets(&self, d: &VariantDef, occ: u128) -> u128 {
        let empty = |s: u8| occ >> s & 1 == 0;
        // The lowest (westernmost) empty square of `line` (ascending) whose
        // neighbour by `dir` is occupied, or that is `last`.
        let lowest = |line: &[u8], dir: (i32, i32), last: u8| {
            line.iter().copied().find(|&s| empty(s) && (s == last || Self::step(d, s, dir).is_some_and(|n| !empty(n))))
        };
        // Each rank (slid in along `(1, 0)`) and each file (along `(0, 1)`).
        let ranks = (0..d.ranks).map(|r| ((0..d.files).map(|f| d.sq(f, r)).collect::<Vec<u8>>(), (1, 0)));
        let files = (0..d.files).map(|f| ((0..d.ranks).map(|r| d.sq(f, r)).collect(), (0, 1)));
        let mut b = 0u128;
        for (line, (df, dr)) in ranks.chain(files) {
            let (low, high) = (line[0], line[line.len() - 1]);
            // From the low edge (west, south): before the first occupied square.
            if empty(low) {
                b |= lowest(&line, (df, dr), high).map_or(0, bb);
            }
            // From the high edge (east, north), as Fairy-Stockfish finds it.
            if empty(high) {
                b |= lowest(&line, (-df, -dr), low).map_or(0, bb);
            }
        }
        b
    }

    /// Flips the enemy pieces `m` encloses in `n`, the position after the
    /// move (its side to move not yet switched).
    pub(super) fn flip_enclosed(d: &VariantDef, m: Move, n: &mut State) {
        if m.kind == Kind::Pass {
            return;
        }
        let us = n.side;
        let them = us ^ 1;
        let theirs = n.by_color[them as usize];
        let flipped = match d.flip {
            EnclosingRule::Reversi => n.enclosed(d, m.to, them),
            EnclosingRule::Ataxx => Self::next_to(d, bb(m.to), true) & theirs,
            EnclosingRule::Quadwrangle => {
                let near = Self::next_to(d, bb(m.to), true);
                if m.kind != Kind::Drop || near & n.by_color[us as usize] != 0 { near & theirs } else { 0 }
            }
            _ => 0,
        };
        for sq in bits(flipped) {
            let t = n.board[sq as usize] >> 1;
            n.remove(sq);
            n.put(sq, t, us);
        }
    }
}
