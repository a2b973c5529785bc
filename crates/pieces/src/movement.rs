//! Piece movement described as data: leaps, rides, move-only and
//! capture-only parts, and the squares a leap passes over.

use crate::kind::PieceKind;
use menagerie_geometry::Delta;

/// What a movement component may do on its target square.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Move to an empty square or capture an enemy piece.
    Both,
    /// Move to an empty square only (never captures, never attacks).
    MoveOnly,
    /// Capture only (and so attack), never a quiet move.
    CaptureOnly,
}

impl Mode {
    /// True if this part attacks (can capture) its target.
    pub const fn captures(self) -> bool {
        matches!(self, Mode::Both | Mode::CaptureOnly)
    }
    /// True if this part can move to an empty target.
    pub const fn moves(self) -> bool {
        matches!(self, Mode::Both | Mode::MoveOnly)
    }
}

/// A leap: a jump by a fixed vector, not blocked by the squares it passes.
///
/// `path` lists the squares passed on the way, in order, relative to the
/// origin; rules that look at jumped squares (takeover captures) read it.
#[derive(Clone, Copy, Debug)]
pub struct Leap {
    /// The jump vector, in White's orientation.
    pub to: Delta,
    /// Squares passed over, relative to the origin, nearest first.
    pub path: &'static [Delta],
    /// Move, capture, or both.
    pub mode: Mode,
}

/// A ride: repeated unit steps in one direction until blocked.
#[derive(Clone, Copy, Debug)]
pub struct Ride {
    /// The unit step.
    pub dir: Delta,
    /// Move, capture, or both.
    pub mode: Mode,
}

/// A piece's plain movement.
#[derive(Clone, Copy, Debug)]
pub struct Movement {
    /// Betza notation of the movement, for documentation and protocols.
    pub betza: &'static str,
    /// Leaps (before symmetry expansion).
    pub leaps: &'static [Leap],
    /// Rides (before symmetry expansion).
    pub rides: &'static [Ride],
    /// If true, leaps and rides are expanded by the eight symmetries of the
    /// square; if false (pawns) they are given for White and mirrored
    /// top-to-bottom for Black.
    pub symmetric: bool,
}

const fn d(df: i8, dr: i8) -> Delta {
    Delta::new(df, dr)
}

const fn leap(to: Delta, path: &'static [Delta], mode: Mode) -> Leap {
    Leap { to, path, mode }
}

const fn ride(dir: Delta, mode: Mode) -> Ride {
    Ride { dir, mode }
}

const NONE: &[Delta] = &[];

const KING: Movement = Movement {
    betza: "K",
    leaps: &[leap(d(1, 0), NONE, Mode::Both), leap(d(1, 1), NONE, Mode::Both)],
    rides: &[],
    symmetric: true,
};
const QUEEN: Movement = Movement {
    betza: "Q",
    leaps: &[],
    rides: &[ride(d(1, 0), Mode::Both), ride(d(1, 1), Mode::Both)],
    symmetric: true,
};
const ROOK: Movement = Movement { betza: "R", leaps: &[], rides: &[ride(d(1, 0), Mode::Both)], symmetric: true };
const BISHOP: Movement = Movement { betza: "B", leaps: &[], rides: &[ride(d(1, 1), Mode::Both)], symmetric: true };
/// Knight: (1,2), path through the orthogonal neighbour.
const KNIGHT: Movement =
    Movement { betza: "N", leaps: &[leap(d(1, 2), &[d(0, 1)], Mode::Both)], rides: &[], symmetric: true };
/// Zebra (Camel and Rhino Chess): (1,2), path through the diagonal neighbour.
const ZEBRA: Movement =
    Movement { betza: "N", leaps: &[leap(d(1, 2), &[d(1, 1)], Mode::Both)], rides: &[], symmetric: true };
