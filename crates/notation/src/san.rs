//! Standard algebraic notation (SAN) for every variant.
//!
//! Orthodox SAN (`Nf3`, `exd5`, `e8=Q`, `O-O`, `Raxd1+`, `Qh7#`) with
//! Menagerie's additions:
//! - a move that fires a gate adds the entry: `Nf3(A@g1)`; castling that
//!   fires two gates adds both;
//! - prelude actions: `accept`, `decline`, `A@g`, `A@bg`;
//! - an Alseid move that kidnaps shows both journeys: `Sd4-d6(Nd1-d4)`
//!   (Alseid from d4 to d6, the Knight kidnapped from d1 to d4); without a
//!   victim it is written like any piece move, `Sd6`;
//! - takeovers are captures and list the converted squares:
//!   `Nxg4(=g3)`, `Cxf8(=e6)(=e7)`, a jump takeover `Qxe5(=e4)`, a pawn's
//!   `Pxd5(=c4)` (the `P` distinguishes it from an ordinary capture);
//! - a swap names both pieces from the lower square: `Qe2<>Kf2`, with a
//!   promotion `Pb9<>Rb10=Q`.
//!
//! Parsing is lenient: check marks, annotations (`!`, `?`), a missing `=`
//! before a promotion letter, `0-0` for `O-O` and redundant disambiguation
//! are accepted.

use crate::fen::square_name;
use crate::uci::MoveError;
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
    let after = pos.play_unchecked(m);
    let mut s = body(pos, m, legal, &after);
    if after.is_check() {
        s.push(if after.count_legal() == 0 { '#' } else { '+' });
    }
    s
}

/// [`format_with`] given also the position after `m` and its number of
/// legal moves (a caller that needs both anyway generates nothing here).
pub fn format_known(pos: &AnyPosition, m: Move, legal: &[Move], after: &AnyPosition, after_legal: u64) -> String {
    let mut s = body(pos, m, legal, after);
    if after.is_check() {
        s.push(if after_legal == 0 { '#' } else { '+' });
    }
    s
}

/// The SAN of `m` without its check or mate mark; `after` is `pos` after `m`.
fn body(pos: &AnyPosition, m: Move, legal: &[Move], after: &AnyPosition) -> String {
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
        MoveKind::Swap => {
            let (Some(a), Some(b)) = (pos.piece_at(m.from), pos.piece_at(m.to)) else {
                return crate::uci::format(variant, m);
            };
            let mut s = format!("{}{}<>{}{}", a.kind.letter(), name(m.from), b.kind.letter(), name(m.to));
            if let Some(k) = m.promotion {
                s.push('=');
                s.push(k.letter());
            }
            s
        }
        MoveKind::Kidnap if after.piece_at(m.from).is_some() => {
            // The victim now stands on the Alseid's origin; find where it came from.
            let victim = after.piece_at(m.from);
            let origin = kidnap_origin(pos, m, files);
            let v = victim.map_or('?', |p| p.kind.letter());
            format!("S{}-{}({}{}-{})", name(m.from), name(m.to), v, origin.map_or_else(String::new, name), name(m.from))
        }
        _ => {
            let Some(piece) = pos.piece_at(m.from) else { return crate::uci::format(variant, m) };
            let takeover = matches!(m.kind, MoveKind::Takeover | MoveKind::Jump);
            let capture = pos.is_capture(m);
            let mut s = String::new();
            if piece.kind == PieceKind::Pawn && m.kind != MoveKind::Jump {
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
            if takeover {
                // Converted pieces: squares that changed owner.
                let total = files as usize * variant.size().1 as usize;
                for i in 0..total {
                    let sq = Square(i as u8);
                    if let (Some(b), Some(a)) = (pos.piece_at(sq), after.piece_at(sq))
                        && b.color != a.color
                        && b.kind == a.kind
                        && sq != m.to
                    {
                        s.push_str(&format!("(={})", name(sq)));
                    }
                }
            }
            s
        }
    };
    // Gate entries fired by this move: a home square (other than the
    // destination) that now holds its owner's reserve piece and did not before.
    if let Some(g) = variant.rules().gating {
        let ranks = variant.size().1;
        for (rank, owner) in [(0u8, menagerie_pieces::Color::White), (ranks - 1, menagerie_pieces::Color::Black)] {
            for f in 0..files {
                let sq = Square(rank * files + f);
                let reserve = Piece::new(owner, g.piece);
                if sq != m.to && after.piece_at(sq) == Some(reserve) && pos.piece_at(sq) != Some(reserve) {
                    s.push_str(&format!("({}@{})", g.piece.letter(), name(sq)));
                }
            }
        }
    }
    s
}

