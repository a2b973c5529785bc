//! XBoard/CECP protocol version 2.
//!
//! Variants are announced with `feature variants=...` (`normal` is orthodox
//! chess); on `variant NAME` the engine tells XBoard the board size, parent
//! variant and piece-to-char table (`setup`: Camel, Zebra and Wazir on
//! XBoard's own pieces, the Rhino on the Gnu, the Alpaca on the Camel, the
//! Alseid on the Princess picture) and the fairy pieces' Betza movement
//! (`piece`). Moves are written the way XBoard 4.9 (with `-testLegality
//! false`) can follow them: see [`to_xboard`] and [`from_xboard`]. In short:
//! ranks from 0 on ten-rank boards; the prelude as passes (`@@@@` =
//! `decline`) and "visits" that leave XBoard's board unchanged (`g1g3-g1` =
//! place on g; White's `accept` and placement are one such move); gating
//! with the entering piece as suffix (`g1f3a`); swaps as a move onto the
//! friendly piece. Moves XBoard cannot show (kidnaps, takeovers, gates
//! fired by castling on the rook's file or by a kidnap) are not played by
//! the engine while another move exists; from the user they are accepted.

use crate::session::{Session, send};
use menagerie_notation::{fen, parse_move, uci};
use menagerie_pieces::{Color, PieceKind};
use menagerie_search::{Engine, EngineOptions, Info, Limits, Score};
use menagerie_variants::{AnyPosition, Game, Move, MoveKind, Outcome, VariantId, WinReason};
use std::sync::{Arc, Mutex};
use std::time::Duration;

struct Clock {
    /// Moves per session (0 = whole game), base, increment.
    mps: u32,
    base: Duration,
    inc: Duration,
    /// Fixed time per move (`st`).
    per_move: Option<Duration>,
    depth: Option<u32>,
    own: Option<Duration>,
    other: Option<Duration>,
}

fn xboard_name(v: VariantId) -> &'static str {
    if v == VariantId::Chess { "normal" } else { v.name() }
}

fn variant_from_xboard(name: &str) -> Option<VariantId> {
    let name = name.rsplit('_').next().unwrap_or(name);
    if name == "normal" { Some(VariantId::Chess) } else { VariantId::from_name(name) }
}

/// XBoard's internal piece order (XBoard 4.9, `common.h`): a piece-to-char
/// table names these in this order, White's first, the King last.
const XBOARD_PIECES: usize = 66;

/// The slot of XBoard's piece order whose picture a Menagerie piece takes:
/// XBoard's own Wazir, Zebra and Camel; the Gnu (a horned beast) for the
/// Rhino, the Camel (its relative) for the Alpaca, the Princess picture
/// (XBoard's `Crown` slot) for the Alseid, a nymph.
fn xboard_slot(k: PieceKind) -> usize {
    match k {
        PieceKind::Pawn => 0,
        PieceKind::Knight => 1,
        PieceKind::Bishop => 2,
        PieceKind::Rook => 3,
        PieceKind::Queen => 4,
        PieceKind::Wazir => 9,
        PieceKind::Zebra => 23,
        PieceKind::Camel | PieceKind::Alpaca => 24,
        PieceKind::Rhino => 31,
        PieceKind::Alseid => 64,
        PieceKind::King => 65,
    }
}

/// The piece kinds of a variant, its gating piece included.
fn variant_kinds(v: VariantId) -> Vec<PieceKind> {
    let rules = v.rules();
    let mut kinds = rules.piece_kinds();
    if let Some(g) = rules.gating
        && !kinds.contains(&g.piece)
    {
        kinds.push(g.piece);
    }
    kinds
}

