//! Standard algebraic notation (SAN) for every variant.
//!
//! Orthodox SAN (`Nf3`, `exd5`, `e8=Q`, `O-O`, `Raxd1+`, `Qh7#`) with
//! Menagerie's additions:
//! - a move that fires a gate adds the entry: `Nf3(A@g1)`; castling that
//!   fires two gates adds both;
//! - prelude actions: `accept`, `decline`, `A@g`, `A@bg`.
//!
//! Parsing is lenient: check marks, annotations (`!`, `?`), a missing `=`
//! before a promotion letter, `0-0` for `O-O` and redundant disambiguation
//! are accepted.

use crate::fen::square_name;
use crate::uci::{MoveError, illegal_reason};
use menagerie_geometry::Square;
use menagerie_pieces::{Piece, PieceKind};
use menagerie_variants::{AnyPosition, Move, MoveKind};

/// Formats a legal move `m` of `pos` in SAN.
pub fn format(pos: &AnyPosition, m: Move) -> String {
    let legal = pos.legal_moves();
    format_with(pos, m, &legal)
}

/// Formats `m` given the legal moves of `pos` (avoids regenerating them).
pub fn format_with(pos: &AnyPosition, m: Move, legal: &[Move]) -> String {
    let variant = pos.variant();
    let files = variant.size().0;
    let name = |s: Square| square_name(s, files);
    let mut s = match m.kind {
        MoveKind::Accept | MoveKind::Decline | MoveKind::Place => return crate::uci::format(variant, m),
        MoveKind::Castle => {
            if m.to.0 > m.from.0 {
                "O-O".to_string()
            } else {
                "O-O-O".to_string()
            }
        }
        _ => {
            let Some(piece) = pos.piece_at(m.from) else { return crate::uci::format(variant, m) };
            let capture = pos.piece_at(m.to).is_some_and(|p| p.color != piece.color) || m.kind == MoveKind::EnPassant;
            let mut s = String::new();
            if piece.kind == PieceKind::Pawn {
                if capture {
                    s.push(menagerie_geometry::File(m.from.0 % files).letter());
                }
            } else {
                s.push(piece.kind.letter());
                s.push_str(&disambiguation(pos, m, piece, legal, files));
            }
            if capture {
                s.push('x');
            }
            s.push_str(&name(m.to));
            if let Some(k) = m.promotion {
                s.push('=');
                s.push(k.letter());
            }
            s
        }
    };
    // Gate entries fired by this move.
    let after = pos.play_unchecked(m);
    if let Some(g) = variant.rules().gating {
        let mut fired: Vec<Square> = Vec::new();
        for sq in vacated_squares(pos, m) {
            let owner = pos.piece_at(sq).map(|p| p.color);
            if let (Some(c), Some(now)) = (owner, after.piece_at(sq))
                && now == Piece::new(c, g.piece)
                && pos.piece_at(sq) != Some(now)
            {
                fired.push(sq);
            }
        }
        for sq in fired {
            s.push_str(&format!("({}@{})", g.piece.letter(), name(sq)));
        }
    }
    if after.is_check() {
        s.push(if after.count_legal() == 0 { '#' } else { '+' });
    }
    s
}

/// Squares a move empties of their original occupant (origin, castling rook).
fn vacated_squares(pos: &AnyPosition, m: Move) -> Vec<Square> {
    let files = pos.variant().size().0;
    let mut v = vec![m.from];
    if m.kind == MoveKind::Castle {
        let base = m.from.0 - m.from.0 % files;
        v.push(if m.to.0 > m.from.0 { Square(base + files - 1) } else { Square(base) });
    }
    v
}

fn disambiguation(pos: &AnyPosition, m: Move, piece: Piece, legal: &[Move], files: u8) -> String {
    let rivals: Vec<Square> = legal
        .iter()
        .filter(|o| o.to == m.to && o.from != m.from && o.kind == m.kind && pos.piece_at(o.from) == Some(piece))
        .map(|o| o.from)
        .collect();
    if rivals.is_empty() {
        return String::new();
    }
    let file = |s: Square| s.0 % files;
    let rank = |s: Square| s.0 / files;
    let full = square_name(m.from, files);
    let split = full.chars().next().map_or(1, |c| c.len_utf8());
    if rivals.iter().all(|&r| file(r) != file(m.from)) {
        full[..split].to_string()
    } else if rivals.iter().all(|&r| rank(r) != rank(m.from)) {
        full[split..].to_string()
    } else {
        full
    }
}

