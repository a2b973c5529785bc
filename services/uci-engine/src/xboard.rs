//! XBoard/CECP protocol version 2.
//!
//! Variants are announced with `feature variants=...` (`normal` is orthodox
//! chess); on `variant NAME` the engine tells XBoard the board size, parent
//! variant and piece-to-char table (`setup`: Camel, Zebra and Wazir on
//! XBoard's own pieces, the Rhino on the Gnu, the Alpaca on the Camel, the
//! Alseid on the Princess picture) and the fairy pieces' Betza movement
//! (`piece`), the reserve of a gating variant as XBoard holdings. Moves are
//! written the way XBoard 4.9 can follow them, with its legality testing on
//! or off: see [`to_xboard`] and [`from_xboard`]. In short: ranks from 0 on
//! ten-rank boards; the prelude as passes (`@@@@` = `decline`) and pawn
//! "visits" that leave XBoard's board unchanged (`g2g3-g2` = place on g;
//! White's `accept` and placement are one such move); gating with the
//! entering piece as suffix (`g1f3a`); swaps as a move onto the friendly
//! piece. Chess960 is XBoard's
//! `fischerandom` (castling written `O-O`/`O-O-O`; king-takes-rook and
//! king-to-square are read too). Moves XBoard cannot show (kidnaps,
//! takeovers, a gate fired by a kidnap or by castling on the rook's file;
//! a King swap its legality test misjudges) are not played by the engine while another move exists
//! (without one it claims a draw); from the user they are accepted.
//!
//! Variants defined as data (`variants.ini`) are played in their own
//! coordinate notation: those XBoard knows by name under that name
//! ([`XBOARD_DATA_VARIANTS`]), the others it can follow described by
//! `setup` and `piece` ([`describe_data_variant`]); game ends by the rules
//! of [`Game::outcome`].
//!
//! XBoard's own drop, Asian and capture games among them are played with
//! XBoard's conventions, which are Fairy-Stockfish's coordinate notation:
//! - `crazyhouse`: the hands are XBoard's holdings, in `setboard` as the
//!   FEN's pockets (`RNBQKBNR[Pp] w`, `[-]` for none, `Q~` a promoted
//!   queen) and from the `holding [WHITE] [BLACK]` command (ICS mode; with
//!   a trailing colour and piece, `holding [..] [..] BN`, that one piece is
//!   added to the hand played); drops are `P@e4` both ways;
//! - `shogi`: XBoard's 9x9 board, files `a`-`i` and ranks `1`-`9` from
//!   Sente's side (Sente is White and moves first), promotion as the
//!   suffix `+` (`b2h8+`), a deferral without suffix (XBoard's `=` is
//!   read), drops `B@e5`, promoted pieces `+B` in the FEN;
//! - `xiangqi`: XBoard's 9x10 board, ranks from 0 as on every ten-rank
//!   board (XBoard's `h2e2` is Menagerie's `h3e3`); XBoard's FEN letters
//!   `H` (horse) and `E` (elephant) are read as Menagerie's `N` and `B`;
//! - `atomic`, `giveaway`, `losers`, `asean`: orthodox notation.
//!
//! Bughouse is XBoard's in ICS mode only and needs a partner's board;
//! `suicide` is left out (XBoard keeps the castling rights of its start
//! position, so it judges the engine's repetition claims false), and
//! `berolina` (XBoard's legality test refuses the pawn's diagonal double
//! step `a2c4`). Not tried: `3check` (XBoard 4.9's own FEN for it differs,
//! and by its source it does not know the win, so with legality testing on
//! it would judge the engine's win claim false). Xiangqi's repetitions end
//! by Fairy-Stockfish's rules (a perpetual check or chase loses, the
//! chasing rule included); XBoard judges a perpetual-check or chase win
//! claimed in a game with legality testing on by its own rules.

use crate::session::{Session, send};
use menagerie_app::{VariantDef, Variants};
use menagerie_game::{Game, GameResult, Move, Position};
use menagerie_notation::xboard::{self, from_xboard, from_xboard_fen, shift, to_xboard, xboard_move, xboard_start_fen};
use menagerie_notation::{fen, uci};
use menagerie_pieces::{Color, PieceKind};
use menagerie_search::{Engine, EngineOptions, Info, Limits, Score};
use menagerie_variants::{AnyPosition, Move as CompiledMove, MoveKind, VariantId};
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
    v.xboard_builtin().unwrap_or(v.name())
}

