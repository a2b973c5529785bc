//! Moves and positions the way XBoard (CECP) writes them, for every variant.
//!
//! XBoard 4.9 numbers the ranks of ten-rank boards from 0, has no notation
//! for the prelude, and updates its own board by simple rules
//! ([`xboard_apply`]); with legality testing on (its default) it also checks
//! every move against the `setup`/`piece` description the engine gave it. [`to_xboard`] writes a Menagerie move
//! in a form whose board update XBoard gets right, [`from_xboard`] reads
//! one back. Shared by the engine's CECP mode and the match runner's
//! driver for XBoard engines.

use crate::{fen, parse_move, uci};
use menagerie_pieces::Color;
use menagerie_variants::{AnyPosition, Move, MoveKind, VariantId};

/// The XBoard 4.9 variant a compiled variant is described as a child of
/// (the `_parent` of its `setup` command): `seirawan` for gating (a gated
/// piece is a move suffix), `grand` for a 10x10 board without castling
/// (XBoard swaps two friendly pieces only where its parent has no castling),
/// `fairy` otherwise; `normal` for the variants XBoard plays natively.
pub fn parent(v: VariantId) -> &'static str {
    let rules = v.rules();
    if v.xboard_builtin().is_some() {
        "normal"
    } else if rules.gating.is_some() {
        "seirawan"
    } else if !rules.castling && v.size() == (10, 10) {
        "grand"
    } else {
        "fairy"
    }
}

/// Whether XBoard's `grand` parent counts a pawn's step from `from` to `to`
/// (0-based indexes of a 10x10 board) as a promotion although the variant
/// does not: Grand Chess promotes on the last three ranks, and XBoard makes a
/// pawn step from the 7th rank on a promotion and, without a suffix, to a
/// queen. The pawn stays a pawn when the move names a pawn as its new piece.
fn grand_zone(v: VariantId, white: bool, from: usize, to: usize) -> bool {
    let (files, ranks) = (v.size().0 as usize, v.size().1 as usize);
    let (fr, tr) = (from / files, to / files);
    parent(v) == "grand" && if white { fr >= ranks - 4 && tr > fr } else { fr <= 3 && tr < fr }
}

/// A position's FEN as XBoard writes it: without the reserve bracket.
pub fn xboard_fen(pos: &AnyPosition) -> String {
    let f = fen::format(pos);
    match (f.find('['), f.find(']')) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &f[..a], &f[b + 1..]),
        _ => f,
    }
}

/// The start position of a gating variant as XBoard is told it (the FEN of
/// the `setup` command) and writes it back: the reserve pieces in XBoard's
/// holdings (`[Aa]`, `[AAaa]`), and in the castling field, as S-Chess FEN
/// does, every back-rank file a piece may still gate on (`KGFDCBQkgfdcbq`:
/// XBoard's S-Chess gating test wants the piece in hand and the file's
/// home piece "virgin"). Other variants: [`xboard_fen`] of the start.
pub fn xboard_start_fen(v: VariantId) -> String {
    let start = AnyPosition::start(v);
    let f = fen::format(&start);
    let (Some(a), Some(b)) = (f.find('['), f.find(']')) else { return xboard_fen(&start) };
    if v.rules().gating.is_none() || b < a {
        return xboard_fen(&start);
    }
    let held: String = f[a + 1..b].chars().filter(char::is_ascii_alphabetic).collect();
    let rest: Vec<&str> = f[b + 1..].split_whitespace().collect();
    let (Some(side), Some(castling)) = (rest.first(), rest.get(1)) else { return xboard_fen(&start) };
    let files = v.size().0;
    let board = grid(&start);
    let king_file =
        |king: char, rank: usize| (0..files as usize).find(|&x| board.get(rank * files as usize + x) == Some(&king));
    let ranks = v.size().1 as usize;
    let mut rights = String::new();
    for (king_side, queen_side, king, rank, case) in [('K', 'Q', 'K', 0usize, b'A'), ('k', 'q', 'k', ranks - 1, b'a')] {
        let kf = king_file(king, rank);
        let (k, q) = (usize::from(castling.contains(king_side)), usize::from(castling.contains(queen_side)));
        if k == 1 {
            rights.push(king_side);
        }
        for x in (q..files as usize - k).rev() {
            if (Some(x) != kf || k + q == 0) && board[rank * files as usize + x] != '.' {
                rights.push((case + x as u8) as char);
            }
        }
        if q == 1 {
            rights.push(queen_side);
        }
    }
    let tail: Vec<&str> = rest[2..].to_vec();
    format!("{}[{held}] {side} {rights} {}", &f[..a], tail.join(" "))
}