/// The `setup` and `piece` commands describing a variant to XBoard.
///
/// Gating variants use XBoard's `seirawan` parent: a gating move is then
/// written with the entering piece as a suffix (`g1f3a`) and XBoard puts it
/// on the square the move left, as in S-Chess. Camel and Rhino Chess uses
/// `grand`, where a move onto a friendly piece swaps the two. The start FEN
/// is the board without the bracket (XBoard's FEN has no prelude state).
fn describe_variant(v: VariantId) -> Vec<String> {
    if v == VariantId::Chess {
        return Vec::new();
    }
    let kinds = variant_kinds(v);
    let mut white = vec!['.'; XBOARD_PIECES];
    for &k in &kinds {
        white[xboard_slot(k)] = k.letter();
    }
    let black: String = white.iter().map(|c| c.to_ascii_lowercase()).collect();
    let white: String = white.into_iter().collect();
    let (w, h) = v.size();
    // XBoard swaps two friendly pieces on a move of one onto the other only
    // where its parent variant has no castling: Grand Chess (10x10, pawns on
    // the third rank, like Camel and Rhino Chess).
    let parent = if v.rules().gating.is_some() {
        "seirawan"
    } else if !v.rules().castling && v.size() == (10, 10) {
        "grand"
    } else {
        "fairy"
    };
    let start = xboard_fen(&AnyPosition::start(v));
    let mut out = vec![format!("setup ({white}{black}) {w}x{h}+0_{parent} {start}")];
    for k in kinds {
        if !matches!(
            k,
            PieceKind::Pawn
                | PieceKind::Knight
                | PieceKind::Bishop
                | PieceKind::Rook
                | PieceKind::Queen
                | PieceKind::King
        ) {
            out.push(format!("piece {}& {}", k.letter(), k.movement().betza));
        }
    }
    out
}

/// A position's FEN as XBoard writes it: without the reserve bracket.
fn xboard_fen(pos: &AnyPosition) -> String {
    let f = fen::format(pos);
    match (f.find('['), f.find(']')) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &f[..a], &f[b + 1..]),
        _ => f,
    }
}

/// Reads a FEN from XBoard's `setboard`. XBoard drops the reserve bracket,
/// so in a gating variant a bracketless FEN of the start array with the
/// start castling rights is read as the prelude XBoard is playing: the
/// start itself (White to move, move 1), after White's `decline` (Black to
/// move: XBoard sends the position after a pass), or after both declined
/// (White to move, move 2 or later). Anything else is read as Menagerie FEN.
fn from_xboard_fen(v: VariantId, text: &str) -> Result<AnyPosition, String> {
    let start = AnyPosition::start(v);
    if v.rules().gating.is_some() && !text.contains('[') {
        let want: Vec<String> = xboard_fen(&start).split_whitespace().take(3).map(String::from).collect();
        let got: Vec<&str> = text.split_whitespace().collect();
        if got.len() >= 3 && got[0] == want[0] && got[2] == want[2] {
            let fullmove: u32 = got.get(5).and_then(|n| n.parse().ok()).unwrap_or(1);
            let moves: &[Move] = match (got[1], fullmove) {
                ("w", 0 | 1) => &[],
                ("b", _) => &[Move::DECLINE],
                _ => &[Move::DECLINE, Move::DECLINE],
            };
            let mut pos = start;
            for &m in moves {
                pos = pos.play(m).map_err(|e| e.to_string())?;
            }
            return Ok(pos);
        }
    }
    fen::parse(v, text).map_err(|e| e.to_string())
}

