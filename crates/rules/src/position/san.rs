//! Standard algebraic notation for data-defined variants, written as
//! Fairy-Stockfish writes it: the piece's letter (none for the pawn),
//! disambiguation by file, then rank, then both, `x` for captures, `=L` for
//! promotions, `O-O`/`O-O-O` for castling, `/L` for an S-chess gating (with
//! the gate square after castling), `d5=F` and `d5e6=F` for sittuyin's
//! promotions in place and onto another square, `P@e4` for a drop, `,d5` after a move
//! that walls d5 (duck chess), and
//! `+`/`#` for check and checkmate; Menagerie's own moves as the compiled
//! games write them: `Nf3(A@g1)` (a Pioneer entry), `Se4-e6(Ke1-e4)` (a
//! kidnap), `Cxe7(=d5)(=d6)` (a takeover), `Ka1<>Rb1` (a swap).

use super::{Kind, Move, MoveError, NONE, Position, square_name};

impl Position {
    /// The move in standard algebraic notation (`Nf3`, `exd6`, `e8=Q`,
    /// `O-O`, `Nf3/H` for S-chess gating, `Qh5+`, `Qf7#`). `m` must be one
    /// of this position's legal moves.
    pub fn san(&self, m: Move) -> String {
        let mut s = self.san_body(m, &self.legal_moves(), true);
        let after = self.play(m);
        if after.in_check() {
            s.push(if after.legal_moves().is_empty() { '#' } else { '+' });
        }
        s
    }

    /// The legal move written `text` in Fairy-Stockfish's coordinate form
    /// ([`Position::parse_move`]) or in standard algebraic notation
    /// ([`Position::parse_san`]). A text written like neither is
    /// [`MoveError::Syntax`]; a well-formed one that names no legal move is
    /// [`MoveError::Illegal`] (or [`MoveError::Ambiguous`]).
    pub fn parse_any(&self, text: &str) -> Result<Move, MoveError> {
        if let Ok(m) = self.parse_move(text) {
            return Ok(m);
        }
        match self.parse_san(text) {
            Ok(m) => Ok(m),
            Err(MoveError::Ambiguous(t)) => Err(MoveError::Ambiguous(t)),
            Err(_) if coordinate_shaped(text) || san_shaped(text) => Err(MoveError::Illegal(text.to_string())),
            Err(_) => Err(MoveError::Syntax(text.to_string())),
        }
    }

    /// The legal move written `text` in standard algebraic notation. Check
    /// and annotation marks (`+ # ! ?`), `x` and `=` are optional, `0-0`
    /// stands for `O-O`, and a fully qualified form such as `Ng1f3` is
    /// accepted too, as is a kidnap written as the kidnapper's plain move
    /// (`Se6` for `Se4-e6(Ke1-e4)`). A text that fits several legal moves (such as `O-O/H`
    /// when both the king's and the rook's square can take the piece) is
    /// [`MoveError::Ambiguous`].
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveError> {
        let want = normalise(text);
        if want.is_empty() {
            return Err(MoveError::Illegal(text.to_string()));
        }
        let legal = self.legal_moves();
        let mut found: Option<Move> = None;
        let mut bare_fits = Vec::new();
        for &m in &legal {
            let san = normalise(&self.san_body(m, &legal, true));
            if san == want {
                // The canonical form names exactly one move.
                return Ok(m);
            }
            if m.kind == Kind::Swap && normalise(&self.swap_text(m, m.to, m.from)) == want {
                return Ok(m);
            }
            // A kidnap written as the kidnapper's plain move (`Se6`).
            if m.kind == Kind::Kidnap
                && normalise(&self.san_body(Move { kind: Kind::Normal, ..m }, &legal, true)) == want
            {
                return Ok(m);
            }
            if self.long_form(m) == want {
                if found.is_some_and(|f| f != m) {
                    return Err(MoveError::Ambiguous(text.to_string()));
                }
                found = Some(m);
            }
            if normalise(&self.san_body(m, &legal, false)) == want {
                bare_fits.push(m);
            }
        }
        match (found, bare_fits.as_slice()) {
            (Some(m), _) => Ok(m),
            // Only a gating castling without its gate square can fit
            // one move without being that move's canonical form.
            (None, &[m]) => Ok(m),
            (None, [_, _, ..]) => Err(MoveError::Ambiguous(text.to_string())),
            (None, []) => Err(MoveError::Illegal(text.to_string())),
        }
    }

