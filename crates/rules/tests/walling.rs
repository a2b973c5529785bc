//! Walls placed by the moves, enclosing drops and flips, petrification and
//! castling rules, one rule at a time. Expected moves, FENs and results are
//! Fairy-Stockfish's (pyffish 0.0.90); `fsf_positions.rs` covers random
//! games of the same variants.

use menagerie_rules::{Definitions, EndReason, GameResult, MoveError, Position};

const WALLING_INI: &str = include_str!("../../../tests/variants/walling.ini");
const CASTLING_INI: &str = include_str!("../../../tests/variants/castling.ini");

fn pos(name: &str, fen: &str) -> Position {
    let mut d = Definitions::builtin();
    d.load(WALLING_INI, "walling.ini").expect("the walling sections load");
    d.load(CASTLING_INI, "castling.ini").expect("the castling sections load");
    let def = d.get(name).expect("a variant");
    if fen.is_empty() { Position::start(def) } else { Position::from_fen(def, fen).expect("a valid FEN") }
}

fn play(p: &Position, text: &str) -> Position {
    p.play(p.parse_any(text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

#[test]
fn the_duck_moves_every_turn_and_must_move() {
    let p = pos("duck", "");
    // 20 moves, each with the duck on any of the 32 squares then empty.
    assert_eq!(p.legal_moves().len(), 20 * 32);
    let p = play(&p, "e2e4,e4d5");
    assert_eq!(p.fen(), "rnbqkbnr/pppppppp/8/3*4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    // The duck leaves d5 for its new square; it may not stay.
    let q = play(&p, "e7e5,e5e6");
    assert_eq!(q.fen(), "rnbqkbnr/pppp1ppp/4*3/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    assert!(p.legal_moves().iter().all(|&m| m.wall() != Some(35)), "the duck must move");
    // SAN names the wall square after a comma; both forms are read.
    let m = p.parse_any("Nf6,d4").expect("SAN");
    assert_eq!(p.move_text(m), "g8f6,f6d4");
    assert_eq!(p.san(m), "Nf6,d4");
    assert_eq!(menagerie_rules::Move::unpack(m.pack()), Some(m));
    // A walling move onto an occupied square is illegal, not malformed.
    assert!(matches!(p.parse_any("e7e5,e5e4"), Err(MoveError::Illegal(_))));
    assert!(matches!(p.parse_any("e7e5,z9"), Err(MoveError::Syntax(_))));
}

#[test]
fn arrows_fly_along_the_moved_pieces_lines_and_past_walls_trail() {
    // Amazons: the arrow from d4 (the amazon came from d1) along queen lines.
    let p = pos("amazons", "");
    let arrows: Vec<String> =
        p.legal_moves().iter().map(|&m| p.move_text(m)).filter(|t| t.starts_with("d1d4,")).collect();
    assert_eq!(arrows.len(), 28, "{arrows:?}");
    assert!(arrows.contains(&"d1d4,d4d1".to_string()), "back to the square left");
    // Snailtrail: the wall is always the square left.
    let p = pos("snailtrail", "");
    assert!(p.legal_moves().iter().all(|&m| m.wall() == Some(m.from_square())));
    // A side without a move loses (stalemate value loss).
    let p = pos("joust", "7n/8/8/8/8/1*6/2*5/N7 w - - 0 1");
    let o = p.outcome().expect("the knight is walled in");
    assert_eq!((o.reason, o.result), (EndReason::Stalemate, GameResult::BlackWins));
}

#[test]
fn en_passant_castling_and_walls() {
    // A double step that walls its passed square sets no en passant square.
    let p = pos("wallchess", "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1");
    assert_eq!(play(&p, "e2e4,e4e3").fen(), "4k3/8/8/8/3pP3/4*3/8/4K3 b - - 0 1");
    assert_eq!(play(&p, "e2e4,e4a3").fen(), "4k3/8/8/8/3pP3/*7/8/4K3 b - e3 0 1");
    // Castling's wall may go on the rook's old square, not the king's new one.
    let p = pos("wallchess", "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    let castles: Vec<String> =
        p.legal_moves().iter().map(|&m| p.move_text(m)).filter(|t| t.starts_with("e1g1,")).collect();
    assert!(castles.contains(&"e1g1,g1h1".to_string()) && castles.contains(&"e1g1,g1e1".to_string()));
    assert!(!castles.contains(&"e1g1,g1f1".to_string()) && !castles.contains(&"e1g1,g1g1".to_string()));
}

#[test]
fn wall_or_move_passes_to_wall_and_writes_a1_for_plain_moves() {
    let p = pos("edgechess", "");
    let texts: Vec<String> = p.legal_moves().iter().map(|&m| p.move_text(m)).collect();
    assert!(texts.contains(&"b1c3,c3a1".to_string()), "{texts:?}");
    assert!(texts.contains(&"a1a1,a1a3".to_string()), "a walling pass of the lowest piece");
    // The plain form is read too, and walls nothing.
    let q = play(&p, "b1c3");
    assert!(!q.fen().contains('*'));
    let q = play(&p, "a1a1,a1a3");
    assert_eq!(q.fen(), "rnbqkbnr/pppppppp/8/8/8/*7/PPPPPPPP/RNBQKBNR b KQkq - 1 1");
    // No walling pass in check.
    let p = pos("edgechess", "4k3/8/8/8/8/8/8/r3K3 w - - 0 1");
    assert!(p.legal_moves().iter().all(|&m| m.wall().is_none()));
}

#[test]
fn castling_may_win_and_take_the_opponents_side() {
    let p = play(&pos("castlewin", ""), "e1g1");
    let o = p.outcome().expect("castling wins");
    assert_eq!((o.reason, o.result), (EndReason::Castling, GameResult::WhiteWins));
    // A king move loses both rights: that side loses.
    let p = play(&pos("castlewin", ""), "e1f1");
    let o = p.outcome().expect("no right left");
    assert_eq!((o.reason, o.result), (EndReason::Castling, GameResult::BlackWins));
    // Opposite castling: White's short castling takes Black's.
    let p = play(&pos("oppcastle", ""), "e1g1");
    assert_eq!(p.fen(), "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b q - 1 1");
}
