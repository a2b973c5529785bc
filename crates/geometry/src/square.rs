//! Squares, files, ranks and directions, independent of the board shape.

use core::fmt;

/// A square index: `rank * FILES + file`, with a1 = 0.
///
/// The index alone does not know the board shape; naming and geometry go
/// through a [`crate::Shape`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Square(pub u8);

impl Square {
    /// The square's index as `usize`, for table lookups.
    #[inline(always)]
    pub const fn idx(self) -> usize {
        self.0 as usize
    }
}

/// A file (column), 0 = a.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct File(pub u8);

/// A rank (row), 0 = rank 1.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Rank(pub u8);

impl File {
    /// The file's letter (`a`, `b`, …).
    pub const fn letter(self) -> char {
        (b'a' + self.0) as char
    }
    /// Parses a file letter (`a`–`z`).
    pub fn from_letter(c: char) -> Option<File> {
        c.is_ascii_lowercase().then(|| File(c as u8 - b'a'))
    }
}

impl fmt::Display for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0 as u32 + 1)
    }
}

/// A step on the board: file delta and rank delta.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Delta {
    /// File delta (positive = towards the h/j file).
    pub df: i8,
    /// Rank delta (positive = towards Black).
    pub dr: i8,
}

impl Delta {
    /// Builds a delta.
    pub const fn new(df: i8, dr: i8) -> Delta {
        Delta { df, dr }
    }
    /// True for the four orthogonal unit directions' multiples.
    pub const fn is_orthogonal(self) -> bool {
        (self.df == 0) != (self.dr == 0)
    }
    /// True for diagonal multiples.
    pub const fn is_diagonal(self) -> bool {
        self.df != 0 && (self.df == self.dr || self.df == -self.dr)
    }
}

/// The eight unit directions, clockwise from north.
pub const DIRECTIONS: [Delta; 8] = [
    Delta::new(0, 1),
    Delta::new(1, 1),
    Delta::new(1, 0),
    Delta::new(1, -1),
    Delta::new(0, -1),
    Delta::new(-1, -1),
    Delta::new(-1, 0),
    Delta::new(-1, 1),
];

/// Index into [`DIRECTIONS`] of a unit direction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Dir(pub u8);

impl Dir {
    /// North (towards Black).
    pub const N: Dir = Dir(0);
    /// North-east.
    pub const NE: Dir = Dir(1);
    /// East.
    pub const E: Dir = Dir(2);
    /// South-east.
    pub const SE: Dir = Dir(3);
    /// South.
    pub const S: Dir = Dir(4);
    /// South-west.
    pub const SW: Dir = Dir(5);
    /// West.
    pub const W: Dir = Dir(6);
    /// North-west.
    pub const NW: Dir = Dir(7);

    /// The step of this direction.
    pub const fn delta(self) -> Delta {
        DIRECTIONS[self.0 as usize]
    }
    /// The opposite direction.
    pub const fn opposite(self) -> Dir {
        Dir((self.0 + 4) % 8)
    }
    /// True if moving along this direction increases the square index.
    pub const fn is_positive(self) -> bool {
        matches!(self.0, 0 | 1 | 2 | 7)
    }
    /// True for N, E, S, W.
    pub const fn is_orthogonal(self) -> bool {
        self.0 % 2 == 0
    }
    /// The unit direction of a delta, if it lies on a line (orthogonal or diagonal).
    pub fn of(d: Delta) -> Option<Dir> {
        if !(d.is_orthogonal() || d.is_diagonal()) {
            return None;
        }
        let unit = Delta::new(d.df.signum(), d.dr.signum());
        DIRECTIONS.iter().position(|&x| x == unit).map(|i| Dir(i as u8))
    }
}
