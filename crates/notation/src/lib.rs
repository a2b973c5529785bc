//! Notation for Menagerie's games: FEN with each variant's extensions,
//! coordinate (UCI) moves, SAN, PGN game files and EPD perft suites.
//!
//! ```
//! use menagerie_notation::{fen, san, uci};
//! use menagerie_variants::VariantId;
//! let pos = fen::parse_or_start(VariantId::Chess, "")?;
//! let m = san::parse(&pos, "Nf3")?;
//! assert_eq!(uci::format(VariantId::Chess, m), "g1f3");
//! let after = pos.play(m).unwrap();
//! assert_eq!(fen::format(&after), "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod epd;
pub mod fen;
pub mod pgn;
pub mod san;
pub mod twin;
pub mod uci;
mod why;
pub mod xboard;

use menagerie_variants::{AnyPosition, Move};

pub use pgn::{
    AnyPgnGame, DataPgnGame, GameResult, PgnError, PgnGame, PgnMove, PgnPosition, PgnReader, ReadOptions, Variation,
};
pub use uci::MoveError;

/// Reads a move in coordinate form or SAN.
pub fn parse_move(pos: &AnyPosition, text: &str) -> Result<Move, MoveError> {
    parse_move_in(pos, text, &pos.legal_moves())
}

/// [`parse_move`] given the legal moves of `pos` (avoids regenerating them).
pub fn parse_move_in(pos: &AnyPosition, text: &str, legal: &[Move]) -> Result<Move, MoveError> {
    let t = text.trim();
    let (files, ranks) = pos.variant().size();
    if let Some(square) = uci::off_board_square(t, files, ranks) {
        return Err(MoveError::OffBoard { mv: t.to_string(), square, files, ranks });
    }
    if uci::looks_like_coordinate(t) {
        match uci::parse_in(pos, t, legal) {
            Ok(m) => return Ok(m),
            // `b4` style pawn moves never look like coordinates, but some
            // SAN (`Bb4b5`?) might; fall through to SAN on illegality.
            Err(e @ MoveError::Illegal { .. }) => return san::parse_in(pos, t, legal).map_err(|_| e),
            Err(_) => {}
        }
    }
    san::parse_in(pos, t, legal)
}
