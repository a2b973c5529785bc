//! The bitboard abstraction shared by both board shapes.

use crate::Square;
use core::fmt::Debug;
use core::hash::Hash;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

/// An unsigned integer used as a set of squares (bit `i` = square `i`).
///
/// Implemented for `u64` (8x8 boards) and `u128` (10x10 boards).
pub trait Bits:
    Copy
    + Eq
    + Default
    + Debug
    + Hash
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// The empty set.
    const ZERO: Self;
    /// The set holding only square 0.
    const ONE: Self;
    /// Number of bits in the integer.
    const WIDTH: u32;

    /// Number of squares in the set.
    fn popcnt(self) -> u32;
    /// Index of the lowest square (undefined result for the empty set).
    fn lsb(self) -> u32;
    /// Index of the highest square (undefined result for the empty set).
    fn msb(self) -> u32;
    /// Widening conversion, for shape-independent code and tests.
    fn to_u128(self) -> u128;
    /// Narrowing conversion (bits above the width are dropped).
    fn from_u128(v: u128) -> Self;
    /// Wrapping multiplication (used by magic lookups).
    fn wrapping_mul(self, other: Self) -> Self;
    /// Removes the lowest square from the set.
    fn clear_lsb(self) -> Self;

    /// The set holding only square `sq`.
    #[inline(always)]
    fn bit(sq: Square) -> Self {
        Self::ONE << sq.0 as u32
    }
    /// True if no square is in the set.
    #[inline(always)]
    fn is_empty(self) -> bool {
        self == Self::ZERO
    }
    /// True if at least one square is in the set.
    #[inline(always)]
    fn any(self) -> bool {
        self != Self::ZERO
    }
    /// True if `sq` is in the set.
    #[inline(always)]
    fn has(self, sq: Square) -> bool {
        (self >> sq.0 as u32) & Self::ONE != Self::ZERO
    }
    /// True if the set holds two or more squares.
    #[inline(always)]
    fn many(self) -> bool {
        self.clear_lsb() != Self::ZERO
    }
    /// Iterates over the squares of the set, lowest first.
    #[inline(always)]
    fn iter(self) -> SquareIter<Self> {
        SquareIter(self)
    }
}

/// Iterator over the squares of a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct SquareIter<B>(B);

impl<B: Bits> Iterator for SquareIter<B> {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0.is_empty() {
            None
        } else {
            let sq = Square(self.0.lsb() as u8);
            self.0 = self.0.clear_lsb();
            Some(sq)
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.popcnt() as usize;
        (n, Some(n))
    }
}

impl<B: Bits> ExactSizeIterator for SquareIter<B> {}

macro_rules! impl_bits {
    ($t:ty) => {
        impl Bits for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const WIDTH: u32 = <$t>::BITS;
            #[inline(always)]
            fn popcnt(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lsb(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline(always)]
            fn msb(self) -> u32 {
                <$t>::BITS - 1 - self.leading_zeros()
            }
            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }
            #[inline(always)]
            fn from_u128(v: u128) -> Self {
                v as $t
            }
            #[inline(always)]
            fn wrapping_mul(self, other: Self) -> Self {
                <$t>::wrapping_mul(self, other)
            }
            #[inline(always)]
            fn clear_lsb(self) -> Self {
                self & self.wrapping_sub(1)
            }
        }
    };
}

impl_bits!(u64);
impl_bits!(u128);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_ops_u64() {
        let b = u64::bit(Square(3)) | u64::bit(Square(60));
        assert_eq!(b.popcnt(), 2);
        assert_eq!(b.lsb(), 3);
        assert_eq!(b.msb(), 60);
        assert!(b.has(Square(60)) && !b.has(Square(59)));
        assert!(b.many());
        assert_eq!(b.iter().map(|s| s.0).collect::<Vec<_>>(), vec![3, 60]);
    }

    #[test]
    fn basic_ops_u128() {
        let b = u128::bit(Square(99)) | u128::bit(Square(64)) | u128::bit(Square(0));
        assert_eq!(b.popcnt(), 3);
        assert_eq!(b.lsb(), 0);
        assert_eq!(b.msb(), 99);
        assert_eq!(b.clear_lsb().lsb(), 64);
        assert_eq!(b.iter().map(|s| s.0).collect::<Vec<_>>(), vec![0, 64, 99]);
        assert!(!<u128 as Bits>::bit(Square(5)).many());
    }
}