/// Reads a FEN from XBoard's `setboard`, in any of the forms XBoard writes
/// ([`fen::parse`] reads the omitted castling and en passant fields of its
/// boards without castling). In a gating variant XBoard's holdings bracket
/// (`[Aa]`, `[aa]`, `[-]`: piece letters, no `@` or `?`) and the S-Chess
/// file letters of its castling field (see [`xboard_start_fen`]) are
/// dropped when the field has such letters or the text is no Menagerie
/// FEN (Menagerie's `[a]`, Black to place, is read as such otherwise). XBoard's FEN has no prelude state, so a FEN of the start array
/// with the start castling rights is read as the prelude XBoard is
/// playing: the start itself (White to move, move 1), after White's
/// `decline` (Black to move: XBoard sends the position after a pass), or
/// after both declined (White to move, move 2 or later). Anything else is
/// read as Menagerie FEN (a position of XBoard's with pieces still in hand
/// after the prelude is read without them: its FEN does not say on which
/// files they would enter).
pub fn from_xboard_fen(v: VariantId, text: &str) -> Result<AnyPosition, String> {
    let mut text = text.replacen("[-]", "", 1);
    let start = AnyPosition::start(v);
    // XBoard's holdings and S-Chess castling field: told apart from
    // Menagerie's reserve bracket (`[a]`: accepted, Black places) by the
    // file letters XBoard writes while pieces are in hand, or else by
    // Menagerie's reading failing.
    let xboard_rights = text
        .split_whitespace()
        .nth(2)
        .is_some_and(|c| c.chars().any(|ch| ch.is_ascii_alphabetic() && !"KQkq".contains(ch)));
    if v.rules().gating.is_some() && (xboard_rights || fen::parse(v, &text).is_err()) {
        if let (Some(a), Some(b)) = (text.find('['), text.find(']'))
            && a < b
            && text[a + 1..b].chars().all(|c| c.is_ascii_alphabetic())
        {
            text.replace_range(a..=b, "");
        }
        let mut fields: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        if let Some(c) = fields.get_mut(2)
            && xboard_rights
        {
            let kept: String = c.chars().filter(|ch| "KQkq".contains(*ch)).collect();
            *c = if kept.is_empty() { "-".to_string() } else { kept };
        }
        text = fields.join(" ");
    }
    if v.rules().gating.is_some() && !text.contains('[') {
        let got = fen::parse_setup(v, &text).map_err(|e| e.to_string())?;
        let want = start.to_setup();
        let same_board = got.pieces.len() == want.pieces.len() && got.pieces.iter().all(|p| want.pieces.contains(p));
        if same_board && got.castling == want.castling {
            let moves: &[Move] = match (got.side, got.fullmove) {
                (Color::White, 0 | 1) => &[],
                (Color::Black, _) => &[Move::DECLINE],
                _ => &[Move::DECLINE, Move::DECLINE],
            };
            let mut pos = start;
            for &m in moves {
                pos = pos.play(m).map_err(|e| e.to_string())?;
            }
            return Ok(pos);
        }
    }
    fen::parse(v, &text).map_err(|e| e.to_string())
}

/// The board of a position: `files * ranks` letters ('.' empty), a1 first.
pub fn grid(pos: &AnyPosition) -> Vec<char> {
    let (files, ranks) = pos.variant().size();
    let f = fen::format(pos);
    let board = f.split(['[', ' ']).next().unwrap_or("");
    let mut cells = vec!['.'; files as usize * ranks as usize];
    for (i, row) in board.split('/').enumerate() {
        let Some(rank) = (ranks as usize).checked_sub(i + 1) else { break };
        let mut file = 0usize;
        let mut run = 0usize;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                run = run * 10 + d as usize;
                continue;
            }
            file += run;
            run = 0;
            if file < files as usize {
                cells[rank * files as usize + file] = c;
            }
            file += 1;
        }
    }
    cells
}

/// Splits a coordinate move text into (from, to, suffix) square indices on
/// a board `files` wide, ranks numbered from `first` (1 in Menagerie, 0 in
/// XBoard on ten ranks).
pub fn squares(text: &str, files: u8, ranks: u8, first: u32) -> Option<(usize, usize, Option<char>)> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut sq = [0usize; 2];
    for s in &mut sq {
        let f = *b.get(i)?;
        if !f.is_ascii_lowercase() || f - b'a' >= files {
            return None;
        }
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        let r: u32 = text[i + 1..i + 1 + digits].parse().ok()?;
        let r = r.checked_sub(first)?;
        if r >= u32::from(ranks) {
            return None;
        }
        *s = r as usize * files as usize + usize::from(f - b'a');
        i += 1 + digits;
    }
    let rest = &text[i..];
    let mut chars = rest.chars();
    let suffix = chars.next();
    if chars.next().is_some() {
        return None;
    }
    Some((sq[0], sq[1], suffix))
}

/// Names square `idx` with ranks counted from `first`.
pub fn name(idx: usize, files: u8, first: u32) -> String {
    let f = (b'a' + (idx % files as usize) as u8) as char;
    format!("{f}{}", idx / files as usize + first as usize)
}

