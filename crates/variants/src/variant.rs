//! Variants as rule sets: a trait of constants that the generic position,
//! move generator and perft are monomorphised over, and [`VariantId`], the
//! run-time name of each variant.

use core::fmt;
use core::hash::Hash;
use menagerie_geometry::{Board8x8, Shape, Square};
use menagerie_pieces::{Color, Piece, PieceKind, PieceShape};

/// Pioneer gating parameters (RULES.md §2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Gating {
    /// The reserve piece kind.
    pub piece: PieceKind,
    /// Reserve pieces per side.
    pub count: u8,
    /// Black must choose the same file as White (`alpaca-samefile`).
    pub same_file: bool,
}

/// When an Alseid kidnaps (RULES.md §3.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kidnap {
    /// No Alseids in this variant.
    None,
    /// Every Alseid move with a victim kidnaps it.
    Always,
    /// Only one-square Alseid moves kidnap (`alseid-weak`).
    OneStep,
}

/// Bit mask of piece kinds.
pub const fn kinds(list: &[PieceKind]) -> u16 {
    let mut m = 0u16;
    let mut i = 0;
    while i < list.len() {
        m |= 1 << list[i] as u16;
        i += 1;
    }
    m
}

/// The orthodox piece kinds.
pub const ORTHODOX: &[PieceKind] =
    &[PieceKind::Pawn, PieceKind::Knight, PieceKind::Bishop, PieceKind::Rook, PieceKind::Queen, PieceKind::King];

/// A variant's rules as compile-time constants.
pub trait Variant: Copy + Default + fmt::Debug + PartialEq + Eq + Hash + Send + Sync + 'static {
    /// Board shape.
    type Shape: PieceShape;
    /// Run-time identity.
    const ID: VariantId;
    /// Piece kinds that may stand on the board (bit mask, see [`kinds`]).
    const KINDS: u16;
    /// Pawn promotion choices.
    const PROMOTIONS: &'static [PieceKind];
    /// Orthodox castling (8x8, king on e-file, rooks on a/h).
    const CASTLING: bool;
    /// Rank (from the owner's side, 0-based) from which pawns may double-step.
    const DOUBLE_STEP_RANK: u8;
    /// Pawns may stand on the first and last ranks (via swaps and conversions).
    const PAWNS_ANYWHERE: bool = false;
    /// Pioneer gating, if any.
    const GATING: Option<Gating> = None;
    /// Alseid kidnapping rule.
    const KIDNAP: Kidnap = Kidnap::None;
    /// Camel and Rhino Chess takeovers.
    const TAKEOVERS: bool = false;
    /// Camel and Rhino Chess swaps.
    const SWAPS: bool = false;
    /// A side with neither Camel nor Rhino loses.
    const CAMEL_RHINO_LOSS: bool = false;
    /// Wazirs promote on the last rank.
    const WAZIR_PROMOTES: bool = false;

    /// The start position's pieces.
    fn start_pieces() -> Vec<(Square, Piece)>;

    /// True if `kind` may stand on the board in this variant.
    #[inline(always)]
    fn has(kind: PieceKind) -> bool {
        Self::KINDS & (1 << kind as u16) != 0
    }
}

/// White's pieces given as (kind, squares), mirrored for Black.
pub(crate) fn mirrored<S: Shape>(white: &[(PieceKind, &str)]) -> Vec<(Square, Piece)> {
    let mut out = Vec::new();
    for &(kind, squares) in white {
        for name in squares.split_whitespace() {
            let Some(sq) = S::parse_square(name) else { continue };
            out.push((sq, Piece::new(Color::White, kind)));
            let mirror = Square(sq.0 % S::FILES + (S::RANKS - 1 - sq.0 / S::FILES) * S::FILES);
            out.push((mirror, Piece::new(Color::Black, kind)));
        }
    }
    out
}

pub(crate) const ORTHODOX_ARRAY: &[(PieceKind, &str)] = &[
    (PieceKind::Rook, "a1 h1"),
    (PieceKind::Knight, "b1 g1"),
    (PieceKind::Bishop, "c1 f1"),
    (PieceKind::Queen, "d1"),
    (PieceKind::King, "e1"),
    (PieceKind::Pawn, "a2 b2 c2 d2 e2 f2 g2 h2"),
];

/// Orthodox chess (`chess`).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct Chess;

impl Variant for Chess {
    type Shape = Board8x8;
    const ID: VariantId = VariantId::Chess;
    const KINDS: u16 = kinds(ORTHODOX);
    const PROMOTIONS: &'static [PieceKind] = &[PieceKind::Queen, PieceKind::Rook, PieceKind::Bishop, PieceKind::Knight];
    const CASTLING: bool = true;
    const DOUBLE_STEP_RANK: u8 = 1;
    fn start_pieces() -> Vec<(Square, Piece)> {
        mirrored::<Board8x8>(ORTHODOX_ARRAY)
    }
}

macro_rules! variant_ids {
    ($( $id:ident => $name:literal, $files:literal, $fen:literal, $summary:literal; )*) => {
        /// The run-time name of a variant.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum VariantId {
            $(
                #[doc = $summary]
                $id,
            )*
        }

        impl VariantId {
            /// Every variant, in a stable order.
            pub const ALL: &'static [VariantId] = &[$(VariantId::$id),*];

            /// The variant's name (RULES.md §0), e.g. `alpaca-samefile`.
            pub const fn name(self) -> &'static str {
                match self { $(VariantId::$id => $name),* }
            }
            /// Board width and height.
            pub const fn size(self) -> (u8, u8) {
                match self { $(VariantId::$id => ($files, $files)),* }
            }
            /// The start position in FEN.
            pub const fn start_fen(self) -> &'static str {
                match self { $(VariantId::$id => $fen),* }
            }
            /// One-line summary of the rules.
            pub const fn summary(self) -> &'static str {
                match self { $(VariantId::$id => $summary),* }
            }
        }
    };
}

variant_ids! {
    Chess => "chess", 8, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "Orthodox chess (FIDE rules).";
}

impl VariantId {
    /// Looks a variant up by name (case-insensitive).
    pub fn from_name(name: &str) -> Option<VariantId> {
        Self::ALL.iter().copied().find(|v| v.name().eq_ignore_ascii_case(name))
    }
    /// The names of all variants, comma-separated.
    pub fn names() -> String {
        Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for VariantId {
    type Err = crate::PositionError;
    fn from_str(s: &str) -> Result<VariantId, Self::Err> {
        VariantId::from_name(s).ok_or_else(|| crate::PositionError::UnknownVariant(s.to_string()))
    }
}
