//! [`AnyPosition`]: a position of a variant chosen at run time, and
//! [`Game`]: a position with its history (for repetition).

use crate::gating::Gating;
use crate::kidnap::Kidnap;
use crate::make::IllegalMove;
use crate::moves::{Move, MoveKind, MoveList};
use crate::outcome::{DrawReason, Outcome};
use crate::perft;
use crate::position::Position;
use crate::setup::{PositionError, Setup};
use crate::variant::{
    Alpaca, Alpaca2, AlpacaSameFile, Alseid, AlseidWeak, CamelRhino, CamelRhinoPlain, Chess, Chess960, Variant,
    VariantId,
};
use menagerie_geometry::Square;
use menagerie_pieces::{Color, Piece, PieceKind};

macro_rules! any_position {
    ($( $id:ident => $ty:ty ),* $(,)?) => {
        /// A position of any variant.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum AnyPosition {
            $(
                #[doc = concat!("A `", stringify!($ty), "` position.")]
                $id(Position<$ty>),
            )*
        }

        macro_rules! dispatch {
            ($self:expr, $p:ident => $e:expr) => {
                match $self { $( AnyPosition::$id($p) => $e, )* }
            };
        }

        macro_rules! rewrap {
            ($self:expr, $p:ident => $e:expr) => {
                match $self { $( AnyPosition::$id($p) => AnyPosition::$id($e), )* }
            };
        }

        macro_rules! try_rewrap {
            ($self:expr, $p:ident => $e:expr) => {
                match $self { $( AnyPosition::$id($p) => AnyPosition::$id($e?), )* }
            };
        }

        impl AnyPosition {
            /// The start position of `variant`.
            pub fn start(variant: VariantId) -> AnyPosition {
                match variant { $( VariantId::$id => AnyPosition::$id(Position::start()), )* }
            }
            /// Validates `setup` as a position of `variant`.
            pub fn from_setup(variant: VariantId, setup: &Setup) -> Result<AnyPosition, PositionError> {
                Ok(match variant { $( VariantId::$id => AnyPosition::$id(Position::from_setup(setup)?), )* })
            }
            /// The variant.
            pub fn variant(&self) -> VariantId {
                match self { $( AnyPosition::$id(_) => VariantId::$id, )* }
            }
        }

        impl AnyPosition {
            /// Calls `visitor` with the concrete, monomorphic position.
            pub fn visit<R: PositionVisitor>(&self, visitor: R) -> R::Output {
                match self { $( AnyPosition::$id(p) => visitor.visit(p), )* }
            }
        }

        impl VariantId {
            /// The variant's rule constants.
            pub fn rules(self) -> Rules {
                match self { $( VariantId::$id => Rules::of::<$ty>(), )* }
            }
        }
    };
}

any_position! {
    Chess => Chess,
    Alpaca => Alpaca,
    Alpaca2 => Alpaca2,
    AlpacaSameFile => AlpacaSameFile,
    Alseid => Alseid,
    AlseidWeak => AlseidWeak,
    CamelRhino => CamelRhino,
    CamelRhinoPlain => CamelRhinoPlain,
    Chess960 => Chess960,
}