/// How XBoard changes its board for a coordinate move: the piece moves (a
/// capture replaces), a king's two-square step on its rank castles with the
/// corner rook (so does a rook moved onto its own king, S-Chess's form), a pawn's
/// diagonal step to an empty square captures en passant, a move onto a
/// friendly piece swaps the two where there is no castling, and a suffix
/// letter is the gated piece (on the square left, `seirawan` parent) or the
/// piece the mover becomes.
pub fn xboard_apply(v: VariantId, board: &[char], from: usize, to: usize, suffix: Option<char>) -> Vec<char> {
    let files = v.size().0 as usize;
    let mut b = board.to_vec();
    let piece = b[from];
    let white = piece.is_ascii_uppercase();
    let own = |c: char| c != '.' && c.is_ascii_uppercase() == white;
    let gating = v.rules().gating.map(|g| g.piece.letter().to_ascii_lowercase());
    let castles = v.rules().castling;
    let (ff, fr, tf, tr) = (from % files, from / files, to % files, to / files);
    if piece.eq_ignore_ascii_case(&'k') && fr == tr && ff.abs_diff(tf) == 2 && castles {
        let (rook_from, rook_to) = if tf > ff { (fr * files + files - 1, to - 1) } else { (fr * files, to + 1) };
        b[rook_to] = b[rook_from];
        b[rook_from] = '.';
        b[to] = piece;
        b[from] = '.';
    } else if piece.eq_ignore_ascii_case(&'r') && b[to].eq_ignore_ascii_case(&'k') && own(b[to]) && castles {
        // S-Chess castling written rook onto king (gating on the rook's square).
        let king = b[to];
        let (king_to, rook_to) =
            if ff > tf { (fr * files + files - 2, fr * files + files - 3) } else { (fr * files + 2, fr * files + 3) };
        b[from] = '.';
        b[to] = '.';
        b[king_to] = king;
        b[rook_to] = piece;
    } else if own(b[to]) && !castles {
        b.swap(from, to);
    } else {
        if piece.eq_ignore_ascii_case(&'p') && ff != tf && b[to] == '.' {
            b[fr * files + tf] = '.';
        }
        b[to] = piece;
        b[from] = '.';
    }
    if let Some(s) = suffix {
        let s = if white { s.to_ascii_uppercase() } else { s.to_ascii_lowercase() };
        if gating == Some(s.to_ascii_lowercase()) && !piece.eq_ignore_ascii_case(&'p') {
            b[from] = s;
        } else {
            b[to] = s;
        }
    }
    b
}

/// Writes a move the way XBoard reads it, or None for a move XBoard would
/// not show correctly (a kidnap, a takeover's converted pieces, a gate
/// fired other than by the home piece's own move, ...) or, with legality
/// testing on, would refuse (a King swap its check test misjudges).
///
/// - prelude: `decline` is a pass (`@@@@`); an `accept` by Black and each
///   placement are a pawn's "visit" that changes nothing on XBoard's board
///   (see [`pawn_visit`]): `g2g3-g2` (one file g), `b2g3-b2` (files b
///   and g), Black's accept `h7h6-h7`. White's `accept` is always followed
///   by its own placement, so the two are one XBoard move: the placement's
///   visit (see the engine's `run`).
/// - a move that fires a gate from its own home square gets the entering
///   piece as suffix (`g1f3a`, `e1g1a`); castling that fires the gate of
///   the rook's file would be the rook onto its king (`h1e1a`), as in
///   S-Chess, which XBoard mangles from an engine: not sent, only read;
/// - a swap is a move onto the friendly piece, from the King's square if
///   it is one of them, else from the square that holds no pawn;
/// - a takeover leap is a "promotion" of the leaper to itself (`h2g4c` for a
///   Camel): XBoard keeps the leaper, but the converted pieces keep their
///   colour on XBoard's board, so it is refused here;
/// - on ten ranks squares are numbered from rank 0, as XBoard does.
pub fn to_xboard(pos: &AnyPosition, m: Move) -> Option<String> {
    xboard_move(pos, m, true)
}