    /// The SAN of `m` without the check mark, given the legal moves;
    /// without disambiguation (of the piece's origin, and of a castling's
    /// gate square) unless `disambiguate`.
    fn san_body(&self, m: Move, legal: &[Move], disambiguate: bool) -> String {
        let d = &*self.def;
        let st = &self.state;
        // A drop: the piece's letter, `@`, the square (`P@e4`); a piece
        // dropped promoted by its promoted letter (`R@a2`, Fairy-Stockfish).
        if let Some(pt) = m.dropped_promoted() {
            // Where two pieces in hand drop as the same promoted type
            // (micro shogi's gold), the hand's piece is named instead:
            // `+R@a1`.
            let twin = legal.iter().any(|o| o.dropped_promoted() == Some(pt) && o.to == m.to && o.gate != m.gate);
            if twin {
                return self.move_text(m);
            }
            return format!("{}@{}", d.types[pt as usize].letter.to_ascii_uppercase(), square_name(d, m.to));
        }
        if m.is_prelude() || m.dropped().is_some() {
            return self.move_text(m);
        }
        let mut s = String::new();
        if m.kind == Kind::Castling {
            // The move is stored as the king taking its own rook.
            s.push_str(if m.to > m.from { "O-O" } else { "O-O-O" });
        } else if m.kind == Kind::Swap {
            s.push_str(&self.swap_text(m, m.from, m.to));
        } else if let (Kind::Kidnap, Some(v)) = (m.kind, st.victim(d, m.from, m.to)) {
            // Both journeys: the kidnapper's, then its victim's onto its origin.
            let letter = |sq: u8| d.types[(st.board[sq as usize] >> 1) as usize].letter.to_ascii_uppercase();
            let (from, to, victim) = (square_name(d, m.from), square_name(d, m.to), square_name(d, v));
            s.push_str(&format!("{}{from}-{to}({}{victim}-{from})", letter(m.from), letter(v)));
        } else {
            let t = st.board[m.from as usize] >> 1;
            // A takeover is written as a capture, with the squares it converts.
            let capture = self.is_capture(m) || m.is_takeover();
            if Some(t) == d.pawn && m.kind != Kind::Jump {
                if capture {
                    s.push(file_char(m.from % d.files));
                } else if m.kind == Kind::Promotion && m.from != m.to && d.sittuyin.is_some() {
                    // Sittuyin's promotion onto another square names its pawn's (`d5e6=F`).
                    s.push_str(&square_name(d, m.from));
                }
            } else {
                s.push(d.types[t as usize].letter.to_ascii_uppercase());
                // Other pieces of the type reaching the square with the
                // same gating (a gating move names its own origin).
                let rivals: Vec<u8> = legal
                    .iter()
                    .filter(|o| {
                        disambiguate
                            && o.to == m.to
                            && o.from != m.from
                            && o.kind != Kind::Castling
                            && o.kind != Kind::Swap
                            && (o.kind == m.kind || !(o.is_takeover() || m.is_takeover()))
                            && o.gate == m.gate
                            && o.wall == m.wall
                            && st.board[o.from as usize] >> 1 == t
                    })
                    .map(|o| o.from)
                    .collect();
                if !rivals.is_empty() {
                    let same_file = rivals.iter().any(|&f| f % d.files == m.from % d.files);
                    let same_rank = rivals.iter().any(|&f| f / d.files == m.from / d.files);
                    if !same_file {
                        s.push(file_char(m.from % d.files));
                    } else if !same_rank {
                        s.push_str(&(m.from / d.files + 1).to_string());
                    } else {
                        s.push_str(&square_name(d, m.from));
                    }
                }
            }
            if capture {
                s.push('x');
            }
            s.push_str(&square_name(d, m.to));
            if let Some(p) = m.promotion() {
                s.push('=');
                s.push(d.types[p as usize].letter.to_ascii_uppercase());
            }
            // The pieces a takeover converts.
            for sq in super::bits(st.converted(d, m)) {
                s.push_str(&format!("(={})", square_name(d, sq)));
            }
        }
        // Pioneer gating: the reserve pieces the move lets in (a kidnap may
        // fire the victim's owner's gate).
        if let Some(p) = d.pioneer {
            let after = st.play(d, m);
            let letter = d.types[p.piece as usize].letter;
            for c in 0..2 {
                let entered = st.gates[c] & !after.gates[c] & after.by_color[c] & after.by_type[p.piece as usize];
                for sq in super::bits(entered) {
                    s.push_str(&format!("({letter}@{})", square_name(d, sq)));
                }
            }
        }
        if m.gate != NONE {
            s.push('/');
            s.push(d.types[m.gate as usize].letter.to_ascii_uppercase());
            // Castling names the gate square (the king's or the rook's).
            let name_square = if m.kind == Kind::Castling { disambiguate } else { m.gate_sq != m.from };
            if name_square {
                s.push_str(&square_name(d, m.gate_sq));
            }
        }
        if let Some(w) = m.wall() {
            s.push(',');
            s.push_str(&square_name(d, w));
        }
        s
    }

