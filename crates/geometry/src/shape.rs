//! Board shapes as types: [`Board8x8`] on `u64`, [`Board10x10`] on `u128`.

use crate::bits::Bits;
use crate::magic::MagicTables;
use crate::square::{DIRECTIONS, Delta, Dir, File, Rank, Square};
use std::sync::LazyLock;

/// A rectangular board shape with its bitboard type and geometry tables.
///
/// All move-generation code is generic over the shape and monomorphised, so
/// the 8x8 game runs on `u64` with no cost from the 10x10 one.
pub trait Shape: Copy + Default + core::fmt::Debug + Eq + core::hash::Hash + Send + Sync + 'static {
    /// The bitboard integer.
    type Bits: Bits;
    /// Number of files.
    const FILES: u8;
    /// Number of ranks.
    const RANKS: u8;
    /// Number of squares.
    const SQUARES: u8 = Self::FILES * Self::RANKS;
    /// Every square of the board.
    const ALL: Self::Bits;
    /// The squares of file a.
    const FILE_A: Self::Bits;
    /// The squares of rank 1.
    const RANK_1: Self::Bits;
    /// A short name, e.g. `8x8`.
    const NAME: &'static str;
    /// One byte per square of the board (a position's piece codes).
    type Mailbox: Copy
        + Eq
        + core::fmt::Debug
        + Send
        + Sync
        + 'static
        + core::ops::Index<usize, Output = u8>
        + core::ops::IndexMut<usize>;
    /// The mailbox with every byte 0.
    const EMPTY_MAILBOX: Self::Mailbox;

    /// The shape's precomputed line tables.
    fn geometry() -> &'static Geometry<Self::Bits>;
    /// Rook attacks from `sq` given the occupied squares.
    fn rook_attacks(sq: Square, occ: Self::Bits) -> Self::Bits;
    /// Bishop attacks from `sq` given the occupied squares.
    fn bishop_attacks(sq: Square, occ: Self::Bits) -> Self::Bits;

    /// The pieces of `orth` that attack `sq` along a rank or file and those of
    /// `diag` that attack it along a diagonal, given the occupied squares.
    #[inline(always)]
    fn slider_attackers(sq: Square, occ: Self::Bits, orth: Self::Bits, diag: Self::Bits) -> Self::Bits {
        let mut a = Self::Bits::ZERO;
        if orth.any() {
            a |= Self::rook_attacks(sq, occ) & orth;
        }
        if diag.any() {
            a |= Self::bishop_attacks(sq, occ) & diag;
        }
        a
    }
    /// Queen attacks from `sq` given the occupied squares.
    #[inline(always)]
    fn queen_attacks(sq: Square, occ: Self::Bits) -> Self::Bits {
        Self::rook_attacks(sq, occ) | Self::bishop_attacks(sq, occ)
    }
    /// The square at `file`, `rank`, if on the board.
    #[inline]
    fn square(file: i32, rank: i32) -> Option<Square> {
        ((0..Self::FILES as i32).contains(&file) && (0..Self::RANKS as i32).contains(&rank))
            .then(|| Square((rank * Self::FILES as i32 + file) as u8))
    }
    /// The file of a square.
    #[inline(always)]
    fn file_of(sq: Square) -> File {
        File(sq.0 % Self::FILES)
    }
    /// The rank of a square.
    #[inline(always)]
    fn rank_of(sq: Square) -> Rank {
        Rank(sq.0 / Self::FILES)
    }
    /// The square reached from `sq` by `d`, if on the board.
    #[inline]
    fn offset(sq: Square, d: Delta) -> Option<Square> {
        Self::square(Self::file_of(sq).0 as i32 + d.df as i32, Self::rank_of(sq).0 as i32 + d.dr as i32)
    }
    /// The squares of a file.
    #[inline(always)]
    fn file_mask(f: File) -> Self::Bits {
        Self::FILE_A << f.0 as u32
    }
    /// The squares of a rank.
    #[inline(always)]
    fn rank_mask(r: Rank) -> Self::Bits {
        Self::RANK_1 << (r.0 as u32 * Self::FILES as u32)
    }
    /// Moves every square one rank up (towards Black), dropping those that leave the board.
    #[inline(always)]
    fn north(b: Self::Bits) -> Self::Bits {
        (b << Self::FILES as u32) & Self::ALL
    }
    /// Moves every square one rank down.
    #[inline(always)]
    fn south(b: Self::Bits) -> Self::Bits {
        b >> Self::FILES as u32
    }
    /// Moves every square one file right.
    #[inline(always)]
    fn east(b: Self::Bits) -> Self::Bits {
        (b & !Self::file_mask(File(Self::FILES - 1))) << 1
    }
    /// Moves every square one file left.
    #[inline(always)]
    fn west(b: Self::Bits) -> Self::Bits {
        (b & !Self::FILE_A) >> 1
    }
    /// The squares strictly between `a` and `b` on a common line (empty if none).
    #[inline(always)]
    fn between(a: Square, b: Square) -> Self::Bits {
        Self::geometry().between(a, b)
    }
    /// The whole line through `a` and `b`, both included (empty if none).
    #[inline(always)]
    fn line(a: Square, b: Square) -> Self::Bits {
        Self::geometry().line(a, b)
    }
    /// The squares from `sq` (exclusive) to the edge in direction `d`.
    #[inline(always)]
    fn ray(sq: Square, d: Dir) -> Self::Bits {
        Self::geometry().ray(sq, d)
    }
    /// The square's name, e.g. `e4` or `j10`.
    fn square_name(sq: Square) -> String {
        format!("{}{}", Self::file_of(sq), Self::rank_of(sq))
    }
    /// Parses a square name such as `e4` or `j10`.
    fn parse_square(s: &str) -> Option<Square> {
        let mut chars = s.chars();
        let f = File::from_letter(chars.next()?)?;
        let rest = chars.as_str();
        if rest.is_empty() || rest.starts_with('0') || !rest.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let r: i32 = rest.parse().ok()?;
        Self::square(f.0 as i32, r - 1)
    }
    /// Builds a leaper attack table: for each square, the squares reached by the deltas.
    fn leaper_table(deltas: &[Delta]) -> Box<[Self::Bits]> {
        (0..Self::SQUARES)
            .map(|s| {
                deltas
                    .iter()
                    .filter_map(|&d| Self::offset(Square(s), d))
                    .fold(Self::Bits::ZERO, |acc, t| acc | Self::Bits::bit(t))
            })
            .collect()
    }
    /// Reference slider attacks by walking rays (slow; for tests and table building).
    fn slow_ride(sq: Square, dirs: &[Delta], occ: Self::Bits) -> Self::Bits {
        let mut out = Self::Bits::ZERO;
        for &d in dirs {
            let mut cur = sq;
            while let Some(t) = Self::offset(cur, d) {
                out |= Self::Bits::bit(t);
                if occ.has(t) {
                    break;
                }
                cur = t;
            }
        }
        out
    }
}