const PAWN: Movement = Movement {
    betza: "fmWfcF",
    leaps: &[
        leap(d(0, 1), NONE, Mode::MoveOnly),
        leap(d(1, 1), NONE, Mode::CaptureOnly),
        leap(d(-1, 1), NONE, Mode::CaptureOnly),
    ],
    rides: &[],
    symmetric: false,
};
const ALPACA: Movement = Movement {
    betza: "WmD",
    leaps: &[leap(d(1, 0), NONE, Mode::Both), leap(d(2, 0), &[d(1, 0)], Mode::MoveOnly)],
    rides: &[],
    symmetric: true,
};
const ALSEID: Movement = Movement {
    betza: "mQ",
    leaps: &[],
    rides: &[ride(d(1, 0), Mode::MoveOnly), ride(d(1, 1), Mode::MoveOnly)],
    symmetric: true,
};
/// Camel: ferz, or (1,3) with path two orthogonal steps then the diagonal one.
const CAMEL: Movement = Movement {
    betza: "FC",
    leaps: &[leap(d(1, 1), NONE, Mode::Both), leap(d(1, 3), &[d(0, 1), d(0, 2)], Mode::Both)],
    rides: &[],
    symmetric: true,
};
/// Rhino: wazir, or (2,3) with path two diagonal steps then the orthogonal one.
const RHINO: Movement = Movement {
    betza: "WZ",
    leaps: &[leap(d(1, 0), NONE, Mode::Both), leap(d(2, 3), &[d(1, 1), d(2, 2)], Mode::Both)],
    rides: &[],
    symmetric: true,
};
const WAZIR: Movement = Movement { betza: "W", leaps: &[leap(d(1, 0), NONE, Mode::Both)], rides: &[], symmetric: true };

impl PieceKind {
    /// The kind's plain movement (special powers are variant rules).
    pub const fn movement(self) -> &'static Movement {
        match self {
            PieceKind::Pawn => &PAWN,
            PieceKind::Knight => &KNIGHT,
            PieceKind::Bishop => &BISHOP,
            PieceKind::Rook => &ROOK,
            PieceKind::Queen => &QUEEN,
            PieceKind::King => &KING,
            PieceKind::Alpaca => &ALPACA,
            PieceKind::Alseid => &ALSEID,
            PieceKind::Camel => &CAMEL,
            PieceKind::Rhino => &RHINO,
            PieceKind::Zebra => &ZEBRA,
            PieceKind::Wazir => &WAZIR,
        }
    }
}

/// The eight symmetries of the square applied to a delta.
pub(crate) fn symmetries(v: Delta) -> [Delta; 8] {
    let Delta { df, dr } = v;
    [d(df, dr), d(-df, dr), d(df, -dr), d(-df, -dr), d(dr, df), d(-dr, df), d(dr, -df), d(-dr, -df)]
}

/// A leap expanded to one concrete orientation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrientedLeap {
    /// The jump vector.
    pub to: Delta,
    /// Squares passed, nearest first.
    pub path: Vec<Delta>,
    /// Move, capture, or both.
    pub mode: Mode,
}

impl Movement {
    /// All leaps in every orientation, for the side moving up the board
    /// (`white == true`) or down it.
    pub fn oriented_leaps(&self, white: bool) -> Vec<OrientedLeap> {
        let mut out: Vec<OrientedLeap> = Vec::new();
        for l in self.leaps {
            let n = if self.symmetric { 8 } else { 1 };
            for s in 0..n {
                let map = |v: Delta| {
                    let v = if self.symmetric { symmetries(v)[s] } else { v };
                    if white { v } else { d(v.df, -v.dr) }
                };
                let to = map(l.to);
                if out.iter().any(|o| o.to == to) {
                    continue;
                }
                out.push(OrientedLeap { to, path: l.path.iter().map(|&p| map(p)).collect(), mode: l.mode });
            }
        }
        out
    }

    /// All ride directions in every orientation, with their modes.
    pub fn oriented_rides(&self) -> Vec<(Delta, Mode)> {
        let mut out: Vec<(Delta, Mode)> = Vec::new();
        for r in self.rides {
            for v in symmetries(r.dir) {
                if !out.iter().any(|o| o.0 == v) {
                    out.push((v, r.mode));
                }
            }
        }
        out
    }
}