/// Where the victim of an Alseid move came from: the second piece behind
/// the origin, looking against the direction of the move.
fn kidnap_origin(pos: &AnyPosition, m: Move, files: u8) -> Option<Square> {
    let ranks = pos.variant().size().1 as i32;
    let (f0, r0) = ((m.from.0 % files) as i32, (m.from.0 / files) as i32);
    let (f1, r1) = ((m.to.0 % files) as i32, (m.to.0 / files) as i32);
    let (df, dr) = ((f0 - f1).signum(), (r0 - r1).signum());
    let (mut f, mut r) = (f0 + df, r0 + dr);
    let mut seen = 0;
    while (0..files as i32).contains(&f) && (0..ranks).contains(&r) {
        let sq = Square((r * files as i32 + f) as u8);
        if pos.piece_at(sq).is_some() {
            seen += 1;
            if seen == 2 {
                return Some(sq);
            }
        }
        f += df;
        r += dr;
    }
    None
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

/// A SAN body with its takeover marks `(=sq)` in sorted order, so a list
/// of converted squares may be written in any order.
fn conversions(s: &str) -> String {
    let (head, rest) = s.split_once("(=").map_or((s, ""), |(h, r)| (h, r));
    if rest.is_empty() {
        return head.to_string();
    }
    let mut marks: Vec<&str> = rest.split("(=").map(|m| m.trim_end_matches(')')).collect();
    marks.sort_unstable();
    let mut out = head.to_string();
    for m in marks {
        out.push_str("(=");
        out.push_str(m);
        out.push(')');
    }
    out
}

/// Reads a SAN move and finds it among the legal moves of `pos`.
pub fn parse(pos: &AnyPosition, text: &str) -> Result<Move, MoveError> {
    parse_in(pos, text, &pos.legal_moves())
}

/// [`parse`] given the legal moves of `pos` (avoids regenerating them).
pub fn parse_in(pos: &AnyPosition, text: &str, legal: &[Move]) -> Result<Move, MoveError> {
    let want = strip(text);
    if want.is_empty() {
        return Err(MoveError::Syntax(text.to_string()));
    }
    let files = pos.variant().size().0;
    let marked = want.contains("(=");
    let mut exact = Vec::new();
    for &m in legal.iter() {
        // Every form but castling and the prelude names the destination square.
        let named = matches!(m.kind, MoveKind::Castle | MoveKind::Accept | MoveKind::Decline | MoveKind::Place);
        if !named && !want.contains(&square_name(m.to, files)) {
            continue;
        }
        let f = strip(&body(pos, m, legal, &pos.play_unchecked(m)));
        // Compare without the gate-entry suffix too: it is implied by the move.
        let plain = f.split('(').next().unwrap_or("").to_string();
        // A swap may be written from either square.
        let reversed = match (m.kind, f.split_once("<>")) {
            (MoveKind::Swap, Some((a, b))) => {
                let (b, promo) = b.split_once('=').map_or((b, String::new()), |(b, p)| (b, format!("={p}")));
                format!("{b}<>{a}{promo}")
            }
            _ => String::new(),
        };
        if f == want || plain == want || reversed == want || (marked && conversions(&f) == conversions(&want)) {
            exact.push(m);
        }
    }
    if exact.len() == 1 {
        return Ok(exact[0]);
    }
    // Converted squares are part of the move: a list that matches no
    // takeover (too few, too many, wrong squares) names no legal move.
    if marked {
        return Err(MoveError::Illegal { mv: text.to_string(), reason: crate::why::explain(pos, text) });
    }
    if want == "O-O" || want == "O-O-O" {
        return Err(MoveError::Illegal { mv: text.to_string(), reason: crate::why::explain(pos, text) });
    }
    let Some(pattern) = Pattern::read(&want) else {
        return Err(MoveError::Syntax(text.to_string()));
    };
    let found: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|&m| !m.is_prelude() && m.kind != MoveKind::Castle && pattern.matches(pos, m, files))
        .collect();
    match found.len() {
        1 => Ok(found[0]),
        0 => Err(MoveError::Illegal { mv: text.to_string(), reason: crate::why::explain(pos, text) }),
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