/// The board of a position: `files * ranks` letters ('.' empty), a1 first.
fn grid(pos: &AnyPosition) -> Vec<char> {
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
fn squares(text: &str, files: u8, ranks: u8, first: u32) -> Option<(usize, usize, Option<char>)> {
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
fn name(idx: usize, files: u8, first: u32) -> String {
    let f = (b'a' + (idx % files as usize) as u8) as char;
    format!("{f}{}", idx / files as usize + first as usize)
}

/// How XBoard (with `-testLegality false`) changes its board for a
/// coordinate move: the piece moves (a capture replaces), a king's
/// two-square step on its rank castles with the corner rook, a pawn's
/// diagonal step to an empty square captures en passant, a move onto a
/// friendly piece swaps the two where there is no castling, and a suffix
/// letter is the gated piece (on the square left, `seirawan` parent) or the
/// piece the mover becomes.
fn xboard_apply(v: VariantId, board: &[char], from: usize, to: usize, suffix: Option<char>) -> Vec<char> {
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
/// fired other than by the home piece's own move, ...).
///
/// - prelude: `decline` is a pass (`@@@@`); an `accept` by Black and each
///   placement are a "visit" that changes nothing on XBoard's board: the
///   piece on the home square of the (first) gate file goes to an empty
///   square of the (last) gate file and back, `g1g3-g1` (one file g) or
///   `b1g3-b1` (files b and g); Black's accept is its king's visit on its own
///   file. White's `accept` is always followed by its own placement, so the
///   two are one XBoard move: the placement's visit (see `run`).
/// - a move that fires a gate from its own home square gets the entering
///   piece as suffix (`g1f3a`, `e1g1a`);
/// - a takeover leap is a "promotion" of the leaper to itself (`h2g4c` for a
///   Camel): XBoard keeps the leaper, but the converted pieces keep their
///   colour on XBoard's board, so it is refused here;
/// - on ten ranks squares are numbered from rank 0, as XBoard does.
fn to_xboard(pos: &AnyPosition, m: Move) -> Option<String> {
    xboard_move(pos, m, true)
}

/// [`to_xboard`]; with `strict` false also the moves XBoard would show
/// wrongly (in the same forms, e.g. a takeover as `h1g3n`).
fn xboard_move(pos: &AnyPosition, m: Move, strict: bool) -> Option<String> {
    let v = pos.variant();
    let (files, ranks) = v.size();
    let board = grid(pos);
    match m.kind {
        MoveKind::Decline => return Some("@@@@".into()),
        MoveKind::Accept | MoveKind::Place => {
            let white = pos.side_to_move() == Color::White;
            let home = if white { 0 } else { ranks as usize - 1 };
            let (first, last) = if m.kind == MoveKind::Accept {
                let king = if white { 'K' } else { 'k' };
                let k = board.iter().position(|&c| c == king)?;
                (k % files as usize, k % files as usize)
            } else {
                let mask = m.to.0;
                let fs: Vec<usize> = (0..8).filter(|f| mask & (1 << f) != 0).collect();
                (*fs.first()?, *fs.last()?)
            };
            let start = if m.kind == MoveKind::Accept {
                board.iter().position(|&c| c == if white { 'K' } else { 'k' })?
            } else {
                home * files as usize + first
            };
            let rows: Vec<usize> =
                if white { (0..ranks as usize).collect() } else { (0..ranks as usize).rev().collect() };
            let visit = rows.into_iter().map(|r| r * files as usize + last).find(|&s| board[s] == '.')?;
            let (s, t) = (name(start, files, 1), name(visit, files, 1));
            return Some(shift(&format!("{s}{t}-{s}"), ranks, -1));
        }
        _ => {}
    }
    let text = uci::format(v, m);
    let (from, to, _) = squares(&text, files, ranks, 1)?;
    let after = grid(&pos.play(m).ok()?);
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
    } else {
        None
    };
    if strict && xboard_apply(v, &board, from, to, suffix) != after {
        return None;
    }
    if let Some(s) = suffix {
        base.push(s);
    }
    Some(shift(&base, ranks, -1))
}

/// Renumbers the ranks of every square in a move text by `delta` on a
/// ten-rank board (XBoard counts those from 0); other boards unchanged.
fn shift(text: &str, ranks: u8, delta: i32) -> String {
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
fn from_xboard(pos: &AnyPosition, text: &str) -> Option<Vec<Move>> {
    let v = pos.variant();
    let (files, ranks) = v.size();
    let legal = pos.legal_moves();
    let has = |k: MoveKind| legal.iter().any(|m| m.kind == k);
    if text == "@@@@" {
        return has(MoveKind::Decline).then(|| vec![Move::DECLINE]);
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
    }
    parse_move(pos, text).ok().map(|m| vec![m])
}

fn result_line(o: Outcome) -> String {
    let comment = match o {
        Outcome::Win { winner, reason: WinReason::Checkmate } => format!("{} mates", winner.name()),
        Outcome::Win { winner, reason: WinReason::NoCamelOrRhino } => {
            format!("{} has no Camel or Rhino", winner.flip().name())
        }
        Outcome::Draw(_) => o.describe(),
    };
    format!("{} {{{comment}}}", o.result())
}

fn game_outcome(s: &Session) -> Option<Outcome> {
    let mut g = Game::new(s.start);
    for &m in &s.moves {
        g.play(m).ok()?;
    }
    g.outcome()
}

/// The score of a thinking line: centipawns, or (CECP §10) 100000 + N for
/// mate in N moves and -100000 - N for mated in N moves.
fn xboard_score(score: Score) -> i32 {
    match score {
        Score::Cp(c) => c,
        Score::Mate(m) if m > 0 => 100_000 + m,
        Score::Mate(m) => -100_000 + m,
    }
}

/// A thinking line: `depth score centiseconds nodes pv`, the pv in
/// XBoard's notation (see [`to_xboard`]) from `pos`.
fn thinking(pos: &AnyPosition, i: &Info) -> String {
    let score = xboard_score(i.score);
    let mut p = *pos;
    let mut pv = Vec::with_capacity(i.pv.len());
    for &m in &i.pv {
        pv.push(
            xboard_move(&p, m, false).unwrap_or_else(|| shift(&uci::format(p.variant(), m), p.variant().size().1, -1)),
        );
        match p.play(m) {
            Ok(next) => p = next,
            Err(_) => break,
        }
    }
    format!("{} {} {} {} {}", i.depth, score, i.time_ms / 10, i.nodes, pv.join(" "))
}

/// The position after `moves` from `start`.
fn replay(start: &AnyPosition, moves: &[Move]) -> AnyPosition {
    let mut p = *start;
    for &m in moves {
        p = p.play_unchecked(m);
    }
    p
}

/// The engine's move as XBoard will get it: the move, a second Menagerie
/// move folded into it (White's placement after its `accept`), and its
/// text. When XBoard could not show the search's choice (see
/// [`to_xboard`]), the best move XBoard can show is played instead, chosen
/// by a short search after each of them; only if there is none is the
/// choice sent as it is.
fn choose_for_xboard(
    start: &AnyPosition,
    moves: &[Move],
    best: Move,
    ponder: Option<Move>,
) -> (Move, Option<Move>, String) {
    let pos = replay(start, moves);
    let v = pos.variant();
    let plain = |p: &AnyPosition, m: Move| {
        xboard_move(p, m, false).unwrap_or_else(|| shift(&uci::format(v, m), v.size().1, -1))
    };
    if best.kind == MoveKind::Accept && pos.side_to_move() == Color::White {
        let Ok(after) = pos.play(best) else { return (best, None, plain(&pos, best)) };
        let placements = after.legal_moves();
        let place = ponder
            .filter(|p| placements.iter().any(|m| m == p))
            .or_else(|| placements.iter().copied().find(|m| m.kind == MoveKind::Place));
        if let Some(p) = place
            && let Some(text) = to_xboard(&after, p)
        {
            return (best, Some(p), text);
        }
        return (best, None, plain(&pos, best));
    }
    if let Some(text) = to_xboard(&pos, best) {
        return (best, None, text);
    }
    let shown: Vec<(Move, String)> =
        pos.legal_moves().iter().filter_map(|&m| to_xboard(&pos, m).map(|t| (m, t))).collect();
    let mut engine = Engine::new(EngineOptions { hash_mb: 1, threads: 1, multipv: 1 });
    let mut chosen: Option<(i32, Move, String)> = None;
    for (m, text) in shown {
        let mut line = moves.to_vec();
        line.push(m);
        if engine.set_position(*start, &line).is_err() {
            continue;
        }
        let r = engine.go(Limits::depth(2), |_| {}).wait();
        let score = match r.best {
            Some(_) => -xboard_score(r.score),
            None => match replay(start, &line).outcome() {
                Some(Outcome::Win { .. }) => 200_000,
                _ => 0,
            },
        };
        if chosen.as_ref().is_none_or(|(s, _, _)| score > *s) {
            chosen = Some((score, m, text));
        }
    }
    match chosen {
        Some((_, m, text)) => (m, None, text),
        None => (best, None, plain(&pos, best)),
    }
}

/// Runs the XBoard protocol until `quit` or end of input.
pub fn run(s: &mut Session, lines: &mut dyn Iterator<Item = String>) {
    let mut force = false;
    let mut post = true;
    let mut engine_white = false;
    let mut clock = Clock {
        mps: 0,
        base: Duration::from_secs(300),
        inc: Duration::ZERO,
        per_move: None,
        depth: None,
        own: None,
        other: None,
    };
    let mut analyzing = false;
    // White's placement folded into its `accept` (see `choose_for_xboard`).
    let extra: Arc<Mutex<Option<Move>>> = Arc::new(Mutex::new(None));
    let think = |s: &mut Session, clock: &Clock, post: bool, analyze: bool| {
        let v = s.variant;
        let mut limits = Limits::default();
        if analyze {
            limits.infinite = true;
        } else if let Some(t) = clock.per_move {
            limits.movetime = Some(t);
        } else {
            let own = clock.own.unwrap_or(clock.base);
            let white = s.position().side_to_move() == menagerie_pieces::Color::White;
            if white {
                limits.wtime = Some(own);
                limits.winc = Some(clock.inc);
            } else {
                limits.btime = Some(own);
                limits.binc = Some(clock.inc);
            }
            if clock.mps > 0 {
                let played = (s.moves.len() / 2) as u32;
                limits.movestogo = Some(clock.mps - played % clock.mps);
            }
        }
        limits.depth = clock.depth;
        let start = s.start;
        let moves = s.moves.clone();
        let quiet = s.quiet_abort.clone();
        let slot = s.engine_move.clone();
        let extra_slot = extra.clone();
        let here = s.position();
        let _ = v;
        s.go(
            limits,
            false,
            move |info| {
                if post && info.multipv == 1 {
                    send(&thinking(&here, &info));
                }
            },
            move |r| {
                if analyze || quiet.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                match r.best {
                    Some(best) => {
                        let (m, second, text) = choose_for_xboard(&start, &moves, best, r.ponder);
                        if let Ok(mut slot) = extra_slot.lock() {
                            *slot = second;
                        }
                        if let Ok(mut slot) = slot.lock() {
                            *slot = Some(m);
                        }
                        send(&format!("move {text}"));
                        let mut g = Game::new(start);
                        for &x in &moves {
                            let _ = g.play(x);
                        }
                        if g.play(m).is_ok()
                            && second.is_none_or(|x| g.play(x).is_ok())
                            && let Some(o) = g.outcome()
                        {
                            send(&result_line(o));
                        }
                    }
                    None => {
                        let mut g = Game::new(start);
                        for &x in &moves {
                            let _ = g.play(x);
                        }
                        if let Some(o) = g.outcome() {
                            send(&result_line(o));
                        }
                    }
                }
            },
        );
    };
    // The engine's own move is added to the game before the next command is
    // handled (the search thread records it before announcing it).
    let mut pending_engine_move = false;
    for line in lines {
        let line = line.trim().to_string();
        if line.is_empty() {
            continue;
        }
        // Sync the engine's own move into the game before handling input:
        // once it is announced (the slot is filled before the `move` line
        // goes out), the search thread is only finishing up.
        if pending_engine_move && (!s.searching() || engine_move_announced(s)) {
            s.wait_search();
            pending_engine_move = false;
            sync_engine_move(s, &extra);
        }
        let mut words = line.split_whitespace();
        let cmd = words.next().unwrap_or("");
        let args: Vec<&str> = words.collect();
        match cmd {
            "protover" => {
                let variants: Vec<&str> = VariantId::ALL.iter().map(|&v| xboard_name(v)).collect();
                send(&format!(
                    "feature done=0 myname=\"Menagerie {}\" variants=\"{}\" setboard=1 usermove=1 ping=1 sigint=0 sigterm=0 reuse=1 analyze=1 colors=0 memory=1 smp=1 name=0 nps=0 debug=1",
                    env!("CARGO_PKG_VERSION"),
                    variants.join(",")
                ));
                send("feature done=1");
            }
            "accepted" | "rejected" | "computer" | "name" | "rating" | "ics" | "hard" | "easy" | "random" | "bk"
            | "hint" | "draw" | "otim" => {
                if cmd == "otim" {
                    clock.other = args.first().and_then(|t| centiseconds(t));
                }
            }
            "new" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                // A move the old game's search announced must not leak into the new game.
                pending_engine_move = false;
                discard_engine_move(s, &extra);
                s.engine.new_game();
                s.set_variant(VariantId::Chess);
                force = false;
                engine_white = false;
                clock.depth = None;
                analyzing = false;
            }
            "variant" => match args.first().and_then(|n| variant_from_xboard(n)) {
                Some(v) => {
                    s.set_variant(v);
                    for l in describe_variant(v) {
                        send(&l);
                    }
                }
                None => send(&format!("Error (unknown variant): {}", args.join(" "))),
            },
            "force" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                force = true;
            }
            "go" => {
                force = false;
                engine_white = s.position().side_to_move() == menagerie_pieces::Color::White;
                think(s, &clock, post, false);
                pending_engine_move = true;
            }
            "playother" => {
                force = false;
                engine_white = s.position().side_to_move() != menagerie_pieces::Color::White;
            }
            "white" | "black" => {}
            "level" => {
                if let [mps, base, inc, ..] = args.as_slice() {
                    clock.mps = mps.parse().unwrap_or(0);
                    let secs = match base.split_once(':') {
                        Some((m, sec)) => m
                            .parse::<u64>()
                            .unwrap_or(0)
                            .saturating_mul(60)
                            .saturating_add(sec.parse::<u64>().unwrap_or(0)),
                        None => base.parse::<u64>().unwrap_or(5).saturating_mul(60),
                    };
                    clock.base = Duration::from_secs(secs);
                    clock.inc = seconds(inc, 0.0).unwrap_or(Duration::ZERO);
                    clock.per_move = None;
                }
            }
            "st" => clock.per_move = args.first().and_then(|t| seconds(t, 0.01)),
            "sd" => clock.depth = args.first().and_then(|d| d.parse::<u32>().ok()).map(|d| d.clamp(1, 100)),
            "time" => clock.own = args.first().and_then(|t| centiseconds(t)),
            "memory" => {
                if let Some(mb) = args.first().and_then(|m| m.parse::<usize>().ok())
                    && let Err(e) = s.set_hash(mb.clamp(1, 65536))
                {
                    send(&format!("telluser {e}"));
                }
            }
            "cores" => {
                if let Some(n) = args.first().and_then(|m| m.parse::<usize>().ok()) {
                    s.engine.set_threads(n);
                }
            }
            "post" => post = true,
            "nopost" => post = false,
            "ping" => {
                // While analysing, answer at once and go on; while thinking on
                // its own move, answer only after the move (CECP: ping), but
                // without cutting the search short.
                if !analyzing {
                    s.wait_search();
                }
                if pending_engine_move && !s.searching() {
                    pending_engine_move = false;
                    sync_engine_move(s, &extra);
                }
                send(&format!("pong {}", args.first().unwrap_or(&"")));
            }
            "setboard" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                pending_engine_move = false;
                discard_engine_move(s, &extra);
                let f = args.join(" ");
                match from_xboard_fen(s.variant, &f).and_then(|p| s.set_game(Some(&fen::format(&p)), &[])) {
                    Err(e) => send(&format!("tellusererror Illegal position: {e}")),
                    Ok(()) if analyzing => think(s, &clock, true, true),
                    // XBoard sends the position after a pass (`decline`)
                    // instead of the move: the engine on move then plays.
                    Ok(()) if !force && (s.position().side_to_move() == Color::White) == engine_white => {
                        if let Some(o) = game_outcome(s) {
                            send(&result_line(o));
                        } else {
                            think(s, &clock, post, false);
                            pending_engine_move = true;
                        }
                    }
                    Ok(()) => {}
                }
            }
            "usermove" => {
                let text = args.first().copied().unwrap_or("");
                s.stop_and_wait();
                if pending_engine_move {
                    pending_engine_move = false;
                    sync_engine_move(s, &extra);
                }
                let pos = s.position();
                match from_xboard(&pos, text) {
                    Some(ms) => {
                        for m in ms {
                            let _ = s.push_move(m);
                        }
                        if let Some(o) = game_outcome(s) {
                            send(&result_line(o));
                        } else if analyzing {
                            think(s, &clock, true, true);
                        } else if !force {
                            let white = s.position().side_to_move() == menagerie_pieces::Color::White;
                            if white == engine_white {
                                think(s, &clock, post, false);
                                pending_engine_move = true;
                            }
                        }
                    }
                    None => send(&format!("Illegal move: {text}")),
                }
            }
            "?" => s.stop_and_wait(),
            "undo" | "remove" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                s.pop_move();
                if cmd == "remove" {
                    s.pop_move();
                }
                if analyzing {
                    think(s, &clock, true, true);
                }
            }
            "result" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                force = true;
            }
            "analyze" => {
                analyzing = true;
                think(s, &clock, true, true);
            }
            "exit" => {
                analyzing = false;
                s.stop_and_wait();
            }
            "." => {}
            "quit" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                return;
            }
            _ => {
                // Protocol 1 clients send bare moves.
                let pos = s.position();
                if let Some(ms) = from_xboard(&pos, cmd) {
                    for m in ms {
                        let _ = s.push_move(m);
                    }
                } else {
                    send(&format!("Error (unknown command): {cmd}"));
                }
            }
        }
    }
    s.stop_and_wait();
}