fn variant_from_xboard(variants: &Variants, name: &str) -> Option<VariantId> {
    let name = name.rsplit('_').next().unwrap_or(name);
    match VariantId::ALL.iter().find(|v| v.xboard_builtin() == Some(name)) {
        Some(&v) => Some(v),
        None => variants.lookup(name).ok(),
    }
}

/// XBoard's internal piece order (XBoard 4.9, `common.h`): a piece-to-char
/// table names these in this order, White's first, the King last.
const XBOARD_PIECES: usize = 66;

/// The slot of XBoard's piece order (see [`XBOARD_PIECES`]) whose picture
/// a piece takes, by the piece's name (any letter case: a compiled
/// [`PieceKind`]'s name or a built-in piece key of `variants.ini`), if it
/// has one: XBoard's own pictures for the orthodox pieces and for the
/// Fers, Alfil, Archbishop, Chancellor, Wazir, Commoner, Cannon, Zebra and
/// Camel; the Gnu (a horned beast) for the Rhino, the Camel (its relative)
/// for the Alpaca, the Princess picture (XBoard's `Crown` slot) for the
/// Alseid, a nymph.
fn xboard_slot(name: &str) -> Option<usize> {
    const SLOTS: [(&str, usize); 18] = [
        ("pawn", 0),
        ("knight", 1),
        ("bishop", 2),
        ("rook", 3),
        ("queen", 4),
        ("fers", 5),
        ("alfil", 6),
        ("archbishop", 7),
        ("chancellor", 8),
        ("wazir", 9),
        ("commoner", 10),
        ("cannon", 11),
        ("zebra", 23),
        ("camel", 24),
        ("alpaca", 24),
        ("rhino", 31),
        ("alseid", 64),
        ("king", 65),
    ];
    SLOTS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|&(_, slot)| slot)
}

/// The `setup` and `piece` commands describing a variant to XBoard.
///
/// Gating variants use XBoard's `seirawan` parent: a gating move is then
/// written with the entering piece as a suffix (`g1f3a`) and XBoard puts it
/// on the square the move left, as in S-Chess. Camel and Rhino Chess uses
/// `grand`, where a move onto a friendly piece swaps the two. The start FEN
/// is the board without the bracket (XBoard's FEN has no prelude state).
fn describe_variant(v: VariantId) -> Vec<String> {
    if v.xboard_builtin().is_some() {
        return Vec::new();
    }
    let kinds = v.rules().all_kinds();
    let mut white = vec!['.'; XBOARD_PIECES];
    for &k in &kinds {
        if let Some(slot) = xboard_slot(k.name()) {
            white[slot] = k.letter();
        }
    }
    let black: String = white.iter().map(|c| c.to_ascii_lowercase()).collect();
    let white: String = white.into_iter().collect();
    let (w, h) = v.size();
    let parent = xboard::parent(v);
    let start = xboard_start_fen(v);
    // Gating variants hold the reserve pieces in XBoard's holdings, one
    // slot per piece kind up to the reserve piece's (XBoard counts them in
    // its piece order: S-Chess gating takes the piece from there).
    let hand = match v.rules().gating {
        Some(g) => {
            let reserve = xboard_slot(g.piece.name());
            kinds.iter().filter(|&&k| xboard_slot(k.name()) <= reserve && k != PieceKind::King).count()
        }
        None => 0,
    };
    let mut out = vec![format!("setup ({white}{black}) {w}x{h}+{hand}_{parent} {start}")];
    for k in kinds {
        let extra = legality_betza(v, k);
        let orthodox = matches!(
            k,
            PieceKind::Pawn
                | PieceKind::Knight
                | PieceKind::Bishop
                | PieceKind::Rook
                | PieceKind::Queen
                | PieceKind::King
        );
        if !orthodox || !extra.is_empty() {
            // XBoard's own pawn (double step, en passant) in Betza, when its move is added to.
            let base = if k == PieceKind::Pawn { "fmWfceFifmnD" } else { k.movement().betza };
            out.push(format!("piece {}& {base}{extra}", k.letter()));
        }
    }
    out
}

/// Moves added to a piece's Betza so that XBoard 4.9 with legality testing
/// on accepts the forms [`to_xboard`] writes: in a gating variant the
/// pawn's "visit" (`fmabmW`: a step ahead to an empty square and back, the
/// prelude's accept and placements; the whole Betza of the pawn is then
/// given), and in Camel and Rhino Chess a step onto an adjacent friendly
/// piece (`dK`, XBoard's swap; written from the King's square or else the
/// square that holds no pawn).
fn legality_betza(v: VariantId, k: PieceKind) -> &'static str {
    if v.rules().gating.is_some() {
        match k {
            PieceKind::Pawn => "fmabmW",
            _ => "",
        }
    } else if xboard::parent(v) == "grand" && k != PieceKind::Pawn {
        "dK"
    } else {
        ""
    }
}