/// Precomputed rays, between-squares and lines for one shape.
pub struct Geometry<B> {
    n: usize,
    rays: [Box<[B]>; 8],
    between: Box<[B]>,
    line: Box<[B]>,
}

impl<B: Bits> Geometry<B> {
    fn build<S: Shape<Bits = B>>() -> Geometry<B> {
        let n = S::SQUARES as usize;
        let rays: [Box<[B]>; 8] = core::array::from_fn(|d| {
            (0..S::SQUARES).map(|s| S::slow_ride(Square(s), &[DIRECTIONS[d]], B::ZERO)).collect()
        });
        let mut between = vec![B::ZERO; n * n];
        let mut line = vec![B::ZERO; n * n];
        for a in 0..n {
            for (d, ray) in rays.iter().enumerate() {
                for b in ray[a].iter() {
                    let back = &rays[(d + 4) % 8];
                    between[a * n + b.idx()] = ray[a] & back[b.idx()];
                    line[a * n + b.idx()] = ray[a] | back[a] | B::bit(Square(a as u8));
                }
            }
        }
        Geometry { n, rays, between: between.into(), line: line.into() }
    }

    /// Squares strictly between `a` and `b` on a common line.
    #[inline(always)]
    pub fn between(&self, a: Square, b: Square) -> B {
        self.between[a.idx() * self.n + b.idx()]
    }
    /// The full line through `a` and `b`.
    #[inline(always)]
    pub fn line(&self, a: Square, b: Square) -> B {
        self.line[a.idx() * self.n + b.idx()]
    }
    /// The ray from `sq` in direction `d` (exclusive of `sq`).
    #[inline(always)]
    pub fn ray(&self, sq: Square, d: Dir) -> B {
        self.rays[d.0 as usize][sq.idx()]
    }

