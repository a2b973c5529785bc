//! Board geometry for Menagerie: board shapes as types, squares, bitboards,
//! leaper tables and slider attacks.
//!
//! ```
//! use menagerie_geometry::{Bits, Board8x8, Board10x10, Shape};
//! let e4 = Board8x8::parse_square("e4").unwrap();
//! assert_eq!(Board8x8::rook_attacks(e4, 0).popcnt(), 14);
//! let j10 = Board10x10::parse_square("j10").unwrap();
//! assert_eq!(Board10x10::bishop_attacks(j10, 0).popcnt(), 9);
//! ```
//!
//! Slider attacks: magic bitboards on 8x8 (embedded multipliers found by
//! [`search_magics`]); first-blocker ray scans on 10x10, where a magic table over
//! `u128` would need tens of megabytes.

mod bits;
mod magic;
mod shape;
mod square;

pub use bits::{Bits, SquareIter};
pub use magic::search_magics;
pub use shape::{Board8x8, Board10x10, Geometry, Shape};
pub use square::{DIRECTIONS, Delta, Dir, File, Rank, Square};

#[cfg(test)]
mod tests;