    /// Swap `m` written from square `a` (`Ra1<>Nb1`, `Pe9<>Wf10=Q`).
    fn swap_text(&self, m: Move, a: u8, b: u8) -> String {
        let d = &*self.def;
        let letter = |sq: u8| d.types[(self.state.board[sq as usize] >> 1) as usize].letter.to_ascii_uppercase();
        let mut s = format!("{}{}<>{}{}", letter(a), square_name(d, a), letter(b), square_name(d, b));
        if let Some(p) = m.promotion() {
            s.push('=');
            s.push(d.types[p as usize].letter.to_ascii_uppercase());
        }
        s
    }

    /// The move as piece letter, origin and destination (`Ng1f3`, `e7e8Q`),
    /// normalised like [`normalise`].
    fn long_form(&self, m: Move) -> String {
        if m.is_prelude() {
            return self.move_text(m);
        }
        if m.dropped().is_some() {
            return normalise(&self.move_text(m));
        }
        let d = &*self.def;
        let t = self.state.board[m.from as usize] >> 1;
        let mut s = String::new();
        if Some(t) != d.pawn {
            s.push(d.types[t as usize].letter.to_ascii_uppercase());
        }
        s.push_str(&square_name(d, m.from));
        s.push_str(&square_name(d, m.to));
        if let Some(p) = m.promotion() {
            s.push(d.types[p as usize].letter.to_ascii_uppercase());
        }
        for sq in super::bits(self.state.converted(d, m)) {
            s.push_str(&format!("(={})", square_name(d, sq)));
        }
        if m.gate != NONE {
            s.push('/');
            s.push(d.types[m.gate as usize].letter.to_ascii_uppercase());
            if m.gate_sq != m.from {
                s.push_str(&square_name(d, m.gate_sq));
            }
        }
        if let Some(w) = m.wall() {
            s.push(',');
            s.push_str(&square_name(d, w));
        }
        normalise(&s)
    }
}

fn file_char(file: u8) -> char {
    (b'a' + file) as char
}

/// The text without check and annotation marks, `x`, `=`, Pioneer entries
/// (`(A@g1)`, which follow from the move) and (except in castling) `-`;
/// `0-0` as `O-O`.
fn normalise(text: &str) -> String {
    let text = text.trim();
    let castling = text.starts_with("O-O") || text.starts_with("0-0");
    // A leading `+` is a promoted drop's (`+R@a1`), never a check mark.
    let (lead, text) = match text.strip_prefix('+') {
        Some(rest) if rest.contains('@') => ("+", rest),
        _ => ("", text),
    };
    let mut depth = 0u32;
    // Takeover marks `(=g3)`: part of the move, in any order.
    let mut marks: Vec<String> = Vec::new();
    let mut mark: Option<String> = None;
    let mut body = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '(' if depth == 0 && chars.peek() == Some(&'=') => {
                chars.next();
                mark = Some(String::new());
                depth = 1;
            }
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    marks.extend(mark.take());
                }
            }
            _ if depth > 0 => {
                if let Some(m) = mark.as_mut() {
                    m.push(c);
                }
            }
            '+' | '#' | '!' | '?' | 'x' | '=' | ':' => {}
            '-' if !castling => {}
            '0' if castling => body.push('O'),
            _ => body.push(c),
        }
    }
    marks.sort();
    for m in marks {
        body.push('~');
        body.push_str(&m);
    }
    format!("{lead}{body}")
}

/// The rest of `s` after a square name (files `a`..`l`, ranks `1`..`10`).
fn square(s: &[u8]) -> Option<&[u8]> {
    let (&file, rest) = s.split_first()?;
    if !(b'a'..=b'l').contains(&file) {
        return None;
    }
    match rest {
        [b'1', b'0', tail @ ..] => Some(tail),
        [b'1'..=b'9', tail @ ..] => Some(tail),
        _ => None,
    }
}

