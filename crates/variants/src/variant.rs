//! Variants as rule sets: a trait of constants that the generic position,
//! move generator and perft are monomorphised over, and [`VariantId`], the
//! run-time name of each variant.

use crate::any::Rules;
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

/// A compiled game as its definition gives it: `build.rs` writes one such
/// constant per section of the games' `variants.ini` files into `games.rs`.
pub(crate) struct CompiledGame {
    /// The section's name.
    name: &'static str,
    /// Files (and ranks: the compiled boards are square).
    files: u8,
    /// The start position.
    start_fen: &'static str,
    /// The start position's pieces: (square index, white, kind).
    start: &'static [(u8, bool, PieceKind)],
    /// The rule constants.
    rules: Rules,
    /// Why the definition could not be compiled, for a stand-in (the data
    /// engine then serves the game); `None` for a compiled game.
    not_compiled: Option<&'static str>,
}

/// The rules of a stand-in for a served game that is not compiled: two
/// kings and nothing else (see [`VariantId::not_compiled`]).
#[allow(dead_code)] // used by `games.rs` when a game is not compiled
const STAND_IN: Rules = Rules {
    kinds: kinds(&[PieceKind::King, PieceKind::Pawn, PieceKind::Queen]),
    promotions: &[PieceKind::Queen],
    castling: false,
    chess960: false,
    gating: None,
    kidnap: Kidnap::None,
    takeovers: false,
    swaps: false,
    camel_rhino_loss: false,
    wazir_promotes: false,
    double_step_rank: 1,
    pawns_anywhere: false,
};

/// The compiled games (generated from their definitions by `build.rs`).
mod games {
    // Which of these a build uses depends on which definitions compile.
    #[allow(unused_imports)]
    use super::{CompiledGame, STAND_IN, kinds};
    #[allow(unused_imports)]
    use crate::{any::Rules, gating::Gating, kidnap::Kidnap};
    use menagerie_pieces::PieceKind;
    include!(concat!(env!("OUT_DIR"), "/games.rs"));
}

/// The pieces of a compiled game's start position.
fn start_of(game: &CompiledGame) -> Vec<(Square, Piece)> {
    let color = |white| if white { Color::White } else { Color::Black };
    game.start.iter().map(|&(sq, white, kind)| (Square(sq), Piece::new(color(white), kind))).collect()
}

