//! The rules of Menagerie's games.
//!
//! A [`Variant`] is a set of compile-time rule constants; [`Position<V>`] is
//! generic over it so move generation and perft are monomorphised per
//! variant. The games are not written here: each is a section of a
//! `variants.ini` file (`crates/rules/menagerie.ini`, and `chess`/`chess960`
//! of `crates/rules/variants.ini`), which `build.rs` reads through
//! `menagerie-rules` and compiles into its `Variant` constants — name,
//! board, start position, pieces, promotions, castling, double steps, Pioneer
//! gating, kidnapping, takeovers, swaps, promoting pieces and the loss of the
//! last Camel and Rhino. The same definitions run on the data core
//! (`menagerie-rules`). A served game whose definition the compiled
//! mechanisms cannot play exactly (say, a piece no [`menagerie_pieces::PieceKind`]
//! moves as) does not stop the build: `build.rs` warns, the game's type gets
//! a stand-in, [`VariantId::not_compiled`] gives the reason, and the game is
//! in no list and answers to no name here, so the catalogue serves it on the
//! data core. [`AnyPosition`] is the dynamic face (variant chosen at run
//! time) used by notation, the CLI and the services.
//!
//! ```
//! use menagerie_variants::{Chess, Position};
//! let start = Position::<Chess>::start();
//! assert_eq!(start.count_legal(), 20);
//! assert_eq!(menagerie_variants::perft(&start, 3), 8902);
//! ```
//!
//! Chess960 ([`Chess960`], `chess960`) keeps the castling rook of each right
//! as a file ([`Position::castling_rook`]); its castling moves are
//! [`MoveKind::Castle`] moves from the king's square to the castling rook's
//! square ("king takes rook"), while the orthodox variants keep writing
//! castling king-to-square (`e1g1`). FEN castling fields are read as X-FEN
//! or Shredder-FEN ([`Setup::castling_files`]).
//!
//! Moves are copy-made: [`Position::play_unchecked`] returns the new
//! position and leaves the old one untouched, so "unmake" is keeping the old
//! value; the Zobrist key is updated incrementally and checked against
//! [`Position::compute_hash`] by property tests.
//!
//! Each variant mechanism keeps its whole rules in one module, whose
//! `impl Position<V>` blocks the generic code (`position.rs` for FEN
//! validation, `movegen.rs` for generation, `make.rs` for playing moves)
//! calls into, switched on the [`Variant`] rule constants: `castling.rs`
//! (orthodox and Chess960 castling), `gating.rs` (Pioneer gating and its
//! prelude), `kidnap.rs` (Alseid kidnapping) and `camel_rhino.rs` (takeovers,
//! swaps, promoting wazirs, the Camel/Rhino loss).

mod any;
mod camel_rhino;
mod castling;
mod compile;
mod gating;
#[cfg(feature = "generation-count")]
pub mod generations;
mod kidnap;
mod make;
mod movegen;
mod moves;
mod outcome;
mod perft;
mod position;
mod setup;
mod variant;
mod zobrist;

pub use any::{AnyPosition, Game, PositionVisitor, Rules};
pub use castling::Castling;
pub use gating::{Gates, Gating, Reserve, ReserveEntry};
pub use kidnap::Kidnap;
pub use make::IllegalMove;
pub use moves::{MAX_MOVES, Move, MoveKind, MoveList};
pub use outcome::{DrawReason, Outcome, WinReason};
pub use perft::{PerftControl, PerftTable, divide, perft, perft_controlled, perft_hashed, perft_parallel};
pub use position::{BitsOf, Position};
pub use setup::{PositionError, Setup};
pub use variant::{
    Alpaca, Alpaca2, AlpacaSameFile, Alseid, AlseidWeak, CamelRhino, CamelRhinoPlain, Chess, Chess960, ORTHODOX,
    Variant, VariantId, chess960_back_rank, chess960_start_fen, kinds,
};
