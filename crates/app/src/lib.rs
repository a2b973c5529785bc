//! Menagerie's application layer: the tasks the front ends (the gRPC
//! server, the `menagerie` CLI locally or over replicas, the UCI/XBoard
//! engine) share, each written once with typed errors that every front end
//! maps to its own form.
//!
//! - [`Variants`]: the variants a request may name, and the position a
//!   request describes (variant name, FEN, moves) as a [`ParsedPosition`].
//! - [`pgn`]: reading PGN games of every variant, compiled or defined as
//!   data ([`Variants::pgn_reader`], [`Variants::read_pgn`]), and writing a
//!   request's game with tags and result ([`Variants::write_pgn`]).
//! - [`Variants::game`]: the game a request describes, as the one face's
//!   [`menagerie_game::Game`] of any variant.
//! - [`play`]: how a game stands by the game-end policy ([`play::status`]),
//!   move validation ([`Variants::validate`]), legal moves, replays, and the
//!   game a search may take ([`Variants::game_to_search`]).
//! - [`perft`]: perft and divide of any position, over threads, with the
//!   caller's stop flag, progress counter and table ([`perft::Perft`]).
//! - [`catalogue`]: every variant described ([`Variants::catalogue`]).
//! - [`board`]: SVG pictures of a request's position ([`Variants::render_board`]).
//! - [`fen_check`]: whether a FEN is a position of a variant ([`Variants::check_fen`]).
//! - [`epd`]: verifying EPD perft suites: the suite's positions, the depths
//!   to check, each line's verdict and the tally.
//!
//! ```
//! use menagerie_app::{PositionRequest, Variants};
//! let variants = Variants::builtin();
//! let p = variants.position(&PositionRequest::new("chess", "", &["e4", "e7e5"]))?;
//! assert_eq!(p.moves.len(), 2);
//! assert_eq!(p.current.count_legal(), 29);
//! # Ok::<(), menagerie_app::PositionError>(())
//! ```

pub mod board;
pub mod catalogue;
pub mod epd;
pub mod fen_check;
pub mod perft;
pub mod pgn;
pub mod play;
mod position;

/// The compiled core's copy of a position of a variant defined as data (see
/// [`menagerie_notation::twin`]).
pub use menagerie_notation::twin::compiled as compiled_twin;
pub use menagerie_rules::{Game as DataGame, Loaded, Move as DataMove, Position as DataPosition, Skipped, VariantDef};
pub use position::{
    GamePosition, LoadError, ParsedPosition, PositionError, PositionRequest, TWIN_DEPTH, UnknownVariant, VariantRef,
    Variants, compiled_twin_for, play_moves,
};

/// Nodes per second of `nodes` counted in `seconds` (0 for no time).
pub fn nps(nodes: u64, seconds: f64) -> u64 {
    if seconds > 0.0 { (nodes as f64 / seconds) as u64 } else { 0 }
}