macro_rules! compiled {
    ($($(#[$doc:meta])* $ty:ident: $shape:ty = $game:path;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
        pub struct $ty;

        const _: () = assert!(<$shape as Shape>::FILES == $game.files && <$shape as Shape>::RANKS == $game.files);

        impl Variant for $ty {
            type Shape = $shape;
            const ID: VariantId = VariantId::$ty;
            const KINDS: u16 = $game.rules.kinds;
            const PROMOTIONS: &'static [PieceKind] = $game.rules.promotions;
            const CASTLING: bool = $game.rules.castling;
            const DOUBLE_STEP_RANK: u8 = $game.rules.double_step_rank;
            const PAWNS_ANYWHERE: bool = $game.rules.pawns_anywhere;
            const GATING: Option<Gating> = $game.rules.gating;
            const KIDNAP: Kidnap = $game.rules.kidnap;
            const TAKEOVERS: bool = $game.rules.takeovers;
            const SWAPS: bool = $game.rules.swaps;
            const CAMEL_RHINO_LOSS: bool = $game.rules.camel_rhino_loss;
            const WAZIR_PROMOTES: bool = $game.rules.wazir_promotes;
            const CHESS960: bool = $game.rules.chess960;
            fn start_pieces() -> Vec<(Square, Piece)> {
                start_of(&$game)
            }
        }
    )*};
}

compiled! {
    /// Orthodox chess (`chess`).
    Chess: Board8x8 = games::CHESS;
    /// Chess960 (Fischer Random Chess, `chess960`): orthodox rules with the
    /// pieces of the back rank shuffled (bishops on opposite colours, the king
    /// between the rooks), Black mirroring White, and castling from any king
    /// and rook files ([`Variant::CHESS960`]). Without a FEN the start position
    /// is the orthodox array (Chess960 position #518); [`crate::chess960_start_fen`]
    /// gives any of the 960 start positions.
    Chess960: Board8x8 = games::CHESS960;
    /// Alpaca Chess with one Alpaca per side (`alpaca`).
    Alpaca: Board8x8 = games::ALPACA;
    /// Alpaca Chess with two Alpacas per side (`alpaca2`).
    Alpaca2: Board8x8 = games::ALPACA2;
    /// Alpaca Chess where Black must gate on White's file (`alpaca-samefile`).
    AlpacaSameFile: Board8x8 = games::ALPACA_SAMEFILE;
    /// Alseid Chess: one Alseid per side through Pioneer gating (`alseid`).
    Alseid: Board8x8 = games::ALSEID;
    /// Alseid Chess where only one-square Alseid moves kidnap (`alseid-weak`).
    AlseidWeak: Board8x8 = games::ALSEID_WEAK;
    /// Camel and Rhino Chess on 10x10 (`camel-rhino`, RULES.md §4).
    CamelRhino: Board10x10 = games::CAMEL_RHINO;
    /// Camel and Rhino Chess movement only — no takeovers, swaps, wazir
    /// promotion or Camel/Rhino loss (`camel-rhino-plain`). A test-only rule
    /// set matching the Fairy-Stockfish definition used as an oracle; hidden
    /// from [`VariantId::ALL`].
    CamelRhinoPlain: Board10x10 = games::CAMEL_RHINO_PLAIN;
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
    ($( $id:ident => $game:path, $summary:literal $(, xboard $xboard:literal)?; )*) => {
        /// The run-time name of a variant.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum VariantId {
            $(
                #[doc = $summary]
                $id,
            )*
        }

        impl VariantId {
            /// Every served game the compiled core was built for, compiled
            /// or not ([`VariantId::not_compiled`]), test-only ones included,
            /// in a stable order.
            pub const DECLARED: &'static [VariantId] = &[$(VariantId::$id),*];

            /// Why the build could not compile this game's definition (it
            /// then has a stand-in here, is in no list and answers to no
            /// name, and the catalogue serves its definition on the data
            /// engine); `None` for a compiled game.
            pub const fn not_compiled(self) -> Option<&'static str> {
                match self { $(VariantId::$id => $game.not_compiled),* }
            }

            /// The variant's name (its definition's section), e.g. `alpaca-samefile`.
            pub const fn name(self) -> &'static str {
                match self { $(VariantId::$id => $game.name),* }
            }
            /// Board width and height.
            pub const fn size(self) -> (u8, u8) {
                match self { $(VariantId::$id => ($game.files, $game.files)),* }
            }
            /// The start position in FEN.
            pub const fn start_fen(self) -> &'static str {
                match self { $(VariantId::$id => $game.start_fen),* }
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
    Chess => games::CHESS, "Orthodox chess (FIDE rules).", xboard "normal";
    Alpaca => games::ALPACA,
        "Alpaca Chess: orthodox chess plus one Alpaca (WmD) per side, entered by Pioneer gating after an accept/decline and placement prelude.";
    Alpaca2 => games::ALPACA2,
        "Alpaca Chess with two Alpacas per side, on two distinct gate files (never the king file with a rook file).";
    AlpacaSameFile => games::ALPACA_SAMEFILE,
        "Alpaca Chess where Black must choose the same gate file as White.";
    Alseid => games::ALSEID,
        "Alseid Chess: the Alseid moves like a queen to empty squares, never captures, and kidnaps the piece behind a screen onto its origin; one Alseid per side by Pioneer gating.";
    AlseidWeak => games::ALSEID_WEAK,
        "Alseid Chess where the Alseid kidnaps only on one-square moves.";
    CamelRhino => games::CAMEL_RHINO,
        "Camel and Rhino Chess on 10x10: Camel (FC), Rhino (WZ), Zebra, Wazir; takeover captures that convert, swaps of adjacent friends; a side with no Camel and no Rhino loses.";
    Chess960 => games::CHESS960,
        "Chess960 (Fischer Random Chess): orthodox rules from one of 960 shuffled back ranks, castling with any king and rook files.", xboard "fischerandom";
    CamelRhinoPlain => games::CAMEL_RHINO_PLAIN,
        "Test-only: Camel and Rhino Chess movement without takeovers, swaps, wazir promotion or the Camel/Rhino loss (matches the Fairy-Stockfish oracle).";
}

/// The public games, compiled or not, in a stable order.
const PUBLIC: [VariantId; 8] = [
    VariantId::Chess,
    VariantId::Alpaca,
    VariantId::Alpaca2,
    VariantId::AlpacaSameFile,
    VariantId::Alseid,
    VariantId::AlseidWeak,
    VariantId::CamelRhino,
    VariantId::Chess960,
];