    /// [`Shape::slider_attackers`] a ray at a time, looking only along the
    /// rays that hold a candidate (no lookup tables for the whole line).
    #[inline(always)]
    pub fn slider_attackers(&self, sq: Square, occ: B, orth: B, diag: B) -> B {
        let mut a = B::ZERO;
        for d in 0..8 {
            let ray = self.rays[d][sq.idx()];
            let candidates = ray & if d % 2 == 0 { orth } else { diag };
            if candidates.any() {
                let blockers = ray & (occ | candidates);
                let first = if Dir(d as u8).is_positive() { blockers.lsb() } else { blockers.msb() };
                a |= B::bit(Square(first as u8)) & candidates;
            }
        }
        a
    }

    /// Attacks along one ray, stopping at (and including) the first blocker.
    #[inline(always)]
    pub fn ray_attacks(&self, sq: Square, d: Dir, occ: B) -> B {
        let ray = self.rays[d.0 as usize][sq.idx()];
        let blockers = ray & occ;
        if blockers.is_empty() {
            return ray;
        }
        let first = if d.is_positive() { blockers.lsb() } else { blockers.msb() };
        ray ^ self.rays[d.0 as usize][first as usize]
    }
}

/// The orthodox 8x8 board on `u64`.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct Board8x8;

/// The 10x10 board on `u128` (files a–j, ranks 1–10).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct Board10x10;

static GEOMETRY_8: LazyLock<Geometry<u64>> = LazyLock::new(Geometry::build::<Board8x8>);
static MAGICS_8: LazyLock<MagicTables> = LazyLock::new(MagicTables::build);
static GEOMETRY_10: LazyLock<Geometry<u128>> = LazyLock::new(Geometry::build::<Board10x10>);

impl Shape for Board8x8 {
    type Bits = u64;
    const FILES: u8 = 8;
    const RANKS: u8 = 8;
    const ALL: u64 = u64::MAX;
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    const RANK_1: u64 = 0xFF;
    const NAME: &'static str = "8x8";
    type Mailbox = [u8; 64];
    const EMPTY_MAILBOX: [u8; 64] = [0; 64];

    #[inline(always)]
    fn geometry() -> &'static Geometry<u64> {
        &GEOMETRY_8
    }
    #[inline(always)]
    fn rook_attacks(sq: Square, occ: u64) -> u64 {
        MAGICS_8.rook(sq.0, occ)
    }
    #[inline(always)]
    fn bishop_attacks(sq: Square, occ: u64) -> u64 {
        MAGICS_8.bishop(sq.0, occ)
    }
}

const fn file_a_10() -> u128 {
    let mut b = 0u128;
    let mut r = 0;
    while r < 10 {
        b |= 1u128 << (r * 10);
        r += 1;
    }
    b
}

impl Shape for Board10x10 {
    type Bits = u128;
    const FILES: u8 = 10;
    const RANKS: u8 = 10;
    const ALL: u128 = (1u128 << 100) - 1;
    const FILE_A: u128 = file_a_10();
    const RANK_1: u128 = 0x3FF;
    const NAME: &'static str = "10x10";
    type Mailbox = [u8; 100];
    const EMPTY_MAILBOX: [u8; 100] = [0; 100];

    #[inline(always)]
    fn geometry() -> &'static Geometry<u128> {
        &GEOMETRY_10
    }
    #[inline(always)]
    fn rook_attacks(sq: Square, occ: u128) -> u128 {
        let g = &*GEOMETRY_10;
        g.ray_attacks(sq, Dir::N, occ)
            | g.ray_attacks(sq, Dir::E, occ)
            | g.ray_attacks(sq, Dir::S, occ)
            | g.ray_attacks(sq, Dir::W, occ)
    }
    #[inline(always)]
    fn bishop_attacks(sq: Square, occ: u128) -> u128 {
        let g = &*GEOMETRY_10;
        g.ray_attacks(sq, Dir::NE, occ)
            | g.ray_attacks(sq, Dir::SE, occ)
            | g.ray_attacks(sq, Dir::SW, occ)
            | g.ray_attacks(sq, Dir::NW, occ)
    }
    #[inline(always)]
    fn slider_attackers(sq: Square, occ: u128, orth: u128, diag: u128) -> u128 {
        GEOMETRY_10.slider_attackers(sq, occ, orth, diag)
    }
}
