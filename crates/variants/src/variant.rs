//! Variants as rule sets: a trait of constants that the generic position,
//! move generator and perft are monomorphised over, and [`VariantId`], the
//! run-time name of each variant.

use crate::gating::Gating;
use crate::kidnap::Kidnap;
use core::fmt;
use core::hash::Hash;
use menagerie_geometry::{Board8x8, Board10x10, Shape, Square};
use menagerie_pieces::{Color, Piece, PieceKind, PieceShape};

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
    /// Castling (8x8; king on the e-file and rooks on a/h unless [`Variant::CHESS960`]).
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
    /// Chess960 castling: the king and the castling rooks may start on any
    /// files of the home rank (the rights remember the rook files); a
    /// castling move is written king-takes-rook internally (`to` is the
    /// rook's square) and ends with king and rook on the orthodox g/f or
    /// c/d squares. Only meaningful with [`Variant::CASTLING`].
    const CHESS960: bool = false;

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

/// Chess960 (Fischer Random Chess, `chess960`): orthodox rules with the
/// pieces of the back rank shuffled (bishops on opposite colours, the king
/// between the rooks), Black mirroring White, and castling from any king
/// and rook files ([`Variant::CHESS960`]). Without a FEN the start position
/// is the orthodox array (Chess960 position #518); [`crate::chess960_start_fen`]
/// gives any of the 960 start positions.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct Chess960;

impl Variant for Chess960 {
    type Shape = Board8x8;
    const ID: VariantId = VariantId::Chess960;
    const KINDS: u16 = kinds(ORTHODOX);
    const PROMOTIONS: &'static [PieceKind] = &[PieceKind::Queen, PieceKind::Rook, PieceKind::Bishop, PieceKind::Knight];
    const CASTLING: bool = true;
    const DOUBLE_STEP_RANK: u8 = 1;
    const CHESS960: bool = true;
    fn start_pieces() -> Vec<(Square, Piece)> {
        mirrored::<Board8x8>(ORTHODOX_ARRAY)
    }
}

const ORTHODOX_PROMOTIONS: &[PieceKind] = &[PieceKind::Queen, PieceKind::Rook, PieceKind::Bishop, PieceKind::Knight];

