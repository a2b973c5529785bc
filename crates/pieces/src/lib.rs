//! The piece kinds of Menagerie's games, their plain movement as data
//! (leaps, rides, move-only and capture-only parts, passed squares), FEN
//! letters, nominal values, and attack tables built from the data for each
//! board shape.
//!
//! ```
//! use menagerie_geometry::{Bits, Board8x8, Board10x10, Shape};
//! use menagerie_pieces::{Color, Piece, PieceKind, PieceShape};
//! let alpaca = Piece::new(Color::White, PieceKind::Alpaca);
//! let d4 = Board8x8::parse_square("d4").unwrap();
//! // The Alpaca attacks only its four orthogonal neighbours…
//! assert_eq!(Board8x8::attacks(alpaca, d4, 0).popcnt(), 4);
//! // …but may also jump two squares to an empty square.
//! assert_eq!(Board8x8::quiet_moves(alpaca, d4, 0).popcnt(), 8);
//! let camel = Piece::new(Color::Black, PieceKind::Camel);
//! let e5 = Board10x10::parse_square("e5").unwrap();
//! assert_eq!(Board10x10::attacks(camel, e5, 0).popcnt(), 12);
//! ```
//!
//! Special powers that are not movement — Alseid kidnapping, takeovers,
//! swaps, Pioneer gating — are rules and live in the `variants` crate.

mod kind;
mod movement;
mod tables;

pub use kind::{Color, KIND_COUNT, Piece, PieceKind};
pub use movement::{Leap, Mode, Movement, OrientedLeap, Ride};
pub use tables::{LeapTarget, PieceShape, PieceTables, RideFlags};

#[cfg(test)]
mod tests;