/// The games of `list` that are compiled, in its order: the first `.1`
/// entries of `.0`.
const fn compiled_of<const N: usize>(list: [VariantId; N]) -> ([VariantId; N], usize) {
    let mut out = list;
    let (mut n, mut i) = (0, 0);
    while i < N {
        if list[i].not_compiled().is_none() {
            out[n] = list[i];
            n += 1;
        }
        i += 1;
    }
    (out, n)
}

const COMPILED_PUBLIC: ([VariantId; PUBLIC.len()], usize) = compiled_of(PUBLIC);
const COMPILED_EVERY: ([VariantId; VariantId::DECLARED.len()], usize) = {
    let mut list = [VariantId::Chess; VariantId::DECLARED.len()];
    let mut i = 0;
    while i < list.len() {
        list[i] = VariantId::DECLARED[i];
        i += 1;
    }
    compiled_of(list)
};

impl VariantId {
    /// The public compiled variants, in a stable order (a served game the
    /// build could not compile is not among them: see
    /// [`VariantId::not_compiled`]).
    pub const ALL: &'static [VariantId] = COMPILED_PUBLIC.0.split_at(COMPILED_PUBLIC.1).0;

    /// Every compiled variant including hidden test-only ones, in a stable
    /// order.
    pub const EVERY: &'static [VariantId] = COMPILED_EVERY.0.split_at(COMPILED_EVERY.1).0;

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
    /// True for a rule set kept for tests only (not one of the public
    /// games, [`VariantId::ALL`] when compiled).
    pub fn is_test_only(self) -> bool {
        !PUBLIC.contains(&self)
    }
    /// The names of all variants, comma-separated.
    pub fn names() -> String {
        Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
    }
}

impl VariantId {
    /// The compiled game whose code plays the definition `def` exactly, if
    /// one does: same board, every piece a compiled kind of that game with
    /// the same letter and movement, and every rule constant equal (the
    /// compiled game may know more piece kinds than `def` uses). The start
    /// position and name may differ: positions of `def` can then be counted
    /// by the compiled core (see `menagerie_app::compiled_twin`).
    pub fn playing(def: &std::sync::Arc<menagerie_rules::VariantDef>) -> Option<VariantId> {
        let r = crate::compile::rules(def).ok()?;
        Self::EVERY.iter().copied().find(|id| id.size() == (def.files, def.ranks) && id.rules_cover(&r))
    }

    /// Whether this compiled game plays the served definition `def` (a
    /// section of the same name) exactly: the same board, pieces, start
    /// position and rule constants. `Err` says why not — the build could
    /// not compile the game ([`VariantId::not_compiled`]), `def` has
    /// something the compiled core cannot play, or the game was compiled
    /// from another definition; the data engine must then play `def`.
    pub fn plays(self, def: &std::sync::Arc<menagerie_rules::VariantDef>) -> Result<(), String> {
        if let Some(why) = self.not_compiled() {
            return Err(why.to_string());
        }
        let r = crate::compile::rules(def)?;
        let same = self.size() == (def.files, def.ranks)
            && self.rules().kinds == kinds(&r.kinds)
            && self.rules_cover(&r)
            && self.start_fen() == def.start_fen;
        if same { Ok(()) } else { Err(format!("the compiled {self} was built from another definition")) }
    }

    /// Whether this game's rule constants are `r`'s, its piece kinds
    /// including `r`'s.
    fn rules_cover(self, r: &crate::compile::CompiledRules) -> bool {
        let c = self.rules();
        kinds(&r.kinds) & !c.kinds == 0
            && c.promotions == r.promotions.as_slice()
            && c.castling == r.castling
            && c.chess960 == r.chess960
            && c.gating == r.gating.map(|(piece, count, same_file)| Gating { piece, count, same_file })
            && c.kidnap
                == match r.kidnap {
                    None => Kidnap::None,
                    Some(true) => Kidnap::OneStep,
                    Some(false) => Kidnap::Always,
                }
            && c.takeovers == r.takeovers
            && c.swaps == r.swaps
            && c.camel_rhino_loss == r.camel_rhino_loss
            && c.wazir_promotes == r.wazir_promotes
            && c.double_step_rank == r.double_step_rank
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
