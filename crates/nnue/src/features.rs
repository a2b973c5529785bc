//! The network's sparse input features (docs/nnue.md, "Features").
//!
//! Per perspective `p` (White or Black), every piece on the board is one
//! feature `(rel * K + kind) * S + sq`: `rel` is 0 for `p`'s own pieces and 1
//! for the opponent's, `kind` the dense index of the piece kind among the
//! game's kinds ([`Variant::KINDS`], ascending), `S` the board's squares and
//! `sq` the square as `p` sees it (White: `file + rank * files`; Black: the
//! rank-mirrored square `file + (ranks - 1 - rank) * files`).
//!
//! Games with Pioneer gating ([`Variant::GATING`]) have [`reserve_inputs`]
//! more inputs after the `2 * K * S` piece inputs, per `rel` (own block
//! first): `count` "reserve" inputs, input `j` active while the side still
//! has more than `j` reserve pieces to come (in hand or on a live gate), then
//! 8 "gate" inputs, input `f` active while the side's gate on file `f` is
//! live.

use menagerie_geometry::{Bits, Shape, Square};
use menagerie_pieces::{Color, KIND_COUNT, PieceKind};
use menagerie_variants::{AnyPosition, Position, PositionVisitor, Variant, VariantId};

/// Gate files of a gating game (its boards are 8 files wide).
pub const GATE_FILES: usize = 8;

/// Number of piece kinds the game `V` may have on the board (`K`).
pub fn kind_count<V: Variant>() -> usize {
    V::KINDS.count_ones() as usize
}

/// The dense index of `kind` among `V`'s kinds, or `None` if `V` has no
/// such kind.
pub fn dense_kind<V: Variant>(kind: PieceKind) -> Option<usize> {
    V::has(kind).then(|| (V::KINDS & ((1u16 << kind.idx()) - 1)).count_ones() as usize)
}

/// Board squares of `V` (`S`).
pub fn squares<V: Variant>() -> usize {
    <V::Shape as Shape>::SQUARES as usize
}

/// Reserve inputs per perspective of `V` (0 without gating).
pub fn reserve_inputs<V: Variant>() -> usize {
    V::GATING.map_or(0, |g| 2 * (g.count as usize + GATE_FILES))
}

/// Number of input features of `V`'s network.
pub fn feature_count<V: Variant>() -> usize {
    2 * kind_count::<V>() * squares::<V>() + reserve_inputs::<V>()
}

/// The square `sq` as `perspective` sees it.
#[inline(always)]
pub fn oriented<V: Variant>(sq: Square, perspective: Color) -> usize {
    let files = <V::Shape as Shape>::FILES as usize;
    let ranks = <V::Shape as Shape>::RANKS as usize;
    let s = sq.0 as usize;
    match perspective {
        Color::White => s,
        Color::Black => s % files + (ranks - 1 - s / files) * files,
    }
}

/// The feature of a piece of colour `color` and dense kind `dense` on `sq`,
/// seen from `perspective`.
#[inline(always)]
pub fn piece_feature<V: Variant>(perspective: Color, color: Color, dense: usize, sq: Square) -> u32 {
    let rel = usize::from(color != perspective);
    ((rel * kind_count::<V>() + dense) * squares::<V>() + oriented::<V>(sq, perspective)) as u32
}

/// Appends the reserve features of `pos` seen from `perspective` to `out`.
pub fn reserve_features<V: Variant>(pos: &Position<V>, perspective: Color, out: &mut Vec<u32>) {
    let Some(g) = V::GATING else { return };
    let base = 2 * kind_count::<V>() * squares::<V>();
    let block = g.count as usize + GATE_FILES;
    let gates = pos.gates();
    for (rel, color) in [perspective, perspective.flip()].into_iter().enumerate() {
        let start = base + rel * block;
        let n = (gates.reserve_count(color) as usize).min(g.count as usize);
        out.extend((0..n).map(|j| (start + j) as u32));
        let live = gates.live[color.idx()];
        out.extend((0..GATE_FILES).filter(|f| live & (1 << f) != 0).map(|f| (start + g.count as usize + f) as u32));
    }
}

/// Appends every active feature of `pos` seen from `perspective` to `out`
/// (pieces in kind and square order, then the reserve features).
pub fn active_features<V: Variant>(pos: &Position<V>, perspective: Color, out: &mut Vec<u32>) {
    for kind in PieceKind::ALL.into_iter().take(KIND_COUNT) {
        let Some(dense) = dense_kind::<V>(kind) else { continue };
        for color in Color::ALL {
            let bits = pos.kind(kind) & pos.color(color);
            out.extend(bits.iter().map(|sq| piece_feature::<V>(perspective, color, dense, sq)));
        }
    }
    reserve_features(pos, perspective, out);
}

/// [`feature_count`] of the compiled game `id`.
pub fn feature_count_of(id: VariantId) -> usize {
    struct Count;
    impl PositionVisitor for Count {
        type Output = usize;
        fn visit<V: Variant>(self, _: &Position<V>) -> usize {
            feature_count::<V>()
        }
    }
    AnyPosition::start(id).visit(Count)
}