/// XBoard's result line of `game`, if it has ended ([`Game::outcome`]:
/// checkmate, stalemate, each variant's wins, and the ends the engine
/// applies, such as repetition and the n-move rule).
fn result_line(game: &Game) -> Option<String> {
    game.outcome().map(|o| format!("{} {{{}}}", o.result.text(), o.reason))
}

/// The variants defined as data that XBoard 4.9 knows by name (its
/// `-variant` list), with the same board, pieces, letters and start
/// position: they are announced under that name and need no `setup`.
/// Moves are Fairy-Stockfish's coordinate notation, which is XBoard's for
/// these boards (S-Chess gating as `g1f3h`, castling with gating on the
/// rook's square as `h1e1h`). Courier is left out: XBoard's Courier
/// starts from its own array (the fers on g1, no pawn advanced: XBoard
/// does not play the initial forced moves), and XBoard ignores an engine's
/// `setup` for a variant whose start position it knows while it tests
/// legality, so it would refuse the moves of Fairy-Stockfish's fers on g6.
/// Nor can Courier be described under its own name with the `fairy`
/// parent: `variant courier` is XBoard's.
///
/// XBoard's drop, Asian and capture games that Menagerie plays by the
/// same rules are here too (see the module documentation for how they are
/// written): `crazyhouse` (holdings as the FEN's pockets, drops `P@e4`),
/// `shogi` (promotion suffix `+`, drops, `+B` in the FEN), `xiangqi`
/// (ranks from 0, XBoard's FEN letters [`XBOARD_LETTERS`]), `atomic`,
/// `giveaway`, `losers` and `asean`.
const XBOARD_DATA_VARIANTS: [&str; 13] = [
    "capablanca",
    "janus",
    "shatranj",
    "makruk",
    "knightmate",
    "seirawan",
    "crazyhouse",
    "shogi",
    "xiangqi",
    "atomic",
    "giveaway",
    "losers",
    "asean",
];

/// Letters XBoard's FEN gives pieces of a variant it knows, where
/// Menagerie's differ: (variant, XBoard's letter, Menagerie's letter),
/// White's; Black's are the same in lower case.
const XBOARD_LETTERS: [(&str, char, char); 2] = [("xiangqi", 'H', 'N'), ("xiangqi", 'E', 'B')];

/// `fen`, an XBoard FEN of the data variant `name`, with Menagerie's
/// piece letters ([`XBOARD_LETTERS`]) in its board part.
fn fen_from_xboard_letters(name: &str, fen: &str) -> String {
    let (board, rest) = fen.split_once(' ').unwrap_or((fen, ""));
    let board: String = board
        .chars()
        .map(|c| {
            let found = XBOARD_LETTERS.iter().find(|(v, x, _)| *v == name && *x == c.to_ascii_uppercase());
            match found {
                Some(&(_, _, ours)) if c.is_ascii_lowercase() => ours.to_ascii_lowercase(),
                Some(&(_, _, ours)) => ours,
                None => c,
            }
        })
        .collect();
    if rest.is_empty() { board } else { format!("{board} {rest}") }
}

