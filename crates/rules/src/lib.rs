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
//!
//! # Fidelity to Fairy-Stockfish
//!
//! Move generation follows Fairy-Stockfish's behaviour rather than an
//! idealised reading of the rules, so that perft counts and legal move lists
//! agree with it (checked against its published perft suite and, in
//! development, against pyffish along random games of every built-in variant
//! and of random Betza pieces):
//!
//! - A piece's moves of one modality are its plain leaps plus what its rider
//!   families (rook lines, bishop lines, nightrider lines, cannons,
//!   grasshoppers, lame dabbaba/horse/elephant/janggi-elephant leaps) reach,
//!   restricted to the squares its own atoms reach on an empty board. Riders
//!   of other atoms (`DD`, `AA`) therefore add no moves, and e.g. `fRpR`
//!   also slides backwards, exactly as in Fairy-Stockfish.
//! - A piece gated in S-chess does not shield its king in the legality test
//!   of its own move (Fairy-Stockfish tests the move without it).
//! - Castling is refused in check and through or into attacked squares,
//!   tested with the king still on its square; a gated piece may not land on
//!   the king's or rook's destination.
//! - En passant squares in a FEN are kept only if a pawn can take there and
//!   an enemy pawn stands in front; after a double step one is set only if an
//!   enemy pawn can take.
//! - Extinction (e.g. the bare king of shatranj and courier), a flag reached
//!   (king of the hill, racing kings) and the last check of a check-counting
//!   variant (three-check) end the game at once, in Fairy-Stockfish's order:
//!   such positions have no legal moves. [`Position::outcome`] reports
//!   them, checkmate and stalemate with the variant's values; the
//!   n-move and n-fold rules and counting are data for the caller
//!   ([`GameEnd`]); Makruk's counting is kept in the FEN as Fairy-Stockfish
//!   writes it.
//! - Forced captures (`mustCapture`: antichess) keep only the legal
//!   captures when there is one; atomic's blasts (`blastOnCapture`) and its
//!   king (`extinctionPseudoRoyal`: royal while it is the last of its type,
//!   judged with the pieces royal before the move, immune next to the enemy
//!   king, free to ignore its own safety when it blows up the enemy king)
//!   follow Fairy-Stockfish; `stalematePieceCount` values a stalemate by
//!   the piece counts (suicide).

//!
//! # Menagerie's own rules
//!
//! Beyond Fairy-Stockfish's keys, Menagerie's own mechanisms are rule
//! options: Pioneer gating with its prelude (`pioneerGating`,
//! `pioneerSameFile`: reserve pieces from the start FEN's bracket `[Aa?]`,
//! moves `accept`, `decline`, `A@g`, SAN `Nf3(A@g1)`), kidnapping
//! (`kidnapper`, `kidnapOneStep`: SAN `Se4-e6(Ke1-e4)`), takeovers
//! (`leapTakeovers`, `enabledLeapTakeovers`, `enabledJumpTakeovers`,
//! `takeoverEnablers`: `d4e7t`, SAN `Cxe7(=d5)(=d6)`), swaps (`swaps`,
//! `swapExcept`: SAN `Ka1<>Rb1`), promoting pieces (`promotingPieces`) and
//! extinction of a set of types together (`extinctionTogether`).
//! [`MENAGERIE_INI`] defines Alpaca, Alseid and Camel and Rhino Chess with
//! them, checked against the compiled games' perft suites.

pub mod betza;
mod ini;
mod position;
mod variant;

pub use ini::{
    BUILTIN_INI, CountingRule, DefinitionError, Definitions, GameEnd, GameValue, LoadOptions, Loaded, MAX_FILES,
    MAX_RANKS, MENAGERIE_INI, MaterialCounting, Skipped,
};
pub use position::access::Piece;
pub use position::{EndReason, FenError, Game, GameResult, Move, MoveError, Outcome, Position};
pub use variant::{CastlingSquares, PieceInfo, RuleFacts, TakeoverFacts, VariantDef};
