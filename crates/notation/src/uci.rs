//! Coordinate (UCI long-algebraic) moves for every variant.
//!
//! | move | form |
//! |---|---|
//! | normal, capture, en passant, kidnap, swap, jump takeover | `e2e4`, `e1g1` (castling as king-to-square) |
//! | promotion | `e7e8q`; a wazir staying a wazir: `e9e10w` |
//! | Knight/Zebra/Camel/Rhino takeover leap | `h2g4t` |
//! | prelude | `accept`, `decline`, `A@g`, `A@bg` |
//!
//! A swap is formatted from the lower square; either order parses.

use crate::fen::square_name;
use menagerie_geometry::{File, Square};
use menagerie_variants::{AnyPosition, Move, MoveKind, VariantId};
use thiserror::Error;

/// Why a move string was not accepted.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum MoveError {
    /// Not a move in any notation Menagerie reads.
    #[error("'{0}' is not a move in coordinate or SAN form")]
    Syntax(String),
    /// Well-formed, but not legal in the position.
    #[error("'{mv}' is illegal here: {reason}")]
    Illegal {
        /// The move text.
        mv: String,
        /// Why.
        reason: String,
    },
    /// SAN that fits more than one legal move.
    #[error("'{0}' is ambiguous here")]
    Ambiguous(String),
    /// Names a square that is not on the variant's board (e.g. `e2e9` on
    /// 8x8, `zz9`): never legal, whatever the position.
    #[error("'{mv}' names the square {square}, which is off the {files}x{ranks} board")]
    OffBoard {
        /// The move text.
        mv: String,
        /// The first square off the board.
        square: String,
        /// Board width.
        files: u8,
        /// Board height.
        ranks: u8,
    },
}

/// The first square named in `text` (a file letter then a rank number) that
/// lies off a `files` x `ranks` board.
pub(crate) fn off_board_square(text: &str, files: u8, ranks: u8) -> Option<String> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let digits = b[i + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
        if c.is_ascii_lowercase() && digits > 0 {
            let rank: u32 = text[i + 1..i + 1 + digits].parse().unwrap_or(u32::MAX);
            if c - b'a' >= files || rank == 0 || rank > u32::from(ranks) {
                return Some(text[i..i + 1 + digits].to_string());
            }
        }
        i += 1 + digits;
    }
    None
}

/// Formats `m` in coordinate form for `variant`.
pub fn format(variant: VariantId, m: Move) -> String {
    let files = variant.size().0;
    match m.kind {
        MoveKind::Accept => "accept".into(),
        MoveKind::Decline => "decline".into(),
        MoveKind::Place => {
            let letter = variant.rules().gating.map_or('?', |g| g.piece.letter());
            let fs: String = (0..8).filter(|f| m.place_mask() & (1 << f) != 0).map(|f| File(f).letter()).collect();
            format!("{letter}@{fs}")
        }
        _ => {
            let mut s = format!("{}{}", square_name(m.from, files), square_name(m.to, files));
            if let Some(k) = m.promotion {
                s.push(k.letter().to_ascii_lowercase());
            }
            if m.kind == MoveKind::Takeover {
                s.push('t');
            }
            s
        }
    }
}

/// True if `s` has the shape of a coordinate move (legal or not).
pub fn looks_like_coordinate(s: &str) -> bool {
    if s == "accept" || s == "decline" {
        return true;
    }
    if let Some((p, files)) = s.split_once('@') {
        return p.len() == 1
            && p.chars().all(|c| c.is_ascii_alphabetic())
            && !files.is_empty()
            && files.chars().all(|c| c.is_ascii_lowercase());
    }
    let b = s.as_bytes();
    let mut i = 0;
    let mut square = || -> bool {
        if i >= b.len() || !b[i].is_ascii_lowercase() {
            return false;
        }
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() && i - start < 2 {
            i += 1;
        }
        i > start
    };
    if !square() || !square() {
        return false;
    }
    let rest = &s[i..];
    rest.is_empty() || (rest.len() <= 2 && rest.chars().all(|c| c.is_ascii_lowercase()))
}

/// Reads a coordinate move and finds it among the legal moves of `pos`.
pub fn parse(pos: &AnyPosition, s: &str) -> Result<Move, MoveError> {
    let s = s.trim();
    if !looks_like_coordinate(s) {
        return Err(MoveError::Syntax(s.to_string()));
    }
    let variant = pos.variant();
    let moves = pos.legal_moves();
    let canon = |t: &str| t.to_ascii_lowercase();
    let want = canon(s);
    for &m in moves.iter() {
        if canon(&format(variant, m)) == want {
            return Ok(m);
        }
        if m.kind == MoveKind::Swap {
            let rev = Move { from: m.to, to: m.from, ..m };
            if canon(&format(variant, rev)) == want {
                return Ok(m);
            }
        }
    }
    Err(MoveError::Illegal { mv: s.to_string(), reason: illegal_reason(pos, s) })
}

/// A short explanation of why `s` is not legal in `pos`.
pub(crate) fn illegal_reason(pos: &AnyPosition, s: &str) -> String {
    if let Some(o) = pos.outcome().filter(|_| pos.count_legal() == 0) {
        return format!("the game is over ({})", o.describe());
    }
    let files = pos.variant().size().0;
    let ranks = pos.variant().size().1;
    let digits = s.chars().skip(1).take_while(|c| c.is_ascii_digit()).count();
    let from = s.get(..1 + digits).and_then(|t| parse_sq(t, files, ranks));
    match from.and_then(|sq| pos.piece_at(sq)) {
        None if from.is_some() => "there is no piece on the origin square".into(),
        Some(p) if p.color != pos.side_to_move() => {
            format!(
                "the piece on the origin square belongs to {}, but {} is to move",
                p.color.name(),
                pos.side_to_move().name()
            )
        }
        _ if pos.is_check() => "it does not get the king out of check".into(),
        _ => "not a legal move in this position".into(),
    }
}

fn parse_sq(s: &str, files: u8, ranks: u8) -> Option<Square> {
    let f = File::from_letter(s.chars().next()?)?;
    let r: u8 = s.get(1..)?.parse().ok()?;
    (f.0 < files && (1..=ranks).contains(&r)).then(|| Square((r - 1) * files + f.0))
}