/// The FEN of `pos` with the holdings of XBoard's `holding` command
/// (`args`: `[WHITE] [BLACK]`, optionally followed by a colour and piece,
/// `holding [PPR] [q] BQ`): with the colour and piece, only that piece is
/// added to the hand of its colour in `pos` (the lists may lag behind the
/// moves already played); without, the hands become the two lists.
/// An error for a variant without hands or text of another form.
fn fen_with_holdings(pos: &Position, args: &str) -> Result<String, String> {
    let fen = pos.fen();
    let Some((board, rest)) = fen.split_once('[') else {
        return Err(format!("{} has no holdings", pos.variant_name()));
    };
    let (hand, rest) = rest.split_once(']').ok_or_else(|| format!("no pocket in the FEN {fen}"))?;
    let bracket = |text: &str| -> Option<(String, String)> {
        let (_, after) = text.split_once('[')?;
        let (inside, after) = after.split_once(']')?;
        Some((inside.trim().to_string(), after.to_string()))
    };
    let form =
        || format!("expected 'holding [WHITE] [BLACK]' (optionally then a colour and piece, e.g. BQ), got '{args}'");
    let (white, after) = bracket(args).ok_or_else(form)?;
    let (black, after) = bracket(&after).ok_or_else(form)?;
    let letters = |t: &str| t.chars().all(|c| c.is_ascii_alphabetic() || c == '-');
    if !letters(&white) || !letters(&black) {
        return Err(form());
    }
    let hand = match after.split_whitespace().next() {
        None => {
            format!("{}{}", white.replace('-', "").to_ascii_uppercase(), black.replace('-', "").to_ascii_lowercase())
        }
        Some(gained) => {
            let mut cs = gained.chars();
            let piece = match (cs.next(), cs.next(), cs.next()) {
                (Some('W' | 'w'), Some(p), None) if p.is_ascii_alphabetic() => p.to_ascii_uppercase(),
                (Some('B' | 'b'), Some(p), None) if p.is_ascii_alphabetic() => p.to_ascii_lowercase(),
                _ => return Err(form()),
            };
            format!("{}{piece}", hand.replace('-', ""))
        }
    };
    Ok(format!("{board}[{hand}]{rest}"))
}

/// The data variants to announce: those of [`XBOARD_DATA_VARIANTS`] known
/// to `variants`, then the others [`describe_data_variant`] can describe
/// (under their own names).
fn xboard_data_variants(variants: &Variants) -> Vec<String> {
    let mut out: Vec<String> =
        XBOARD_DATA_VARIANTS.into_iter().filter(|n| variants.data(n).is_ok()).map(str::to_string).collect();
    let data = variants.catalogue().into_iter().filter(|v| v.defined_as_data).map(|v| v.name);
    for name in data {
        let name = name.as_str();
        if !out.iter().any(|n| n == name)
            && name != "courier"
            && XBOARD_NAMES_TAKEN.iter().all(|t| !t.eq_ignore_ascii_case(name))
            // Not flag wins, check counting nor racing kings' ban on checks
            // yet: XBoard's FEN and rules for its own 3check differ.
            && variants.data(name).is_ok_and(|def| def.facts().other_rules.is_empty() && describe_data_variant(&def).is_some())
        {
            out.push(name.to_string());
        }
    }
    out
}

/// Names XBoard gives variants of its own (other rules than the data
/// variant of that name would have).
const XBOARD_NAMES_TAKEN: [&str; 12] = [
    "normal",
    "fischerandom",
    "courier",
    "gothic",
    "falcon",
    "grand",
    "great",
    "super",
    "asean",
    "spartan",
    "fairy",
    "unknown",
];

/// The `setup` and `piece` commands that describe a data variant XBoard
/// does not know: the board size, XBoard's `fairy` parent, a piece-to-char
/// table (built-in pieces on their XBoard pictures, others on free slots),
/// the start FEN, and the Betza movement of every non-orthodox piece (and
/// of the king when it castles elsewhere than with the corner rooks of the
/// back rank: [`castling_betza`]). None for what XBoard cannot follow:
/// gating (pockets: S-Chess 960 too, whose shuffled castling XBoard only
/// plays with its `-fischerCastling` option, which an engine cannot set),
/// Chess960 castling, a royal piece that is not a king, castling XBoard's
/// Betza `O` cannot describe.
fn describe_data_variant(def: &VariantDef) -> Option<Vec<String>> {
    let orthodox = [("pawn", "fmWfcF"), ("knight", "N"), ("bishop", "B"), ("rook", "R"), ("queen", "Q"), ("king", "K")];
    let fen = &def.start_fen;
    let board = fen.split(' ').next()?;
    if def.chess960 || board.contains('[') {
        return None;
    }
    // XBoard castles with the corner rooks of the back rank; other
    // castling is given to the king as a Betza move.
    let castling = fen.split(' ').nth(2).is_some_and(|c| c != "-");
    let back = board.rsplit('/').next()?;
    let king_castling = match castling && !(back.starts_with('R') && back.ends_with('R')) {
        true => Some(castling_betza(def)?),
        false => None,
    };
    let mut white = vec!['.'; XBOARD_PIECES];
    let mut pieces = Vec::new();
    for p in def.pieces() {
        if p.royal && (p.name != "king" || p.betza != "K") {
            return None;
        }
        let slot = match xboard_slot(&p.name) {
            Some(s) if white[s] == '.' => s,
            _ => (12..64).find(|&s| white[s] == '.' && !matches!(s, 23 | 24 | 31))?,
        };
        white[slot] = p.letter;
        if let (true, Some(castle)) = (p.royal, &king_castling) {
            pieces.push(format!("piece {}& {}{castle}", p.letter, p.betza));
        } else if !orthodox.contains(&(p.name.as_str(), p.betza.as_str())) {
            pieces.push(format!("piece {}& {}", p.letter, p.betza));
        }
    }
    let black: String = white.iter().map(|c| c.to_ascii_lowercase()).collect();
    let white: String = white.into_iter().collect();
    let mut out = vec![format!("setup ({white}{black}) {}x{}+0_fairy {fen}", def.files, def.ranks)];
    out.extend(pieces);
    Some(out)
}