/// Whether `text` is written like a coordinate move: two squares, then
/// optionally a piece letter and a square (promotion, or gating); or a
/// piece letter, `@` and a square (a drop) or gate files (a Pioneer
/// placement, `H@bg`).
pub(crate) fn coordinate_shaped(text: &str) -> bool {
    // A walling move: the move, `,`, its destination and the wall's square.
    if let Some((mv, wall)) = text.split_once(',') {
        return coordinate_shaped(mv) && square(wall.as_bytes()).and_then(square) == Some(&[]);
    }
    if let [piece, b'@', place @ ..] = text.as_bytes() {
        let files = !place.is_empty() && place.iter().all(|f| (b'a'..=b'l').contains(f));
        return piece.is_ascii_alphabetic() && (files || square(place) == Some(&[]));
    }
    let Some(rest) = square(text.as_bytes()).and_then(square) else { return false };
    match rest {
        [] => true,
        [piece] => piece.is_ascii_lowercase(),
        [piece, gate @ ..] => piece.is_ascii_lowercase() && square(gate) == Some(&[]),
    }
}

/// Whether `text` is written like SAN: castling, or an optional piece
/// letter and origin, a destination square, then optionally `=L` and `/L`
/// with a square (marks `x + # ! ?` and `-` ignored).
pub(crate) fn san_shaped(text: &str) -> bool {
    // A walling move: the move, `,` and the wall's square (`Nf3,d5+`).
    if let Some((mv, wall)) = text.split_once(',') {
        let wall = wall.trim_end_matches(['+', '#', '!', '?']);
        return san_shaped(mv) && square(wall.as_bytes()) == Some(&[]);
    }
    let n = normalise(text);
    let n = n.split('~').next().unwrap_or("").to_string();
    // A swap: two pieces and their squares, `Ra1<>Nb1`, maybe a promotion.
    if let Some((a, b)) = n.split_once("<>") {
        let b = b.split_once('=').map_or(b, |(b, _)| b);
        let piece_square = |x: &str| {
            let x = x.as_bytes();
            x.first().is_some_and(u8::is_ascii_uppercase) && square(&x[1..]) == Some(&[])
        };
        return piece_square(a) && piece_square(b);
    }
    if n == "O-O" || n == "O-O-O" || n.starts_with("O-O/") || n.starts_with("O-O-O/") {
        return true;
    }
    let (body, gate) = match n.split_once('/') {
        Some((b, g)) => (b, Some(g)),
        None => (n.as_str(), None),
    };
    if let Some(g) = gate {
        let g = g.as_bytes();
        match g.split_first() {
            Some((l, rest)) if l.is_ascii_uppercase() && (rest.is_empty() || square(rest) == Some(&[])) => {}
            _ => return false,
        }
    }
    let mut b = body.as_bytes();
    if let [head @ .., l] = b
        && l.is_ascii_uppercase()
    {
        b = head; // promotion letter
    }
    if let [l, rest @ ..] = b
        && l.is_ascii_uppercase()
    {
        b = rest; // piece letter
    }
    // Origin (none, a file, a rank or a square), then the destination.
    (0..=b.len()).any(|cut| {
        let (from, to) = b.split_at(cut);
        let origin = from.is_empty()
            || (from.len() == 1 && (b'a'..=b'l').contains(&from[0]))
            || from == b"10"
            || (from.len() == 1 && from[0].is_ascii_digit())
            || square(from) == Some(&[]);
        origin && square(to) == Some(&[])
    })
}

#[cfg(test)]
mod tests {
    use super::{coordinate_shaped, san_shaped};

    #[test]
    fn coordinate_shape_is_two_squares_and_an_optional_piece_and_square() {
        for ok in ["e2e4", "a10l1", "e7e8q", "g1f3h", "h1e1e", "e1g1", "b1c3h", "e1h1ee1", "P@e4", "H@cg", "A@b"] {
            assert!(coordinate_shaped(ok), "{ok}");
        }
        for bad in [
            "", "e4", "Nf3", "e2e44", "m2m4", "e0e1", "e2e4Q", "e2e4qq", "e2 e4", "é2e4", "a11a1", "@e4", "P@", "P@m4",
            "P@e44", "1@e4",
        ] {
            assert!(!coordinate_shaped(bad), "{bad}");
        }
    }

    #[test]
    fn san_shape() {
        for ok in [
            "e4", "Nf3", "exd6", "e8=Q", "e8Q", "O-O", "0-0-0+", "Nbd7", "N1a2", "Nc1e2", "Rj10#", "Nf3/H", "O-O/He1",
            "bxa8=C+", "Ng1-f3", "Ra10",
        ] {
            assert!(san_shaped(ok), "{ok}");
        }
        for bad in ["", "hello", "Nf", "N", "e11", "m4", "Nf3/", "Nf3/h", "e8=q", "O-O-O-O", "12e4"] {
            assert!(!san_shaped(bad), "{bad}");
        }
    }
}