/// Public methods of [`AnyPosition`] that call the concrete position's
/// method of the same name and arguments.
macro_rules! delegate {
    ($($(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {$(
        $(#[$doc])*
        pub fn $name(&self $(, $arg: $ty)*) -> $ret {
            dispatch!(self, p => p.$name($($arg),*))
        }
    )*};
}

impl AnyPosition {
    delegate! {
        /// The position as plain data.
        fn to_setup(&self) -> Setup;
        /// Every legal move.
        fn legal_moves(&self) -> MoveList;
        /// Legal captures, conversions and promotions (see [`Position::tactical_moves`]).
        fn tactical_moves(&self) -> MoveList;
        /// True if `m` captures, converts or promotes.
        fn is_tactical(&self, m: Move) -> bool;
        /// Number of legal moves.
        fn count_legal(&self) -> u64;
        /// Side to move.
        fn side_to_move(&self) -> Color;
        /// The piece on a square.
        fn piece_at(&self, sq: Square) -> Option<Piece>;
        /// True if `by` attacks `sq` (RULES.md §0: ordinary capturing moves
        /// only, in the current position). For explaining illegal moves and
        /// other callers outside the move generator.
        fn is_attacked(&self, sq: Square, by: Color) -> bool;
        /// True if the side to move is in check.
        fn is_check(&self) -> bool;
        /// True if the legal move `m` gives check (see [`Position::gives_check`]).
        fn gives_check(&self, m: Move) -> bool;
        /// Zobrist key.
        fn hash(&self) -> u64;
        /// Zobrist key computed from scratch.
        fn compute_hash(&self) -> u64;
        /// Halfmove clock.
        fn halfmove_clock(&self) -> u32;
        /// True when `side` alone cannot checkmate (see
        /// [`Position::insufficient_material_for`]).
        fn insufficient_material_for(&self, side: Color) -> bool;
        /// True when neither side can mate (the draw rule).
        fn insufficient_material(&self) -> bool;
        /// Fullmove number (starts at 1, grows after Black's move).
        fn fullmove_number(&self) -> u32;
        /// Outcome from this position alone (see [`Game::outcome`] for repetition).
        fn outcome(&self) -> Option<Outcome>;
    }
    /// Plays a legal move.
    pub fn play(&self, m: Move) -> Result<AnyPosition, IllegalMove> {
        Ok(try_rewrap!(self, p => p.play(m)))
    }
    /// Plays a move known to be legal.
    pub fn play_unchecked(&self, m: Move) -> AnyPosition {
        rewrap!(self, p => p.play_unchecked(m))
    }
    /// The castling rook's square of each right held (see
    /// [`Position::castling_rook`]), in the order of [`crate::Castling::RIGHTS`].
    pub fn castling_rooks(&self) -> [Option<Square>; 4] {
        dispatch!(self, p => [0, 1, 2, 3].map(|i| p.castling_rook(i)))
    }
    /// True if `m` takes or converts an enemy piece: a capture, en passant,
    /// or a takeover (SAN writes these with `x`).
    pub fn is_capture(&self, m: Move) -> bool {
        match m.kind {
            MoveKind::EnPassant | MoveKind::Takeover | MoveKind::Jump => true,
            MoveKind::Normal => self.piece_at(m.from).zip(self.piece_at(m.to)).is_some_and(|(a, b)| a.color != b.color),
            _ => false,
        }
    }
    /// Leaf count at `depth`.
    pub fn perft(&self, depth: u32) -> u64 {
        dispatch!(self, p => perft::perft(p, depth))
    }
    /// Leaf count per root move.
    pub fn divide(&self, depth: u32) -> Vec<(Move, u64)> {
        dispatch!(self, p => perft::divide(p, depth))
    }
    /// Leaf count with root moves spread over rayon's pool.
    pub fn perft_parallel(&self, depth: u32) -> u64 {
        dispatch!(self, p => perft::perft_parallel(p, depth))
    }
    /// Leaf count that can be stopped (`None` then) and reports progress.
    pub fn perft_controlled(&self, depth: u32, ctl: &perft::PerftControl<'_>) -> Option<u64> {
        dispatch!(self, p => perft::perft_controlled(p, depth, ctl))
    }
    /// Leaf count with a transposition table of `mb` megabytes.
    pub fn perft_hashed(&self, depth: u32, mb: usize, threads: usize) -> u64 {
        dispatch!(self, p => perft::perft_hashed(p, depth, mb, threads))
    }
}

/// Generic code run on the concrete position inside an [`AnyPosition`]
/// (see [`AnyPosition::visit`]): the way to reach monomorphic hot loops
/// from a variant chosen at run time.
pub trait PositionVisitor {
    /// What the visit returns.
    type Output;
    /// Runs on the concrete position.
    fn visit<V: Variant>(self, pos: &Position<V>) -> Self::Output;
}

/// A variant's rule constants, for code that picks the variant at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Piece kinds that may stand on the board (bit mask by kind index).
    pub kinds: u16,
    /// Pawn promotion choices.
    pub promotions: &'static [PieceKind],
    /// Castling.
    pub castling: bool,
    /// Chess960 castling (any king and rook files; castling moves are
    /// written king-takes-rook).
    pub chess960: bool,
    /// Pioneer gating.
    pub gating: Option<Gating>,
    /// Alseid kidnapping.
    pub kidnap: Kidnap,
    /// Takeover captures.
    pub takeovers: bool,
    /// Swaps.
    pub swaps: bool,
    /// A side with neither Camel nor Rhino loses.
    pub camel_rhino_loss: bool,
    /// Wazirs promote on the last rank.
    pub wazir_promotes: bool,
    /// Rank (from the owner's side, 0-based) from which pawns may double-step.
    pub double_step_rank: u8,
    /// Pawns may stand on the first and last ranks.
    pub pawns_anywhere: bool,
}

impl Rules {
    fn of<V: Variant>() -> Rules {
        Rules {
            kinds: V::KINDS,
            promotions: V::PROMOTIONS,
            castling: V::CASTLING,
            chess960: V::CHESS960,
            gating: V::GATING,
            kidnap: V::KIDNAP,
            takeovers: V::TAKEOVERS,
            swaps: V::SWAPS,
            camel_rhino_loss: V::CAMEL_RHINO_LOSS,
            wazir_promotes: V::WAZIR_PROMOTES,
            double_step_rank: V::DOUBLE_STEP_RANK,
            pawns_anywhere: V::PAWNS_ANYWHERE,
        }
    }
}

impl Rules {
    /// The piece kinds that may stand on the board.
    pub fn piece_kinds(&self) -> Vec<PieceKind> {
        PieceKind::ALL.into_iter().filter(|&k| self.kinds & (1 << k as u16) != 0).collect()
    }

    /// The piece kinds of the game: those that may stand on the board, then
    /// the gating reserve piece if it is not among them.
    pub fn all_kinds(&self) -> Vec<PieceKind> {
        let mut kinds = self.piece_kinds();
        if let Some(g) = self.gating
            && !kinds.contains(&g.piece)
        {
            kinds.push(g.piece);
        }
        kinds
    }
}

/// A game: a start position, the moves played and the positions' keys, for
/// threefold repetition.
#[derive(Clone, Debug)]
pub struct Game {
    start: AnyPosition,
    current: AnyPosition,
    moves: Vec<Move>,
    keys: Vec<u64>,
}

impl Game {
    /// A game from `start`.
    pub fn new(start: AnyPosition) -> Game {
        Game { start, current: start, moves: Vec::new(), keys: vec![start.hash()] }
    }
    /// Plays a legal move.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        self.current = self.current.play(m)?;
        self.moves.push(m);
        self.keys.push(self.current.hash());
        Ok(())
    }
    /// Plays a move known to be legal (one of the current position's
    /// legal moves; otherwise the game is unspecified but memory-safe).
    pub fn play_unchecked(&mut self, m: Move) {
        self.current = self.current.play_unchecked(m);
        self.moves.push(m);
        self.keys.push(self.current.hash());
    }
    /// The current position.
    pub fn position(&self) -> &AnyPosition {
        &self.current
    }
    /// The start position.
    pub fn start(&self) -> &AnyPosition {
        &self.start
    }
    /// The moves played.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }
    /// How many times the current position has occurred (including now).
    pub fn repetitions(&self) -> usize {
        let key = self.current.hash();
        let window = self.current.halfmove_clock() as usize + 1;
        self.keys.iter().rev().take(window).filter(|&&k| k == key).count()
    }
    /// The outcome, including threefold repetition.
    pub fn outcome(&self) -> Option<Outcome> {
        match self.current.outcome() {
            Some(o @ Outcome::Win { .. }) | Some(o @ Outcome::Draw(DrawReason::Stalemate)) => Some(o),
            other => {
                if self.repetitions() >= 3 {
                    Some(Outcome::Draw(DrawReason::Repetition))
                } else {
                    other
                }
            }
        }
    }
}
