//! Attack and move tables built from the movement data, per board shape.

use crate::kind::{Color, KIND_COUNT, Piece, PieceKind};
use crate::movement::Mode;
use menagerie_geometry::{Bits, Board8x8, Board10x10, Shape, Square};
use std::sync::LazyLock;

/// One concrete leap from a square: its target and the squares it passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeapTarget {
    /// Destination.
    pub to: Square,
    /// Passed squares, nearest first; `path_len` of them are valid.
    pub path: [Square; 2],
    /// Number of valid entries in `path`.
    pub path_len: u8,
    /// Move, capture, or both.
    pub mode: Mode,
}

impl LeapTarget {
    /// The passed squares, nearest first.
    pub fn path(&self) -> &[Square] {
        &self.path[..self.path_len as usize]
    }
}

/// How a kind rides, split by line type and mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RideFlags {
    /// Rides orthogonally and captures there.
    pub orth_capture: bool,
    /// Rides orthogonally to empty squares.
    pub orth_move: bool,
    /// Rides diagonally and captures there.
    pub diag_capture: bool,
    /// Rides diagonally to empty squares.
    pub diag_move: bool,
}

type PerSquare<B> = Box<[B]>;
/// Per square, the list of leaps from it.
type LeapLists = Box<[Box<[LeapTarget]>]>;

/// Leap tables for every coloured piece kind on one shape.
pub struct PieceTables<B> {
    attack: [[PerSquare<B>; KIND_COUNT]; 2],
    quiet: [[PerSquare<B>; KIND_COUNT]; 2],
    leaps: [[LeapLists; KIND_COUNT]; 2],
    rides: [RideFlags; KIND_COUNT],
}

impl<B: Bits> PieceTables<B> {
    fn build<S: Shape<Bits = B>>() -> PieceTables<B> {
        let per = |f: &dyn Fn(Color, PieceKind) -> PerSquare<B>| -> [[PerSquare<B>; KIND_COUNT]; 2] {
            core::array::from_fn(|c| core::array::from_fn(|k| f(Color::ALL[c], PieceKind::ALL[k])))
        };
        let leaps_of = |c: Color, k: PieceKind| -> LeapLists {
            let ol = k.movement().oriented_leaps(c == Color::White);
            (0..S::SQUARES)
                .map(|s| {
                    ol.iter()
                        .filter_map(|l| {
                            let to = S::offset(Square(s), l.to)?;
                            let mut path = [Square(0); 2];
                            for (i, p) in l.path.iter().enumerate() {
                                // Every path square lies inside the leap's bounding box.
                                path[i] = S::offset(Square(s), *p)?;
                            }
                            Some(LeapTarget { to, path, path_len: l.path.len() as u8, mode: l.mode })
                        })
                        .collect()
                })
                .collect()
        };
        let leaps: [[LeapLists; KIND_COUNT]; 2] =
            core::array::from_fn(|c| core::array::from_fn(|k| leaps_of(Color::ALL[c], PieceKind::ALL[k])));
        let mask = |c: Color, k: PieceKind, want: fn(Mode) -> bool| -> PerSquare<B> {
            leaps[c.idx()][k.idx()]
                .iter()
                .map(|ls| ls.iter().filter(|l| want(l.mode)).fold(B::ZERO, |acc, l| acc | B::bit(l.to)))
                .collect()
        };
        let attack = per(&|c, k| mask(c, k, Mode::captures));
        let quiet = per(&|c, k| mask(c, k, |m| m == Mode::MoveOnly));
        let rides = core::array::from_fn(|k| {
            let mut f = RideFlags::default();
            for (dir, mode) in PieceKind::ALL[k].movement().oriented_rides() {
                let orth = dir.is_orthogonal();
                f.orth_capture |= orth && mode.captures();
                f.orth_move |= orth && mode.moves();
                f.diag_capture |= !orth && mode.captures();
                f.diag_move |= !orth && mode.moves();
            }
            f
        });
        PieceTables { attack, quiet, leaps, rides }
    }

    /// Squares attacked by the piece's leaps from `sq` (its capturing leap targets).
    #[inline(always)]
    pub fn leap_attacks(&self, piece: Piece, sq: Square) -> B {
        self.attack[piece.color.idx()][piece.kind.idx()][sq.idx()]
    }
    /// Squares the piece's move-only leaps reach from `sq` (empty targets only are legal).
    #[inline(always)]
    pub fn quiet_leaps(&self, piece: Piece, sq: Square) -> B {
        self.quiet[piece.color.idx()][piece.kind.idx()][sq.idx()]
    }
    /// Every leap from `sq` with its passed squares.
    #[inline(always)]
    pub fn leaps(&self, piece: Piece, sq: Square) -> &[LeapTarget] {
        &self.leaps[piece.color.idx()][piece.kind.idx()][sq.idx()]
    }
    /// How the kind rides.
    #[inline(always)]
    pub fn rides(&self, kind: PieceKind) -> RideFlags {
        self.rides[kind.idx()]
    }
}

/// A board shape with piece tables.
pub trait PieceShape: Shape {
    /// The piece tables of this shape.
    fn pieces() -> &'static PieceTables<Self::Bits>;

    /// Squares the piece attacks from `sq` (captures it could make, ignoring
    /// what stands on the target).
    #[inline]
    fn attacks(piece: Piece, sq: Square, occ: Self::Bits) -> Self::Bits {
        let t = Self::pieces();
        let r = t.rides(piece.kind);
        let mut a = t.leap_attacks(piece, sq);
        if r.orth_capture {
            a |= Self::rook_attacks(sq, occ);
        }
        if r.diag_capture {
            a |= Self::bishop_attacks(sq, occ);
        }
        a
    }

    /// Squares the piece may move to without capturing, given the
    /// occupancy (only empty ones are returned).
    #[inline]
    fn quiet_moves(piece: Piece, sq: Square, occ: Self::Bits) -> Self::Bits {
        let t = Self::pieces();
        let r = t.rides(piece.kind);
        let mut a = t.quiet_leaps(piece, sq);
        for l in t.leaps(piece, sq) {
            if l.mode == Mode::Both {
                a |= Self::Bits::bit(l.to);
            }
        }
        if r.orth_move {
            a |= Self::rook_attacks(sq, occ);
        }
        if r.diag_move {
            a |= Self::bishop_attacks(sq, occ);
        }
        a & !occ & Self::ALL
    }
}

static TABLES_8: LazyLock<PieceTables<u64>> = LazyLock::new(PieceTables::build::<Board8x8>);
static TABLES_10: LazyLock<PieceTables<u128>> = LazyLock::new(PieceTables::build::<Board10x10>);

impl PieceShape for Board8x8 {
    #[inline(always)]
    fn pieces() -> &'static PieceTables<u64> {
        &TABLES_8
    }
}

impl PieceShape for Board10x10 {
    #[inline(always)]
    fn pieces() -> &'static PieceTables<u128> {
        &TABLES_10
    }
}