/// A time in seconds (`st`, the increment of `level`), at least `min`;
/// None for text that is no number or too large a time.
fn seconds(text: &str, min: f64) -> Option<Duration> {
    let t = text.parse::<f64>().ok()?;
    Duration::try_from_secs_f64(if t.is_nan() { min } else { t.max(min) }).ok()
}

/// A clock reading in centiseconds (`time`, `otim`).
fn centiseconds(text: &str) -> Option<Duration> {
    text.parse::<u64>().ok().map(|cs| Duration::from_millis(cs.saturating_mul(10)))
}

/// True once the engine's search has announced its move.
fn engine_move_announced(s: &Session) -> bool {
    s.engine_move.lock().is_ok_and(|slot| slot.is_some())
}

/// Forgets a move the engine announced but that was not added to the game.
fn discard_engine_move(s: &mut Session, extra: &Mutex<Option<Move>>) {
    if let Ok(mut slot) = s.engine_move.lock() {
        *slot = None;
    }
    if let Ok(mut slot) = extra.lock() {
        *slot = None;
    }
}

/// Applies the engine's announced move (and a placement folded into it) to
/// the game once its search ended.
fn sync_engine_move(s: &mut Session, extra: &Mutex<Option<Move>>) {
    let m = s.engine_move.lock().ok().and_then(|mut slot| slot.take());
    let second = extra.lock().ok().and_then(|mut slot| slot.take());
    if let Some(m) = m {
        let _ = s.push_move(m);
        if let Some(x) = second {
            let _ = s.push_move(x);
        }
    }
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

    #[test]
    fn ten_ranks_count_from_zero() {
        let p = AnyPosition::start(VariantId::CamelRhino);
        let m = parse_move(&p, "b2d5").unwrap();
        assert_eq!(to_xboard(&p, m).as_deref(), Some("b1d4"));
        assert_eq!(from_xboard(&p, "b1d4"), Some(vec![m]));
        assert_eq!(from_xboard(&p, "e3e4"), Some(vec![parse_move(&p, "e4e5").unwrap()]));
        // A swap is a move onto the friendly piece (XBoard swaps them).
        let swap = parse_move(&p, "e2f2").unwrap();
        assert_eq!(to_xboard(&p, swap).as_deref(), Some("e1f1"));
        assert_eq!(from_xboard(&p, "f1e1"), Some(vec![swap]));
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
        // White's accept and placement on g are one visit g1-g3-g1.
        let place_g = parse_move(&after(v, &["accept"]), "A@g").unwrap();
        assert_eq!(from_xboard(&p, "g1g3-g1"), Some(vec![Move::ACCEPT, place_g]));
        assert_eq!(from_xboard(&p, "g1g3,g3g1"), Some(vec![Move::ACCEPT, place_g]));
        // Black's answers: a pass declines, the king's visit accepts.
        let p = after(v, &["decline"]);
        assert_eq!(to_xboard(&p, Move::ACCEPT).as_deref(), Some("e8e6-e8"));
        assert_eq!(from_xboard(&p, "e8e6-e8"), Some(vec![Move::ACCEPT]));
        // As XBoard forwards Black's visit: e8e8,e6d8 (a8a8,a6`8 on file a).
        assert_eq!(from_xboard(&p, "e8e8,e6d8"), Some(vec![Move::ACCEPT]));
        let a = parse_move(&after(v, &["accept", "A@g"]), "A@a").unwrap();
        assert_eq!(from_xboard(&after(v, &["accept", "A@g"]), "a8a8,a6`8"), Some(vec![a]));
        assert_eq!(from_xboard(&p, "@@@@"), Some(vec![Move::DECLINE]));
        // Black places on f: f8-f6-f8; XBoard forwards f8f8,f6e8.
        let p = after(v, &["accept", "A@g"]);
        let f = parse_move(&p, "A@f").unwrap();
        assert_eq!(to_xboard(&p, f).as_deref(), Some("f8f6-f8"));
        assert_eq!(from_xboard(&p, "f8f8,f6e8"), Some(vec![f]));
        round_trip(&p);
        // Two Alpacas: files b and g.
        let p = after(VariantId::Alpaca2, &["accept"]);
        let bg = parse_move(&p, "A@bg").unwrap();
        assert_eq!(to_xboard(&p, bg).as_deref(), Some("b1g3-b1"));
        round_trip(&p);
        // A gating move carries the entering piece.
        let p = after(v, &["accept", "A@g", "A@f"]);
        let nf3 = parse_move(&p, "g1f3").unwrap();
        assert_eq!(to_xboard(&p, nf3).as_deref(), Some("g1f3a"));
        assert_eq!(from_xboard(&p, "g1f3a"), Some(vec![nf3]));
        assert_eq!(from_xboard(&p, "g1f3"), Some(vec![nf3]));
        round_trip(&p);
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
