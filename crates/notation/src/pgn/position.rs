//! What PGN asks of a position, for the compiled variants
//! ([`AnyPosition`]) and the variants defined as data
//! ([`menagerie_rules::Position`]).

use super::{GameResult, PgnErrorKind, ReadOptions, check_suffix};
use crate::uci::{self, MoveError};
use crate::{fen, san};
use core::fmt;
use menagerie_pieces::Color;
use menagerie_variants::{AnyPosition, Move, VariantId};
use std::sync::Arc;

/// A position of a game PGN can record: it names its variant, reads and
/// writes FEN and SAN, plays moves and tells whether the game has ended.
/// [`super::PgnGame`] and [`super::PgnReader`] work through it, so one PGN
/// implementation serves both rule cores.
pub trait PgnPosition: Clone + PartialEq + fmt::Debug + Sized {
    /// A move of the position.
    type Move: Copy + PartialEq + fmt::Debug;
    /// The variant a game is played in.
    type Variant: Clone + fmt::Debug;

    /// The position's variant.
    fn game_variant(&self) -> Self::Variant;
    /// The value of the `Variant` tag for `variant`; `None` when no tag is
    /// written (orthodox chess).
    fn variant_tag(variant: &Self::Variant) -> Option<String>;
    /// The variant's start position.
    fn variant_start(variant: &Self::Variant) -> Self;
    /// The position a `FEN` tag describes in `variant`.
    fn from_fen_tag(variant: &Self::Variant, fen: &str) -> Result<Self, PgnErrorKind>;
    /// The position's FEN.
    fn fen_text(&self) -> String;
    /// The side to move.
    fn side(&self) -> Color;
    /// The full-move number (1 at the start of a game, grows after Black's move).
    fn fullmove(&self) -> u32;
    /// Every legal move.
    fn legal(&self) -> Vec<Self::Move>;
    /// The SAN of `m`, one of `legal` (this position's legal moves).
    fn san_of(&self, m: Self::Move, legal: &[Self::Move]) -> String;
    /// The legal move written `text` (SAN, or also coordinates with
    /// [`ReadOptions::coordinates`]).
    fn read_move(&self, text: &str, options: ReadOptions) -> Result<Self::Move, MoveError>;
    /// The position after `m`, which must be legal here.
    fn after(&self, m: Self::Move) -> Self;
    /// The result of the game if this position ends it (checkmate,
    /// stalemate, a variant's own ending; rules over the whole game, such
    /// as repetition, are not looked at).
    fn ended(&self) -> Option<GameResult>;
}

impl PgnPosition for AnyPosition {
    type Move = Move;
    type Variant = VariantId;

    fn game_variant(&self) -> VariantId {
        self.variant()
    }

    fn variant_tag(variant: &VariantId) -> Option<String> {
        (*variant != VariantId::Chess).then(|| variant.name().to_string())
    }

    fn variant_start(variant: &VariantId) -> AnyPosition {
        AnyPosition::start(*variant)
    }

    fn from_fen_tag(variant: &VariantId, text: &str) -> Result<AnyPosition, PgnErrorKind> {
        fen::parse(*variant, text).map_err(|error| PgnErrorKind::Fen {
            fen: super::cut(text),
            variant: *variant,
            error,
        })
    }

    fn fen_text(&self) -> String {
        fen::format(self)
    }

    fn side(&self) -> Color {
        self.side_to_move()
    }

    fn fullmove(&self) -> u32 {
        self.to_setup().fullmove
    }

    fn legal(&self) -> Vec<Move> {
        self.legal_moves().to_vec()
    }

    fn san_of(&self, m: Move, legal: &[Move]) -> String {
        san::format_with(self, m, legal)
    }

    fn read_move(&self, text: &str, options: ReadOptions) -> Result<Move, MoveError> {
        let (files, ranks) = self.variant().size();
        let parsed = if options.coordinates {
            crate::parse_move(self, text)
        } else if let Some(square) = uci::off_board_square(text, files, ranks) {
            Err(MoveError::OffBoard { mv: text.to_string(), square, files, ranks })
        } else {
            san::parse(self, text)
        };
        parsed.and_then(|mv| check_suffix(self, mv, text))
    }

    fn after(&self, m: Move) -> AnyPosition {
        self.play_unchecked(m)
    }

    fn ended(&self) -> Option<GameResult> {
        self.outcome().map(GameResult::from_outcome)
    }
}

impl PgnPosition for menagerie_rules::Position {
    type Move = menagerie_rules::Move;
    type Variant = Arc<menagerie_rules::VariantDef>;

    fn game_variant(&self) -> Self::Variant {
        Arc::clone(self.variant())
    }

    fn variant_tag(variant: &Self::Variant) -> Option<String> {
        Some(variant.name.clone())
    }

    fn variant_start(variant: &Self::Variant) -> Self {
        menagerie_rules::Position::start(variant)
    }

    fn from_fen_tag(variant: &Self::Variant, text: &str) -> Result<Self, PgnErrorKind> {
        menagerie_rules::Position::from_fen(variant, text).map_err(|error| PgnErrorKind::DataFen {
            fen: super::cut(text),
            variant: variant.name.clone(),
            error,
        })
    }

    fn fen_text(&self) -> String {
        self.fen()
    }

    fn side(&self) -> Color {
        if self.white_to_move() { Color::White } else { Color::Black }
    }

    fn fullmove(&self) -> u32 {
        // The FEN's sixth field.
        self.fen().split_whitespace().nth(5).and_then(|n| n.parse().ok()).unwrap_or(1).max(1)
    }

    fn legal(&self) -> Vec<Self::Move> {
        self.legal_moves()
    }

    fn san_of(&self, m: Self::Move, _legal: &[Self::Move]) -> String {
        self.san(m)
    }

    fn read_move(&self, text: &str, options: ReadOptions) -> Result<Self::Move, MoveError> {
        let parsed = if options.coordinates { self.parse_any(text) } else { self.parse_san(text) };
        parsed.map_err(|e| match e {
            menagerie_rules::MoveError::Syntax(t) => MoveError::Syntax(t),
            menagerie_rules::MoveError::Ambiguous(t) => MoveError::Ambiguous(t),
            menagerie_rules::MoveError::Illegal(mv) => {
                let reason = format!("no legal move of {} is written so", self.variant().name);
                MoveError::Illegal { mv, reason }
            }
        })
    }

    fn after(&self, m: Self::Move) -> Self {
        self.play(m)
    }

    fn ended(&self) -> Option<GameResult> {
        self.outcome().map(|o| GameResult::from(o.result))
    }
}