/// XBoard's Betza for the castling of a data variant that castles away
/// from the corners of the back rank (Shako: on the second rank, with the
/// rooks of the b- and i-files): `ijO2` is a castling of a king still on
/// its start square that moves two squares towards the first piece from
/// the edge after one skipped file (`j`), which must stand where it
/// started; XBoard then puts that piece next to the king, on the other
/// side, as Fairy-Stockfish does. None when the castling does not fit
/// that form: king steps of fewer than two squares or of different
/// lengths on the two sides, rooks not as far from either edge, or kings
/// and rooks not where the start position has them.
fn castling_betza(def: &VariantDef) -> Option<String> {
    let c = def.castling_squares()?;
    let board = def.start_fen.split(' ').next()?;
    let rows: Vec<&str> = board.split('/').collect();
    let row = |rank: u8| -> Option<Vec<char>> {
        let text = rows.get(usize::from(def.ranks.checked_sub(rank + 1)?))?;
        let mut cells = Vec::new();
        let mut run = 0usize;
        for ch in text.chars() {
            match ch.to_digit(10) {
                Some(d) => run = run * 10 + d as usize,
                None => {
                    cells.extend(std::iter::repeat_n(' ', run));
                    run = 0;
                    cells.push(ch);
                }
            }
        }
        cells.extend(std::iter::repeat_n(' ', run));
        (cells.len() == usize::from(def.files)).then_some(cells)
    };
    let king = def.pieces().find(|p| p.royal)?.letter;
    let rook = def.pieces().find(|p| p.name == "rook")?.letter;
    let white = row(c.rank)?;
    let black = row(def.ranks - 1 - c.rank)?;
    let king_file = u8::try_from(white.iter().position(|&p| p == king)?).ok()?;
    let step = c.king_to[0].checked_sub(king_file)?;
    let skip = c.rook_from[1];
    let fits = step >= 2
        && king_file.checked_sub(c.king_to[1]) == Some(step)
        && c.rook_from[0] == def.files - 1 - skip
        && [(&white, king, rook), (&black, king.to_ascii_lowercase(), rook.to_ascii_lowercase())].iter().all(
            |(cells, k, r)| {
                let at = |f: u8| cells.get(usize::from(f)).copied();
                at(king_file) == Some(*k) && at(c.rook_from[0]) == Some(*r) && at(c.rook_from[1]) == Some(*r)
            },
        );
    fits.then(|| format!("i{}O{step}", "j".repeat(usize::from(skip))))
}

/// A move in XBoard's form (see [`to_xboard`]; a move XBoard cannot show
/// in Menagerie's coordinates, ranks from 0 on ten-rank boards). Games
/// defined as data are written in their coordinate notation, ranks from 0
/// on ten-rank boards.
fn move_to_xboard(pos: &Position, m: Move) -> String {
    match (pos.compiled(), m.compiled()) {
        (Some(p), Some(cm)) => {
            xboard_move(p, cm, false).unwrap_or_else(|| shift(&uci::format(p.variant(), cm), p.variant().size().1, -1))
        }
        _ => shift(&pos.move_text(m), ranks(pos), -1),
    }
}

/// The ranks of `pos`'s board.
fn ranks(pos: &Position) -> u8 {
    match (pos.compiled(), pos.data()) {
        (Some(p), _) => p.variant().size().1,
        (None, Some(p)) => p.variant().ranks,
        (None, None) => 8,
    }
}

