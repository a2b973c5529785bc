//! Static exchange evaluation: the material outcome of the capture
//! sequence on one square, each side recapturing with its least valuable
//! attacker (x-rays through sliders included, pins ignored).

use menagerie_geometry::{Bits, Square};
use menagerie_pieces::{Color, PieceKind};
use menagerie_variants::{BitsOf, Move, MoveKind, Position, Variant};

/// Kinds from least to most valuable, kings last.
const ORDER: [PieceKind; 12] = [
    PieceKind::Pawn,
    PieceKind::Wazir,
    PieceKind::Alpaca,
    PieceKind::Knight,
    PieceKind::Zebra,
    PieceKind::Camel,
    PieceKind::Alseid,
    PieceKind::Bishop,
    PieceKind::Rhino,
    PieceKind::Rook,
    PieceKind::Queen,
    PieceKind::King,
];

fn least_valuable<V: Variant>(pos: &Position<V>, attackers: BitsOf<V>) -> Option<(Square, PieceKind)> {
    for k in ORDER {
        let b = attackers & pos.kind(k);
        if b.any() {
            return Some((Square(b.lsb() as u8), k));
        }
    }
    None
}

/// The exchange value of `m` for the side to move (centipawns). Moves that
/// are not plain captures (takeovers, swaps, kidnaps) are valued by what
/// they win at once.
pub fn see<V: Variant>(pos: &Position<V>, m: Move) -> i32 {
    if !matches!(m.kind, MoveKind::Normal | MoveKind::EnPassant) {
        return pos.gain(m);
    }
    let Some(mover) = pos.piece_at(m.from) else { return 0 };
    let captured = match m.kind {
        MoveKind::EnPassant => PieceKind::Pawn.value(),
        _ => pos.piece_at(m.to).map_or(0, |p| p.kind.value()),
    };
    let mut gains = [0i32; 40];
    let mut d = 0;
    gains[0] = captured + m.promotion.map_or(0, |k| k.value() - PieceKind::Pawn.value());
    let mut on_square = m.promotion.map_or(mover.kind.value(), |k| k.value());
    let mut occ = pos.occupied() ^ BitsOf::<V>::bit(m.from);
    if m.kind == MoveKind::EnPassant {
        let files = <V::Shape as menagerie_geometry::Shape>::FILES;
        let cap = Square(m.from.0 - m.from.0 % files + m.to.0 % files);
        occ ^= BitsOf::<V>::bit(cap);
    }
    let mut side = mover.color.flip();
    loop {
        let attackers = pos.attackers_to(m.to, occ, side) & occ;
        let Some((sq, kind)) = least_valuable(pos, attackers) else { break };
        d += 1;
        if d >= gains.len() {
            break;
        }
        gains[d] = on_square - gains[d - 1];
        if kind == PieceKind::King && (pos.attackers_to(m.to, occ ^ BitsOf::<V>::bit(sq), side.flip()) & occ).any() {
            // The king cannot recapture into a defended square.
            d -= 1;
            break;
        }
        on_square = kind.value().max(if kind == PieceKind::King { 10_000 } else { 0 });
        occ ^= BitsOf::<V>::bit(sq);
        side = side.flip();
        let _ = Color::White;
    }
    while d > 0 {
        gains[d - 1] = -(-gains[d - 1]).max(gains[d]);
        d -= 1;
    }
    gains[0]
}