macro_rules! gating_variant {
    ($(#[$doc:meta])* $ty:ident, $id:ident, $piece:ident, $count:literal, $same:literal, $kidnap:ident, $promos:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
        pub struct $ty;

        impl Variant for $ty {
            type Shape = Board8x8;
            const ID: VariantId = VariantId::$id;
            const KINDS: u16 = kinds(ORTHODOX) | 1 << PieceKind::$piece as u16;
            const PROMOTIONS: &'static [PieceKind] = $promos;
            const CASTLING: bool = true;
            const DOUBLE_STEP_RANK: u8 = 1;
            const GATING: Option<Gating> = Some(Gating { piece: PieceKind::$piece, count: $count, same_file: $same });
            const KIDNAP: Kidnap = Kidnap::$kidnap;
            fn start_pieces() -> Vec<(Square, Piece)> {
                mirrored::<Board8x8>(ORTHODOX_ARRAY)
            }
        }
    };
}

gating_variant!(
    /// Alpaca Chess with one Alpaca per side (`alpaca`).
    Alpaca, Alpaca, Alpaca, 1, false, None, ORTHODOX_PROMOTIONS
);
gating_variant!(
    /// Alpaca Chess with two Alpacas per side (`alpaca2`).
    Alpaca2, Alpaca2, Alpaca, 2, false, None, ORTHODOX_PROMOTIONS
);
gating_variant!(
    /// Alpaca Chess where Black must gate on White's file (`alpaca-samefile`).
    AlpacaSameFile, AlpacaSameFile, Alpaca, 1, true, None, ORTHODOX_PROMOTIONS
);
const ALSEID_PROMOTIONS: &[PieceKind] =
    &[PieceKind::Queen, PieceKind::Rook, PieceKind::Bishop, PieceKind::Knight, PieceKind::Alseid];
gating_variant!(
    /// Alseid Chess: one Alseid per side through Pioneer gating (`alseid`).
    Alseid, Alseid, Alseid, 1, false, Always, ALSEID_PROMOTIONS
);
gating_variant!(
    /// Alseid Chess where only one-square Alseid moves kidnap (`alseid-weak`).
    AlseidWeak, AlseidWeak, Alseid, 1, false, OneStep, ALSEID_PROMOTIONS
);

const CAMEL_RHINO_KINDS: &[PieceKind] = &[
    PieceKind::Pawn,
    PieceKind::Knight,
    PieceKind::Bishop,
    PieceKind::Rook,
    PieceKind::Queen,
    PieceKind::King,
    PieceKind::Camel,
    PieceKind::Rhino,
    PieceKind::Zebra,
    PieceKind::Wazir,
];
const CAMEL_RHINO_PROMOTIONS: &[PieceKind] = &[
    PieceKind::Queen,
    PieceKind::Rook,
    PieceKind::Bishop,
    PieceKind::Knight,
    PieceKind::Zebra,
    PieceKind::Camel,
    PieceKind::Rhino,
    PieceKind::Wazir,
];
const CAMEL_RHINO_ARRAY: &[(PieceKind, &str)] = &[
    (PieceKind::Rook, "a1 j1"),
    (PieceKind::Rhino, "b2"),
    (PieceKind::Zebra, "c2"),
    (PieceKind::Bishop, "d2 g2"),
    (PieceKind::Queen, "e2"),
    (PieceKind::King, "f2"),
    (PieceKind::Knight, "h2"),
    (PieceKind::Camel, "i2"),
    (PieceKind::Wazir, "e4 f4"),
    (PieceKind::Pawn, "a3 b3 c3 d3 g3 h3 i3 j3"),
];

/// Camel and Rhino Chess on 10x10 (`camel-rhino`, RULES.md §4).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct CamelRhino;

impl Variant for CamelRhino {
    type Shape = Board10x10;
    const ID: VariantId = VariantId::CamelRhino;
    const KINDS: u16 = kinds(CAMEL_RHINO_KINDS);
    const PROMOTIONS: &'static [PieceKind] = CAMEL_RHINO_PROMOTIONS;
    const CASTLING: bool = false;
    const DOUBLE_STEP_RANK: u8 = 2;
    const PAWNS_ANYWHERE: bool = true;
    const TAKEOVERS: bool = true;
    const SWAPS: bool = true;
    const CAMEL_RHINO_LOSS: bool = true;
    const WAZIR_PROMOTES: bool = true;
    fn start_pieces() -> Vec<(Square, Piece)> {
        mirrored::<Board10x10>(CAMEL_RHINO_ARRAY)
    }
}

/// Camel and Rhino Chess movement only — no takeovers, swaps, wazir
/// promotion or Camel/Rhino loss (`camel-rhino-plain`). A test-only rule
/// set matching the Fairy-Stockfish definition used as an oracle; hidden
/// from [`VariantId::ALL`].
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct CamelRhinoPlain;

impl Variant for CamelRhinoPlain {
    type Shape = Board10x10;
    const ID: VariantId = VariantId::CamelRhinoPlain;
    const KINDS: u16 = kinds(CAMEL_RHINO_KINDS);
    const PROMOTIONS: &'static [PieceKind] = CAMEL_RHINO_PROMOTIONS;
    const CASTLING: bool = false;
    const DOUBLE_STEP_RANK: u8 = 2;
    const PAWNS_ANYWHERE: bool = true;
    fn start_pieces() -> Vec<(Square, Piece)> {
        mirrored::<Board10x10>(CAMEL_RHINO_ARRAY)
    }
}

macro_rules! xboard {
    () => {
        None
    };
    ($x:literal) => {
        Some($x)
    };
}

macro_rules! variant_ids {
    ($( $id:ident => $name:literal, $files:literal, $fen:literal, $summary:literal $(, xboard $xboard:literal)?; )*) => {
        /// The run-time name of a variant.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum VariantId {
            $(
                #[doc = $summary]
                $id,
            )*
        }

        impl VariantId {
            /// Every variant including hidden test-only ones, in a stable order.
            pub const EVERY: &'static [VariantId] = &[$(VariantId::$id),*];

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
            /// XBoard's own name for the variant when XBoard plays it
            /// natively (`normal`, `fischerandom`); `None` when an engine
            /// must describe it to XBoard (`setup` and `piece` commands).
            pub const fn xboard_builtin(self) -> Option<&'static str> {
                match self { $(VariantId::$id => xboard!($($xboard)?)),* }
            }
        }
    };
}

