//! Game results: checkmate, stalemate, variant losses, and the draws
//! (fifty-move rule, threefold repetition, insufficient material).

use crate::BitsOf;
use crate::position::Position;
use crate::variant::Variant;
use menagerie_geometry::{Bits, Shape, Square};
use menagerie_pieces::{Color, PieceKind};

/// Why a game is won.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum WinReason {
    /// The loser is checkmated.
    Checkmate,
    /// The loser owns neither a Camel nor a Rhino (Camel and Rhino Chess).
    NoCamelOrRhino,
}

/// Why a game is drawn.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DrawReason {
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// 100 plies without capture or pawn move (claimable).
    FiftyMoves,
    /// The same position for the third time (claimable).
    Repetition,
    /// Neither side can mate (orthodox material only).
    InsufficientMaterial,
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// A side won.
    Win {
        /// The winner.
        winner: Color,
        /// Why.
        reason: WinReason,
    },
    /// Drawn.
    Draw(DrawReason),
}

impl Outcome {
    /// PGN result string: `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(self) -> &'static str {
        match self {
            Outcome::Win { winner: Color::White, .. } => "1-0",
            Outcome::Win { winner: Color::Black, .. } => "0-1",
            Outcome::Draw(_) => "1/2-1/2",
        }
    }
    /// A short description, e.g. `checkmate, White wins`.
    pub fn describe(self) -> String {
        match self {
            Outcome::Win { winner, reason: WinReason::Checkmate } => format!("checkmate, {} wins", winner.name()),
            Outcome::Win { winner, reason: WinReason::NoCamelOrRhino } => {
                format!("{} has no Camel and no Rhino, {} wins", winner.flip().name(), winner.name())
            }
            Outcome::Draw(DrawReason::Stalemate) => "stalemate, draw".into(),
            Outcome::Draw(DrawReason::FiftyMoves) => "fifty-move rule, draw".into(),
            Outcome::Draw(DrawReason::Repetition) => "threefold repetition, draw".into(),
            Outcome::Draw(DrawReason::InsufficientMaterial) => "insufficient material, draw".into(),
        }
    }
}

impl<V: Variant> Position<V> {
    /// The outcome decided by this position alone (all but repetition, which
    /// needs the history: see [`crate::Game`]). Mate and variant losses
    /// take precedence over the claimable draws.
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(loser) = self.variant_loser() {
            return Some(Outcome::Win { winner: loser.flip(), reason: WinReason::NoCamelOrRhino });
        }
        if self.count_legal() == 0 {
            return Some(if self.is_check() {
                Outcome::Win { winner: self.side.flip(), reason: WinReason::Checkmate }
            } else {
                Outcome::Draw(DrawReason::Stalemate)
            });
        }
        if self.halfmove >= 100 {
            return Some(Outcome::Draw(DrawReason::FiftyMoves));
        }
        if self.insufficient_material() {
            return Some(Outcome::Draw(DrawReason::InsufficientMaterial));
        }
        None
    }

    /// True when all of `bishops` stand on squares of one colour.
    fn one_shade(&self, bishops: BitsOf<V>) -> bool {
        let files = V::Shape::FILES;
        let shade = |s: Square| (V::Shape::file_of(s).0 + s.0 / files) % 2;
        let mut it = bishops.iter();
        let first = it.next().map(shade);
        it.all(|s| Some(shade(s)) == first)
    }

    /// True when `side` alone cannot checkmate whatever the opponent does:
    /// it has no pawns, no reserve piece, nothing but bishops and knights
    /// besides its king, and at most one of them or only bishops on one
    /// square colour (a fairy piece always counts as mating material).
    pub fn insufficient_material_for(&self, side: Color) -> bool {
        if self.gates.reserve_count(side) > 0 {
            return false;
        }
        let own = self.color(side);
        let knights = self.kind(PieceKind::Knight) & own;
        let bishops = self.kind(PieceKind::Bishop) & own;
        if (own & !self.kind(PieceKind::King) & !knights & !bishops).any() {
            return false;
        }
        if (knights | bishops).popcnt() <= 1 {
            return true;
        }
        !knights.any() && self.one_shade(bishops)
    }

    /// True for orthodox material that cannot mate: K v K, K+minor v K, and
    /// kings with bishops all on one square colour. Any fairy piece or
    /// reserve piece on either side means sufficient material.
    pub fn insufficient_material(&self) -> bool {
        if self.gates.reserve_count(Color::White) + self.gates.reserve_count(Color::Black) > 0 {
            return false;
        }
        let kings = self.kind(PieceKind::King);
        let knights = self.kind(PieceKind::Knight);
        let bishops = self.kind(PieceKind::Bishop);
        let others = self.occupied() & !kings & !knights & !bishops;
        if others.any() {
            return false;
        }
        if (knights | bishops).popcnt() <= 1 {
            return true;
        }
        !knights.any() && self.one_shade(bishops)
    }
}