fn strip(s: &str) -> String {
    let s = s.trim().trim_end_matches(['+', '#', '!', '?']);
    s.replace("0-0-0", "O-O-O").replace("0-0", "O-O")
}

/// Reads a SAN move and finds it among the legal moves of `pos`.
pub fn parse(pos: &AnyPosition, text: &str) -> Result<Move, MoveError> {
    let want = strip(text);
    if want.is_empty() {
        return Err(MoveError::Syntax(text.to_string()));
    }
    let legal = pos.legal_moves();
    let mut exact = Vec::new();
    for &m in legal.iter() {
        let f = strip(&format_with(pos, m, &legal));
        // Compare without the gate-entry suffix too: it is implied by the move.
        let plain = f.split('(').next().unwrap_or("").to_string();
        if f == want || plain == want {
            exact.push(m);
        }
    }
    if exact.len() == 1 {
        return Ok(exact[0]);
    }
    let Some(pattern) = Pattern::read(&want) else {
        return Err(MoveError::Syntax(text.to_string()));
    };
    let files = pos.variant().size().0;
    let found: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|&m| !m.is_prelude() && m.kind != MoveKind::Castle && pattern.matches(pos, m, files))
        .collect();
    match found.len() {
        1 => Ok(found[0]),
        0 => Err(MoveError::Illegal { mv: text.to_string(), reason: illegal_reason(pos, "") }),
        _ => Err(MoveError::Ambiguous(text.to_string())),
    }
}

/// The parts of an orthodox-shaped SAN move.
struct Pattern {
    kind: PieceKind,
    from_file: Option<u8>,
    from_rank: Option<u8>,
    to: (u8, u8),
    promotion: Option<PieceKind>,
}

impl Pattern {
    fn read(s: &str) -> Option<Pattern> {
        let s = s.split('(').next()?;
        let mut chars: Vec<char> = s.chars().collect();
        let mut kind = PieceKind::Pawn;
        if let Some(&c) = chars.first()
            && c.is_ascii_uppercase()
        {
            kind = PieceKind::from_letter(c)?;
            chars.remove(0);
        }
        let mut promotion = None;
        if let Some(&c) = chars.last()
            && c.is_ascii_alphabetic()
            && (c.is_ascii_uppercase() || chars.len() > 2 && chars[chars.len() - 2] == '=')
        {
            promotion = Some(PieceKind::from_letter(c)?);
            chars.pop();
            if chars.last() == Some(&'=') {
                chars.pop();
            }
        }
        let body: String = chars.into_iter().filter(|&c| c != 'x' && c != '-').collect();
        // Destination: the last letter followed by digits.
        let last_letter = body.rfind(|c: char| c.is_ascii_lowercase())?;
        let (head, dest) = body.split_at(last_letter);
        let to_file = dest.chars().next()? as u8 - b'a';
        let to_rank: u8 = dest[1..].parse().ok()?;
        let mut from_file = None;
        let mut from_rank = None;
        let mut hc = head.chars().peekable();
        if let Some(&c) = hc.peek()
            && c.is_ascii_lowercase()
        {
            from_file = Some(c as u8 - b'a');
            hc.next();
        }
        let rest: String = hc.collect();
        if !rest.is_empty() {
            from_rank = Some(rest.parse::<u8>().ok()?.checked_sub(1)?);
        }
        Some(Pattern { kind, from_file, from_rank, to: (to_file, to_rank.checked_sub(1)?), promotion })
    }

    fn matches(&self, pos: &AnyPosition, m: Move, files: u8) -> bool {
        let Some(p) = pos.piece_at(m.from) else { return false };
        p.kind == self.kind
            && m.kind != MoveKind::Swap
            && m.kind != MoveKind::Takeover
            && m.to.0 % files == self.to.0
            && m.to.0 / files == self.to.1
            && self.from_file.is_none_or(|f| m.from.0 % files == f)
            && self.from_rank.is_none_or(|r| m.from.0 / files == r)
            && m.promotion == self.promotion
    }
}
