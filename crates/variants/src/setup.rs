//! Unvalidated position data ([`Setup`]) and the errors met when turning it
//! into a [`crate::Position`].

use crate::castling::Castling;
use crate::gating::Reserve;
use menagerie_geometry::Square;
use menagerie_pieces::{Color, Piece};
use thiserror::Error;

/// Everything a FEN says, not yet checked against a variant's rules.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Setup {
    /// Board width.
    pub files: u8,
    /// Board height.
    pub ranks: u8,
    /// Pieces on the board.
    pub pieces: Vec<(Square, Piece)>,
    /// Side to move.
    pub side: Color,
    /// Castling rights.
    pub castling: Castling,
    /// The castling rook's file of each right (indexed as
    /// [`Castling::RIGHTS`]: `K`, `Q`, `k`, `q`), when the FEN named it by
    /// its file letter (Shredder-FEN, or X-FEN for an inner rook); `None`
    /// for `K`/`Q`/`k`/`q`, which mean the h/a-file rook in orthodox
    /// variants and the outermost rook on that side of the king in
    /// Chess960. Ignored for rights not held.
    pub castling_files: [Option<u8>; 4],
    /// En passant target square.
    pub ep: Option<Square>,
    /// Halfmove clock (plies since the last capture or pawn move).
    pub halfmove: u32,
    /// Fullmove number, starting at 1.
    pub fullmove: u32,
    /// Reserve bracket; `None` when the FEN has none.
    pub reserve: Option<Reserve>,
}

/// Why a [`Setup`] is not a valid position of a variant.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum PositionError {
    /// No variant has this name.
    #[error("unknown variant '{0}' (known: {names})", names = crate::VariantId::names())]
    UnknownVariant(String),
    /// The board has the wrong size for the variant.
    #[error("board is {got_files}x{got_ranks}, {variant} is played on {files}x{ranks}")]
    BoardSize {
        /// Variant name.
        variant: &'static str,
        /// Expected files.
        files: u8,
        /// Expected ranks.
        ranks: u8,
        /// Files given.
        got_files: u8,
        /// Ranks given.
        got_ranks: u8,
    },
    /// A piece kind the variant does not have.
    #[error("piece '{piece}' on {square} does not exist in {variant}")]
    PieceNotInVariant {
        /// FEN letter.
        piece: char,
        /// Square name.
        square: String,
        /// Variant name.
        variant: &'static str,
    },
    /// Two pieces on one square.
    #[error("two pieces on {0}")]
    DoubleOccupancy(String),
    /// Not exactly one king of a colour.
    #[error("{color} has {count} kings; exactly one is required", color = color.name())]
    KingCount {
        /// The colour.
        color: Color,
        /// How many kings it has.
        count: u32,
    },
    /// A pawn on its first or last rank where the variant forbids it.
    #[error("pawn on {0}: pawns cannot stand on the first or last rank")]
    PawnOnBackRank(String),
    /// The side not to move is in check.
    #[error("{} is in check but it is {}'s move", .0.flip().name(), .0.name())]
    OppositeCheck(Color),
    /// Castling right without king and rook on their squares.
    #[error("castling right '{0}' needs the king and rook on their original squares")]
    CastlingRight(char),
    /// Castling rights in a variant without castling.
    #[error("{0} has no castling")]
    NoCastling(&'static str),
    /// En passant square inconsistent with the position.
    #[error("en passant square {square}: {reason}")]
    EnPassant {
        /// Square name.
        square: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A reserve bracket in a variant without reserves.
    #[error("{0} has no reserve pieces; remove the [..] bracket")]
    NoReserve(&'static str),
    /// A reserve piece of the wrong kind.
    #[error("reserve piece '{piece}' is not {variant}'s reserve piece '{expected}'")]
    ReservePiece {
        /// The letter given.
        piece: char,
        /// The expected letter.
        expected: char,
        /// Variant name.
        variant: &'static str,
    },
    /// More reserve pieces than the variant allows.
    #[error("{color} has {count} reserve pieces; {variant} allows {max}", color = color.name())]
    ReserveCount {
        /// The colour.
        color: Color,
        /// How many were given.
        count: usize,
        /// The maximum.
        max: u8,
        /// Variant name.
        variant: &'static str,
    },
    /// The decision marker `?` with a state that is not the decision phase.
    #[error("decision marker '?' needs every reserve piece unplaced and in full number")]
    PendingState,
    /// Reserve pieces in hand outside the prelude order.
    #[error("{0}")]
    PreludeOrder(&'static str),
    /// A live gate whose home square does not hold its owner's piece.
    #[error("gate {color} {file}: home square {square} does not hold a {color} piece", color = color.name())]
    GateHome {
        /// Owner.
        color: Color,
        /// Gate file letter.
        file: char,
        /// Home square name.
        square: String,
    },
    /// An Alseid on a live gate's home square.
    #[error("an Alseid stands on live gate square {0}")]
    AlseidOnGate(String),
    /// Gate files that the rules forbid together.
    #[error("gate files not allowed: {0}")]
    GateFiles(&'static str),
}