variant_ids! {
    Chess => "chess", 8, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "Orthodox chess (FIDE rules).", xboard "normal";
    Alpaca => "alpaca", 8, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] w KQkq - 0 1",
        "Alpaca Chess: orthodox chess plus one Alpaca (WmD) per side, entered by Pioneer gating after an accept/decline and placement prelude.";
    Alpaca2 => "alpaca2", 8, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[AAaa?] w KQkq - 0 1",
        "Alpaca Chess with two Alpacas per side, on two distinct gate files (never the king file with a rook file).";
    AlpacaSameFile => "alpaca-samefile", 8, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] w KQkq - 0 1",
        "Alpaca Chess where Black must choose the same gate file as White.";
    Alseid => "alseid", 8, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Ss?] w KQkq - 0 1",
        "Alseid Chess: the Alseid moves like a queen to empty squares, never captures, and kidnaps the piece behind a screen onto its origin; one Alseid per side by Pioneer gating.";
    AlseidWeak => "alseid-weak", 8, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Ss?] w KQkq - 0 1",
        "Alseid Chess where the Alseid kidnaps only on one-square moves.";
    CamelRhino => "camel-rhino", 10, "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1",
        "Camel and Rhino Chess on 10x10: Camel (FC), Rhino (WZ), Zebra, Wazir; takeover captures that convert, swaps of adjacent friends; a side with no Camel and no Rhino loses.";
    Chess960 => "chess960", 8, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "Chess960 (Fischer Random Chess): orthodox rules from one of 960 shuffled back ranks, castling with any king and rook files.", xboard "fischerandom";
    CamelRhinoPlain => "camel-rhino-plain", 10, "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1",
        "Test-only: Camel and Rhino Chess movement without takeovers, swaps, wazir promotion or the Camel/Rhino loss (matches the Fairy-Stockfish oracle).";
}

impl VariantId {
    /// The public variants, in a stable order.
    pub const ALL: &'static [VariantId] = &[
        VariantId::Chess,
        VariantId::Alpaca,
        VariantId::Alpaca2,
        VariantId::AlpacaSameFile,
        VariantId::Alseid,
        VariantId::AlseidWeak,
        VariantId::CamelRhino,
        VariantId::Chess960,
    ];

    /// Looks a served variant up by name (case-insensitive): one of
    /// [`VariantId::ALL`], or also a test-only rule set (`camel-rhino-plain`)
    /// when the environment variable `MENAGERIE_TEST_VARIANTS` is set (to
    /// anything but `0` or nothing) — for differential tests and matches
    /// against engines that know only that rule set.
    pub fn from_name(name: &str) -> Option<VariantId> {
        let list = if test_variants_served() { Self::EVERY } else { Self::ALL };
        list.iter().copied().find(|v| v.name().eq_ignore_ascii_case(name))
    }
    /// Looks any variant up by name (case-insensitive), test-only ones
    /// included whatever the environment says.
    pub fn from_name_including_tests(name: &str) -> Option<VariantId> {
        Self::EVERY.iter().copied().find(|v| v.name().eq_ignore_ascii_case(name))
    }
    /// True for a rule set kept for tests only (not in [`VariantId::ALL`]).
    pub fn is_test_only(self) -> bool {
        !Self::ALL.contains(&self)
    }
    /// The names of all variants, comma-separated.
    pub fn names() -> String {
        Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
    }
}

