//! Coordinate (UCI long-algebraic) moves for every variant, in two forms.
//!
//! [`format`] is Menagerie's own coordinate form (the gRPC API, the CLI,
//! perft divides, PGN tooling):
//!
//! | move | form |
//! |---|---|
//! | normal, capture, en passant, kidnap, swap, jump takeover | `e2e4`, `e1g1` (castling as king-to-square) |
//! | promotion | `e7e8q`; a wazir staying a wazir: `e9e10w` |
//! | Knight/Zebra/Camel/Rhino takeover leap | `h2g4t` |
//! | prelude | `accept`, `decline`, `A@g`, `A@bg` |
//!
//! [`format_wire`] is the *wire* form printed by the UCI engine protocol:
//! every token is in the UCI move alphabet (coordinates, a promotion
//! letter, drops `X@sq`, the null move `0000`), ranks numbered 1..10 on the
//! 10x10 board (`a10a9`), so generic UCI clients can split and store them:
//!
//! | move | wire form | why it is unambiguous |
//! |---|---|---|
//! | ordinary moves, promotions, swaps, jump takeovers | as [`format`] | — |
//! | prelude `decline` | `0000` | a pass: the board is unchanged |
//! | prelude `accept` | `K@` + the mover's king square (`K@e1`, `K@e8`) | a king drop is never otherwise legal |
//! | placement on one file | reserve letter `@` file + home rank (`A@g1` White, `A@g8` Black, `S@d1`) | a drop onto the gate square |
//! | placement on two files f < g (`alpaca2`) | `f`r`g`r + reserve letter lower case (`b1g1a`, `b8g8a`) | nothing else is legal during the prelude |
//! | Knight/Zebra/Camel/Rhino takeover leap | squares + the mover's letter lower case (`h2g4n`, `c2d5z`, `…c`, `…h`) | the mover is never a pawn or wazir, so the letter cannot be a promotion of the same squares; the plain leap has no suffix |
//!
//! [`parse`] (and so [`crate::parse_move`]) accepts both forms, and the
//! old `t` suffix of takeovers.
//!
//! Which tokens python-chess itself accepts (`chess.Move.from_uci`, which
//! knows only 8x8 squares, promotion/drop letters `pnbrqk`, and refuses a
//! move from a square to itself): every orthodox-shaped 8x8 token
//! (`e2e4`, `e7e8q`, castling `e1g1`, swaps), `0000`, and `K@e1`/`K@e8`.
//! It refuses `A@g1`/`S@d1` (drop letter outside `pnbrqk`), `b1g1a`
//! (promotion letter `a`) and every 10x10 token (`a10a9`, `i2h5`). Its
//! `Board` cannot play any fairy move anyway; the wire form is meant for
//! clients that check the token shape (see [`is_wire_token`]) and leave
//! legality to Menagerie.
//!
//! A swap is formatted from the lower square; either order parses.
//!
//! Chess960 castling is written king-takes-rook in both forms (`e1h1`,
//! `b1a1`): the king's destination would be ambiguous (a king on g1 that
//! castles short stays on g1; a king on f1 castling short "moves" to g1 like
//! an ordinary step). [`format_wire_orthodox_castling`] writes the
//! king-to-square form instead, for UCI GUIs that did not set
//! `UCI_Chess960`. [`parse`] reads both; a king-to-square text that is
//! also an ordinary king move is that move.

use crate::fen::square_name;
use menagerie_geometry::{File, Square};
use menagerie_pieces::{Color, Piece, PieceKind};
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