/// [`to_xboard`]; with `strict` false also the moves XBoard would show
/// wrongly (in the same forms, e.g. a takeover as `h1g3n`).
pub fn xboard_move(pos: &AnyPosition, m: Move, strict: bool) -> Option<String> {
    let v = pos.variant();
    let (files, ranks) = v.size();
    let board = grid(pos);
    match m.kind {
        MoveKind::Decline => return Some("@@@@".into()),
        MoveKind::Accept | MoveKind::Place => {
            let white = pos.side_to_move() == Color::White;
            let f = files as usize;
            let home = if white { 0 } else { ranks as usize - 1 };
            let (first, last) = if m.kind == MoveKind::Accept {
                let king = if white { 'K' } else { 'k' };
                let k = board.iter().position(|&c| c == king)?;
                (k % f, k % f)
            } else {
                let mask = m.to.0;
                let fs: Vec<usize> = (0..8).filter(|x| mask & (1 << x) != 0).collect();
                (*fs.first()?, *fs.last()?)
            };
            if let Some(text) = pawn_visit(&board, files, ranks, white, m.kind == MoveKind::Accept, first, last) {
                return Some(text);
            }
            // Without a pawn to visit with (a position set up without
            // them): a home-rank piece's visit, which XBoard follows only
            // with legality testing off.
            if m.kind == MoveKind::Accept && !white {
                let (ahead, row) = (-2 * (f as isize), home * f);
                let s = (0..f).rev().map(|x| row + x).find(|&s| {
                    let c = board[s].to_ascii_lowercase();
                    board[s] != '.'
                        && !board[s].is_ascii_uppercase()
                        && !matches!(c, 'k' | 'r' | 'p')
                        && s.checked_add_signed(ahead).is_some_and(|t| t < board.len() && board[t] == '.')
                })?;
                let t = s.checked_add_signed(ahead)?;
                let (s, t) = (name(s, files, 1), name(t, files, 1));
                return Some(shift(&format!("{s}{t}-{s}"), ranks, -1));
            }
            let start = if m.kind == MoveKind::Accept {
                board.iter().position(|&c| c == if white { 'K' } else { 'k' })?
            } else {
                home * f + first
            };
            let rows: Vec<usize> =
                if white { (0..ranks as usize).collect() } else { (0..ranks as usize).rev().collect() };
            let visit = rows.into_iter().map(|r| r * f + last).find(|&s| board[s] == '.')?;
            let (s, t) = (name(start, files, 1), name(visit, files, 1));
            return Some(shift(&format!("{s}{t}-{s}"), ranks, -1));
        }
        // Chess960 castling: XBoard's FRC notation (it reads king-takes-rook too).
        MoveKind::Castle if v.rules().chess960 => {
            return Some(if m.to.0 > m.from.0 { "O-O" } else { "O-O-O" }.into());
        }
        _ => {}
    }
    let text = uci::format(v, m);
    let (mut from, mut to, _) = squares(&text, files, ranks, 1)?;
    let is = |c: char, p: char| c.eq_ignore_ascii_case(&p);
    // A swap is written from the King's square, else from the square
    // without a pawn: XBoard's legality test knows the other pieces' steps
    // onto a friend (`dK`), not a pawn's, and it finds no King (so
    // "check") after a move onto its own King.
    if m.kind == MoveKind::Swap && (is(board[to], 'k') || (!is(board[from], 'k') && is(board[from], 'p'))) {
        (from, to) = (to, from);
    }
    let after = grid(&pos.play(m).ok()?);
    // Castling that fires the gate of the rook's file is XBoard's S-Chess
    // form of it, the rook onto its king (`h1e1a`): the piece enters on the
    // square the move names first. XBoard 4.9 reads it so from a user, but
    // from an engine in a TwoMachines game with legality testing on its
    // HandleMachineMove "corrects" the move as an engine's FRC castling
    // (the destination one file over, h1d1: the rook takes the queen), so
    // such a castling is not sent (strict).
    if m.kind == MoveKind::Castle
        && let Some(g) = v.rules().gating
    {
        let f = files as usize;
        let rank = from / f;
        let rook = if to % f > from % f { rank * f + f - 1 } else { rank * f };
        if is(board[rook], 'r') && is(after[rook], g.piece.letter()) {
            if strict {
                return None;
            }
            (from, to) = (rook, from);
        }
    }
    let mover = board[from];
    let mut base = format!("{}{}", name(from, files, 1), name(to, files, 1));
    let suffix = if m.kind == MoveKind::Takeover {
        Some(mover.to_ascii_lowercase())
    } else if let Some(p) = m.promotion {
        Some(p.letter().to_ascii_lowercase())
    } else if let Some(g) = v.rules().gating
        && after[from].eq_ignore_ascii_case(&g.piece.letter())
        && !mover.eq_ignore_ascii_case(&g.piece.letter())
    {
        Some(g.piece.letter().to_ascii_lowercase())
    } else if mover.eq_ignore_ascii_case(&'p')
        && m.kind != MoveKind::Swap
        && grand_zone(v, mover.is_ascii_uppercase(), from, to)
    {
        Some('p')
    } else {
        None
    };
    if strict && xboard_apply(v, &board, from, to, suffix) != after {
        return None;
    }
    if strict && m.kind == MoveKind::Swap && is(board[from], 'k') && !xboard_king_swap_safe(pos, &after, from, to) {
        return None;
    }
    if let Some(s) = suffix {
        base.push(s);
    }
    Some(shift(&base, ranks, -1))
}

