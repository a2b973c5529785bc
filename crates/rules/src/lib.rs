//! Chess variants defined as data and interpreted at run time.
//!
//! Pieces are described in Betza notation ([`betza`]), variants in
//! Fairy-Stockfish's `variants.ini` format ([`Definitions`]), and a
//! [`Position`] generates legal moves for any such variant on boards up to
//! 12 files by 10 ranks, matching Fairy-Stockfish's move generation.
//!
//! ```
//! use menagerie_rules::{Definitions, Position};
//! let defs = Definitions::builtin();
//! let capablanca = defs.get("capablanca").unwrap();
//! let pos = Position::start(capablanca);
//! assert_eq!(pos.perft(1), 28);
//! let pos = pos.play(pos.parse_move("e2e4").unwrap());
//! assert!(pos.fen().starts_with("rnabqkbcnr/pppppppppp/10/10/4P5/10/PPPP1PPPPP/RNABQKBCNR b KQkq"));
//! ```

pub mod betza;
mod ini;
mod position;
mod variant;

pub use ini::{BUILTIN_INI, CountingRule, DefinitionError, Definitions, GameEnd, GameValue, MAX_FILES, MAX_RANKS};
pub use position::{FenError, Move, MoveError, Position};
pub use variant::VariantDef;