/// Formats `m`, a legal move in `pos`, in the wire form of the UCI engine
/// protocol (see the module documentation): `0000` for a decline, `K@e1`
/// for an accept, drops or square pairs for placements, and the mover's
/// letter as the suffix of a takeover leap.
pub fn format_wire(pos: &AnyPosition, m: Move) -> String {
    let variant = pos.variant();
    let (files, ranks) = variant.size();
    let mover = pos.side_to_move();
    let home = |f: u8| -> Square {
        let rank = if mover == Color::White { 0 } else { ranks - 1 };
        Square(rank * files + f)
    };
    match m.kind {
        MoveKind::Decline => "0000".into(),
        MoveKind::Accept => {
            let king = (0..files * ranks)
                .map(Square)
                .find(|&sq| pos.piece_at(sq) == Some(Piece { color: mover, kind: PieceKind::King }));
            match king {
                Some(sq) => format!("K@{}", square_name(sq, files)),
                // No king (not a legal position): the old form.
                None => format(variant, m),
            }
        }
        MoveKind::Place => {
            let letter = variant.rules().gating.map_or('?', |g| g.piece.letter());
            let chosen: Vec<u8> = (0..8).filter(|f| m.place_mask() & (1 << f) != 0).collect();
            match chosen[..] {
                [f] => format!("{letter}@{}", square_name(home(f), files)),
                [f, g] => format!(
                    "{}{}{}",
                    square_name(home(f), files),
                    square_name(home(g), files),
                    letter.to_ascii_lowercase()
                ),
                _ => format(variant, m),
            }
        }
        MoveKind::Takeover => {
            let suffix = pos.piece_at(m.from).map_or('t', |p| p.kind.letter().to_ascii_lowercase());
            let mut s = format!("{}{}", square_name(m.from, files), square_name(m.to, files));
            if let Some(k) = m.promotion {
                s.push(k.letter().to_ascii_lowercase());
            }
            s.push(suffix);
            s
        }
        _ => format(variant, m),
    }
}

/// [`format_wire`], but a Chess960 castling move is written king-to-square
/// (`e1g1`, the orthodox UCI form) when the king changes square — what a
/// UCI engine prints while `UCI_Chess960` is off. Other moves are as
/// [`format_wire`].
pub fn format_wire_orthodox_castling(pos: &AnyPosition, m: Move) -> String {
    match king_to_square(pos.variant(), m) {
        Some(s) => s,
        None => format_wire(pos, m),
    }
}

/// The king-to-square form of a Chess960 castling move `m` (`None` for
/// other moves, and when the king stays on its square).
fn king_to_square(variant: VariantId, m: Move) -> Option<String> {
    if m.kind != MoveKind::Castle || !variant.rules().chess960 {
        return None;
    }
    let files = variant.size().0;
    let base = m.from.0 - m.from.0 % files;
    let king_to = Square(base + if m.to.0 > m.from.0 { 6 } else { 2 });
    (king_to != m.from).then(|| format!("{}{}", square_name(m.from, files), square_name(king_to, files)))
}

/// True if `s` is a token of the generic UCI move alphabet, i.e. matches
/// `^(0000|[A-Z]@[a-z](10|[1-9])|[a-z](10|[1-9])[a-z](10|[1-9])[a-z]?)$`
/// (every [`format_wire`] token does, on every Menagerie board).
pub fn is_wire_token(s: &str) -> bool {
    fn square(b: &[u8]) -> Option<usize> {
        let (&f, rest) = b.split_first()?;
        if !f.is_ascii_lowercase() {
            return None;
        }
        match rest {
            [b'1', b'0', ..] => Some(3),
            [d, ..] if (b'1'..=b'9').contains(d) => Some(2),
            _ => None,
        }
    }
    let b = s.as_bytes();
    if s == "0000" {
        return true;
    }
    if b.len() >= 3 && b[0].is_ascii_uppercase() && b[1] == b'@' {
        return square(&b[2..]) == Some(b.len() - 2);
    }
    let Some(a) = square(b) else { return false };
    let Some(c) = square(&b[a..]) else { return false };
    match &b[a + c..] {
        [] => true,
        [p] => p.is_ascii_lowercase(),
        _ => false,
    }
}

