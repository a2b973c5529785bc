//! Positions of variants defined as data on the compiled core: a definition
//! whose rules a compiled game plays exactly ([`VariantId::playing`]) has
//! each of its positions mirrored by a position of that game, its "twin",
//! with the same legal moves, so that counting and searching can run on
//! the compiled code and answer in the data core's moves.

use crate::{fen, parse_move, uci};
use menagerie_rules::{Move as DataMove, Position as DataPosition};
use menagerie_variants::{AnyPosition, Move, VariantId};

/// The compiled core's copy of `pos`, when a compiled game plays its
/// variant's rules exactly (same board, pieces and rule constants, whatever
/// the name and start position) and reads the position's FEN.
pub fn compiled(pos: &DataPosition) -> Option<AnyPosition> {
    let id = VariantId::playing(pos.variant())?;
    fen::parse(id, &pos.fen()).ok()
}

/// True if the data move `dm` from `data` and the compiled move `m` from
/// its twin `twin` lead to twin positions.
fn same_move(data: &DataPosition, dm: DataMove, twin: &AnyPosition, m: Move) -> bool {
    compiled(&data.play(dm)).is_some_and(|after| after.hash() == twin.play_unchecked(m).hash())
}

/// The compiled move of `twin` (the twin of `data`) that plays the data
/// move `dm`: read from its text, checked by the positions it leads to.
pub fn to_compiled(data: &DataPosition, twin: &AnyPosition, dm: DataMove) -> Option<Move> {
    if let Ok(m) = parse_move(twin, &data.move_text(dm))
        && same_move(data, dm, twin, m)
    {
        return Some(m);
    }
    twin.legal_moves().as_slice().iter().copied().find(|&m| same_move(data, dm, twin, m))
}

/// The data move of `data` that plays the compiled move `m` of its twin
/// `twin`: read from its text, checked by the positions it leads to.
pub fn to_data(data: &DataPosition, twin: &AnyPosition, m: Move) -> Option<DataMove> {
    if let Ok(dm) = data.parse_any(&uci::format(twin.variant(), m))
        && same_move(data, dm, twin, m)
    {
        return Some(dm);
    }
    data.legal_moves().into_iter().find(|&dm| same_move(data, dm, twin, m))
}

/// The data moves of a line of compiled moves played from `twin` (the twin
/// of `data`), up to the first that has no data move.
pub fn line_to_data(data: &DataPosition, twin: &AnyPosition, line: &[Move]) -> Vec<DataMove> {
    let (mut d, mut c) = (data.clone(), *twin);
    let mut out = Vec::with_capacity(line.len());
    for &m in line {
        let Some(dm) = to_data(&d, &c, m) else { break };
        out.push(dm);
        d = d.play(dm);
        c = c.play_unchecked(m);
    }
    out
}

/// True if every legal move of `data` has exactly one twin move in `twin`
/// and the other way round: the condition for answering in data moves.
pub fn moves_correspond(data: &DataPosition, twin: &AnyPosition) -> bool {
    let (ours, theirs) = (data.legal_moves(), twin.legal_moves());
    ours.len() == theirs.as_slice().len() && theirs.as_slice().iter().all(|&m| to_data(data, twin, m).is_some())
}