/// Whether `MENAGERIE_TEST_VARIANTS` asks for the test-only rule sets
/// (read once per process).
fn test_variants_served() -> bool {
    static SERVED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SERVED
        .get_or_init(|| std::env::var("MENAGERIE_TEST_VARIANTS").is_ok_and(|v| !v.trim().is_empty() && v.trim() != "0"))
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

/// The back rank (White's pieces, files a..h) of Chess960 start position
/// `n` in the standard numbering (0..=959; #518 is the orthodox array
/// `RNBQKBNR`), or `None` if `n` is out of range.
///
/// ```
/// use menagerie_pieces::PieceKind::{Bishop as B, King as K, Knight as N, Queen as Q, Rook as R};
/// assert_eq!(menagerie_variants::chess960_back_rank(518), Some([R, N, B, Q, K, B, N, R]));
/// assert_eq!(menagerie_variants::chess960_back_rank(0), Some([B, B, Q, N, N, R, K, R]));
/// ```
pub fn chess960_back_rank(n: u16) -> Option<[PieceKind; 8]> {
    if n >= 960 {
        return None;
    }
    let mut rank: [Option<PieceKind>; 8] = [None; 8];
    let mut n = n as usize;
    // Light-squared bishop on b, d, f or h; dark-squared on a, c, e or g.
    rank[n % 4 * 2 + 1] = Some(PieceKind::Bishop);
    n /= 4;
    rank[n % 4 * 2] = Some(PieceKind::Bishop);
    n /= 4;
    let mut place = |kind: PieceKind, mut index: usize| {
        for slot in rank.iter_mut().filter(|s| s.is_none()) {
            if index == 0 {
                *slot = Some(kind);
                return;
            }
            index -= 1;
        }
    };
    place(PieceKind::Queen, n % 6);
    n /= 6;
    // The knights' placements in the standard (Scharnagl) order.
    const KNIGHTS: [(usize, usize); 10] =
        [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let (a, b) = KNIGHTS[n];
    // Place the second knight first so the first knight's index stays valid.
    place(PieceKind::Knight, b);
    place(PieceKind::Knight, a);
    // Rook, king, rook in the three squares left.
    for kind in [PieceKind::Rook, PieceKind::King, PieceKind::Rook] {
        place(kind, 0);
    }
    let mut out = [PieceKind::Pawn; 8];
    for (o, r) in out.iter_mut().zip(rank) {
        *o = r?;
    }
    Some(out)
}

/// The FEN of Chess960 start position `n` (0..=959, standard numbering),
/// with X-FEN castling `KQkq`; `None` if `n` is out of range.
///
/// ```
/// assert_eq!(
///     menagerie_variants::chess960_start_fen(518).as_deref(),
///     Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
/// );
/// ```
pub fn chess960_start_fen(n: u16) -> Option<String> {
    let rank = chess960_back_rank(n)?;
    let white: String = rank.iter().map(|k| k.letter()).collect();
    Some(format!("{}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1", white.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_files_ban_only_the_king_file_with_a_rook_file() {
        let f = |files: &[u8]| files.iter().fold(0u8, |m, &x| m | 1 << x);
        assert!(Gating::allows_files(f(&[4])));
        assert!(Gating::allows_files(f(&[0, 7])));
        assert!(Gating::allows_files(f(&[3, 4])));
        assert!(!Gating::allows_files(f(&[0, 4])));
        assert!(!Gating::allows_files(f(&[4, 7])));
    }

    #[test]
    fn test_only_rule_sets_are_found_only_when_asked_for() {
        let served = std::env::var("MENAGERIE_TEST_VARIANTS").is_ok_and(|v| !v.trim().is_empty() && v.trim() != "0");
        assert_eq!(VariantId::from_name("Camel-Rhino-Plain").is_some(), served);
        assert_eq!(VariantId::from_name_including_tests("camel-rhino-plain"), Some(VariantId::CamelRhinoPlain));
        assert!(VariantId::CamelRhinoPlain.is_test_only());
        for &v in VariantId::ALL {
            assert!(!v.is_test_only());
            assert_eq!(VariantId::from_name(&v.name().to_uppercase()), Some(v));
        }
    }

    #[test]
    fn only_the_games_xboard_knows_have_an_xboard_name() {
        assert_eq!(VariantId::Chess.xboard_builtin(), Some("normal"));
        assert_eq!(VariantId::Chess960.xboard_builtin(), Some("fischerandom"));
        for v in VariantId::EVERY.iter().filter(|v| !matches!(v, VariantId::Chess | VariantId::Chess960)) {
            assert_eq!(v.xboard_builtin(), None, "{v}");
        }
    }

    #[test]
    fn rules_carry_every_rule_constant() {
        let cr = VariantId::CamelRhino.rules();
        assert!(cr.camel_rhino_loss && cr.wazir_promotes && cr.pawns_anywhere && cr.takeovers && cr.swaps);
        assert_eq!(cr.double_step_rank, 2);
        let plain = VariantId::CamelRhinoPlain.rules();
        assert!(!plain.camel_rhino_loss && !plain.wazir_promotes && !plain.takeovers);
        let chess = VariantId::Chess.rules();
        assert!(!chess.camel_rhino_loss && chess.castling && chess.double_step_rank == 1);
    }
}