/// True if `s` has the shape of a coordinate move (legal or not).
pub fn looks_like_coordinate(s: &str) -> bool {
    if s == "accept" || s == "decline" || s == "0000" {
        return true;
    }
    if let Some((p, files)) = s.split_once('@') {
        // `A@g`, `A@bg` (files) or `A@g1`, `K@e8`, `A@a10` (a square; only
        // the drop letters the wire form uses: K, A, S).
        let square = matches!(p, "K" | "A" | "S" | "k" | "a" | "s")
            && files.len() >= 2
            && files.as_bytes()[0].is_ascii_lowercase()
            && files.len() <= 3
            && files[1..].chars().all(|c| c.is_ascii_digit());
        return p.len() == 1
            && p.chars().all(|c| c.is_ascii_alphabetic())
            && !files.is_empty()
            && (square || files.chars().all(|c| c.is_ascii_lowercase()));
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

/// Reads a coordinate move, in the [`format`] or the [`format_wire`] form,
/// and finds it among the legal moves of `pos`.
pub fn parse(pos: &AnyPosition, s: &str) -> Result<Move, MoveError> {
    parse_in(pos, s, &pos.legal_moves())
}

/// [`parse`] given the legal moves of `pos` (avoids regenerating them).
pub fn parse_in(pos: &AnyPosition, s: &str, moves: &[Move]) -> Result<Move, MoveError> {
    let s = s.trim();
    if !looks_like_coordinate(s) {
        return Err(MoveError::Syntax(s.to_string()));
    }
    let variant = pos.variant();
    let canon = |t: &str| t.to_ascii_lowercase();
    let want = canon(s);
    for &m in moves.iter() {
        if canon(&format(variant, m)) == want || canon(&format_wire(pos, m)) == want {
            return Ok(m);
        }
        if m.kind == MoveKind::Swap {
            let rev = Move { from: m.to, to: m.from, ..m };
            if canon(&format(variant, rev)) == want {
                return Ok(m);
            }
        }
    }
    // Chess960 castling written king-to-square (no ordinary move matched).
    if let Some(&m) = moves.iter().find(|&&m| king_to_square(variant, m).is_some_and(|t| t == want)) {
        return Ok(m);
    }
    Err(MoveError::Illegal { mv: s.to_string(), reason: crate::why::explain(pos, s) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen;

    /// Every legal move of `pos` round-trips through both forms, every
    /// wire token has the generic UCI shape, and no two moves share a token.
    fn round_trip(pos: &AnyPosition) -> Vec<(Move, String)> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for &m in pos.legal_moves().iter() {
            let wire = format_wire(pos, m);
            assert!(is_wire_token(&wire), "{wire} in {}", fen::format(pos));
            assert!(looks_like_coordinate(&wire), "{wire}");
            assert_eq!(parse(pos, &wire), Ok(m), "{wire} in {}", fen::format(pos));
            assert_eq!(crate::parse_move(pos, &wire), Ok(m), "{wire} in {}", fen::format(pos));
            let old = format(pos.variant(), m);
            assert_eq!(parse(pos, &old), Ok(m), "{old} in {}", fen::format(pos));
            assert!(seen.insert(wire.clone()), "two moves print as {wire} in {}", fen::format(pos));
            out.push((m, wire));
        }
        out
    }

    fn wire_tokens(variant: VariantId, text: &str) -> Vec<String> {
        let pos = fen::parse(variant, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        round_trip(&pos).into_iter().map(|(_, w)| w).collect()
    }

    #[test]
    fn generic_uci_shape() {
        for ok in ["0000", "e2e4", "e7e8q", "a10a9", "j9j10w", "A@g1", "K@e8", "A@a10", "b1g1a", "h2g4n"] {
            assert!(is_wire_token(ok), "{ok}");
        }
        for bad in ["accept", "decline", "A@g", "A@bg", "e2e4qq", "e0e4", "a11a1", "e2", "a@g1", "A@g0", "", "e2e4Q"] {
            assert!(!is_wire_token(bad), "{bad}");
        }
    }

    #[test]
    fn prelude_tokens() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let mut w = wire_tokens(VariantId::Alpaca, &format!("{start}[Aa?] w KQkq - 0 1"));
        w.sort();
        assert_eq!(w, ["0000", "K@e1"]);
        let mut b = wire_tokens(VariantId::Alpaca, &format!("{start}[Aa?] b KQkq - 0 1"));
        b.sort();
        assert_eq!(b, ["0000", "K@e8"]);
        let w = wire_tokens(VariantId::Alpaca, &format!("{start}[Aa] w KQkq - 0 1"));
        assert_eq!(w.len(), 8);
        assert!(w.contains(&"A@g1".to_string()) && w.contains(&"A@a1".to_string()), "{w:?}");
        let b = wire_tokens(VariantId::Alpaca, &format!("{start}[A@ga] b KQkq - 0 1"));
        assert!(b.contains(&"A@g8".to_string()) && b.len() == 8, "{b:?}");
        let w = wire_tokens(VariantId::Alpaca2, &format!("{start}[AAaa] w KQkq - 0 1"));
        assert!(w.contains(&"b1g1a".to_string()) && !w.contains(&"a1e1a".to_string()), "{w:?}");
        let b = wire_tokens(VariantId::Alpaca2, &format!("{start}[A@bA@gaa] b KQkq - 0 1"));
        assert!(b.contains(&"b8g8a".to_string()), "{b:?}");
        let s = wire_tokens(VariantId::Alseid, &format!("{start}[Ss] w KQkq - 0 1"));
        assert!(s.contains(&"S@d1".to_string()), "{s:?}");
        // The king need not stand on e1 (a FEN): accept names its square.
        let w = wire_tokens(VariantId::Alpaca, "4r1k1/8/8/8/8/8/8/R5K1[Aa?] w - - 0 1");
        assert!(w.contains(&"K@g1".to_string()), "{w:?}");
        // The old forms still parse.
        let pos = AnyPosition::start(VariantId::Alpaca);
        assert_eq!(parse(&pos, "accept").map(|m| m.kind), Ok(MoveKind::Accept));
        assert_eq!(parse(&pos, "decline").map(|m| m.kind), Ok(MoveKind::Decline));
        assert_eq!(parse(&pos, "K@e1").map(|m| m.kind), Ok(MoveKind::Accept));
        assert_eq!(parse(&pos, "0000").map(|m| m.kind), Ok(MoveKind::Decline));
        assert!(matches!(parse(&pos, "K@e8"), Err(MoveError::Illegal { .. })));
        let chess = AnyPosition::start(VariantId::Chess);
        assert!(matches!(crate::parse_move(&chess, "0000"), Err(MoveError::Illegal { .. })));
    }

    #[test]
    fn takeover_leaps_carry_the_movers_letter() {
        // The Camel on d2 leaps to e5 over the knight on d4.
        let text = "4k5/2c7/10/10/10/10/3n6/10/3C6/4K5 w - - 0 1";
        let pos = fen::parse(VariantId::CamelRhino, text).unwrap();
        let all = round_trip(&pos);
        let take: Vec<&String> = all.iter().filter(|(m, _)| m.kind == MoveKind::Takeover).map(|(_, w)| w).collect();
        assert!(take.contains(&&"d2e5c".to_string()), "{take:?}");
        assert!(all.iter().any(|(_, w)| w == "d2e5"), "the plain leap");
        assert_eq!(parse(&pos, "d2e5t").map(|m| m.kind), Ok(MoveKind::Takeover));
        assert_eq!(parse(&pos, "d2e5c").map(|m| m.kind), Ok(MoveKind::Takeover));
    }

    /// Deterministic random games in every variant: every legal move of
    /// every position on the way round-trips (takeovers included).
    #[test]
    fn every_move_of_random_games_round_trips() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut takeovers = 0;
        for &v in VariantId::ALL.iter() {
            for game in 0..4 {
                let mut pos = AnyPosition::start(v);
                for _ in 0..(40 + 20 * game) {
                    let moves = round_trip(&pos);
                    if moves.is_empty() || pos.outcome().is_some() {
                        break;
                    }
                    takeovers += moves.iter().filter(|(m, _)| m.kind == MoveKind::Takeover).count();
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let (m, _) = moves[(state % moves.len() as u64) as usize];
                    pos = pos.play_unchecked(m);
                }
            }
        }
        assert!(takeovers > 0, "no takeover leap met");
    }
}