/// The move(s) XBoard's `text` plays in `pos` (see [`from_xboard`]: one
/// XBoard move can be two of Menagerie's); SAN is read too in games
/// defined as data. None if it is no legal move.
fn move_from_xboard(pos: &Position, text: &str) -> Option<Vec<Move>> {
    match pos.compiled() {
        Some(p) => from_xboard(p, text).map(|ms| ms.into_iter().map(Move::from).collect()),
        None => {
            // XBoard's shogi writes a deferred promotion `c7c6=`.
            let text = text.strip_suffix('=').unwrap_or(text);
            let m = pos.parse_move(&shift(text, ranks(pos), 1)).or_else(|_| pos.parse_move(text)).ok()?;
            Some(vec![m])
        }
    }
}

/// Whether White is to move in the game played.
fn white_to_move(s: &Session) -> bool {
    s.position().white_to_move()
}

/// Plies played in the game.
fn plies(s: &Session) -> usize {
    s.game.moves().len()
}

/// The result line of the game played, if it has ended.
fn game_result(s: &Session) -> Option<String> {
    result_line(&s.game)
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
/// XBoard's notation ([`move_to_xboard`]) from `pos`.
fn thinking(pos: &Position, i: &Info) -> String {
    let score = xboard_score(i.score);
    let mut p = pos.clone();
    let mut pv = Vec::with_capacity(i.pv.len());
    for &m in &i.pv {
        pv.push(move_to_xboard(&p, m));
        match p.play(m) {
            Ok(next) => p = next,
            Err(_) => break,
        }
    }
    format!("{} {} {} {} {}", i.depth, score, i.time_ms / 10, i.nodes, pv.join(" "))
}

/// The engine's move as XBoard will get it: the move, a second Menagerie
/// move folded into it (White's placement after its `accept`), and its
/// text. When XBoard could not show the search's choice (see
/// [`to_xboard`]), the best move XBoard can show is played instead, chosen
/// by a short search after each of them. None when no legal move can be
/// shown (say the only escape from check is an Alseid kidnapping its own
/// king): XBoard's board would no longer be the game's.
fn choose_for_xboard(game: &Game, best: Move, ponder: Option<Move>) -> Option<(Move, Option<Move>, String)> {
    let here = game.current();
    let (Some(&pos), Some(cbest)) = (here.compiled(), best.compiled()) else {
        // Games defined as data: XBoard shows every move.
        return here.is_legal(best).then(|| (best, None, move_to_xboard(here, best)));
    };
    let v = pos.variant();
    let plain = |p: &AnyPosition, m: CompiledMove| {
        xboard_move(p, m, false).unwrap_or_else(|| shift(&uci::format(v, m), v.size().1, -1))
    };
    if cbest.kind == MoveKind::Accept && pos.side_to_move() == Color::White {
        let Ok(after) = pos.play(cbest) else { return Some((best, None, plain(&pos, cbest))) };
        let placements = after.legal_moves();
        let place = ponder
            .and_then(Move::compiled)
            .filter(|p| placements.iter().any(|m| m == p))
            .or_else(|| placements.iter().copied().find(|m| m.kind == MoveKind::Place));
        if let Some(p) = place
            && let Some(text) = to_xboard(&after, p)
        {
            return Some((best, Some(p.into()), text));
        }
        return Some((best, None, plain(&pos, cbest)));
    }
    if let Some(text) = to_xboard(&pos, cbest) {
        return Some((best, None, text));
    }
    let shown: Vec<(CompiledMove, String)> =
        pos.legal_moves().iter().filter_map(|&m| to_xboard(&pos, m).map(|t| (m, t))).collect();
    let mut engine = Engine::new(EngineOptions { hash_mb: 1, threads: 1, multipv: 1 });
    let mut chosen: Option<(i32, CompiledMove, String)> = None;
    for (m, text) in shown {
        let mut line = game.clone();
        if line.play(m.into()).is_err() {
            continue;
        }
        engine.set_game(&line);
        let r = engine.go(Limits::depth(2), |_| {}).wait();
        let score = match r.best {
            Some(_) => -xboard_score(r.score),
            None => match line.current().outcome() {
                Some(o) if o.result != GameResult::Draw => 200_000,
                _ => 0,
            },
        };
        if chosen.as_ref().is_none_or(|(s, _, _)| score > *s) {
            chosen = Some((score, m, text));
        }
    }
    chosen.map(|(_, m, text)| (m.into(), None, text))
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
        let mut limits = Limits::default();
        if analyze {
            limits.infinite = true;
        } else if let Some(t) = clock.per_move {
            limits.movetime = Some(t);
        } else {
            let own = clock.own.unwrap_or(clock.base);
            if white_to_move(s) {
                limits.wtime = Some(own);
                limits.winc = Some(clock.inc);
            } else {
                limits.btime = Some(own);
                limits.binc = Some(clock.inc);
            }
            if clock.mps > 0 {
                let played = (plies(s) / 2) as u32;
                limits.movestogo = Some(clock.mps - played % clock.mps);
            }
        }
        limits.depth = clock.depth;
        let game = s.game.clone();
        let quiet = s.quiet_abort.clone();
        let slot = s.engine_move.clone();
        let extra_slot = extra.clone();
        let here = s.position().clone();
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
                        let Some((m, second, text)) = choose_for_xboard(&game, best, r.ponder) else {
                            // Playing on would leave XBoard's board behind the game's.
                            send("1/2-1/2 {no legal move XBoard can show}");
                            return;
                        };
                        if let Ok(mut slot) = extra_slot.lock() {
                            *slot = second;
                        }
                        if let Ok(mut slot) = slot.lock() {
                            *slot = Some(m);
                        }
                        send(&format!("move {text}"));
                        let mut g = game;
                        if g.play(m).is_ok()
                            && second.is_none_or(|x| g.play(x).is_ok())
                            && let Some(line) = result_line(&g)
                        {
                            send(&line);
                        }
                    }
                    None => {
                        if let Some(line) = result_line(&game) {
                            send(&line);
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
                let mut variants: Vec<&str> = s.variants.iter().map(xboard_name).collect();
                let data = xboard_data_variants(&s.variants);
                variants.extend(data.iter().map(String::as_str));
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
                s.abort_quietly();
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
            "variant" => match args.first().and_then(|n| variant_from_xboard(&s.variants, n)) {
                None if args.first().is_some_and(|n| xboard_data_variants(&s.variants).iter().any(|d| d == n)) => {
                    match s.select(args[0]) {
                        Err(e) => send(&format!("Error (unknown variant): {e}")),
                        Ok(()) if !XBOARD_DATA_VARIANTS.contains(&args[0]) => {
                            let described = s.position().data().and_then(|p| describe_data_variant(p.variant()));
                            for l in described.unwrap_or_default() {
                                send(&l);
                            }
                        }
                        Ok(()) => {}
                    }
                }
                Some(v) => {
                    s.set_variant(v);
                    for l in describe_variant(v) {
                        send(&l);
                    }
                }
                None => {
                    let name = args.join(" ");
                    let hint = s.variants.suggest(&name).map(|m| format!(" (did you mean '{m}'?)")).unwrap_or_default();
                    send(&format!("Error (unknown variant): {name}{hint}"));
                }
            },
            // A result ends the game: the engine waits, as after `force`.
            "force" | "result" => {
                s.abort_quietly();
                force = true;
            }
            "go" => {
                force = false;
                engine_white = white_to_move(s);
                think(s, &clock, post, false);
                pending_engine_move = true;
            }
            "playother" => {
                force = false;
                engine_white = !white_to_move(s);
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
                s.abort_quietly();
                pending_engine_move = false;
                discard_engine_move(s, &extra);
                let f = args.join(" ");
                let set = if s.position().compiled().is_none() {
                    let f = fen_from_xboard_letters(&s.position().variant_name(), &f);
                    s.set_game(Some(&f), &[])
                } else {
                    from_xboard_fen(s.variant, &f).and_then(|p| s.set_game(Some(&fen::format(&p)), &[]))
                };
                match set {
                    Err(e) => send(&format!("tellusererror Illegal position: {e}")),
                    Ok(()) if analyzing => think(s, &clock, true, true),
                    // XBoard sends the position after a pass (`decline`)
                    // instead of the move: the engine on move then plays.
                    Ok(()) if !force && white_to_move(s) == engine_white => {
                        if let Some(line) = game_result(s) {
                            send(&line);
                        } else {
                            think(s, &clock, post, false);
                            pending_engine_move = true;
                        }
                    }
                    Ok(()) => {}
                }
            }
            // Bughouse and crazyhouse holdings (CECP: sent by XBoard in
            // ICS mode): the hands of the position played become these;
            // the engine on move thinks again.
            "holding" => {
                // A move announced before the search was stopped is played.
                s.abort_quietly();
                let thinking = pending_engine_move && !engine_move_announced(s);
                if thinking {
                    discard_engine_move(s, &extra);
                } else if pending_engine_move {
                    sync_engine_move(s, &extra);
                }
                pending_engine_move = false;
                let rest = line.split_once(' ').map_or("", |(_, r)| r);
                match fen_with_holdings(s.position(), rest).and_then(|f| s.set_game(Some(&f), &[])) {
                    Err(e) => send(&format!("Error (bad holdings): {e}")),
                    Ok(()) if analyzing => think(s, &clock, true, true),
                    Ok(()) if thinking && white_to_move(s) == engine_white => {
                        think(s, &clock, post, false);
                        pending_engine_move = true;
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
                let played = move_from_xboard(s.position(), text)
                    .is_some_and(|ms| ms.into_iter().all(|m| s.push_move(m).is_ok()));
                if !played {
                    send(&format!("Illegal move: {text}"));
                } else if let Some(line) = game_result(s) {
                    send(&line);
                } else if analyzing {
                    think(s, &clock, true, true);
                } else if !force && white_to_move(s) == engine_white {
                    think(s, &clock, post, false);
                    pending_engine_move = true;
                }
            }
            "?" => s.stop_and_wait(),
            "undo" | "remove" => {
                s.abort_quietly();
                s.pop_move();
                if cmd == "remove" {
                    s.pop_move();
                }
                if analyzing {
                    think(s, &clock, true, true);
                }
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
                s.abort_quietly();
                return;
            }
            _ => {
                // Protocol 1 clients send bare moves.
                if let Some(ms) = move_from_xboard(s.position(), cmd) {
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

    #[test]
    fn every_compiled_piece_has_its_xboard_picture() {
        for k in PieceKind::ALL {
            assert!(xboard_slot(k.name()).is_some_and(|s| s < XBOARD_PIECES), "{k:?}");
        }
    }

    /// The data variants announced: XBoard's own, then those described by
    /// `setup`; not Courier (XBoard's has another start), S-Chess 960,
    /// suicide, berolina nor bughouse (see [`XBOARD_DATA_VARIANTS`]).
    #[test]
    fn announced_data_variants() {
        let variants = Variants::builtin();
        let announced = xboard_data_variants(&variants);
        let (own, described) = announced.split_at(XBOARD_DATA_VARIANTS.len());
        assert_eq!(own, XBOARD_DATA_VARIANTS);
        assert_eq!(
            described,
            [
                "ai-wok",
                "almost",
                "amazon",
                "centaur",
                "chancellor",
                "chaturanga",
                "chigorin",
                "embassy",
                "extinction",
                "gardner",
                "georgian",
                "grasshopper",
                "hoppelpoppel",
                "kinglet",
                "losalamos",
                "misere",
                "modern",
                "newzealand",
                "nightrider",
                "nocastle",
                "paradigm",
                "raazuvaa",
                "shako",
                "sortofalmost",
                "tencubed",
                "threekings",
                "torpedo",
            ]
        );
        for left_out in [
            "courier",
            "seirawan960",
            "kingofthehill",
            "racingkings",
            "3check",
            "5check",
            "antichess",
            "suicide",
            "berolina",
            "bughouse",
            "horde",
        ] {
            assert!(variants.data(left_out).is_ok(), "{left_out} is built in");
            assert!(!announced.iter().any(|n| n == left_out), "{left_out}");
        }
    }

    /// Shako: its 10x10 board with cannons and elephants on the `fairy`
    /// parent, and the castling of its second rank given to the king.
    #[test]
    fn shako_is_described_with_its_castling() {
        let variants = Variants::builtin();
        let def = variants.data("shako").expect("built in");
        let lines = describe_data_variant(&def).expect("XBoard can follow Shako");
        let setup = &lines[0];
        assert!(
            setup.ends_with(
                ") 10x10+0_fairy c8c/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/C8C w KQkq - 0 1"
            ),
            "{setup}"
        );
        assert!(setup.starts_with("setup (PNBRQ"), "{setup}");
        let mut pieces = lines[1..].to_vec();
        pieces.sort();
        assert_eq!(pieces, ["piece C& mRcpR", "piece E& FA", "piece K& KijO2"]);
        // Castling with the corner rooks of the back rank needs no Betza.
        let embassy = variants.data("embassy").expect("built in");
        let lines = describe_data_variant(&embassy).expect("XBoard can follow it");
        assert!(lines.iter().all(|l| !l.starts_with("piece K&")), "{lines:?}");
        // The form reads any castling of that shape (Capablanca's king goes three squares).
        assert_eq!(castling_betza(&variants.data("capablanca").expect("built in")), Some("iO3".to_string()));
        assert_eq!(castling_betza(&variants.data("makruk").expect("built in")), None);
    }
}