/// Whether XBoard's legality test lets the King on `from` swap with the
/// friend on `to`: XBoard tests a move onto a friend as a capture, so it
/// looks for checks on the King's new square with the square it left
/// empty (`CheckTest`), while after the swap the friend stands there. A
/// line through that square makes such a swap legal here but illegal for
/// XBoard: the engine does not play it.
fn xboard_king_swap_safe(pos: &AnyPosition, after: &[char], from: usize, to: usize) -> bool {
    let v = pos.variant();
    let (files, ranks) = v.size();
    let mut cells = after.to_vec();
    cells[from] = '.';
    let mut rows = Vec::with_capacity(ranks as usize);
    for r in (0..ranks as usize).rev() {
        let mut row = String::new();
        let mut empty = 0;
        for c in &cells[r * files as usize..(r + 1) * files as usize] {
            if *c == '.' {
                empty += 1;
            } else {
                if empty > 0 {
                    row.push_str(&empty.to_string());
                    empty = 0;
                }
                row.push(*c);
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        rows.push(row);
    }
    let mover = pos.side_to_move();
    let side = if mover == Color::White { "w" } else { "b" };
    let Ok(test) = fen::parse(v, &format!("{} {side} - - 0 1", rows.join("/"))) else { return false };
    let Ok(sq) = u8::try_from(to) else { return false };
    !test.is_attacked(menagerie_geometry::Square(sq), mover.flip())
}

/// A prelude action as a pawn's "visit" (`g2g3-g2`): the pawn on the
/// mover's second rank of file `first` steps to the empty square ahead and
/// back, with the square it names between (the "kill" square of XBoard's
/// two-leg moves) an empty square of file `last`: `b2g3-b2` for the files
/// b and g. XBoard's board is unchanged and, as no back-rank piece moves,
/// so are its S-Chess gating rights; with legality testing on XBoard
/// accepts it as the pawn's `fmabmW` (see the engine's `piece` command: a
/// two-leg move through an empty square is judged by its end squares
/// only). Black's `accept` (`any`) is the visit of its highest-file pawn
/// that can step. None without such a pawn.
fn pawn_visit(
    board: &[char],
    files: u8,
    ranks: u8,
    white: bool,
    any: bool,
    first: usize,
    last: usize,
) -> Option<String> {
    let f = files as usize;
    let pawn = if white { 'P' } else { 'p' };
    let second = if white { 1 } else { ranks as usize - 2 };
    let ahead = |s: usize| if white { s.checked_add(f) } else { s.checked_sub(f) };
    let can_step = |s: usize| board.get(s) == Some(&pawn) && ahead(s).is_some_and(|t| board.get(t) == Some(&'.'));
    let from = if any && !white {
        (0..f).rev().map(|x| second * f + x).find(|&s| can_step(s))?
    } else {
        Some(second * f + first).filter(|&s| can_step(s))?
    };
    let kill = if first == last || (any && !white) {
        ahead(from)?
    } else {
        let rows: Vec<usize> =
            if white { (2..ranks as usize).collect() } else { (0..ranks as usize - 2).rev().collect() };
        rows.into_iter().map(|r| r * f + last).find(|&s| board[s] == '.')?
    };
    let (s, k) = (name(from, files, 1), name(kill, files, 1));
    Some(shift(&format!("{s}{k}-{s}"), ranks, -1))
}

/// Renumbers the ranks of every square in a move text by `delta` on a
/// ten-rank board (XBoard counts those from 0); other boards unchanged.
pub fn shift(text: &str, ranks: u8, delta: i32) -> String {
    if ranks != 10 {
        return text.to_string();
    }
    let mut out = String::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        out.push(c);
        i += 1;
        if c.is_ascii_lowercase() {
            let digits = b[i..].iter().take_while(|d| d.is_ascii_digit()).count();
            if digits > 0 {
                let r: i32 = text[i..i + digits].parse().unwrap_or(0);
                out.push_str(&(r + delta).to_string());
                i += digits;
            }
        }
    }
    out
}

/// Reads a move from XBoard (see [`to_xboard`]): the Menagerie moves it
/// stands for (two for White's accept-and-place), or None. Menagerie's own
/// forms (`accept`, `A@g`, `h2g4t`, SAN) are read too.
pub fn from_xboard(pos: &AnyPosition, text: &str) -> Option<Vec<Move>> {
    let v = pos.variant();
    let (files, ranks) = v.size();
    let legal = pos.legal_moves();
    let has = |k: MoveKind| legal.iter().any(|m| m.kind == k);
    if text == "@@@@" {
        return has(MoveKind::Decline).then(|| vec![Move::DECLINE]);
    }
    // Castling in SAN (XBoard's FRC notation), before the `-` of a visit.
    if matches!(text.trim_end_matches(['+', '#']), "O-O" | "O-O-O" | "0-0" | "0-0-0") {
        return parse_move(pos, text).ok().map(|m| vec![m]);
    }
    let first = if ranks == 10 { 0 } else { 1 };
    // A visit: `s1k-s1` (as engines write it) or `s1k,ks1` (as XBoard
    // forwards White's) or `s1s1,k..` (as XBoard forwards Black's).
    // XBoard garbles the second leg of Black's visit (the square after the
    // kill square may be off the board, `a8a8,a6`8`): only its first
    // square is read.
    let visit = if let Some((a, b)) = text.split_once(',') {
        let (s1, _, _) = squares(a, files, ranks, first)?;
        let kill_name: String = b.chars().take(1).chain(b.chars().skip(1).take_while(|c| c.is_ascii_digit())).collect();
        let (k, _, _) = squares(&format!("{kill_name}{kill_name}"), files, ranks, first)?;
        Some((s1, k))
    } else if let Some((a, b)) = text.split_once('-') {
        let (s1, k, _) = squares(a, files, ranks, first)?;
        let (back, _, _) = squares(&format!("{b}{b}"), files, ranks, first)?;
        (back == s1).then_some((s1, k))
    } else {
        None
    };
    if let Some((s1, k)) = visit {
        let (f1, f2) = (s1 % files as usize, k % files as usize);
        let mask = (1u8 << f1.min(7)) | (1u8 << f2.min(7));
        let place = legal.iter().copied().find(|m| m.kind == MoveKind::Place && m.to.0 == mask);
        if has(MoveKind::Accept) {
            if pos.side_to_move() == Color::White {
                let after = pos.play(Move::ACCEPT).ok()?;
                let place =
                    after.legal_moves().iter().copied().find(|m| m.kind == MoveKind::Place && m.to.0 == mask)?;
                return Some(vec![Move::ACCEPT, place]);
            }
            return Some(vec![Move::ACCEPT]);
        }
        return place.map(|p| vec![p]);
    }
    if let Some((from, to, suffix)) = squares(text, files, ranks, first) {
        let board = grid(pos);
        let base = format!("{}{}", name(from, files, 1), name(to, files, 1));
        for &m in legal.iter() {
            if m.is_prelude() {
                continue;
            }
            let t = uci::format(v, m);
            if squares(&t, files, ranks, 1).is_some_and(|(f, tt, _)| f == from && tt == to)
                || (m.kind == MoveKind::Swap
                    && squares(&t, files, ranks, 1).is_some_and(|(f, tt, _)| f == to && tt == from))
            {
                let want = match m.kind {
                    MoveKind::Takeover => Some(board[from].to_ascii_lowercase()),
                    _ => m.promotion.map(|p| p.letter().to_ascii_lowercase()),
                };
                let gate = v.rules().gating.map(|g| g.piece.letter().to_ascii_lowercase());
                let s = suffix.map(|c| c.to_ascii_lowercase());
                if s == want || (want.is_none() && s.is_some() && s == gate) {
                    return Some(vec![m]);
                }
            }
        }
        let _ = base;
        // XBoard's `grand` parent (the 10x10 boards) makes ranks 8-9 an
        // optional promotion zone and may append a promotion letter to a
        // plain pawn move there: the one legal move between those squares
        // that promotes nothing and takes nothing over is meant.
        if suffix.is_some() {
            let plain: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|m| !m.is_prelude() && m.promotion.is_none() && m.kind != MoveKind::Takeover)
                .filter(|m| {
                    squares(&uci::format(v, *m), files, ranks, 1).is_some_and(|(f, tt, _)| f == from && tt == to)
                })
                .collect();
            let others = legal.iter().filter(|m| {
                squares(&uci::format(v, **m), files, ranks, 1).is_some_and(|(f, tt, _)| f == from && tt == to)
            });
            if plain.len() == 1 && others.count() == 1 {
                return Some(plain);
            }
        }
    }
    // The other forms written here (castling as the rook onto its king).
    let shown = legal.iter().copied().find(|&m| !m.is_prelude() && xboard_move(pos, m, false).as_deref() == Some(text));
    if let Some(m) = shown {
        return Some(vec![m]);
    }
    parse_move(pos, text).ok().map(|m| vec![m])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(v: VariantId, moves: &[&str]) -> AnyPosition {
        let mut p = AnyPosition::start(v);
        for m in moves {
            p = p.play(parse_move(&p, m).unwrap()).unwrap();
        }
        p
    }

    #[test]
    fn a_promotion_letter_xboard_adds_to_a_plain_pawn_move_is_ignored() {
        // Camel and Rhino Chess under XBoard's `grand` parent: c7 (XBoard's
        // rank 7, the 8th) is in grand's promotion zone, not in the variant's.
        let pos = fen::parse(
            VariantId::CamelRhino,
            "r8r/1hzbqkbnc1/pp1p2pppp/4ww4/2P7/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1",
        )
        .unwrap();
        let plain = from_xboard(&pos, "c5c6").unwrap();
        assert_eq!(from_xboard(&pos, "c5c6q"), Some(plain));
        assert_eq!(from_xboard(&pos, "c5c9q"), None);
    }

    #[test]
    fn a_pawn_step_into_grands_promotion_zone_names_the_pawn() {
        // XBoard's `grand` parent would promote c7-c8 to a queen on its own
        // board; the suffix `p` keeps the pawn, and reads back as the plain move.
        let pos = fen::parse(
            VariantId::CamelRhino,
            "r8r/1hzbqkbnc1/pp1p2pppp/2P1ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1",
        )
        .unwrap();
        for (ours, theirs) in [("c7c8", "c6c7p"), ("c7b8", "c6b7p"), ("a3a4", "a2a3")] {
            let m = parse_move(&pos, ours).unwrap();
            assert_eq!(to_xboard(&pos, m).as_deref(), Some(theirs), "{ours}");
            assert_eq!(from_xboard(&pos, theirs), Some(vec![m]), "{theirs}");
        }
        let black = fen::parse(
            VariantId::CamelRhino,
            "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/P1p4PPP/1HZBQKBNC1/R8R b - - 0 1",
        )
        .unwrap();
        let m = parse_move(&black, "c3d2").unwrap();
        assert_eq!(to_xboard(&black, m).as_deref(), Some("c2d1p"));
        assert_eq!(parent(VariantId::CamelRhino), "grand");
        assert_eq!(parent(VariantId::Alpaca), "seirawan");
    }

    /// Every move XBoard can show reads back as itself.
    fn round_trip(pos: &AnyPosition) -> usize {
        let mut shown = 0;
        for &m in pos.legal_moves().iter() {
            if m.kind == MoveKind::Accept && pos.side_to_move() == Color::White {
                continue;
            }
            if let Some(t) = to_xboard(pos, m) {
                shown += 1;
                assert_eq!(from_xboard(pos, &t), Some(vec![m]), "{t} in {}", fen::format(pos));
            }
        }
        shown
    }

    /// The move `uci` of `p`, which XBoard writes `xboard` and reads back.
    #[track_caller]
    fn written_as(p: &AnyPosition, uci: &str, xboard: &str) -> Move {
        let m = parse_move(p, uci).unwrap();
        assert_eq!(to_xboard(p, m).as_deref(), Some(xboard), "{uci}");
        assert_eq!(from_xboard(p, xboard), Some(vec![m]), "{xboard}");
        m
    }

    #[test]
    fn ten_ranks_count_from_zero() {
        let p = AnyPosition::start(VariantId::CamelRhino);
        written_as(&p, "b2d5", "b1d4");
        assert_eq!(from_xboard(&p, "e3e4"), Some(vec![parse_move(&p, "e4e5").unwrap()]));
        // A swap is a move onto the friendly piece (XBoard swaps them).
        let swap = written_as(&p, "d2e2", "d1e1");
        assert_eq!(from_xboard(&p, "e1d1"), Some(vec![swap]));
        assert!(round_trip(&p) > 20);
        let p = after(VariantId::CamelRhino, &["e4e5", "e7e6", "e5e6"]);
        round_trip(&p);
    }

    #[test]
    fn takeovers_and_kidnaps_are_not_shown() {
        // A takeover converts pieces XBoard would keep in their colour.
        let p = fen::parse(VariantId::CamelRhino, "4k4h/10/10/10/10/10/10/2r7/2C7/4K5 w - - 0 1").unwrap();
        let take = p.legal_moves().iter().copied().find(|m| m.kind == MoveKind::Takeover);
        assert!(take.is_some());
        if let Some(t) = take {
            assert_eq!(to_xboard(&p, t), None);
            // Sent anyway (when it is the only move) as a "promotion" to itself.
            let text = xboard_move(&p, t, false).unwrap();
            assert!(text.ends_with('c') || text.ends_with('h'), "{text}");
            assert_eq!(from_xboard(&p, &text), Some(vec![t]));
        }
        let p = fen::parse(VariantId::Alseid, "4k3/8/8/8/3S4/8/3P4/3NK3 w - - 0 1").unwrap();
        let kidnap = p.legal_moves().iter().copied().find(|m| m.kind == MoveKind::Kidnap).unwrap();
        assert_eq!(to_xboard(&p, kidnap), None);
        round_trip(&p);
    }

    #[test]
    fn prelude_as_passes_and_visits() {
        let v = VariantId::Alpaca;
        let p = AnyPosition::start(v);
        assert_eq!(to_xboard(&p, Move::DECLINE).as_deref(), Some("@@@@"));
        // White's accept and placement on g are one pawn visit g2-g3-g2
        // (XBoard forwards it as g2g3,g3g2); a home-rank visit is read too.
        let place_g = parse_move(&after(v, &["accept"]), "A@g").unwrap();
        assert_eq!(choose_text(&p, &["accept", "A@g"]), "g2g3-g2", "the placement's visit stands for accept and place");
        for text in ["g2g3-g2", "g2g3,g3g2", "g1g3-g1", "g1g3,g3g1"] {
            assert_eq!(from_xboard(&p, text), Some(vec![Move::ACCEPT, place_g]), "{text}");
        }
        // Black's answers: a pass declines, a visit accepts.
        let p = after(v, &["decline"]);
        assert_eq!(to_xboard(&p, Move::ACCEPT).as_deref(), Some("h7h6-h7"));
        for text in ["h7h6-h7", "h7h7,h6g7", "g8g6-g8", "e8e8,e6d8"] {
            assert_eq!(from_xboard(&p, text), Some(vec![Move::ACCEPT]), "{text}");
        }
        assert_eq!(from_xboard(&p, "@@@@"), Some(vec![Move::DECLINE]));
        // Black places on a: a7-a6-a7, which XBoard 4.9 forwards garbled as a7a7,a6`7.
        let p = after(v, &["accept", "A@g"]);
        let a = parse_move(&p, "A@a").unwrap();
        assert_eq!(to_xboard(&p, a).as_deref(), Some("a7a6-a7"));
        assert_eq!(from_xboard(&p, "a7a7,a6`7"), Some(vec![a]));
        assert_eq!(from_xboard(&p, "a8a8,a6`8"), Some(vec![a]));
        let f = parse_move(&p, "A@f").unwrap();
        assert_eq!(to_xboard(&p, f).as_deref(), Some("f7f6-f7"));
        assert_eq!(from_xboard(&p, "f7f7,f6e7"), Some(vec![f]));
        round_trip(&p);
        // Two Alpacas: the pawn of the first file, the kill square on the
        // second (exactly as XBoard 4.9 relayed them in a game).
        let p = after(VariantId::Alpaca2, &["accept"]);
        let ab = parse_move(&p, "A@ab").unwrap();
        assert_eq!(to_xboard(&p, ab).as_deref(), Some("a2b3-a2"));
        assert_eq!(from_xboard(&AnyPosition::start(VariantId::Alpaca2), "a2b3,b3a2"), Some(vec![Move::ACCEPT, ab]));
        let bg = parse_move(&p, "A@bg").unwrap();
        assert_eq!(to_xboard(&p, bg).as_deref(), Some("b2g3-b2"));
        round_trip(&p);
        let p = after(VariantId::Alpaca2, &["accept", "A@ab"]);
        let black_ab = parse_move(&p, "A@ab").unwrap();
        assert_eq!(from_xboard(&p, "a7a7,b6`7"), Some(vec![black_ab]));
        // A gating move carries the entering piece.
        let p = after(v, &["accept", "A@g", "A@f"]);
        let nf3 = parse_move(&p, "g1f3").unwrap();
        assert_eq!(to_xboard(&p, nf3).as_deref(), Some("g1f3a"));
        assert_eq!(from_xboard(&p, "g1f3a"), Some(vec![nf3]));
        assert_eq!(from_xboard(&p, "g1f3"), Some(vec![nf3]));
        round_trip(&p);
    }

    /// The text of the last of `moves` from `p` (a placement after White's accept).
    fn choose_text(p: &AnyPosition, moves: &[&str]) -> String {
        let mut q = *p;
        for m in &moves[..moves.len() - 1] {
            q = q.play(parse_move(&q, m).unwrap()).unwrap();
        }
        to_xboard(&q, parse_move(&q, moves[moves.len() - 1]).unwrap()).unwrap()
    }

    #[test]
    fn castling_that_gates_on_the_rooks_file_is_read_as_the_rook_onto_its_king() {
        // The gate on h fires when the king castles short: S-Chess's h1e1a.
        let p = fen::parse(VariantId::Alpaca, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[A@ha@a] w KQkq - 0 1").unwrap();
        let short = p.legal_moves().iter().copied().find(|m| m.kind == MoveKind::Castle && m.to.0 > m.from.0).unwrap();
        // Not sent to XBoard (it would play h1d1), read from it.
        assert_eq!(to_xboard(&p, short), None);
        assert_eq!(xboard_move(&p, short, false).as_deref(), Some("h1e1a"));
        assert_eq!(from_xboard(&p, "h1e1a"), Some(vec![short]));
        let long = p.legal_moves().iter().copied().find(|m| m.kind == MoveKind::Castle && m.to.0 < m.from.0).unwrap();
        assert_eq!(to_xboard(&p, long).as_deref(), Some("e1c1"));
        let black =
            fen::parse(VariantId::Alpaca, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[A@ha@a] b KQkq - 0 1").unwrap();
        let long =
            black.legal_moves().iter().copied().find(|m| m.kind == MoveKind::Castle && m.to.0 < m.from.0).unwrap();
        assert_eq!(xboard_move(&black, long, false).as_deref(), Some("a8e8a"));
        assert_eq!(from_xboard(&black, "a8e8a"), Some(vec![long]));
    }

    #[test]
    fn xboard_start_fens_hold_the_reserve() {
        assert_eq!(
            xboard_start_fen(VariantId::Alpaca),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa] w KGFDCBQkgfdcbq - 0 1"
        );
        assert_eq!(
            xboard_start_fen(VariantId::Alpaca2),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[AAaa] w KGFDCBQkgfdcbq - 0 1"
        );
        assert_eq!(
            xboard_start_fen(VariantId::CamelRhino),
            "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1"
        );
        // What XBoard 4.9 sends back with `setboard` during the prelude.
        let v = VariantId::Alseid;
        let board = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Ss]";
        assert_eq!(from_xboard_fen(v, &format!("{board} w KGFDCBQkgfdcbq - 0 1")), Ok(AnyPosition::start(v)));
        assert_eq!(from_xboard_fen(v, &format!("{board} b KGFDCBQkgfdcbq - 0 1")), Ok(after(v, &["decline"])));
        assert_eq!(
            from_xboard_fen(v, &format!("{board} w KGFDCBQkgfdcbq - 0 2")),
            Ok(after(v, &["decline", "decline"]))
        );
        // Later, pieces still in hand are left out (XBoard's FEN has no gate files).
        let later = from_xboard_fen(
            VariantId::Alpaca,
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKBAR[a] b KQkgfdcbq - 1 2",
        )
        .unwrap();
        assert_eq!(fen::format(&later).split(' ').next(), Some("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKBAR"));
    }

    #[test]
    fn king_swaps_are_written_from_the_king() {
        let p = AnyPosition::start(VariantId::CamelRhino);
        let swap = written_as(&p, "e2f2", "f1e1");
        assert_eq!(from_xboard(&p, "e1f1"), Some(vec![swap]));
        // XBoard tests the King on e2 with f2 empty: the rook on j2 would
        // check it there, so XBoard would refuse this legal swap.
        let p = fen::parse(VariantId::CamelRhino, "c5k3/10/10/10/10/10/10/10/4RK3r/C9 w - - 0 1").unwrap();
        let swap = parse_move(&p, "e2f2").unwrap();
        assert_eq!(swap.kind, MoveKind::Swap);
        assert_eq!(to_xboard(&p, swap), None);
        assert_eq!(xboard_move(&p, swap, false).as_deref(), Some("f1e1"));
        let p = fen::parse(VariantId::CamelRhino, "c5k3/10/10/10/10/10/10/10/4RK4/C8r w - - 0 1").unwrap();
        assert!(to_xboard(&p, parse_move(&p, "e2f2").unwrap()).is_some());
    }

    #[test]
    fn xboards_own_fen_of_a_board_without_castling() {
        // Exactly what XBoard 4.9 sends with `setboard` for Camel and Rhino Chess.
        let text = "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - 0 1";
        assert_eq!(from_xboard_fen(VariantId::CamelRhino, text), Ok(AnyPosition::start(VariantId::CamelRhino)));
        // An empty holdings bracket (`[-]`) is no reserve.
        let text = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[-] w KQkq - 0 1";
        assert_eq!(from_xboard_fen(VariantId::Alpaca, text), Ok(AnyPosition::start(VariantId::Alpaca)));
    }

    #[test]
    fn xboard_fens_of_the_prelude() {
        let v = VariantId::Alpaca;
        let start = AnyPosition::start(v);
        let plain = xboard_fen(&start);
        assert_eq!(plain, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(from_xboard_fen(v, &plain).unwrap(), start);
        assert_eq!(
            from_xboard_fen(v, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1").unwrap(),
            after(v, &["decline"])
        );
        assert_eq!(
            from_xboard_fen(v, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2").unwrap(),
            after(v, &["decline", "decline"])
        );
    }
}
